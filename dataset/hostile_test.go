package dataset

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// Hostile Parquet files are built here from the format's own structures
// (pqbuild_test.go): a few hundred bytes each (the 256 MB value compresses
// to about 260 KB), each declaring a size that a reader trusting it would
// allocate (issue 17; parquet-go, the library the dataset package used
// before issue 35, did). checkFooter and the row group reader must refuse
// each with an error naming the problem; TestHostileParquetRun (Linux,
// without the race detector) also runs beamharmony's whole pipeline on
// each in a child process capped at 512 MiB of data.

// pqPage is one page: its header and its bytes as stored.
type pqPage struct {
	header tPageHeader
	data   []byte
}

// pqFile describes a one-row-group file of one leaf column.
type pqFile struct {
	schema []tSchemaElement
	codec  int32
	typ    int32
	path   []string
	pages  []pqPage
	// footer, when set, replaces the encoded footer.
	footer []byte
}

// write writes the file and returns its path.
func (p *pqFile) write(t testing.TB, dir, name string) string {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString("PAR1")
	start := int64(buf.Len())
	var numValues int64
	for _, pg := range p.pages {
		buf.Write(pg.header.encode())
		buf.Write(pg.data)
		if pg.header.DataPageHeader != nil {
			numValues += int64(pg.header.DataPageHeader.NumValues)
		}
	}
	size := int64(buf.Len()) - start
	footer := p.footer
	if footer == nil {
		md := tFileMetaData{
			Schema:  p.schema,
			NumRows: 1,
			RowGroups: []tRowGroup{{
				Columns: []tColumnChunk{{Type: p.typ, Path: p.path, Codec: p.codec, NumValues: numValues, Size: size, Start: start}},
				NumRows: 1,
			}},
		}
		footer = md.encode()
	}
	buf.Write(footer)
	binary.Write(&buf, binary.LittleEndian, uint32(len(footer)))
	buf.WriteString("PAR1")
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// messagesSchema is a file of one column messages: BYTE_ARRAY, required or
// optional.
func messagesSchema(optional bool) []tSchemaElement {
	rep := int32(0)
	if optional {
		rep = 1
	}
	return []tSchemaElement{
		{Name: "schema", NumChildren: ptr[int32](1)},
		{Name: "messages", Type: ptr[int32](pqByteArray), RepetitionType: ptr(rep)},
	}
}

func dataPage(uncompressed, numValues int32, data []byte) pqPage {
	return pqPage{header: tPageHeader{
		Type: pageData, UncompressedPageSize: uncompressed, CompressedPageSize: int32(len(data)),
		DataPageHeader: &tDataPageHeader{NumValues: numValues, Encoding: encPlain,
			DefinitionLevelEncoding: encRLE, RepetitionLevelEncoding: encRLE},
	}, data: data}
}

// plainValue is one PLAIN byte array value.
func plainValue(s string) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)
}

// rleLevels is a v1 page's definition levels: one run of n levels of
// value v, with its length prefix.
func rleLevels(n uint64, v byte) []byte {
	run := binary.AppendUvarint(nil, n<<1)
	run = append(run, v)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(run))), run...)
}

func gzipped(t testing.TB, write func(w io.Writer)) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	write(zw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hugeGzip is one PLAIN value of n bytes of 'a' (n a multiple of 1 MiB),
// gzipped as gzip members, which a reader inflates as one stream: the
// length prefix, then one member of 1 MiB repeated (compressing 256 MiB
// would take seconds, more under the race detector).
func hugeGzip(t testing.TB, n int) []byte {
	prefix := gzipped(t, func(w io.Writer) { binary.Write(w, binary.LittleEndian, uint32(n)) })
	mib := gzipped(t, func(w io.Writer) { w.Write(bytes.Repeat([]byte("a"), 1<<20)) })
	return append(prefix, bytes.Repeat(mib, n>>20)...)
}

// hostileCase is a hostile file and the words of its refusal.
type hostileCase struct {
	name, refusal string
	build         func(t testing.TB, dir string) string
}

var hostileCases = []hostileCase{
	{"page claims 2 GiB uncompressed", "more than the limit of", func(t testing.TB, dir string) string {
		data := gzipped(t, func(w io.Writer) { w.Write(plainValue(`[]`)) })
		return (&pqFile{schema: messagesSchema(false), codec: codecGzip, typ: pqByteArray, path: []string{"messages"},
			pages: []pqPage{dataPage(math.MaxInt32, 1, data)}}).write(t, dir, "big-page.parquet")
	}},
	{"page claims 2^31-1 values", "decoding it would take more than", func(t testing.TB, dir string) string {
		data := append(rleLevels(1, 1), plainValue(`[]`)...)
		return (&pqFile{schema: messagesSchema(true), codec: codecUncompressed, typ: pqByteArray, path: []string{"messages"},
			pages: []pqPage{dataPage(int32(len(data)), math.MaxInt32, data)}}).write(t, dir, "many-values.parquet")
	}},
	{"run-length run of 2^31-1 levels", "a run of 2147483647 values, more than the 1 left", func(t testing.TB, dir string) string {
		data := append(rleLevels(math.MaxInt32, 1), plainValue(`[]`)...)
		return (&pqFile{schema: messagesSchema(true), codec: codecUncompressed, typ: pqByteArray, path: []string{"messages"},
			pages: []pqPage{dataPage(int32(len(data)), 1, data)}}).write(t, dir, "long-run.parquet")
	}},
	{"dictionary index run of 2^31-1", "dictionary indexes: a run of 2147483647 values", func(t testing.TB, dir string) string {
		dict := plainValue(`[]`)
		idx := append([]byte{1}, binary.AppendUvarint(nil, math.MaxInt32<<1)...)
		idx = append(idx, 0)
		page := dataPage(int32(len(idx)), 1, idx)
		page.header.DataPageHeader.Encoding = encRLEDictionary
		return (&pqFile{schema: messagesSchema(false), codec: codecUncompressed, typ: pqByteArray, path: []string{"messages"},
			pages: []pqPage{{header: tPageHeader{Type: pageDictionary, UncompressedPageSize: int32(len(dict)), CompressedPageSize: int32(len(dict)),
				DictionaryPageHeader: &tDictionaryPageHeader{NumValues: 1, Encoding: encPlain}}, data: dict}, page},
		}).write(t, dir, "long-index-run.parquet")
	}},
	{"schema nested 20,000 deep", "the schema nests deeper than 64", func(t testing.TB, dir string) string {
		const depth = 20000
		schema := []tSchemaElement{{Name: "schema", NumChildren: ptr[int32](1)}}
		path := make([]string, 0, depth+1)
		for i := range depth {
			name := "g"
			if i == 0 {
				name = "messages"
			}
			schema = append(schema, tSchemaElement{Name: name, NumChildren: ptr[int32](1), RepetitionType: ptr[int32](1)})
			path = append(path, name)
		}
		schema = append(schema, tSchemaElement{Name: "v", Type: ptr[int32](pqByteArray), RepetitionType: ptr[int32](1)})
		path = append(path, "v")
		return (&pqFile{schema: schema, codec: codecUncompressed, typ: pqByteArray, path: path,
			pages: []pqPage{dataPage(0, 0, nil)}}).write(t, dir, "deep.parquet")
	}},
	{"gzip page of one 256 MB value", "more than the limit of", func(t testing.TB, dir string) string {
		const n = 256 << 20
		data := hugeGzip(t, n)
		return (&pqFile{schema: messagesSchema(false), codec: codecGzip, typ: pqByteArray, path: []string{"messages"},
			pages: []pqPage{dataPage(n+4, 1, data)}}).write(t, dir, "bomb.parquet")
	}},
	{"gzip page past its declared size", "inflates to more than the 6 bytes its header declares", func(t testing.TB, dir string) string {
		data := hugeGzip(t, 256<<20)
		return (&pqFile{schema: messagesSchema(false), codec: codecGzip, typ: pqByteArray, path: []string{"messages"},
			pages: []pqPage{dataPage(6, 1, data)}}).write(t, dir, "bomb-lie.parquet")
	}},
	{"one row of 40M values over 20 pages", "a row holds more than", func(t testing.TB, dir string) string {
		const perPage = 2_000_000
		schema := []tSchemaElement{
			{Name: "schema", NumChildren: ptr[int32](1)},
			{Name: "messages", Type: ptr[int32](pqInt32), RepetitionType: ptr[int32](2)},
		}
		dict := binary.LittleEndian.AppendUint32(nil, 7)
		pages := []pqPage{{header: tPageHeader{Type: pageDictionary, UncompressedPageSize: int32(len(dict)), CompressedPageSize: int32(len(dict)),
			DictionaryPageHeader: &tDictionaryPageHeader{NumValues: 1, Encoding: encPlain}}, data: dict}}
		for i := range 20 {
			// Repetition levels: the row starts on the first page and
			// goes on through every page.
			var rep []byte
			if i == 0 {
				rep = append(binary.AppendUvarint(nil, 1<<1), 0)
				rep = append(append(rep, binary.AppendUvarint(nil, (perPage-1)<<1)...), 1)
			} else {
				rep = append(binary.AppendUvarint(nil, perPage<<1), 1)
			}
			data := append(binary.LittleEndian.AppendUint32(nil, uint32(len(rep))), rep...)
			data = append(data, rleLevels(perPage, 1)...)
			data = append(data, 1)
			data = append(append(data, binary.AppendUvarint(nil, perPage<<1)...), 0)
			page := dataPage(int32(len(data)), perPage, data)
			page.header.DataPageHeader.Encoding = encRLEDictionary
			pages = append(pages, page)
		}
		return (&pqFile{schema: schema, codec: codecUncompressed, typ: pqInt32, path: []string{"messages"}, pages: pages}).write(t, dir, "long-row.parquet")
	}},
	{"footer list of 2^31-1 row groups", "a list of 2147483647 elements, more than the bytes left", func(t testing.TB, dir string) string {
		md := (&tFileMetaData{Schema: messagesSchema(false), NumRows: 1}).encode()
		// Replace the empty row group list (field 4: 0x19 0x0c, a list of
		// zero structs) with a list that claims 2^31-1.
		i := bytes.Index(md, []byte{0x19, 0x0c})
		if i < 0 {
			t.Fatalf("no empty row group list in %x", md)
		}
		claim := append([]byte{0x19, 0xfc}, binary.AppendUvarint(nil, math.MaxInt32)...)
		footer := append(append(append([]byte(nil), md[:i]...), claim...), md[i+2:]...)
		return (&pqFile{footer: footer}).write(t, dir, "footer-list.parquet")
	}},
}

// checkParquet reads the file at path as Run does, dropping its rows.
func checkParquet(path string, maxRowBytes int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	lim := newParquetLimits(maxRowBytes)
	m, err := checkFooter(f, fi.Size(), lim)
	if err != nil {
		return err
	}
	for g := range m.rowGroups {
		if err := newRowGroupReader(f, m, g, lim).drain(); err != nil {
			return err
		}
	}
	return nil
}

// TestHostileParquetRefused: the reader refuses every hostile file, with
// an error saying what is wrong (issue 17). It allocates nothing by the
// sizes the files declare, so this test runs in-process.
func TestHostileParquetRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range hostileCases {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.build(t, dir)
			err := checkParquet(path, DefaultMaxRowBytes)
			if !errors.Is(err, errDamaged) || !strings.Contains(err.Error(), tc.refusal) {
				t.Fatalf("checks: %v; want a refusal saying %q", err, tc.refusal)
			}
		})
	}
}

// TestParquetChecksWired: Run checks the footer when it opens a file and
// each page as it reads it, with the limits of --max-row-bytes.
func TestParquetChecksWired(t *testing.T) {
	dir := t.TempDir()
	run := func(path string, maxRowBytes int) (*Stats, error) {
		return Run(context.Background(), Config{Inputs: []string{path}, Output: filepath.Join(dir, "out.jsonl"), MaxRowBytes: maxRowBytes, Force: true})
	}
	// A schema 65 deep: refused.
	schema := []tSchemaElement{{Name: "schema", NumChildren: ptr[int32](1)}}
	var path []string
	for i := range 65 {
		name := "g"
		if i == 0 {
			name = "messages"
		}
		schema = append(schema, tSchemaElement{Name: name, NumChildren: ptr[int32](1), RepetitionType: ptr[int32](1)})
		path = append(path, name)
	}
	schema = append(schema, tSchemaElement{Name: "v", Type: ptr[int32](pqByteArray), RepetitionType: ptr[int32](1)})
	deep := (&pqFile{schema: schema, codec: codecUncompressed, typ: pqByteArray, path: append(path, "v"),
		pages: []pqPage{dataPage(0, 0, nil)}}).write(t, dir, "deep65.parquet")
	if _, err := run(deep, 0); err == nil || !strings.Contains(err.Error(), "nests deeper than 64") || !strings.Contains(err.Error(), deep) {
		t.Errorf("a schema 65 deep: %v; want the file refused", err)
	}

	// A page of 2 MiB: refused when --max-row-bytes makes the page limit
	// 1 MiB, read (one row, rejected as too long) otherwise.
	value := `[{"role": "user", "content": "` + strings.Repeat("x", 2<<20) + `"}]`
	data := plainValue(value)
	big := (&pqFile{schema: messagesSchema(false), codec: codecUncompressed, typ: pqByteArray, path: []string{"messages"},
		pages: []pqPage{dataPage(int32(len(data)), 1, data)}}).write(t, dir, "big.parquet")
	if _, err := run(big, 100); err == nil || !strings.Contains(err.Error(), "more than the limit of 1048576 bytes") {
		t.Errorf("a 2 MiB page with --max-row-bytes 100: %v; want the page refused", err)
	}
	st, err := run(big, 1<<20+1<<19)
	if err != nil || st.RowsRejected != 1 || len(st.RejectsByError) != 1 {
		t.Fatalf("a 2 MiB row with --max-row-bytes 1.5 MiB: %v, %+v; want the row rejected", err, st)
	}
	for k := range st.RejectsByError {
		if !strings.Contains(k, "longer than the limit of N bytes (--max-row-bytes)") {
			t.Errorf("reject reason %q, want the row's length over --max-row-bytes", k)
		}
	}
}
