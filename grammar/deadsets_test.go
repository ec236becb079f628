package grammar

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// Under strict, a format beside a pattern is the strings both match, told
// apart by the string automaton (decision 201). The subset construction
// makes one dead state of every set of NFA states from which no text can
// match both any more (gap decision 227), so that a uri beside a pattern
// of its scheme fits the automaton's work: before, it was determinized
// again for every state of the pattern that no text satisfies, and
// refused. Each grammar is checked against the format's own grammar (its
// rules, not an automaton) and Go's regexp for the pattern, on values of
// the format, values of the pattern and values spliced from both.
func TestFormatBesidePattern(t *testing.T) {
	rng := rand.New(rand.NewPCG(227, 1))
	cases := []struct {
		format, pattern string
		compiles        bool // must compile under strict (the others may be refused, naming a keyword)
	}{
		{"uri", `^https?://`, true},
		{"uri", `^https://`, true},
		{"uri", `^(https|file)://`, true},
		{"uri", `^mailto:`, true},
		{"uri", `^(wss?|wss?\+unix)://`, true},
		{"uri", `^https?://.+`, true},
		{"iri", `^https?://`, true},
		{"uri", `^[a-z]+:`, true},
		{"uri", `\.json$`, true},
		{"email", `^[a-z]+@`, false},
		{"email", `@example\.com$`, true},
		{"date", `^20`, true},
		{"date-time", `Z$`, true},
		{"hostname", `^www\.`, false},
		{"ipv4", `^10\.`, true},
		{"uuid", `^[0-9a-f]{8}-`, true},
	}
	compiled, matching, checked := 0, 0, 0
	for _, tc := range cases {
		schema := `{"type": "string", "format": "` + tc.format + `", "pattern": "` + jsonText(tc.pattern) + `"}`
		g, err := compileFormat(schema, true)
		if err != nil {
			if tc.compiles {
				t.Errorf("%s: %v", schema, err)
			} else if !strings.Contains(err.Error(), "format") && !strings.Contains(err.Error(), "pattern") {
				t.Errorf("%s: an error that names neither keyword: %v", schema, err)
			}
			continue
		}
		compiled++
		format := exprGrammar(t, formatExpr(tc.format))
		pe, err := patternExpr(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		pattern := exprGrammar(t, pe)
		re := regexp.MustCompile(tc.pattern)
		fromFormat, fromPattern := newSampler(format, rng), newSampler(pattern, rng)
		for i := range 240 {
			var s string
			switch i % 3 {
			case 0:
				s = fromFormat.Sample()
			case 1:
				s = fromPattern.Sample()
			default:
				// A start of the pattern's value, then the end of the
				// format's.
				p, f := fromPattern.Sample(), fromFormat.Sample()
				s = p[:rng.IntN(len(p)+1)] + f[rng.IntN(len(f)+1):]
			}
			if !utf8.ValidString(s) || len(s) > 200 {
				continue
			}
			want := format.Matches(s) && re.MatchString(s)
			if want {
				matching++
			}
			checked++
			if got := g.Matches(analysisPrefix + finalHeader + `"` + jsonText(s) + `"`); got != want {
				t.Errorf("%s: %q: the grammar says %v, the format and the pattern %v", schema, s, got, want)
			}
		}
	}
	if compiled < 14 || matching < 150 || checked < 1500 {
		t.Errorf("only %d schemas compiled, %d values checked, %d of them valid", compiled, checked, matching)
	}
	t.Logf("%d schemas compiled, %d values checked, %d of them valid", compiled, checked, matching)
}
