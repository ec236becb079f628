package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// A Parquet file is checked before the Parquet library reads any of it,
// because the library trusts the sizes a file declares: a page that claims
// 2 GiB uncompressed, a count of 2^31-1 values, a run-length run of 2^31-1
// levels, a gzip page that inflates past its declared size or a schema
// nested 20,000 deep each make it allocate until the process dies, which
// no recover can catch. checkFooter reads the footer with a bounded Thrift
// reader and checks the schema and every column chunk against the file's
// real size; checkRowGroup then reads every page header of a row group,
// inflates each page with a bounded reader, and walks its run-length
// streams, before the library reads the row group. Every size is bounded
// by the file and by limits derived from --max-row-bytes (parquetLimits).

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

// pageValueCost is what the library holds per value of a decoded page:
// its levels, an offset and the value.
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

// pqMeta is what the checks read of a file's footer.
type pqMeta struct {
	size      int64
	schema    []pqElement
	leaves    []pqLeaf
	rowGroups [][]pqChunk
}

type pqElement struct {
	name        string
	typ         int32 // physical type, -1 for a group
	typeLength  int32
	repetition  int32 // 0 required, 1 optional, 2 repeated; -1 unset
	numChildren int32 // -1 unset
}

// pqLeaf is a leaf column: its path and levels.
type pqLeaf struct {
	path           string
	typ            int32
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

// errDamaged marks a file the checks refuse.
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
		if len(cols) != len(m.leaves) {
			return nil, bad("row group %d has %d column chunks for %d columns", g, len(cols), len(m.leaves))
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
			case ch.numValues < 0:
				return nil, bad("%s: %d values", where, ch.numValues)
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
				tr.fields(func(id int16, typ byte) {
					if id == 1 {
						tr.list(typ, tStruct, func() { cols = append(cols, readColumnChunk(tr)) })
						return
					}
					tr.skip(typ)
				})
				m.rowGroups = append(m.rowGroups, cols)
			})
		case 8, 9:
			tr.fail("encrypted Parquet files are not supported")
		default:
			tr.skip(typ)
		}
	})
}

func readSchemaElement(tr *thriftReader) pqElement {
	e := pqElement{typ: -1, repetition: -1, numChildren: -1}
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
		m.leaves = append(m.leaves, pqLeaf{path: path, typ: e.typ, maxDef: def, maxRep: rep})
	}
	for _, f := range stack {
		if f.left != 0 {
			return errors.New("the schema ends before its groups' children")
		}
	}
	return nil
}

// rowGroupCheck is what checkRowGroup learnt of a row group.
type rowGroupCheck struct {
	// maxRowValues bounds the values of any row, all columns together.
	maxRowValues int64
}

// checkRowGroup reads every page of row group g of the file r and checks
// its declared sizes and counts against the file and the limits.
func checkRowGroup(r io.ReaderAt, m *pqMeta, g int, lim parquetLimits) (rowGroupCheck, error) {
	var res rowGroupCheck
	var held int64
	for c, ch := range m.rowGroups[g] {
		leaf := m.leaves[c]
		cc := &chunkChecker{r: r, leaf: leaf, chunk: ch, lim: lim}
		if err := cc.run(); err != nil {
			return res, fmt.Errorf("%w: row group %d, column %q, %v", errDamaged, g, leaf.path, err)
		}
		held += cc.dictCost + cc.maxPageCost
		if held > lim.rowGroupBytes {
			return res, fmt.Errorf("%w: row group %d: reading it would hold more than %d bytes (its pages are too large; see --max-row-bytes)",
				errDamaged, g, lim.rowGroupBytes)
		}
		res.maxRowValues += cc.maxRowValues
		if res.maxRowValues > lim.rowValues {
			return res, fmt.Errorf("%w: row group %d: a row holds more than %d values (see --max-row-bytes)", errDamaged, g, lim.rowValues)
		}
	}
	return res, nil
}

// chunkChecker walks the pages of one column chunk.
type chunkChecker struct {
	r     io.ReaderAt
	leaf  pqLeaf
	chunk pqChunk
	lim   parquetLimits

	dictCost, maxPageCost int64
	// Rows: the values of the row being read, and the most of any row.
	rowValues, maxRowValues int64
	started                 bool
}

// pageHeader is what the checks read of a page header.
type pageHeader struct {
	typ                          int32
	uncompressed, compressed     int32
	numValues, numNulls, numRows int32
	encoding, defEnc, repEnc     int32
	defBytes, repBytes           int32
	compressedV2                 bool
	hasData, hasDict, hasDataV2  bool
}

func (cc *chunkChecker) run() error {
	start := cc.chunk.dataOffset
	if cc.chunk.dictOffset != 0 {
		start = cc.chunk.dictOffset
	}
	end := start + cc.chunk.totalSize
	pos := start
	for page := 0; pos < end; page++ {
		h, n, err := cc.readHeader(pos, end)
		if err != nil {
			return fmt.Errorf("page %d: header: %v", page, err)
		}
		pos += n
		if err := cc.page(page, h, pos, end); err != nil {
			return fmt.Errorf("page %d: %v", page, err)
		}
		pos += int64(h.compressed)
	}
	cc.endRow()
	return nil
}

// readHeader reads the page header at pos, reading more of the chunk
// while the header does not fit (statistics may be large), up to a page's
// limit.
func (cc *chunkChecker) readHeader(pos, end int64) (pageHeader, int64, error) {
	window := min(end-pos, 4<<10)
	for {
		buf := make([]byte, window)
		if _, err := cc.r.ReadAt(buf, pos); err != nil {
			return pageHeader{}, 0, err
		}
		tr := &thriftReader{b: buf, maxCost: cc.lim.pageBytes}
		h := readPageHeader(tr)
		if tr.err == nil {
			return h, int64(tr.i), nil
		}
		if !tr.short || window == end-pos || window >= cc.lim.pageBytes {
			return pageHeader{}, 0, tr.err
		}
		window = min(end-pos, 4*window, cc.lim.pageBytes)
	}
}

func readPageHeader(tr *thriftReader) pageHeader {
	h := pageHeader{typ: -1, compressedV2: true}
	tr.fields(func(id int16, typ byte) {
		switch id {
		case 1:
			h.typ = tr.readI32(typ)
		case 2:
			h.uncompressed = tr.readI32(typ)
		case 3:
			h.compressed = tr.readI32(typ)
		case 5:
			h.hasData = true
			tr.fields(func(id int16, typ byte) {
				switch id {
				case 1:
					h.numValues = tr.readI32(typ)
				case 2:
					h.encoding = tr.readI32(typ)
				case 3:
					h.defEnc = tr.readI32(typ)
				case 4:
					h.repEnc = tr.readI32(typ)
				default:
					tr.skip(typ)
				}
			})
		case 7:
			h.hasDict = true
			tr.fields(func(id int16, typ byte) {
				switch id {
				case 1:
					h.numValues = tr.readI32(typ)
				case 2:
					h.encoding = tr.readI32(typ)
				default:
					tr.skip(typ)
				}
			})
		case 8:
			h.hasDataV2 = true
			tr.fields(func(id int16, typ byte) {
				switch id {
				case 1:
					h.numValues = tr.readI32(typ)
				case 2:
					h.numNulls = tr.readI32(typ)
				case 3:
					h.numRows = tr.readI32(typ)
				case 4:
					h.encoding = tr.readI32(typ)
				case 5:
					h.defBytes = tr.readI32(typ)
				case 6:
					h.repBytes = tr.readI32(typ)
				case 7:
					h.compressedV2 = tr.readBool(typ)
				default:
					tr.skip(typ)
				}
			})
		default:
			tr.skip(typ)
		}
	})
	return h
}

// page checks one page whose data starts at pos.
func (cc *chunkChecker) page(index int, h pageHeader, pos, end int64) error {
	lim := cc.lim
	switch {
	case h.compressed < 0 || h.uncompressed < 0 || h.numValues < 0 || h.numNulls < 0 || h.numRows < 0 || h.defBytes < 0 || h.repBytes < 0:
		return errors.New("a negative size or count")
	case int64(h.compressed) > end-pos:
		return fmt.Errorf("%d bytes, past the end of the column chunk (%d bytes left)", h.compressed, end-pos)
	case int64(h.uncompressed) > lim.pageBytes || int64(h.compressed) > lim.pageBytes:
		return fmt.Errorf("%d bytes uncompressed (%d compressed), more than the limit of %d bytes (twice --max-row-bytes)",
			h.uncompressed, h.compressed, lim.pageBytes)
	}
	cost := int64(h.uncompressed) + pageValueCost*int64(h.numValues)
	if cost > lim.rowGroupBytes {
		return fmt.Errorf("%d values in %d bytes: decoding it would take more than %d bytes (see --max-row-bytes)", h.numValues, h.uncompressed, lim.rowGroupBytes)
	}
	switch h.typ {
	case pageIndex:
		return nil // the library refuses to read it
	case pageDictionary:
		if !h.hasDict {
			return errors.New("a dictionary page without its header")
		}
		if cc.started {
			return errors.New("a dictionary page after the data pages")
		}
		data, err := cc.inflate(pos, h.compressed, h.uncompressed)
		if err != nil {
			return err
		}
		_ = data // PLAIN values: the library's decoding is bounded by them
		if h.encoding != encPlain && h.encoding != encPlainDictionary {
			return fmt.Errorf("a dictionary in %s", encodingName(h.encoding))
		}
		cc.dictCost += cost
		return nil
	case pageData:
		if !h.hasData {
			return errors.New("a data page without its header")
		}
	case pageDataV2:
		if !h.hasDataV2 {
			return errors.New("a data page without its header")
		}
	default:
		return fmt.Errorf("unknown page type %d", h.typ)
	}
	cc.started = true
	cc.maxPageCost = max(cc.maxPageCost, cost)
	n := int(h.numValues)
	var levels, values []byte
	if h.typ == pageDataV2 {
		lv := int64(h.repBytes) + int64(h.defBytes)
		if lv > int64(h.compressed) || lv > int64(h.uncompressed) {
			return fmt.Errorf("levels of %d bytes in a page of %d", lv, h.compressed)
		}
		buf := make([]byte, lv)
		if _, err := cc.r.ReadAt(buf, pos); err != nil {
			return err
		}
		levels = buf
		if h.compressedV2 {
			v, err := cc.inflate(pos+lv, h.compressed-int32(lv), h.uncompressed-int32(lv))
			if err != nil {
				return err
			}
			values = v
		} else {
			values = make([]byte, int64(h.compressed)-lv)
			if _, err := cc.r.ReadAt(values, pos+lv); err != nil {
				return err
			}
		}
		rep, def := levels[:h.repBytes], levels[h.repBytes:]
		if cc.leaf.maxRep > 0 {
			if err := cc.levels("repetition", rep, cc.leaf.maxRep, n, true); err != nil {
				return err
			}
		} else {
			cc.rows(n)
		}
		if cc.leaf.maxDef > 0 {
			if err := cc.levels("definition", def, cc.leaf.maxDef, n, false); err != nil {
				return err
			}
		}
	} else {
		data, err := cc.inflate(pos, h.compressed, h.uncompressed)
		if err != nil {
			return err
		}
		if cc.leaf.maxRep > 0 {
			if data, err = cc.levelsV1("repetition", h.repEnc, data, cc.leaf.maxRep, n, true); err != nil {
				return err
			}
		} else {
			cc.rows(n)
		}
		if cc.leaf.maxDef > 0 {
			if data, err = cc.levelsV1("definition", h.defEnc, data, cc.leaf.maxDef, n, false); err != nil {
				return err
			}
		}
		values = data
	}
	return cc.values(h.encoding, values, n)
}

// inflate reads a page's compressed bytes and inflates them with a bounded
// reader: the result must be exactly the declared size (the library
// allocates by it and would grow past it).
func (cc *chunkChecker) inflate(pos int64, compressed, uncompressed int32) ([]byte, error) {
	src := make([]byte, compressed)
	if _, err := cc.r.ReadAt(src, pos); err != nil {
		return nil, err
	}
	want := int(uncompressed)
	var (
		out []byte
		err error
	)
	switch cc.chunk.codec {
	case codecUncompressed:
		return src, nil
	case codecSnappy:
		n, derr := snappy.DecodedLen(src)
		if derr != nil {
			return nil, fmt.Errorf("snappy: %v", derr)
		}
		if n != want {
			return nil, fmt.Errorf("inflates to %d bytes, not the %d its header declares", n, want)
		}
		out, err = snappy.Decode(make([]byte, n), src)
	case codecLz4Raw:
		out = make([]byte, want)
		var n int
		n, err = lz4.UncompressBlock(src, out)
		if err == nil && n != want {
			return nil, fmt.Errorf("inflates to %d bytes, not the %d its header declares", n, want)
		}
	case codecGzip:
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(src)); err == nil {
			out, err = readBounded(zr, want)
		}
	case codecZstd:
		var zr *zstd.Decoder
		if zr, err = zstd.NewReader(bytes.NewReader(src), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(uint64(cc.lim.pageBytes)+1)); err == nil {
			out, err = readBounded(zr, want)
			zr.Close()
		}
	case codecBrotli:
		out, err = readBounded(brotli.NewReader(bytes.NewReader(src)), want)
	default:
		return nil, fmt.Errorf("compression %d is not supported", cc.chunk.codec)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", codecNames[cc.chunk.codec], err)
	}
	return out, nil
}

// readBounded reads r to its end, which must come after exactly want
// bytes; it never reads more than one byte past want.
func readBounded(r io.Reader, want int) ([]byte, error) {
	out := make([]byte, want+1)
	n, err := io.ReadFull(r, out)
	switch {
	case n > want:
		return nil, fmt.Errorf("inflates to more than the %d bytes its header declares", want)
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF):
		return nil, err
	case n < want:
		return nil, fmt.Errorf("inflates to %d bytes, not the %d its header declares", n, want)
	}
	return out[:n], nil
}

// levelsV1 checks the levels at the start of a v1 data page and returns
// the rest.
func (cc *chunkChecker) levelsV1(what string, enc int32, data []byte, max, n int, rep bool) ([]byte, error) {
	switch enc {
	case encRLE:
		if len(data) < 4 {
			return nil, fmt.Errorf("%s levels: %v", what, io.ErrUnexpectedEOF)
		}
		size := int64(binary.LittleEndian.Uint32(data))
		if size > int64(len(data)-4) {
			return nil, fmt.Errorf("%s levels of %d bytes in a page of %d", what, size, len(data)-4)
		}
		if err := cc.levels(what, data[4:4+size], max, n, rep); err != nil {
			return nil, err
		}
		return data[4+size:], nil
	case encBitPacked:
		size := (int64(n)*int64(bits.Len(uint(max))) + 7) / 8
		if size > int64(len(data)) {
			return nil, fmt.Errorf("%s levels: %v", what, io.ErrUnexpectedEOF)
		}
		if rep {
			cc.bitPackedRows(data[:size], bits.Len(uint(max)), n)
		}
		return data[size:], nil
	}
	return nil, fmt.Errorf("%s levels in %s", what, encodingName(enc))
}

// levels checks a run-length/bit-packed hybrid stream of n levels; for
// repetition levels it also counts the values of each row.
func (cc *chunkChecker) levels(what string, src []byte, max, n int, rep bool) error {
	width := bits.Len(uint(max))
	count := int64(0)
	err := walkHybrid(src, width, int64(n), func(v uint64, run int64) {
		if rep {
			cc.repRun(v, run)
		}
		count += run
	})
	if err != nil {
		return fmt.Errorf("%s levels: %v", what, err)
	}
	if count < int64(n) {
		return fmt.Errorf("%s levels: %d for %d values", what, count, n)
	}
	return nil
}

// walkHybrid walks a run-length/bit-packed hybrid stream of values of
// width bits, calling each for a run of one value (bit-packed values one
// at a time), until want values are seen. A run that would take the count
// past want (beyond a bit-packed group's padding) is an error: the library
// allocates every value of a run.
func walkHybrid(src []byte, width int, want int64, each func(v uint64, run int64)) error {
	if width > 32 {
		return fmt.Errorf("bit width %d", width)
	}
	var seen int64
	for i := 0; i < len(src) && seen < want; {
		u, n := binary.Uvarint(src[i:])
		if n <= 0 {
			return errors.New("a damaged run header")
		}
		i += n
		count := int64(u >> 1)
		if u&1 == 1 { // bit-packed: count groups of 8
			if count > (want-seen+7)/8 {
				return fmt.Errorf("a bit-packed run of %d values, more than the %d left", 8*count, want-seen)
			}
			size := int(count) * width
			if size > len(src)-i {
				return errors.New("a bit-packed run past the end of the stream")
			}
			group := src[i : i+size]
			i += size
			for k := int64(0); k < 8*count && seen < want; k++ {
				each(unpack(group, int(k), width), 1)
				seen++
			}
			continue
		}
		if count > want-seen {
			return fmt.Errorf("a run of %d values, more than the %d left", count, want-seen)
		}
		size := (width + 7) / 8
		if size > len(src)-i {
			return errors.New("a run past the end of the stream")
		}
		var v uint64
		for k := 0; k < size; k++ {
			v |= uint64(src[i+k]) << (8 * k)
		}
		i += size
		if count > 0 {
			each(v, count)
			seen += count
		}
	}
	return nil
}

// unpack returns the k-th value of width bits, little-endian bit order.
func unpack(b []byte, k, width int) uint64 {
	var v uint64
	bit := k * width
	for j := 0; j < width; j++ {
		if b[(bit+j)/8]>>((bit+j)%8)&1 == 1 {
			v |= 1 << j
		}
	}
	return v
}

// repRun counts a run of repetition levels: a 0 starts a row.
func (cc *chunkChecker) repRun(v uint64, run int64) {
	if v == 0 {
		cc.endRow()
		cc.rowValues = 1
		// The run's other zeros are rows of one value each.
		if run > 1 {
			cc.maxRowValues = max(cc.maxRowValues, 1)
		}
		return
	}
	cc.rowValues += run
	cc.maxRowValues = max(cc.maxRowValues, cc.rowValues)
}

// rows counts n rows of one value each (a column without repetition).
func (cc *chunkChecker) rows(n int) {
	if n > 0 {
		cc.maxRowValues = max(cc.maxRowValues, 1)
	}
}

func (cc *chunkChecker) endRow() {
	cc.maxRowValues = max(cc.maxRowValues, cc.rowValues)
	cc.rowValues = 0
}

func (cc *chunkChecker) bitPackedRows(src []byte, width, n int) {
	for k := 0; k < n; k++ {
		cc.repRun(unpack(src, k, width), 1)
	}
}

// values checks the values section of a data page of n values (nulls
// included).
func (cc *chunkChecker) values(enc int32, data []byte, n int) error {
	switch enc {
	case encPlain, encByteStreamSplit:
		return nil // decoded from the bytes themselves
	case encPlainDictionary, encRLEDictionary:
		if len(data) == 0 {
			if n == 0 {
				return nil
			}
			return errors.New("dictionary indexes: no bit width")
		}
		if err := walkHybrid(data[1:], int(data[0]), int64(n), func(uint64, int64) {}); err != nil {
			return fmt.Errorf("dictionary indexes: %v", err)
		}
		return nil
	case encRLE:
		if cc.leaf.typ != pqBoolean {
			return fmt.Errorf("values in RLE for a non-boolean column")
		}
		if len(data) < 4 {
			return errors.New("boolean values: no length")
		}
		size := int64(binary.LittleEndian.Uint32(data))
		if size > int64(len(data)-4) {
			return fmt.Errorf("boolean values of %d bytes in a page of %d", size, len(data)-4)
		}
		if err := walkHybrid(data[4:4+size], 1, int64(n), func(uint64, int64) {}); err != nil {
			return fmt.Errorf("boolean values: %v", err)
		}
		return nil
	case encDeltaBinary:
		// The library allocates the header's total count.
		if _, _, err := walkDelta(data, int64(n), func(int64) error { return nil }); err != nil {
			return fmt.Errorf("DELTA_BINARY_PACKED: %v", err)
		}
		return nil
	case encDeltaLengthBytes:
		// Lengths, then the bytes: the library slices the bytes.
		if _, _, err := walkDelta(data, int64(n), func(int64) error { return nil }); err != nil {
			return fmt.Errorf("DELTA_LENGTH_BYTE_ARRAY lengths: %v", err)
		}
		return nil
	case encDeltaBytes:
		// Prefix lengths, then suffix lengths, then the suffixes: each
		// value is a prefix of the one before and its suffix, so the
		// decoded size is not bounded by the bytes; it is computed here.
		var prefixes []int64
		rest, np, err := walkDelta(data, int64(n), func(v int64) error {
			prefixes = append(prefixes, v)
			return nil
		})
		if err != nil {
			return fmt.Errorf("DELTA_BYTE_ARRAY prefix lengths: %v", err)
		}
		var prev, total int64
		i := 0
		_, ns, err := walkDelta(rest, int64(n), func(suffix int64) error {
			if i >= len(prefixes) {
				return errors.New("more suffixes than prefixes")
			}
			p := prefixes[i]
			i++
			if p < 0 || suffix < 0 || p > prev {
				return fmt.Errorf("value %d: prefix %d and suffix %d after a value of %d bytes", i-1, p, suffix, prev)
			}
			prev = p + suffix
			total += prev
			if total > cc.lim.pageBytes {
				return fmt.Errorf("the values decode to more than %d bytes", cc.lim.pageBytes)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("DELTA_BYTE_ARRAY: %v", err)
		}
		if np != ns {
			return fmt.Errorf("DELTA_BYTE_ARRAY: %d prefixes for %d suffixes", np, ns)
		}
		return nil
	}
	return fmt.Errorf("values in %s are not supported", encodingName(enc))
}

// walkDelta walks a DELTA_BINARY_PACKED stream of at most maxCount
// values, calling each for every value, and returns the bytes after it
// and its count.
func walkDelta(src []byte, maxCount int64, each func(int64) error) ([]byte, int64, error) {
	tr := &thriftReader{b: src}
	blockSize := tr.uvarint()
	miniBlocks := tr.uvarint()
	total := tr.uvarint()
	v := tr.i64()
	if tr.err != nil {
		return nil, 0, fmt.Errorf("header: %v", tr.err)
	}
	switch {
	case total > uint64(maxCount):
		return nil, 0, fmt.Errorf("%d values in a page of %d", total, maxCount)
	case blockSize == 0 || blockSize > 1<<16 || blockSize%128 != 0 || miniBlocks == 0 || blockSize%miniBlocks != 0 || (blockSize/miniBlocks)%32 != 0:
		return nil, 0, fmt.Errorf("blocks of %d values in %d miniblocks", blockSize, miniBlocks)
	}
	if total == 0 {
		return src[tr.i:], 0, nil
	}
	if err := each(v); err != nil {
		return nil, 0, err
	}
	per := int(blockSize / miniBlocks)
	left := int64(total) - 1
	for left > 0 {
		minDelta := tr.i64()
		if tr.err != nil {
			return nil, 0, fmt.Errorf("block header: %v", tr.err)
		}
		if int(miniBlocks) > len(src)-tr.i {
			return nil, 0, errors.New("miniblock widths past the end")
		}
		widths := src[tr.i : tr.i+int(miniBlocks)]
		tr.i += int(miniBlocks)
		for _, w := range widths {
			if left == 0 {
				break
			}
			if w > 64 {
				return nil, 0, fmt.Errorf("a miniblock width of %d bits", w)
			}
			size := per * int(w) / 8
			if size > len(src)-tr.i {
				return nil, 0, errors.New("a miniblock past the end")
			}
			body := src[tr.i : tr.i+size]
			tr.i += size
			for k := 0; k < per && left > 0; k++ {
				v += minDelta + int64(unpack(body, k, int(w)))
				if err := each(v); err != nil {
					return nil, 0, err
				}
				left--
			}
		}
	}
	return src[tr.i:], int64(total), nil
}

// maxRowsPerRead is how many rows readRowGroup asks the library for at
// once when rows are small; with large rows it asks for fewer, so that the
// rows held stay within about rowGroupBytes.
const maxRowsPerRead = 64

// rowsPerRead returns how many rows to read at once from a row group
// whose rows hold at most maxRowValues values.
func rowsPerRead(c rowGroupCheck, lim parquetLimits) int {
	perRow := max(c.maxRowValues, 1) * 32 // a parquet.Value and the row's share
	return int(min(max(lim.rowGroupBytes/perRow, 1), maxRowsPerRead))
}
