package grammar

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Compiled for xgrammar (Spec.XGrammar), a string's maxLength that the
// grammar would count character by character is left out of a schema
// that is not strict, and reported; minLength stays enforced, and so does
// everything under strict or for other engines (gap decision 266).
func TestXGrammarLeavesMaxLengthOut(t *testing.T) {
	long := `"` + strings.Repeat("x", 300) + `"`
	cases := []struct {
		name, schema string
		dropped      []string // paths reported for xgrammar, not strict
		tooLong      string   // a content only maxLength rules out
		tooShort     string   // a content minLength rules out ("" for none)
		ok           string   // a content every form accepts
	}{
		{"maxLength", `{"type": "string", "maxLength": 4}`,
			[]string{"response_format.json_schema.schema.maxLength"}, `"abcde"`, "", `"a\nb"`},
		{"both lengths", `{"type": "string", "minLength": 2, "maxLength": 3}`,
			[]string{"response_format.json_schema.schema.maxLength"}, `"abcd"`, `"a"`, `"\u00e9\n"`},
		{"past 64, chunked", `{"type": "string", "minLength": 70, "maxLength": 200}`,
			[]string{"response_format.json_schema.schema.maxLength"}, long, `"` + strings.Repeat("y", 69) + `"`, `"` + strings.Repeat("z", 100) + `"`},
		{"a property, and a second schema through allOf", `{"type": "object", "properties": {"name": {"type": "string", "maxLength": 5, "allOf": [{"maxLength": 8}]}}, "required": ["name"], "additionalProperties": false}`,
			[]string{"response_format.json_schema.schema.properties.name.maxLength", "response_format.json_schema.schema.properties.name.allOf[0].maxLength"},
			`{"name": "abcdef"}`, "", `{"name": "abc"}`},
		{"array items", `{"type": "array", "items": {"type": "string", "maxLength": 1}}`,
			[]string{"response_format.json_schema.schema.items.maxLength"}, `["ab"]`, "", `["a", ""]`},
	}
	for _, c := range cases {
		compile := func(strict, xg bool) *Grammar {
			t.Helper()
			g, err := Compile(context.Background(), &Spec{Format: &Format{Schema: json.RawMessage(c.schema), Strict: strict}, XGrammar: xg})
			if err != nil {
				t.Fatalf("%s (strict %v, xgrammar %v): %v", c.name, strict, xg, err)
			}
			return g
		}
		var paths []string
		loose := compile(false, true)
		for _, d := range loose.Dropped {
			if d.Keyword != "maxLength" {
				t.Errorf("%s: reported %s", c.name, d.Path)
			}
			paths = append(paths, d.Path)
		}
		slices.Sort(paths)
		slices.Sort(c.dropped)
		if !slices.Equal(paths, c.dropped) {
			t.Errorf("%s: reported %v, want %v", c.name, paths, c.dropped)
		}
		in, out := []string{c.ok, c.tooLong}, []string{}
		if c.tooShort != "" {
			out = append(out, c.tooShort)
		}
		checkContents(t, c.name+" (xgrammar, not strict)", loose, in, out)
		// The EBNF counts no string's optional characters (minLength's
		// are required copies, then a run).
		for line := range strings.Lines(loose.EBNF()) {
			if strings.HasPrefix(line, "xg-upto-") {
				t.Errorf("%s: the EBNF still counts the string: %s", c.name, line)
			}
		}
		// Strict for xgrammar, and either mode for llama.cpp: enforced.
		for _, mode := range []struct{ strict, xg bool }{{true, true}, {false, false}, {true, false}} {
			g := compile(mode.strict, mode.xg)
			if len(g.Dropped) != 0 {
				t.Errorf("%s %+v: reported %v", c.name, mode, g.Dropped)
			}
			out := []string{c.tooLong}
			if c.tooShort != "" {
				out = append(out, c.tooShort)
			}
			checkContents(t, c.name, g, []string{c.ok}, out)
		}
	}
	// A length a pattern's automaton counts is cheap for xgrammar: kept.
	g, err := Compile(context.Background(), &Spec{Format: &Format{Schema: json.RawMessage(`{"type": "string", "pattern": "^[a-z]+$", "maxLength": 3}`)}, XGrammar: true})
	if err != nil || len(g.Dropped) != 0 {
		t.Fatalf("pattern and maxLength: %v %v", g, err)
	}
	checkContents(t, "pattern and maxLength", g, []string{`"abc"`}, []string{`"abcd"`})
	// A tool's raw argument: the same, its text counted as a class
	// repeated under strict (no chain of a rule in the EBNF).
	params := json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}}, "required": ["a"], "additionalProperties": false}`)
	call := func(a string) string {
		return analysisPrefix + "<|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"a\">\n" + a + "\n</rfl:parameter>"
	}
	for _, strict := range []bool{false, true} {
		g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: params, Strict: strict}}, Choice: Required, XGrammar: true})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, d := range g.Dropped {
			paths = append(paths, d.Path)
		}
		if want := map[bool]string{false: "[tools[0].function.parameters.properties.a.maxLength]", true: "[]"}[strict]; fmt.Sprint(paths) != want {
			t.Errorf("a raw argument (strict %v): reported %v, want %s", strict, paths, want)
		}
		if !g.Matches(call("abc")) || g.Matches(call("abcd")) == strict {
			t.Errorf("a raw argument (strict %v): abc %v, abcd %v", strict, g.Matches(call("abc")), g.Matches(call("abcd")))
		}
		if strict && (strings.Contains(g.EBNF(), "xg-upto-") || !strings.Contains(g.EBNF(), "[^\\u003c]{0,3}")) {
			t.Errorf("a raw argument's EBNF under strict:\n%s", g.EBNF())
		}
	}
}

// The cache tells a grammar for xgrammar from the other.
func TestCacheKeysXGrammar(t *testing.T) {
	c := NewCache(1 << 20)
	spec := &Spec{Format: &Format{Schema: json.RawMessage(`{"type": "string", "maxLength": 4}`)}}
	a, err := c.Compile(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	xg := *spec
	xg.XGrammar = true
	b, err := c.Compile(context.Background(), &xg)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Dropped) != 0 || len(b.Dropped) != 1 {
		t.Errorf("reported %v for llama.cpp and %v for xgrammar", a.Dropped, b.Dropped)
	}
}

// Under strict, a JSON string's counted characters are written for
// xgrammar as chains with the character's choice in each link (gap
// decision 267): the same language as the repetition llama.cpp gets, on
// random contents around the bounds with escapes, markers' "<" and
// characters past ASCII, by the grammar and by its EBNF read back.
func TestXGrammarCountedStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 7))
	pieces := []string{"a", "é", `\n`, `\"`, `\u00e9`, `\ud83d\ude00`, "<", `\u003c`, " ", "{", `\\`, "\n", `\`, `"`, "😀"}
	for _, b := range [][2]int{{0, 0}, {0, 1}, {1, 1}, {0, 2}, {2, 5}, {3, 3}, {0, 40}, {10, 12}, {0, 64}, {64, 64}, {1, 63},
		// Past 64: chains of 64 (gap decision 271).
		{0, 65}, {64, 65}, {65, 65}, {0, 128}, {63, 129}, {100, 300}, {130, 130}, {0, 300}} {
		schema := fmt.Sprintf(`{"type": "array", "items": {"type": "string", "minLength": %d, "maxLength": %d}}`, b[0], b[1])
		llama, xg, x := strictStringGrammars(t, schema)
		if !strings.Contains(xg.EBNF(), "xg-opt") && b[1] > b[0] || strings.Contains(xg.EBNF(), "xg-upto-") {
			t.Errorf("%v: the EBNF for xgrammar is not the chain of choices:\n%s", b, xg.EBNF())
		}
		in := 0
		for range 150 {
			n := max(0, b[0]-2+rng.IntN(b[1]-b[0]+5))
			var sb strings.Builder
			for range n {
				if rng.IntN(n+1) < 2 { // a piece that may be out of the language, about twice a string
					sb.WriteString(pieces[rng.IntN(len(pieces))])
				} else {
					sb.WriteString(pieces[rng.IntN(5)])
				}
			}
			content := `["` + sb.String() + `"]`
			if sameVerdicts(t, fmt.Sprintf("%v: %s", b, content), analysisPrefix+finalHeader+content, llama, xg, x) {
				in++
			}
		}
		if in == 0 {
			t.Errorf("%v: no content was in the grammar", b)
		}
	}
}

// Past 4,096 characters a strict string is written for xgrammar with
// units of units (gap decision 272): the lengths around each unit's edges
// are in the grammar exactly where they are in llama.cpp's.
func TestXGrammarVeryLongStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	pieces := []string{"a", "é", `\n`, `\u00e9`, " "}
	for _, b := range [][2]int{{0, 4097}, {4095, 4097}, {4097, 4097}, {8192, 8193}, {4000, 8300}, {8100, 8300}, {0, 262145}} {
		schema := fmt.Sprintf(`{"type": "array", "items": {"type": "string", "minLength": %d, "maxLength": %d}}`, b[0], b[1])
		llama, xg, x := strictStringGrammars(t, schema)
		if ebnf := xg.EBNF(); strings.Contains(ebnf, "xg-unit") != (b[1] > 4096) || strings.Contains(ebnf, "chunk") {
			t.Errorf("%v: the EBNF for xgrammar is not units of chains:\n%.2000s", b, ebnf)
		}
		// The lengths at the edges of the range and of the first two and
		// the last of each unit inside it, and two drawn; none more than
		// 210 past the least, which the test's matcher takes long to match
		// (0.4 s at 4,096 past it in a grammar of any length, seconds with
		// the race detector). The unit of 262,144 is built as the one of
		// 4,096 is.
		lengths := map[int]bool{}
		edge := func(n int) { lengths[n-1], lengths[n], lengths[n+1] = true, true, true }
		edge(b[0])
		edge(b[1])
		for s := 64; s < b[1]; s *= 64 {
			for _, n := range []int{s, 2 * s, b[1] / s * s} {
				if n > b[0] && n <= b[1] {
					edge(n)
				}
			}
		}
		for range 2 {
			lengths[b[0]+rng.IntN(min(b[1], b[0]+210)-b[0]+1)] = true
		}
		in, out := 0, 0
		for _, n := range slices.Sorted(maps.Keys(lengths)) {
			if n < 0 || n > b[0]+210 {
				continue
			}
			var sb strings.Builder
			for range n {
				sb.WriteString(pieces[rng.IntN(len(pieces))])
			}
			want := sameVerdicts(t, fmt.Sprintf("%v: %d characters", b, n), analysisPrefix+finalHeader+`["`+sb.String()+`"]`, llama, xg, x)
			if want != (n >= b[0] && n <= b[1]) {
				t.Fatalf("%v: %d characters: llama.cpp's grammar says %v", b, n, want)
			}
			if want {
				in++
			} else {
				out++
			}
		}
		if in == 0 || out == 0 && b[1] <= b[0]+210 {
			t.Errorf("%v: %d lengths in the grammar, %d out", b, in, out)
		}
	}
}

// strictStringGrammars compiles schema under strict as llama.cpp gets it
// and as xgrammar does (Spec.XGrammar), and reads the latter's EBNF back.
func strictStringGrammars(t *testing.T, schema string) (llama, xg, readBack *Grammar) {
	t.Helper()
	var gs [2]*Grammar
	for i, forXGrammar := range []bool{false, true} {
		g, err := Compile(context.Background(), &Spec{Format: &Format{Schema: json.RawMessage(schema), Strict: true}, XGrammar: forXGrammar})
		if err != nil {
			t.Fatalf("%s: %v", schema, err)
		}
		gs[i] = g
	}
	readBack, err := parseWritten(gs[1].EBNF())
	if err != nil {
		t.Fatalf("%s: the EBNF does not read back: %v", schema, err)
	}
	return gs[0], gs[1], readBack
}

// sameVerdicts matches text with llama, the grammar llama.cpp gets, and
// reports (as label) where xg or its EBNF read back says otherwise; it
// returns llama's verdict.
func sameVerdicts(t *testing.T, label, text string, llama, xg, readBack *Grammar) bool {
	t.Helper()
	want := llama.Matches(text)
	if got := xg.Matches(text); got != want {
		t.Errorf("%s: %v for xgrammar, %v for llama.cpp", label, got, want)
	}
	if got := readBack.Matches(text); got != want {
		t.Errorf("%s: the EBNF read back says %v, the grammar %v", label, got, want)
	}
	return want
}
