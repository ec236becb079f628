package harmony_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	. "github.com/beamharmony/harmony"
)

// TestArgumentsAsJSONString: a call's arguments given as a JSON string (the
// OpenAI wire form) are decoded when the string holds an object, and render
// as that object would; any other string is an error that says what it
// holds (DECISIONS.md, Training data; issue 18, item 1).
func TestArgumentsAsJSONString(t *testing.T) {
	const call = `{"messages": [{"role": "user", "content": "Weather?"}, {"role": "assistant", "reasoning_content": "R", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": %s}}]}]}`
	req := func(args string) string { return strings.Replace(call, "%s", args, 1) }
	const path = "messages[1].tool_calls[0].function.arguments: "
	tests := []struct {
		name, args string
		same       string // arguments as an object that render alike
		err        string // or the whole error
	}{
		{"object in a string", `"{\"city\": \"Paris\", \"days\": 3}"`, `{"city": "Paris", "days": 3}`, ""},
		{"space around the object", `" \n{\"city\": \"Paris\"}\t "`, `{"city": "Paris"}`, ""},
		{"escapes inside", `"{\"city\": \"Z\\u00fcrich\\n\"}"`, `{"city": "Z\u00fcrich\n"}`, ""},
		{"number literal kept", `"{\"t\": 1.50}"`, `{"t": 1.50}`, ""},
		{"empty object", `"{}"`, `{}`, ""},
		{"a list", `"[1, 2]"`, "", path + "must be a JSON object, got a list as JSON text in a string; a string must hold the JSON text of an object"},
		{"a string", `"\"Paris\""`, "", path + "must be a JSON object, got a string as JSON text in a string; a string must hold the JSON text of an object"},
		{"null", `"null"`, "", path + "must be a JSON object, got null as JSON text in a string; a string must hold the JSON text of an object"},
		{"not JSON", `"{\"city\": "`, "", path + `not valid JSON (at byte 8 of the string: unexpected end of input); a string must hold the JSON text of an object, such as {"city": "Paris"}`},
		{"plain text", `"Paris"`, "", path + `not valid JSON (at byte 0 of the string: unexpected 'P'); a string must hold the JSON text of an object, such as {"city": "Paris"}`},
		{"empty string", `""`, "", path + `not valid JSON (the string is empty); a string must hold the JSON text of an object, such as {"city": "Paris"}`},
		{"repeated key after decoding", `"{\"a\": 1, \"a\": 2}"`, "", path + `key "a" appears more than once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderRequest(t, req(tt.args))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v; want\n%s", err, tt.err)
				}
				if !strings.Contains(tt.name, "repeated") && !errors.Is(err, ErrArgumentsString) {
					t.Errorf("%v does not wrap ErrArgumentsString", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := renderRequest(t, req(tt.same))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got:\n%q\nwant (the object):\n%q", got, want)
			}
		})
	}
}

// TestRenderRefusesStringArguments: the renderer's own rule is the
// template's: arguments that are still a JSON string when rendering are an
// error with the template's words (DECISIONS.md, Tool calls and results).
func TestRenderRefusesStringArguments(t *testing.T) {
	msgs := []Message{{Role: RoleAssistant, Reasoning: "R", ToolCalls: []ToolCall{{Function: FunctionCall{Name: "f", Arguments: json.RawMessage(`"{\"city\": \"Paris\"}"`)}}}}}
	_, err := Render(msgs, nil)
	const want = "messages[0].tool_calls[0].function.arguments: must be a JSON object; parse JSON strings before rendering"
	if err == nil || err.Error() != want {
		t.Fatalf("Render: %v; want %s", err, want)
	}
}

// TestDecodeArguments: the exported rule, as the gateway calls it.
func TestDecodeArguments(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{`{"a": 1}`, `{"a": 1}`, ""},
		{`[1]`, `[1]`, ""}, // not a string: left to the renderer
		{``, ``, ""},
		{` "{\"a\": [1, 2]}" `, `{"a": [1, 2]}`, ""},
		{`"[]"`, "", "must be a JSON object, got a list as JSON text in a string; a string must hold the JSON text of an object"},
		{`"{"`, "", `not valid JSON (at byte 1 of the string: expected a string key); a string must hold the JSON text of an object, such as {"city": "Paris"}`},
		{`"unterminated`, "", "not valid JSON (invalid JSON at byte 13: unterminated string)"},
	}
	for _, tt := range tests {
		got, err := DecodeArguments(json.RawMessage(tt.in))
		if tt.err != "" {
			var re *RenderError
			if !errors.As(err, &re) || re.Path != "" || re.Msg != tt.err || !errors.Is(err, ErrArgumentsString) {
				t.Errorf("DecodeArguments(%s): %v; want a RenderError without a path: %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("DecodeArguments(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

// TestDecodedStringArgumentsEditable: arguments decoded from a string are
// the caller's to edit in place, as other decoded arguments are: Render
// writes the edited text, not the decoder's tape.
func TestDecodedStringArgumentsEditable(t *testing.T) {
	var m Message
	if err := json.Unmarshal([]byte(`{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"function": {"name": "f", "arguments": "{\"city\": \"Paris\"}"}}]}`), &m); err != nil {
		t.Fatal(err)
	}
	args := m.ToolCalls[0].Function.Arguments
	if string(args) != `{"city": "Paris"}` {
		t.Fatalf("decoded arguments %s", args)
	}
	copy(args[len(args)-8:], `"Rome!"`)
	p, err := Render([]Message{m}, nil)
	if err != nil || !strings.Contains(p, "\nRome!\n") || strings.Contains(p, "Paris") {
		t.Fatalf("Render after an edit: %v\n%s", err, p)
	}
}

// TestToolsAsJSONString: tools given as a JSON string holding the list
// render as the list does; a blank string is no tools, and a string
// holding anything else is an error at tools (issue 18, item 1).
func TestToolsAsJSONString(t *testing.T) {
	const tools = `[{"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]`
	quoted, _ := json.Marshal(tools)
	hello := `"messages": [{"role": "user", "content": "Hi"}]`
	want, err := renderRequest(t, `{`+hello+`, "tools": `+tools+`}`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := renderRequest(t, `{`+hello+`, "tools": `+string(quoted)+`}`)
	if err != nil || got != want {
		t.Fatalf("tools as a string: %v\n%q\nwant\n%q", err, got, want)
	}
	none, _ := renderRequest(t, `{`+hello+`}`)
	for _, blank := range []string{`""`, `"  "`, `"null"`} {
		if got, err := renderRequest(t, `{`+hello+`, "tools": `+blank+`}`); err != nil || got != none {
			t.Errorf("tools %s: %v\n%q; want no tools", blank, err, got)
		}
	}
	for _, tt := range []struct{ tools, err string }{
		{`"{}"`, "tools: must be a list of tools, got an object as JSON text in a string"},
		{`"[1]"`, "tools[0]: must be a JSON object, got number"},
		{`"[{"`, "tools: not valid JSON (at byte 2 of the string: expected a string key); a string must hold the JSON text of a list of tools"},
		{`"[{\"type\": \"function\", \"function\": {\"name\": 5}}]"`, "tools[0].function.name: must be a string, got number"},
	} {
		if _, err := renderRequest(t, `{`+hello+`, "tools": `+tt.tools+`}`); err == nil || err.Error() != tt.err {
			t.Errorf("tools %s: %v; want %s", tt.tools, err, tt.err)
		}
	}
}
