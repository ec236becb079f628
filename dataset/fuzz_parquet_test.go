package dataset

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// fuzzRowCap bounds the rows one fuzz input reads: run-length levels let a
// few bytes stand for millions of empty rows, which is slow but not wrong.
const fuzzRowCap = 100_000

// readParquetBytes reads data as the preview does (every row of every row
// group converted to JSON) without its recover, so that a panic fails the
// test. It returns the rows read and the first error.
func readParquetBytes(data []byte, maxRowBytes int) (int, error) {
	lim := newParquetLimits(maxRowBytes)
	r := bytes.NewReader(data)
	m, err := checkFooter(r, int64(len(data)), lim)
	if err != nil {
		return 0, err
	}
	conv, err := previewConverter(m)
	if err != nil {
		return 0, err
	}
	rows := 0
	var out []byte
	for g := range m.rowGroups {
		rr := newRowGroupReader(r, m, g, lim)
		for rows < fuzzRowCap {
			ok, err := rr.next(&conv.row)
			if err != nil {
				return rows, err
			}
			if !ok {
				break
			}
			if conv.columns != nil {
				out, _ = conv.appendRow(out[:0])
			} else {
				conv.start()
				out = conv.value(out[:0], conv.root)
			}
			rows++
		}
	}
	return rows, nil
}

// parquetSeeds are Parquet files for the fuzzer to start from: outputs of
// the writer (text with string and integer ids, tokens) and the files in
// testdata/parquet, written by parquet-go.
func parquetSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	dir := tb.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	writeInput(tb, in, [][]byte{
		[]byte(`{"id": 1, "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!", "reasoning_content": "Greet."}]}`),
		[]byte(`{"messages": [{"role": "user", "content": "Bye"}, {"role": "assistant", "content": "Bye!", "reasoning_content": "Part."}]}`),
	})
	var seeds [][]byte
	for i, c := range []Config{
		{Output: "text.parquet"},
		{Output: "id.parquet", IDColumn: "id"},
		{Output: "tokens.parquet", Tokens: true, Render: byteTokens, IDColumn: "id"},
	} {
		c.Inputs = []string{in}
		c.Output = filepath.Join(dir, c.Output)
		if _, err := Run(context.Background(), c); err != nil {
			tb.Fatalf("seed %d: %v", i, err)
		}
		data, err := os.ReadFile(c.Output)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	files, _ := filepath.Glob("testdata/parquet/*.parquet")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			seeds = append(seeds, data)
		}
	}
	return seeds
}

// FuzzParquetReader: any bytes read as a Parquet input give rows or an
// error, never a panic, a hang or memory past the limits (the limits of
// a --max-row-bytes of 64 KiB: pages of 1 MiB, 16 MiB held).
func FuzzParquetReader(f *testing.F) {
	for _, s := range parquetSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		readParquetBytes(data, 64<<10)
	})
}

// TestParquetSeedsRead: the fuzzer's seeds are read whole, without error.
func TestParquetSeedsRead(t *testing.T) {
	for i, s := range parquetSeeds(t) {
		if n, err := readParquetBytes(s, DefaultMaxRowBytes); err != nil || n == 0 {
			t.Errorf("seed %d: %d rows, %v", i, n, err)
		}
	}
}

// FuzzParquetPages damages the pages of the seeds and leaves their footers
// whole, so that the fuzzer's changes reach the page headers, levels and
// values rather than stopping at the footer: patch is written over the
// seed's data (its bytes between the magic and the footer) at offset at.
func FuzzParquetPages(f *testing.F) {
	seeds := parquetSeeds(f)
	f.Add(uint8(0), uint32(0), []byte{0})
	f.Add(uint8(2), uint32(30), []byte{0xff, 0xff, 0xff, 0x7f})
	f.Add(uint8(3), uint32(100), []byte("\x15\x04\x15"))
	f.Fuzz(func(t *testing.T, which uint8, at uint32, patch []byte) {
		seed := seeds[int(which)%len(seeds)]
		footer := int(uint32(seed[len(seed)-8]) | uint32(seed[len(seed)-7])<<8 | uint32(seed[len(seed)-6])<<16 | uint32(seed[len(seed)-5])<<24)
		end := len(seed) - 8 - footer
		if end <= 4 {
			return
		}
		data := bytes.Clone(seed)
		copy(data[4+int(at)%(end-4):end], patch)
		readParquetBytes(data, 64<<10)
	})
}
