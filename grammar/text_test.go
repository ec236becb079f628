package grammar

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/syntax"
)

// A JSON string's language writes its escape once, as a rule of its own
// that each state refers to, not once a state: in the content's strings
// and in an argument's JSON strings alike.
func TestStringEscapeWrittenOnce(t *testing.T) {
	const escape = `"\\" ([\u0022\u002f\u005cbfnrt] | "u" (`
	for _, c := range []struct {
		name  string
		spec  *Spec
		langs []string
	}{
		{"content", &Spec{Format: &Format{}}, []string{"str"}},
		{"content and argument", &Spec{Tools: []Tool{{Name: "f", Parameters: []byte(`{"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}}`)}},
			Format: &Format{}}, []string{"str", "argstr"}},
	} {
		g, err := Compile(context.Background(), c.spec)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := strings.Count(g.text, escape); n != len(c.langs) {
			t.Errorf("%s: the escape written %d times, want %d", c.name, n, len(c.langs))
		}
		for _, l := range c.langs {
			if !strings.Contains(g.text, "\n"+l+"-esc ::= "+escape) || !strings.Contains(g.text, " "+l+"-esc "+l+"-0 ") {
				t.Errorf("%s: no rule %s-esc referred to by the states", c.name, l)
			}
		}
	}
}

// The automaton of a set of forbidden strings is minimal and means what
// the prefix automaton means (gap decision 260): on random texts over the
// strings' characters and one other, a run from the start reaches a
// forbidden move exactly where the text read so far ends with a forbidden
// string, in both; and no two states of the minimal one are alike (a
// breadth-first search over pairs of states finds a text that tells each
// pair apart).
func TestMinimalAutomaton(t *testing.T) {
	sets := map[string][]string{
		"markers":  forbidden(inContent),
		"argument": forbidden(inArgument),
		"overlaps": {"abab", "abc", "bab", "c"},
	}
	for name, set := range sets {
		full, min := prefixAutomaton(set), newAutomaton(set)
		if len(min.states) > len(full.states) {
			t.Errorf("%s: %d states, more than the %d prefixes", name, len(min.states), len(full.states))
		}
		alphabet := append(slices.Clone(min.special), 'x')
		// step returns the state after c, -1 for a forbidden move.
		step := func(a *automaton, s int, c rune) int {
			if j := slices.Index(a.special, c); j >= 0 {
				return a.next[s][j]
			}
			return 0
		}
		rng := rand.New(rand.NewPCG(1, uint64(len(name))))
		for range 4000 {
			var text []rune
			sf, sm := 0, 0
			for sf >= 0 {
				c := alphabet[rng.IntN(len(alphabet))]
				if rng.IntN(4) == 0 {
					// Mostly the strings' own characters in order, so
					// that long prefixes are reached.
					w := set[rng.IntN(len(set))]
					c = []rune(w)[rng.IntN(len([]rune(w)))]
				}
				text = append(text, c)
				sf, sm = step(full, sf, c), step(min, sm, c)
				want := false
				for _, f := range set {
					want = want || strings.HasSuffix(string(text), f)
				}
				if (sf < 0) != want || (sm < 0) != want {
					t.Fatalf("%s: after %q the prefix automaton is at %d, the minimal at %d; a forbidden string ends there: %v", name, string(text), sf, sm, want)
				}
				if len(text) > 64 {
					break
				}
			}
		}
		// Minimality: each pair of states is told apart by some text.
		for p := range min.states {
			for q := p + 1; q < len(min.states); q++ {
				type pair struct{ a, b int }
				seen := map[pair]bool{{p, q}: true}
				queue := []pair{{p, q}}
				apart := false
				for len(queue) > 0 && !apart {
					cur := queue[0]
					queue = queue[1:]
					for _, c := range alphabet {
						a, b := step(min, cur.a, c), step(min, cur.b, c)
						if (a < 0) != (b < 0) {
							apart = true
							break
						}
						if a >= 0 && !seen[pair{a, b}] {
							seen[pair{a, b}] = true
							queue = append(queue, pair{a, b})
						}
					}
				}
				if !apart {
					t.Errorf("%s: states %d (%q) and %d (%q) are alike", name, p, min.states[p], q, min.states[q])
				}
			}
		}
		t.Logf("%s: %d prefixes, %d states", name, len(full.states), len(min.states))
	}
}

// The rules of a text written from its smallest automaton match exactly
// the texts that hold no forbidden string: random reasoning and random
// string contents of a response format, drawn mostly from the markers'
// characters, matched with the test matcher by the grammar and by its
// EBNF read back (gap decision 260).
func TestTextRulesMatchTheirLanguage(t *testing.T) {
	g, err := Compile(context.Background(), &Spec{Format: &Format{Schema: []byte(`{"type": "string"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	ebnf, err := parseWritten(g.EBNF())
	if err != nil {
		t.Fatal(err)
	}
	const (
		head = "<|channel|>analysis<|message|>"
		mid  = "<|end|><|start|>assistant<|channel|>final<|message|>"
	)
	markers := forbidden(inContent)
	alphabet := []rune("xyzA ")
	for _, m := range markers {
		alphabet = append(alphabet, []rune(m)...)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	// random draws a text; with escapes, a JSON string's contents that
	// hold escapes too (each returns the automaton to the start).
	escapeList := []string{`\n`, `\"`, `\\`, `\u003c`, `\/`}
	random := func(escapes bool) string {
		var b strings.Builder
		for n := 1 + rng.IntN(24); b.Len() < n; {
			if escapes && rng.IntN(8) == 0 {
				b.WriteString(escapeList[rng.IntN(len(escapeList))])
				continue
			}
			if rng.IntN(5) == 0 {
				// A marker, or most of one.
				m := markers[rng.IntN(len(markers))]
				b.WriteString(m[:1+rng.IntN(len(m))])
				continue
			}
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	holds := func(s string) bool {
		for _, m := range markers {
			if strings.Contains(s, m) {
				return true
			}
		}
		return false
	}
	seen := [2]int{}
	for range 3000 {
		r, s := random(false), random(true)
		want := !holds(r) && !holds(s)
		if want {
			seen[0]++
		} else {
			seen[1]++
		}
		if got := g.Matches(head + r + mid + `"` + s + `"`); got != want {
			t.Fatalf("reasoning %q, string %q: matched %v, want %v", r, s, got, want)
		}
		if got := ebnf.Matches(head + r + mid + `"` + s + `"`); got != want {
			t.Fatalf("reasoning %q, string %q: the EBNF matched %v, want %v", r, s, got, want)
		}
	}
	if seen[0] < 300 || seen[1] < 300 {
		t.Fatalf("too few texts of one kind: %d without a marker, %d with", seen[0], seen[1])
	}
	// A raw argument's value: the markers and </rfl:parameter> forbidden.
	g, err = Compile(context.Background(), &Spec{Choice: Required, Tools: []Tool{{Name: "f",
		Parameters: []byte(`{"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if ebnf, err = parseWritten(g.EBNF()); err != nil {
		t.Fatal(err)
	}
	markers = forbidden(inArgument)
	alphabet = append(alphabet, []rune(syntax.ParamClose)...)
	call := analysisPrefix + "<|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"id\">\n"
	seen = [2]int{}
	for range 3000 {
		v := random(false)
		want := !holds(v)
		if want {
			seen[0]++
		} else {
			seen[1]++
		}
		text := call + v + "\n" + syntax.ParamClose
		if got := g.Matches(text); got != want {
			t.Fatalf("raw value %q: matched %v, want %v", v, got, want)
		}
		if got := ebnf.Matches(text); got != want {
			t.Fatalf("raw value %q: the EBNF matched %v, want %v", v, got, want)
		}
	}
	if seen[0] < 300 || seen[1] < 300 {
		t.Fatalf("too few values of one kind: %d without a forbidden string, %d with", seen[0], seen[1])
	}
}

// A key that no property declares is read to its end by key-rest, free
// characters repeated and each escape followed by the rest again
// (decision 261): random keys with escapes, a raw control character or
// a raw <, matched by the grammar and by its EBNF read back.
func TestKeyRestLanguage(t *testing.T) {
	g, err := Compile(context.Background(), &Spec{Format: &Format{Strict: true, Schema: []byte(
		`{"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "integer"}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(g.GBNF(), "\nkey-rest ::= ") {
		t.Fatalf("no key-rest rule:\n%s", g.GBNF())
	}
	ebnf, err := parseWritten(g.EBNF())
	if err != nil {
		t.Fatal(err)
	}
	const final = "<|channel|>analysis<|message|>r<|end|><|start|>assistant<|channel|>final<|message|>"
	units := []string{"a", "b", "x", " ", "é", `\n`, `\"`, `\\`, `\u003c`, `\u0001`, "\t", "<"}
	rng := rand.New(rand.NewPCG(3, 4))
	seen := [2]int{}
	for range 2000 {
		var b strings.Builder
		want := true
		for n := 1 + rng.IntN(8); n > 0; n-- {
			u := units[rng.IntN(len(units))]
			if u == "\t" || u == "<" {
				want = false
			}
			b.WriteString(u)
		}
		if want {
			seen[0]++
		} else {
			seen[1]++
		}
		text := final + `{"` + b.String() + `": 1}`
		if got := g.Matches(text); got != want {
			t.Fatalf("key %q: matched %v, want %v", b.String(), got, want)
		}
		if got := ebnf.Matches(text); got != want {
			t.Fatalf("key %q: the EBNF matched %v, want %v", b.String(), got, want)
		}
	}
	if seen[0] < 200 || seen[1] < 200 {
		t.Fatalf("too few keys of one kind: %d valid, %d not", seen[0], seen[1])
	}
}

// A string with minLength and no maxLength ends in a run of characters
// written as a loop (chars, decision 263): random contents with escapes, a
// raw control character or a raw <, matched by the grammar and by its EBNF
// read back exactly when they are long enough and hold neither, in a
// response format (JSON, chunked past 64 characters too) and in a raw
// argument; a raw argument's < where it begins no marker is allowed for a
// minimum of up to 7 characters (gap decision 315: that of 3 here), and
// past it kept out (decision 129: that of 70).
func TestStringRunLanguage(t *testing.T) {
	const final = "<|channel|>analysis<|message|>r<|end|><|start|>assistant<|channel|>final<|message|>"
	const call = "<|channel|>analysis<|message|>r<|end|><|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"s\">\n"
	// The units of a text, one character each; the last is not allowed
	// (a raw control character in JSON; a raw < in JSON, and in a raw
	// argument past decision 315's cap), drawn into about a third of the
	// texts.
	json := []string{"a", "b", " ", "é", `\n`, `\"`, `\\`, `\u003c`, "\t"}
	raw := []string{"a", "b", " ", "é", `\`, `"`, "\n", "<"}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		min   int
		raw   bool
		units []string
	}{{3, false, json}, {70, false, json}, {3, true, raw}, {70, true, raw}} {
		schema := `{"type": "string", "minLength": ` + strconv.Itoa(c.min) + `}`
		spec := &Spec{Format: &Format{Strict: true, Schema: []byte(schema)}}
		if c.raw {
			spec = &Spec{Choice: Required, Tools: []Tool{{Name: "f", Strict: true,
				Parameters: []byte(`{"type": "object", "properties": {"s": ` + schema + `}, "required": ["s"], "additionalProperties": false}`)}}}
		}
		g, err := Compile(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		ebnf, err := parseWritten(g.EBNF())
		if err != nil {
			t.Fatal(err)
		}
		seen := [2]int{}
		for range 1500 {
			var b strings.Builder
			n := c.min - 3 + rng.IntN(8)
			bad := -1
			if n > 0 && rng.IntN(3) == 0 {
				bad = rng.IntN(n)
			}
			for k := range n {
				u := c.units[rng.IntN(len(c.units)-1)]
				if k == bad {
					u = c.units[len(c.units)-1]
				}
				b.WriteString(u)
			}
			want := (bad < 0 || c.raw && c.min <= 7) && n >= c.min
			if want {
				seen[0]++
			} else {
				seen[1]++
			}
			text := final + `"` + b.String() + `"`
			if c.raw {
				text = call + b.String() + "\n" + syntax.ParamClose
			}
			if got := g.Matches(text); got != want {
				t.Fatalf("%s (raw %v): %q matched %v, want %v", schema, c.raw, b.String(), got, want)
			}
			if got := ebnf.Matches(text); got != want {
				t.Fatalf("%s (raw %v): %q: the EBNF matched %v, want %v", schema, c.raw, b.String(), got, want)
			}
		}
		if seen[0] < 100 || seen[1] < 100 {
			t.Fatalf("%s (raw %v): too few texts of one kind: %d in, %d out", schema, c.raw, seen[0], seen[1])
		}
	}
}

// Both forms of a text's rules, llama.cpp's (every state writes its moves
// back to the start) and xgrammar's (the states past the first character
// share one rule for them, name-home; gap decision 264), match exactly the
// texts that hold no forbidden string, for the markers and for random sets
// of strings that overlap; and only xgrammar's form, and there only the
// states more than one character from the start, use the shared rule.
func TestTextFormsMatchTheirLanguage(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets := [][]string{forbidden(inContent), forbidden(inArgument), {"abab", "abc", "bab", "c"}}
	for range 30 {
		var set []string
		for range 1 + rng.IntN(4) {
			var b strings.Builder
			for range 1 + rng.IntN(5) {
				b.WriteByte("abcd"[rng.IntN(4)])
			}
			set = append(set, b.String())
		}
		sets = append(sets, set)
	}
	for _, set := range sets {
		lang := &textLang{forbidden: set}
		p := lang.proto("t")
		a := newAutomaton(set)
		near := map[string]bool{"t-0": true}
		for _, n := range a.next[0] {
			if n > 0 {
				near["t-"+strconv.Itoa(n)] = true
			}
		}
		alphabet := []rune("xy")
		for _, f := range set {
			alphabet = append(alphabet, []rune(f)...)
		}
		for _, form := range []*proto{p, p.xg} {
			text, _ := form.written()
			for line := range strings.Lines(text) {
				name, body, _ := strings.Cut(line, " ::= ")
				_, err := strconv.Atoi(strings.TrimPrefix(name, "t-"))
				isState := err == nil
				if shares, want := strings.Contains(body, "t-home"), form == p.xg && isState && !near[name]; shares != want {
					t.Errorf("%q: %s (xgrammar's form %v, one character from the start %v) writes %s", set, name, form == p.xg, near[name], body)
				}
			}
			g, err := parseWritten("root ::= t-0\n" + text)
			if err != nil {
				t.Fatalf("%q: %v", set, err)
			}
			seen := [2]int{}
			for range 400 {
				var b strings.Builder
				for n := rng.IntN(12); b.Len() < n; {
					if rng.IntN(4) == 0 {
						f := set[rng.IntN(len(set))]
						b.WriteString(f[:1+rng.IntN(len(f))])
						continue
					}
					b.WriteRune(alphabet[rng.IntN(len(alphabet))])
				}
				s := b.String()
				want := !slices.ContainsFunc(set, func(f string) bool { return strings.Contains(s, f) })
				if want {
					seen[0]++
				} else {
					seen[1]++
				}
				if got := g.Matches(s); got != want {
					t.Fatalf("%q, form of %d rules: %q matched %v, want %v", set, len(form.names), s, got, want)
				}
			}
			if seen[0] < 20 || seen[1] < 20 {
				t.Fatalf("%q: too few texts of one kind: %d without a forbidden string, %d with", set, seen[0], seen[1])
			}
		}
	}
}
