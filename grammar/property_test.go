package grammar

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validator compiles a JSON Schema with a kept validator, independent of
// this package.
func validator(t *testing.T, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, instance string) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(instance))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	return s.Validate(v)
}

// The tools of the property tests: the page's, and schemas that use each
// keyword the grammar enforces.
var propertyTools = []Tool{
	{Name: "get_weather", Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "description": "Forecast length in days"}}, "required": ["city"]}`)},
	{Name: "search_flights", Parameters: json.RawMessage(`{"type": "object", "properties": {
		"origin": {"type": "string", "description": "IATA airport code", "examples": ["JFK", "LHR"]},
		"destination": {"type": "string"},
		"depart": {"type": "string"},
		"return_date": {"type": ["string", "null"]},
		"passengers": {"type": "integer", "default": 1, "minimum": 1, "maximum": 9},
		"cabin": {"type": "string", "enum": ["economy", "business", "first"], "default": "economy"},
		"airlines": {"type": "array", "items": {"type": "string", "maxLength": 3, "minLength": 2}, "maxItems": 3},
		"budget": {"type": "object", "properties": {"max_price": {"type": "number", "exclusiveMinimum": 0, "maximum": 10000.5}, "currency": {"type": "string"}}, "required": ["max_price"], "additionalProperties": false}},
		"required": ["origin", "destination", "depart"]}`)},
	{Name: "tree", Parameters: json.RawMessage(`{"type": "object", "$defs": {"Node": {"type": "object", "properties": {"value": {"type": "integer", "minimum": -50, "exclusiveMaximum": 50}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "maxItems": 2}}, "required": ["value"], "additionalProperties": false}},
		"properties": {"root": {"$ref": "#/$defs/Node"}, "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "mode": {"const": "fast"},
		"point": {"type": "array", "prefixItems": [{"type": "number", "minimum": -1.5, "maximum": 2.25}, {"type": "boolean"}], "items": false, "minItems": 2}},
		"required": ["root", "mode"]}`)},
	{Name: "noargs"},
	{Name: "free", Parameters: json.RawMessage(`{"type": "object", "additionalProperties": {"type": "integer"}}`)},
}

// renderCall renders an assistant turn of reasoning and calls as the
// renderer writes it, from just after its <|start|>assistant.
func renderCall(t *testing.T, reasoning string, calls []harmony.ToolCall, tools []Tool) string {
	t.Helper()
	var ts []harmony.Tool
	for _, tl := range tools {
		ts = append(ts, harmony.Tool{Function: harmony.Function{Name: tl.Name, Parameters: tl.Parameters}})
	}
	msgs := []harmony.Message{{Role: harmony.RoleUser, Content: "u"}, {Role: harmony.RoleAssistant, Reasoning: reasoning, ToolCalls: calls}}
	prompt, err := harmony.Render(msgs, &harmony.Options{Tools: ts})
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	at := strings.Index(prompt, "<|start|>user<|message|>u<|end|><|start|>assistant")
	// The grammar ends before the end token <|call|>, which the engine
	// writes.
	return strings.TrimSuffix(prompt[at+len("<|start|>user<|message|>u<|end|><|start|>assistant"):], "<|call|>")
}

// Every text drawn from a tools grammar parses to calls of the allowed
// tools whose arguments validate against their schemas (a kept JSON Schema
// validator), and the renderer's writing of those calls is in the grammar
// again.
func TestToolGrammarProperty(t *testing.T) {
	var hts []harmony.Tool
	schemas := map[string]*jsonschema.Schema{}
	for _, tl := range propertyTools {
		hts = append(hts, harmony.Tool{Function: harmony.Function{Name: tl.Name, Parameters: tl.Parameters}})
		params := tl.Parameters
		if params == nil {
			params = json.RawMessage(`{}`)
		}
		schemas[tl.Name] = validator(t, params)
	}
	for _, spec := range []*Spec{
		{Tools: propertyTools, Choice: Required, Parallel: true},
		{Tools: propertyTools, Choice: Required},
		{Tools: propertyTools, Choice: Named, Name: "tree"},
	} {
		g, err := Compile(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		s := newSampler(g, rand.New(rand.NewPCG(7, uint64(spec.Choice))))
		for i := range 300 {
			text := s.Sample()
			if !g.Matches(text) {
				t.Fatalf("sample %d is not in the grammar: %q", i, text)
			}
			res, err := harmony.Parse(text, &harmony.ParseOptions{Tools: hts})
			if err != nil && strings.Contains(err.Error(), "appears twice") && strings.Contains(err.Error(), "(free)") {
				// The free tool's argument names are any: a grammar
				// can't keep them apart (decision 208's documented limit).
				continue
			}
			if err != nil {
				t.Fatalf("sample %d: %v\n%q", i, err, text)
			}
			calls := res.Message.ToolCalls
			if res.Message.Reasoning == "" || len(calls) == 0 || res.Message.Content != "" {
				t.Fatalf("sample %d: %+v\n%q", i, res.Message, text)
			}
			if !spec.Parallel && len(calls) != 1 {
				t.Fatalf("sample %d: %d calls without parallel calls", i, len(calls))
			}
			for _, c := range calls {
				if spec.Choice == Named && c.Function.Name != spec.Name {
					t.Fatalf("sample %d calls %s", i, c.Function.Name)
				}
				if err := validate(t, schemas[c.Function.Name], string(c.Function.Arguments)); err != nil {
					t.Fatalf("sample %d: %s(%s): %v\n%q", i, c.Function.Name, c.Function.Arguments, err, text)
				}
			}
			again := renderCall(t, res.Message.Reasoning, calls, propertyTools)
			if !g.Matches(again) {
				t.Fatalf("sample %d: the renderer's text is not in the grammar:\n%q\nfrom\n%q", i, again, text)
			}
		}
	}
}

// Calls the renderer writes for valid arguments are in the grammar.
func TestRenderedCallsMatch(t *testing.T) {
	g, err := Compile(context.Background(), &Spec{Tools: propertyTools, Choice: Required, Parallel: true})
	if err != nil {
		t.Fatal(err)
	}
	call := func(name, args string) harmony.ToolCall {
		return harmony.ToolCall{Function: harmony.FunctionCall{Name: name, Arguments: json.RawMessage(args)}}
	}
	for _, c := range []struct {
		calls []harmony.ToolCall
		want  bool
	}{
		{[]harmony.ToolCall{call("get_weather", `{"city": "London"}`)}, true},
		{[]harmony.ToolCall{call("get_weather", `{"city": "London"}`), call("get_weather", `{"city": "Paris", "days": 3}`)}, true},
		{[]harmony.ToolCall{call("get_weather", `{"city": "<b>x</b> && y"}`)}, true},
		{[]harmony.ToolCall{call("get_weather", `{"days": 3}`)}, false},                    // city is required
		{[]harmony.ToolCall{call("get_weather", `{"city": "x", "days": "three"}`)}, false}, // days is an integer
		{[]harmony.ToolCall{call("get_weather", `{"city": "x", "days": 3.5}`)}, false},
		{[]harmony.ToolCall{call("search_flights", `{"origin": "JFK", "destination": "LHR", "depart": "2026-01-01", "passengers": 9, "cabin": "first", "airlines": ["BA", "AAL"], "budget": {"max_price": 10000.5}}`)}, true},
		{[]harmony.ToolCall{call("search_flights", `{"origin": "JFK", "destination": "LHR", "depart": "d", "passengers": 10}`)}, false},
		{[]harmony.ToolCall{call("search_flights", `{"origin": "JFK", "destination": "LHR", "depart": "d", "budget": {"max_price": 0}}`)}, false},
		{[]harmony.ToolCall{call("search_flights", `{"origin": "JFK", "destination": "LHR", "depart": "d", "budget": {"max_price": 0.001, "x": 1}}`)}, false},
		{[]harmony.ToolCall{call("search_flights", `{"origin": "JFK", "destination": "LHR", "depart": "d", "cabin": "coach"}`)}, false},
		{[]harmony.ToolCall{call("search_flights", `{"origin": "JFK", "destination": "LHR", "depart": "d", "airlines": ["B"]}`)}, false},
		{[]harmony.ToolCall{call("tree", `{"root": {"value": -50, "children": [{"value": 49}, {"value": 0, "children": []}]}, "mode": "fast", "point": [2.25, true]}`)}, true},
		{[]harmony.ToolCall{call("tree", `{"root": {"value": 50}, "mode": "fast"}`)}, false},
		{[]harmony.ToolCall{call("tree", `{"root": {"value": 1}, "mode": "slow"}`)}, false},
		{[]harmony.ToolCall{call("tree", `{"root": {"value": 1}, "mode": "fast", "point": [2.26, true]}`)}, false},
		{[]harmony.ToolCall{call("tree", `{"root": {"value": 1}, "note": null, "mode": "fast"}`)}, true},
		{[]harmony.ToolCall{call("tree", `{"root": {"value": 1}, "mode": "fast", "note": null}`)}, false}, // declared order
		{[]harmony.ToolCall{call("noargs", `{}`)}, true},
		{[]harmony.ToolCall{call("free", `{"a": 1, "b c": -2}`)}, true},
		{[]harmony.ToolCall{call("nope", `{}`)}, false},
	} {
		text := renderCall(t, "thinking", c.calls, append(propertyTools, Tool{Name: "nope"}))
		if got := g.Matches(text); got != c.want {
			t.Errorf("%q: in the grammar %v, want %v", text, got, c.want)
		}
	}
}
