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

// A columnReader reads the values of one column chunk a page at a time:
// it reads a page header, checks the page's declared sizes against the
// chunk and the limits, inflates it with a bounded reader, and decodes its
// levels and values into a decodedPage, whose values it then hands out one at
// a time. Nothing is allocated by a count or size the file declares until
// that count or size has been checked against the bytes that hold it and
// against the limits.
type columnReader struct {
	r     io.ReaderAt
	leaf  pqLeaf
	chunk pqChunk
	lim   parquetLimits
	// held is what the row group's readers hold, together: each reader's
	// dictionary and current page (their costs).
	held *int64

	pos, end int64
	page     int // the index of the next page
	started  bool
	hasDict  bool
	dict     pqValues
	dictCost int64
	pageCost int64
	cur      decodedPage
}

// decodedPage is a decoded data page, read from its start.
type decodedPage struct {
	n        int     // values, nulls included
	rep, def []uint8 // nil when the column's maximum level is 0
	vals     pqValues
	idx      []uint32 // dictionary indexes, for a dictionary-encoded page
	dict     bool
	i, vi    int // the next level and the next value
}

// pqValues are the values (nulls excluded) of a page or a dictionary: the
// values of a fixed-size numeric type in nums, those of a byte type
// (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY, INT96) as data[offs[2k]:offs[2k+1]].
type pqValues struct {
	nums []uint64
	data []byte
	offs []uint32
}

func (v *pqValues) count(typ int32) int {
	if isByteType(typ) {
		return len(v.offs) / 2
	}
	return len(v.nums)
}

func isByteType(typ int32) bool {
	return typ == pqByteArray || typ == pqFixedLenByteArray || typ == pqInt96
}

// pageHeader is what the reader reads of a page header.
type pageHeader struct {
	typ                          int32
	uncompressed, compressed     int32
	numValues, numNulls, numRows int32
	encoding, defEnc, repEnc     int32
	defBytes, repBytes           int32
	compressedV2                 bool
	hasData, hasDict, hasDataV2  bool
}

func newColumnReader(r io.ReaderAt, leaf pqLeaf, chunk pqChunk, lim parquetLimits, held *int64) *columnReader {
	start := chunk.dataOffset
	if chunk.dictOffset != 0 {
		start = chunk.dictOffset
	}
	return &columnReader{r: r, leaf: leaf, chunk: chunk, lim: lim, held: held, pos: start, end: start + chunk.totalSize}
}

// more reports whether the chunk holds another value, reading pages until
// one with values comes or the chunk ends.
func (c *columnReader) more() (bool, error) {
	for c.cur.i >= c.cur.n {
		if c.pos >= c.end {
			return false, nil
		}
		if err := c.nextPage(); err != nil {
			return false, err
		}
	}
	return true, nil
}

// nextRep returns the repetition level of the next value; more must have
// returned true.
func (c *columnReader) nextRep() int {
	if c.cur.rep == nil {
		return 0
	}
	return int(c.cur.rep[c.cur.i])
}

// next returns the next value, appending its bytes to row.data; more must
// have returned true.
func (c *columnReader) next(row *pqRow) pqValue {
	p := &c.cur
	v := pqValue{kind: int8(c.leaf.typ), def: uint8(c.leaf.maxDef)}
	if p.def != nil {
		v.def = p.def[p.i]
	}
	if p.rep != nil {
		v.rep = p.rep[p.i]
	}
	p.i++
	if int(v.def) < c.leaf.maxDef {
		v.null = true
		return v
	}
	k := p.vi
	p.vi++
	vals := &p.vals
	if p.dict {
		k = int(p.idx[k])
		vals = &c.dict
	}
	if isByteType(c.leaf.typ) {
		b := vals.data[vals.offs[2*k]:vals.offs[2*k+1]]
		v.off, v.n = uint32(len(row.data)), uint32(len(b))
		row.data = append(row.data, b...)
	} else {
		v.u = vals.nums[k]
	}
	return v
}

func (c *columnReader) nextPage() error {
	index := c.page
	c.page++
	h, n, err := c.readHeader(c.pos, c.end)
	if err != nil {
		return fmt.Errorf("page %d: header: %v", index, err)
	}
	pos := c.pos + n
	if err := c.readPage(h, pos, c.end); err != nil {
		return fmt.Errorf("page %d: %v", index, err)
	}
	c.pos = pos + int64(h.compressed)
	return nil
}

// readHeader reads the page header at pos, reading more of the chunk
// while the header does not fit (statistics may be large), up to a page's
// limit.
func (c *columnReader) readHeader(pos, end int64) (pageHeader, int64, error) {
	window := min(end-pos, 4<<10)
	for {
		buf := make([]byte, window)
		if _, err := c.r.ReadAt(buf, pos); err != nil {
			return pageHeader{}, 0, err
		}
		tr := &thriftReader{b: buf, maxCost: c.lim.pageBytes}
		h := readPageHeader(tr)
		if tr.err == nil {
			return h, int64(tr.i), nil
		}
		if !tr.short || window == end-pos || window >= c.lim.pageBytes {
			return pageHeader{}, 0, tr.err
		}
		window = min(end-pos, 4*window, c.lim.pageBytes)
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

// hold records that the dictionary or (page) the current data page now
// holds cost, and checks what the row group's readers hold together.
func (c *columnReader) hold(page bool, cost int64) error {
	slot := &c.dictCost
	if page {
		slot = &c.pageCost
	}
	*c.held += cost - *slot
	*slot = cost
	if *c.held > c.lim.rowGroupBytes {
		return fmt.Errorf("reading the row group would hold more than %d bytes (its pages are too large; see --max-row-bytes)", c.lim.rowGroupBytes)
	}
	return nil
}

// readPage checks and decodes the page whose data starts at pos.
func (c *columnReader) readPage(h pageHeader, pos, end int64) error {
	lim := c.lim
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
		return nil // an index page: no values
	case pageDictionary:
		if !h.hasDict {
			return errors.New("a dictionary page without its header")
		}
		if c.started {
			return errors.New("a dictionary page after the data pages")
		}
		if c.hasDict {
			return errors.New("a second dictionary page")
		}
		if h.encoding != encPlain && h.encoding != encPlainDictionary {
			return fmt.Errorf("a dictionary in %s", encodingName(h.encoding))
		}
		if err := c.hold(false, cost); err != nil {
			return err
		}
		data, err := c.inflate(pos, h.compressed, h.uncompressed)
		if err != nil {
			return err
		}
		if c.dict, err = c.plain(data, int(h.numValues)); err != nil {
			return fmt.Errorf("dictionary: %v", err)
		}
		c.hasDict = true
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
	c.started = true
	c.cur = decodedPage{}
	if err := c.hold(true, cost); err != nil {
		return err
	}
	n := int(h.numValues)
	p := decodedPage{n: n}
	var values []byte
	leaf := c.leaf
	if h.typ == pageDataV2 {
		lv := int64(h.repBytes) + int64(h.defBytes)
		if lv > int64(h.compressed) || lv > int64(h.uncompressed) {
			return fmt.Errorf("levels of %d bytes in a page of %d", lv, h.compressed)
		}
		levels := make([]byte, lv)
		if _, err := c.r.ReadAt(levels, pos); err != nil {
			return err
		}
		if h.compressedV2 {
			v, err := c.inflate(pos+lv, h.compressed-int32(lv), h.uncompressed-int32(lv))
			if err != nil {
				return err
			}
			values = v
		} else {
			values = make([]byte, int64(h.compressed)-lv)
			if _, err := c.r.ReadAt(values, pos+lv); err != nil {
				return err
			}
		}
		var err error
		if leaf.maxRep > 0 {
			if p.rep, err = decodeLevels("repetition", levels[:h.repBytes], leaf.maxRep, n); err != nil {
				return err
			}
		}
		if leaf.maxDef > 0 {
			if p.def, err = decodeLevels("definition", levels[h.repBytes:], leaf.maxDef, n); err != nil {
				return err
			}
		}
	} else {
		data, err := c.inflate(pos, h.compressed, h.uncompressed)
		if err != nil {
			return err
		}
		if leaf.maxRep > 0 {
			if p.rep, data, err = levelsV1("repetition", h.repEnc, data, leaf.maxRep, n); err != nil {
				return err
			}
		}
		if leaf.maxDef > 0 {
			if p.def, data, err = levelsV1("definition", h.defEnc, data, leaf.maxDef, n); err != nil {
				return err
			}
		}
		values = data
	}
	present := n
	if p.def != nil {
		present = 0
		for _, d := range p.def {
			if int(d) == leaf.maxDef {
				present++
			}
		}
	}
	if err := c.values(&p, h.encoding, values, present); err != nil {
		return err
	}
	c.cur = p
	return nil
}

// inflate reads a page's compressed bytes and inflates them with a bounded
// reader: the result must be exactly the declared size.
func (c *columnReader) inflate(pos int64, compressed, uncompressed int32) ([]byte, error) {
	src := make([]byte, compressed)
	if _, err := c.r.ReadAt(src, pos); err != nil {
		return nil, err
	}
	want := int(uncompressed)
	var (
		out []byte
		err error
	)
	switch c.chunk.codec {
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
			zstd.WithDecoderMaxMemory(uint64(c.lim.pageBytes)+1)); err == nil {
			out, err = readBounded(zr, want)
			zr.Close()
		}
	case codecBrotli:
		out, err = readBounded(brotli.NewReader(bytes.NewReader(src)), want)
	default:
		return nil, fmt.Errorf("compression %d is not supported", c.chunk.codec)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", codecNames[c.chunk.codec], err)
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

// levelsV1 decodes the levels at the start of a v1 data page and returns
// them and the rest.
func levelsV1(what string, enc int32, data []byte, max, n int) ([]uint8, []byte, error) {
	switch enc {
	case encRLE:
		if len(data) < 4 {
			return nil, nil, fmt.Errorf("%s levels: %v", what, io.ErrUnexpectedEOF)
		}
		size := int64(binary.LittleEndian.Uint32(data))
		if size > int64(len(data)-4) {
			return nil, nil, fmt.Errorf("%s levels of %d bytes in a page of %d", what, size, len(data)-4)
		}
		levels, err := decodeLevels(what, data[4:4+size], max, n)
		if err != nil {
			return nil, nil, err
		}
		return levels, data[4+size:], nil
	case encBitPacked:
		// The deprecated packing: most significant bit first.
		width := bits.Len(uint(max))
		size := (int64(n)*int64(width) + 7) / 8
		if size > int64(len(data)) {
			return nil, nil, fmt.Errorf("%s levels: %v", what, io.ErrUnexpectedEOF)
		}
		levels := make([]uint8, n)
		for k := range levels {
			var v int
			for j := range width {
				bit := k*width + j
				v = v<<1 | int(data[bit/8]>>(7-bit%8)&1)
			}
			if v > max {
				return nil, nil, fmt.Errorf("%s levels: level %d above the maximum %d", what, v, max)
			}
			levels[k] = uint8(v)
		}
		return levels, data[size:], nil
	}
	return nil, nil, fmt.Errorf("%s levels in %s", what, encodingName(enc))
}

// decodeLevels decodes a run-length/bit-packed hybrid stream of n levels
// of at most max.
func decodeLevels(what string, src []byte, max, n int) ([]uint8, error) {
	levels := make([]uint8, 0, n)
	bad := -1
	err := walkHybrid(src, bits.Len(uint(max)), int64(n), func(v uint64, run int64) {
		if v > uint64(max) {
			bad = int(min(v, 1<<31))
			v = 0
		}
		for ; run > 0; run-- {
			levels = append(levels, uint8(v))
		}
	})
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s levels: %v", what, err)
	case bad >= 0:
		return nil, fmt.Errorf("%s levels: level %d above the maximum %d", what, bad, max)
	case len(levels) < n:
		return nil, fmt.Errorf("%s levels: %d for %d values", what, len(levels), n)
	}
	return levels, nil
}

// walkHybrid walks a run-length/bit-packed hybrid stream of values of
// width bits, calling each for a run of one value (bit-packed values one
// at a time), until want values are seen. A run that would take the count
// past want (beyond a bit-packed group's padding) is an error.
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

// unpack returns the k-th value of width bits (at most 64), packed least
// significant bit first; b holds every bit of it.
func unpack(b []byte, k, width int) uint64 {
	if width == 0 {
		return 0
	}
	bit := k * width
	i, shift := bit>>3, uint(bit&7)
	var w uint64
	if i+8 <= len(b) {
		w = binary.LittleEndian.Uint64(b[i:])
	} else {
		for j := 0; i+j < len(b); j++ {
			w |= uint64(b[i+j]) << (8 * j)
		}
	}
	v := w >> shift
	if int(shift)+width > 64 {
		v |= uint64(b[i+8]) << (64 - shift)
	}
	if width < 64 {
		v &= 1<<width - 1
	}
	return v
}

// plain decodes n PLAIN values of the column's type.
func (c *columnReader) plain(data []byte, n int) (pqValues, error) {
	var v pqValues
	size := 0
	switch c.leaf.typ {
	case pqBoolean:
		if int64(n) > 8*int64(len(data)) {
			return v, fmt.Errorf("%d booleans in %d bytes", n, len(data))
		}
		v.nums = make([]uint64, n)
		for k := range v.nums {
			v.nums[k] = uint64(data[k/8] >> (k % 8) & 1)
		}
		return v, nil
	case pqInt32, pqFloat:
		size = 4
	case pqInt64, pqDouble:
		size = 8
	case pqInt96:
		size = 12
	case pqFixedLenByteArray:
		size = int(c.leaf.typeLength)
	case pqByteArray:
		v.data = data
		v.offs = make([]uint32, 0, 2*min(n, len(data)/4+1))
		at := 0
		for k := 0; k < n; k++ {
			if len(data)-at < 4 {
				return v, fmt.Errorf("value %d of %d: %v", k, n, io.ErrUnexpectedEOF)
			}
			l := int64(binary.LittleEndian.Uint32(data[at:]))
			at += 4
			if l > int64(len(data)-at) {
				return v, fmt.Errorf("value %d of %d: %d bytes, past the end of the page", k, n, l)
			}
			v.offs = append(v.offs, uint32(at), uint32(at+int(l)))
			at += int(l)
		}
		return v, nil
	default:
		return v, fmt.Errorf("physical type %d", c.leaf.typ)
	}
	if int64(n)*int64(size) > int64(len(data)) {
		return v, fmt.Errorf("%d values of %d bytes in %d bytes", n, size, len(data))
	}
	if isByteType(c.leaf.typ) {
		v.data = data
		v.offs = make([]uint32, 2*n)
		for k := range n {
			v.offs[2*k], v.offs[2*k+1] = uint32(k*size), uint32((k+1)*size)
		}
		return v, nil
	}
	v.nums = make([]uint64, n)
	for k := range v.nums {
		if size == 4 {
			v.nums[k] = uint64(binary.LittleEndian.Uint32(data[4*k:]))
		} else {
			v.nums[k] = binary.LittleEndian.Uint64(data[8*k:])
		}
	}
	return v, nil
}

// values decodes the values section of a data page: n values, its nulls
// excluded.
func (c *columnReader) values(p *decodedPage, enc int32, data []byte, n int) error {
	typ := c.leaf.typ
	var err error
	switch enc {
	case encPlain:
		p.vals, err = c.plain(data, n)
		if err != nil {
			return fmt.Errorf("PLAIN values: %v", err)
		}
		return nil
	case encPlainDictionary, encRLEDictionary:
		if !c.hasDict {
			return errors.New("dictionary indexes without a dictionary page")
		}
		if n == 0 {
			p.dict = true
			return nil
		}
		if len(data) == 0 {
			return errors.New("dictionary indexes: no bit width")
		}
		size := uint64(c.dict.count(typ))
		p.idx = make([]uint32, 0, n)
		bad := false
		err := walkHybrid(data[1:], int(data[0]), int64(n), func(v uint64, run int64) {
			if v >= size {
				bad = true
				v = 0
			}
			for ; run > 0; run-- {
				p.idx = append(p.idx, uint32(v))
			}
		})
		switch {
		case err != nil:
			return fmt.Errorf("dictionary indexes: %v", err)
		case bad:
			return fmt.Errorf("dictionary indexes: an index past the dictionary's %d values", size)
		case len(p.idx) < n:
			return fmt.Errorf("dictionary indexes: %d for %d values", len(p.idx), n)
		}
		p.dict = true
		return nil
	case encRLE:
		if typ != pqBoolean {
			return fmt.Errorf("values in RLE for a non-boolean column")
		}
		if len(data) < 4 {
			return errors.New("boolean values: no length")
		}
		size := int64(binary.LittleEndian.Uint32(data))
		if size > int64(len(data)-4) {
			return fmt.Errorf("boolean values of %d bytes in a page of %d", size, len(data)-4)
		}
		p.vals.nums = make([]uint64, 0, n)
		err := walkHybrid(data[4:4+size], 1, int64(n), func(v uint64, run int64) {
			for ; run > 0; run-- {
				p.vals.nums = append(p.vals.nums, v)
			}
		})
		if err == nil && len(p.vals.nums) < n {
			err = fmt.Errorf("%d for %d values", len(p.vals.nums), n)
		}
		if err != nil {
			return fmt.Errorf("boolean values: %v", err)
		}
		return nil
	case encDeltaBinary:
		if typ != pqInt32 && typ != pqInt64 {
			return errors.New("DELTA_BINARY_PACKED values for a column that is not of integers")
		}
		p.vals.nums = make([]uint64, 0, n)
		_, got, err := walkDelta(data, int64(n), func(v int64) error {
			if typ == pqInt32 {
				v = int64(uint32(v))
			}
			p.vals.nums = append(p.vals.nums, uint64(v))
			return nil
		})
		if err == nil && got != int64(n) {
			err = fmt.Errorf("%d values for %d", got, n)
		}
		if err != nil {
			return fmt.Errorf("DELTA_BINARY_PACKED: %v", err)
		}
		return nil
	case encDeltaLengthBytes:
		if typ != pqByteArray {
			return errors.New("DELTA_LENGTH_BYTE_ARRAY values for a column that is not BYTE_ARRAY")
		}
		var lengths []int64
		rest, got, err := walkDelta(data, int64(n), func(l int64) error {
			lengths = append(lengths, l)
			return nil
		})
		if err == nil && got != int64(n) {
			err = fmt.Errorf("%d lengths for %d values", got, n)
		}
		if err != nil {
			return fmt.Errorf("DELTA_LENGTH_BYTE_ARRAY lengths: %v", err)
		}
		p.vals.data = rest
		p.vals.offs = make([]uint32, 0, 2*n)
		at := int64(0)
		for k, l := range lengths {
			if l < 0 || l > int64(len(rest))-at {
				return fmt.Errorf("DELTA_LENGTH_BYTE_ARRAY: value %d of %d bytes, past the end of the page", k, l)
			}
			p.vals.offs = append(p.vals.offs, uint32(at), uint32(at+l))
			at += l
		}
		return nil
	case encDeltaBytes:
		if typ != pqByteArray && typ != pqFixedLenByteArray {
			return errors.New("DELTA_BYTE_ARRAY values for a column that is not of byte arrays")
		}
		return c.deltaBytes(p, data, n)
	case encByteStreamSplit:
		return c.byteStreamSplit(p, data, n)
	}
	return fmt.Errorf("values in %s are not supported", encodingName(enc))
}

// deltaBytes decodes DELTA_BYTE_ARRAY: prefix lengths, then suffix
// lengths, then the suffixes; each value is a prefix of the one before and
// its suffix, so the decoded size is not bounded by the bytes: it is
// checked against the page limit as it grows.
func (c *columnReader) deltaBytes(p *decodedPage, data []byte, n int) error {
	var prefixes []int64
	rest, np, err := walkDelta(data, int64(n), func(v int64) error {
		prefixes = append(prefixes, v)
		return nil
	})
	if err != nil {
		return fmt.Errorf("DELTA_BYTE_ARRAY prefix lengths: %v", err)
	}
	var suffixes []int64
	rest, ns, err := walkDelta(rest, int64(n), func(v int64) error {
		suffixes = append(suffixes, v)
		return nil
	})
	if err != nil {
		return fmt.Errorf("DELTA_BYTE_ARRAY suffix lengths: %v", err)
	}
	if np != ns || np != int64(n) {
		return fmt.Errorf("DELTA_BYTE_ARRAY: %d prefixes and %d suffixes for %d values", np, ns, n)
	}
	var out []byte
	offs := make([]uint32, 0, 2*n)
	var prev []byte
	at := int64(0)
	for k := range n {
		pre, suf := prefixes[k], suffixes[k]
		if pre < 0 || suf < 0 || pre > int64(len(prev)) || suf > int64(len(rest))-at {
			return fmt.Errorf("DELTA_BYTE_ARRAY: value %d: prefix %d and suffix %d after a value of %d bytes", k, pre, suf, len(prev))
		}
		if int64(len(out))+pre+suf > c.lim.pageBytes {
			return fmt.Errorf("DELTA_BYTE_ARRAY: the values decode to more than %d bytes", c.lim.pageBytes)
		}
		start := len(out)
		out = append(out, prev[:pre]...)
		out = append(out, rest[at:at+suf]...)
		at += suf
		offs = append(offs, uint32(start), uint32(len(out)))
		prev = out[start:]
	}
	p.vals = pqValues{data: out, offs: offs}
	return nil
}

// byteStreamSplit decodes BYTE_STREAM_SPLIT: byte j of value k is at
// j*n+k.
func (c *columnReader) byteStreamSplit(p *decodedPage, data []byte, n int) error {
	var size int
	switch c.leaf.typ {
	case pqInt32, pqFloat:
		size = 4
	case pqInt64, pqDouble:
		size = 8
	case pqFixedLenByteArray:
		size = int(c.leaf.typeLength)
	default:
		return errors.New("BYTE_STREAM_SPLIT values for a column of another type")
	}
	if int64(n)*int64(size) > int64(len(data)) {
		return fmt.Errorf("BYTE_STREAM_SPLIT: %d values of %d bytes in %d bytes", n, size, len(data))
	}
	if c.leaf.typ == pqFixedLenByteArray {
		out := make([]byte, n*size)
		p.vals.offs = make([]uint32, 2*n)
		for k := range n {
			for j := range size {
				out[k*size+j] = data[j*n+k]
			}
			p.vals.offs[2*k], p.vals.offs[2*k+1] = uint32(k*size), uint32((k+1)*size)
		}
		p.vals.data = out
		return nil
	}
	p.vals.nums = make([]uint64, n)
	for k := range n {
		var v uint64
		for j := range size {
			v |= uint64(data[j*n+k]) << (8 * j)
		}
		p.vals.nums[k] = v
	}
	return nil
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
