package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// TestMissingReasoning: a row with an assistant turn (an answer or a call)
// without reasoning is rejected by default, the reason naming the message;
// AllowMissingThinking renders it as the template does, an empty analysis
// message. Both count such turns and rows in the stats, the summary and the
// manifest; the row's own allow_missing_thinking changes nothing (issue 18,
// item 3).
func TestMissingReasoning(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "reasoning_content": "Greet.", "content": "Hello!"}]}`),
		[]byte(`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}], "allow_missing_thinking": true}`),
		[]byte(`{"messages": [{"role": "user", "content": "Weather?"}, {"role": "assistant", "reasoning_content": "", "tool_calls": [{"id": "c", "function": {"name": "w", "arguments": {}}}]}, ` +
			`{"role": "tool", "tool_call_id": "c", "content": "sun"}, {"role": "assistant", "thinking": null, "content": "Sunny."}]}`),
	}
	reasons := []string{
		"messages[1]: assistant turn without reasoning; it would train the model on an empty analysis message, which Beam never writes: " +
			"put the reasoning in reasoning_content, or pass --allow-missing-thinking to render it as the template does",
		"messages[1]: assistant turn without reasoning (and 1 more in this row); it would train the model on an empty analysis message, which Beam never writes: " +
			"put the reasoning in reasoning_content, or pass --allow-missing-thinking to render it as the template does",
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	writeInput(t, in, lines)
	for _, allow := range []bool{false, true} {
		c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), AllowMissingThinking: allow,
			MaxRejects: mustLimit(t, "100%"), Stats: filepath.Join(dir, "stats.json"), Force: true}
		st, err := Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if st.RowsWithoutReasoning != 2 || st.TurnsWithoutReasoning != 3 || st.AllowMissingThinking != allow {
			t.Fatalf("allow %v: stats %+v; want 2 rows and 3 turns without reasoning", allow, st)
		}
		var sum bytes.Buffer
		st.WriteSummary(&sum, false)
		rej := readRejects(t, DefaultRejectsPath(c.Output))
		out := readOutput(t, c.Output)
		if !allow {
			if len(rej) != 2 || rej[0].Line != 2 || rej[0].Error != reasons[0] || rej[1].Line != 3 || rej[1].Error != reasons[1] || len(out) != 1 {
				t.Fatalf("default: rejects %+v, %d rows; want lines 2 and 3 rejected with\n%s\n%s", rej, len(out), reasons[0], reasons[1])
			}
			if !strings.Contains(sum.String(), "3 assistant turns without reasoning in 2 rows: rows rejected (--allow-missing-thinking renders them as the template does)\n") {
				t.Errorf("summary:\n%s", sum.String())
			}
		} else {
			if len(rej) != 0 || len(out) != 3 {
				t.Fatalf("allowed: %d rejects, %d rows; want none and 3", len(rej), len(out))
			}
			for i, l := range lines {
				if e := expectRow(l, harmony.ReasoningEffort{}, true); out[i].Text != e.text {
					t.Errorf("row %d: %q; want %q", i, out[i].Text, e.text)
				}
			}
			if !strings.Contains(out[1].Text, "<|start|>assistant<|channel|>analysis<|message|><|end|>") {
				t.Errorf("row 1 has no empty analysis message: %q", out[1].Text)
			}
			if !strings.Contains(sum.String(), "3 assistant turns without reasoning in 2 rows: rendered as empty analysis messages (--allow-missing-thinking)\n") {
				t.Errorf("summary:\n%s", sum.String())
			}
		}
		var man Manifest
		data, _ := os.ReadFile(ManifestPath(c.Output))
		if json.Unmarshal(data, &man) != nil || man.RowsWithoutReasoning != 2 || man.TurnsWithoutReasoning != 3 || man.Options.AllowMissingThinking != allow {
			t.Errorf("manifest %s", data)
		}
		var sj map[string]any
		data, _ = os.ReadFile(c.Stats)
		if json.Unmarshal(data, &sj) != nil || sj["turns_without_reasoning"] != 3.0 || sj["rows_without_reasoning"] != 2.0 || sj["allow_missing_thinking"] != allow {
			t.Errorf("stats file %s", data)
		}
		// The other setting makes another part: the run is not skipped.
		c.AllowMissingThinking, c.Force = !allow, false
		if _, err := Run(context.Background(), c); errors.Is(err, ErrUpToDate) {
			t.Errorf("allow %v: a rerun with the other setting was skipped", allow)
		}
	}
}
