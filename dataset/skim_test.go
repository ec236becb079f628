package dataset

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/beamharmony/harmony"
)

// TestColumnsFoundBySkim: the id and renamed columns are found by a skim of
// the row's members, so every row that the parse reads the same way must
// come out as it did when the row was parsed for them: escaped keys, a
// repeated id (the last wins), a row that only the parse sees is not JSON
// (its error names the row's own text), a row left without messages, and a
// row the skim refuses.
func TestColumnsFoundBySkim(t *testing.T) {
	const conv = `[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello", "reasoning_content": "greet"}]`
	lines := [][]byte{
		[]byte(`{"u\u0069d": "e1", "conv\u0065rsations": ` + conv + `}`),
		[]byte(`{"uid": "a", "conversations": ` + conv + `, "uid": "b"}`),
		[]byte(`{"uid": "bad", "conversations": ` + conv + `, "n": 01}`),
		[]byte(`{"uid": "m", "messages": ` + conv + `}`),
		[]byte(`{"uid": "z", "conversations": ` + conv),
		[]byte("{\"uid\": \"c\", \"conversations\": " + conv + ", \"x\": \"\xff\"}"),
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	writeInput(t, in, lines)
	c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), MessagesColumn: "conversations", IDColumn: "uid"}
	st, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if st.RowsWritten != 2 || st.RowsRejected != 4 {
		t.Fatalf("%+v", st)
	}
	if ids, want := readIDs(t, c.Output, "uid"), []string{`"e1"`, `"b"`}; !slices.Equal(ids, want) {
		t.Fatalf("ids %v, want %v", ids, want)
	}
	// The errors of the rows that are not JSON are those of the rows as
	// they are, not as renamed.
	parseError := func(line []byte) string {
		_, err := harmony.ParseRequest(line)
		if err == nil {
			t.Fatalf("%q parses", line)
		}
		return err.Error()
	}
	want := []rejectLine{
		{Line: 3, Error: parseError(lines[2])},
		{Line: 4, Error: "messages: required, a list of messages"},
		{Line: 5, Error: parseError(lines[4])},
		{Line: 6, Error: parseError(lines[5])},
	}
	rej := readRejects(t, DefaultRejectsPath(c.Output))
	if len(rej) != len(want) {
		t.Fatalf("rejects %+v, want %+v", rej, want)
	}
	for i := range want {
		if rej[i].Line != want[i].Line || rej[i].Error != want[i].Error {
			t.Errorf("reject %d: line %d %q, want line %d %q", i, rej[i].Line, rej[i].Error, want[i].Line, want[i].Error)
		}
	}
}
