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
