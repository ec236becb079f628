package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/tokenizer"
)

// The stand-in loads, carries Beam's markers as single tokens, renders a
// request to token ids whose text is the prompt, and says it is a
// stand-in; a directory holding another tokenizer is not overwritten.
func TestStandInTokenizer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "standin")
	var stderr bytes.Buffer
	if code := run([]string{dir}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stand-in") {
		t.Errorf("the command does not say it wrote a stand-in: %q", stderr.String())
	}
	tk, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, mk := range []string{"<|start|>", "<|channel|>", "<|constrain|>", "<|message|>", "<|end|>", "<|call|>", "<|return|>"} {
		if _, ok := tk.TokenToID(mk); !ok {
			t.Errorf("no token for %s", mk)
		}
	}
	req, err := harmony.ParseRequest([]byte(`{"messages": [{"role": "user", "content": "Hello!"}, {"role": "assistant", "reasoning_content": "A greeting.", "content": "Hi!"}], "add_generation_prompt": false}`))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := req.Render()
	toks, err := req.RenderTokens(context.Background(), tk)
	if err != nil {
		t.Fatal(err)
	}
	if got := tk.Decode(toks.InputIDs, false); got != text {
		t.Errorf("the ids decode to\n%q\nwant the prompt\n%q", got, text)
	}
	var cfg map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "tokenizer_config.json"))
	if json.Unmarshal(data, &cfg) != nil || cfg[standInKey] == nil {
		t.Errorf("tokenizer_config.json does not say it is a stand-in")
	}
	if _, err := os.Stat(filepath.Join(dir, "STAND-IN.txt")); err != nil {
		t.Error(err)
	}
	// Again into the same directory: a stand-in is replaced.
	if code := run([]string{dir}, &stderr); code != 0 {
		t.Errorf("rewriting a stand-in: exit %d", code)
	}
	// A real tokenizer's directory is left alone.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "tokenizer_config.json"), []byte(`{"model_max_length": 131072}`), 0o644)
	stderr.Reset()
	if code := run([]string{other}, &stderr); code != 1 || !strings.Contains(stderr.String(), "not a stand-in") {
		t.Errorf("over another tokenizer: exit %d, %q", code, stderr.String())
	}
	if code := run(nil, &stderr); code != 2 {
		t.Errorf("without DIR: exit %d, want 2", code)
	}
}

// The README's two lines for the stand-in are these: the command and a
// render with it.
func TestReadmeStandIn(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"go run ./cmd/standin-tokenizer standin\n",
		"| ./beamharmony render --tokenizer standin\n",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the README lacks %q", want)
		}
	}
}
