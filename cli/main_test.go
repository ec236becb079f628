package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// runCLI runs the command line in-process.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// The page's outputs (pageOutputs) appear byte for byte in what render
// prints for the example requests; the whole prompt equals the library's.
func TestRenderExamples(t *testing.T) {
	pageOutputs := map[string]string{
		"hello.json":              "<|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.\n\nReasoning effort: 512\n\n# Valid channels: analysis, final. Channel must be included for every message.<|end|><|start|>user<|message|>Hello!<|end|><|start|>assistant",
		"effort_low.json":         "\nReasoning effort: 32\n",
		"effort_100.json":         "\nReasoning effort: 100\n",
		"reasoning_missing.json":  "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>analysis<|message|><|end|><|start|>assistant<|channel|>final<|message|>Hello!<|return|><|start|>user<|message|>How are you?<|end|><|start|>assistant",
		"reasoning_restored.json": "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>analysis<|message|>The user is greeting me.<|end|><|start|>assistant<|channel|>final<|message|>Hello!<|return|><|start|>user<|message|>How are you?<|end|><|start|>assistant",
		"weather_tool_loop.json":  "<|start|>assistant<|channel|>analysis<|message|>I should check the weather tool.<|end|><|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"city\">\nLondon\n</rfl:parameter><|call|><|start|>get_weather to=assistant<|channel|>analysis<|message|>14 C, cloudy<|end|><|start|>assistant",
	}
	files, err := filepath.Glob("../examples/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runCLI(t, "", "render", f)
			req, err := harmony.ParseRequest(data)
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := req.Render()
			if wantErr != nil {
				if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, wantErr.Error()) {
					t.Errorf("error case: code %d, stdout %q, stderr %q", code, stdout, stderr)
				}
				return
			}
			// Warnings are lint's, one line each.
			var wantStderr strings.Builder
			for _, w := range req.Lint() {
				wantStderr.WriteString("beamharmony render: warning: " + w.String() + "\n")
			}
			if code != 0 || stderr != wantStderr.String() {
				t.Fatalf("code %d, stderr %q, want %q", code, stderr, wantStderr.String())
			}
			if stdout != want {
				t.Errorf("CLI output differs from the library's:\n%q\n%q", stdout, want)
			}
			if page, ok := pageOutputs[filepath.Base(f)]; ok && !strings.Contains(stdout, page) {
				t.Errorf("output lacks the page's text %q", page)
			}
		})
	}
}

func TestRenderStdinAndSpans(t *testing.T) {
	const req = `{"messages": [{"role": "user", "content": "What is 2 + 2?"}, {"role": "assistant", "reasoning_content": "Simple arithmetic.", "content": "é4"}], "add_generation_prompt": false}`
	stdout, stderr, code := runCLI(t, req, "render", "--spans")
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	var got struct {
		Prompt string  `json:"prompt"`
		Spans  [][]int `json:"assistant_spans"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if len(got.Spans) != 1 {
		t.Fatalf("spans %v", got.Spans)
	}
	runes := []rune(got.Prompt)
	const want = "<|channel|>analysis<|message|>Simple arithmetic.<|end|><|start|>assistant<|channel|>final<|message|>é4<|return|>"
	if s := string(runes[got.Spans[0][0]:got.Spans[0][1]]); s != want {
		t.Errorf("span text %q, want %q", s, want)
	}
	plain, _, _ := runCLI(t, req, "render", "-")
	if plain != got.Prompt {
		t.Errorf("--spans prompt differs from the plain prompt")
	}
}

func TestStrictFlag(t *testing.T) {
	const req = `{"messages": [{"role": "user", "content": "a"}, {"role": "system", "content": "late"}]}`
	if _, stderr, code := runCLI(t, req, "render"); code != 0 {
		t.Fatalf("default: code %d %s", code, stderr)
	}
	_, stderr, code := runCLI(t, req, "render", "--strict")
	if code != 1 || !strings.HasPrefix(stderr, "beamharmony render: messages[1].role: ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("strict: code %d, stderr %q", code, stderr)
	}
}

func TestErrorsAreOneLine(t *testing.T) {
	for _, in := range []string{`not json`, `{"messages": [{"role": "user", "content": "a\u0000"}], "reasoning_effort": 1.5}`, "\xff", `[]`, ``} {
		stdout, stderr, code := runCLI(t, in, "render")
		if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "goroutine") {
			t.Errorf("input %q: code %d, stdout %q, stderr %q", in, code, stdout, stderr)
		}
	}
	if _, stderr, code := runCLI(t, "", "render", "does-not-exist.json"); code != 1 || !strings.Contains(stderr, "does-not-exist.json") {
		t.Errorf("missing file: %d %q", code, stderr)
	}
}

func TestLintExitCodes(t *testing.T) {
	if out, _, code := runCLI(t, `{"messages": [{"role": "user", "content": "hi"}]}`, "lint"); code != 0 || out != "" {
		t.Errorf("clean: code %d, out %q", code, out)
	}
	out, _, code := runCLI(t, `{"messages": [{"role": "user", "content": "hi"}, {"role": "developer", "content": "x"}], "reasoning_effort": 2}`, "lint")
	if code != 3 || strings.Count(out, "\n") != 2 {
		t.Errorf("warnings: code %d, out %q", code, out)
	}
	if _, _, code := runCLI(t, `{"messages": [], "reasoning_effort": "none"}`, "lint"); code != 1 {
		t.Errorf("render error: code %d", code)
	}
}

func TestHelp(t *testing.T) {
	for _, cmd := range allCommands() {
		out, _, code := runCLI(t, "", cmd.name, "--help")
		if code != 0 || !strings.Contains(out, "beamharmony "+cmd.name) || !strings.Contains(strings.ToLower(out), "example") {
			t.Errorf("%s --help: code %d, output %q", cmd.name, code, out)
		}
	}
	if out, _, code := runCLI(t, "", "--help"); code != 0 || !strings.Contains(out, "render") {
		t.Errorf("--help: %d %q", code, out)
	}
	if _, _, code := runCLI(t, "", "frobnicate"); code != 2 {
		t.Errorf("unknown command: code %d", code)
	}
}
