package harmony

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// arguments writes a call's arguments object as rfl:parameter elements:
// `<rfl:parameter name="K">\nV\n</rfl:parameter>`, joined by "\n", in the
// object's order. Strings are written as is, other values as Python-style
// JSON (DECISIONS.md, Tool calls and results).
func (r *renderer) arguments(buf []byte, f *FunctionCall, i, j int) ([]byte, error) {
	if out, ok := r.argumentsDirect(buf, f.Arguments); ok {
		return out, nil
	}
	return r.argumentsTape(buf, f.Arguments, argumentsPath{i, j})
}

// argumentsTape is arguments through a tape of the whole object: the path
// that finds and words every error.
func (r *renderer) argumentsTape(buf, raw []byte, path argumentsPath) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return buf, errAt(path.String(), "missing; must be a JSON object")
	}
	d, root := &r.s.doc, 0
	if err := d.Parse(raw); err != nil {
		return buf, errAt(path.String(), err.Error())
	}
	switch d.Kind(root) {
	case pyjson.Object:
	case pyjson.String:
		return buf, errAt(path.String(), "must be a JSON object; parse JSON strings before rendering")
	default:
		return buf, errAt(path.String(), "must be a JSON object, got "+d.Kind(root).String())
	}
	if dup := d.DuplicateKey(root); dup >= 0 {
		return buf, errAt(path.String(), "key "+quote(d.Str(dup))+" appears more than once")
	}
	end := d.Next(root)
	for k := root + 1; k < end; k = d.Next(k + 1) {
		if k > root+1 {
			buf = append(buf, '\n')
		}
		var err error
		if buf, err = appendArgument(buf, d, k, k+1, path); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// appendArgument writes the member with key node k and value node v.
func appendArgument(buf []byte, d *pyjson.Doc, k, v int, path argumentsPath) ([]byte, error) {
	buf = append(buf, paramOpen...)
	keyStart := len(buf)
	buf = d.AppendString(buf, k)
	key := buf[keyStart:]
	if err := checkArgumentKey(key); err != nil {
		return buf, errAt(path.String(), "key "+quote(string(key))+" "+err.Error())
	}
	buf = append(buf, paramNameEnd+"\n"...)
	valueStart := len(buf)
	if d.Kind(v) == pyjson.String {
		buf = d.AppendString(buf, v)
	} else {
		buf = d.AppendPython(buf, v)
	}
	if bytes.Contains(buf[valueStart:], []byte(paramClose)) {
		return buf, errAt(path.String()+"."+string(key), "a value can't contain "+paramClose)
	}
	buf = append(buf, '\n')
	buf = append(buf, paramClose...)
	return buf, nil
}

// argumentsPath names messages[i].tool_calls[j].function.arguments; the
// string is built only for an error.
type argumentsPath struct{ i, j int }

func (p argumentsPath) String() string { return callPath(p.i, p.j) + ".function.arguments" }

// maxDirectKeys bounds the keys argumentsDirect compares pairwise; objects
// with more take the tape, whose duplicate check uses a map.
const maxDirectKeys = 16

// argumentsDirect writes the arguments object raw as arguments does, but
// straight from its JSON text, without a tape: keys without escapes, and
// values written as they stand (strings without escapes, numbers and
// literals) or through a tape of that value alone (strings with escapes,
// lists, objects). Whenever raw is not valid, breaks a rule, or is not
// that common shape, it reports false, and buf[:len(buf)] is unchanged: the
// caller takes the tape path, which words every error.
func (r *renderer) argumentsDirect(buf, raw []byte) ([]byte, bool) {
	start := len(buf)
	fail := func() ([]byte, bool) { return buf[:start], false }
	if !argsValidUTF8(raw) {
		return fail()
	}
	pos := skipSpace(raw, 0)
	if pos >= len(raw) || raw[pos] != '{' {
		return fail()
	}
	keys := &r.s.keys // the written keys, as spans of buf
	nkeys := 0
	var seen uint64 // keyBit of each key written
	pos = skipSpace(raw, pos+1)
	if pos < len(raw) && raw[pos] == '}' {
		pos++
	} else {
		buf = append(buf, paramOpen...)
		for {
			if nkeys == maxDirectKeys || pos >= len(raw) || raw[pos] != '"' {
				return fail()
			}
			// The key: a run of string content that directKey accepts,
			// found in one pass.
			end := pos + 1
			for end < len(raw) && !keyStop[raw[end]] {
				end++
			}
			if end >= len(raw) || raw[end] != '"' || end == pos+1 {
				return fail() // an escape, a control character, '<', '>', empty, or no end
			}
			key := raw[pos+1 : end]
			keyAt := len(buf)
			buf = appendRun(buf, raw, pos+1, end)
			// Most keys differ in keyBit: compare them only when it repeats.
			if bit := keyBit(key); seen&bit == 0 {
				seen |= bit
			} else {
				for _, k := range keys[:nkeys] {
					if string(buf[k[0]:k[1]]) == string(key) {
						return fail()
					}
				}
			}
			keys[nkeys] = [2]int{keyAt, len(buf)}
			nkeys++
			buf = append(buf, paramNameEnd+"\n"...)
			pos = skipSpace(raw, end+1)
			if pos >= len(raw) || raw[pos] != ':' {
				return fail()
			}
			pos = skipSpace(raw, pos+1)
			var ok bool
			if buf, pos, ok = r.appendValueDirect(buf, raw, pos); !ok {
				return fail()
			}
			pos = skipSpace(raw, pos)
			if pos >= len(raw) {
				return fail()
			}
			if raw[pos] == '}' {
				pos++
				break
			}
			if raw[pos] != ',' {
				return fail()
			}
			buf = appendBetween(buf)
			pos = skipSpace(raw, pos+1)
		}
		buf = append(buf, "\n"+paramClose...)
	}
	if skipSpace(raw, pos) != len(raw) {
		return fail()
	}
	return buf, true
}

// paramBetween ends one parameter and opens the next.
const paramBetween = "\n" + paramClose + "\n" + paramOpen

// argsValidUTF8 is utf8.Valid, with a faster answer for ASCII text, the
// common case: its bytes ORed together, sixteen at a time, have no high
// bit.
func argsValidUTF8(b []byte) bool {
	var acc uint64
	i := 0
	for ; i+16 <= len(b); i += 16 {
		acc |= binary.LittleEndian.Uint64(b[i:]) | binary.LittleEndian.Uint64(b[i+8:])
	}
	if n := len(b); n >= 8 {
		// The last bytes, overlapping those already read.
		acc |= binary.LittleEndian.Uint64(b[n-8:])
		if n-i > 8 {
			acc |= binary.LittleEndian.Uint64(b[i:])
		}
	} else {
		for ; i < n; i++ {
			acc |= uint64(b[i])
		}
	}
	return acc&highBits == 0 || utf8.Valid(b)
}

// skipSpace is pyjson.SkipSpace, under the short name the scans here use.
func skipSpace(src []byte, pos int) int { return pyjson.SkipSpace(src, pos) }

// paramBetweenText is paramBetween as an array, which appendBetween copies
// without a call to memmove.
var paramBetweenText = [len(paramBetween)]byte([]byte(paramBetween))

// appendBetween appends paramBetween.
func appendBetween(buf []byte) []byte {
	n := len(buf)
	if cap(buf)-n < len(paramBetween) {
		buf = slices.Grow(buf, len(paramBetween))
	}
	buf = buf[:n+len(paramBetween)]
	*(*[len(paramBetween)]byte)(buf[n:]) = paramBetweenText
	return buf
}

// appendRun appends raw[from:to]. A short run is copied as 16 bytes at
// once, without a call to memmove, when raw holds 16 bytes from "from" and
// buf has room for them: the bytes past the run land beyond len(buf),
// where the next append overwrites them.
func appendRun(buf, raw []byte, from, to int) []byte {
	n := len(buf)
	if to-from <= 16 && from+16 <= len(raw) && cap(buf)-n >= 16 {
		*(*[16]byte)(buf[n : n+16]) = [16]byte(raw[from : from+16])
		return buf[:n+to-from]
	}
	return append(buf, raw[from:to]...)
}

// keyBit picks one of 64 bits for a key, from its length and its first and
// last bytes, so that argumentsDirect compares keys only when two share it.
func keyBit(key []byte) uint64 {
	return 1 << ((uint(len(key)) ^ uint(key[0])*5 ^ uint(key[len(key)-1])*3) & 63)
}

// keyStop marks the bytes that end a key argumentsDirect writes itself:
// the bytes that end a run of string content (quote, backslash, control
// characters) and the two that checkArgumentKey refuses besides ('<', '>').
var keyStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'], t['<'], t['>'] = true, true, true, true
	return t
}()

// appendValueDirect writes the argument value at raw[pos:] as
// appendArgument does and returns the index after it; false when it is
// not a valid JSON value or its text holds paramClose.
func (r *renderer) appendValueDirect(buf, raw []byte, pos int) ([]byte, int, bool) {
	if pos >= len(raw) {
		return buf, pos, false
	}
	switch c := raw[pos]; {
	case c == '"':
		end := pos + 1
		for {
			end = scanPlain(raw, end)
			if end >= len(raw) || raw[end] != '<' {
				break
			}
			if bytes.HasPrefix(raw[end:], []byte(paramClose)) {
				return buf, pos, false
			}
			end++
		}
		if end < len(raw) && raw[end] == '"' {
			return appendRun(buf, raw, pos+1, end), end + 1, true
		}
	case c == '-' || c >= '0' && c <= '9':
		// Numbers and literals are shorter than paramClose or can't hold it.
		end := numberEnd(raw, pos)
		return appendRun(buf, raw, pos, end), end, end > pos
	case c == 't':
		return appendWord(buf, raw, pos, "true")
	case c == 'f':
		return appendWord(buf, raw, pos, "false")
	case c == 'n':
		return appendWord(buf, raw, pos, "null")
	case c == '[' || c == '{':
		if out, end, ok := appendNestedDirect(buf, raw, pos, 1); ok {
			return out, end, !holdsParamClose(out[len(buf):])
		}
	}
	// A string with escapes, or a list or an object that appendNestedDirect
	// leaves: a tape of the value.
	d := &r.s.doc
	n, err := d.ParseValue(raw[pos:])
	if err != nil {
		return buf, pos, false
	}
	valueAt := len(buf)
	if d.Kind(0) == pyjson.String {
		buf = d.AppendString(buf, 0)
	} else {
		buf = d.AppendPython(buf, 0)
	}
	return buf, pos + n, !holdsParamClose(buf[valueAt:])
}

// holdsParamClose reports whether the written value v holds paramClose.
// Most values have no '<' at all: IndexByte tells.
func holdsParamClose(v []byte) bool {
	if len(v) < len(paramClose) {
		return false
	}
	at := bytes.IndexByte(v, paramClose[0])
	return at >= 0 && bytes.Contains(v[at:], []byte(paramClose))
}

// scanPlain returns the index of the first byte at or after pos that is a
// quote, a backslash, a control character or '<', or len(src): where a
// run of string content ends or may start paramClose. It reads eight
// bytes at a time as pyjson.ScanString does, with its word tests (the
// flags of the two are exact up to the first byte flagged, so their union's
// lowest flag is the first byte to stop at).
func scanPlain(src []byte, pos int) int {
	for pos+8 <= len(src) {
		x := binary.LittleEndian.Uint64(src[pos:])
		if m := pyjson.SpecialBytes(x) | pyjson.ByteFlags(x, '<'); m != 0 {
			return pos + bits.TrailingZeros64(m)>>3
		}
		pos += 8
	}
	for pos < len(src) && !plainStop[src[pos]] {
		pos++
	}
	return pos
}

// highBits is the high bit of each byte of a word.
const highBits = 0x8080808080808080

// plainStop marks the bytes scanPlain stops at.
var plainStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'], t['<'] = true, true, true
	return t
}()

// maxNestedDirect bounds the nesting appendNestedDirect writes itself;
// deeper values take the tape.
const maxNestedDirect = 8

// appendNestedDirect writes the list or object at raw[pos] as AppendPython
// writes it (", " and ": " between members, strings and numbers as they
// stand) straight from its text, and returns the index after it. It takes
// only members that need no rewriting: strings without escapes, numbers,
// literals, and lists and objects nested at most maxNestedDirect deep; on
// anything else, valid or not, it reports false and the caller parses the
// value into a tape, which writes it or words the error. Like
// ParseValue, it reads nothing after the value, and raw must be valid
// UTF-8.
func appendNestedDirect(buf, raw []byte, pos, depth int) ([]byte, int, bool) {
	open, end := raw[pos], byte(']')
	if open == '{' {
		end = '}'
	}
	buf = append(buf, open)
	pos = skipSpace(raw, pos+1)
	if pos < len(raw) && raw[pos] == end {
		return append(buf, end), pos + 1, true
	}
	for {
		if pos >= len(raw) {
			return buf, pos, false
		}
		if open == '{' {
			if raw[pos] != '"' {
				return buf, pos, false
			}
			q := pyjson.ScanString(raw, pos+1)
			if q >= len(raw) || raw[q] != '"' {
				return buf, pos, false
			}
			buf = appendRun(buf, raw, pos, q+1)
			pos = skipSpace(raw, q+1)
			if pos >= len(raw) || raw[pos] != ':' {
				return buf, pos, false
			}
			buf = append(buf, ':', ' ')
			if pos = skipSpace(raw, pos+1); pos >= len(raw) {
				return buf, pos, false
			}
		}
		switch c := raw[pos]; {
		case c == '"':
			q := pyjson.ScanString(raw, pos+1)
			if q >= len(raw) || raw[q] != '"' {
				return buf, pos, false
			}
			buf = appendRun(buf, raw, pos, q+1)
			pos = q + 1
		case c == '-' || c >= '0' && c <= '9':
			end := numberEnd(raw, pos)
			if end == pos {
				return buf, pos, false
			}
			buf = appendRun(buf, raw, pos, end)
			pos = end
		case c == 't' || c == 'f' || c == 'n':
			word := "null"
			if c == 't' {
				word = "true"
			} else if c == 'f' {
				word = "false"
			}
			var ok bool
			if buf, pos, ok = appendWord(buf, raw, pos, word); !ok {
				return buf, pos, false
			}
		case (c == '[' || c == '{') && depth < maxNestedDirect:
			var ok bool
			if buf, pos, ok = appendNestedDirect(buf, raw, pos, depth+1); !ok {
				return buf, pos, false
			}
		default:
			return buf, pos, false
		}
		if pos = skipSpace(raw, pos); pos >= len(raw) {
			return buf, pos, false
		}
		if raw[pos] == ',' {
			buf = append(buf, ',', ' ')
			pos = skipSpace(raw, pos+1)
			continue
		}
		if raw[pos] != end {
			return buf, pos, false
		}
		return append(buf, end), pos + 1, true
	}
}

// numberEnd returns the index after the JSON number at raw[pos:], or pos
// when there is none, as pyjson.NumberLen measures it: an integer without
// a sign or a leading zero is measured here, without a call.
func numberEnd(raw []byte, pos int) int {
	if c := raw[pos]; c >= '1' && c <= '9' {
		end := pos + 1
		for end < len(raw) && raw[end]-'0' < 10 {
			end++
		}
		// raw[end]|0x20 is 'e' for 'e' and 'E' alone.
		if end == len(raw) || raw[end] != '.' && raw[end]|0x20 != 'e' {
			return end
		}
	}
	return pos + pyjson.NumberLen(raw[pos:])
}

// appendWord writes the literal word that raw[pos:] must start with.
func appendWord(buf, raw []byte, pos int, word string) ([]byte, int, bool) {
	if !bytes.HasPrefix(raw[pos:], []byte(word)) {
		return buf, pos, false
	}
	return append(buf, word...), pos + len(word), true
}
