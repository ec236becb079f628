package dataset

import (
	"encoding/binary"
	"io"
	"math/bits"

	"github.com/klauspost/compress/snappy"
)

// The Parquet output is written by the project's own writer, for the
// output's few schemas only: an optional id column (an INT64 or a STRING),
// then text and assistant_spans, or input_ids, assistant_masks and
// num_tokens. Lists are LIST groups of required elements (spans: a list of
// lists of INT64; ids and masks: lists of INT32), as Arrow writes them, and
// every column has its logical type (STRING, INT(64, signed), INT(32,
// signed)). Values are PLAIN, levels run-length/bit-packed, pages data
// pages v2 of about pageTarget bytes cut between rows, compressed with
// snappy. No statistics, page index or bloom filter is written.

// pageTarget is about how many bytes of levels and values a page holds
// before it is cut, at the next row's start. A page is then at most
// pageTarget and one row, which the reader's page limit (twice
// --max-row-bytes, at least 1 MiB) admits for a row within
// --max-row-bytes.
const pageTarget = 256 << 10

// maxPageHeader is more than a data page header takes: ten i32 fields,
// each at most six bytes, and the structs' ends.
const maxPageHeader = 80

// pqOutField is one element of the output's schema, in the footer's
// depth-first order.
type pqOutField struct {
	name        string
	typ         int32 // physical type, -1 for a group
	repetition  int32 // 0 required, 1 optional, 2 repeated
	numChildren int32
	converted   int32 // -1 for none
	logical     int16 // 0 for none, 1 STRING, 3 LIST, 10 INTEGER
	bitWidth    int8  // an INTEGER's
}

// pqOutColumn is a leaf column of the output: the page being filled and
// the row group's pages already encoded.
type pqOutColumn struct {
	path           []string
	typ            int32
	maxDef, maxRep int

	rep, def  []uint8
	values    []byte // PLAIN
	numValues int
	numNulls  int
	numRows   int

	// pages are the row group's pages, encoded, each in a buffer of its
	// own (no copying as the chunk grows).
	pages             [][]byte
	chunkValues       int64
	chunkUncompressed int64
}

// Converted types and logical types of the output's columns.
const (
	convertedUTF8  = 0
	convertedInt32 = 17
	convertedInt64 = 18

	logicalString = 1
)

func stringField(name string, repetition int32) pqOutField {
	return pqOutField{name: name, typ: pqByteArray, repetition: repetition, converted: convertedUTF8, logical: logicalString}
}

func intField(name string, typ int32, repetition int32) pqOutField {
	f := pqOutField{name: name, typ: typ, repetition: repetition, converted: convertedInt64, logical: logicalInteger, bitWidth: 64}
	if typ == pqInt32 {
		f.converted, f.bitWidth = convertedInt32, 32
	}
	return f
}

// listFields is a required LIST group of name: its repeated group list
// and, in it, the element (a leaf or a group followed by its children).
func listFields(name string, element ...pqOutField) []pqOutField {
	return append([]pqOutField{
		{name: name, typ: -1, numChildren: 1, converted: convertedList, logical: logicalList},
		{name: "list", typ: -1, repetition: 2, numChildren: 1, converted: -1},
	}, element...)
}

// pqWriter writes rows of the output's schema to out.
type pqWriter struct {
	out       io.Writer
	offset    int64
	createdBy string
	fields    []pqOutField
	cols      []*pqOutColumn
	tokens    bool
	hasID     bool
	idInt     bool

	rows      int64 // in the current row group
	buffered  int64 // row data in the current row group
	totalRows int64
	rowGroups []pqOutRowGroup
	lvls, hdr []byte
	// spare are page buffers written out, for the next row group's pages.
	spare [][]byte
	err   error
}

// pqOutRowGroup is what the footer says of a written row group.
type pqOutRowGroup struct {
	rows                     int64
	offset                   int64
	compressed, uncompressed int64
	chunks                   []pqOutChunk
}

type pqOutChunk struct {
	offset, compressed, uncompressed, values int64
}

// newPQWriter writes the magic and returns a writer of rows with an id
// column named idColumn (none when empty) of integers or strings, and
// the token columns or the text columns.
func newPQWriter(out io.Writer, createdBy string, tokens bool, idColumn string, idInt bool) *pqWriter {
	w := &pqWriter{out: out, createdBy: createdBy, tokens: tokens, hasID: idColumn != "", idInt: idInt}
	var fields []pqOutField
	if w.hasID {
		if idInt {
			fields = append(fields, intField(idColumn, pqInt64, 1))
		} else {
			fields = append(fields, stringField(idColumn, 1))
		}
		w.cols = append(w.cols, &pqOutColumn{path: []string{idColumn}, typ: fields[0].typ, maxDef: 1})
	}
	if tokens {
		fields = append(fields, listFields("input_ids", intField("element", pqInt32, 0))...)
		fields = append(fields, listFields("assistant_masks", intField("element", pqInt32, 0))...)
		fields = append(fields, intField("num_tokens", pqInt64, 0))
		w.cols = append(w.cols,
			&pqOutColumn{path: []string{"input_ids", "list", "element"}, typ: pqInt32, maxDef: 1, maxRep: 1},
			&pqOutColumn{path: []string{"assistant_masks", "list", "element"}, typ: pqInt32, maxDef: 1, maxRep: 1},
			&pqOutColumn{path: []string{"num_tokens"}, typ: pqInt64})
	} else {
		fields = append(fields, stringField("text", 0))
		inner := listFields("element", intField("element", pqInt64, 0))
		fields = append(fields, listFields("assistant_spans", inner...)...)
		w.cols = append(w.cols,
			&pqOutColumn{path: []string{"text"}, typ: pqByteArray},
			&pqOutColumn{path: []string{"assistant_spans", "list", "element", "list", "element"}, typ: pqInt64, maxDef: 2, maxRep: 2})
	}
	top := int32(2)
	if tokens {
		top = 3
	}
	if w.hasID {
		top++
	}
	w.fields = append([]pqOutField{{name: "schema", typ: -1, repetition: -1, numChildren: top, converted: -1}}, fields...)
	w.write([]byte("PAR1"))
	return w
}

func (w *pqWriter) write(p []byte) {
	if w.err != nil {
		return
	}
	n, err := w.out.Write(p)
	w.offset += int64(n)
	w.err = err
}

// add shreds a row into the columns, cutting pages between rows and
// ending the row group when it holds rowGroupBytes of row data.
func (w *pqWriter) add(r *Row, id idValue) error {
	c := 0
	if w.hasID {
		col := w.cols[0]
		switch {
		case w.idInt && id.n != nil:
			col.def = append(col.def, 1)
			col.values = binary.LittleEndian.AppendUint64(col.values, uint64(*id.n))
		case !w.idInt && id.s != nil:
			col.def = append(col.def, 1)
			col.values = appendPlainBytes(col.values, *id.s)
		default:
			col.def = append(col.def, 0)
			col.numNulls++
		}
		col.numValues++
		col.numRows++
		c++
	}
	if w.tokens {
		w.cols[c].addInt32List(r.InputIDs)
		w.cols[c+1].addInt32List(r.AssistantMasks)
		num := w.cols[c+2]
		num.values = binary.LittleEndian.AppendUint64(num.values, uint64(len(r.InputIDs)))
		num.numValues++
		num.numRows++
	} else {
		text := w.cols[c]
		text.values = appendPlainBytes(text.values, r.Text)
		text.numValues++
		text.numRows++
		spans := w.cols[c+1]
		if len(r.Spans) == 0 {
			spans.rep = append(spans.rep, 0)
			spans.def = append(spans.def, 0)
			spans.numValues++
			spans.numNulls++
		}
		for j, sp := range r.Spans {
			spans.rep = append(spans.rep, uint8(min(j, 1)), 2)
			spans.def = append(spans.def, 2, 2)
			spans.values = binary.LittleEndian.AppendUint64(spans.values, uint64(sp.Start))
			spans.values = binary.LittleEndian.AppendUint64(spans.values, uint64(sp.End))
			spans.numValues += 2
		}
		spans.numRows++
	}
	for _, col := range w.cols {
		if len(col.values)+len(col.rep)+len(col.def) >= pageTarget {
			w.flushPage(col)
		}
	}
	w.rows++
	w.buffered += rowBytes(r)
	if w.buffered >= rowGroupBytes {
		w.flushRowGroup()
	}
	return w.err
}

func (col *pqOutColumn) addInt32List(v []int32) {
	col.numRows++
	if len(v) == 0 {
		col.rep = append(col.rep, 0)
		col.def = append(col.def, 0)
		col.numValues++
		col.numNulls++
		return
	}
	col.rep = append(col.rep, 0)
	for range len(v) - 1 {
		col.rep = append(col.rep, 1)
	}
	for range v {
		col.def = append(col.def, 1)
	}
	for _, x := range v {
		col.values = binary.LittleEndian.AppendUint32(col.values, uint32(x))
	}
	col.numValues += len(v)
}

func appendPlainBytes(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// flushPage encodes the column's page into its chunk: a page header, the
// levels (run-length/bit-packed, uncompressed, as v2 pages keep them) and
// the values compressed with snappy.
func (w *pqWriter) flushPage(col *pqOutColumn) {
	if col.numValues == 0 {
		return
	}
	w.lvls = w.lvls[:0]
	if col.maxRep > 0 {
		w.lvls = appendHybrid(w.lvls, col.rep, bits.Len(uint(col.maxRep)))
	}
	repBytes := len(w.lvls)
	if col.maxDef > 0 {
		w.lvls = appendHybrid(w.lvls, col.def, bits.Len(uint(col.maxDef)))
	}
	defBytes := len(w.lvls) - repBytes
	// The page is built in one buffer, back to front: the values are
	// compressed after room for the header and the levels, then the
	// header (which holds the compressed size) and the levels are put
	// before them.
	room := maxPageHeader + len(w.lvls)
	buf := w.pageBuffer(room + snappy.MaxEncodedLen(len(col.values)))
	buf = buf[:cap(buf)]
	comp := snappy.Encode(buf[room:], col.values)
	if len(comp) > 0 && &comp[0] != &buf[room] {
		copy(buf[room:], comp) // not expected: the room suffices
	}

	var h thriftWriter
	h.b = w.hdr[:0]
	h.begin()
	h.i32(1, pageDataV2)
	h.i32(2, int32(len(w.lvls)+len(col.values)))
	h.i32(3, int32(len(w.lvls)+len(comp)))
	h.structField(8)
	h.i32(1, int32(col.numValues))
	h.i32(2, int32(col.numNulls))
	h.i32(3, int32(col.numRows))
	h.i32(4, encPlain)
	h.i32(5, int32(defBytes))
	h.i32(6, int32(repBytes))
	h.end()
	h.end()
	w.hdr = h.b
	start := maxPageHeader - len(h.b)
	copy(buf[start:], h.b)
	copy(buf[maxPageHeader:], w.lvls)
	buf = buf[start : room+len(comp)]
	col.pages = append(col.pages, buf)
	col.chunkUncompressed += int64(len(h.b) + len(w.lvls) + len(col.values))
	col.chunkValues += int64(col.numValues)
	col.rep, col.def, col.values = col.rep[:0], col.def[:0], col.values[:0]
	col.numValues, col.numNulls, col.numRows = 0, 0, 0
}

// pageBuffer returns an empty buffer of at least n bytes, a spare one
// when one is large enough.
func (w *pqWriter) pageBuffer(n int) []byte {
	for i := len(w.spare) - 1; i >= 0; i-- {
		if b := w.spare[i]; cap(b) >= n {
			w.spare[i] = w.spare[len(w.spare)-1]
			w.spare = w.spare[:len(w.spare)-1]
			return b[:0]
		}
	}
	return make([]byte, 0, n)
}

// appendHybrid appends levels of width bits in the run-length/bit-packed
// hybrid encoding: a run of eight or more equal levels that starts on a
// group boundary is one run-length run, the rest bit-packed in groups of
// eight (the last padded).
func appendHybrid(b []byte, levels []uint8, width int) []byte {
	packFrom := 0 // the start of the levels not yet written
	i := 0
	for i < len(levels) {
		run := 1
		for i+run < len(levels) && levels[i+run] == levels[i] {
			run++
		}
		if run < 8 {
			i += run
			continue
		}
		// Levels before the run go bit-packed, in whole groups of eight:
		// the run gives up its first levels to complete the last group.
		if pad := (8 - (i-packFrom)%8) % 8; pad > 0 {
			i += pad
			run -= pad
			if run < 8 {
				i += run
				continue
			}
		}
		b = appendBitPacked(b, levels[packFrom:i], width)
		b = binary.AppendUvarint(b, uint64(run)<<1)
		for k := 0; k < (width+7)/8; k++ {
			b = append(b, levels[i]>>(8*k))
		}
		i += run
		packFrom = i
	}
	return appendBitPacked(b, levels[packFrom:], width)
}

// appendBitPacked appends levels as bit-packed runs, least significant bit
// first, in groups of eight (the last padded with zeros).
func appendBitPacked(b []byte, levels []uint8, width int) []byte {
	if len(levels) == 0 {
		return b
	}
	groups := (len(levels) + 7) / 8
	b = binary.AppendUvarint(b, uint64(groups)<<1|1)
	start := len(b)
	b = append(b, make([]byte, groups*width)...)
	out := b[start:]
	for k, v := range levels {
		bit := k * width
		for j := 0; j < width; j++ {
			if v>>j&1 == 1 {
				out[(bit+j)/8] |= 1 << ((bit + j) % 8)
			}
		}
	}
	return b
}

// flushRowGroup writes the row group's column chunks, one after another.
func (w *pqWriter) flushRowGroup() {
	if w.rows == 0 {
		return
	}
	rg := pqOutRowGroup{rows: w.rows, offset: w.offset}
	for _, col := range w.cols {
		w.flushPage(col)
		ch := pqOutChunk{offset: w.offset, uncompressed: col.chunkUncompressed, values: col.chunkValues}
		for _, p := range col.pages {
			w.write(p)
		}
		ch.compressed = w.offset - ch.offset
		rg.chunks = append(rg.chunks, ch)
		rg.compressed += ch.compressed
		rg.uncompressed += ch.uncompressed
		w.spare = append(w.spare, col.pages...)
		clear(col.pages)
		col.pages, col.chunkUncompressed, col.chunkValues = col.pages[:0], 0, 0
	}
	w.rowGroups = append(w.rowGroups, rg)
	w.totalRows += w.rows
	w.rows, w.buffered = 0, 0
}

// flush is the rowWriter's write: rows are written by add.
func (w *pqWriter) flush() error { return w.err }

// close writes the last row group and the footer.
func (w *pqWriter) close() error {
	w.flushRowGroup()
	footer := w.footer()
	w.write(footer)
	w.write(binary.LittleEndian.AppendUint32(nil, uint32(len(footer))))
	w.write([]byte("PAR1"))
	return w.err
}

// footer encodes the FileMetaData.
func (w *pqWriter) footer() []byte {
	var t thriftWriter
	t.begin()
	t.i32(1, 2) // version
	t.list(2, tStruct, len(w.fields))
	for _, f := range w.fields {
		t.begin()
		if f.typ >= 0 {
			t.i32(1, f.typ)
		}
		if f.repetition >= 0 {
			t.i32(3, f.repetition)
		}
		t.str(4, f.name)
		if f.typ < 0 {
			t.i32(5, f.numChildren)
		}
		if f.converted >= 0 {
			t.i32(6, f.converted)
		}
		if f.logical != 0 {
			t.structField(10)
			if f.logical == logicalInteger {
				t.structField(logicalInteger)
				t.i8(1, f.bitWidth)
				t.boolean(2, true)
				t.end()
			} else {
				t.emptyStruct(f.logical)
			}
			t.end()
		}
		t.end()
	}
	t.i64(3, w.totalRows)
	t.list(4, tStruct, len(w.rowGroups))
	for i, rg := range w.rowGroups {
		t.begin()
		t.list(1, tStruct, len(rg.chunks))
		for c, ch := range rg.chunks {
			col := w.cols[c]
			t.begin()
			t.i64(2, ch.offset)
			t.structField(3)
			t.i32(1, col.typ)
			if col.maxDef > 0 || col.maxRep > 0 {
				t.list(2, tI32, 2)
				t.elemI32(encPlain)
				t.elemI32(encRLE)
			} else {
				t.list(2, tI32, 1)
				t.elemI32(encPlain)
			}
			t.list(3, tBinary, len(col.path))
			for _, p := range col.path {
				t.elemStr(p)
			}
			t.i32(4, codecSnappy)
			t.i64(5, ch.values)
			t.i64(6, ch.uncompressed)
			t.i64(7, ch.compressed)
			t.i64(9, ch.offset)
			t.end()
			t.end()
		}
		t.i64(2, rg.uncompressed)
		t.i64(3, rg.rows)
		t.i64(5, rg.offset)
		t.i64(6, rg.compressed)
		t.field(7, tI16)
		t.b = binary.AppendVarint(t.b, int64(i))
		t.end()
	}
	t.str(6, w.createdBy)
	// Column orders: the type-defined order for every column.
	t.list(7, tStruct, len(w.cols))
	for range w.cols {
		t.begin()
		t.emptyStruct(1)
		t.end()
	}
	t.end()
	return t.b
}
