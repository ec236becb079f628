package harmony

import (
	"strings"
	"testing"
)

// findMarkerSlow is FindMarker's definition: the marker at the first
// position of s where one starts.
func findMarkerSlow(s string) string {
	for i := range len(s) {
		for _, mk := range markers {
			if strings.HasPrefix(s[i:], mk) {
				return mk
			}
		}
	}
	return ""
}

// FindMarker finds the first marker wherever it stands: after a '<' that
// starts none, after "<|" that starts none, at either end, and in strings
// longer and shorter than a vector register.
func TestFindMarker(t *testing.T) {
	long := strings.Repeat("plain text, no markers; ", 8)
	cases := []string{
		"", "<", "<|", "|", "<|end", "<|end|", "<|end|>", "x<|end|>", "<<|end|>", "<|<|end|>",
		"<|foo|><|call|>", "a < b | c <| d", "<|start|>x<|end|>", "< |end|>", "<|END|>",
		"<|channel|", "text<|message|>", "<|return|>tail", "<|constrain|>", "<" + MarkerCall,
		long, long + "<|end|>", long + "<", long + "<|", "<|" + long + "<|call|>",
		strings.Repeat("<", 70) + "<|end|>", strings.Repeat("<|", 40) + "|>" + MarkerReturn,
	}
	for _, s := range cases {
		if got, want := FindMarker(s), findMarkerSlow(s); got != want {
			t.Errorf("FindMarker(%q) = %q, want %q", s, got, want)
		}
	}
	// Every cut of a text with markers at both ends and in the middle.
	text := MarkerStart + "user" + MarkerMessage + long + "<|x|>" + MarkerEnd + "<"
	for i := 0; i <= len(text); i++ {
		for _, s := range []string{text[i:], text[:i]} {
			if got, want := FindMarker(s), findMarkerSlow(s); got != want {
				t.Fatalf("FindMarker(%q) = %q, want %q", s, got, want)
			}
		}
	}
}
