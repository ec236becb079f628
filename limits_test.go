package harmony_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// refChain is the schema of issue 12: $defs d0..d(levels-1), each an
// object whose two properties refer to the next definition, the last a
// string; the tool's one property refers to d0. Expanded, it holds 2^levels
// strings; the schema itself is a few hundred bytes per level.
func refChain(levels int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {"root": {"$ref": "#/$defs/d0"}}, "$defs": {`)
	for i := 0; i < levels; i++ {
		next := `{"$ref": "#/$defs/d` + strconv.Itoa(i+1) + `"}`
		b.WriteString(`"d` + strconv.Itoa(i) + `": {"type": "object", "properties": {"a": ` + next + `, "b": ` + next + `}, "required": ["a", "b"]}, `)
	}
	b.WriteString(`"d` + strconv.Itoa(levels) + `": {"type": "string"}}}`)
	return json.RawMessage(b.String())
}

// refChainDecl is refChain's declaration, written out by hand from
// DECISIONS.md's object rule, as the oracle for the renderer's reuse of
// expanded targets.
func refChainDecl(levels int) string {
	var typ func(level int, indent string) string
	typ = func(level int, indent string) string {
		if level == levels {
			return "string"
		}
		inner := indent + "    "
		return "{\n" + indent + "a: " + typ(level+1, inner) + ",\n" + indent + "b: " + typ(level+1, inner) + ",\n" + indent + "}"
	}
	return "type f = (_: {\nroot?: " + typ(0, "    ") + ",\n}) => any;"
}

func toolWith(params json.RawMessage) harmony.Tool {
	return harmony.Tool{Type: "function", Function: harmony.Function{Name: "f", Parameters: params}}
}

// enumSchema is one property whose enum has n distinct members; with
// anyOf, one const variant per member instead.
func enumSchema(n int, anyOf bool) json.RawMessage {
	var b strings.Builder
	if anyOf {
		b.WriteString(`{"type": "object", "properties": {"a": {"anyOf": [`)
	} else {
		b.WriteString(`{"type": "object", "properties": {"a": {"enum": [`)
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if anyOf {
			b.WriteString(`{"const": ` + strconv.Itoa(i) + `}`)
		} else {
			b.WriteString(strconv.Itoa(i))
		}
	}
	b.WriteString(`]}}}`)
	return json.RawMessage(b.String())
}

func BenchmarkDeclareRefChain(b *testing.B) {
	for _, levels := range []int{10, 14, 18} {
		b.Run(strconv.Itoa(levels), func(b *testing.B) {
			tool := toolWith(refChain(levels))
			b.ReportAllocs()
			for b.Loop() {
				harmony.DeclareTool(tool)
			}
		})
	}
}

func BenchmarkDeclareEnum(b *testing.B) {
	for _, c := range []struct {
		name  string
		anyOf bool
	}{{"enum", false}, {"anyOf", true}} {
		for _, n := range []int{1000, 100000} {
			b.Run(c.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				tool := toolWith(enumSchema(n, c.anyOf))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := harmony.DeclareTool(tool); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// Each $ref is written out in full wherever it is used. A shared target
// is walked once and reused: the declaration is the one written out by
// hand, up to 12 levels (4096 strings).
func TestRefChainDeclaration(t *testing.T) {
	for _, levels := range []int{1, 2, 3, 5, 8, 12} {
		got, err := harmony.DeclareTool(toolWith(refChain(levels)))
		if err != nil {
			t.Fatalf("%d levels: %v", levels, err)
		}
		if want := refChainDecl(levels); got != want {
			t.Errorf("%d levels: got %d bytes, want %d:\n%.400s", levels, len(got), len(want), got)
		}
	}
}

// Issue 12, finding 1: 18 levels wrote 59 MB of prompt, 30 levels more
// than 10 GB. Past maxDeclarationBytes the tool is an error naming it.
func TestRefExpansionIsCapped(t *testing.T) {
	const wantPrefix = "tools[1].function.parameters: declaring the tools takes more than 4 MiB of TypeScript"
	for _, levels := range []int{18, 20, 30} {
		opts := &harmony.Options{Tools: []harmony.Tool{toolWith(refChain(3)), toolWith(refChain(levels))}}
		_, err := harmony.Render(nil, opts)
		if err == nil || !strings.HasPrefix(err.Error(), wantPrefix) {
			t.Errorf("%d levels: error %v, want %q", levels, err, wantPrefix)
		}
		var re *harmony.RenderError
		if !errors.As(err, &re) || re.Path != "tools[1].function.parameters" {
			t.Errorf("%d levels: not a RenderError at the tool: %#v", levels, err)
		}
	}
}

// The cap is on all the tools of a request together: tools that each
// declare 340 KB fit alone and not 16 together.
func TestDeclarationCapCountsEveryTool(t *testing.T) {
	tool := toolWith(refChain(11)) // 340 KB of declaration
	one, err := harmony.DeclareTool(tool)
	if err != nil || len(one) < harmony.MaxDeclarationBytesForTest/16 || len(one) > harmony.MaxDeclarationBytesForTest/8 {
		t.Fatalf("one tool: %d bytes, %v", len(one), err)
	}
	tools := make([]harmony.Tool, 16)
	for i := range tools {
		tools[i] = tool
	}
	_, err = harmony.Render(nil, &harmony.Options{Tools: tools})
	if err == nil || !strings.Contains(err.Error(), "takes more than 4 MiB") {
		t.Fatalf("16 tools: %v", err)
	}
	var re *harmony.RenderError
	if errors.As(err, &re); re.Path == "tools[0].function.parameters" || re.Path == "tools[15].function.parameters" {
		t.Errorf("error at %s; the cap is reached at a later tool than the first and before the last", re.Path)
	}
}

// A target in a cycle depends on the path that reaches it and is walked
// at each use. Here every level refers to the next twice and back to the
// first, inside one union, so the declaration stays small while the walk
// doubles per level: maxRefWork ends it.
func TestRefWorkIsCapped(t *testing.T) {
	const levels = 30
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {"root": {"$ref": "#/$defs/d0"}}, "$defs": {`)
	for i := 0; i < levels; i++ {
		next := `{"$ref": "#/$defs/d` + strconv.Itoa(i+1) + `"}`
		b.WriteString(`"d` + strconv.Itoa(i) + `": {"anyOf": [` + next + `, ` + next + `, {"$ref": "#/$defs/d0"}]}, `)
	}
	b.WriteString(`"d` + strconv.Itoa(levels) + `": {"type": "string"}}}`)
	_, err := harmony.DeclareTool(toolWith(json.RawMessage(b.String())))
	const want = "tools[0].function.parameters: expanding $ref walks more than 262144 schema values"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	// Below the cap the same shape declares.
	got, err := harmony.DeclareTool(toolWith(json.RawMessage(strings.Replace(b.String(), `"d5": {"anyOf"`, `"d5": {"type": "string", "x": {"anyOf"`, 1) + "}")))
	if err != nil || got != "type f = (_: {\nroot?: string | any,\n}) => any;" {
		t.Errorf("5 levels: %q, %v", got, err)
	}
}

// Linear duplicate checks (issue 12, finding 4) keep the output: every
// member once, in order, repeats left out, with 100,000 members.
func TestLargeUnions(t *testing.T) {
	const n = 100000
	var want strings.Builder
	want.WriteString("type f = (_: {\na?: ")
	for i := 0; i < n; i++ {
		if i > 0 {
			want.WriteString(" | ")
		}
		want.WriteString(strconv.Itoa(i))
	}
	want.WriteString(",\n}) => any;")
	for _, anyOf := range []bool{false, true} {
		got, err := harmony.DeclareTool(toolWith(enumSchema(n, anyOf)))
		if err != nil || got != want.String() {
			t.Errorf("anyOf %v: %v, %d bytes, want %d", anyOf, err, len(got), want.Len())
		}
	}
	// The members twice, and null among them: nullable adds nothing.
	params := string(enumSchema(n, false))
	members := params[strings.Index(params, "[")+1 : strings.LastIndex(params, "]")]
	twice := strings.Replace(params, members, members+", null, "+members, 1)
	twice = strings.Replace(twice, `"enum"`, `"nullable": true, "enum"`, 1)
	got, err := harmony.DeclareTool(toolWith(json.RawMessage(twice)))
	wantNull := strings.Replace(want.String(), ",\n}", " | null,\n}", 1)
	if err != nil || got != wantNull {
		t.Errorf("repeated members: %v, %d bytes, want %d", err, len(got), len(wantNull))
	}
	// Without null among them, nullable adds it.
	nullable := strings.Replace(params, `"enum"`, `"nullable": true, "enum"`, 1)
	if got, err := harmony.DeclareTool(toolWith(json.RawMessage(nullable))); err != nil || got != wantNull {
		t.Errorf("nullable: %v, %d bytes, want %d", err, len(got), len(wantNull))
	}
}

// The parser shares the tool-name rule: a call addressed to a role is an
// error (docs/gap-decisions.md, item 46).
func TestParseRefusesRoleRecipient(t *testing.T) {
	for _, role := range []string{"system", "developer", "user", "assistant"} {
		_, err := harmony.Parse("<|channel|>analysis<|message|>r<|end|><|start|>assistant to="+role+
			"<|channel|>analysis <|constrain|>xml<|message|><|call|>", nil)
		want := `tool name "` + role + `" is a role name; a tool can't be named system, developer, user or assistant`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("to=%s: %v", role, err)
		}
	}
}

// anyOfChain is a tool whose property p refers to d0, each d(i) an anyOf
// of two refs to d(i+1) (and, with back, one to d0), the last an integer.
func anyOfChain(levels int, back bool) harmony.Tool {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {"p": {"$ref": "#/$defs/d0"}}, "$defs": {`)
	for i := 0; i < levels; i++ {
		next := `{"$ref": "#/$defs/d` + strconv.Itoa(i+1) + `"}`
		variants := next + `, ` + next
		if back {
			variants += `, {"$ref": "#/$defs/d0"}`
		}
		b.WriteString(`"d` + strconv.Itoa(i) + `": {"anyOf": [` + variants + `]}, `)
	}
	b.WriteString(`"d` + strconv.Itoa(levels) + `": {"type": "integer"}}}`)
	return toolWith(json.RawMessage(b.String()))
}

// Casting a parsed argument resolves its property's types through $ref
// as rendering does: a shared target once per depth, not once per path
// (2^30 paths here), and a target in a cycle within maxRefWork steps.
func TestCastResolvesSharedRefsOnce(t *testing.T) {
	const generated = "<|channel|>analysis<|message|>r<|end|><|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"p\">\n3\n</rfl:parameter><|call|>"
	for _, tt := range []struct {
		name string
		tool harmony.Tool
	}{
		{"shared", anyOfChain(30, false)},
		{"cycle", anyOfChain(30, true)},
	} {
		p, err := harmony.Parse(generated, &harmony.ParseOptions{Tools: []harmony.Tool{tt.tool}})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := string(p.Message.ToolCalls[0].Function.Arguments); got != `{"p": 3}` {
			t.Errorf("%s: arguments %s, want {\"p\": 3}", tt.name, got)
		}
	}
}

// Long inputs take the indexed paths (a result's call far back, long
// turns, long required lists, long builtin_tools); the results are those
// of the rules.
func TestLongInputs(t *testing.T) {
	call := func(id, name string) string {
		return `{"id": "` + id + `", "function": {"name": "` + name + `", "arguments": {}}}`
	}
	t.Run("a result names the latest call with its ID, however far back", func(t *testing.T) {
		var msgs []string
		msgs = append(msgs, `{"role": "assistant", "reasoning_content": "r", "tool_calls": [`+call("a", "first")+`]}`)
		msgs = append(msgs, `{"role": "assistant", "reasoning_content": "r", "tool_calls": [`+call("a", "second")+`, `+call("b", "other")+`]}`)
		for i := 0; i < 300; i++ {
			msgs = append(msgs, `{"role": "user", "content": "u"}`)
		}
		for i := 0; i < 200; i++ {
			msgs = append(msgs, `{"role": "tool", "tool_call_id": "a", "content": "x"}`, `{"role": "tool", "tool_call_id": "b", "content": "y"}`)
		}
		msgs = append(msgs, `{"role": "assistant", "reasoning_content": "r", "tool_calls": [`+call("b", "last")+`]}`, `{"role": "tool", "tool_call_id": "b", "content": "z"}`,
			`{"role": "tool", "tool_call_id": "nope", "content": "w"}`)
		_, err := renderRequest(t, `{"messages": [`+strings.Join(msgs, ", ")+`], "add_generation_prompt": false}`)
		if err == nil || err.Error() != "messages["+strconv.Itoa(len(msgs)-1)+"]: The tool message needs a name, or a tool_call_id that matches an earlier call." {
			t.Fatalf("unknown ID: %v", err)
		}
		got, err := renderRequest(t, `{"messages": [`+strings.Join(msgs[:len(msgs)-1], ", ")+`], "add_generation_prompt": false}`)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(got, "<|start|>second to=assistant"); n != 200 {
			t.Errorf("%d results from second, want 200", n)
		}
		if n := strings.Count(got, "<|start|>other to=assistant"); n != 200 {
			t.Errorf("%d results from other, want 200", n)
		}
		if !strings.HasSuffix(got, "<|start|>last to=assistant<|channel|>analysis<|message|>z<|end|>") || strings.Contains(got, "<|start|>first to=assistant") {
			t.Errorf("wrong speakers:\n%s", got[len(got)-200:])
		}
	})
	t.Run("parallel calls answered in order", func(t *testing.T) {
		var calls, results []string
		for i := 0; i < 500; i++ {
			id := "c" + strconv.Itoa(i)
			calls = append(calls, call(id, "f"+strconv.Itoa(i)))
			results = append(results, `{"role": "tool", "tool_call_id": "`+id+`", "content": "x"}`)
		}
		req := `{"messages": [{"role": "assistant", "reasoning_content": "r", "tool_calls": [` + strings.Join(calls, ", ") + `]}, ` + strings.Join(results, ", ") + `]}`
		got, err := renderRequest(t, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{0, 1, 250, 499} {
			if !strings.Contains(got, "<|start|>f"+strconv.Itoa(i)+" to=assistant<|channel|>") {
				t.Errorf("no result from f%d", i)
			}
		}
		r, _ := harmony.ParseRequest([]byte(req))
		if ws := r.Lint(); len(ws) != 0 {
			t.Errorf("lint: %v", ws[0])
		}
		// Results swapped: lint names the call each answers, by its
		// first call with that ID.
		results[3], results[7] = results[7], results[3]
		calls[9] = call("c3", "f9") // a repeated ID: the first call counts
		req = `{"messages": [{"role": "assistant", "reasoning_content": "r", "tool_calls": [` + strings.Join(calls, ", ") + `]}, ` + strings.Join(results, ", ") + `]}`
		r, _ = harmony.ParseRequest([]byte(req))
		var got2 []string
		for _, w := range r.Lint() {
			got2 = append(got2, w.String())
		}
		want := []string{
			"messages[4]: answers messages[0].tool_calls[7] but stands at position 3; Beam matches results to calls by position, so return results in the order of the calls",
			"messages[8]: answers messages[0].tool_calls[3] but stands at position 7; Beam matches results to calls by position, so return results in the order of the calls",
		}
		if strings.Join(got2, "\n") != strings.Join(want, "\n") {
			t.Errorf("lint:\n%s", strings.Join(got2, "\n"))
		}
	})
	t.Run("a long required list", func(t *testing.T) {
		var props, req []string
		for i := 0; i < 40; i++ {
			props = append(props, `"p`+strconv.Itoa(i)+`": {"type": "string"}`)
			if i%2 == 0 {
				req = append(req, `"p`+strconv.Itoa(i)+`"`)
			}
		}
		req = append(req, `"p\u0031"`, `3`) // p1, escaped; a number is no name
		got, err := harmony.DeclareTool(toolWith(json.RawMessage(`{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "required": [` + strings.Join(req, ", ") + `]}`)))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"\np0: string,", "\np1: string,", "\np2: string,", "\np3?: string,", "\np39?: string,"} {
			if !strings.Contains(got, want) {
				t.Errorf("lacks %q", want)
			}
		}
	})
	t.Run("a long builtin_tools", func(t *testing.T) {
		names := strings.TrimSuffix(strings.Repeat(`"search", `, 1000), ", ")
		got, err := renderRequest(t, `{"messages": [], "tools": [{"type": "function", "function": {"name": "search"}}], "builtin_tools": [`+names+`, "browse"]}`)
		if err == nil || err.Error() != `builtin_tools[1000]: "browse" is not in tools; builtin_tools names tools from tools` {
			t.Errorf("browse not in tools: %v %q", err, got)
		}
		got, err = renderRequest(t, `{"messages": [], "tools": [{"type": "function", "function": {"name": "search"}}], "builtin_tools": [`+names+`]}`)
		if err != nil || !strings.Contains(got, "# Tools\n\ntype search = () => any;\n\n# Valid channels") {
			t.Errorf("%v %q", err, got)
		}
	})
}

// cycleChain is TestRefWorkIsCapped's schema: each level refers twice to
// the next and back to the first, inside one union.
func cycleChain(levels int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {"root": {"$ref": "#/$defs/d0"}}, "$defs": {`)
	for i := 0; i < levels; i++ {
		next := `{"$ref": "#/$defs/d` + strconv.Itoa(i+1) + `"}`
		b.WriteString(`"d` + strconv.Itoa(i) + `": {"anyOf": [` + next + `, ` + next + `, {"$ref": "#/$defs/d0"}]}, `)
	}
	b.WriteString(`"d` + strconv.Itoa(levels) + `": {"type": "string"}}}`)
	return json.RawMessage(b.String())
}

// BenchmarkDeclareWorstCase declares schemas that reach the limits: the
// time a request can make the renderer spend on one tool.
func BenchmarkDeclareWorstCase(b *testing.B) {
	wide := `{"type": "object", "properties": {"root": {"$ref": "#/$defs/big"}, "again": {"anyOf": [` +
		strings.TrimSuffix(strings.Repeat(`{"$ref": "#/$defs/big"}, `, 4000), ", ") + `]}}, "$defs": {"big": ` + string(enumSchema(2000, false)) + `}}`
	for _, c := range []struct {
		name   string
		params json.RawMessage
	}{
		{"size cap: 30-level chain", refChain(30)},
		{"work cap: 30-level cycle", cycleChain(30)},
		{"repeats: 4000 uses of a 2000-member object", json.RawMessage(wide)},
	} {
		b.Run(c.name, func(b *testing.B) {
			tool := toolWith(c.params)
			b.ReportAllocs()
			for b.Loop() {
				harmony.DeclareTool(tool)
			}
		})
	}
}
