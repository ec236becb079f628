package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Parquet input is read by the project's own reader, which trusts no size
// a file declares: a page that claims 2 GiB uncompressed, a count of
// 2^31-1 values, a run-length run of 2^31-1 levels, a gzip page that
// inflates past its declared size or a schema nested 20,000 deep are each
// refused before anything is allocated by them. checkFooter reads the
// footer with a bounded Thrift reader and checks the schema and every
// column chunk against the file's real size; a rowGroupReader
// (parquet_read.go) then reads a row group page by page, checking each
// page header, inflating each page with a bounded reader and decoding its
// levels and values (parquet_pages.go) as it assembles rows. Every size is
// bounded by the file and by limits derived from --max-row-bytes
// (parquetLimits).

// parquetLimits are the bounds a Parquet input is checked against.
type parquetLimits struct {
	// pageBytes bounds one page, compressed and uncompressed.
	pageBytes int64
	// rowGroupBytes bounds what reading a row group holds at once: for
	// every column, its dictionary and its largest page, each counted as
	// its bytes plus pageValueCost per value.
	rowGroupBytes int64
	// rowValues bounds the values of one row, all columns together.
	rowValues int64
	// footerBytes bounds the footer; footerMemory what decoding it takes.
	footerBytes, footerMemory int64
	// schemaDepth and schemaElements bound the schema.
	schemaDepth, schemaElements int
}

// pageValueCost is about what the reader holds per value of a decoded
// page: its levels and the value (or its dictionary index, or its end in
// the page's bytes).
const pageValueCost = 16

func newParquetLimits(maxRowBytes int) parquetLimits {
	row := int64(maxRowBytes)
	return parquetLimits{
		pageBytes:      max(2*row, 1<<20),
		rowGroupBytes:  max(4*row, 16<<20),
		rowValues:      max(row/8, 1<<16),
		footerBytes:    64 << 20,
		footerMemory:   256 << 20,
		schemaDepth:    64,
		schemaElements: 100_000,
	}
}

// pqMeta is what the reader reads of a file's footer.
type pqMeta struct {
	size      int64
	schema    []pqElement
	leaves    []pqLeaf
	rowGroups [][]pqChunk
	// rowGroupRows is each row group's number of rows.
	rowGroupRows []int64
	createdBy    string
}

type pqElement struct {
	name        string
	typ         int32 // physical type, -1 for a group
	typeLength  int32
	repetition  int32 // 0 required, 1 optional, 2 repeated; -1 unset
	numChildren int32 // -1 unset
	converted   int32 // converted_type, -1 unset
	// logical is the field id of the logical type annotation (1 STRING, 2
	// MAP, 3 LIST, 10 INTEGER, 12 JSON, ...), 0 for none; signed is an
	// INTEGER's.
	logical int16
	signed  bool
}

// pqLeaf is a leaf column: its path and levels.
type pqLeaf struct {
	path           string
	typ            int32
	typeLength     int32 // FIXED_LEN_BYTE_ARRAY's
	maxDef, maxRep int
}

type pqChunk struct {
	codec                             int32
	numValues                         int64
	dataOffset, dictOffset, totalSize int64
}

// Parquet physical types, page types, encodings and codecs.
const (
	pqBoolean           = 0
	pqInt32             = 1
	pqInt64             = 2
	pqInt96             = 3
	pqFloat             = 4
	pqDouble            = 5
	pqByteArray         = 6
	pqFixedLenByteArray = 7

	pageData       = 0
	pageIndex      = 1
	pageDictionary = 2
	pageDataV2     = 3

	encPlain            = 0
	encPlainDictionary  = 2
	encRLE              = 3
	encBitPacked        = 4
	encDeltaBinary      = 5
	encDeltaLengthBytes = 6
	encDeltaBytes       = 7
	encRLEDictionary    = 8
	encByteStreamSplit  = 9

	codecUncompressed = 0
	codecSnappy       = 1
	codecGzip         = 2
	codecBrotli       = 4
	codecZstd         = 6
	codecLz4Raw       = 7
)

var codecNames = map[int32]string{0: "UNCOMPRESSED", 1: "SNAPPY", 2: "GZIP", 3: "LZO", 4: "BROTLI", 5: "LZ4", 6: "ZSTD", 7: "LZ4_RAW"}

var encodingNames = map[int32]string{0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
	6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT"}

func encodingName(e int32) string {
	if n, ok := encodingNames[e]; ok {
		return n
	}
	return fmt.Sprintf("encoding %d", e)
}

// errDamaged marks a file the reader refuses.
var errDamaged = errors.New("damaged or hostile Parquet file")

// checkFooter reads and checks the footer of the Parquet file r of size
// bytes.
func checkFooter(r io.ReaderAt, size int64, lim parquetLimits) (*pqMeta, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{errDamaged}, args...)...)
	}
	if size < 12 {
		return nil, bad("%d bytes, too short for a Parquet file", size)
	}
	var head, tail [8]byte
	if _, err := r.ReadAt(head[:4], 0); err != nil {
		return nil, err
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if string(head[:4]) != "PAR1" || string(tail[4:]) != "PAR1" {
		if string(tail[4:]) == "PARE" {
			return nil, bad("encrypted Parquet files are not supported")
		}
		return nil, bad("no PAR1 magic at its start and end")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return nil, bad("the footer claims %d bytes, more than the file holds", n)
	}
	if n > lim.footerBytes {
		return nil, bad("a footer of %d bytes, more than the limit of %d", n, lim.footerBytes)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return nil, err
	}
	m := &pqMeta{size: size}
	tr := &thriftReader{b: footer, maxCost: lim.footerMemory}
	m.readFileMetaData(tr)
	if tr.err != nil {
		return nil, bad("footer: %v", tr.err)
	}
	if tr.i != len(footer) {
		return nil, bad("footer: %d bytes after the metadata", len(footer)-tr.i)
	}
	if err := m.checkSchema(lim); err != nil {
		return nil, bad("%v", err)
	}
	dataEnd := size - 8 - n
	for g, cols := range m.rowGroups {
		rows := m.rowGroupRows[g]
		switch {
		case len(cols) != len(m.leaves):
			return nil, bad("row group %d has %d column chunks for %d columns", g, len(cols), len(m.leaves))
		case rows < 0 || rows > 0 && len(cols) == 0:
			return nil, bad("row group %d: %d rows in %d columns", g, rows, len(cols))
		}
		for c, ch := range cols {
			where := fmt.Sprintf("row group %d, column %q", g, m.leaves[c].path)
			start := ch.dataOffset
			if ch.dictOffset != 0 {
				start = ch.dictOffset
			}
			switch {
			case start < 4 || ch.totalSize < 0 || ch.totalSize > dataEnd-start:
				return nil, bad("%s: its bytes [%d, +%d) are not inside the file's data (4 to %d)", where, start, ch.totalSize, dataEnd)
			case ch.dictOffset != 0 && ch.dictOffset > ch.dataOffset:
				return nil, bad("%s: the dictionary at byte %d is after the data at byte %d", where, ch.dictOffset, ch.dataOffset)
			case ch.numValues < rows:
				// Every row has at least one value (or null) in each column.
				return nil, bad("%s: %d values for %d rows", where, ch.numValues, rows)
			}
			switch ch.codec {
			case codecUncompressed, codecSnappy, codecGzip, codecBrotli, codecZstd, codecLz4Raw:
			default:
				name := codecNames[ch.codec]
				if name == "" {
					name = fmt.Sprint(ch.codec)
				}
				return nil, bad("%s: compression %s is not supported", where, name)
			}
		}
	}
	return m, nil
}

func (m *pqMeta) readFileMetaData(tr *thriftReader) {
	tr.fields(func(id int16, typ byte) {
		switch id {
		case 2:
			tr.list(typ, tStruct, func() { m.schema = append(m.schema, readSchemaElement(tr)) })
		case 4:
			tr.list(typ, tStruct, func() {
				var cols []pqChunk
				var rows int64
				tr.fields(func(id int16, typ byte) {
					switch id {
					case 1:
						tr.list(typ, tStruct, func() { cols = append(cols, readColumnChunk(tr)) })
					case 3:
						rows = tr.readI64(typ)
					default:
						tr.skip(typ)
					}
				})
				m.rowGroups = append(m.rowGroups, cols)
				m.rowGroupRows = append(m.rowGroupRows, rows)
			})
		case 6:
			if typ != tBinary {
				tr.fail("created_by: want a string")
				return
			}
			m.createdBy = string(tr.binary())
		case 8, 9:
			tr.fail("encrypted Parquet files are not supported")
		default:
			tr.skip(typ)
		}
	})
}

func readSchemaElement(tr *thriftReader) pqElement {
	e := pqElement{typ: -1, repetition: -1, numChildren: -1, converted: -1}
	tr.fields(func(id int16, typ byte) {
		switch id {
		case 1:
			e.typ = tr.readI32(typ)
		case 2:
			e.typeLength = tr.readI32(typ)
		case 3:
			e.repetition = tr.readI32(typ)
		case 4:
			if typ != tBinary {
				tr.fail("schema name: want a string")
				return
			}
			e.name = string(tr.binary())
		case 5:
			e.numChildren = tr.readI32(typ)
		case 6:
			e.converted = tr.readI32(typ)
		case 10:
			if typ != tStruct {
				tr.fail("logical type: want a struct")
				return
			}
			// A union: the one field set names the type.
			tr.fields(func(id int16, typ byte) {
				e.logical = id
				if id != 10 || typ != tStruct {
					tr.skip(typ)
					return
				}
				tr.fields(func(id int16, typ byte) {
					if id == 2 {
						e.signed = tr.readBool(typ)
						return
					}
					tr.skip(typ)
				})
			})
		default:
			tr.skip(typ)
		}
	})
	return e
}

func readColumnChunk(tr *thriftReader) pqChunk {
	var c pqChunk
	tr.fields(func(id int16, typ byte) {
		switch id {
		case 1:
			if typ == tBinary && len(tr.binary()) > 0 {
				tr.fail("a column chunk in another file (file_path) is not supported")
			}
		case 3:
			if typ != tStruct {
				tr.fail("column metadata: want a struct")
				return
			}
			tr.fields(func(id int16, typ byte) {
				switch id {
				case 4:
					c.codec = tr.readI32(typ)
				case 5:
					c.numValues = tr.readI64(typ)
				case 7:
					c.totalSize = tr.readI64(typ)
				case 9:
					c.dataOffset = tr.readI64(typ)
				case 11:
					c.dictOffset = tr.readI64(typ)
				default:
					tr.skip(typ)
				}
			})
		case 8, 9:
			tr.fail("encrypted columns are not supported")
		default:
			tr.skip(typ)
		}
	})
	return c
}

// checkSchema checks the flat schema list as a tree, without recursion,
// and lists the leaf columns with their levels.
func (m *pqMeta) checkSchema(lim parquetLimits) error {
	if len(m.schema) == 0 {
		return errors.New("no schema")
	}
	if len(m.schema) > lim.schemaElements {
		return fmt.Errorf("a schema of %d elements, more than the limit of %d", len(m.schema), lim.schemaElements)
	}
	type frame struct {
		left       int32 // children still to come
		path       string
		def, rep   int
		childDepth int
	}
	root := m.schema[0]
	if root.numChildren < 0 {
		return errors.New("the schema's root is not a group")
	}
	stack := []frame{{left: root.numChildren}}
	for i := 1; i < len(m.schema); i++ {
		for len(stack) > 0 && stack[len(stack)-1].left == 0 {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return fmt.Errorf("schema element %d is outside the root's children", i)
		}
		parent := &stack[len(stack)-1]
		parent.left--
		e := m.schema[i]
		def, rep := parent.def, parent.rep
		switch e.repetition {
		case 1:
			def++
		case 2:
			def++
			rep++
		}
		path := e.name
		if parent.path != "" {
			path = parent.path + "." + e.name
		}
		depth := len(stack)
		if depth > lim.schemaDepth {
			return fmt.Errorf("the schema nests deeper than %d at element %d", lim.schemaDepth, i)
		}
		if e.numChildren > 0 {
			if int(e.numChildren) > len(m.schema)-i-1 {
				return fmt.Errorf("schema element %d (%q) claims %d children, more than the elements after it", i, e.name, e.numChildren)
			}
			stack = append(stack, frame{left: e.numChildren, path: path, def: def, rep: rep, childDepth: depth + 1})
			continue
		}
		if e.typ < 0 {
			return fmt.Errorf("schema element %d (%q) is neither a group nor a column", i, e.name)
		}
		if e.typ == pqFixedLenByteArray && (e.typeLength < 0 || int64(e.typeLength) > lim.pageBytes) {
			return fmt.Errorf("column %q: fixed length %d out of range", path, e.typeLength)
		}
		m.leaves = append(m.leaves, pqLeaf{path: path, typ: e.typ, typeLength: e.typeLength, maxDef: def, maxRep: rep})
	}
	for _, f := range stack {
		if f.left != 0 {
			return errors.New("the schema ends before its groups' children")
		}
	}
	return nil
}
