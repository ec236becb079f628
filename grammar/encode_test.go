package grammar

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// jsonText is value s as jsonChars writes it between a JSON string's
// quotes.
func jsonText(s string) string {
	var b strings.Builder
	for _, c := range s {
		b.WriteString(jsonCharText(c))
	}
	return b.String()
}

// jsonCharText writes each character as the renderer's JSON writer does
// (Python's json.dumps(ensure_ascii=False)), and as Go's encoder does
// without HTML escaping except for U+2028 and U+2029 (Go escapes them),
// but "<" always as \u003c.
func TestJSONCharText(t *testing.T) {
	chars := []rune{0x2028, 0x2029, 0x7f, 0x80, 0xfeff, 0xffff, 0x10000, 0x1f600, 0x10ffff}
	for c := rune(0); c < 0x300; c++ {
		chars = append(chars, c)
	}
	for _, c := range chars {
		got := jsonCharText(c)
		py := string(pyjson.AppendQuoted(nil, string(c)))
		py = py[1 : len(py)-1]
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(string(c)); err != nil {
			t.Fatal(err)
		}
		goText := strings.TrimSuffix(b.String(), "\n")
		goText = goText[1 : len(goText)-1]
		switch {
		case c == '<':
			if got != `\u003c` {
				t.Errorf("< written %q", got)
			}
		case got != py:
			t.Errorf("%U written %q, the renderer writes %q", c, got, py)
		case c != 0x2028 && c != 0x2029 && got != goText:
			t.Errorf("%U written %q, Go writes %q", c, got, goText)
		}
		var back string
		if err := json.Unmarshal([]byte(`"`+got+`"`), &back); err != nil || back != string(c) {
			t.Errorf("%U: %q reads back as %q (%v)", c, got, back, err)
		}
	}
}

// encodeCases are value expressions with every kind of node and the
// characters the encoders write specially.
func encodeCases(t *testing.T) map[string]*expr {
	cases := map[string]*expr{
		"specials literal":  lit("a\"\\<\n\x01\x1f/é\u2028>"),
		"ascii class":       class(false, runeRange{0, 0x7f}),
		"controls class":    class(false, runeRange{0, 0x1f}),
		"negated a":         class(true, runeRange{'a', 'a'}),
		"negated specials":  chars(true, "\"\\<\n"),
		"everything":        class(true, runeRange{surrogateLo, surrogateHi}),
		"nothing":           class(false, runeRange{surrogateLo, surrogateLo}),
		"only lt":           lit("<"),
		"lt or a":           alt(lit("<"), lit("a")),
		"lt star":           seq(lit("x"), star(chars(false, "<\"")), lit("y")),
		"rep with lt":       rep(seq(chars(false, "a<"), lit("\t")), 1, 3),
		"seq needs lt":      seq(lit("a"), chars(false, "<"), lit("b")),
		"optional lt":       seq(lit("a"), opt(lit("<")), lit("b")),
		"quote backslash":   rep(chars(false, `"\`), 2, 2),
		"shared subexpr":    func() *expr { x := chars(false, "<a\""); return alt(seq(x, x), rep(x, 3, 3)) }(),
		"empty":             empty(),
		"lone surrogate +a": class(false, runeRange{surrogateLo, surrogateLo}, runeRange{'a', 'a'}),
	}
	for _, p := range append(append([]string(nil), oraclePatterns[:30]...), `^\s+$`, "^.$", `<\|end\|>`, `^[^<]*$`, `^[\x00-\x1f]+$`, `["\\]`, `^\p{Lu}`) {
		e, err := patternExpr(p)
		if err != nil {
			t.Fatal(err)
		}
		cases["pattern "+p] = e
	}
	for _, f := range []string{"email", "uri", "time"} {
		cases["format "+f] = formatExpr(f)
	}
	return cases
}

// noRawLT fails when e can write a "<", or in JSON (json true) a raw
// control character.
func noRawLT(t *testing.T, name string, e *expr, json bool) {
	t.Helper()
	if e == nil {
		return
	}
	switch e.kind {
	case kLit:
		for _, c := range e.text {
			if c == '<' || json && c < 0x20 {
				t.Fatalf("%s: the literal %q", name, e.text)
			}
		}
	case kClass:
		if e.has('<') || json && (e.has(0) || e.has('\n') || e.has(0x1f)) {
			t.Fatalf("%s: a class with < or a control character", name)
		}
	}
	for _, it := range e.items {
		noRawLT(t, name, it, json)
	}
}

// A value is in e's language if and only if its JSON text is in
// jsonChars(e)'s, and if and only if it has no "<" and is in rawChars(e)'s;
// texts drawn from jsonChars(e) read back as JSON strings of values in
// e's language. Neither encoding ever writes a "<".
func TestEncoders(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []rune("a\"\\<>\n\t\x01\x1f/é\u2028 0xyAZ_")
	n := 0
	for name, e := range encodeCases(t) {
		je, re := jsonChars(e), rawChars(e)
		noRawLT(t, name, je, true)
		noRawLT(t, name, re, false)
		gv, gj, gr := exprGrammar(t, e), exprGrammar(t, je), exprGrammar(t, re)
		values := []string{"", "<", "a", `"`, `\`, "\n"}
		s := newSampler(gv, rng)
		for range 40 {
			if s.short[gv.root] < 1<<30 {
				if v := s.Sample(); len(v) < 60 {
					values = append(values, v)
				}
			}
			var b strings.Builder
			for range rng.IntN(6) {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
			values = append(values, b.String())
		}
		for _, v := range values {
			n++
			want := gv.Matches(v)
			if got := gj.Matches(jsonText(v)); got != want {
				t.Errorf("%s: value %q matches %v, its JSON text %q %v", name, v, want, jsonText(v), got)
			}
			if got := gr.Matches(v); got != (want && !strings.Contains(v, "<")) {
				t.Errorf("%s: value %q matches %v, as raw text %v", name, v, want, got)
			}
		}
		sj := newSampler(gj, rng)
		for range 30 {
			if je == nil {
				break // the empty language: its grammar is a class of a surrogate
			}
			x := sj.Sample()
			var v string
			if err := json.Unmarshal([]byte(`"`+x+`"`), &v); err != nil {
				t.Fatalf("%s: %q is not a JSON string's text: %v", name, x, err)
			}
			if len(x) < 60 && !gv.Matches(v) {
				t.Errorf("%s: JSON text %q reads as %q, not a value", name, x, v)
			}
		}
	}
	t.Logf("%d cases, %d values", len(encodeCases(t)), n)
}

// The encoders write one canonical text per value: other escapes of the
// same character are not matched.
func TestEncodersCanonical(t *testing.T) {
	g := exprGrammar(t, jsonChars(seq(lit("a/"), chars(false, "<\n"))))
	for text, want := range map[string]bool{
		`a/\u003c`: true, `a/\n`: true,
		`\u0061/\u003c`: false, `a\/\n`: false, `a/\u003C`: false, `a/<`: false, `a/\u000a`: false,
	} {
		if g.Matches(text) != want {
			t.Errorf("%q: %v, want %v", text, !want, want)
		}
	}
	if rawChars(lit("a<b")) != nil || rawChars(chars(false, "<")) != nil {
		t.Error("a raw value holds <")
	}
	// What needs no change is not copied.
	for _, name := range []string{"date", "time", "date-time", "duration", "uuid", "ipv4", "ipv6"} {
		if e := formatExpr(name); jsonChars(e) != e || rawChars(e) != e || formatJSON(name) != e || formatRaw(name) != e {
			t.Errorf("%s: copied by an encoder", name)
		}
	}
	if e := formatExpr("email"); formatJSON("email") == e || formatRaw("email") == e || formatExpr("email") != e {
		t.Error("email's quoted local part is encoded without change, or formats are built twice")
	}
	if formatJSON("no-such-format") != nil || formatRaw("no-such-format") != nil {
		t.Error("an unknown format has an encoding")
	}
	if jsonChars(nil) != nil || rawChars(nil) != nil {
		t.Error("the empty language encodes to something")
	}
	defer func() {
		if recover() == nil {
			t.Error("a rule reference encoded")
		}
	}()
	jsonChars(seq(lit("a"), ref(0)))
}
