package spell

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"enum", "enum", 0},
		{"Enum", "enum", 0},
		{"emum", "enum", 1},
		{"minLenght", "minLength", 1}, // a swap
		{"additonalProperties", "additionalProperties", 1},
		{"requred", "required", 1},
		{"typeof", "type", 2},
		{"ca", "abc", 3}, // optimal string alignment, not Damerau: no edit of a swapped pair
		{"", "abc", 3},
		{strings.Repeat("a", 40), strings.Repeat("a", 38) + "bb", 2}, // past the array on the stack
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

// Within agrees with Distance on every pair of short strings over a small
// alphabet, for every bound.
func TestWithin(t *testing.T) {
	var words []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		words = append(words, prefix)
		if n == 0 {
			return
		}
		for _, c := range "abA" {
			gen(prefix+string(c), n-1)
		}
	}
	gen("", 4)
	for _, a := range words {
		for _, b := range words {
			d := Distance(a, b)
			for k := range 4 {
				if got := Within(a, b, k); got != (d <= k) {
					t.Fatalf("Within(%q, %q, %d) = %v; Distance is %d", a, b, k, got, d)
				}
			}
		}
	}
	if !Within("additonalProperties", "additionalProperties", 1) || Within("qwertyuiop00001", "maxProperties", 2) {
		t.Error("Within on keywords")
	}
}

// FuzzWithin: Within agrees with Distance for every pair and bound.
func FuzzWithin(f *testing.F) {
	f.Add("additonalProperties", "additionalProperties", 2)
	f.Add("maxPrope10000", "maxProperties", 2)
	f.Add("", "abc", 0)
	f.Fuzz(func(t *testing.T, a, b string, k int) {
		if len(a) > 80 || len(b) > 80 || k < 0 || k > 4 {
			return
		}
		if got, want := Within(a, b, k), Distance(a, b) <= k; got != want {
			t.Fatalf("Within(%q, %q, %d) = %v; Distance is %d", a, b, k, got, Distance(a, b))
		}
	})
}
