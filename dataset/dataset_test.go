package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/corpus"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// expected is what the library gives for one request rendered for
// training: the row, or the error that rejects it.
type expected struct {
	text  string
	spans [][2]int
	err   string
}

// expect renders data the way the dataset command must by default:
// ParseRequest, a row with assistant turns without reasoning rejected, no
// generation prompt, late instructions placed, the default effort when
// none is set, RenderPrompt.
func expect(data []byte, effort harmony.ReasoningEffort) expected {
	return expectRow(data, effort, false)
}

// expectRow is expect, with allowMissing the run's AllowMissingThinking.
func expectRow(data []byte, effort harmony.ReasoningEffort, allowMissing bool) expected {
	req, err := harmony.ParseRequest(bytes.Clone(data))
	if err != nil {
		return expected{err: err.Error()}
	}
	if idx := harmony.MissingReasoning(req.Messages); len(idx) > 0 && !allowMissing {
		return expected{err: missingReasoningError(idx).Error()}
	}
	req.AddGenerationPrompt = false
	req.PlaceLateInstructions = true
	if !req.ReasoningEffort.IsSet() {
		req.ReasoningEffort = effort
	}
	p, err := harmony.RenderPrompt(req.Messages, &req.Options)
	if err != nil {
		return expected{err: err.Error()}
	}
	e := expected{text: p.Text, spans: [][2]int{}}
	for _, s := range p.CharSpans() {
		e.spans = append(e.spans, [2]int{s.Start, s.End})
	}
	return e
}

// corpusLines returns generated requests and the page's examples, one JSON
// object per line.
func corpusLines(t testing.TB, seed uint64, n int) [][]byte {
	t.Helper()
	var lines [][]byte
	for _, c := range append(corpus.Page(), corpus.Generate(seed, n)...) {
		if bytes.ContainsAny(c.JSON, "\r\n") {
			t.Fatalf("%s: request JSON spans lines", c.Name)
		}
		lines = append(lines, c.JSON)
	}
	return lines
}

// writeInput writes lines as a JSONL file, compressed by its extension.
func writeInput(t testing.TB, path string, lines [][]byte) {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser = nopCloser{&buf}
	switch {
	case strings.HasSuffix(path, ".gz"):
		w = gzip.NewWriter(&buf)
	case strings.HasSuffix(path, ".zst"):
		zw, err := zstd.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		w = zw
	}
	for _, l := range lines {
		w.Write(l)
		w.Write([]byte("\n"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// outRow is one output row, read back from JSONL or Parquet.
type outRow struct {
	ID             *string  `json:"id" parquet:"id,optional"`
	Text           string   `json:"text" parquet:"text"`
	AssistantSpans [][2]int `json:"assistant_spans" parquet:"-"`
}

// rejectLine is one line of a rejects file.
type rejectLine struct {
	Source   string          `json:"source"`
	Line     int64           `json:"line"`
	RowIndex *int64          `json:"row_index"`
	Error    string          `json:"error"`
	Row      json.RawMessage `json:"row"`
	RowBytes int64           `json:"row_bytes"`
}

// readOutput reads a JSONL or Parquet output back.
func readOutput(t testing.TB, path string) []outRow {
	t.Helper()
	if strings.HasSuffix(path, ".parquet") {
		return readParquetOutput(t, path)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	switch {
	case strings.HasSuffix(path, ".gz"):
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case strings.HasSuffix(path, ".zst"):
		zr, err := zstd.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	}
	var rows []outRow
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var row outRow
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("%s: line %d: %v", path, len(rows)+1, err)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func readParquetOutput(t testing.TB, path string) []outRow {
	t.Helper()
	var out []outRow
	for i, row := range parquetRows(t, path) {
		var r struct {
			ID    *string   `json:"id"`
			Text  string    `json:"text"`
			Spans [][]int64 `json:"assistant_spans"`
		}
		if err := json.Unmarshal(row, &r); err != nil {
			t.Fatalf("%s: row %d: %v", path, i, err)
		}
		o := outRow{ID: r.ID, Text: r.Text, AssistantSpans: [][2]int{}}
		for _, s := range r.Spans {
			if len(s) != 2 {
				t.Fatalf("%s: row %d: span %v is not a pair", path, i, s)
			}
			o.AssistantSpans = append(o.AssistantSpans, [2]int{int(s[0]), int(s[1])})
		}
		out = append(out, o)
	}
	return out
}

// parquetRows reads a Parquet file with the package's reader (ParquetRows:
// an output's rows as JSON objects of its columns, nulls left out).
// conformance/parquetgo checks the output with another reader.
func parquetRows(t testing.TB, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]byte
	err = ParquetRows(context.Background(), f, fi.Size(), 0, func(row []byte, err error) bool {
		if err != nil {
			t.Fatalf("%s: row %d: %v", path, len(rows), err)
		}
		rows = append(rows, bytes.Clone(row))
		return true
	})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// parquetFooter reads a Parquet file's footer.
func parquetFooter(t testing.TB, path string) *pqMeta {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := checkFooter(f, fi.Size(), newParquetLimits(DefaultMaxRowBytes))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func readRejects(t testing.TB, path string) []rejectLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []rejectLine
	for i, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var r rejectLine
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("%s: line %d: %v", path, i+1, err)
		}
		out = append(out, r)
	}
	return out
}

// checkRun compares a run's output and rejects with the library's result
// for every input line.
func checkRun(t *testing.T, c Config, st *Stats, inputs map[string][][]byte) {
	t.Helper()
	rows := readOutput(t, c.Output)
	rejects := readRejects(t, DefaultRejectsPathOr(c))
	var want []expected
	var wantRejects []rejectLine
	for _, in := range c.Inputs {
		for i, line := range inputs[in] {
			e := expectRow(line, c.DefaultEffort, c.AllowMissingThinking)
			if e.err != "" {
				wantRejects = append(wantRejects, rejectLine{Source: in, Line: int64(i + 1), Error: e.err})
				continue
			}
			want = append(want, e)
		}
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows written, want %d", len(rows), len(want))
	}
	for i, w := range want {
		if rows[i].Text != w.text {
			t.Fatalf("row %d: text differs from RenderPrompt:\n got %q\nwant %q", i, rows[i].Text, w.text)
		}
		if !slices.Equal(rows[i].AssistantSpans, w.spans) {
			t.Fatalf("row %d: spans %v, want %v", i, rows[i].AssistantSpans, w.spans)
		}
	}
	if len(rejects) != len(wantRejects) {
		t.Fatalf("%d rejects, want %d", len(rejects), len(wantRejects))
	}
	for i, w := range wantRejects {
		r := rejects[i]
		if r.Source != w.Source || r.Line != w.Line || r.Error != w.Error {
			t.Fatalf("reject %d: %s:%d %q, want %s:%d %q", i, r.Source, r.Line, r.Error, w.Source, w.Line, w.Error)
		}
		if !json.Valid(r.Row) || !bytes.Equal(compactJSON(t, r.Row), compactJSON(t, inputs[w.Source][w.Line-1])) {
			t.Fatalf("reject %d: row %s is not the input line", i, r.Row)
		}
	}
	if st.RowsRead != st.RowsWritten+st.RowsRejected {
		t.Fatalf("rows read %d != written %d + rejected %d", st.RowsRead, st.RowsWritten, st.RowsRejected)
	}
	var chars, trained int64
	for _, w := range want {
		chars += int64(utf8.RuneCountInString(w.text))
		for _, sp := range w.spans {
			trained += int64(sp[1] - sp[0])
		}
	}
	if st.Characters != chars || st.TrainedCharacters != trained {
		t.Fatalf("stats: %d characters, %d trained; want %d, %d", st.Characters, st.TrainedCharacters, chars, trained)
	}
	if st.RowsWritten != int64(len(want)) || st.RowsRejected != int64(len(wantRejects)) {
		t.Fatalf("stats: %d written, %d rejected; want %d, %d", st.RowsWritten, st.RowsRejected, len(want), len(wantRejects))
	}
}

// DefaultRejectsPathOr returns c's rejects path.
func DefaultRejectsPathOr(c Config) string {
	if c.Rejects != "" {
		return c.Rejects
	}
	return DefaultRejectsPath(c.Output)
}

func compactJSON(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("compact %s: %v", b, err)
	}
	return buf.Bytes()
}

// TestEqualsLibrary renders a generated corpus through every input and
// output format, with one worker and several, and checks every row
// against RenderPrompt and every reject against ParseRequest's or
// RenderPrompt's error.
func TestEqualsLibrary(t *testing.T) {
	dir := t.TempDir()
	lines := corpusLines(t, 7, 600/raceScale)
	half := len(lines) / 2
	inputs := map[string][][]byte{
		filepath.Join(dir, "a.jsonl"):     lines[:half],
		filepath.Join(dir, "b.jsonl.zst"): lines[half:],
		filepath.Join(dir, "c.jsonl.gz"):  lines[:50],
	}
	for p, l := range inputs {
		writeInput(t, p, l)
	}
	order := []string{filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl.zst"), filepath.Join(dir, "c.jsonl.gz")}
	for _, out := range []string{"out.jsonl", "out.jsonl.gz", "out.jsonl.zst", "out.parquet"} {
		for _, workers := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/workers=%d", out, workers), func(t *testing.T) {
				// One worker with the default rule for turns without
				// reasoning (rejected), several with them rendered.
				c := Config{Inputs: order, Output: filepath.Join(t.TempDir(), out), Workers: workers,
					DefaultEffort: harmony.EffortLabel("high"), AllowMissingThinking: workers > 1}
				st, err := Run(context.Background(), c)
				if err != nil {
					t.Fatal(err)
				}
				checkRun(t, c, st, inputs)
				if st.RowsRejected == 0 || st.RowsWritten == 0 {
					t.Fatalf("the corpus should give rows and rejects: %+v", st)
				}
			})
		}
	}
}

// TestSmallBatches forces many batches per file (one row each), so that
// ordering across batches and workers is exercised.
func TestManyBatchesKeepOrder(t *testing.T) {
	dir := t.TempDir()
	lines := corpusLines(t, 11, 300)
	in := filepath.Join(dir, "in.jsonl")
	writeInput(t, in, lines)
	c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), Workers: 8}
	st, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, c, st, map[string][][]byte{in: lines})
}

func TestIDAndColumnMapping(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	lines := [][]byte{
		[]byte(`{"uid": "r1", "conversations": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello", "reasoning_content": "greet"}], "messages": "ignored"}`),
		[]byte(`{"uid": 2, "conversations": [{"role": "user", "content": "Hi"}]}`),
		[]byte(`{"conversations": [{"role": "user", "content": "no id"}]}`),
		[]byte(`{"uid": "r4", "conversations": 5}`),
	}
	writeInput(t, in, lines)
	for _, out := range []string{"out.jsonl", "out.parquet"} {
		t.Run(out, func(t *testing.T) {
			c := Config{Inputs: []string{in}, Output: filepath.Join(t.TempDir(), out), MessagesColumn: "conversations", IDColumn: "uid"}
			st, err := Run(context.Background(), c)
			if out == "out.parquet" {
				// A Parquet column has one type: mixed ids are an error
				// naming the row (TestIDTypesKept).
				want := `id column "uid": ` + in + `: line 2: the id is an integer, but the column holds a string (from ` + in + `: line 1 on)`
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Run: %v; want %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.RowsWritten != 3 || st.RowsRejected != 1 {
				t.Fatalf("%+v", st)
			}
			ids := readIDs(t, c.Output, "uid")
			if want := []string{`"r1"`, `2`, `null`}; !slices.Equal(ids, want) {
				t.Fatalf("ids %v, want %v", ids, want)
			}
			rows := readOutput(t, c.Output)
			renamed := bytes.Replace(lines[0], []byte(`"conversations"`), []byte(`"messages"`), 1)
			renamed = bytes.Replace(renamed, []byte(`, "messages": "ignored"`), nil, 1)
			if w := expect(renamed, harmony.ReasoningEffort{}); rows[0].Text != w.text {
				t.Fatalf("row 0: %q, want %q", rows[0].Text, w.text)
			}
			rej := readRejects(t, DefaultRejectsPath(c.Output))
			if len(rej) != 1 || rej[0].Line != 4 || rej[0].Error != "messages: required, a list of messages" {
				t.Fatalf("rejects %+v", rej)
			}
		})
	}
}

// readIDs returns the id column as JSON texts (Parquet strings quoted,
// other values as carried).
func readIDs(t *testing.T, path, name string) []string {
	t.Helper()
	var ids []string
	if strings.HasSuffix(path, ".parquet") {
		if got := parquetFooter(t, path).schema[1].name; got != name {
			t.Fatalf("first column %q, want %q", got, name)
		}
		for _, row := range parquetRows(t, path) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(row, &m); err != nil {
				t.Fatal(err)
			}
			if id, ok := m[name]; ok {
				ids = append(ids, string(id))
			} else {
				ids = append(ids, "null")
			}
		}
		return ids
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		keys := strings.SplitN(string(l), ":", 2)[0]
		if keys != `{"`+name+`"` {
			t.Fatalf("the id should come first: %s", l)
		}
		ids = append(ids, string(m[name]))
	}
	return ids
}

func TestDefaultEffortAndGenerationPrompt(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	lines := [][]byte{
		[]byte(`{"messages": [{"role": "user", "content": "Hi"}], "add_generation_prompt": true}`),
		[]byte(`{"messages": [{"role": "user", "content": "Hi"}], "reasoning_effort": "low"}`),
	}
	writeInput(t, in, lines)
	c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), DefaultEffort: harmony.Effort(64)}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	rows := readOutput(t, c.Output)
	if strings.HasSuffix(rows[0].Text, "<|start|>assistant") {
		t.Errorf("row 0 ends with a generation prompt: %q", rows[0].Text)
	}
	if !strings.Contains(rows[0].Text, "Reasoning effort: 64\n") {
		t.Errorf("row 0 should take the default effort: %q", rows[0].Text)
	}
	if !strings.Contains(rows[1].Text, "Reasoning effort: 32\n") {
		t.Errorf("row 1 keeps its own effort (low = 32): %q", rows[1].Text)
	}
}
