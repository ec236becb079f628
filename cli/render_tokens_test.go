package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

// render --tokenizer on the page's training-mask example: the masked ids
// decode to the page's output, and the ids are those Encode gives for the
// rendered prompt.
func TestRenderTokenizer(t *testing.T) {
	dir, err := tokgen.BeamDir()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	req := `{"messages": [{"role": "user", "content": "What is 2 + 2?"},
		{"role": "assistant", "reasoning_content": "Simple arithmetic.", "content": "4"}],
		"add_generation_prompt": false}`
	stdout, stderr, code := runCLI(t, req, "render", "--tokenizer", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		InputIDs       []int `json:"input_ids"`
		AssistantMasks []int `json:"assistant_masks"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("output %q: %v", stdout, err)
	}
	if !strings.HasPrefix(stdout, `{"input_ids": [`) || len(got.InputIDs) != len(got.AssistantMasks) {
		t.Fatalf("output shape: %q", stdout)
	}
	var trained []int
	for i, id := range got.InputIDs {
		if got.AssistantMasks[i] == 1 {
			trained = append(trained, id)
		}
	}
	const page = "<|channel|>analysis<|message|>Simple arithmetic.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>"
	if s := tk.Decode(trained, false); s != page {
		t.Errorf("masked tokens decode to %q, want the page's %q", s, page)
	}
	r, err := harmony.ParseRequest([]byte(req))
	if err != nil {
		t.Fatal(err)
	}
	text, err := r.Render()
	if err != nil {
		t.Fatal(err)
	}
	if want := tk.Encode(text).IDs; !slices.Equal(got.InputIDs, want) {
		t.Errorf("ids %v\nwant Encode(prompt) %v", got.InputIDs, want)
	}

	if _, stderr, code := runCLI(t, req, "render", "--tokenizer", t.TempDir()); code != 1 || stderr == "" {
		t.Errorf("a directory without tokenizer.json: exit %d, stderr %q", code, stderr)
	}
	if _, _, code := runCLI(t, req, "render", "--tokenizer", dir, "--spans"); code != 2 {
		t.Errorf("--spans with --tokenizer (a usage error): exit %d, want 2", code)
	}
}
