package harmony

import (
	"context"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/spell"
)

func TestClosestKey(t *testing.T) {
	tests := []struct{ key, want string }{
		{"reasoning_efort", "reasoning_effort"},
		{"reasoning_effrot", "reasoning_effort"}, // a swap
		{"Reasoning_Effort", "reasoning_effort"}, // case
		{"tool", "tools"},
		{"tols", "tools"},
		{"builtins_tools", "builtin_tools"},
		{"add_generation", ""}, // too far
		{"model", ""},
		{"stream", ""},
		{"temperature", ""},
		{"", ""},
		{strings.Repeat("x", 1000), ""},
	}
	for _, tt := range tests {
		if got := spell.Closest(tt.key, requestKeys); got != tt.want {
			t.Errorf("spell.Closest(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
	for key, want := range map[string]string{"contnet": "content", "tool_call": "tool_calls", "rol": "role", "reasoning_contents": "reasoning_content", "id": ""} {
		if got := spell.Closest(key, messageKeys); got != want {
			t.Errorf("spell.Closest(%q, messageKeys) = %q, want %q", key, got, want)
		}
	}
}

// A request's unknown keys, of the request and of each message, are
// linted by path in the order ParseRequest met them; with Strict every
// render method refuses the first, naming it; without, they change
// nothing.
func TestUnknownKeysLintAndStrict(t *testing.T) {
	const data = `{"reasoning_efort": "low", "messages": [{"role": "user", "content": "Hi", "contnet": "x", "a.b": 1}], "tool": []}`
	r, err := ParseRequest([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range r.Lint() {
		got = append(got, w.String())
	}
	want := []string{
		`messages[0].contnet: unknown key, not rendered; did you mean content?`,
		`messages[0]["a.b"]: unknown key, not rendered; remove it`,
		`reasoning_efort: unknown key, not rendered; did you mean reasoning_effort?`,
		`tool: unknown key, not rendered; did you mean tools?`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Lint:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	plain, err := r.Render()
	if err != nil {
		t.Fatal(err)
	}
	clean, _ := ParseRequest([]byte(`{"messages": [{"role": "user", "content": "Hi"}]}`))
	if cleanText, _ := clean.Render(); cleanText != plain {
		t.Errorf("unknown keys changed the prompt")
	}
	if ws := clean.Lint(); len(ws) != 0 {
		t.Errorf("a clean request has warnings: %v", ws)
	}
	r.Strict = true
	const wantErr = `messages[0].contnet: unknown key (strict mode); did you mean content? (and 3 more unknown keys)`
	_, err1 := r.Render()
	_, err2 := r.RenderPrompt()
	_, err3 := r.RenderTokens(context.Background(), nil)
	for i, err := range []error{err1, err2, err3} {
		var re *RenderError
		if err == nil || err.Error() != wantErr || !asRenderError(err, &re) || re.Path != "messages[0].contnet" {
			t.Errorf("render method %d in strict mode: %v", i, err)
		}
	}
	clean.Strict = true
	if _, err := clean.Render(); err != nil {
		t.Errorf("a clean request in strict mode: %v", err)
	}
}

func asRenderError(err error, re **RenderError) bool {
	r, ok := err.(*RenderError)
	*re = r
	return ok
}

// Keys outside the wire shape of a text part, a tool call, its function,
// a tool and its function are unknown keys too, named by their paths,
// with the known key of their own object they are closest to, unless
// their value holds nothing (null, [] or {}, which datasets write for a
// struct's other fields). The wire shape's keys the prompt has no use for
// (a call's index, a function's strict and return) are not.
func TestUnknownNestedKeys(t *testing.T) {
	tests := []struct {
		name, request string
		want          []string
	}{
		{"text part", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "Hi", "txet": "x", "cache_control": {"type": "ephemeral"}}]}]}`, []string{
			`messages[0].content[0].txet: unknown key, not rendered; did you mean text?`,
			`messages[0].content[0].cache_control: unknown key, not rendered; remove it`,
		}},
		{"tool call", `{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "reasoning_content": "r", "tool_calls": [{"id": "c", "type": "function", "index": 0, "ids": "d", "function": {"name": "f", "arguments": "{}", "nmae": "g"}}]}]}`, []string{
			`messages[1].tool_calls[0].ids: unknown key, not rendered; did you mean id?`,
			`messages[1].tool_calls[0].function.nmae: unknown key, not rendered; did you mean name?`,
		}},
		{"tool", `{"messages": [{"role": "user", "content": "Hi"}], "tools": [{"type": "function", "function": {"name": "f", "strict": true, "parameters": {"type": "object"}}}, {"typ": "function", "function": {"name": "g", "descripton": "d", "paramters": {"type": "object"}}}]}`, []string{
			`tools[1].typ: unknown key, not rendered; did you mean type?`,
			`tools[1].function.descripton: unknown key, not rendered; did you mean description?`,
			`tools[1].function.paramters: unknown key, not rendered; did you mean parameters?`,
		}},
		{"tools as text", `{"messages": [{"role": "user", "content": "Hi"}], "tools": "[{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameter\": {\"type\": \"object\"}}}]"}`, []string{
			`tools[0].function.parameter: unknown key, not rendered; did you mean parameters?`,
		}},
		{"values that hold nothing, within messages and tools", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "Hi", "image": null, "cache_control": {}}], "refusal": null}, {"role": "assistant", "reasoning_content": "r", "tool_calls": [{"id": "c", "type": "function", "x": [], "function": {"name": "f", "arguments": {}, "y": null}}]}], "tools": [{"type": "function", "z": null, "function": {"name": "f", "w": {}}}]}`, []string{
			`messages[0].refusal: unknown key, not rendered; remove it`, // a message's keys whatever their value (decision 136)
		}},
		{"wire keys", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}, {"role": "assistant", "reasoning_content": "r", "tool_calls": [{"id": "c", "type": "function", "index": 0, "function": {"name": "f", "arguments": {}}}]}], "tools": [{"type": "function", "function": {"name": "f", "description": "d", "strict": false, "parameters": {"type": "object"}, "return": {"type": "string"}}}]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRequest([]byte(tt.request))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range r.Lint() {
				got = append(got, w.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Lint:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			r.Strict = true
			_, err = r.Render()
			var re *RenderError
			switch {
			case len(tt.want) == 0 && err != nil:
				t.Errorf("strict: %v", err)
			case len(tt.want) > 0 && (err == nil || !asRenderError(err, &re) || re.Path != strings.SplitN(tt.want[0], ":", 2)[0]):
				t.Errorf("strict: %v, want an error at the first unknown key", err)
			}
		})
	}
}
