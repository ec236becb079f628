package dataset

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
)

// atomicFile is an output written to a temporary file beside its path and
// renamed into place by commit, so that the path holds a complete file or
// nothing. It hashes what it writes.
type atomicFile struct {
	path string
	f    *os.File
	w    *bufio.Writer
	h    hash.Hash
	n    int64
}

func createAtomic(path string) (*atomicFile, error) {
	return createAtomicWrapped(path, nil)
}

func createAtomicWrapped(path string, wrap func(io.Writer) io.Writer) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	a := &atomicFile{path: path, f: f, h: sha256.New()}
	var w io.Writer = f
	if wrap != nil {
		w = wrap(w)
	}
	a.w = bufio.NewWriterSize(io.MultiWriter(w, a.h), 1<<20)
	return a, nil
}

func (a *atomicFile) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	a.n += int64(n)
	return n, err
}

// commit flushes, syncs and renames the file into place.
func (a *atomicFile) commit() error {
	if err := a.w.Flush(); err != nil {
		a.abort()
		return err
	}
	if err := a.f.Sync(); err != nil {
		a.abort()
		return err
	}
	if err := a.f.Chmod(0o644); err != nil {
		a.abort()
		return err
	}
	if err := a.f.Close(); err != nil {
		os.Remove(a.f.Name())
		return err
	}
	if err := os.Rename(a.f.Name(), a.path); err != nil {
		os.Remove(a.f.Name())
		return err
	}
	return nil
}

// abort removes the temporary file.
func (a *atomicFile) abort() {
	a.f.Close()
	os.Remove(a.f.Name())
}

func (a *atomicFile) digest() FileDigest {
	return FileDigest{Path: a.path, Bytes: a.n, SHA256: hex.EncodeToString(a.h.Sum(nil))}
}

// FileDigest names a file, its size and its sha256.
type FileDigest struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// sink is the output, fed batches in order.
type sink interface {
	write(b *batch) error
	// close ends the format (a compressed stream's end, Parquet's footer).
	close() error
	commit() error
	abort()
	digest() FileDigest
}

func newSink(c *Config, kind string) (sink, error) {
	f, err := createAtomicWrapped(c.Output, c.wrapOutput)
	if err != nil {
		return nil, err
	}
	if kind == kindParquet {
		return newParquetSink(c, f), nil
	}
	s := &jsonlSink{atomicFile: f, w: f}
	switch kind {
	case kindGzip:
		zw, _ := gzip.NewWriterLevel(f, gzip.DefaultCompression)
		s.w, s.enc = zw, zw
	case kindZstd:
		zw, err := zstd.NewWriter(f, zstd.WithEncoderConcurrency(1))
		if err != nil {
			f.abort()
			return nil, err
		}
		s.w, s.enc = zw, zw
	}
	return s, nil
}

// jsonlSink writes JSONL, compressed or not.
type jsonlSink struct {
	*atomicFile
	w   io.Writer
	enc io.Closer
}

func (s *jsonlSink) write(b *batch) error {
	_, err := s.w.Write(b.out)
	return err
}

func (s *jsonlSink) close() error {
	if s.enc != nil {
		return s.enc.Close()
	}
	return nil
}

// rowGroupBytes is about how much row data a Parquet row group holds
// before it is flushed: it bounds the writer's memory. Tests lower it.
var rowGroupBytes int64 = 32 << 20

// parquetSink writes Parquet, one row group per rowGroupBytes of data.
type parquetSink struct {
	*atomicFile
	w        *parquet.GenericWriter[any]
	buffered int64
}

func newParquetSink(c *Config, f *atomicFile) *parquetSink {
	s := newRecordSchema(c)
	w := parquet.NewGenericWriter[any](f, s.schema,
		parquet.Compression(&parquet.Snappy),
		parquet.CreatedBy("beamharmony", "dataset", ""))
	return &parquetSink{atomicFile: f, w: w}
}

func (s *parquetSink) write(b *batch) error {
	start := 0
	for i, r := range b.records {
		s.buffered += int64(len(r)) * 4
		for _, v := range r {
			if !v.IsNull() && v.Kind() == parquet.ByteArray {
				s.buffered += int64(len(v.ByteArray()))
			}
		}
		if s.buffered < rowGroupBytes {
			continue
		}
		if _, err := s.w.WriteRows(b.records[start : i+1]); err != nil {
			return err
		}
		start, s.buffered = i+1, 0
		if err := s.w.Flush(); err != nil {
			return err
		}
	}
	_, err := s.w.WriteRows(b.records[start:])
	return err
}

func (s *parquetSink) close() error { return s.w.Close() }

// record is one output row as Parquet values.
type record = parquet.Row

// recordSchema is the Parquet schema of the output rows: the id column
// when one is carried, then text and assistant_spans, or input_ids,
// assistant_masks and num_tokens. Lists are Parquet LIST groups of int64
// (spans, as pairs) or int32 (ids and masks), as Arrow writes them.
type recordSchema struct {
	t      reflect.Type
	schema *parquet.Schema
	c      *Config
}

func newRecordSchema(c *Config) *recordSchema {
	var fields []reflect.StructField
	if c.IDColumn != "" {
		fields = append(fields, reflect.StructField{Name: "ID", Type: reflect.TypeFor[*string](),
			Tag: reflect.StructTag(`parquet:"` + c.IDColumn + `,optional"`)})
	}
	if c.Tokens {
		fields = append(fields,
			reflect.StructField{Name: "InputIDs", Type: reflect.TypeFor[[]int32](), Tag: `parquet:"input_ids,list"`},
			reflect.StructField{Name: "AssistantMasks", Type: reflect.TypeFor[[]int32](), Tag: `parquet:"assistant_masks,list"`},
			reflect.StructField{Name: "NumTokens", Type: reflect.TypeFor[int64](), Tag: `parquet:"num_tokens"`})
	} else {
		fields = append(fields,
			reflect.StructField{Name: "Text", Type: reflect.TypeFor[string](), Tag: `parquet:"text"`},
			reflect.StructField{Name: "AssistantSpans", Type: reflect.TypeFor[[][]int64](), Tag: `parquet:"assistant_spans,list"`})
	}
	t := reflect.StructOf(fields)
	return &recordSchema{t: t, schema: parquet.SchemaOf(reflect.New(t).Interface()), c: c}
}

// checkIDColumn refuses an id column name that the output cannot carry.
func checkIDColumn(name string) error {
	switch {
	case name == "":
		return nil
	case strings.ContainsAny(name, ",\"`"):
		return fmt.Errorf("id column %q: a name with a comma or a quote cannot be carried", name)
	case name == "text" || name == "assistant_spans" || name == "input_ids" || name == "assistant_masks" || name == "num_tokens":
		return fmt.Errorf("id column %q: the output has a column of that name already", name)
	}
	return nil
}

// record returns one output row. A string id is carried as its value,
// another JSON value as its JSON text.
func (s *recordSchema) record(id []byte, row *Row) record {
	v := reflect.New(s.t).Elem()
	i := 0
	if s.c.IDColumn != "" {
		if id != nil && string(id) != "null" {
			var str string
			if json.Unmarshal(id, &str) != nil {
				str = string(id)
			}
			v.Field(0).Set(reflect.ValueOf(&str))
		}
		i = 1
	}
	if s.c.Tokens {
		v.Field(i).Set(reflect.ValueOf(row.InputIDs))
		v.Field(i + 1).Set(reflect.ValueOf(row.AssistantMasks))
		v.Field(i + 2).SetInt(int64(len(row.InputIDs)))
	} else {
		spans := make([][]int64, len(row.Spans))
		for j, sp := range row.Spans {
			spans[j] = []int64{int64(sp.Start), int64(sp.End)}
		}
		v.Field(i).SetString(row.Text)
		v.Field(i + 1).Set(reflect.ValueOf(spans))
	}
	return s.schema.Deconstruct(nil, v.Addr().Interface())
}
