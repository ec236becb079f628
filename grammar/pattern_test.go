package grammar

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// exprGrammar is a grammar whose root is e (nil: the empty language),
// written out as the compiler writes grammars.
func exprGrammar(t testing.TB, e *expr) *Grammar {
	t.Helper()
	if e == nil {
		e = class(false, runeRange{surrogateLo, surrogateLo})
	}
	checkExprWritable(t, e)
	g := &Grammar{rules: []rule{{name: "root", body: e}}}
	g.text = g.write()
	if !strings.HasPrefix(g.text, "root ::= ") || strings.Count(g.text, "\n") != 1 {
		t.Fatalf("grammar written as %.200q", g.text)
	}
	return g
}

// checkExprWritable fails on what no dialect reads alike: an empty class
// (the value translators write nil or a surrogate class instead), an
// empty sequence or alternation (a sequence of one repetition is a
// group), an unbounded repetition of something that matches the empty
// text (llama.cpp refuses (a*)* as left recursion), a repetition of a
// repetition (written x+*, which xgrammar refuses), and on a rule
// reference (value expressions have none).
func checkExprWritable(t testing.TB, e *expr) {
	t.Helper()
	null := &patternParser{nulls: map[*expr]bool{}}
	seen := map[*expr]bool{}
	var walk func(e *expr)
	walk = func(e *expr) {
		if seen[e] {
			return
		}
		seen[e] = true
		switch e.kind {
		case kClass:
			if len(e.rs) == 0 {
				t.Fatal("an empty class")
			}
		case kRef:
			t.Fatal("a rule reference in a value expression")
		case kSeq, kAlt:
			if len(e.items) < 2 && !(e.kind == kSeq && len(e.items) == 1 && e.items[0].kind == kRep) {
				t.Fatalf("a sequence or alternation of %d items", len(e.items))
			}
		case kRep:
			if e.max < 0 && null.nullable(e.items[0]) {
				t.Fatal("an unbounded repetition of an expression that matches the empty text")
			}
			if e.items[0].kind == kRep {
				t.Fatal("a repetition of a repetition (x+* is refused by xgrammar)")
			}
		}
		for _, it := range e.items {
			if it == nil {
				t.Fatal("a nil item")
			}
			walk(it)
		}
	}
	walk(e)
}

func mustPattern(t testing.TB, p string) *Grammar {
	t.Helper()
	e, err := patternExpr(p)
	if err != nil {
		t.Fatalf("%q: %v", p, err)
	}
	return exprGrammar(t, e)
}

// oraclePatterns are patterns RE2 (Go's regexp) reads as ECMA-262 does,
// on texts without the characters where their classes differ (see
// oracleSafe).
var oraclePatterns = []string{
	"", "abc", "^abc$", "^a*$", "a+", "^[a-z]+$", `^\d{3}-\d{2}$`, "^(a|bc)*d?$",
	"x|^y|z$", "^$", "a^", "$a", "a$b", "^(?:ab|cd){2,3}$", "[^a-c]b", `^\S+$`,
	`\w+@\w+\.com`, "^(foo|bar)+?$", "a{2}", "a{2,}", "^a{0,3}b$", "(a*)*b",
	"^(a?){3}$", "(^|,)x", "(x|$)", "^.+$", "a.c", `^[\d\-]+$`, "[.]", `\.`,
	`a\*b`, "(?:a|b)c", "^(?<n>ab)+$", "^[A-Z][a-z]*( [A-Z][a-z]*)*$",
	`^(\+|-)?\d+(\.\d+)?$`, "^[0-9a-fA-F]{2}$", "^https?://", `\s`, `^\s*$`,
	"(ab|a)(bc|c)", "^(a|ab)(c|bcd)(d*)$", "^((a|b)c?)+$", "[a-]", "[-a]",
	"^[^-]$", "^(a|^b)c", "(a|b$)$", "^(|a)b", "(a|)+$", "^(a*|b)*c$",
	`^[\w.-]+$`, `^\W`, `\D\d`, `^[^\d\s]+$`, "(^a|b)(c$|d)", "^x{0}y$",
	"^(ab){1,2}?c$", "a|b|", "()", "^()$", `\$\^`, `^[\^]$`, `^[a\]]$`,
	`^\t\n$`, "(?:^)?a", "^(a(b(c)?)?)?$", "^é+$", "日本", `^\x41\x42$`,
	`^[\x30-\x39]$`, "^a{1,3}?$", "^(?:a|b){0,2}$", "(?:a|^)b", "a(?:$|b)",
	"^(a|b)*?a(a|b)$", "^[^a]*a[^a]*$", "a{2}b{0,1}c{1,}", "(a+|b+)*c",
	"^(?:(a)|b)(?:c|(d))$", `^[\w\s]{2,4}$`, "^-?(0|[1-9][0-9]*)$", "a{,2}",
	"a{2", "^(a|b|c|d|e)+$",
}

// oracleSafe reports whether RE2 and ECMA-262 agree on s's characters:
// RE2's \s lacks \v and the Unicode spaces, and its "." matches \r and the
// line and paragraph separators.
func oracleSafe(s string) bool {
	for _, c := range s {
		if c == '\r' || c == 0x2028 || c == 0x2029 || spaceSet().has(c) && !strings.ContainsRune("\t\n\f ", c) {
			return false
		}
	}
	return true
}

// probes returns texts to try pattern p on: every text of up to two
// characters of an alphabet drawn from p (and extra), random texts,
// samples of the pattern's grammar g, and those samples changed by one
// character. Without extra, only texts RE2 reads alike (oracleSafe).
func probes(p string, g *Grammar, rng *rand.Rand, random, samples int, extra ...string) []string {
	alphabet := []rune("ab0 \n-é" + strings.Join(extra, ""))
	for _, c := range p {
		if !strings.ContainsRune(`\^$*+?()[]{}|`, c) && !strings.ContainsRune(string(alphabet), c) {
			alphabet = append(alphabet, c)
		}
	}
	out := []string{""}
	for _, a := range alphabet {
		out = append(out, string(a))
		for _, b := range alphabet {
			out = append(out, string(a)+string(b))
		}
	}
	for range random {
		n := 3 + rng.IntN(8)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		out = append(out, b.String())
	}
	s := newSampler(g, rng)
	if s.short[g.root] < 1<<30 {
		for range samples {
			x := s.Sample()
			if utf8.RuneCountInString(x) > 40 {
				continue // the test matcher is slow on long texts
			}
			out = append(out, x)
			r := []rune(x)
			if len(r) > 0 {
				i := rng.IntN(len(r))
				switch rng.IntN(3) {
				case 0:
					r = append(r[:i:i], r[i+1:]...)
				case 1:
					r[i] = alphabet[rng.IntN(len(alphabet))]
				default:
					r = append(r[:i:i], append([]rune{alphabet[rng.IntN(len(alphabet))]}, r[i:]...)...)
				}
				out = append(out, string(r))
			}
		}
	}
	if len(extra) > 0 {
		return out
	}
	var safe []string
	for _, x := range out {
		if oracleSafe(x) {
			safe = append(safe, x)
		}
	}
	return safe
}

// The translation agrees with Go's regexp (RE2) on the patterns both read
// alike, for JSON Schema's search semantics (MatchString).
func TestPatternOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 3))
	total := 0
	for _, p := range oraclePatterns {
		re := regexp.MustCompile(p)
		g := mustPattern(t, p)
		for _, s := range probes(p, g, rng, 60, 60) {
			total++
			if got, want := g.Matches(s), re.MatchString(s); got != want {
				t.Errorf("pattern %q on %q: grammar %v, regexp %v\n%s", p, s, got, want, g.text)
			}
		}
	}
	t.Logf("%d patterns, %d texts", len(oraclePatterns), total)
}

// ECMA-262 cases RE2 reads otherwise or not at all (many from the JSON
// Schema Test Suite's optional/ecmascript-regex).
var ecmaCases = []struct {
	pattern string
	yes, no []string
}{
	{"^abc$", []string{"abc"}, []string{"abc\n", "\nabc"}},
	{`^\t$`, []string{"\t"}, []string{`\t`}},
	{`^\cC$`, []string{"\x03"}, []string{`\cC`}},
	{`^\cc$`, []string{"\x03"}, []string{`\cc`}},
	{`^\d$`, []string{"0", "9"}, []string{"\u07c0", "\u09ea", "a"}},
	{`^\D$`, []string{"\u07c0", "a"}, []string{"0"}},
	{`^\w$`, []string{"a", "Z", "_", "5"}, []string{"é", "-", "\u00c9"}},
	{`^\W$`, []string{"é", "-"}, []string{"a", "_"}},
	{`^\s$`, []string{" ", "\t", "\v", "\f", "\u00a0", "\ufeff", "\n", "\r", "\u2028", "\u2029", "\u2003", "\u1680", "\u3000", "\u202f", "\u205f"}, []string{"\u0001", "\u2013", "\u200b", "\u0085", "a"}},
	{`^\S$`, []string{"\u0001", "\u2013", "\u200b", "a"}, []string{" ", "\t", "\v", "\f", "\u00a0", "\ufeff", "\n", "\u2029", "\u2003"}},
	{"^.$", []string{"a", "😀", "\u0085", "\t", "<"}, []string{"\n", "\r", "\u2028", "\u2029", "", "ab"}},
	{"^[^]$", []string{"\n", "a", "😀"}, []string{"", "ab"}},
	{"[]", nil, []string{"", "a", "[]"}},
	{"^[]?$", []string{""}, []string{"a"}},
	{"a|[]", []string{"xa"}, []string{"x"}},
	{`^\u0041$`, []string{"A"}, []string{"u0041"}},
	{`^\u{1F600}$`, []string{"😀"}, []string{"u{1F600}"}},
	{`^\uD83D\uDE00$`, []string{"😀"}, []string{"\U0001F601"}},
	{`^[\uD83D\uDE00-\uD83D\uDE02]$`, []string{"😀", "\U0001F601", "\U0001F602"}, []string{"\U0001F603"}},
	{`^\u00e9$`, []string{"é"}, []string{"e"}},
	{`\p{Letter}cole`, []string{"l'ecole", "l'école"}, []string{"L'ÉCOLE", "1cole"}},
	{`\wcole`, []string{"l'ecole"}, []string{"l'école"}},
	{`^\p{digit}+$`, []string{"42", "\u09ea\u09e8"}, []string{"-%#", ""}},
	{`^\p{Nd}$`, []string{"7"}, []string{"x"}},
	{`^\P{L}$`, []string{"1", " "}, []string{"a", "é"}},
	{`^\p{Script=Greek}+$`, []string{"αβ"}, []string{"a"}},
	{`^\p{sc=Latin}$`, []string{"a", "é"}, []string{"α"}},
	{`^\p{gc=Lu}$`, []string{"A", "É"}, []string{"a"}},
	{`^\p{Lu}\p{Ll}$`, []string{"Ab"}, []string{"AB", "ab"}},
	{`^\p{Any}$`, []string{"\n"}, []string{""}},
	{`^\p{ASCII}+$`, []string{"abc~"}, []string{"é"}},
	{`^\p{White_Space}$`, []string{"\u0085", " "}, []string{"a"}},
	{`^\p{Cn}$`, []string{"\u0378"}, []string{"a"}},
	{`^[\p{L}\d]+$`, []string{"a1é"}, []string{"a-"}},
	{`^[^\p{L}]$`, []string{"1"}, []string{"a"}},
	{`^[\w-.]+$`, []string{"a-b.c"}, []string{"a,b"}},
	{`^[.-\d]+$`, []string{".-5"}, []string{"/"}},
	{`^[\s\S]$`, []string{"\n", "a"}, []string{""}},
	{"^a{$", []string{"a{"}, []string{"a"}},
	{"^a{1,$", []string{"a{1,"}, nil},
	{"^a{x}$", []string{"a{x}"}, nil},
	{"^}$", []string{"}"}, nil},
	{"^]$", []string{"]"}, nil},
	{`^\/$`, []string{"/"}, nil},
	{`^\-$`, []string{"-"}, nil},
	{`^\_$`, []string{"_"}, nil},
	{"^a+?$", []string{"aaa"}, []string{""}},
	{"^a??b$", []string{"b", "ab"}, []string{"aab"}},
	{"^a{2,3}?$", []string{"aa", "aaa"}, []string{"a", "aaaa"}},
	{`^\0$`, []string{"\x00"}, []string{"0"}},
	{`^[\b]$`, []string{"\b"}, []string{"b"}},
	{`^[\-]$`, []string{"-"}, nil},
	{`^\x7f\x00$`, []string{"\x7f\x00"}, nil},
	{`^\$\{x\}$`, []string{"${x}"}, nil},
	{`^(?<year>\d{4})-(?<m>\d{2})$`, []string{"2024-01"}, []string{"2024-1"}},
	{`^[^\n]*$`, []string{"a\rb", ""}, []string{"a\nb"}},
	{`^[\n-\r]+$`, []string{"\n\v\f\r"}, []string{" "}},
	{"^(?:^a)?b$", []string{"b", "ab"}, nil},
	{"(?:a$)?b", []string{"b", "xbx"}, nil},
	{"^(?:a|$)$", []string{"a", ""}, []string{"aa"}},
	{"$^", []string{""}, []string{"a"}},
	{"^$|a", []string{"", "xax"}, []string{"x"}},
	{"(?:a|^)(?:b|$)", []string{"", "ab", "xab", "b", "bx", "xa"}, []string{"q", "xb", "ax"}},
	{"x(?:^|y)", []string{"xy"}, []string{"x"}},
	{"(?:$|y)x", []string{"yx"}, []string{"x"}},
	{"<|end|>", []string{"<", "a<|end|>b", "x>"}, []string{"", "|"}},
	{`"\\`, []string{`a"\b`}, []string{`"`}},
}

func TestPatternECMA(t *testing.T) {
	n := 0
	for _, c := range ecmaCases {
		g := mustPattern(t, c.pattern)
		for _, s := range c.yes {
			n++
			if !g.Matches(s) {
				t.Errorf("pattern %q rejects %q\n%.300s", c.pattern, s, g.text)
			}
		}
		for _, s := range c.no {
			n++
			if g.Matches(s) {
				t.Errorf("pattern %q accepts %q\n%.300s", c.pattern, s, g.text)
			}
		}
	}
	t.Logf("%d patterns, %d texts", len(ecmaCases), n)
}

// ecmaRegexp compiles p with regexp2's ECMAScript mode, an independent
// ECMA-262 engine: with the u flag's semantics, or, when that refuses p
// and p has no escape whose meaning the flag changes (\p, \P, \u), with
// Annex B's. nil when neither compiles.
func ecmaRegexp(p string) *regexp2.Regexp {
	re, err := regexp2.Compile(p, regexp2.ECMAScript|regexp2.Unicode)
	if err != nil && !strings.Contains(p, `\p`) && !strings.Contains(p, `\P`) && !strings.Contains(p, `\u`) {
		re, err = regexp2.Compile(p, regexp2.ECMAScript)
	}
	if err != nil {
		return nil
	}
	re.MatchTimeout = 100 * time.Millisecond // a backtracking engine: (a*)*b takes exponential time
	return re
}

// ecmaAgrees fails when the grammar g of pattern p and regexp2's
// ECMAScript engine disagree on s. It returns false when they disagree,
// or when the engine timed out (the caller then tries no more texts).
func ecmaAgrees(t *testing.T, p string, re *regexp2.Regexp, g *Grammar, s string) bool {
	t.Helper()
	want, err := re.MatchString(s)
	if err != nil {
		return false
	}
	if got := g.Matches(s); got != want {
		t.Errorf("pattern %q on %q: grammar %v, ECMAScript %v\n%.300s", p, s, got, want, g.text)
		return false
	}
	return true
}

// ecmaAlphabet is characters where ECMA-262's classes differ from other
// dialects' (line terminators, Unicode spaces, astral characters), for
// probes against regexp2's ECMAScript mode.
const ecmaAlphabet = "\r\v\u2028\u00a0\ufeff\u2003\u0085😀é_9Z"

// The translation agrees with regexp2's ECMAScript mode, an independent
// ECMA-262 engine, on every pattern of the other tests it reads, over
// texts with the characters where dialects differ.
func TestPatternECMAOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(262, 15))
	var patterns []string
	patterns = append(patterns, oraclePatterns...)
	for _, c := range ecmaCases {
		patterns = append(patterns, c.pattern)
	}
	patterns = append(patterns, `^[\w-.]+$`, `a{,2}\]`, `\cJ|\0`, `^[^\s\S]?$`, `^\S+\s\S+$`, `^.{2}$`, `[^\p{L}\d]+`,
		`^\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)*$`, `^[\u{1F600}-\u{1F64F}]+$`, `^(?:\r\n|\n)+$`, `[\d-z]`, `^[\s\d]*$`)
	compared, texts := 0, 0
	for _, p := range patterns {
		re := ecmaRegexp(p)
		if re == nil {
			continue
		}
		compared++
		g := mustPattern(t, p)
		extra := []string{"\r", "\v", "\u2028", "\u00a0", "😀", "a\r", "\n\r", "é😀"}
		for _, s := range append(probes(p, g, rng, 40, 40, ecmaAlphabet), extra...) {
			texts++
			if !ecmaAgrees(t, p, re, g, s) {
				break
			}
		}
	}
	if compared < len(patterns)*9/10 {
		t.Errorf("regexp2 read only %d of %d patterns", compared, len(patterns))
	}
	t.Logf("%d patterns compared, %d texts", compared, texts)
}

func TestPatternErrors(t *testing.T) {
	cases := []struct {
		pattern string
		offset  int
		msg     string
	}{
		{"(?=a)", 0, "lookahead"},
		{"a(?!b)", 1, "lookahead"},
		{"(?<=a)b", 0, "lookbehind"},
		{"x(?<!a)b", 1, "lookbehind"},
		{`(a)\1`, 3, "backreference"},
		{`\k<x>`, 0, "backreference"},
		{`(?<x>a)\k<x>`, 7, "backreference"},
		{`a\b`, 1, "word boundary"},
		{`\B`, 0, "word boundary"},
		{"a**", 2, "nothing to repeat"},
		{"a*+", 2, "nothing to repeat"},
		{"a{2}{3}", 4, "nothing to repeat"},
		{"*a", 0, "nothing to repeat"},
		{"+", 0, "nothing to repeat"},
		{"a|?", 2, "nothing to repeat"},
		{"{2}", 0, "nothing to repeat"},
		{"(?:a|{1,})", 5, "nothing to repeat"},
		{"^*", 1, "assertion"},
		{"a$+", 2, "assertion"},
		{"^{2}", 1, "assertion"},
		{"a{2,1}", 1, "out of order"},
		{"a{1025}", 1, "1024"},
		{"a{0,2000}", 1, "1024"},
		{"a{99999999999999999999999}", 1, "1024"},
		{"(a{100}){100}", 8, "multiply"},
		{"((a{16}){16}){17}", 13, "multiply"},
		{"(", 0, "unterminated group"},
		{"(a|b", 0, "unterminated group"},
		{"a)", 1, "unmatched )"},
		{"[a", 0, "unterminated character class"},
		{`[a\]`, 0, "unterminated character class"},
		{`a\`, 1, "end of the pattern"},
		{`[\`, 1, "end of the pattern"},
		{`\q`, 0, "unknown escape"},
		{`\e`, 0, "unknown escape"},
		{`[\z]`, 1, "unknown escape"},
		{`\p{Foo}`, 0, "Unicode property"},
		{`\p{Script_Extensions=Latin}`, 0, "Unicode property"},
		{`\pL`, 0, `\p`},
		{`\p{L`, 0, "unterminated"},
		{"[z-a]", 1, "out of order"},
		{"(?i)a", 0, "modifiers"},
		{"(?P<n>a)", 0, "modifiers"},
		{`\u12`, 0, `\u`},
		{`\u{}`, 0, `\u{`},
		{`\u{110000}`, 0, `\u{...}`},
		{`\u{D800}`, 0, "surrogate"},
		{`\xZZ`, 0, `\x`},
		{`\x4`, 0, `\x`},
		{`\uD800`, 0, "surrogate"},
		{`\uD800\u0041`, 0, "surrogate"},
		{`\uDC00`, 0, "surrogate"},
		{"(^a)*", 0, "anchor"},
		{"(a$)+", 0, "anchor"},
		{"(?:^|a){2}", 0, "anchor"},
		{`\07`, 0, "octal"},
		{`[\1]`, 1, "octal"},
		{`\cA\c1`, 3, `\c`},
		{`[\B]`, 1, `\B`},
		{`[\k]`, 1, `\k`},
		{"(?<1a>x)", 3, "group name"},
		{"(?<>x)", 3, "group name"},
		{"(?<a", 0, "unterminated group name"},
		{"ab\xff", 2, "UTF-8"},
		{strings.Repeat("a", maxPatternLen+1), maxPatternLen, "longer"},
		{strings.Repeat("(", maxPatternDepth+1) + "a" + strings.Repeat(")", maxPatternDepth+1), maxPatternDepth, "nested"},
	}
	for _, c := range cases {
		e, err := patternExpr(c.pattern)
		var pe *patternError
		switch {
		case err == nil:
			t.Errorf("%.40q: no error (%d nodes)", c.pattern, newPatMeter().size(e))
		case !errors.As(err, &pe):
			t.Errorf("%.40q: %T %v", c.pattern, err, err)
		case pe.Offset != c.offset || !strings.Contains(pe.Msg, c.msg):
			t.Errorf("%.40q: %v, want offset %d and %q", c.pattern, err, c.offset, c.msg)
		case !strings.HasPrefix(err.Error(), "pattern: at offset "):
			t.Errorf("%.40q: message %q", c.pattern, err)
		}
	}
}

// Patterns past the limits are refused, quickly and without building a
// large expression; patterns up to them are accepted, within the caps.
func TestPatternLimits(t *testing.T) {
	refused := []string{
		strings.Repeat("a{1000}", 200),
		strings.Repeat("(^|$|a)", 500),
		strings.Repeat(`(?:^|$|\p{L})`, 300),
		strings.Repeat(`\p{L}`, 800),
		"((((a{8}){8}){8}){9})",
	}
	for _, p := range refused {
		if len(p) > maxPatternLen {
			t.Fatalf("%.20q is past the length limit: it tests nothing else", p)
		}
		if _, err := patternExpr(p); err == nil {
			t.Errorf("%.40q... (%d bytes) accepted", p, len(p))
		}
	}
	accepted := []string{
		"((a{16}){16}){16}",
		"[a-z]{1024}",
		strings.Repeat("a", maxPatternLen),
		strings.Repeat("(", maxPatternDepth) + "a" + strings.Repeat(")", maxPatternDepth),
		strings.Repeat("(?:ab|cd|ef)?", 300),
		strings.Repeat("^", 1000) + "a" + strings.Repeat("$", 1000),
		`^\p{L}{1,100}$`,
		strings.Repeat("(a?b?c?d?e?f?g?h?i?j?k?l?m?n?o?p?)*", 100),
	}
	for _, p := range accepted {
		e, err := patternExpr(p)
		if err != nil {
			t.Errorf("%.40q: %v", p, err)
			continue
		}
		m := newPatMeter()
		if m.size(e) > maxPatternSize || m.weight(e) > maxPatternWeight {
			t.Errorf("%.40q: size %d, weight %d", p, m.size(e), m.weight(e))
		}
		exprGrammar(t, e)
	}
	g := mustPattern(t, strings.Repeat("^", 1000)+"a"+strings.Repeat("$", 1000))
	if !g.Matches("a") || g.Matches("aa") {
		t.Error("^^^a$$$ does not match just a")
	}
}

// FuzzPatternExpr: no pattern panics or yields an expression past the
// caps, every expression writes, and where regexp2's ECMAScript mode or
// Go's regexp (where it reads the pattern alike: patternComparable) reads
// a pattern, they match the same texts.
func FuzzPatternExpr(f *testing.F) {
	for _, p := range oraclePatterns {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		e, err := patternExpr(p)
		if err != nil {
			var pe *patternError
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(p) {
				t.Fatalf("%q: %v", p, err)
			}
			return
		}
		m := newPatMeter()
		if m.size(e) > maxPatternSize || m.weight(e) > maxPatternWeight {
			t.Fatalf("%q: size %d, weight %d", p, m.size(e), m.weight(e))
		}
		g := exprGrammar(t, e)
		jsonChars(e)
		rawChars(e)
		if len(p) > 48 || m.size(e) > 400 || repDepth(e) > 3 {
			return // the test matcher takes time exponential in the nesting of repetitions
		}
		rng := rand.New(rand.NewPCG(uint64(len(p)), 7))
		if re := ecmaRegexp(p); re != nil {
			for _, s := range probes(p, g, rng, 10, 10, ecmaAlphabet) {
				if !ecmaAgrees(t, p, re, g, s) {
					return
				}
			}
		}
		if !patternComparable(p) {
			return
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return
		}
		for _, s := range probes(p, g, rng, 10, 10) {
			if got, want := g.Matches(s), re.MatchString(s); got != want {
				t.Fatalf("pattern %q on %q: grammar %v, regexp %v\n%s", p, s, got, want, g.text)
			}
		}
	})
}

// repDepth is how deep repetitions nest in e.
func repDepth(e *expr) int {
	d := 0
	for _, it := range e.items {
		d = max(d, repDepth(it))
	}
	if e.kind == kRep {
		d++
	}
	return d
}

var (
	leadingZeroBound = regexp.MustCompile(`[{,]0[0-9]`)
	classEscapeDash  = regexp.MustCompile(`\\[dDwWsS]-|-\\[dDwWsS]`)
)

// patternComparable reports whether Go's regexp reads p as ECMA-262 does,
// when it reads it at all: not an empty class or [^] (RE2 reads []a] as a
// class of ] and a), no POSIX class, no bound with a leading zero (RE2
// reads a{01} as a literal), no class escape beside a "-" (ECMA-262's
// Annex B reads [\w-\0-0] as \w, "-", NUL, "-" and 0, RE2 as \w, "-" and
// the range NUL to 0), and ASCII.
func patternComparable(p string) bool {
	if strings.Contains(p, "[]") || strings.Contains(p, "[^]") || strings.Contains(p, "[:") ||
		leadingZeroBound.MatchString(p) || classEscapeDash.MatchString(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
