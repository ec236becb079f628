package harmony_test

import (
	"strings"
	"testing"
)

// The gap decisions of docs/gap-decisions.md not covered by the rule
// tables elsewhere, one row each (numbers refer to that file).
func TestGapDecisions(t *testing.T) {
	const tool = `{"type": "function", "function": {"name": "f"}}`
	tests := []struct {
		name    string
		req     string
		want    string // a substring of the prompt, when wantErr is empty
		wantErr string
	}{
		{"5: an enum that is not an array is any",
			`{"messages": [], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"properties": {"a": {"enum": "x"}}}}}]}`,
			"a?: any,", ""},
		{"8: a tool type other than function is an error",
			`{"messages": [], "tools": [{"type": "code_interpreter", "function": {"name": "f"}}]}`,
			"", `tools[0].type: unsupported tool type "code_interpreter"; only function tools can be declared`},
		{"9: duplicate tool names render in order",
			`{"messages": [], "tools": [` + tool + `, ` + tool + `]}`,
			"# Tools\n\ntype f = () => any;\n\ntype f = () => any;<|end|>", ""},
		{"10: builtin_tools may repeat a name",
			`{"messages": [], "tools": [{"type": "function", "function": {"name": "search"}}], "builtin_tools": ["search", "search"]}`,
			"# Tools\n\ntype search = () => any;\n\n# Valid channels", ""},
		{"11: effort -0 renders 0",
			`{"messages": [], "reasoning_effort": -0}`,
			"Reasoning effort: 0\n", ""},
		{"12: null arguments are an error",
			`{"messages": [{"role": "assistant", "reasoning_content": "r", "tool_calls": [{"function": {"name": "f", "arguments": null}}]}]}`,
			"", "messages[0].tool_calls[0].function.arguments: must be a JSON object, got null"},
		{"14: add_generation_prompt null means the default",
			`{"messages": [], "add_generation_prompt": null}`,
			"<|end|><|start|>assistant", ""},
		{"14: allow_missing_thinking null means the default",
			`{"messages": [{"role": "assistant", "content": "x"}], "allow_missing_thinking": null}`,
			"<|channel|>analysis<|message|><|end|>", ""},
		{"15: a tool message name is checked like a tool name",
			`{"messages": [{"role": "tool", "name": "get weather", "content": "x"}]}`,
			"", `messages[0].name: tool name "get weather" contains whitespace`},
		{"16: a lone surrogate escape decodes to U+FFFD",
			`{"messages": [{"role": "user", "content": "a\ud800b"}]}`,
			"<|start|>user<|message|>a\uFFFDb<|end|>", ""},
		{"16: invalid UTF-8 is an error",
			"{\"messages\": [{\"role\": \"user\", \"content\": \"\xff\"}]}",
			"", "request: not valid UTF-8"},
		{"17: the first problem wins, before anything is written",
			`{"messages": [{"role": "assistant", "content": "x"}, {"role": "user", "content": "u"}, {"role": "system", "content": "late"}], "allow_missing_thinking": false}`,
			"", "The assistant turn at messages[0] is missing its reasoning."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderRequest(t, tt.req)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("prompt lacks %q:\n%s", tt.want, got)
			}
		})
	}
}
