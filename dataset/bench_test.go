package dataset

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/beamharmony/harmony/dataset/benchdata"
)

// writeBenchInput writes about size bytes of benchmark rows as JSONL.
func writeBenchInput(b *testing.B, path string, size int64) int64 {
	b.Helper()
	lines, err := benchdata.Lines("../testdata/bench/realistic_request.json")
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var n int64
	for i := 0; n < size; i++ {
		l := lines[i%len(lines)]
		w.Write(l)
		w.WriteByte('\n')
		n += int64(len(l)) + 1
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return n
}

// BenchmarkRun renders 64 MB of JSONL training rows to JSONL and to
// Parquet text output, with one worker and with GOMAXPROCS workers.
// MB/s is of JSONL input. The corpus has assistant turns without
// reasoning, rendered as the template does (--allow-missing-thinking), so
// that every row is rendered and written.
func BenchmarkRun(b *testing.B) {
	dir := b.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	size := writeBenchInput(b, in, 64<<20)
	for _, out := range []string{"out.jsonl", "out.parquet"} {
		for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("%s/workers=%d", out, workers), func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				for b.Loop() {
					st, err := Run(context.Background(), Config{Inputs: []string{in}, Output: filepath.Join(dir, out), Workers: workers, Force: true, AllowMissingThinking: true})
					if err != nil || st.RowsRejected != 0 {
						b.Fatalf("%v, %d rejects", err, st.RowsRejected)
					}
				}
			})
		}
	}
}
