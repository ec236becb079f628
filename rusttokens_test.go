package harmony_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/corpus"
	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

var rustModules = flag.String("rust-modules", "", "compare RenderTokens with Hugging Face's Rust library: the node_modules `DIR` holding npm package tokenizers")

// TestRenderTokensRust compares RenderTokens with what Transformers'
// apply_chat_template(..., tokenize=True, return_assistant_tokens_mask=True)
// computes from the same prompt: the rendered text encoded by Hugging Face's
// Rust library (npm package tokenizers, run by testdata/rusttokens/tokens.js)
// with Beam's tokenizer, and the mask by Transformers' rule over that
// encoding's char_to_token. It covers the format page's requests and 3,000
// generated ones, less those whose text holds marker text, which
// RenderTokens encodes as ordinary text on purpose (DECISIONS.md: Names and
// markers). It runs only with -rust-modules DIR (not in CI: the library is a
// native npm package).
func TestRenderTokensRust(t *testing.T) {
	if *rustModules == "" {
		t.Skip("compares with Hugging Face's Rust library only with -rust-modules DIR")
	}
	beam, err := tokgen.BeamDir()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tokenizer.Load(beam)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		IDs  []int `json:"ids"`
		Mask []int `json:"mask"`
	}
	type rendered struct {
		name   string
		tokens *harmony.Tokens
	}
	type input struct {
		Text  string   `json:"text"`
		Spans [][2]int `json:"spans"`
	}
	var cases []rendered
	var inputs []input
	for _, c := range append(corpus.Page(), corpus.Generate(42, 3000)...) {
		req, err := harmony.ParseRequest(c.JSON)
		if err != nil || len(req.MarkerUses()) > 0 {
			continue
		}
		p, err := req.RenderPrompt()
		if err != nil {
			continue
		}
		toks, err := req.RenderTokens(context.Background(), tk)
		if err != nil {
			t.Fatalf("%s: RenderPrompt rendered, RenderTokens: %v", c.Name, err)
		}
		in := input{Text: p.Text}
		for _, s := range p.CharSpans() {
			in.Spans = append(in.Spans, [2]int{s.Start, s.End})
		}
		cases = append(cases, rendered{c.Name, toks})
		inputs = append(inputs, in)
	}
	dir := t.TempDir()
	raw, err := os.ReadFile(filepath.Join(beam, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cases.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "rusttokens", "tokens.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, dir)
	cmd.Env = append(os.Environ(), "NODE_PATH="+*rustModules)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node tokens.js: %v\n%s", err, out)
	}
	var got []want
	if data, err = os.ReadFile(filepath.Join(dir, "rust.json")); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	diffs, masked := 0, 0
	for i, c := range cases {
		w := got[i]
		switch {
		case !slices.Equal(c.tokens.InputIDs, w.IDs):
			diffs++
			t.Errorf("%s: input_ids differ from the Rust library's encoding of the prompt (%d ids, %d)", c.name, len(c.tokens.InputIDs), len(w.IDs))
		case !slices.Equal(c.tokens.AssistantMasks, w.Mask):
			diffs++
			t.Errorf("%s: assistant_masks differ from Transformers' rule", c.name)
		}
		if slices.Contains(w.Mask, 1) {
			masked++
		}
	}
	t.Logf("%d requests (%d with assistant tokens): %d differ", len(cases), masked, diffs)
}
