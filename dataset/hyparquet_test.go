package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/beamharmony/harmony"
)

func rowGroups(t *testing.T, path string) int {
	t.Helper()
	return len(parquetFooter(t, path).rowGroups)
}

// readWithHyparquet reads a Parquet file with hyparquet, a reader written
// in JavaScript (testdata/js), and returns its rows. Without node or the
// package the test is skipped, except under CI, where it fails.
func readWithHyparquet(t *testing.T, path string) []map[string]json.RawMessage {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat("testdata/js/node_modules/hyparquet/package.json")
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node and hyparquet are required under CI (npm ci in dataset/testdata/js): %v", err)
		}
		t.Skipf("no node or hyparquet (run npm ci in dataset/testdata/js): %v", err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(node, "testdata/js/read.mjs", path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hyparquet: %v\n%s", err, stderr.Bytes())
	}
	var rows []map[string]json.RawMessage
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("hyparquet output: %v", err)
	}
	return rows
}

// TestHyparquetReadsOutput: another implementation reads the Parquet output
// back, over several row groups, and every row equals the library's.
func TestHyparquetReadsOutput(t *testing.T) {
	defer func(n int64) { rowGroupBytes = n }(rowGroupBytes)
	rowGroupBytes = 64 << 10
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	lines := corpusLines(t, 3, 400)
	for i, l := range lines {
		// An id column: a string on most rows, absent on others (integer
		// ids: TestIDTypesKept).
		switch i % 7 {
		case 0:
			lines[i] = append([]byte(`{"id": "12", `), l[1:]...)
		case 1:
		default:
			lines[i] = append([]byte(`{"id": "row-`+string(rune('a'+i%26))+`", `), l[1:]...)
		}
	}
	writeInput(t, in, lines)
	c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.parquet"), IDColumn: "id"}
	st, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if groups := rowGroups(t, c.Output); groups < 3 {
		t.Fatalf("%d row groups; the test wants several", groups)
	}
	rows := readWithHyparquet(t, c.Output)
	if int64(len(rows)) != st.RowsWritten {
		t.Fatalf("hyparquet read %d rows, %d written", len(rows), st.RowsWritten)
	}
	n := 0
	for _, l := range lines {
		e := expect(l, harmony.ReasoningEffort{})
		if e.err != "" {
			continue
		}
		r := rows[n]
		var text string
		var spans [][2]int
		if err := json.Unmarshal(r["text"], &text); err != nil || text != e.text {
			t.Fatalf("row %d: text %s differs from the library's", n, r["text"])
		}
		if err := json.Unmarshal(r["assistant_spans"], &spans); err != nil || !slices.Equal(spans, e.spans) {
			t.Fatalf("row %d: spans %s, want %v", n, r["assistant_spans"], e.spans)
		}
		var wantID string
		switch {
		case bytes.HasPrefix(l, []byte(`{"id": "`)):
			wantID = string(l[len(`{"id": `) : bytes.IndexByte(l[8:], '"')+9])
		default:
			wantID = "null"
		}
		if string(r["id"]) != wantID {
			t.Fatalf("row %d: id %s, want %s", n, r["id"], wantID)
		}
		n++
	}
}
