package dataset

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestPromptCompletion: TRL's conversational prompt-completion rows render
// as the conversation prompt then completion written as messages, from
// JSONL and from Parquet; a prompt holding an assistant turn and the text
// form are rejects saying why (gap decision 284).
func TestPromptCompletion(t *testing.T) {
	dir := t.TempDir()
	type row struct{ prompt, completion string }
	good := []row{
		{`[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]`, `[{"role": "assistant", "content": "Hello", "reasoning_content": "A greeting."}]`},
		{`[{"role": "user", "content": "Weather?"}]`, `[{"role": "assistant", "reasoning_content": "Call it.", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "w", "arguments": {}}}]}, ` +
			`{"role": "tool", "tool_call_id": "a", "content": "14 C"}, {"role": "assistant", "content": "14 C.", "reasoning_content": "Done."}]`},
	}
	bad := []struct {
		row  row
		want string
	}{
		{row{`[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello", "reasoning_content": "r"}, {"role": "user", "content": "Again"}]`, `[{"role": "assistant", "content": "Hi again", "reasoning_content": "r"}]`},
			"prompt[1]: an assistant turn in the prompt would be in assistant_masks"},
		{row{`"Hi"`, `"Hello"`}, "prompt, completion: text (TRL's standard prompt-completion form)"},
		{row{`[{"role": "user", "content": "Hi"}]`, `[]`}, "completion: empty"},
	}
	var lines, want [][]byte
	var cols [][]*string
	for _, r := range append(good, bad[0].row, bad[1].row, bad[2].row) {
		lines = append(lines, []byte(`{"prompt": `+r.prompt+`, "completion": `+r.completion+`}`))
		p, c := r.prompt, r.completion
		cols = append(cols, []*string{&p, &c})
	}
	for _, r := range good {
		want = append(want, []byte(`{"messages": `+r.prompt[:len(r.prompt)-1]+", "+r.completion[1:]+`}`))
	}
	jsonl := filepath.Join(dir, "pc.jsonl")
	writeInput(t, jsonl, lines)
	pq := filepath.Join(dir, "pc.parquet")
	writeStringColumns(t, pq, []string{"prompt", "completion"}, []bool{false, false}, cols, 10)
	ref := filepath.Join(dir, "messages.jsonl")
	writeInput(t, ref, want)
	refOut := filepath.Join(dir, "messages-out.jsonl")
	if _, err := Run(context.Background(), Config{Inputs: []string{ref}, Output: refOut}); err != nil {
		t.Fatal(err)
	}
	wantRows := readOutput(t, refOut)
	if len(wantRows) != len(good) {
		t.Fatalf("the messages form: %d rows", len(wantRows))
	}
	for _, in := range []string{jsonl, pq} {
		t.Run(filepath.Ext(in), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.jsonl")
			st, err := Run(context.Background(), Config{Inputs: []string{in}, Output: out, MaxRejects: mustLimit(t, "100%")})
			if err != nil {
				t.Fatal(err)
			}
			got := readOutput(t, out)
			if len(got) != len(wantRows) {
				t.Fatalf("%d rows written, want %d (rejects %v)", len(got), len(wantRows), st.RejectsByError)
			}
			for i := range wantRows {
				if got[i].Text != wantRows[i].Text || len(got[i].AssistantSpans) != len(wantRows[i].AssistantSpans) {
					t.Errorf("row %d:\n%s\nwant (the messages form's):\n%s", i, got[i].Text, wantRows[i].Text)
				}
			}
			if len(st.UnknownKeys) != 0 {
				t.Errorf("unknown keys %v", st.UnknownKeys)
			}
			rejects := readRejects(t, DefaultRejectsPath(out))
			if len(rejects) != len(bad) {
				t.Fatalf("%d rejects, want %d: %+v", len(rejects), len(bad), rejects)
			}
			for i, b := range bad {
				if !strings.Contains(rejects[i].Error, b.want) {
					t.Errorf("reject %d: %s, want %s", i, rejects[i].Error, b.want)
				}
			}
		})
	}
}

// FuzzPromptCompletion: reading a row as prompt and completion never
// panics, and a row it reads is JSON with messages.
func FuzzPromptCompletion(f *testing.F) {
	for _, s := range []string{
		`{"prompt": [{"role": "user", "content": "Hi"}], "completion": [{"role": "assistant", "content": "Hello"}]}`,
		`{"prompt": "Hi", "completion": "Hello"}`, `{"prompt": [{"role": "assistant"}], "completion": [1]}`,
		`{"messages": [], "prompt": [], "completion": []}`, `[]`, `{"prompt": null, "completion": {}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, row []byte) {
		out, ok, err := fromPromptCompletion(row)
		if ok && err == nil && !strings.Contains(string(out), `"messages"`) {
			t.Fatalf("read without messages: %s", out)
		}
	})
}
