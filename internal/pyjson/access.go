package pyjson

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Raw returns the source text of node i.
func (d *Doc) Raw(i int) []byte {
	n := &d.Nodes[i]
	return d.Src[n.Start:n.End]
}

// Kind returns the kind of node i.
func (d *Doc) Kind(i int) Kind { return d.Nodes[i].Kind }

// HoldsNothing reports whether node i is null, an empty list or an empty
// object: a value that says nothing, as a request member left unset.
func (d *Doc) HoldsNothing(i int) bool {
	switch n := &d.Nodes[i]; n.Kind {
	case Null:
		return true
	case Array, Object:
		return n.Len == 0
	}
	return false
}

// Next returns the index of the node after node i and its descendants.
func (d *Doc) Next(i int) int { return int(d.Nodes[i].Next) }

// Lookup returns the node index of the value of key in object obj, or -1
// when obj is not an object or has no such key. When a key repeats, the last
// one wins, as in Python's json.loads.
func (d *Doc) Lookup(obj int, key string) int {
	if obj < 0 || d.Nodes[obj].Kind != Object {
		return -1
	}
	found := -1
	end := int(d.Nodes[obj].Next)
	for k := obj + 1; k < end; {
		v := k + 1
		if d.StringEqual(k, key) {
			found = v
		}
		k = int(d.Nodes[v].Next)
	}
	return found
}

// Children returns the node of the first child of the array or object at
// i and the node just past its last child, for the loops that want no
// callback: an array's elements are
//
//	for e, end := d.Children(arr); e < end; e = d.Next(e)
//
// and an object's members key k with value k+1, the next key at
// d.Next(k+1).
func (d *Doc) Children(i int) (first, end int) { return i + 1, int(d.Nodes[i].Next) }

// Members calls fn for each member of object obj in document order with the
// node indexes of its key and value, and stops early when fn returns false.
func (d *Doc) Members(obj int, fn func(key, val int) bool) {
	if obj < 0 || d.Nodes[obj].Kind != Object {
		return
	}
	end := int(d.Nodes[obj].Next)
	for k := obj + 1; k < end; {
		v := k + 1
		if !fn(k, v) {
			return
		}
		k = int(d.Nodes[v].Next)
	}
}

// Elements calls fn for each element of array arr in order with its node
// index and position, and stops early when fn returns false.
func (d *Doc) Elements(arr int, fn func(elem, pos int) bool) {
	if arr < 0 || d.Nodes[arr].Kind != Array {
		return
	}
	end := int(d.Nodes[arr].Next)
	pos := 0
	for e := arr + 1; e < end; e = int(d.Nodes[e].Next) {
		if !fn(e, pos) {
			return
		}
		pos++
	}
}

// StringEqual reports whether node i is a string whose decoded value is s.
func (d *Doc) StringEqual(i int, s string) bool {
	n := &d.Nodes[i]
	if n.Kind != String {
		return false
	}
	raw := d.Src[n.Start+1 : n.End-1]
	if !n.Escaped {
		return string(raw) == s
	}
	var buf [64]byte
	dec := appendUnquoted(buf[:0], raw)
	return string(dec) == s
}

// KeyText returns the decoded text of string node i: its raw bytes when it
// has no escapes, else its decoding appended to buf. A caller switches on
// string(KeyText(...)) to dispatch on an object's keys without allocating.
func (d *Doc) KeyText(i int, buf []byte) []byte {
	n := &d.Nodes[i]
	raw := d.Src[n.Start+1 : n.End-1]
	if !n.Escaped {
		return raw
	}
	return appendUnquoted(buf, raw)
}

// IsEmptyString reports whether node i is a string with no characters.
func (d *Doc) IsEmptyString(i int) bool {
	n := &d.Nodes[i]
	return n.Kind == String && n.End-n.Start == 2
}

// AppendString appends the decoded value of string node i to dst.
func (d *Doc) AppendString(dst []byte, i int) []byte {
	n := &d.Nodes[i]
	raw := d.Src[n.Start+1 : n.End-1]
	if !n.Escaped {
		return append(dst, raw...)
	}
	return appendUnquoted(dst, raw)
}

// Str returns the decoded value of string node i.
func (d *Doc) Str(i int) string {
	n := &d.Nodes[i]
	if !n.Escaped {
		if len(d.Text) == len(d.Src) && d.Text != "" {
			return d.Text[n.Start+1 : n.End-1]
		}
		return string(d.Src[n.Start+1 : n.End-1])
	}
	return unquote(d.Src[n.Start+1 : n.End-1])
}

// unquote decodes the inside of a valid JSON string literal that holds
// escapes into a new string, with one allocation: the decoded text is
// never longer than raw. The string is made from a buffer of its own that
// nothing writes to once it is made (TestStrOwnsItsBytes).
func unquote(raw []byte) string {
	buf := make([]byte, len(raw))
	w := 0
	for i := 0; i < len(raw); {
		j := escapeIndex(raw[i:])
		if j < 0 {
			w += copy(buf[w:], raw[i:])
			break
		}
		w += copy(buf[w:], raw[i:i+j])
		i += j
		if c := shortEscape[raw[i+1]]; c != 0 {
			buf[w] = c // the common escapes: one byte, no rune to encode
			w++
			i += 2
			continue
		}
		r, n := decodeEscape(raw[i:])
		w += utf8.EncodeRune(buf[w:], r)
		i += n
	}
	if w == 0 {
		return ""
	}
	return unsafe.String(&buf[0], w)
}

// escapeIndex returns the index of the first backslash in b, or -1. Escapes
// often come close together (a quoted JSON text holds one every few
// bytes): the first bytes are looked at one by one, sparing a call for
// the short runs.
func escapeIndex(b []byte) int {
	n := min(len(b), 16)
	for i, c := range b[:n] {
		if c == '\\' {
			return i
		}
	}
	if n == len(b) {
		return -1
	}
	if j := bytes.IndexByte(b[n:], '\\'); j >= 0 {
		return n + j
	}
	return -1
}

// shortEscape maps the letter after a backslash to the byte it stands for,
// for every escape but \u (0).
var shortEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// AppendUnquoted appends to dst the decoded inside of a JSON string
// literal (raw, without its quotes) whose escapes are valid, as Parse
// checks them: for callers that scanned a string themselves. The decoded
// text is never longer than raw.
func AppendUnquoted(dst, raw []byte) []byte { return appendUnquoted(dst, raw) }

// appendUnquoted decodes the inside of a valid JSON string literal.
// A lone UTF-16 surrogate decodes to U+FFFD, since Go strings hold UTF-8.
func appendUnquoted(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		j := bytes.IndexByte(raw[i:], '\\')
		if j < 0 {
			return append(dst, raw[i:]...)
		}
		dst = append(dst, raw[i:i+j]...)
		i += j
		if c := shortEscape[raw[i+1]]; c != 0 {
			dst = append(dst, c)
			i += 2
			continue
		}
		r, n := decodeEscape(raw[i:])
		dst = utf8.AppendRune(dst, r)
		i += n
	}
	return dst
}

// decodeEscape decodes the escape at the start of b (which begins with a
// backslash and was validated by the parser), combining surrogate pairs.
func decodeEscape(b []byte) (rune, int) {
	switch b[1] {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r := hex4(b[2:6])
		if utf16.IsSurrogate(r) {
			if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
				if r2 := hex4(b[8:12]); utf16.IsSurrogate(r2) {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						return dec, 12
					}
				}
			}
			return utf8.RuneError, 6
		}
		return r, 6
	default: // '"', '\\', '/'
		return rune(b[1]), 2
	}
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r = r<<4 | rune(hexVal(c))
	}
	return r
}

// DuplicateKey returns the key node of the first member of object obj whose
// key repeats an earlier member's key, or -1 when all keys differ.
func (d *Doc) DuplicateKey(obj int) int {
	if obj < 0 || d.Nodes[obj].Kind != Object || d.Nodes[obj].Len < 2 {
		return -1
	}
	end := int(d.Nodes[obj].Next)
	if d.Nodes[obj].Len <= 16 {
		for k := obj + 1; k < end; k = int(d.Nodes[k+1].Next) {
			for e := obj + 1; e < k; e = int(d.Nodes[e+1].Next) {
				if d.keysEqual(e, k) {
					return k
				}
			}
		}
		return -1
	}
	seen := make(map[string]struct{}, d.Nodes[obj].Len)
	for k := obj + 1; k < end; k = int(d.Nodes[k+1].Next) {
		s := d.Str(k)
		if _, ok := seen[s]; ok {
			return k
		}
		seen[s] = struct{}{}
	}
	return -1
}

func (d *Doc) keysEqual(a, b int) bool {
	na, nb := &d.Nodes[a], &d.Nodes[b]
	if !na.Escaped && !nb.Escaped {
		return string(d.Src[na.Start:na.End]) == string(d.Src[nb.Start:nb.End])
	}
	return d.Str(a) == d.Str(b)
}
