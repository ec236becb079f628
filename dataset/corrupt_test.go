package dataset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorruptParquet: a Parquet file damaged in its pages or cut short is
// an error naming the file, never a crash.
func TestCorruptParquet(t *testing.T) {
	dir := t.TempDir()
	// The first three of hfRows 200 times, 100 rows per row group, snappy,
	// written by parquet-go (conformance/parquetgo).
	data, err := os.ReadFile(filepath.Join("testdata", "parquet", "hf-600.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{len(data) / 5, len(data) / 3, len(data) / 2} {
		damaged := append([]byte(nil), data...)
		for i := at; i < at+64 && i < len(damaged); i++ {
			damaged[i] ^= 0x5a
		}
		p := filepath.Join(dir, "damaged.parquet")
		os.WriteFile(p, damaged, 0o644)
		st, err := Run(context.Background(), Config{Inputs: []string{p}, Output: filepath.Join(dir, "out.jsonl"), MessagesColumn: "conversations", Force: true})
		t.Logf("damage at %d: %v (%d read, %d written)", at, err, st.RowsRead, st.RowsWritten)
		if err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("damage at %d: error %q does not name the file", at, err)
		}
		if st.RowsRead != st.RowsWritten+st.RowsRejected {
			t.Fatalf("damage at %d: rows read %d != written %d + rejected %d", at, st.RowsRead, st.RowsWritten, st.RowsRejected)
		}
	}
	cut := filepath.Join(dir, "cut.parquet")
	os.WriteFile(cut, data[:len(data)/2], 0o644)
	if _, err := Run(context.Background(), Config{Inputs: []string{cut}, Output: filepath.Join(dir, "out2.jsonl")}); err == nil || !strings.Contains(err.Error(), cut) {
		t.Fatalf("a cut Parquet file: error %v", err)
	}
}
