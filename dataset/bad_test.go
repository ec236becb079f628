package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// noOutputs fails when dir holds an output, a rejects file, a manifest or a
// temporary file: a failed run leaves none.
func noOutputs(t *testing.T, dir string, inputs ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		isInput := false
		for _, in := range inputs {
			isInput = isInput || sameFile(p, in)
		}
		if !isInput {
			t.Errorf("a failed run left %s", e.Name())
		}
	}
}

var validLine = []byte(`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello", "reasoning_content": "greet"}]}`)

func repeatLines(line []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = line
	}
	return out
}

// TestTruncatedStreams: a gzip or zstd stream cut short cannot be read to
// its end, so the run fails with the file named and writes nothing.
func TestTruncatedStreams(t *testing.T) {
	for _, name := range []string{"in.jsonl.gz", "in.jsonl.zst"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, name)
			writeInput(t, in, repeatLines(validLine, 20000/raceScale))
			data, _ := os.ReadFile(in)
			os.WriteFile(in, data[:len(data)*2/3], 0o644)
			st, err := Run(context.Background(), Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl")})
			if err == nil {
				t.Fatal("a truncated stream should fail the run")
			}
			kind := strings.TrimPrefix(filepath.Ext(name), ".")
			if kind == "zst" {
				kind = "zstd"
			} else {
				kind = "gzip"
			}
			if !strings.Contains(err.Error(), in) || !strings.Contains(err.Error(), kind) {
				t.Fatalf("error %q should name the file and %s", err, kind)
			}
			if st.RowsRead != st.RowsWritten+st.RowsRejected {
				t.Fatalf("rows read %d != written %d + rejected %d", st.RowsRead, st.RowsWritten, st.RowsRejected)
			}
			noOutputs(t, dir, in)
		})
	}
}

// TestBadRows: rows that are broken, of the wrong shape or too long are
// rejected with their line, and the run goes on.
func TestBadRows(t *testing.T) {
	huge := append([]byte(`{"messages": [{"role": "user", "content": "`), bytes.Repeat([]byte("a"), 64<<20)...)
	huge = append(huge, `"}]}`...)
	tests := []struct {
		name  string
		line  []byte
		error string // a part of the reject's error
	}{
		{"broken line", []byte(`{"messages": [{"role": "user", "con`), "invalid JSON"},
		{"not an object", []byte(`[1, 2]`), "must be a JSON object"},
		{"messages not a list", []byte(`{"messages": {"role": "user"}}`), "messages: required, a list"},
		{"role not a string", []byte(`{"messages": [{"role": 5, "content": "x"}]}`), "messages[0]"},
		{"invalid UTF-8", []byte("{\"messages\": [{\"role\": \"user\", \"content\": \"\xff\"}]}"), "UTF-8"},
		{"64 MB line", huge, "longer than the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.jsonl")
			writeInput(t, in, [][]byte{validLine, validLine, tt.line, validLine})
			c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl")}
			st, err := Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if st.RowsRead != 4 || st.RowsWritten != 3 || st.RowsRejected != 1 {
				t.Fatalf("read %d, written %d, rejected %d; want 4, 3, 1", st.RowsRead, st.RowsWritten, st.RowsRejected)
			}
			rej := readRejects(t, DefaultRejectsPath(c.Output))
			if len(rej) != 1 || rej[0].Line != 3 || rej[0].Source != in || !strings.Contains(rej[0].Error, tt.error) {
				t.Fatalf("rejects %+v, want line 3 with %q", rej, tt.error)
			}
			if len(tt.line) > DefaultMaxRowBytes {
				if rej[0].RowBytes != int64(len(tt.line))+1 {
					t.Fatalf("row_bytes %d, want %d", rej[0].RowBytes, len(tt.line)+1)
				}
				if len(rej[0].Row) > 2*oversizePrefix {
					t.Fatalf("the rejects file holds %d bytes of the long row", len(rej[0].Row))
				}
			}
			if rows := readOutput(t, c.Output); len(rows) != 3 {
				t.Fatalf("%d rows in the output, want 3", len(rows))
			}
		})
	}
}

// TestLongLinesAtTheLimit: lines just under and at the limit are read;
// one byte more is rejected, also without a final newline.
func TestLongLinesAtTheLimit(t *testing.T) {
	const limit = 300
	pad := func(n int) []byte {
		head := []byte(`{"messages": [{"role": "user", "content": "`)
		tail := []byte(`"}]}`)
		return append(append(head, bytes.Repeat([]byte("x"), n-len(head)-len(tail))...), tail...)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	data := bytes.Join([][]byte{pad(limit - 1), pad(limit), pad(limit + 1), pad(limit + 1000), pad(limit)}, []byte("\r\n"))
	os.WriteFile(in, data, 0o644)
	c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), MaxRowBytes: limit}
	st, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	rej := readRejects(t, DefaultRejectsPath(c.Output))
	if st.RowsWritten != 3 || len(rej) != 2 || rej[0].Line != 3 || rej[1].Line != 4 {
		t.Fatalf("written %d, rejects %+v; want 3 written, lines 3 and 4 rejected", st.RowsWritten, rej)
	}
}

// TestEmptyInputs: an empty file has no rows: a warning, and the run
// completes.
func TestEmptyInputs(t *testing.T) {
	for _, name := range []string{"e.jsonl", "e.jsonl.gz", "e.jsonl.zst", "e.parquet"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, name)
			os.WriteFile(in, nil, 0o644)
			st, err := Run(context.Background(), Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl")})
			if err != nil {
				t.Fatal(err)
			}
			if st.RowsRead != 0 || len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "empty") {
				t.Fatalf("%+v", st)
			}
		})
	}
	t.Run("blank lines", func(t *testing.T) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.jsonl")
		os.WriteFile(in, []byte("\n  \n\r\n"), 0o644)
		st, err := Run(context.Background(), Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl")})
		if err != nil || st.RowsRead != 0 {
			t.Fatalf("%v %+v", err, st)
		}
	})
}

// TestCannotRun: inputs that cannot be read and outputs that cannot be
// written stop the run before anything is written.
func TestCannotRun(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	writeInput(t, good, [][]byte{validLine})
	notParquet := filepath.Join(dir, "bad.parquet")
	os.WriteFile(notParquet, []byte("PAR1 this is not parquet"), 0o644)
	sub := filepath.Join(dir, "sub.jsonl")
	os.Mkdir(sub, 0o755)
	tests := []struct {
		name   string
		inputs []string
		output string
		error  string
	}{
		{"missing input", []string{good, filepath.Join(dir, "missing.jsonl")}, "out.jsonl", "missing.jsonl"},
		{"directory input", []string{sub}, "out.jsonl", "not a regular file (a directory)"},
		{"not Parquet", []string{notParquet}, "out.jsonl", "not a readable Parquet file"},
		{"unknown input type", []string{filepath.Join(dir, "x.csv")}, "out.jsonl", "unknown file type"},
		{"unknown output type", []string{good}, "out.csv", "unknown file type"},
		{"output is an input", []string{good}, good, "is also an input"},
		{"output is an input by another name", []string{good}, filepath.Join(dir, ".", "good.jsonl"), "is also an input"},
		{"no inputs", nil, "out.jsonl", "no input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := os.ReadFile(good)
			out := filepath.Join(dir, tt.output)
			if filepath.IsAbs(tt.output) {
				out = tt.output
			}
			_, err := Run(context.Background(), Config{Inputs: tt.inputs, Output: out})
			if err == nil || !strings.Contains(err.Error(), tt.error) {
				t.Fatalf("error %v, want one with %q", err, tt.error)
			}
			after, _ := os.ReadFile(good)
			if !bytes.Equal(before, after) {
				t.Fatal("the input was changed")
			}
			noOutputs(t, dir, good, notParquet, sub)
		})
	}
	if os.Geteuid() != 0 {
		t.Run("unreadable input", func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "secret.jsonl")
			os.WriteFile(p, validLine, 0o000)
			_, err := Run(context.Background(), Config{Inputs: []string{p}, Output: filepath.Join(t.TempDir(), "o.jsonl")})
			if err == nil || !strings.Contains(err.Error(), "permission denied") {
				t.Fatalf("error %v", err)
			}
		})
	}
}

// failingWriter fails with ENOSPC after n bytes, as a full disk does.
type failingWriter struct {
	w io.Writer
	n int
}

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n, _ := f.w.Write(p[:f.n])
		f.n = 0
		return n, &os.PathError{Op: "write", Path: "out", Err: syscall.ENOSPC}
	}
	f.n -= len(p)
	return f.w.Write(p)
}

func TestFullDisk(t *testing.T) {
	for _, out := range []string{"out.jsonl", "out.jsonl.zst", "out.parquet"} {
		t.Run(out, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.jsonl")
			lines := make([][]byte, 30000/raceScale)
			for i := range lines {
				lines[i] = fmt.Appendf(nil, `{"messages": [{"role": "user", "content": "%d %x"}]}`, i, i*i*7919)
			}
			writeInput(t, in, lines)
			c := Config{Inputs: []string{in}, Output: filepath.Join(dir, out),
				wrapFile: func(path string, w io.Writer) io.Writer {
					if path != filepath.Join(dir, out) {
						return w
					}
					return &failingWriter{w: w, n: 2 << 10}
				}}
			st, err := Run(context.Background(), c)
			if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), c.Output) {
				t.Fatalf("error %v, want ENOSPC naming the output", err)
			}
			if st.RowsRead != st.RowsWritten+st.RowsRejected {
				t.Fatalf("rows read %d != written %d + rejected %d", st.RowsRead, st.RowsWritten, st.RowsRejected)
			}
			noOutputs(t, dir, in)
		})
	}
}

func TestStrict(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	lines := repeatLines(validLine, 5000)
	lines[3000] = []byte(`{"messages": 1}`)
	lines[4000] = []byte(`{}`)
	writeInput(t, in, lines)
	stats := filepath.Join(t.TempDir(), "stats.json")
	_, err := Run(context.Background(), Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), Strict: true, Workers: 3, Stats: stats})
	var re *RowError
	if !errors.As(err, &re) || err.Error() != in+": line 3001: messages: required, a list of messages" {
		t.Fatalf("error %v, want the first bad row named", err)
	}
	noOutputs(t, dir, in)
	var st Stats
	data, _ := os.ReadFile(stats)
	if json.Unmarshal(data, &st) != nil || st.Error != err.Error() || st.RowsRead != st.RowsWritten+st.RowsRejected {
		t.Fatalf("stats of the failed run: %s", data)
	}
}

// cancelAfter cancels the run once some rows are done, as Ctrl-C does.
type cancelAfter struct{ cancel context.CancelFunc }

func (c cancelAfter) Start(int64)          {}
func (c cancelAfter) Advance(int64, int64) { c.cancel() }
func (c cancelAfter) Finish()              {}

func TestInterruptLeavesNothing(t *testing.T) {
	for _, out := range []string{"out.jsonl.gz", "out.parquet"} {
		t.Run(out, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.jsonl")
			writeInput(t, in, repeatLines(validLine, 50000/raceScale))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := Run(ctx, Config{Inputs: []string{in}, Output: filepath.Join(dir, out), Progress: cancelAfter{cancel}})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			noOutputs(t, dir, in)
		})
	}
}
