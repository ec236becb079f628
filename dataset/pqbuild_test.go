package dataset

import (
	"encoding/binary"
	"os"
	"testing"
)

// Parquet metadata as tests build it (hostile and hand-made files),
// encoded with the package's thriftWriter: the fields of the format's
// structures the tests set, under the format's names.

type tSchemaElement struct {
	Name           string
	Type           *int32
	RepetitionType *int32
	NumChildren    *int32
	ConvertedType  *int32
}

type tDataPageHeader struct {
	NumValues, Encoding, DefinitionLevelEncoding, RepetitionLevelEncoding int32
}

type tDictionaryPageHeader struct {
	NumValues, Encoding int32
}

type tPageHeader struct {
	Type                 int32
	UncompressedPageSize int32
	CompressedPageSize   int32
	DataPageHeader       *tDataPageHeader
	DictionaryPageHeader *tDictionaryPageHeader
}

type tColumnChunk struct {
	Type                   int32
	Path                   []string
	Codec                  int32
	NumValues, Size, Start int64
}

type tRowGroup struct {
	Columns []tColumnChunk
	NumRows int64
}

type tFileMetaData struct {
	Schema    []tSchemaElement
	NumRows   int64
	RowGroups []tRowGroup
}

func ptr[T any](v T) *T { return &v }

func (h *tPageHeader) encode() []byte {
	var w thriftWriter
	w.begin()
	w.i32(1, h.Type)
	w.i32(2, h.UncompressedPageSize)
	w.i32(3, h.CompressedPageSize)
	if d := h.DataPageHeader; d != nil {
		w.structField(5)
		w.i32(1, d.NumValues)
		w.i32(2, d.Encoding)
		w.i32(3, d.DefinitionLevelEncoding)
		w.i32(4, d.RepetitionLevelEncoding)
		w.end()
	}
	if d := h.DictionaryPageHeader; d != nil {
		w.structField(7)
		w.i32(1, d.NumValues)
		w.i32(2, d.Encoding)
		w.end()
	}
	w.end()
	return w.b
}

func (m *tFileMetaData) encode() []byte {
	var w thriftWriter
	w.begin()
	w.i32(1, 1)
	w.list(2, tStruct, len(m.Schema))
	for _, e := range m.Schema {
		w.begin()
		if e.Type != nil {
			w.i32(1, *e.Type)
		}
		if e.RepetitionType != nil {
			w.i32(3, *e.RepetitionType)
		}
		w.str(4, e.Name)
		if e.NumChildren != nil {
			w.i32(5, *e.NumChildren)
		}
		if e.ConvertedType != nil {
			w.i32(6, *e.ConvertedType)
		}
		w.end()
	}
	w.i64(3, m.NumRows)
	w.list(4, tStruct, len(m.RowGroups))
	for _, rg := range m.RowGroups {
		w.begin()
		w.list(1, tStruct, len(rg.Columns))
		var size int64
		for _, c := range rg.Columns {
			w.begin()
			w.i64(2, c.Start)
			w.structField(3)
			w.i32(1, c.Type)
			w.list(2, tI32, 2)
			w.elemI32(encPlain)
			w.elemI32(encRLE)
			w.list(3, tBinary, len(c.Path))
			for _, p := range c.Path {
				w.elemStr(p)
			}
			w.i32(4, c.Codec)
			w.i64(5, c.NumValues)
			w.i64(6, c.Size)
			w.i64(7, c.Size)
			w.i64(9, c.Start)
			w.end()
			w.end()
			size += c.Size
		}
		w.i64(2, size)
		w.i64(3, rg.NumRows)
		w.end()
	}
	w.end()
	return w.b
}

// writeStringColumns writes a Parquet file of string columns (a nil value
// is a null of an optional column), perGroup rows to a row group, each
// column chunk one uncompressed v1 page of PLAIN values with run-length
// definition levels.
func writeStringColumns(t testing.TB, path string, names []string, optional []bool, rows [][]*string, perGroup int) {
	t.Helper()
	md := tFileMetaData{Schema: []tSchemaElement{{Name: "schema", NumChildren: ptr(int32(len(names)))}}, NumRows: int64(len(rows))}
	for c, name := range names {
		md.Schema = append(md.Schema, tSchemaElement{Name: name, Type: ptr[int32](pqByteArray), RepetitionType: ptr(int32(btoi(optional[c]))),
			ConvertedType: ptr[int32](convertedUTF8)})
	}
	buf := []byte("PAR1")
	for start := 0; start < len(rows); start += perGroup {
		group := rows[start:min(start+perGroup, len(rows))]
		rg := tRowGroup{NumRows: int64(len(group))}
		for c, name := range names {
			var data, levels []byte
			var defs []uint8
			for _, r := range group {
				if r[c] == nil {
					if !optional[c] {
						t.Fatalf("column %s: a null in a required column", name)
					}
					defs = append(defs, 0)
					continue
				}
				defs = append(defs, 1)
				data = appendPlainBytes(data, *r[c])
			}
			if optional[c] {
				levels = appendHybrid(nil, defs, 1)
				levels = append(binary.LittleEndian.AppendUint32(nil, uint32(len(levels))), levels...)
			}
			page := append(levels, data...)
			h := tPageHeader{Type: pageData, UncompressedPageSize: int32(len(page)), CompressedPageSize: int32(len(page)),
				DataPageHeader: &tDataPageHeader{NumValues: int32(len(group)), Encoding: encPlain, DefinitionLevelEncoding: encRLE, RepetitionLevelEncoding: encRLE}}
			chunkStart := int64(len(buf))
			buf = append(buf, h.encode()...)
			buf = append(buf, page...)
			rg.Columns = append(rg.Columns, tColumnChunk{Type: pqByteArray, Path: []string{name}, Codec: codecUncompressed,
				NumValues: int64(len(group)), Size: int64(len(buf)) - chunkStart, Start: chunkStart})
		}
		md.RowGroups = append(md.RowGroups, rg)
	}
	footer := md.encode()
	buf = append(buf, footer...)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(footer)))
	buf = append(buf, "PAR1"...)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
