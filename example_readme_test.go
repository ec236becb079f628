package harmony_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/tokenizer"
)

// Example_readme is the README's library block, compiled (it is not run:
// it loads a checkpoint the repository does not hold).
// TestReadmeLibraryBlock checks that the README shows these lines.
func Example_readme() {
	ctx := context.Background()
	messages := []harmony.Message{{Role: "user", Content: "What's the weather in Paris?"}}
	generated := "<|channel|>analysis<|message|>Call the tool.<|end|>"

	// The README's block, line for line:
	weather := harmony.Tool{Function: harmony.Function{
		Name:       "get_weather",
		Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`),
	}}
	opts := &harmony.Options{Tools: []harmony.Tool{weather}, AddGenerationPrompt: true, RequireReasoning: true}
	prompt, err := harmony.Render(messages, opts)              // the prompt
	p, err := harmony.RenderPrompt(messages, opts)             // plus p.AssistantSpans / p.CharSpans()
	tk, err := tokenizer.Load("path/to/checkpoint")            // package tokenizer: Beam's tokenizer.json
	toks, err := harmony.RenderTokens(ctx, messages, opts, tk) // toks.InputIDs, toks.AssistantMasks (training)
	parsed, err := harmony.Parse(generated, &harmony.ParseOptions{Prefix: prompt, Tools: opts.Tools})

	_, _, _, _, _ = p, toks, parsed, err, tk
}

// The README's library block is Example_readme's, so it compiles against
// the current API.
func TestReadmeLibraryBlock(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "## The library\n\n```go\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("the README has no Go block under ## The library")
	}
	example, err := os.ReadFile("example_readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	var lines []string
	for _, l := range strings.Split(string(example), "\n") {
		lines = append(lines, norm(l))
	}
	for _, l := range strings.Split(block, "\n") {
		if n := norm(l); n != "" && !contains(lines, n) {
			t.Errorf("the README's line %q is not in Example_readme", l)
		}
	}
}

func contains(lines []string, l string) bool {
	for _, x := range lines {
		if x == l {
			return true
		}
	}
	return false
}
