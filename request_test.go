package harmony_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/beamharmony/harmony"
)

// Every decoding problem is a *harmony.RenderError whose Path names the
// value and whose Error is "path: msg", whichever decoder found it.
func TestDecodeErrorsAreRenderErrors(t *testing.T) {
	tests := []struct {
		name   string
		decode func() error
		path   string
		text   string
	}{
		{"request not UTF-8", func() error { _, err := harmony.ParseRequest([]byte("{\"messages\": [\"\xff\"]}")); return err },
			"request", "request: not valid UTF-8"},
		{"request not JSON", func() error { _, err := harmony.ParseRequest([]byte(`{"messages": [}`)); return err },
			"request", "request: invalid JSON at byte 14: unexpected '}'"},
		{"request not an object", func() error { _, err := harmony.ParseRequest([]byte(`[]`)); return err },
			"request", `request: must be a JSON object with "messages"`},
		{"messages missing", func() error { _, err := harmony.ParseRequest([]byte(`{}`)); return err },
			"messages", "messages: required, a list of messages"},
		{"content of a message", func() error {
			_, err := harmony.ParseRequest([]byte(`{"messages": [{"role": "user", "content": 5}]}`))
			return err
		}, "messages[0].content", "messages[0].content: must be a string, null or a list of text parts, got number"},
		{"part type", func() error {
			_, err := harmony.ParseRequest([]byte(`{"messages": [{"role": "user", "content": [{"type": "image"}]}]}`))
			return err
		}, "messages[0].content[0].type", `messages[0].content[0].type: unsupported part type "image"; Beam reads text parts only`},
		{"tool call name", func() error {
			_, err := harmony.ParseRequest([]byte(`{"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": 1}}]}]}`))
			return err
		}, "messages[0].tool_calls[0].function.name", "messages[0].tool_calls[0].function.name: must be a string, got number"},
		{"tool description", func() error {
			_, err := harmony.ParseRequest([]byte(`{"messages": [], "tools": [{"function": {"name": "f", "description": []}}]}`))
			return err
		}, "tools[0].function.description", "tools[0].function.description: must be a string, got array"},
		{"Request.UnmarshalJSON", func() error { var r harmony.Request; return json.Unmarshal([]byte(`{"messages": 1}`), &r) },
			"messages", "messages: required, a list of messages"},
		{"message not an object", func() error { var m harmony.Message; return m.UnmarshalJSON([]byte(`[1]`)) },
			"", "must be a JSON object, got array"},
		{"message not JSON", func() error { var m harmony.Message; return m.UnmarshalJSON([]byte(`{`)) },
			"", "invalid JSON at byte 1: expected a string key"},
		{"message field", func() error { var m harmony.Message; return m.UnmarshalJSON([]byte(`{"tool_calls": [1]}`)) },
			"tool_calls[0]", "tool_calls[0]: must be a JSON object, got number"},
		{"tool function", func() error { var tl harmony.Tool; return tl.UnmarshalJSON([]byte(`{"function": 1}`)) },
			"function", "function: must be an object with name, description and parameters"},
		{"effort not JSON", func() error { var e harmony.ReasoningEffort; return e.UnmarshalJSON([]byte(`hi`)) },
			"", "invalid JSON at byte 0: unexpected 'h'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode()
			var re *harmony.RenderError
			if !errors.As(err, &re) {
				t.Fatalf("%T %v: not a *RenderError", err, err)
			}
			if re.Path != tt.path || err.Error() != tt.text {
				t.Errorf("got path %q, %q; want %q, %q", re.Path, err.Error(), tt.path, tt.text)
			}
		})
	}
}

// Invalid JSON keeps its syntax error behind the RenderError, as a type
// callers outside the module can name.
func TestDecodeErrorUnwrapsSyntaxError(t *testing.T) {
	_, err := harmony.ParseRequest([]byte(`{"messages": [}`))
	var se *harmony.SyntaxError
	if !errors.As(err, &se) || se.Offset != 14 {
		t.Errorf("%v: no syntax error at byte 14 behind it", err)
	}
}

// Decoded values are plain data: a decoded request, message and tool equal
// (reflect.DeepEqual) the literals written by hand, and rendering either
// gives the same prompt. No parse or decoder bookkeeping hides in them.
func TestDecodedEqualsLiteral(t *testing.T) {
	const src = `{"messages": [
		{"role": "user", "content": "Weather in Paris?"},
		{"role": "assistant", "thinking": "Call the tool.", "tool_calls": [
			{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}},
			{"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Lyon\"}"}}]},
		{"role": "tool", "tool_call_id": "c1", "content": "sunny"},
		{"role": "tool", "tool_call_id": "c2", "content": "rain"}],
		"tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather.",
			"parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}],
		"reasoning_effort": "high"}`
	want := &harmony.Request{
		Messages: []harmony.Message{
			{Role: "user", Content: "Weather in Paris?"},
			{Role: "assistant", Reasoning: "Call the tool.", ToolCalls: []harmony.ToolCall{
				{ID: "c1", Type: "function", Function: harmony.FunctionCall{Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris", "days": 3}`)}},
				{ID: "c2", Type: "function", Function: harmony.FunctionCall{Name: "get_weather", Arguments: json.RawMessage(`{"city": "Lyon"}`)}},
			}},
			{Role: "tool", ToolCallID: "c1", Content: "sunny"},
			{Role: "tool", ToolCallID: "c2", Content: "rain"},
		},
		Options: harmony.Options{
			Tools: []harmony.Tool{{Type: "function", Function: harmony.Function{Name: "get_weather", Description: "Weather.",
				Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}`)}}},
			ReasoningEffort:     harmony.EffortLabel("high"),
			AddGenerationPrompt: true,
		},
	}
	got, err := harmony.ParseRequest([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded request differs from the literal:\n got %#v\nwant %#v", got, want)
	}
	var m harmony.Message
	if err := json.Unmarshal([]byte(`{"role": "assistant", "thinking": "Call the tool.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}}]}`), &m); err != nil {
		t.Fatal(err)
	}
	wantMsg := want.Messages[1]
	wantMsg.ToolCalls = wantMsg.ToolCalls[:1]
	if !reflect.DeepEqual(m, wantMsg) {
		t.Fatalf("decoded message differs from the literal:\n got %#v\nwant %#v", m, wantMsg)
	}
	var tool harmony.Tool
	if err := json.Unmarshal([]byte(`{"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}`), &tool); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tool, want.Tools[0]) {
		t.Fatalf("decoded tool differs from the literal:\n got %#v\nwant %#v", tool, want.Tools[0])
	}
	fromDecoded, err := got.Render()
	if err != nil {
		t.Fatal(err)
	}
	fromLiteral, err := want.Render()
	if err != nil {
		t.Fatal(err)
	}
	if fromDecoded != fromLiteral {
		t.Fatalf("renders differ:\n%s\n%s", fromDecoded, fromLiteral)
	}
}

// A marker in reasoning is reported under the field the reasoning came
// from when decoding, and under reasoning_content for a literal message,
// whose field Go does not know.
func TestReasoningMarkerNamesItsField(t *testing.T) {
	_, err := harmony.ParseRequest([]byte(`{"messages": [{"role": "user", "content": "u"}, {"role": "assistant", "reasoning": "a<|end|>b", "content": "x"}]}`))
	if err == nil || err.Error() != "messages[1].reasoning: contains the marker <|end|>; reasoning must be plain text without Harmony headers" {
		t.Fatalf("decoding: %v", err)
	}
	_, err = harmony.Render([]harmony.Message{{Role: "user", Content: "u"}, {Role: "assistant", Reasoning: "a<|end|>b", Content: "x"}}, nil)
	if err == nil || err.Error() != "messages[1].reasoning_content: contains the marker <|end|>; reasoning must be plain text without Harmony headers" {
		t.Fatalf("rendering: %v", err)
	}
}

// A tool call's members are read as Python's json.loads reads them: the
// last of a repeated key wins, and the first error found follows the
// fields' fixed order (id, type, function, name, arguments), whatever
// order the keys come in.
func TestToolCallMembers(t *testing.T) {
	call := func(body string) string {
		return `{"messages": [{"role": "assistant", "tool_calls": [` + body + `]}]}`
	}
	req, err := harmony.ParseRequest([]byte(call(`{"function": {"arguments": {"a": 1}, "name": "f", "name": "g", "arguments": {"b": 2}},
		"id": "x", "type": "function", "id": "y", "function": {"name": "h", "arguments": {"c": 3}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	got := req.Messages[0].ToolCalls[0]
	want := harmony.ToolCall{ID: "y", Type: "function", Function: harmony.FunctionCall{Name: "h", Arguments: json.RawMessage(`{"c": 3}`)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for _, tt := range []struct{ body, err string }{
		{`{"function": 1, "type": 2, "id": 3}`, "messages[0].tool_calls[0].id: must be a string, got number"},
		{`{"function": 1, "type": 2}`, "messages[0].tool_calls[0].type: must be a string, got number"},
		{`{"function": {"arguments": 1, "name": 2}}`, "messages[0].tool_calls[0].function.name: must be a string, got number"},
		{`{"function": {"name": "f"}, "function": 1}`, "messages[0].tool_calls[0].function: must be an object with name and arguments"},
	} {
		_, err := harmony.ParseRequest([]byte(call(tt.body)))
		if err == nil || err.Error() != tt.err {
			t.Errorf("%s: got %v, want %s", tt.body, err, tt.err)
		}
	}
}

// The tool calls of a decoded request's messages share memory, but each
// message's slice has no spare room: appending to one message's calls
// never writes over the next message's.
func TestToolCallsDoNotOverlap(t *testing.T) {
	req, err := harmony.ParseRequest([]byte(`{"messages": [
		{"role": "assistant", "tool_calls": [{"function": {"name": "a", "arguments": {}}}]},
		{"role": "tool", "content": "1"},
		{"role": "assistant", "tool_calls": [{"function": {"name": "b", "arguments": {}}}, {"function": {"name": "c", "arguments": {}}}]},
		{"role": "assistant", "tool_calls": []}]}`))
	if err != nil {
		t.Fatal(err)
	}
	first := req.Messages[0].ToolCalls
	_ = append(first, harmony.ToolCall{Function: harmony.FunctionCall{Name: "x"}})
	if got := req.Messages[2].ToolCalls[0].Function.Name; got != "b" {
		t.Errorf("appending to messages[0].tool_calls changed messages[2].tool_calls[0] to %q", got)
	}
	if calls := req.Messages[3].ToolCalls; calls == nil || len(calls) != 0 {
		t.Errorf("an empty tool_calls decodes to %#v, want an empty, non-nil slice", calls)
	}
}
