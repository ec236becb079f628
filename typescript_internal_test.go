package harmony

import (
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// TestIsRequiredHint checks that the search of required from a hint, which
// wraps around, finds the same names as a search from the first element,
// whatever the order of the list and the hint.
func TestIsRequiredHint(t *testing.T) {
	for _, src := range []string{
		`{"properties": {"a": 1, "b": 2, "c": 3, "\u0064": 4, "e": 5}, "required": ["a", "b", "c"]}`,
		`{"properties": {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}, "required": ["c", "b", "a"]}`,
		`{"properties": {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}, "required": ["e", 7, "\u0061", "d", "d", null]}`,
		`{"properties": {"a": 1, "b": 2}, "required": []}`,
		`{"properties": {"a": 1, "b": 2}, "required": "a"}`,
		`{"properties": {"a": 1, "b": 2}}`,
	} {
		d, err := pyjson.ParseBytes([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		props, required := d.Lookup(0, "properties"), d.Lookup(0, "required")
		want := map[string]bool{}
		if required >= 0 && d.Kind(required) == pyjson.Array {
			d.Elements(required, func(e, _ int) bool {
				if d.Kind(e) == pyjson.String {
					want[d.Str(e)] = true
				}
				return true
			})
		}
		// Every hint: -1, each element node and the end of the list.
		hints := []int{-1}
		if required >= 0 {
			for e := required + 1; e <= d.Next(required); e++ {
				hints = append(hints, e)
			}
		}
		for _, start := range hints {
			hint := start
			d.Members(props, func(k, _ int) bool {
				var got bool
				got, hint = isRequired(d, required, k, hint)
				if got != want[d.Str(k)] {
					t.Errorf("%s: hint %d: %s required = %v, want %v", src, start, d.Str(k), got, !got)
				}
				return true
			})
		}
	}
}

// TestDeeper checks the indents deeper returns, within the constant and
// past it.
func TestDeeper(t *testing.T) {
	indent := ""
	for level := 1; level <= 40; level++ {
		indent = deeper(indent)
		if want := strings.Repeat("    ", level); indent != want {
			t.Fatalf("level %d: %d spaces, want %d", level, len(indent), len(want))
		}
	}
	if got := deeper("\t"); got != "\t    " {
		t.Fatalf("deeper(tab) = %q", got)
	}
}

// isIdentifier accepts exactly the names TypeScript can write bare in the
// ASCII range: a letter, '_' or '$', then those or digits. Every byte is
// tried first and after a letter.
func TestIsIdentifier(t *testing.T) {
	isLetter := func(c byte) bool { return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	if isIdentifier(nil) {
		t.Error("isIdentifier(empty) = true")
	}
	for c := range 256 {
		b := byte(c)
		if got, want := isIdentifier([]byte{b}), isLetter(b); got != want {
			t.Errorf("isIdentifier(%q) = %v, want %v", []byte{b}, got, want)
		}
		if got, want := isIdentifier([]byte{'a', b}), isLetter(b) || isDigit(b); got != want {
			t.Errorf("isIdentifier(%q) = %v, want %v", []byte{'a', b}, got, want)
		}
	}
}
