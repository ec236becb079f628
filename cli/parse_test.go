package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	pageAnswer = "<|channel|>analysis<|message|>The user is greeting me.<|end|>" +
		"<|start|>assistant<|channel|>final<|message|>Hi! How can I help?<|return|>"
	pageCall = "<|channel|>analysis<|message|>I'll call the weather tool.<|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"city\">\nParis\n</rfl:parameter>\n" +
		"<rfl:parameter name=\"days\">\n3\n</rfl:parameter><|call|>"
	pageParallel = "<|channel|>analysis<|message|>I need both cities.<|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"city\">\nLondon\n</rfl:parameter><|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"city\">\nParis\n</rfl:parameter><|call|>"
	weatherTools = `[{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.", ` +
		`"parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "description": "Forecast length in days"}}, "required": ["city"]}}}]`
)

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The page's parsing examples through the command line, as JSON in the
// page's parse_response shape.
func TestParsePageExamples(t *testing.T) {
	tools := writeTemp(t, "tools.json", weatherTools)
	tests := []struct {
		name, input string
		args        []string
		want        string
	}{
		{"answer", pageAnswer, nil,
			`{"role": "assistant", "thinking": "The user is greeting me.", "content": "Hi! How can I help?"}`},
		{"call without tools", pageCall, nil,
			`{"role": "assistant", "thinking": "I'll call the weather tool.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}}]}`},
		{"call with tools", pageCall, []string{"--tools-file", tools},
			`{"role": "assistant", "thinking": "I'll call the weather tool.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}}]}`},
		{"parallel calls", pageParallel, []string{"--tools-file", tools},
			`{"role": "assistant", "thinking": "I need both cities.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "London"}}}, {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.input, append([]string{"parse"}, tt.args...)...)
			if code != 0 || stderr != "" {
				t.Fatalf("code %d, stderr %q", code, stderr)
			}
			if stdout != tt.want+"\n" {
				t.Errorf("got  %s\nwant %s", stdout, tt.want)
			}
			// Every chunking gives the same message line.
			for _, size := range []string{"1", "3", "random:7"} {
				out, _, _ := runCLI(t, tt.input, append([]string{"parse", "--stream", "--chunk-size", size}, tt.args...)...)
				lines := strings.Split(strings.TrimSpace(out), "\n")
				if last := lines[len(lines)-1]; last != `{"type": "message", "message": `+tt.want+`}` {
					t.Errorf("--chunk-size %s: last line %s", size, last)
				}
			}
		})
	}
}

// The page's stream example: the region_chunk texts per field joined equal
// the page's values, and a prefix file is accepted.
func TestParseStreamEvents(t *testing.T) {
	prefix := writeTemp(t, "prompt.txt", "<|start|>system<|message|>x<|end|><|start|>user<|message|>Hello!<|end|><|start|>assistant")
	stdout, stderr, code := runCLI(t, pageAnswer, "parse", "--stream", "--chunk-size", "5", "--prefix-file", prefix)
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if lines[0] != `{"type": "region_open", "field": "thinking"}` {
		t.Errorf("first event %s", lines[0])
	}
	for _, want := range []string{
		`{"type": "region_close", "field": "thinking", "value": "The user is greeting me."}`,
		`{"type": "region_open", "field": "content"}`,
		`{"type": "region_close", "field": "content", "value": "Hi! How can I help?"}`,
	} {
		if !strings.Contains(stdout, want+"\n") {
			t.Errorf("no event %s in\n%s", want, stdout)
		}
	}
}

func TestParseErrors(t *testing.T) {
	input := "<|channel|>analysis<|message|>x<|end|><|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"a\">\nopen"
	stdout, stderr, code := runCLI(t, input, "parse")
	if code != 1 {
		t.Fatalf("code %d", code)
	}
	if stdout != `{"role": "assistant", "thinking": "x"}`+"\n" {
		t.Errorf("partial message %q", stdout)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "offset ") {
		t.Errorf("stderr %q", stderr)
	}
	if _, _, code := runCLI(t, pageAnswer, "parse", "--chunk-size", "zero"); code == 0 {
		t.Error("bad --chunk-size accepted")
	}
	if _, _, code := runCLI(t, pageAnswer, "parse", "--tools-file", "missing.json"); code != 1 {
		t.Errorf("missing tools file: code %d", code)
	}
}

// A tools file is decoded as a request's tools: a key nothing reads is a
// warning naming the file and the key (a misspelt parameters would leave
// every argument a string), -q silences it, and a bad tool is an error
// naming its path.
func TestParseToolsFileKeys(t *testing.T) {
	misspelt := writeTemp(t, "tools.json", `[{"type": "function", "function": {"name": "get_weather", "paramters": {"type": "object", "properties": {"days": {"type": "integer"}}}}, "x": 1}]`)
	stdout, stderr, code := runCLI(t, pageCall, "parse", "--tools-file", misspelt)
	want := "beamharmony parse: warning: " + misspelt + ": tools[0].x: unknown key, not read; remove it\n" +
		"beamharmony parse: warning: " + misspelt + ": tools[0].function.paramters: unknown key, not read; did you mean parameters?\n"
	if code != 0 || !strings.HasPrefix(stderr, want) || !strings.Contains(stdout, `"days": "3"`) {
		t.Errorf("code %d, stdout %q, stderr %q; want the warnings:\n%s", code, stdout, stderr, want)
	}
	if _, stderr, code := runCLI(t, pageCall, "parse", "-q", "--tools-file", misspelt); code != 0 || stderr != "" {
		t.Errorf("-q: code %d, stderr %q", code, stderr)
	}
	bad := writeTemp(t, "bad.json", `[{"type": "function", "function": {"name": 7}}]`)
	if _, stderr, code := runCLI(t, pageCall, "parse", "--tools-file", bad); code != 1 || stderr != "beamharmony parse: "+bad+": tools[0].function.name: must be a string, got number\n" {
		t.Errorf("bad tool: code %d, stderr %q", code, stderr)
	}
}
