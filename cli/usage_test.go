package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every usage error (arguments or flags that can't be used together, a
// required flag missing) exits with 2 and one line on stderr naming the
// command, as a flag error does; nothing goes to stdout.
func TestUsageErrorsExit2(t *testing.T) {
	tests := []struct {
		args []string
		want string // in the line
	}{
		{[]string{"render", "a.json", "b.json"}, "at most one FILE"},
		{[]string{"lint", "a.json", "b.json"}, "at most one FILE"},
		{[]string{"parse", "a.txt", "b.txt"}, "at most one FILE"},
		{[]string{"render", "--spans", "--tokenizer", "x", "-"}, "--spans and --tokenizer"},
		{[]string{"render", "--strict", "--drop-late-instructions"}, "can't be combined"},
		{[]string{"lint", "--strict", "--drop-late-instructions"}, "can't be combined"},
		{[]string{"parse", "--chunk-size", "0"}, "--chunk-size"},
		{[]string{"parse", "--chunk-size", "random:x"}, "--chunk-size"},
		{[]string{"tokenize"}, "--tokenizer PATH is required"},
		{[]string{"detokenize"}, "--tokenizer PATH is required"},
		{[]string{"template", "extra"}, `unexpected argument "extra"`},
		{[]string{"version", "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, `{"messages": []}`, tt.args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "beamharmony "+tt.args[0]+": ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q, want one line naming %q", stderr, tt.want)
			}
		})
	}
}

// render writes lint's warnings to stderr (an unknown key with the key it
// was probably meant to be, a turn without reasoning) and exits 0; -q and
// --quiet silence them and leave stdout as it is.
func TestRenderWarnings(t *testing.T) {
	const req = `{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "Bye"}], "reasoning_efort": "low"}`
	stdout, stderr, code := runCLI(t, req, "render")
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	for _, want := range []string{
		"beamharmony render: warning: reasoning_efort: unknown key, not rendered; did you mean reasoning_effort?\n",
		"beamharmony render: warning: messages[1]: this assistant turn has no reasoning",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, q := range []string{"-q", "--quiet"} {
		quietOut, quietErr, code := runCLI(t, req, "render", q)
		if code != 0 || quietErr != "" || quietOut != stdout {
			t.Errorf("%s: code %d, stderr %q, stdout equal: %v", q, code, quietErr, quietOut == stdout)
		}
	}
	// A clean request has nothing to say.
	if _, stderr, _ := runCLI(t, `{"messages": [{"role": "user", "content": "Hi"}]}`, "render"); stderr != "" {
		t.Errorf("clean request: stderr %q", stderr)
	}
}

// Unknown keys of the request and of each message: lint names each by its
// JSON path with a suggestion and exits 3; render --strict refuses the
// first; render without --strict renders as if they were absent.
func TestUnknownKeys(t *testing.T) {
	const req = `{"messages": [{"role": "user", "content": "Hi", "tool_call_id ": "x"}, {"role": "assistant", "reasoning_content": "r", "content": "Hello", "toolcalls": []}], "tool": [], "reasoning_efort": "low", "model": "beam"}`
	stdout, stderr, code := runCLI(t, req, "lint")
	if code != 3 || stderr != "" {
		t.Fatalf("lint: code %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		`messages[0]["tool_call_id "]: unknown key, not rendered; did you mean tool_call_id?`,
		`messages[1].toolcalls: unknown key, not rendered; did you mean tool_calls?`,
		`tool: unknown key, not rendered; did you mean tools?`,
		`reasoning_efort: unknown key, not rendered; did you mean reasoning_effort?`,
		`model: unknown key, not rendered; remove it`,
	} {
		if !strings.Contains(stdout, want+"\n") {
			t.Errorf("lint output lacks %q:\n%s", want, stdout)
		}
	}
	_, stderr, code = runCLI(t, req, "render", "--strict")
	if code != 1 || stderr != "beamharmony render: messages[0][\"tool_call_id \"]: unknown key (strict mode); did you mean tool_call_id? (and 4 more unknown keys)\n" {
		t.Errorf("render --strict: code %d, stderr %q", code, stderr)
	}
	got, _, code := runCLI(t, req, "render", "-q")
	want, _, _ := runCLI(t, `{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "reasoning_content": "r", "content": "Hello"}]}`, "render", "-q")
	if code != 0 || got != want {
		t.Errorf("render: code %d; unknown keys changed the prompt:\n%q\n%q", code, got, want)
	}
}

// parse --format openai writes the Chat Completions message shape; pasted
// back into a request with the tool's result, it renders the turn exactly
// as the page's shape does, and the same generation gets the same ids.
func TestParseFormatOpenAI(t *testing.T) {
	gen := "<|channel|>analysis<|message|>Two cities.<|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"city\">\nLondon\n</rfl:parameter><|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"city\">\nParis\n</rfl:parameter><|call|>"
	out, stderr, code := runCLI(t, gen, "parse", "--format", "openai")
	if code != 0 || stderr != "" {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	var msg struct {
		Role             string  `json:"role"`
		Content          *string `json:"content"`
		ReasoningContent string  `json:"reasoning_content"`
		ToolCalls        []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal([]byte(out), &msg); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if msg.Role != "assistant" || msg.Content != nil || msg.ReasoningContent != "Two cities." || len(msg.ToolCalls) != 2 {
		t.Fatalf("message %+v", msg)
	}
	for i, c := range msg.ToolCalls {
		if !strings.HasPrefix(c.ID, "call_") || len(c.ID) != len("call_")+16 || c.Type != "function" || c.Function.Name != "get_weather" {
			t.Errorf("call %d: %+v", i, c)
		}
	}
	if msg.ToolCalls[0].ID == msg.ToolCalls[1].ID || msg.ToolCalls[0].Function.Arguments != `{"city": "London"}` {
		t.Errorf("calls %+v", msg.ToolCalls)
	}
	if again, _, _ := runCLI(t, gen, "parse", "--format", "openai", "--chunk-size", "random:3"); again != out {
		t.Errorf("a second parse, fed in other chunks, differs:\n%s\n%s", again, out)
	}
	page, _, _ := runCLI(t, gen, "parse")
	// The page's shape has no ids: its results name the tool instead.
	history := func(assistant, key, id0, id1 string) string {
		return `{"messages": [{"role": "user", "content": "Weather?"}, ` + strings.TrimSpace(assistant) +
			`, {"role": "tool", "` + key + `": "` + id0 + `", "content": "14 C"}, {"role": "tool", "` + key + `": "` + id1 + `", "content": "18 C"}]}`
	}
	fromOpenAI, stderr, code := runCLI(t, history(out, "tool_call_id", msg.ToolCalls[0].ID, msg.ToolCalls[1].ID), "render")
	if code != 0 || stderr != "" {
		t.Fatalf("render of the openai shape: code %d, stderr %q", code, stderr)
	}
	fromPage, _, _ := runCLI(t, history(page, "name", "get_weather", "get_weather"), "render", "-q")
	if fromOpenAI != fromPage {
		t.Errorf("the two shapes render differently:\n%q\n%q", fromOpenAI, fromPage)
	}
}

// parse -q silences the warning about a missing end marker.
func TestParseQuiet(t *testing.T) {
	gen := "<|channel|>analysis<|message|>Thinking"
	if _, stderr, code := runCLI(t, gen, "parse"); code != 0 || !strings.Contains(stderr, "warning") {
		t.Errorf("without -q: code %d, stderr %q", code, stderr)
	}
	if _, stderr, code := runCLI(t, gen, "parse", "-q"); code != 0 || stderr != "" {
		t.Errorf("-q: code %d, stderr %q", code, stderr)
	}
}
