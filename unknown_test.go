package harmony

import (
	"context"
	"strings"
	"testing"
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
		if got := closestKey(tt.key, requestKeys); got != tt.want {
			t.Errorf("closestKey(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
	for key, want := range map[string]string{"contnet": "content", "tool_call": "tool_calls", "rol": "role", "reasoning_contents": "reasoning_content", "id": ""} {
		if got := closestKey(key, messageKeys); got != want {
			t.Errorf("closestKey(%q, messageKeys) = %q, want %q", key, got, want)
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
