package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// openAIRow is a conversation in the OpenAI wire shape, as logged and
// synthetic datasets hold it: arguments as JSON strings, tools as a JSON
// string when stringify is set. objects is the same row with both as JSON.
func openAIRow(i int, stringTools bool) (row, objects string) {
	tools := `[{"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}]`
	args := fmt.Sprintf(`{"city": "City %d", "days": %d}`, i, i%5+1)
	quotedArgs, _ := json.Marshal(args)
	quotedTools, _ := json.Marshal(tools)
	msgs := `[{"role": "user", "content": "Weather %d?"}, {"role": "assistant", "reasoning_content": "Look it up.", "tool_calls": [{"id": "c%d", "type": "function", "function": {"name": "get_weather", "arguments": %s}}]}, {"role": "tool", "tool_call_id": "c%d", "content": "sunny"}, {"role": "assistant", "reasoning_content": "Answer.", "content": "Sunny."}]`
	toolsField := tools
	if stringTools {
		toolsField = string(quotedTools)
	}
	row = fmt.Sprintf(`{"id": %d, "messages": `+msgs+`, "tools": %s}`, i, i, i, quotedArgs, i, toolsField)
	objects = fmt.Sprintf(`{"id": %d, "messages": `+msgs+`, "tools": %s}`, i, i, i, args, i, tools)
	return row, objects
}

// TestOpenAIShapeRows: a dataset in the OpenAI shape (arguments and tools
// as JSON strings) renders with no rejects, each row as its objects would;
// a string that holds no object is a reject saying so (issue 18, item 1).
func TestOpenAIShapeRows(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "openai.jsonl")
	var lines, want [][]byte
	for i := range 20 {
		row, objects := openAIRow(i, i%2 == 0)
		lines = append(lines, []byte(row))
		want = append(want, []byte(objects))
	}
	writeInput(t, in, lines)
	c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl")}
	st, err := Run(context.Background(), c)
	if err != nil || st.RowsRejected != 0 || st.RowsWritten != 20 || st.Failed {
		t.Fatalf("Run: %v, %+v", err, st)
	}
	got := readOutput(t, c.Output)
	for i, w := range want {
		e := expect(w, harmony.ReasoningEffort{})
		if e.err != "" || got[i].Text != e.text {
			t.Fatalf("row %d: %q\nwant the objects' rendering %q (%s)", i, got[i].Text, e.text, e.err)
		}
	}

	bad := filepath.Join(dir, "bad.jsonl")
	row, _ := openAIRow(0, true)
	args, _ := json.Marshal(`{"city": "City 0", "days": 1}`)
	if !strings.Contains(row, string(args)) {
		t.Fatalf("row %s lacks the arguments %s", row, args)
	}
	row = strings.Replace(row, string(args), `"[1, 2]"`, 1)
	writeInput(t, bad, [][]byte{[]byte(row)})
	c = Config{Inputs: []string{bad}, Output: filepath.Join(dir, "bad-out.jsonl"), MaxRejects: mustLimit(t, "100%")}
	if st, err = Run(context.Background(), c); err != nil || st.RowsRejected != 1 {
		t.Fatalf("Run: %v, %+v", err, st)
	}
	rej := readRejects(t, DefaultRejectsPath(c.Output))
	const reason = "messages[1].tool_calls[0].function.arguments: must be a JSON object, got a list as JSON text in a string"
	if len(rej) != 1 || !strings.HasPrefix(rej[0].Error, reason) {
		t.Fatalf("rejects %+v; want the reason %s", rej, reason)
	}
}
