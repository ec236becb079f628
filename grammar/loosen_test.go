package grammar

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// loosenSchema is an object of n properties p0 ... each an object of 60
// boolean properties q0 ..., with different names in each so that no two
// share a rule: past the engine's cap for n of 40 or so.
func loosenSchema(n int) string {
	return closed(dumpObject(n, func(i int) string {
		var inner []string
		for j := range 60 {
			inner = append(inner, fmt.Sprintf(`"q%d_%d": {"type": "boolean"}`, i, j))
		}
		return fmt.Sprintf(`"p%d": {"type": "object", "properties": {%s}, "additionalProperties": false}`, i, strings.Join(inner, ", "))
	}))
}

// Not strict, schemas that take a grammar past the engine's cap are
// compiled once more with the schemas compiled past half of the cap
// written as any JSON value, each reported; under strict the schema is
// refused as before (gap decision 236).
func TestLoosenPastCap(t *testing.T) {
	const n = 60
	schema := loosenSchema(n)
	spec := &Spec{Format: &Format{Schema: json.RawMessage(schema)}}
	if _, over, err := compile(context.Background(), spec, maxRepetitions, false, 0, nil); err == nil || !over.schemas {
		t.Fatalf("the schema should take the grammar past the cap: %v %v", over, err)
	}
	g, err := Compile(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if c := grammarCost(g); c > maxExpanded {
		t.Errorf("cost %d, more than %d", c, maxExpanded)
	}
	// The first properties compiled are whole; the last ones loosened,
	// a property's object or its members, each reported where it is.
	reported := map[string]bool{}
	for _, d := range g.Dropped {
		if !strings.HasPrefix(d.Path, "response_format.json_schema.schema.properties.p") || d.Keyword != "*" {
			t.Errorf("reported %v", d)
		}
		reported[d.Path] = true
	}
	loosened := map[int]bool{}
	for i := range n {
		p := fmt.Sprintf("response_format.json_schema.schema.properties.p%d", i)
		loosened[i] = reported[p] || reported[fmt.Sprintf("%s.properties.q%d_0", p, i)]
	}
	if loosened[0] || !loosened[n-1] || !reported["response_format.json_schema.schema.properties.p"+itoa(n-1)] {
		t.Fatalf("loosened %v of %d, reported %v", loosened, n, reported)
	}
	valid := func(i int, value string) string {
		return fmt.Sprintf(`{"p%d": {"q%d_0": %s, "q%d_1": true}}`, i, i, value, i)
	}
	for i := range n {
		content := valid(i, "false")
		if !g.Matches(analysisPrefix + finalHeader + content) {
			t.Errorf("%s: rejected", content)
		}
		// A value the schema rules out: accepted only where its schema
		// was reported loosened.
		content = valid(i, `"x"`)
		if got := g.Matches(analysisPrefix + finalHeader + content); got != loosened[i] {
			t.Errorf("%s: %v, loosened %v", content, got, loosened[i])
		}
	}
	if _, err := compileFormat(schema, true); err == nil || !strings.Contains(err.Error(), "elements once an engine expands") {
		t.Errorf("strict: %v, want the cap", err)
	}
	// A strict tool beside a loose one: only the loose one is loosened,
	// and not its arguments (XML, read back by their declared types),
	// only the JSON in them.
	// (The strict one past half of the cap, the argument's variant
	// compiled past it.)
	strictTool := Tool{Name: "s", Parameters: json.RawMessage(loosenSchema(12)), Strict: true}
	looseTool := Tool{Name: "l", Parameters: json.RawMessage(`{"type": "object", "properties": {"doc": {"anyOf": [` + schema + `, {"type": "null"}]}}, "required": ["doc"], "additionalProperties": false}`)}
	g, err = Compile(context.Background(), &Spec{Tools: []Tool{strictTool, looseTool}, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range g.Dropped {
		if !strings.HasPrefix(d.Path, "tools[1].function.parameters.properties.doc.anyOf[0].properties.p") {
			t.Errorf("reported %v", d)
		}
	}
	if len(g.Dropped) == 0 {
		t.Error("nothing loosened")
	}
}

// Compile's retries take the last schema's parse from the compile before
// (keptDoc) rather than parse it again: the grammar is the one a fresh
// parse gives, with one schema or several before it.
func TestKeptDocSameGrammar(t *testing.T) {
	big := json.RawMessage(loosenSchema(60))
	for i, spec := range []*Spec{
		{Format: &Format{Schema: big}},
		{Tools: []Tool{{Name: "a", Parameters: json.RawMessage(loosenSchema(2))}, {Name: "b", Parameters: json.RawMessage(`{"type": "object", "properties": {"doc": ` + string(big) + `}}`)}}, Choice: Required},
		// The counts retry first (decision 210: a small schema), then
		// the loosened one.
		{Format: &Format{Schema: json.RawMessage(strings.Replace(loosenSchema(40), `"p0": {`, `"s": {"type": "string", "maxLength": 32767}, "p0": {`, 1))}},
	} {
		g, err := Compile(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		limit, lists := maxRepetitions, false
		fresh, over, err := compile(context.Background(), spec, limit, lists, 0, nil)
		if i == 2 && !over.counts {
			t.Errorf("the counts retry should come first: %+v", over)
		}
		if over.counts || over.lists {
			if over.counts {
				limit = 0
			}
			lists = over.lists
			fresh, over, err = compile(context.Background(), spec, limit, lists, 0, nil)
		}
		if over.schemas {
			fresh, _, err = compile(context.Background(), spec, limit, lists, loosenFrom, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		if g.GBNF() != fresh.GBNF() || fmt.Sprint(g.Dropped) != fmt.Sprint(fresh.Dropped) {
			t.Errorf("the grammar with the kept parse differs from a fresh one")
		}
		if len(g.Dropped) == 0 {
			t.Errorf("nothing loosened")
		}
	}
}

// Compile's loosened compile is done only when it can come out otherwise
// and stays about the cost of one compile of the largest schemas (gap
// decision 317): when the first compile wrote no schema the loosened one
// would write as any JSON (a tool's arguments are never loosened, and
// what is past the cap here is the object of arguments itself), when the
// schemas hold more than half of maxSchemaValues, or when an object's
// members cost more than the cap by their names alone (gap decision 322),
// it is not done.
func TestLoosenedCompileOnlyWhenItCanDiffer(t *testing.T) {
	closedPatterns := func(n int) string {
		var props, patterns []string
		for i := range n {
			props = append(props, fmt.Sprintf(`"p%d": {"type": "integer"}`, i))
			patterns = append(patterns, fmt.Sprintf(`"^q%dx": {"type": "string"}`, i))
		}
		return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "patternProperties": {` + strings.Join(patterns, ", ") + `}, "additionalProperties": false}`
	}
	small, large := json.RawMessage(closedPatterns(3000)), json.RawMessage(closedPatterns(7000))
	var props []string
	for i := range 5000 {
		props = append(props, fmt.Sprintf(`"p%d": {"type": "integer"}`, i))
	}
	names := json.RawMessage(`{"type": "object", "properties": {` + strings.Join(props, ", ") + `}}`)
	if n := countValues(large); n <= maxSchemaValues/2 {
		t.Fatalf("the large schema holds %d values", n)
	}
	for _, c := range []struct {
		name  string
		spec  *Spec
		again bool
	}{
		{"format", &Spec{Format: &Format{Schema: small}}, true},
		{"tool", &Spec{Tools: []Tool{{Name: "f", Parameters: small}}, Choice: Required}, false},
		{"format, more than half of the values", &Spec{Format: &Format{Schema: large}}, false},
		// 5,000 names take an engine more than maxExpanded elements
		// whatever their values (chainNameCost).
		{"format, the names alone past the cap", &Spec{Format: &Format{Schema: names}}, false},
	} {
		_, over, err := compile(context.Background(), c.spec, maxRepetitions, false, 0, nil)
		if err == nil || !strings.Contains(err.Error(), overExpandedText) {
			t.Fatalf("%s: %v, want the engine's cap", c.name, err)
		}
		if over.schemas != c.again {
			t.Errorf("%s: compiled once more loosened: %v, want %v", c.name, over.schemas, c.again)
		}
		if _, err2 := Compile(context.Background(), c.spec); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("%s: Compile's error %v, want %v", c.name, err2, err)
		}
	}
}
