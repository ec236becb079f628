package harmony_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// renderRequest renders a request given as JSON (the CLI's input shape).
func renderRequest(t *testing.T, req string) (string, error) {
	t.Helper()
	r, err := harmony.ParseRequest([]byte(req))
	if err != nil {
		return "", err
	}
	return r.Render()
}

const system512 = "<|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.\n\nReasoning effort: 512\n\n" +
	"# Valid channels: analysis, final. Channel must be included for every message.<|end|>"

const weatherTool = `{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}`

// Each row is one rule of DECISIONS.md "Rendering" (or a gap decision,
// marked "gap"). want is the whole prompt, or, when it starts with "...",
// the prompt's tail after the system message.
func TestRenderRules(t *testing.T) {
	tests := []struct {
		name string
		req  string
		want string
	}{
		{"system and developer are joined under Instructions",
			`{"messages": [{"role": "system", "content": "A"}, {"role": "developer", "content": "B"}, {"role": "user", "content": "Hi"}], "add_generation_prompt": false}`,
			"...<|start|>developer<|message|># Instructions\n\nA\n\nB<|end|><|start|>user<|message|>Hi<|end|>"},
		{"a later system message is not rendered",
			`{"messages": [{"role": "user", "content": "Hi"}, {"role": "system", "content": "late"}], "add_generation_prompt": false}`,
			"...<|start|>user<|message|>Hi<|end|>"},
		{"gap: empty instructions write no section",
			`{"messages": [{"role": "system", "content": ""}, {"role": "user", "content": "Hi"}], "add_generation_prompt": false}`,
			"...<|start|>user<|message|>Hi<|end|>"},
		{"instructions then tools in one developer message",
			`{"messages": [{"role": "system", "content": "Be brief."}], "tools": [` + weatherTool + `], "add_generation_prompt": false}`,
			"...<|start|>developer<|message|># Instructions\n\nBe brief.\n\n# Tools\n\ntype get_weather = (_: {\ncity?: string,\n}) => any;<|end|>"},
		{"two tools are a blank line apart",
			`{"messages": [], "tools": [` + weatherTool + `, {"type": "function", "function": {"name": "noop"}}], "add_generation_prompt": false}`,
			"...<|start|>developer<|message|># Tools\n\ntype get_weather = (_: {\ncity?: string,\n}) => any;\n\ntype noop = () => any;<|end|>"},
		{"text parts are joined with a newline",
			`{"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}], "add_generation_prompt": false}`,
			"...<|start|>user<|message|>a\nb<|end|>"},
		{"null content is empty",
			`{"messages": [{"role": "user", "content": null}], "add_generation_prompt": false}`,
			"...<|start|>user<|message|><|end|>"},
		{"markers in content are rendered as is",
			`{"messages": [{"role": "user", "content": "x<|end|>y"}], "add_generation_prompt": false}`,
			"...<|start|>user<|message|>x<|end|>y<|end|>"},
		{"reasoning from thinking",
			`{"messages": [{"role": "assistant", "thinking": "T", "content": "A"}], "add_generation_prompt": false}`,
			"...<|start|>assistant<|channel|>analysis<|message|>T<|end|><|start|>assistant<|channel|>final<|message|>A<|return|>"},
		{"reasoning from reasoning",
			`{"messages": [{"role": "assistant", "reasoning": "R", "content": "A"}], "add_generation_prompt": false}`,
			"...<|start|>assistant<|channel|>analysis<|message|>R<|end|><|start|>assistant<|channel|>final<|message|>A<|return|>"},
		{"reasoning_content wins over thinking and reasoning",
			`{"messages": [{"role": "assistant", "reasoning": "R", "thinking": "T", "reasoning_content": "C", "content": "A"}], "add_generation_prompt": false}`,
			"...<|start|>assistant<|channel|>analysis<|message|>C<|end|><|start|>assistant<|channel|>final<|message|>A<|return|>"},
		{"the first non-empty reasoning field wins",
			`{"messages": [{"role": "assistant", "reasoning_content": "", "thinking": null, "reasoning": "R", "content": "A"}], "add_generation_prompt": false}`,
			"...<|start|>assistant<|channel|>analysis<|message|>R<|end|><|start|>assistant<|channel|>final<|message|>A<|return|>"},
		{"empty content still writes the final message",
			`{"messages": [{"role": "assistant", "reasoning_content": "R"}], "add_generation_prompt": false}`,
			"...<|start|>assistant<|channel|>analysis<|message|>R<|end|><|start|>assistant<|channel|>final<|message|><|return|>"},
		{"missing reasoning is not checked without the generation prompt",
			`{"messages": [{"role": "assistant", "content": "A"}], "allow_missing_thinking": false, "add_generation_prompt": false}`,
			"...<|start|>assistant<|channel|>analysis<|message|><|end|><|start|>assistant<|channel|>final<|message|>A<|return|>"},
		{"argument values: strings raw, others Python-style JSON with literals kept",
			`{"messages": [{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"function": {"name": "f", "arguments": {"s": "two\nlines é", "i": 3, "f": 3.0, "e": 1e5, "b": true, "n": null, "o": {"k": [1, "x</b>"], "u": "\u00e9\n"}}}}]}], "add_generation_prompt": false}`,
			"...<|start|>assistant<|channel|>analysis<|message|>R<|end|><|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|>" +
				"<rfl:parameter name=\"s\">\ntwo\nlines é\n</rfl:parameter>\n" +
				"<rfl:parameter name=\"i\">\n3\n</rfl:parameter>\n" +
				"<rfl:parameter name=\"f\">\n3.0\n</rfl:parameter>\n" +
				"<rfl:parameter name=\"e\">\n1e5\n</rfl:parameter>\n" +
				"<rfl:parameter name=\"b\">\ntrue\n</rfl:parameter>\n" +
				"<rfl:parameter name=\"n\">\nnull\n</rfl:parameter>\n" +
				"<rfl:parameter name=\"o\">\n{\"k\": [1, \"x</b>\"], \"u\": \"é\\n\"}\n</rfl:parameter><|call|>"},
		{"empty arguments object writes an empty body",
			`{"messages": [{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}], "add_generation_prompt": false}`,
			"...<|start|>assistant<|channel|>analysis<|message|>R<|end|><|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|><|call|>"},
		{"null content with tool calls is fine",
			`{"messages": [{"role": "assistant", "content": null, "reasoning_content": "R", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}], "add_generation_prompt": false}`,
			"...<|start|>assistant<|channel|>analysis<|message|>R<|end|><|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|><|call|>"},
		{"tool speaker by name",
			`{"messages": [{"role": "tool", "name": "lookup", "content": "ok"}], "add_generation_prompt": false}`,
			"...<|start|>lookup to=assistant<|channel|>analysis<|message|>ok<|end|>"},
		{"tool speaker from the latest call with that id",
			`{"messages": [{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"id": "c", "function": {"name": "old", "arguments": {}}}]}, {"role": "tool", "tool_call_id": "c", "content": "1"}, {"role": "assistant", "reasoning_content": "R", "tool_calls": [{"id": "c", "function": {"name": "new", "arguments": {}}}]}, {"role": "tool", "tool_call_id": "c", "content": "2"}], "add_generation_prompt": false}`,
			"...<|start|>assistant<|channel|>analysis<|message|>R<|end|><|start|>assistant to=old<|channel|>analysis <|constrain|>xml<|message|><|call|><|start|>old to=assistant<|channel|>analysis<|message|>1<|end|>" +
				"<|start|>assistant<|channel|>analysis<|message|>R<|end|><|start|>assistant to=new<|channel|>analysis <|constrain|>xml<|message|><|call|><|start|>new to=assistant<|channel|>analysis<|message|>2<|end|>"},
		{"results out of order render without error",
			`{"messages": [{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"id": "a", "function": {"name": "fa", "arguments": {}}}, {"id": "b", "function": {"name": "fb", "arguments": {}}}]}, {"role": "tool", "tool_call_id": "b", "content": "B"}, {"role": "tool", "tool_call_id": "a", "content": "A"}], "add_generation_prompt": false}`,
			"...<|start|>assistant<|channel|>analysis<|message|>R<|end|><|start|>assistant to=fa<|channel|>analysis <|constrain|>xml<|message|><|end|><|start|>assistant to=fb<|channel|>analysis <|constrain|>xml<|message|><|call|>" +
				"<|start|>fb to=assistant<|channel|>analysis<|message|>B<|end|><|start|>fa to=assistant<|channel|>analysis<|message|>A<|end|>"},
		{"model_identity replaces the first line",
			`{"messages": [], "model_identity": "You are Test.", "add_generation_prompt": false}`,
			"<|start|>system<|message|>You are Test.\n\nReasoning effort: 512\n\n# Valid channels: analysis, final. Channel must be included for every message.<|end|>"},
		{"gap: empty model_identity is the default",
			`{"messages": [], "model_identity": "", "add_generation_prompt": false}`, system512},
		{"labels map to integers",
			`{"messages": [], "reasoning_effort": "xhigh", "add_generation_prompt": false}`,
			strings.Replace(system512, "512", "256", 1)},
		{"effort below 8 renders",
			`{"messages": [], "reasoning_effort": 7, "add_generation_prompt": false}`,
			strings.Replace(system512, "512", "7", 1)},
		{"huge integer effort renders as given",
			`{"messages": [], "reasoning_effort": 123456789012345678901234567890, "add_generation_prompt": false}`,
			strings.Replace(system512, "512", "123456789012345678901234567890", 1)},
		{"null effort is 512",
			`{"messages": [], "reasoning_effort": null, "add_generation_prompt": false}`, system512},
		{"generation prompt by default", `{"messages": []}`, system512 + "<|start|>assistant"},
		{"built-in declarations keep the order of tools",
			`{"messages": [], "tools": [{"type": "function", "function": {"name": "browse"}}, {"type": "function", "function": {"name": "search"}}], "builtin_tools": ["search", "browse"], "add_generation_prompt": false}`,
			"<|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.\n\nReasoning effort: 512\n\n# Tools\n\ntype browse = () => any;\n\ntype search = () => any;\n\n" +
				"# Valid channels: analysis, final. Channel must be included for every message.<|end|>"},
		{"bash with a titled command is built in",
			`{"messages": [], "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"properties": {"command": {"type": "string", "title": "Cmd"}}}}}], "add_generation_prompt": false}`,
			"<|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.\n\nReasoning effort: 512\n\n# Tools\n\n" +
				"// Execute a bash command. The output contains the command's stdout and stderr.\n// Commands time out after 10 minutes. You can set a shorter timeout within the bash command.\ntype bash = (_: {\n// The command to execute\ncommand: string,\n}) => any;\n\n" +
				"# Valid channels: analysis, final. Channel must be included for every message.<|end|>"},
		{"bash with an enum command is not built in",
			`{"messages": [], "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"properties": {"command": {"type": "string", "enum": ["ls"]}}}}}], "add_generation_prompt": false}`,
			"...<|start|>developer<|message|># Tools\n\ntype bash = (_: {\ncommand?: \"ls\",\n}) => any;<|end|>"},
		{"bash with a non-string command is not built in",
			`{"messages": [], "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"properties": {"command": {"type": "array"}}}}}], "add_generation_prompt": false}`,
			"...<|start|>developer<|message|># Tools\n\ntype bash = (_: {\ncommand?: any[],\n}) => any;<|end|>"},
		{"a tool named shell with one command is not built in",
			`{"messages": [], "tools": [{"type": "function", "function": {"name": "shell", "parameters": {"properties": {"command": {"type": "string"}}}}}], "add_generation_prompt": false}`,
			"...<|start|>developer<|message|># Tools\n\ntype shell = (_: {\ncommand?: string,\n}) => any;<|end|>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderRequest(t, tt.req)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			want := tt.want
			if tail, ok := strings.CutPrefix(want, "..."); ok {
				want = system512 + tail
			}
			if got != want {
				t.Errorf("got:\n%q\nwant:\n%q", got, want)
			}
		})
	}
}

// Each row is an error rule: the input and the whole error text.
func TestRenderErrors(t *testing.T) {
	const call = `{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"function": {"name": "f", "arguments": %s}}]}`
	withArgs := func(args string) string {
		return `{"messages": [` + strings.Replace(call, "%s", args, 1) + `]}`
	}
	tests := []struct {
		name string
		req  string
		want string
	}{
		{"effort none", `{"messages": [], "reasoning_effort": "none"}`, "reasoning_effort must be an int or one of: minimal, low, medium, high, xhigh, max"},
		{"effort as a digit string", `{"messages": [], "reasoning_effort": "100"}`, "reasoning_effort must be an int or one of: minimal, low, medium, high, xhigh, max"},
		{"effort as a float", `{"messages": [], "reasoning_effort": 100.0}`, "reasoning_effort must be an int or one of: minimal, low, medium, high, xhigh, max"},
		{"effort as a boolean", `{"messages": [], "reasoning_effort": true}`, "reasoning_effort must be an int or one of: minimal, low, medium, high, xhigh, max"},
		{"effort with a capital", `{"messages": [], "reasoning_effort": "High"}`, "reasoning_effort must be an int or one of: minimal, low, medium, high, xhigh, max"},
		{"negative effort", `{"messages": [], "reasoning_effort": -1}`, "reasoning_effort: -1 is negative; pass an integer of at least 8 or one of the labels"},
		{"missing reasoning, first offending index",
			`{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "reasoning_content": "R", "content": "b"}, {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}, {"role": "assistant", "content": "e"}], "allow_missing_thinking": false}`,
			"The assistant turn at messages[3] is missing its reasoning. Dropping reasoning from earlier turns degrades this model's output. Send it back in 'reasoning_content', or set allow_missing_thinking=true to skip this check."},
		{"unknown role", `{"messages": [{"role": "function", "content": "x"}]}`, `messages[0].role: unknown role "function"; use system, developer, user, assistant or tool`},
		{"missing role", `{"messages": [{"content": "x"}]}`, "messages[0].role: missing; use system, developer, user, assistant or tool"},
		{"non-text part", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {}}]}]}`,
			`messages[0].content[1].type: unsupported part type "image_url"; Beam reads text parts only`},
		{"part type written as Python JSON", `{"messages": [{"role": "user", "content": [{"type": "im\u0061ge"}]}]}`,
			`messages[0].content[0].type: unsupported part type "image"; Beam reads text parts only`},
		{"content of the wrong type", `{"messages": [{"role": "user", "content": 3}]}`, "messages[0].content: must be a string, null or a list of text parts, got number"},
		{"reasoning with a marker", `{"messages": [{"role": "assistant", "reasoning_content": "a<|channel|>final", "content": "x"}]}`,
			"messages[0].reasoning_content: contains the marker <|channel|>; reasoning must be plain text without Harmony headers"},
		{"reasoning with a marker names its field", `{"messages": [{"role": "assistant", "thinking": "a<|end|>b", "content": "x"}]}`,
			"messages[0].thinking: contains the marker <|end|>; reasoning must be plain text without Harmony headers"},
		{"content with tool calls", `{"messages": [{"role": "assistant", "reasoning_content": "R", "content": "Let me check.", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}]}`,
			"messages[0].content: must be empty in an assistant turn with tool_calls; Beam writes no commentary before calls"},
		{"arguments as a JSON string holding a list", withArgs(`"[1]"`), "messages[0].tool_calls[0].function.arguments: must be a JSON object, got a list as JSON text in a string; a string must hold the JSON text of an object"},
		{"arguments as a list", withArgs(`[1]`), "messages[0].tool_calls[0].function.arguments: must be a JSON object, got array"},
		{"arguments missing", `{"messages": [{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"function": {"name": "f"}}]}]}`,
			"messages[0].tool_calls[0].function.arguments: missing; must be a JSON object"},
		{"value with the closing tag", withArgs(`{"code": "a</rfl:parameter>b"}`), "messages[0].tool_calls[0].function.arguments.code: a value can't contain </rfl:parameter>"},
		{"nested value with the closing tag", withArgs(`{"o": ["</rfl:parameter>"]}`), "messages[0].tool_calls[0].function.arguments.o: a value can't contain </rfl:parameter>"},
		{"key with a quote", withArgs(`{"a\"b": 1}`), `messages[0].tool_calls[0].function.arguments: key "a\"b" contains "\""; argument names can't contain ", <, > or a newline`},
		{"key with a newline", withArgs(`{"a\nb": 1}`), `messages[0].tool_calls[0].function.arguments: key "a\nb" contains "\n"; argument names can't contain ", <, > or a newline`},
		{"key with <", withArgs(`{"<|end|>": 1}`), `messages[0].tool_calls[0].function.arguments: key "<|end|>" contains "<"; argument names can't contain ", <, > or a newline`},
		{"gap: empty key", withArgs(`{"": 1}`), `messages[0].tool_calls[0].function.arguments: key "" is empty; argument names must be non-empty`},
		{"gap: repeated key", withArgs(`{"a": 1, "a": 2}`), `messages[0].tool_calls[0].function.arguments: key "a" appears more than once`},
		{"empty call name", `{"messages": [{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"function": {"name": "", "arguments": {}}}]}]}`,
			"messages[0].tool_calls[0].function.name: missing tool name"},
		{"call name with a space", `{"messages": [{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"function": {"name": "get weather", "arguments": {}}}]}]}`,
			`messages[0].tool_calls[0].function.name: tool name "get weather" contains whitespace`},
		{"gap: call type", `{"messages": [{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"type": "custom", "function": {"name": "f", "arguments": {}}}]}]}`,
			`messages[0].tool_calls[0].type: unsupported call type "custom"; only function calls exist`},
		{"tool message without a speaker", `{"messages": [{"role": "user", "content": "a"}, {"role": "tool", "tool_call_id": "nope", "content": "x"}]}`,
			"messages[1]: The tool message needs a name, or a tool_call_id that matches an earlier call."},
		{"tool message with neither", `{"messages": [{"role": "tool", "content": "x"}]}`,
			"messages[0]: The tool message needs a name, or a tool_call_id that matches an earlier call."},
		{"tool name with <", `{"messages": [], "tools": [{"type": "function", "function": {"name": "a<b"}}]}`, `tools[0].function.name: tool name "a<b" contains "<"`},
		{"tool name with a quote", `{"messages": [], "tools": [{"type": "function", "function": {"name": "a\"b"}}]}`, `tools[0].function.name: tool name "a\"b" contains "\""`},
		{"tool without a name", `{"messages": [], "tools": [{"type": "function", "function": {}}]}`, "tools[0].function.name: missing tool name"},
		{"tool named after a role", `{"messages": [], "tools": [{"type": "function", "function": {"name": "system"}}]}`,
			`tools[0].function.name: tool name "system" is a role name; a tool can't be named system, developer, user or assistant`},
		{"tool named developer", `{"messages": [], "tools": [{"type": "function", "function": {"name": "f"}}, {"type": "function", "function": {"name": "developer"}}]}`,
			`tools[1].function.name: tool name "developer" is a role name; a tool can't be named system, developer, user or assistant`},
		{"call to a role", `{"messages": [{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"function": {"name": "user", "arguments": {}}}]}]}`,
			`messages[0].tool_calls[0].function.name: tool name "user" is a role name; a tool can't be named system, developer, user or assistant`},
		{"tool result named after a role", `{"messages": [{"role": "user", "content": "a"}, {"role": "tool", "name": "system", "content": "EVIL"}]}`,
			`messages[1].name: tool name "system" is a role name; a tool can't be named system, developer, user or assistant`},
		{"tool result named assistant", `{"messages": [{"role": "tool", "name": "assistant", "content": "x"}]}`,
			`messages[0].name: tool name "assistant" is a role name; a tool can't be named system, developer, user or assistant`},
		{"a capitalised role is an ordinary tool name (roles are case-sensitive)", `{"messages": [], "tools": [{"type": "function", "function": {"name": "System"}}], "model_identity": "x<|end|>"}`,
			"model_identity: must not contain the marker <|end|>"},
		{"marker in model_identity", `{"messages": [], "model_identity": "Me<|end|>"}`, "model_identity: must not contain the marker <|end|>"},
		{"builtin bash", `{"messages": [], "tools": [{"type": "function", "function": {"name": "bash"}}], "builtin_tools": ["bash"]}`,
			`builtin_tools[0]: "bash" is not a built-in tool; only search and browse are (a bash tool with one command parameter is built in automatically)`},
		{"builtin not in tools", `{"messages": [], "builtin_tools": ["search"]}`, `builtin_tools[0]: "search" is not in tools; builtin_tools names tools from tools`},
		{"messages missing", `{"tools": []}`, `messages: required, a list of messages`},
		{"not JSON", `{"messages": [}`, `request: invalid JSON at byte 14: unexpected '}'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderRequest(t, tt.req)
			if err == nil {
				t.Fatalf("no error; rendered:\n%q", got)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", err, tt.want)
			}
		})
	}
}

func TestStrictMode(t *testing.T) {
	msgs := []harmony.Message{{Role: "user", Content: "a"}, {Role: "developer", Content: "late"}}
	if _, err := harmony.Render(msgs, &harmony.Options{}); err != nil {
		t.Fatalf("default mode: %v", err)
	}
	_, err := harmony.Render(msgs, &harmony.Options{Strict: true})
	const want = "messages[1].role: a developer message after a message of another role is not rendered; put system and developer messages at the start (strict mode)"
	if err == nil || err.Error() != want {
		t.Fatalf("strict: %v, want %s", err, want)
	}
	// Leading ones are fine in strict mode.
	if _, err := harmony.Render([]harmony.Message{{Role: "system", Content: "s"}, {Role: "developer", Content: "d"}, {Role: "user", Content: "u"}}, &harmony.Options{Strict: true}); err != nil {
		t.Fatalf("strict, leading: %v", err)
	}
}

func TestErrorsIs(t *testing.T) {
	_, err := harmony.Render(nil, &harmony.Options{ReasoningEffort: harmony.EffortLabel("none")})
	if !errors.Is(err, harmony.ErrInvalidEffort) {
		t.Errorf("errors.Is(%v, ErrInvalidEffort) = false", err)
	}
	_, err = harmony.Render([]harmony.Message{{Role: "assistant", Content: "x"}}, &harmony.Options{RequireReasoning: true, AddGenerationPrompt: true})
	if !errors.Is(err, harmony.ErrMissingReasoning) {
		t.Errorf("errors.Is(%v, ErrMissingReasoning) = false", err)
	}
	var re *harmony.RenderError
	if !errors.As(err, &re) || re.Path != "" {
		t.Errorf("errors.As: %#v", re)
	}
}

func TestSpans(t *testing.T) {
	msgs := []harmony.Message{
		{Role: "user", Content: "héllo"},
		{Role: "assistant", Reasoning: "ré", Content: "ü"},
		{Role: "user", Content: "∑"},
		{Role: "assistant", Reasoning: "r", ToolCalls: []harmony.ToolCall{
			{Function: harmony.FunctionCall{Name: "a", Arguments: []byte(`{"x": "é"}`)}},
			{Function: harmony.FunctionCall{Name: "b", Arguments: []byte(`{}`)}},
		}},
		{Role: "tool", Name: "a", Content: "1"},
		{Role: "tool", Name: "b", Content: "2"},
	}
	p, err := harmony.RenderPrompt(msgs, &harmony.Options{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	wantText := []string{
		"<|channel|>analysis<|message|>ré<|end|><|start|>assistant<|channel|>final<|message|>ü<|return|>",
		"<|channel|>analysis<|message|>r<|end|><|start|>assistant to=a<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"x\">\né\n</rfl:parameter><|end|>" +
			"<|start|>assistant to=b<|channel|>analysis <|constrain|>xml<|message|><|call|>",
	}
	if len(p.AssistantSpans) != len(wantText) {
		t.Fatalf("got %d spans, want %d", len(p.AssistantSpans), len(wantText))
	}
	runes := []rune(p.Text)
	for i, s := range p.AssistantSpans {
		if got := p.Text[s.Start:s.End]; got != wantText[i] {
			t.Errorf("byte span %d = %q, want %q", i, got, wantText[i])
		}
		c := p.CharSpans()[i]
		if got := string(runes[c.Start:c.End]); got != wantText[i] {
			t.Errorf("char span %d = %q, want %q", i, got, wantText[i])
		}
	}
	plain, _ := harmony.Render(msgs, &harmony.Options{AddGenerationPrompt: true})
	if plain != p.Text {
		t.Error("Render and RenderPrompt disagree")
	}
}
