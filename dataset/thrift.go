package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// A reader of Thrift's compact protocol over bytes already in memory, for
// the Parquet footer and page headers. Unlike a general decoder it never
// allocates from a size the bytes declare: a string is a slice of the
// input, a list is walked element by element, and every declared size is
// checked against the bytes that remain. It also keeps an estimate of
// what decoding the footer takes (cost), generous to the point of
// counting every list element as a whole metadata struct, so that a
// footer of many tiny elements is refused early.

// Compact protocol types.
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
	tUUID   = 13
)

// maxThriftDepth bounds the nesting of structs and containers.
const maxThriftDepth = 64

// errThriftShort is the error of bytes that end inside a value.
var errThriftShort = errors.New("ends inside a value")

type thriftReader struct {
	b     []byte
	i     int
	depth int
	// cost estimates the memory decoding takes: a list element costs its
	// Go size (structs: at most structCost), a string its bytes.
	cost, maxCost int64
	err           error
	// short reports that err is the bytes ending too soon (more bytes
	// may complete the value).
	short bool
}

// structCost is more than the size of any Parquet metadata struct a
// decoder of the whole footer holds (a column chunk's, the largest, is
// about 560 bytes in parquet-go's format package); the reader here holds
// much less.
const structCost = 1024

func (r *thriftReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("byte %d: "+format, append([]any{r.i}, args...)...)
	}
}

func (r *thriftReader) failShort() {
	r.short = r.err == nil
	r.fail("%v", errThriftShort)
}

func (r *thriftReader) charge(n int64) {
	r.cost += n
	if r.maxCost > 0 && r.cost > r.maxCost {
		r.fail("the metadata would take more than %d bytes of memory to decode", r.maxCost)
	}
}

func (r *thriftReader) byte1() byte {
	if r.err != nil {
		return 0
	}
	if r.i >= len(r.b) {
		r.failShort()
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *thriftReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		if n == 0 {
			r.failShort()
		} else {
			r.fail("varint overflows")
		}
		return 0
	}
	r.i += n
	return v
}

func (r *thriftReader) i64() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *thriftReader) i32() int32 {
	v := r.i64()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.fail("i32 out of range")
		return 0
	}
	return int32(v)
}

// binary returns a string or binary value as a slice of the input.
func (r *thriftReader) binary() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.i) {
		r.short = r.err == nil
		r.fail("a string of %d bytes, past the end of the metadata", n)
		return nil
	}
	r.charge(int64(n))
	s := r.b[r.i : r.i+int(n)]
	r.i += int(n)
	return s
}

// listHeader reads a list or set header. Every element takes at least one
// byte, so a size above the bytes left is refused.
func (r *thriftReader) listHeader() (int, byte) {
	h := r.byte1()
	size := uint64(h >> 4)
	if size == 15 {
		size = r.uvarint()
	}
	if r.err != nil {
		return 0, 0
	}
	if size > uint64(len(r.b)-r.i) {
		r.short = r.err == nil
		r.fail("a list of %d elements, more than the bytes left", size)
		return 0, 0
	}
	typ := h & 0x0f
	if typ == tStruct {
		r.charge(int64(size) * structCost)
	} else {
		r.charge(int64(size) * 16)
	}
	return int(size), typ
}

// fields calls fn for each field of a struct, with its id and type; fn
// reads the value (or skips it). It returns at the struct's end.
func (r *thriftReader) fields(fn func(id int16, typ byte)) {
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > maxThriftDepth {
		r.fail("nested more than %d deep", maxThriftDepth)
		return
	}
	var last int16
	for r.err == nil {
		h := r.byte1()
		typ := h & 0x0f
		if r.err != nil || typ == tStop {
			return
		}
		var id int16
		if d := int16(h >> 4); d != 0 {
			id = last + d
		} else {
			v := r.i64()
			if v < math.MinInt16 || v > math.MaxInt16 {
				r.fail("field id out of range")
				return
			}
			id = int16(v)
		}
		last = id
		fn(id, typ)
	}
}

// skip reads and drops a value of type typ.
func (r *thriftReader) skip(typ byte) {
	switch typ {
	case tTrue, tFalse:
	case tByte:
		r.byte1()
	case tI16, tI32, tI64:
		r.uvarint()
	case tDouble:
		if len(r.b)-r.i < 8 {
			r.failShort()
			return
		}
		r.i += 8
	case tUUID:
		if len(r.b)-r.i < 16 {
			r.failShort()
			return
		}
		r.i += 16
	case tBinary:
		r.binary()
	case tList, tSet:
		n, et := r.listHeader()
		r.nested(func() {
			for k := 0; k < n && r.err == nil; k++ {
				if et == tTrue || et == tFalse {
					r.byte1() // a bool element is one byte
					continue
				}
				r.skip(et)
			}
		})
	case tMap:
		n := r.uvarint()
		if r.err != nil {
			return
		}
		if n > uint64(len(r.b)-r.i) {
			r.fail("a map of %d entries, more than the bytes left", n)
			return
		}
		if n == 0 {
			return
		}
		kv := r.byte1()
		r.charge(int64(n) * 32)
		r.nested(func() {
			for k := uint64(0); k < n && r.err == nil; k++ {
				r.skipElem(kv >> 4)
				r.skipElem(kv & 0x0f)
			}
		})
	case tStruct:
		r.fields(func(_ int16, t byte) { r.skip(t) })
	default:
		r.fail("unknown type %d", typ)
	}
}

func (r *thriftReader) skipElem(t byte) {
	if t == tTrue || t == tFalse {
		r.byte1()
		return
	}
	r.skip(t)
}

func (r *thriftReader) nested(f func()) {
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > maxThriftDepth {
		r.fail("nested more than %d deep", maxThriftDepth)
		return
	}
	f()
}

// readI32 reads an i32 field's value, or skips a field of another type.
func (r *thriftReader) readI32(typ byte) int32 {
	if typ != tI32 {
		r.fail("want an i32, found type %d", typ)
		return 0
	}
	return r.i32()
}

func (r *thriftReader) readI64(typ byte) int64 {
	if typ != tI64 {
		r.fail("want an i64, found type %d", typ)
		return 0
	}
	return r.i64()
}

func (r *thriftReader) readBool(typ byte) bool {
	switch typ {
	case tTrue:
		return true
	case tFalse:
		return false
	}
	r.fail("want a bool, found type %d", typ)
	return false
}

// list reads a list of elemType, calling each for every element.
func (r *thriftReader) list(typ, elemType byte, each func()) {
	if typ != tList {
		r.fail("want a list, found type %d", typ)
		return
	}
	n, et := r.listHeader()
	if r.err != nil {
		return
	}
	if et != elemType {
		r.fail("want a list of type %d, found %d", elemType, et)
		return
	}
	r.nested(func() {
		for k := 0; k < n && r.err == nil; k++ {
			each()
		}
	})
}

// thriftWriter writes Thrift's compact protocol: the Parquet footer and
// page headers of the output. Structs are opened with begin (a top-level
// struct or a list element) or structField, and closed with end.
type thriftWriter struct {
	b []byte
	// last is the last field id written in each open struct.
	last []int16
}

func (w *thriftWriter) begin() { w.last = append(w.last, 0) }

func (w *thriftWriter) end() {
	w.b = append(w.b, tStop)
	w.last = w.last[:len(w.last)-1]
}

// field writes a field header: the id as a delta from the last when it
// fits in four bits, else in full.
func (w *thriftWriter) field(id int16, typ byte) {
	last := &w.last[len(w.last)-1]
	if d := id - *last; d > 0 && d <= 15 {
		w.b = append(w.b, byte(d)<<4|typ)
	} else {
		w.b = append(w.b, typ)
		w.b = binary.AppendVarint(w.b, int64(id))
	}
	*last = id
}

func (w *thriftWriter) i32(id int16, v int32) {
	w.field(id, tI32)
	w.b = binary.AppendVarint(w.b, int64(v))
}

func (w *thriftWriter) i64(id int16, v int64) {
	w.field(id, tI64)
	w.b = binary.AppendVarint(w.b, v)
}

func (w *thriftWriter) i8(id int16, v int8) {
	w.field(id, tByte)
	w.b = append(w.b, byte(v))
}

func (w *thriftWriter) boolean(id int16, v bool) {
	if v {
		w.field(id, tTrue)
	} else {
		w.field(id, tFalse)
	}
}

func (w *thriftWriter) str(id int16, s string) {
	w.field(id, tBinary)
	w.elemStr(s)
}

// structField opens a struct-valued field; end closes it.
func (w *thriftWriter) structField(id int16) {
	w.field(id, tStruct)
	w.begin()
}

// emptyStruct writes a field holding an empty struct (a union's member
// without fields).
func (w *thriftWriter) emptyStruct(id int16) {
	w.structField(id)
	w.end()
}

// list writes a list field's header; its n elements follow (elem* or
// begin/end for structs).
func (w *thriftWriter) list(id int16, elemType byte, n int) {
	w.field(id, tList)
	if n < 15 {
		w.b = append(w.b, byte(n)<<4|elemType)
		return
	}
	w.b = append(w.b, 0xf0|elemType)
	w.b = binary.AppendUvarint(w.b, uint64(n))
}

func (w *thriftWriter) elemI32(v int32) { w.b = binary.AppendVarint(w.b, int64(v)) }

func (w *thriftWriter) elemStr(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}
