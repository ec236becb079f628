package parquetgo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/dataset"
	"github.com/beamharmony/harmony/internal/corpus"
)

// ourRows reads a Parquet file with the dataset package's reader, as the
// console's preview does: each row as JSON (a file with a messages column
// as the request the dataset command reads).
func ourRows(t *testing.T, path string) [][]byte {
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
	err = dataset.ParquetRows(context.Background(), f, fi.Size(), 0, func(row []byte, err error) bool {
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

// normalize decodes JSON for comparison: object keys whose value is null
// or an empty list are dropped (the dataset reader leaves null fields out,
// as the datasets library's rows have them; parquet-go's Go values have
// nil slices), and a number is its float64 when that is exact, else its
// text (integers past 2^53).
func normalize(t *testing.T, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	return norm(v)
}

func norm(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if l, ok := e.([]any); e == nil || ok && len(l) == 0 {
				delete(v, k)
				continue
			}
			v[k] = norm(e)
		}
	case []any:
		for i := range v {
			v[i] = norm(v[i])
		}
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err == nil && (math.Abs(f) < 1<<53 || strings.ContainsAny(string(v), ".eE")) {
			return f
		}
		return string(v)
	}
	return v
}

// compareReads reads the file with parquet-go into T and with the dataset
// package, and compares every row.
func compareReads[T any](t *testing.T, path string) {
	t.Helper()
	want, err := parquet.ReadFile[T](path)
	if err != nil {
		t.Fatal(err)
	}
	got := ourRows(t, path)
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, parquet-go reads %d", path, len(got), len(want))
	}
	for i := range want {
		w, err := json.Marshal(want[i])
		if err != nil {
			t.Fatal(err)
		}
		if a, b := normalize(t, got[i]), normalize(t, w); !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: row %d:\n ours       %s\n parquet-go %s", path, i, got[i], w)
		}
	}
}

// A row of many types: signed and unsigned integers, floats, booleans,
// optional and required strings, lists of scalars and of structs, a map.
type item struct {
	Key   string   `parquet:"key" json:"key"`
	Score *float64 `parquet:"score,optional" json:"score"`
	Tags  []string `parquet:"tags,list" json:"tags"`
}

type wideRow struct {
	ID      int64             `parquet:"id" json:"id"`
	Small   int32             `parquet:"small" json:"small"`
	U32     uint32            `parquet:"u32" json:"u32"`
	U64     uint64            `parquet:"u64" json:"u64"`
	F64     float64           `parquet:"f64" json:"f64"`
	F32     float32           `parquet:"f32" json:"f32"`
	Flag    bool              `parquet:"flag" json:"flag"`
	Name    *string           `parquet:"name,optional" json:"name"`
	Text    string            `parquet:"text" json:"text"`
	Count   *int64            `parquet:"count,optional" json:"count"`
	Numbers []int64           `parquet:"numbers,list" json:"numbers"`
	Items   []item            `parquet:"items,list,optional" json:"items"`
	Nested  [][]int32         `parquet:"nested,list" json:"nested"`
	Meta    map[string]string `parquet:"meta" json:"meta"`
}

func wideRows(n int) []wideRow {
	var rows []wideRow
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "alpha", "alpha", "zeta"}
	for i := range n {
		r := wideRow{
			ID: int64(i) * 1_000_003, Small: int32(i%7) - 3, U32: math.MaxUint32 - uint32(i), U64: math.MaxUint64 - uint64(i),
			F64: float64(i) / 4, F32: float32(i%9) / 2, Flag: i%3 == 0,
			Text:    strings.Repeat(words[i%len(words)], 1+i%5) + fmt.Sprint(i%11),
			Numbers: make([]int64, i%6),
			Meta:    map[string]string{},
		}
		for k := range r.Numbers {
			r.Numbers[k] = int64(k*i) - 50
		}
		if i%4 != 0 {
			r.Name = s(words[(i+3)%len(words)])
		}
		if i%5 == 0 {
			c := int64(i)
			r.Count = &c
		}
		if i%3 != 1 {
			for k := range i % 4 {
				it := item{Key: fmt.Sprintf("k%d", k), Tags: words[:k%3]}
				if k%2 == 0 {
					it.Score = f64(float64(k) + 0.5)
				}
				r.Items = append(r.Items, it)
			}
		}
		for k := range i % 3 {
			r.Nested = append(r.Nested, []int32{int32(k), int32(-k), int32(i)})
		}
		for k := range i % 3 {
			r.Meta[fmt.Sprintf("m%d", k)] = words[(i+k)%len(words)]
		}
		rows = append(rows, r)
	}
	return rows
}

var codecs = map[string]compress.Codec{"none": &parquet.Uncompressed, "snappy": &parquet.Snappy, "gzip": &parquet.Gzip,
	"zstd": &parquet.Zstd, "brotli": &parquet.Brotli, "lz4raw": &parquet.Lz4Raw}

var encodings = map[string][]parquet.WriterOption{
	"default": nil,
	"plain": {parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.Plain), parquet.DefaultEncodingFor(parquet.Int32, &parquet.Plain),
		parquet.DefaultEncodingFor(parquet.Int64, &parquet.Plain), parquet.DefaultEncodingFor(parquet.Double, &parquet.Plain)},
	"dictionary": {parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.RLEDictionary), parquet.DefaultEncodingFor(parquet.Int32, &parquet.RLEDictionary),
		parquet.DefaultEncodingFor(parquet.Int64, &parquet.RLEDictionary), parquet.DefaultEncodingFor(parquet.Double, &parquet.RLEDictionary)},
	"delta": {parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.DeltaByteArray), parquet.DefaultEncodingFor(parquet.Int32, &parquet.DeltaBinaryPacked),
		parquet.DefaultEncodingFor(parquet.Int64, &parquet.DeltaBinaryPacked), parquet.DefaultEncodingFor(parquet.Double, &parquet.ByteStreamSplit),
		parquet.DefaultEncodingFor(parquet.Float, &parquet.ByteStreamSplit)},
	"delta-length": {parquet.DefaultEncodingFor(parquet.ByteArray, &parquet.DeltaLengthByteArray)},
}

// TestReadParquetGoFiles: the dataset package reads what parquet-go writes
// with every codec, encoding and data page version, in small pages and
// many row groups, as parquet-go reads it: the Hugging Face rows and rows
// of many types.
func TestReadParquetGoFiles(t *testing.T) {
	dir := t.TempDir()
	var hf []hfRow
	for range 40 {
		hf = append(hf, hfRows()...)
	}
	wide := wideRows(300)
	for cname, codec := range codecs {
		for ename, enc := range encodings {
			for _, version := range []int{1, 2} {
				name := fmt.Sprintf("%s-%s-v%d", cname, ename, version)
				t.Run(name, func(t *testing.T) {
					opts := append([]parquet.WriterOption{parquet.Compression(codec), parquet.DataPageVersion(version),
						parquet.PageBufferSize(512), parquet.MaxRowsPerRowGroup(70)}, enc...)
					p := filepath.Join(dir, name+"-hf.parquet")
					writeFile(t, p, hf, opts...)
					compareReads[hfRow](t, p)
					p = filepath.Join(dir, name+"-wide.parquet")
					writeFile(t, p, wide, opts...)
					compareReads[wideRow](t, p)
				})
			}
		}
	}
}

// byteTokens is a stand-in tokenizer: one id per byte of the prompt,
// masked inside the assistant spans.
func byteTokens(_ context.Context, req *harmony.Request, row *dataset.Row) error {
	p, err := req.RenderPrompt()
	if err != nil {
		return err
	}
	row.InputIDs = make([]int32, len(p.Text))
	row.AssistantMasks = make([]int32, len(p.Text))
	for i := range len(p.Text) {
		row.InputIDs[i] = int32(p.Text[i])
	}
	for _, s := range p.AssistantSpans {
		for i := s.Start; i < s.End; i++ {
			row.AssistantMasks[i] = 1
		}
	}
	return nil
}

// The output's schema as the dataset package's Go types gave it to
// parquet-go when parquet-go wrote the output (before issue 35).
type (
	textRow struct {
		Text           string    `parquet:"text"`
		AssistantSpans [][]int64 `parquet:"assistant_spans,list"`
	}
	textRowID[I string | int64] struct {
		ID *I `parquet:"id,optional"`
		textRow
	}
	tokenRow struct {
		InputIDs       []int32 `parquet:"input_ids,list"`
		AssistantMasks []int32 `parquet:"assistant_masks,list"`
		NumTokens      int64   `parquet:"num_tokens"`
	}
	tokenRowID[I string | int64] struct {
		ID *I `parquet:"id,optional"`
		tokenRow
	}
)

// jsonlRows reads a JSONL output.
func jsonlRows(t *testing.T, path string) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, m)
	}
	return rows
}

// checkOutput reads the Parquet output with parquet-go, checks its schema
// is the one parquet-go wrote for T, and compares each row with the same
// run's JSONL output.
func checkOutput[T any](t *testing.T, path, jsonlPath string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pf.Schema().String(), parquet.NewSchema("schema", parquet.SchemaOf(new(T))).String(); got != want {
		t.Fatalf("schema:\n%s\nwant (parquet-go's):\n%s", got, want)
	}
	if cb := pf.Metadata().CreatedBy; !strings.HasPrefix(cb, "beamharmony version ") {
		t.Errorf("created_by %q", cb)
	}
	rows, err := parquet.ReadFile[T](path)
	if err != nil {
		t.Fatal(err)
	}
	jsonl := jsonlRows(t, jsonlPath)
	if len(rows) != len(jsonl) || len(rows) == 0 {
		t.Fatalf("parquet-go reads %d rows, the JSONL output has %d", len(rows), len(jsonl))
	}
	for i, r := range rows {
		got, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var gm map[string]json.RawMessage
		json.Unmarshal(got, &gm)
		w := map[string]any{}
		for k, v := range jsonl[i] {
			switch k {
			case "id":
				w["ID"] = normalize(t, v)
			case "text":
				w["Text"] = normalize(t, v)
			case "assistant_spans":
				w["AssistantSpans"] = normalize(t, v)
			case "input_ids":
				w["InputIDs"] = normalize(t, v)
			case "assistant_masks":
				w["AssistantMasks"] = normalize(t, v)
			case "num_tokens":
				w["NumTokens"] = normalize(t, v)
			}
		}
		if g := normalize(t, got); !reflect.DeepEqual(g, norm(w)) {
			t.Fatalf("row %d: parquet-go reads %s\nthe JSONL output has %v", i, got, w)
		}
	}
}

// TestParquetGoReadsOutput: parquet-go reads the dataset command's Parquet
// output (text and tokens, with string, integer and no ids) row for row as
// the same run's JSONL output has it, with the schema parquet-go itself
// gave the output.
func TestParquetGoReadsOutput(t *testing.T) {
	dir := t.TempDir()
	// Inputs whose rows carry an id: a string, an integer, or none (one
	// row in three).
	inputs := map[string]string{}
	for _, kind := range []string{"string", "integer"} {
		var lines [][]byte
		for i, c := range corpus.Generate(7, 3000) {
			l := c.JSON
			switch {
			case i%3 == 2:
			case kind == "string":
				l = append([]byte(fmt.Sprintf(`{"id": "s%d", `, i)), l[1:]...)
			default:
				l = append([]byte(fmt.Sprintf(`{"id": %d, `, i*7-1000)), l[1:]...)
			}
			lines = append(lines, l)
		}
		inputs[kind] = filepath.Join(dir, kind+".jsonl")
		if err := os.WriteFile(inputs[kind], append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(c dataset.Config, kind, name string) (string, string) {
		c.Inputs, c.AllowMissingThinking = []string{inputs[kind]}, true
		limit, err := dataset.ParseRejectLimit("100%")
		if err != nil {
			t.Fatal(err)
		}
		c.MaxRejects = limit
		var outs []string
		for _, ext := range []string{".parquet", ".jsonl"} {
			c.Output = filepath.Join(dir, name+ext)
			if _, err := dataset.Run(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			outs = append(outs, c.Output)
		}
		return outs[0], outs[1]
	}
	t.Run("text", func(t *testing.T) {
		p, j := run(dataset.Config{}, "string", "text")
		checkOutput[textRow](t, p, j)
	})
	t.Run("text, string ids", func(t *testing.T) {
		p, j := run(dataset.Config{IDColumn: "id"}, "string", "text-sid")
		checkOutput[textRowID[string]](t, p, j)
	})
	t.Run("text, integer ids", func(t *testing.T) {
		p, j := run(dataset.Config{IDColumn: "id"}, "integer", "text-nid")
		checkOutput[textRowID[int64]](t, p, j)
	})
	t.Run("tokens", func(t *testing.T) {
		p, j := run(dataset.Config{Tokens: true, Render: byteTokens}, "integer", "tokens")
		checkOutput[tokenRow](t, p, j)
	})
	t.Run("tokens, integer ids", func(t *testing.T) {
		p, j := run(dataset.Config{Tokens: true, Render: byteTokens, IDColumn: "id"}, "integer", "tokens-nid")
		checkOutput[tokenRowID[int64]](t, p, j)
	})
}
