package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/beamharmony/harmony"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite the golden grammars in testdata")

// realisticTools are the tools of the benchmark's realistic request.
func realisticTools(t testing.TB) []Tool {
	t.Helper()
	data, err := os.ReadFile("../testdata/bench/realistic_request.json")
	if err != nil {
		t.Fatal(err)
	}
	req, err := harmony.ParseRequest(data)
	if err != nil {
		t.Fatal(err)
	}
	var tools []Tool
	for _, tl := range req.Options.Tools {
		tools = append(tools, Tool{Name: tl.Function.Name, Parameters: tl.Function.Parameters})
	}
	return tools
}

// Golden grammars for the page's tools and the realistic request, in both
// dialects (the same text today; kept apart so that a dialect change shows).
func TestGoldenGrammars(t *testing.T) {
	cases := map[string]*Spec{
		"get_weather_required":  {Tools: []Tool{propertyTools[0]}, Choice: Required, Parallel: true},
		"search_flights_named":  {Tools: propertyTools[:2], Choice: Named, Name: "search_flights"},
		"realistic_required":    {Tools: realisticTools(t), Choice: Required, Parallel: true},
		"json_object":           {Format: &Format{}},
		"json_schema_with_auto": {Tools: []Tool{propertyTools[0]}, Format: &Format{Schema: json.RawMessage(`{"type": "object", "properties": {"answer": {"type": "string"}, "confidence": {"type": "number", "minimum": 0, "maximum": 1}}, "required": ["answer", "confidence"], "additionalProperties": false}`)}},
		// The keywords issue 33 added: pattern, format, allOf merged with
		// its siblings, anyOf distributed, an open object under strict.
		"keywords_strict": {Format: &Format{Strict: true, Schema: json.RawMessage(`{"$defs": {"Base": {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}}, "required": ["id"]}},
			"allOf": [{"$ref": "#/$defs/Base"}], "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}-\\d{2,4}$"}, "at": {"type": "string", "format": "date-time"},
			"contact": {"type": "object", "properties": {"kind": {"enum": ["email", "phone"]}}, "anyOf": [{"required": ["email"], "properties": {"email": {"format": "email"}}}, {"required": ["phone"]}]}},
			"required": ["code"]}`)}},
		// The forms written for xgrammar alone (Spec.XGrammar): a strict
		// string's counted characters as chains (gap decisions 267, 271,
		// 272), an object's chain of many members in blocks (270).
		"xgrammar_strict": {XGrammar: true, Format: &Format{Strict: true, Schema: json.RawMessage(`{"type": "object", "properties": {"tag": {"type": "string", "minLength": 1, "maxLength": 8},
			"title": {"type": "string", "maxLength": 100}, "body": {"type": "string", "minLength": 10, "maxLength": 5000},
			"flags": ` + blockedObject(48, 40) + `}, "required": ["tag", "title"], "additionalProperties": false}`)}},
	}
	for name, spec := range cases {
		g, err := Compile(context.Background(), spec)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for ext, text := range map[string]string{".gbnf": g.GBNF(), ".ebnf": g.EBNF()} {
			path := filepath.Join("testdata", name+ext)
			if *update {
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./grammar -update)", err)
			}
			if string(want) != text {
				t.Errorf("%s differs from the compiled grammar (go test ./grammar -update, then review the diff)", path)
			}
		}
	}
}

// BenchmarkCompileRealistic compiles the grammar of the realistic request's
// six tools (tool_choice required, parallel calls), without the cache.
func BenchmarkCompileRealistic(b *testing.B) {
	spec := &Spec{Tools: realisticTools(b), Choice: Required, Parallel: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(context.Background(), spec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileTypical compiles a grammar for one typical tool (the
// page's get_weather), a call required.
func BenchmarkCompileTypical(b *testing.B) {
	spec := &Spec{Tools: []Tool{propertyTools[0]}, Choice: Required}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(context.Background(), spec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileCached is the same through a Cache.
func BenchmarkCompileCached(b *testing.B) {
	spec := &Spec{Tools: realisticTools(b), Choice: Required, Parallel: true}
	c := NewCache(1 << 20)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Compile(context.Background(), spec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileCachedEBNF is what a gateway in front of vLLM or SGLang
// pays a request for its grammar: the cached grammar and its EBNF.
func BenchmarkCompileCachedEBNF(b *testing.B) {
	spec := &Spec{Tools: realisticTools(b), Choice: Required, Parallel: true}
	c := NewCache(1 << 20)
	b.ReportAllocs()
	for b.Loop() {
		g, err := c.Compile(context.Background(), spec)
		if err != nil {
			b.Fatal(err)
		}
		g.EBNF()
	}
}

func TestCache(t *testing.T) {
	ctx := context.Background()
	a := &Spec{Tools: []Tool{propertyTools[0]}, Choice: Required}
	b := &Spec{Tools: []Tool{propertyTools[0]}, Choice: Required, Parallel: true}
	d := &Spec{Format: &Format{}}
	// The size of each, as the budget counts it.
	sizes := map[*Spec]int{}
	for _, s := range []*Spec{a, b, d} {
		one := NewCache(1 << 30)
		one.Compile(ctx, s)
		sizes[s] = one.Bytes()
	}
	c := NewCache(sizes[a] + sizes[b] + sizes[d] - 1)
	// A grammar from the cache is the caller's own copy of the one
	// compiled: its text is the same memory.
	sameCompile := func(g, h *Grammar) bool { return unsafe.StringData(g.text) == unsafe.StringData(h.text) }
	g1, _ := c.Compile(ctx, a)
	g2, _ := c.Compile(ctx, a)
	if !sameCompile(g1, g2) {
		t.Error("the same spec compiled twice")
	}
	if g1 == g2 {
		t.Error("two callers got the same *Grammar")
	}
	c.Compile(ctx, b)
	c.Compile(ctx, d) // evicts a, the least recently used
	if c.Len() != 2 || c.Bytes() != sizes[b]+sizes[d] {
		t.Errorf("%d grammars held in %d bytes, want 2 in %d", c.Len(), c.Bytes(), sizes[b]+sizes[d])
	}
	if g3, _ := c.Compile(ctx, a); sameCompile(g3, g1) {
		t.Error("an evicted grammar came back")
	}
	if g, err := c.Compile(ctx, &Spec{}); g != nil || err != nil {
		t.Error("an unconstrained spec got a grammar")
	}
	// A grammar larger than the whole budget is still kept, alone.
	small := NewCache(1)
	small.Compile(ctx, a)
	small.Compile(ctx, b)
	if small.Len() != 1 {
		t.Errorf("a cache smaller than a grammar holds %d", small.Len())
	}
	// A compile cut short by its context is not cached.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	e := &Spec{Format: &Format{Schema: json.RawMessage(manyProperties(200, `{"type": "integer"}`))}}
	if _, err := c.Compile(cancelled, e); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled compile: %v", err)
	}
	if g, err := c.Compile(ctx, e); g == nil || err != nil {
		t.Errorf("after a cancelled compile: %v %v", g, err)
	}
}

// A cached grammar's EBNF is written once, on the first caller's asking,
// shared by every copy the cache hands out, and counted in its budget: the
// budget still holds once it is, dropping the least recently used grammar
// to make room, and an entry dropped before its EBNF is written counts
// nothing.
func TestCacheKeepsEBNF(t *testing.T) {
	ctx := context.Background()
	a := &Spec{Tools: []Tool{propertyTools[0]}, Choice: Required}
	b := &Spec{Tools: []Tool{propertyTools[0]}, Choice: Required, Parallel: true}
	want, err := Compile(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	wantEBNF := want.EBNF()
	sizeOf := func(s *Spec) int {
		one := NewCache(1 << 30)
		one.Compile(ctx, s)
		return one.Bytes()
	}
	sa, sb := sizeOf(a), sizeOf(b)

	c := NewCache(1 << 30)
	g1, _ := c.Compile(ctx, a)
	g2, _ := c.Compile(ctx, a)
	if got := g1.EBNF(); got != wantEBNF {
		t.Fatalf("cached EBNF differs from the grammar's")
	}
	if c.Bytes() != sa+len(wantEBNF) {
		t.Errorf("after EBNF: %d bytes held, want %d + %d", c.Bytes(), sa, len(wantEBNF))
	}
	if unsafe.StringData(g2.EBNF()) != unsafe.StringData(g1.EBNF()) {
		t.Error("two copies of one entry wrote their EBNF each")
	}
	if n := testing.AllocsPerRun(10, func() { g2.EBNF() }); n != 0 {
		t.Errorf("a written EBNF costs %v allocations a call", n)
	}
	g1.EBNF()
	if c.Bytes() != sa+len(wantEBNF) {
		t.Errorf("EBNF counted twice: %d bytes", c.Bytes())
	}

	// Room for a and b, not for a's EBNF too: writing it drops b, the
	// least recently used.
	small := NewCache(sa + sb)
	small.Compile(ctx, b)
	ga, _ := small.Compile(ctx, a)
	ga.EBNF()
	if small.Len() != 1 || small.Bytes() != sa+len(wantEBNF) {
		t.Errorf("after EBNF in a full cache: %d grammars in %d bytes, want 1 in %d", small.Len(), small.Bytes(), sa+len(wantEBNF))
	}
	// An entry dropped before its EBNF is written counts nothing.
	tiny := NewCache(1)
	gt, _ := tiny.Compile(ctx, a)
	tiny.Compile(ctx, b) // drops a
	gt.EBNF()
	if tiny.Len() != 1 || tiny.Bytes() != sb {
		t.Errorf("a dropped entry's EBNF was counted: %d grammars in %d bytes, want 1 in %d", tiny.Len(), tiny.Bytes(), sb)
	}
}

// Under Auto, a strict tool makes a grammar of calls or a free answer;
// without one, auto stays unconstrained. Samples parse to valid calls or
// to a non-empty answer, and both come up.
// A caller that changes the grammar it got changes nothing for the next
// caller of the cache (issue 35 item 3: cached grammars are immutable to
// callers).
func TestCacheHandsOutCopies(t *testing.T) {
	ctx := context.Background()
	spec := &Spec{Format: &Format{Schema: json.RawMessage(`{"type": "array", "items": {"type": "integer"}, "uniqueItems": true}`)}}
	c := NewCache(1 << 20)
	g1, err := c.Compile(ctx, spec)
	if err != nil || len(g1.Dropped) == 0 {
		t.Fatalf("want a grammar that reports uniqueItems: %v, %v", g1, err)
	}
	want := g1.Dropped[0]
	g1.Dropped[0] = Dropped{Path: "changed", Keyword: "changed"}
	g1.Dropped = append(g1.Dropped, Dropped{Path: "added"})
	g2, _ := c.Compile(ctx, spec)
	if len(g2.Dropped) != 1 || g2.Dropped[0] != want {
		t.Errorf("the cache's grammar was changed by a caller: %v, want [%v]", g2.Dropped, want)
	}
}

func TestAutoStrict(t *testing.T) {
	// A strict tool says additionalProperties: false, as strict schemas
	// must for an object that declares properties.
	tools := []Tool{propertyTools[0], {Name: propertyTools[1].Name, Parameters: json.RawMessage(closed(string(propertyTools[1].Parameters))), Strict: true}}
	if (&Spec{Tools: propertyTools, Choice: Auto}).Constrained() {
		t.Error("auto without strict tools is constrained")
	}
	if (&Spec{Tools: tools, Choice: None}).Constrained() {
		t.Error("none with a strict tool is constrained")
	}
	spec := &Spec{Tools: tools, Choice: Auto, Parallel: true}
	if !spec.Constrained() {
		t.Fatal("auto with a strict tool is not constrained")
	}
	g, err := Compile(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	var hts []harmony.Tool
	schemas := map[string]*jsonschema.Schema{}
	for _, tl := range tools {
		hts = append(hts, harmony.Tool{Function: harmony.Function{Name: tl.Name, Parameters: tl.Parameters}})
		schemas[tl.Name] = validator(t, tl.Parameters)
	}
	s := newSampler(g, rand.New(rand.NewPCG(3, 4)))
	answers, calls := 0, 0
	for i := range 300 {
		text := s.Sample()
		res, err := harmony.Parse(text, &harmony.ParseOptions{Tools: hts})
		if err != nil {
			t.Fatalf("sample %d: %v\n%q", i, err, text)
		}
		m := res.Message
		switch {
		case m.Reasoning == "":
			t.Fatalf("sample %d has no reasoning: %q", i, text)
		case len(m.ToolCalls) > 0 && m.Content == "":
			calls++
			for _, c := range m.ToolCalls {
				if err := validate(t, schemas[c.Function.Name], string(c.Function.Arguments)); err != nil {
					t.Fatalf("sample %d: %s(%s): %v", i, c.Function.Name, c.Function.Arguments, err)
				}
			}
		case len(m.ToolCalls) == 0 && m.Content != "":
			answers++
		default:
			t.Fatalf("sample %d: %+v", i, m)
		}
	}
	if answers == 0 || calls == 0 {
		t.Errorf("%d answers and %d calls in 300 samples", answers, calls)
	}
	for text, want := range map[string]bool{
		"<|channel|>analysis<|message|>Just answer.<|end|><|start|>assistant<|channel|>final<|message|>Hello!":                      true,
		"<|channel|>analysis<|message|>Just answer.<|end|><|start|>assistant<|channel|>final<|message|>":                            false,
		"<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>final<|message|>a<|end|>":                               false,
		"<|channel|>analysis<|message|>x<|end|><|start|>assistant to=search_flights<|channel|>analysis <|constrain|>xml<|message|>": false,
	} {
		if g.Matches(text) != want {
			t.Errorf("%q: in the grammar %v, want %v", text, !want, want)
		}
	}
}
