package dataset

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestThinkTags: with ThinkTags, assistant messages whose content starts
// with <think>...</think> render as the same messages with that text in
// reasoning_content, in the OpenAI shape, ShareGPT's and TRL's
// prompt-completion; a message with a reasoning field keeps its content;
// without the option such rows are rejects that say to pass --think-tags
// (gap decision 285).
func TestThinkTags(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "think.jsonl")
	writeInput(t, in, [][]byte{
		[]byte(`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "<think>\nA greeting.\n</think>\n\nHello"}]}`),
		[]byte(`{"prompt": [{"role": "user", "content": "2+2?"}], "completion": [{"role": "assistant", "content": "  <think>Add.</think>4"}]}`),
		[]byte(`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "<think>kept</think>Hello", "reasoning_content": "Given."}]}`),
	})
	share := filepath.Join(dir, "think-sharegpt.jsonl")
	writeInput(t, share, [][]byte{
		[]byte(`{"conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "<think>\nA greeting.\n</think>\n\nHello"}]}`),
	})
	ref := filepath.Join(dir, "ref.jsonl")
	writeInput(t, ref, [][]byte{
		[]byte(`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello", "reasoning_content": "A greeting."}]}`),
		[]byte(`{"messages": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4", "reasoning_content": "Add."}]}`),
		[]byte(`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "<think>kept</think>Hello", "reasoning_content": "Given."}]}`),
	})
	run := func(c Config) []outRow {
		t.Helper()
		c.Output = filepath.Join(t.TempDir(), "out.jsonl")
		c.MaxRejects = mustLimit(t, "100%")
		if _, err := Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		return readOutput(t, c.Output)
	}
	want := run(Config{Inputs: []string{ref}})
	got := run(Config{Inputs: []string{in}, ThinkTags: true})
	if len(got) != 3 || len(want) != 3 {
		t.Fatalf("%d and %d rows", len(got), len(want))
	}
	for i := range want {
		if got[i].Text != want[i].Text {
			t.Errorf("row %d:\n%s\nwant:\n%s", i, got[i].Text, want[i].Text)
		}
	}
	if g := run(Config{Inputs: []string{share}, MessagesColumn: "conversations", MessagesFormat: FormatShareGPT, ThinkTags: true}); len(g) != 1 || g[0].Text != want[0].Text {
		t.Errorf("ShareGPT: %+v", g)
	}
	// Without the option: the first two are rejects that say what to pass.
	out := filepath.Join(dir, "plain.jsonl")
	if _, err := Run(context.Background(), Config{Inputs: []string{in}, Output: out, MaxRejects: mustLimit(t, "100%")}); err != nil {
		t.Fatal(err)
	}
	rejects := readRejects(t, DefaultRejectsPath(out))
	if len(rejects) != 2 {
		t.Fatalf("%d rejects: %+v", len(rejects), rejects)
	}
	for _, r := range rejects {
		if !strings.Contains(r.Error, "pass --think-tags") {
			t.Errorf("reject without the hint: %s", r.Error)
		}
	}
}

func TestSplitThink(t *testing.T) {
	for _, c := range []struct {
		in, reasoning, answer string
		ok                    bool
	}{
		{"<think>r</think>a", "r", "a", true},
		{"\n <think>\n r \n</think>\n\n a ", "r", "a ", true},
		{"<think></think>a", "", "a", true},
		{"a <think>r</think>", "", "", false},
		{"<think>unclosed", "", "", false},
		{"", "", "", false},
	} {
		r, a, ok := splitThink(c.in)
		if r != c.reasoning || a != c.answer || ok != c.ok {
			t.Errorf("splitThink(%q) = %q, %q, %v; want %q, %q, %v", c.in, r, a, ok, c.reasoning, c.answer, c.ok)
		}
	}
}

// FuzzThinkTags: reading <think> blocks never panics, and what it returns
// for a JSON row is JSON.
func FuzzThinkTags(f *testing.F) {
	for _, s := range []string{
		`{"messages": [{"role": "assistant", "content": "<think>r</think>a"}]}`,
		`{"messages": [{"role": "assistant", "content": "<think>r", "thinking": ""}]}`,
		`{"messages": [{"role": "assistant", "content": null}, 1]}`, `{"messages": 5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, row []byte) {
		out, err := fromThinkTags(row)
		if err == nil && json.Valid(row) && !json.Valid(out) {
			t.Fatalf("not JSON: %s", out)
		}
	})
}
