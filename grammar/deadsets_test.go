package grammar

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
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
		{"email", `^[a-z]+@`, true},
		{"email", `@example\.com$`, true},
		{"date", `^20`, true},
		{"date-time", `Z$`, true},
		{"hostname", `^www\.`, false},
		{"ipv4", `^10\.`, true},
		{"uuid", `^[0-9a-f]{8}-`, true},
		{"uri-reference", `^/`, true},
	}
	// A pattern every value matches: the format alone, read by the
	// automaton made once from its expression (decision 228).
	for _, f := range []string{"date", "time", "date-time", "duration", "uuid", "email", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uri-template", "json-pointer", "relative-json-pointer"} {
		cases = append(cases, struct {
			format, pattern string
			compiles        bool
		}{f, `^[\s\S]*$`, true})
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
	if compiled < 31 || matching < 150 || checked < 1500 {
		t.Errorf("only %d schemas compiled, %d values checked, %d of them valid", compiled, checked, matching)
	}
	t.Logf("%d schemas compiled, %d values checked, %d of them valid", compiled, checked, matching)
}

// Several formats beside patterns in one schema fit the budget of a
// grammar's automata: each format's automaton is made once (gap decision
// 228), and the work each string's automaton counts is its product with
// the pattern. Before, a uri beside a pattern took about 330,000 of the
// 524,288 units, so a second one was refused.
func TestFormatsBesidePatterns(t *testing.T) {
	schema := `{"type": "object", "properties": {"home": {"type": "string", "format": "uri", "pattern": "^https?://"}, "mail": {"type": "string", "format": "uri", "pattern": "^mailto:"}, "feed": {"type": "string", "format": "iri", "pattern": "^https://"}, "from": {"type": "string", "format": "email", "pattern": "@example\\.com$"}}, "required": ["home", "mail", "feed", "from"], "additionalProperties": false}`
	g, err := compileFormat(schema, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		content string
		valid   bool
	}{
		{`{"home": "https://example.com/a", "mail": "mailto:a@b.c", "feed": "https://example.org/feed", "from": "ann@example.com"}`, true},
		{`{"home": "ftp://example.com/a", "mail": "mailto:a@b.c", "feed": "https://example.org/feed", "from": "ann@example.com"}`, false},
		{`{"home": "https://example.com/a", "mail": "mail:a@b.c", "feed": "https://example.org/feed", "from": "ann@example.com"}`, false},
		{`{"home": "https://example.com/a", "mail": "mailto:a@b.c", "feed": "http://example.org/feed", "from": "ann@example.com"}`, false},
		{`{"home": "https://example.com/a", "mail": "mailto:a@b.c", "feed": "https://example.org/feed", "from": "ann@example.org"}`, false},
		{`{"home": "https://exa mple.com", "mail": "mailto:a@b.c", "feed": "https://example.org/feed", "from": "ann@example.com"}`, false},
		{`{"home": "https://example.com/a", "mail": "mailto:a@b.c", "feed": "https://example.org/feed", "from": "@example.com"}`, false},
	} {
		if got := g.Matches(analysisPrefix + finalHeader + c.content); got != c.valid {
			t.Errorf("%s: the grammar says %v, want %v", c.content, got, c.valid)
		}
	}
}

// A format's automaton is made by the first compile that needs it, within
// limits of its own: whether a schema compiles, and to what, does not
// depend on whether it was made before (gap decision 228).
func TestFormatAutomatonColdEqualsWarm(t *testing.T) {
	for _, schema := range []string{
		`{"type": "string", "format": "uri", "pattern": "^https?://"}`,
		`{"type": "string", "format": "email", "pattern": "^[a-z]+@"}`,
		`{"type": "object", "properties": {"a": {"type": "string", "format": "uri", "pattern": "^https?://"}, "b": {"type": "string", "format": "email", "pattern": "@example\\.com$"}, "c": {"type": "string", "format": "date-time", "pattern": "Z$"}, "d": {"type": "string", "format": "ipv6", "pattern": "^fe80:"}}}`,
		`{"type": "object", "properties": {"a": {"type": "string", "format": "uri", "pattern": "^https?://"}, "b": {"type": "string", "format": "uri", "pattern": "^mailto:"}, "c": {"type": "string", "format": "uri", "pattern": "^ftp:"}, "d": {"type": "string", "format": "uri", "pattern": "^ws:"}, "e": {"type": "string", "format": "uri", "pattern": "^wss:"}}}`,
		`{"type": "string", "format": "uri-reference", "pattern": "^/"}`,
	} {
		var texts [2]string
		for round := range 2 {
			if round == 0 {
				formatDFAs.Lock()
				formatDFAs.byExpr = nil // none made yet
				formatDFAs.Unlock()
			}
			g, err := compileFormat(schema, true)
			if err != nil {
				texts[round] = "error: " + err.Error()
			} else {
				texts[round] = g.GBNF()
			}
		}
		if texts[0] != texts[1] {
			t.Errorf("%s: compiled cold to\n%.300s\nand warm to\n%.300s", schema, texts[0], texts[1])
		}
	}
}

// Compiles that make a format's automaton at once share it: each gets the
// grammar a compile alone gets (the race detector watches the cache under
// CI).
func TestFormatAutomatonConcurrent(t *testing.T) {
	schemas := []string{
		`{"type": "string", "format": "uri", "pattern": "^https?://"}`,
		`{"type": "string", "format": "email", "pattern": "@example\\.com$"}`,
		`{"type": "object", "properties": {"a": {"type": "string", "format": "ipv6", "pattern": "^fe80:"}, "b": {"type": "string", "format": "uri", "pattern": "^mailto:"}}}`,
	}
	want := make([]string, len(schemas))
	for i, s := range schemas {
		g, err := compileFormat(s, true)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = g.GBNF()
	}
	formatDFAs.Lock()
	formatDFAs.byExpr = nil // none made yet
	formatDFAs.Unlock()
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(schemas))
	for range 8 {
		for i, s := range schemas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g, err := compileFormat(s, true)
				if err != nil {
					errs <- err.Error()
				} else if g.GBNF() != want[i] {
					errs <- s + ": another grammar"
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
