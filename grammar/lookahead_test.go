package grammar

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestLeadingLookaheads(t *testing.T) {
	for _, c := range []struct {
		pattern, rest   string
		musts, mustNots []string
		ok              bool
	}{
		{`^(?!a)b`, `^b`, nil, []string{`^(?:a)`}, true},
		{`^(?=x)(?!y)z+$`, `^z+$`, []string{`^(?:x)`}, []string{`^(?:y)`}, true},
		{`^(?!^lucene\.|builtin\.)`, `^`, nil, []string{`^(?:^lucene\.|builtin\.)`}, true},
		{`^(?!a(b|c))d(e|f)`, `^d(e|f)`, nil, []string{`^(?:a(b|c))`}, true},
		{`^(?![)(])[(]`, `^[(]`, nil, []string{`^(?:[)(])`}, true},
		{`^(?!\))x`, `^x`, nil, []string{`^(?:\))`}, true},
		{`^(?!a)b|c`, "", nil, nil, false}, // the assertion holds for b alone
		{`^(?!a)*b`, "", nil, nil, false},  // a quantified assertion
		{`a(?!b)`, "", nil, nil, false},    // not at the start
		{`^a(?!b)`, "", nil, nil, false},   // not at the start
		{`(?!b)^a`, "", nil, nil, false},   // before the anchor
		{`^(?!b`, "", nil, nil, false},     // unterminated
		{`^(?<!b)a`, "", nil, nil, false},  // lookbehind
		{`^(?:b)a`, "", nil, nil, false},   // no assertion
	} {
		rest, musts, mustNots, ok := leadingLookaheads(c.pattern)
		if ok != c.ok || rest != c.rest || !slices.Equal(musts, c.musts) || !slices.Equal(mustNots, c.mustNots) {
			t.Errorf("%q: %q %q %q %v, want %q %q %q %v", c.pattern, rest, musts, mustNots, ok, c.rest, c.musts, c.mustNots, c.ok)
		}
	}
}

// Under strict, a pattern that starts with lookahead assertions is the
// rest of the pattern, together with the patterns of its positive
// assertions and none of its negative ones, by the string automaton (gap
// decision 230); not strict, the rest is enforced and the pattern
// reported. Checked against regexp2's ECMAScript engine on values drawn
// from each part and on random texts.
func TestLookaheadPatterns(t *testing.T) {
	rng := rand.New(rand.NewPCG(230, 1))
	patterns := []string{
		`^(?!org\.bukkit\.)([a-zA-Z_$][a-zA-Z\d_$]*\.)*[a-zA-Z_$][a-zA-Z\d_$]*$`,
		`^(?=[^=]+$)(?!\s+$)(.|\n)+$`,
		`^(?!^lucene\.|builtin\.|mongodb\.).*`,
		`^(?![ \t\n]*\(default(.*)\))[\s\S]*`,
		`^(?!.*(\{A\}|\{B\}|["<>*?:/\\])).*\.[bB][lL][fF]$`,
		`^(?!\s*$).+`,
		`^(?=.*[0-9])(?=.*[a-z])[a-z0-9]{4,8}$`,
		`^(?!admin$|root$)[a-z]+$`,
		`^(?=a)`,
		`^(?!a)(?!b)[a-c]{0,3}`,
	}
	alphabet := []rune("abcz09.-_ =\t\n{}()ABLFblfx\"$:/lucenorgbukkit")
	checked, matched := 0, 0
	for _, p := range patterns {
		// Values drawn from the parts, and random texts.
		rest, musts, negs, ok := lookaheadPattern(p)
		if !ok {
			t.Fatalf("%q: no parts", p)
		}
		var samplers []*sampler
		for _, e := range append(append([]*expr{rest}, musts...), negs...) {
			samplers = append(samplers, newSampler(exprGrammar(t, e), rng))
		}
		c, m := ecmaCompare(t, p, samplers, rng, alphabet, 300, 12)
		checked, matched = checked+c, matched+m
	}
	if checked < 2500 || matched < 600 {
		t.Errorf("only %d values checked, %d of them matching", checked, matched)
	}
	t.Logf("%d values checked, %d of them matching", checked, matched)
}

// Two parts of a pattern that each match every text, side by side (the
// pattern's [\s\S]* and the end of its search), are kept in the string
// and key automata: the rule that absorbs a repetition's count beside
// such a part absorbed them both, and a strict grammar took the empty
// string alone, or, for keys, wrote no rule for the pattern's members.
func TestEverythingBesideEverything(t *testing.T) {
	for _, c := range []struct {
		schema    string
		instances []string
	}{
		{`{"type": "string", "pattern": "^[\\s\\S]*", "not": {"pattern": "^a"}}`, []string{`""`, `"b"`, `"ba"`, `"ab"`, `"a"`}},
		{`{"type": "string", "pattern": "[\\s\\S]*", "not": {"pattern": "x"}}`, []string{`""`, `"b"`, `"bx"`, `"yy"`}},
		{`{"type": "string", "allOf": [{"pattern": "^[\\s\\S]*"}, {"pattern": "b$"}]}`, []string{`""`, `"b"`, `"ab"`, `"ba"`}},
		{`{"type": "object", "patternProperties": {"^[\\s\\S]*": {"type": "integer"}, "^a": {"minimum": 2}}}`, []string{`{}`, `{"b": 1}`, `{"ab": 1}`, `{"ab": 2}`, `{"b": "x"}`}},
	} {
		g, err := compileFormat(c.schema, true)
		if err != nil {
			t.Errorf("%s: %v", c.schema, err)
			continue
		}
		validator := validatorFor(t, c.schema)
		for _, in := range c.instances {
			agreeWithValidator(t, c.schema, g, validator, in)
		}
	}
}

// FuzzLeadingLookaheads checks the split of a pattern's leading
// assertions: never a panic; when it splits, the rest and the assertions'
// patterns are anchored as decision 230 says; and a value matches the
// pattern, for regexp2's ECMAScript engine, exactly when it matches the
// rest and the positive assertions' patterns and none of the negative
// ones (by the translator's grammars).
func FuzzLeadingLookaheads(f *testing.F) {
	for _, p := range []string{
		`^(?!org\.bukkit\.)([a-z_$][a-z\d_$]*\.)*[a-z_$]*$`, `^(?=[^=]+$)(?!\s+$)(.|\n)+$`,
		`^(?!^lucene\.|builtin\.)`, `^(?![ \t]*\(default(.*)\))[\s\S]*`, `^(?!\s*$).+`,
		`^(?=.*[0-9])(?=.*[a-z])[a-z0-9]{4,8}$`, `^(?!admin$|root$)[a-z]+$`, `^(?=a)`, `^(?!a)b|c`,
		`^(?![)(])[(]`, `^(?!\))x`, `^(?!a)*b`, `^(?!b`, `^(?=[\]])a`, `^(?!a)(?=b)(?!bc)`,
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rest, musts, mustNots, ok := leadingLookaheads(p)
		if !ok {
			return
		}
		if !strings.HasPrefix(rest, "^") || len(musts)+len(mustNots) == 0 {
			t.Fatalf("%q: rest %q, %d assertions", p, rest, len(musts)+len(mustNots))
		}
		for _, m := range append(slices.Clone(musts), mustNots...) {
			if !strings.HasPrefix(m, "^(?:") || !strings.HasSuffix(m, ")") {
				t.Fatalf("%q: assertion pattern %q", p, m)
			}
		}
		re, musts2, negs, ok := lookaheadPattern(p)
		if !ok || len(p) > 40 {
			return
		}
		parts := append([]*expr{re}, musts2...)
		for _, e := range append(slices.Clone(parts), negs...) {
			if newPatMeter().size(e) > 400 || repDepth(e) > 3 {
				return // the test matcher takes time exponential in the nesting of repetitions
			}
		}
		var gs, ng []*Grammar
		for _, e := range parts {
			gs = append(gs, exprGrammar(t, e))
		}
		for _, e := range negs {
			ng = append(ng, exprGrammar(t, e))
		}
		engine := ecmaRegexp(p)
		if engine == nil {
			return
		}
		rng := rand.New(rand.NewPCG(uint64(len(p)), 230))
		for _, s := range probes(p, gs[0], rng, 10, 10) {
			want, err := engine.MatchString(s)
			if err != nil {
				return // timed out
			}
			got := true
			for _, g := range gs {
				got = got && g.Matches(s)
			}
			for _, g := range ng {
				got = got && !g.Matches(s)
			}
			if got != want {
				t.Fatalf("pattern %q on %q: the parts say %v, ECMAScript %v", p, s, got, want)
			}
		}
	})
}

// The string automaton reads a pattern as the pattern's rules do: each
// pattern of the oracle's list compiled under strict alone (its rules)
// and beside a second pattern every text matches (the automaton, decision
// 201) accepts the same texts, probed as FuzzPatternExpr probes. The
// automaton's NFA simplifies repetitions beside parts that match every
// text (decision 196); two such parts once absorbed each other (decision
// 230), which this finds.
func TestAutomatonAgreesWithRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(230, 2))
	extra := []string{`[\s\S]*`, `^[\s\S]*`, `[\s\S]*$`, `^[\s\S]*$`, `^.*`, `(.|\n)*`}
	checked := 0
	for _, p := range append(slices.Clone(oraclePatterns), extra...) {
		rules, err := compileFormat(`{"type": "string", "pattern": "`+jsonText(p)+`"}`, true)
		if err != nil {
			continue // refused alone (a{2, an empty language): nothing to compare
		}
		both, err := compileFormat(`{"type": "string", "allOf": [{"pattern": "`+jsonText(p)+`"}, {"pattern": "^[\\s\\S]*$"}]}`, true)
		if err != nil {
			t.Errorf("%q beside a pattern every text matches: %v", p, err)
			continue
		}
		e, err := patternExpr(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range probes(p, exprGrammar(t, e), rng, 20, 20, "\r") {
			text := analysisPrefix + finalHeader + `"` + jsonText(s) + `"`
			if a, b := rules.Matches(text), both.Matches(text); a != b {
				t.Errorf("%q on %q: the rules say %v, the automaton %v", p, s, a, b)
			}
			checked++
		}
	}
	if checked < 3000 {
		t.Errorf("only %d texts checked", checked)
	}
	t.Logf("%d texts checked", checked)
}

// The key automaton reads a pattern as the pattern's rules do: an object
// whose keys each pattern of the oracle's list rules (its members integers)
// beside a pattern every key matches is compiled under strict, so that the
// key automaton (decision 196) tells the two apart, and a member of each
// probe key is accepted with a string exactly where the pattern's own rules
// do not match the key.
func TestKeyAutomatonAgreesWithRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(230, 3))
	checked, matching := 0, 0
	for _, p := range oraclePatterns {
		e, err := patternExpr(p)
		if err != nil {
			continue
		}
		rules := exprGrammar(t, e)
		g, err := compileFormat(`{"type": "object", "patternProperties": {"`+jsonText(p)+`": {"type": "integer"}, "^[\\s\\S]*$": {}}, "additionalProperties": false}`, true)
		if err != nil {
			t.Errorf("%q: %v", p, err)
			continue
		}
		for _, k := range probes(p, rules, rng, 10, 10, "\r") {
			if strings.Contains(k, "<|") {
				continue // a key can't hold a marker
			}
			want := !rules.Matches(k)
			if !want {
				matching++
			}
			text := analysisPrefix + finalHeader + `{"` + jsonText(k) + `": "x"}`
			if got := g.Matches(text); got != want {
				t.Errorf("%q: key %q with a string: the grammar says %v, the pattern's rules %v", p, k, got, want)
			}
			if !g.Matches(analysisPrefix + finalHeader + `{"` + jsonText(k) + `": 1}`) {
				t.Errorf("%q: key %q with an integer rejected", p, k)
			}
			checked++
		}
	}
	if checked < 2000 || matching < 500 || checked-matching < 500 {
		t.Errorf("only %d keys checked, %d of them matching", checked, matching)
	}
	t.Logf("%d keys checked, %d of them matching", checked, matching)
}

// Under strict, lookahead assertions anywhere in a pattern are enforced
// (gap decision 286): each beside what follows it to the value's end, by
// the string automaton; not strict, the pattern without them is, and the
// pattern is reported. Checked against regexp2's ECMAScript engine on
// values drawn from the pattern without its assertions (changed or not)
// and on random texts.
func TestAheadPatterns(t *testing.T) {
	rng := rand.New(rand.NewPCG(286, 1))
	patterns := []string{
		// zod 4's z.iso.duration(), without its format.
		`^P(?:(\d+W)|(?!.*W)(?=\d|T\d)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+([.,]\d+)?S)?)?)$`,
		// JSON Schema Store (MaskBench): an npm scope without "--", a path.
		`^([\da-z](?:(?!.*--)[\da-z-]*[\da-z])?)$`,
		`^@([\da-z](?:(?!.*--)[\da-z-]*[\da-z])?)/([\da-z](?:(?!.*--)[\da-z-]*[\da-z])?)$`,
		`^(https?://|/?.?-?(?!\w+://)\w).+\.ya?ml$`,
		`((?:[^/]*/)*)(?=\.(yaml|yml|json))`,
		// Unanchored ends, nesting, $ inside, bounded repetitions.
		`^[a-z]+(?=\d)`,
		`a(?=b)`,
		`^(?:x(?=y)|z){1,3}y?$`,
		`^(?=a(?!b))\w+$`,
		`^\d+(?=px$|em$)\w+$`,
		`^(a|ab)(?=c$|$)`,
		`^(?:a(?=[ab])){2}b`,
		`^a?(?!$)`,
		`^(?:(?=[a-z])\w)?\d$`,
		`x(?=)y`,
		`^(?:(?!ab)[a-c]){0,4}$`,
		`(?!a)(?=[a-c])b|^$`,
		// Groups repeated without bound or past 16: the alternating
		// automaton (MaskBench's "tempered" patterns, then others).
		`^((?!mode)(?!Mode).)*$`,
		`^((?!(c|C)(l|L)(y|Y)(d|D)(e|E)).)*$`,
		`^(?:(?=[a-c]{2})[ab])+c$`,
		`^(?:x(?!y))*`,
		`^(?:(?!.*--)[a-z-])+$`,
		`^(?:[a-c](?=[ab]*c)){1,20}c`,
		`(?:(?!ab).){2,}$`,
		`^(?:(?=a(?!b))\w|b)+$`,
		`^(?:(?!x$).)*$`,
	}
	alphabet := []rune("PWYMDTHS0123456789.,abcxyzem-@/:hpstlj")
	checked, matched := 0, 0
	for _, p := range patterns {
		rest, _, _, err := aheadPattern(p)
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		c, m := ecmaCompare(t, p, []*sampler{newSampler(exprGrammar(t, rest), rng)}, rng, alphabet, 400, 10)
		checked, matched = checked+c, matched+m
	}
	// A pattern on many properties is translated once: 300 of zod's
	// durations parsed each time were past maxPatternBytes.
	duration := `{"type": "string", "pattern": "` + jsonText(patterns[0]) + `"}`
	if _, err := compileFormat(dumpProperties(300, duration), true); err != nil {
		t.Errorf("300 durations under strict: %v", err)
	}
	if checked < 6000 || matched < 1500 {
		t.Errorf("only %d values checked, %d of them matching", checked, matched)
	}
	t.Logf("%d values checked, %d of them matching", checked, matched)
}

// ecmaCompare compiles a string of pattern p under strict and not, checks
// that not strict reports the pattern, and compares both grammars with
// regexp2's ECMAScript engine on n values: drawn from samplers (one in
// three with a character changed) or random texts of alphabet, up to
// maxRandom characters, in turn. The strict grammar must say what the
// engine says, the other never reject what it matches. It returns how
// many values were checked, and how many of them matched.
func ecmaCompare(t *testing.T, p string, samplers []*sampler, rng *rand.Rand, alphabet []rune, n, maxRandom int) (checked, matched int) {
	t.Helper()
	re := ecmaRegexp(p)
	if re == nil {
		t.Fatalf("%q: regexp2 refuses it", p)
	}
	schema := `{"type": "string", "pattern": "` + jsonText(p) + `"}`
	strict, err := compileFormat(schema, true)
	if err != nil {
		t.Errorf("%s under strict: %v", schema, err)
		return 0, 0
	}
	loose, err := compileFormat(schema, false)
	if err != nil {
		t.Errorf("%s: %v", schema, err)
		return 0, 0
	}
	if len(loose.Dropped) != 1 || loose.Dropped[0].Path != "response_format.json_schema.schema.pattern" {
		t.Errorf("%s not strict: reported %v, want the pattern", schema, loose.Dropped)
	}
	for i := range n {
		var s string
		if i%2 == 0 {
			s = samplers[rng.IntN(len(samplers))].Sample()
			if rng.IntN(3) == 0 && len(s) > 0 { // a character changed
				r := []rune(s)
				r[rng.IntN(len(r))] = alphabet[rng.IntN(len(alphabet))]
				s = string(r)
			}
		} else {
			r := make([]rune, rng.IntN(maxRandom))
			for j := range r {
				r[j] = alphabet[rng.IntN(len(alphabet))]
			}
			s = string(r)
		}
		if !utf8.ValidString(s) || len(s) > 100 {
			continue
		}
		want, err := re.MatchString(s)
		if err != nil {
			continue // the engine timed out
		}
		checked++
		if want {
			matched++
		}
		text := analysisPrefix + finalHeader + `"` + jsonText(s) + `"`
		if got := strict.Matches(text); got != want {
			t.Errorf("%q on %q: the strict grammar says %v, ECMAScript %v", p, s, got, want)
		}
		if want && !loose.Matches(text) {
			t.Errorf("%q on %q: the grammar not strict rejects a value ECMAScript matches", p, s)
		}
	}
	return checked, matched
}

// The lookahead assertions the translator does not read are refused
// under strict, saying why and where (gap decision 286).
func TestAheadPatternsRefused(t *testing.T) {
	for _, c := range []struct{ pattern, why string }{
		{`^(?:(?!a)b?)*$`, "at offset 1: a lookahead assertion inside a group that can match the empty text, repeated without bound"},
		{`(?<=a)b`, "at offset 0: lookbehind assertions are not supported"},
		{`^a(?=^b)`, "at offset 2: a ^ inside a lookahead assertion"},
		{`a$(?=b)`, "at offset 0: a lookahead assertion beside a ^ or $"},
		{`(?=a)*`, "at offset 5: nothing to repeat: a lookahead assertion is an assertion"},
		{strings.Repeat(`a(?=a)`, 17), "at offset 97: more than 16 lookahead assertions"},
		{`^a(?=b)(`, "at offset 7: unterminated group"},
	} {
		schema := `{"type": "string", "pattern": "` + jsonText(c.pattern) + `"}`
		_, err := compileFormat(schema, true)
		if err == nil || !strings.Contains(err.Error(), "response_format.json_schema.schema.pattern: the keyword pattern can't be enforced exactly in constrained generation: pattern: "+c.why) {
			t.Errorf("%q under strict: %v, want %q", c.pattern, err, c.why)
		}
		g, err := compileFormat(schema, false)
		if err != nil || len(g.Dropped) != 1 {
			t.Errorf("%q not strict: %v, reported %v", c.pattern, err, g)
		}
	}
	// An assertion that never holds: a pattern no value matches.
	if _, err := compileFormat(`{"type": "string", "pattern": "^x(?!)"}`, true); err == nil || !strings.Contains(err.Error(), "no value satisfies this schema") {
		t.Errorf("^x(?!) under strict: %v", err)
	}
}

// FuzzAheadPattern checks lookahead assertions read anywhere (decision
// 286): never a panic, an error a *patternError at an offset inside the
// pattern; where a pattern translates, a string of that pattern under
// strict is a value exactly when regexp2's ECMAScript engine matches it
// (or, where the compile finds no value, the engine matches none of the
// probes), and the pattern without its assertions holds every value the
// engine matches.
func FuzzAheadPattern(f *testing.F) {
	for _, p := range []string{
		`^P(?:(\d+W)|(?!.*W)(?=\d|T\d)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+([.,]\d+)?S)?)?)$`,
		`^([\da-z](?:(?!.*--)[\da-z-]*[\da-z])?)$`, `^(https?://|/?.?-?(?!\w+://)\w).+\.ya?ml$`,
		`((?:[^/]*/)*)(?=\.(yaml|yml|json))`, `a(?=b)`, `^(?:x(?=y)|z){1,3}y?$`, `^(?=a(?!b))\w+$`,
		`^(a|ab)(?=c$|$)`, `^a?(?!$)`, `x(?=)y`, `^x(?!)`, `(?!a)(?=[a-c])b|^$`, `^((?!mode).)*$`,
		`^(?:(?!.*--)[a-z-])+$`, `^(?:[a-c](?=[ab]*c)){1,20}c`, `^(?:(?=a(?!b))\w|b)+$`, `^(?:(?!a)b?)*$`,
		`a$(?=b)`, `^a(?=^b)`, `(?=a)*`, `(?<=a)b`, `^(?:.{1,3}(?=.{1,2}x)){1,3}$`, `^(?!a)b`,
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rest, _, _, err := aheadPattern(p)
		if err != nil {
			var pe *patternError
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(p) {
				t.Fatalf("%q: %v", p, err)
			}
			return
		}
		m := newPatMeter()
		if m.size(rest) > maxPatternSize || m.weight(rest) > maxPatternWeight {
			t.Fatalf("%q: size %d, weight %d", p, m.size(rest), m.weight(rest))
		}
		if len(p) > 48 || m.size(rest) > 400 || repDepth(rest) > 3 {
			return // the test matcher takes time exponential in the nesting of repetitions
		}
		re := ecmaRegexp(p)
		if re == nil {
			return
		}
		g, err := compileFormat(`{"type": "string", "pattern": "`+jsonText(p)+`"}`, true)
		none := err != nil && strings.Contains(err.Error(), "no value satisfies")
		if err != nil && !none {
			return // past the automaton's limits
		}
		restG := exprGrammar(t, rest)
		rng := rand.New(rand.NewPCG(uint64(len(p)), 286))
		for _, s := range probes(p, restG, rng, 10, 10, ecmaAlphabet) {
			want, err := re.MatchString(s)
			if err != nil {
				return // timed out
			}
			if want && !restG.Matches(s) {
				t.Fatalf("pattern %q on %q: ECMAScript matches it, the pattern without its assertions does not", p, s)
			}
			if none {
				if want {
					t.Fatalf("pattern %q: the compile finds no value, ECMAScript matches %q", p, s)
				}
				continue
			}
			if got := g.Matches(analysisPrefix + finalHeader + `"` + jsonText(s) + `"`); got != want {
				t.Fatalf("pattern %q on %q: the strict grammar says %v, ECMAScript %v", p, s, got, want)
			}
		}
	})
}

// Under strict, patternProperties whose patterns hold lookahead
// assertions are told apart by the key automaton, and declared names are
// checked against them (gap decision 288): each grammar agrees with a
// JSON Schema validator whose patterns are regexp2's ECMAScript ones, on
// the listed instances and on random objects of the listed keys.
func TestAheadKeyPatterns(t *testing.T) {
	rng := rand.New(rand.NewPCG(288, 1))
	for _, c := range []struct {
		schema    string
		keys      []string
		instances []string
	}{
		// Chrome's and the browser's i18n messages (JSON Schema Store).
		{`{"type": "object", "patternProperties": {"^(?!@@)[\\w@]+$": {"type": "integer"}}, "additionalProperties": false}`,
			[]string{"a", "@@a", "a@@", "@a", "a-b", "_"}, []string{`{}`, `{"a": "x"}`}},
		// web-types: every name but "pattern", beside declared ones.
		{`{"type": "object", "properties": {"elements": {"minimum": 1}, "pattern": {"type": "string"}}, "patternProperties": {"^(?!pattern$).*$": {"type": "integer"}}, "additionalProperties": false}`,
			[]string{"elements", "pattern", "patterns", "x", ""}, []string{`{"elements": 0}`, `{"pattern": "p"}`, `{"elements": 1.5}`}},
		// Two patterns told apart, one with an assertion after its start.
		{`{"type": "object", "patternProperties": {"^(?!x)": {"type": "integer"}, "^x(?!y)": {"maximum": 1}}, "additionalProperties": false}`,
			[]string{"a", "x", "xa", "xy", "xya", "yx"}, nil},
		// A tempered pattern, and names other members must not spell.
		{`{"type": "object", "properties": {"a--b": {"type": "integer"}}, "patternProperties": {"^(?:(?!--)[a-z-])+$": {"maximum": 1}}, "additionalProperties": {"type": "string"}}`,
			[]string{"a--b", "a-b", "a--", "--", "ab", "A"}, []string{`{"a--b": 5}`, `{"a--": "s"}`, `{"a-b": 2}`}},
	} {
		g, err := compileFormat(c.schema, true)
		if err != nil {
			t.Errorf("%s under strict: %v", c.schema, err)
			continue
		}
		validator := ecmaValidator(t, c.schema)
		instances := c.instances
		for range 60 {
			instances = append(instances, randomObject(rng, c.keys))
		}
		for _, in := range instances {
			agreeWithValidator(t, c.schema, g, validator, in)
		}
		// Not strict: the patterns reported, and every valid instance
		// where no declared property stands beside them (there, the
		// declared members stand alone, as before: decision 196).
		loose, err := compileFormat(c.schema, false)
		if err != nil {
			t.Errorf("%s: %v", c.schema, err)
			continue
		}
		if !slices.ContainsFunc(loose.Dropped, func(d Dropped) bool { return d.Keyword == "patternProperties" }) {
			t.Errorf("%s not strict: reported %v, want the patterns", c.schema, loose.Dropped)
		}
		for _, in := range instances {
			content, err := unmarshalInstance(in)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(c.schema, `"properties"`) && validator.Validate(content) == nil && !loose.Matches(analysisPrefix+finalHeader+in) {
				t.Errorf("%s not strict: rejects %s, which is valid", c.schema, in)
			}
		}
	}
	// Not strict, one such pattern's schema still holds for the keys of
	// the pattern without its assertions.
	loose, err := compileFormat(`{"type": "object", "patternProperties": {"^(?!@@)[a-z@]+$": {"type": "integer"}}, "additionalProperties": false}`, false)
	if err != nil {
		t.Fatal(err)
	}
	checkContents(t, "a key pattern with an assertion, not strict", loose, []string{`{"a": 1}`, `{"@@a": 2}`}, []string{`{"a": "x"}`, `{"A": 1}`})
}

// Under strict, a not of a pattern with lookahead assertions rules out
// the strings the pattern matches, by the string automaton (gap decision
// 288): each grammar agrees with the ECMAScript validator on the listed
// values and on random strings.
func TestAheadNotPatterns(t *testing.T) {
	rng := rand.New(rand.NewPCG(288, 2))
	alphabet := []rune("ab-x$y")
	for _, c := range []struct {
		schema string
		values []string
	}{
		{`{"type": "string", "not": {"pattern": "^(?:(?!--).)*$"}}`, []string{`"a--b"`, `"ab"`, `""`, `"-"`}},
		{`{"not": {"pattern": "a(?=b)"}, "maxLength": 4}`, []string{`"ab"`, `"ba"`, `"aab"`, `1`, `null`}},
		{`{"type": "string", "pattern": "^[a-z$-]+$", "not": {"pattern": "^(?!\\$)x"}}`, []string{`"x"`, `"$x"`, `"y"`, `"xy"`}},
	} {
		g, err := compileFormat(c.schema, true)
		if err != nil {
			t.Errorf("%s under strict: %v", c.schema, err)
			continue
		}
		validator := ecmaValidator(t, c.schema)
		values := c.values
		for range 150 {
			r := make([]rune, rng.IntN(7))
			for j := range r {
				r[j] = alphabet[rng.IntN(len(alphabet))]
			}
			values = append(values, `"`+jsonText(string(r))+`"`)
		}
		for _, in := range values {
			agreeWithValidator(t, c.schema, g, validator, in)
		}
	}
}

// ecmaValidator is validatorFor with the patterns read by regexp2's
// ECMAScript engine (Go's regexp has no lookahead).
func ecmaValidator(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	return validatorWith(t, schema, func(p string) (jsonschema.Regexp, error) {
		re := ecmaRegexp(p)
		if re == nil {
			return nil, errors.New("regexp2 refuses " + p)
		}
		return ecmaMatcher{re}, nil
	})
}

// ecmaMatcher is a regexp2 expression as the validator's Regexp.
type ecmaMatcher struct{ re *regexp2.Regexp }

func (m ecmaMatcher) MatchString(s string) bool {
	ok, err := m.re.MatchString(s)
	return ok && err == nil
}

func (m ecmaMatcher) String() string { return m.re.String() }
