package grammar

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// lengthBounded keeps exactly the values of the lengths asked for, where
// it can write them; it can for the anchored patterns and formats below,
// and can't for patterns unanchored at both ends or with two counted
// parts.
func TestLengthBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 64))
	cases := []struct {
		pattern string
		ok      bool
	}{
		{"^[a-z]+$", true},
		{"^[a-z]*$", true},
		{`^[A-Z][a-z]*$`, true},
		{`^\d{3}-\d{4}$`, true},
		{"^(ab)*$", true},
		{"^(ab)*c?$", false},
		{"^(?:abc)?$", true},
		{"^(?:a|bc)$", true},
		{"^(?:a|bc)+$", false},
		{"^(?:x[a-c]+|yy)$", true},
		{"^$", true},
		{"^a{2,5}b{3}$", true},
		{"^é+😀$", true},
		{"[]", true},
		{"abc", false}, // any text on both sides: two
		{"^a", true},   // a, then any text: one counted part
		{"^a*b*$", false},
	}
	bounds := [][2]int{{0, -1}, {0, 0}, {1, 1}, {2, 5}, {3, -1}, {0, 4}, {7, 9}, {6, 6}}
	n := 0
	check := func(name string, e *expr, ok bool) {
		for _, b := range bounds {
			got, gotOK := lengthBounded(e, b[0], b[1])
			if gotOK != ok {
				t.Errorf("%s %v: ok %v, want %v", name, b, gotOK, ok)
				continue
			}
			if !ok {
				continue
			}
			gv, gb := exprGrammar(t, e), exprGrammar(t, got)
			texts := probes("", gv, rng, 60, 60, "zAbc-019é😀")
			for _, s := range texts {
				n++
				l := utf8.RuneCountInString(s)
				want := gv.Matches(s) && l >= b[0] && (b[1] < 0 || l <= b[1])
				if gb.Matches(s) != want {
					t.Errorf("%s %v on %q: %v, want %v\n%s", name, b, s, !want, want, gb.text)
					break
				}
			}
		}
	}
	for _, c := range cases {
		e, err := patternExpr(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		check("pattern "+c.pattern, e, c.ok)
	}
	for name, ok := range map[string]bool{"date": true, "uuid": true, "time": false, "ipv4": false, "duration": false} {
		check("format "+name, formatExpr(name), ok)
	}
	t.Logf("%d texts", n)
	if e, _ := lengthBounded(formatExpr("date"), 0, 9); e != nil {
		t.Error("a date of at most 9 characters")
	}
	if e, _ := lengthBounded(formatExpr("uuid"), 36, 36); e != formatExpr("uuid") {
		t.Error("a uuid of 36 characters is not the uuid expression")
	}
}
