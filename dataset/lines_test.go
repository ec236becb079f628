package dataset

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// referenceLines splits data as a JSONL reader should: lines end at "\n",
// trailing "\r\n" bytes are not content, a UTF-8 BOM opens the first line
// only, blank lines are not rows, and a line longer than max (its content)
// is a row too long to keep.
func referenceLines(data []byte, max int) (rows [][]byte, lines []int64, tooLong []bool) {
	for n, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		content := bytes.TrimRight(line, "\r\n")
		if n == 0 {
			content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
		}
		long := len(line) > max+2 || len(content) > max
		if !long && len(bytes.TrimSpace(content)) == 0 {
			continue
		}
		rows = append(rows, content)
		lines = append(lines, int64(n+1))
		tooLong = append(tooLong, long)
	}
	return rows, lines, tooLong
}

// FuzzLines compares the JSONL line reader, with a read buffer of 16 bytes
// so that lines arrive in pieces, with referenceLines. Seeds are in
// testdata/fuzz/FuzzLines.
func FuzzLines(f *testing.F) {
	defer func(n int) { lineBufferSize = n }(lineBufferSize)
	lineBufferSize = 16
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		max = 1 + abs(max)%64
		p := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		u := unit{in: &input{path: p, kind: kindJSONL, size: int64(len(data)), loc: location{raw: p}}}
		src, err := openLines(context.Background(), &Config{}, u, max)
		if err != nil {
			t.Fatal(err)
		}
		defer src.close()
		var got []rowRef
		var bufs [][]byte
		for {
			b := &batch{}
			err := src.fill(b, 7)
			for _, r := range b.rows {
				got = append(got, r)
				bufs = append(bufs, b.buf[r.start:r.end])
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		rows, lines, tooLong := referenceLines(data, max)
		if len(got) != len(rows) {
			t.Fatalf("%d rows, want %d", len(got), len(rows))
		}
		for i, r := range got {
			if r.pos != lines[i] || (r.size > 0) != tooLong[i] {
				t.Fatalf("row %d: line %d, too long %v; want line %d, %v", i, r.pos, r.size > 0, lines[i], tooLong[i])
			}
			if !tooLong[i] && !bytes.Equal(bufs[i], rows[i]) {
				t.Fatalf("row %d: %q, want %q", i, bufs[i], rows[i])
			}
			if tooLong[i] && len(bufs[i]) > oversizePrefix {
				t.Fatalf("row %d: %d bytes kept of a long line", i, len(bufs[i]))
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// testEnv is a run's environment for tests that call its parts.
func testEnv() *runEnv {
	return &runEnv{ctx: context.Background(), stores: new(stores), stdout: io.Discard}
}
