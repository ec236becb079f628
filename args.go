package harmony

import (
	"bytes"
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
	if !utf8.Valid(raw) {
		return fail()
	}
	pos := pyjson.SkipSpace(raw, 0)
	if pos >= len(raw) || raw[pos] != '{' {
		return fail()
	}
	keys := &r.s.keys // the written keys, as spans of buf
	nkeys := 0
	pos = pyjson.SkipSpace(raw, pos+1)
	if pos < len(raw) && raw[pos] == '}' {
		pos++
	} else {
		for {
			if nkeys == maxDirectKeys || pos >= len(raw) || raw[pos] != '"' {
				return fail()
			}
			end := pyjson.ScanString(raw, pos+1)
			if end >= len(raw) || raw[end] != '"' {
				return fail() // an escape, a control character, or no end
			}
			key := raw[pos+1 : end]
			if !directKey(key) {
				return fail()
			}
			if nkeys > 0 {
				buf = append(buf, '\n')
			}
			buf = append(buf, paramOpen...)
			keyAt := len(buf)
			buf = append(buf, key...)
			for _, k := range keys[:nkeys] {
				if string(buf[k[0]:k[1]]) == string(key) {
					return fail()
				}
			}
			keys[nkeys] = [2]int{keyAt, len(buf)}
			nkeys++
			buf = append(buf, paramNameEnd+"\n"...)
			pos = pyjson.SkipSpace(raw, end+1)
			if pos >= len(raw) || raw[pos] != ':' {
				return fail()
			}
			pos = pyjson.SkipSpace(raw, pos+1)
			valueAt := len(buf)
			var ok bool
			if buf, pos, ok = r.appendValueDirect(buf, raw, pos); !ok {
				return fail()
			}
			// Shorter values (all numbers and literals) can't hold it, and
			// most values have no '<' at all: IndexByte tells.
			if v := buf[valueAt:]; len(v) >= len(paramClose) {
				if at := bytes.IndexByte(v, paramClose[0]); at >= 0 && bytes.Contains(v[at:], []byte(paramClose)) {
					return fail()
				}
			}
			buf = append(buf, '\n')
			buf = append(buf, paramClose...)
			pos = pyjson.SkipSpace(raw, pos)
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
			pos = pyjson.SkipSpace(raw, pos+1)
		}
	}
	if pyjson.SkipSpace(raw, pos) != len(raw) {
		return fail()
	}
	return buf, true
}

// directKey reports whether key, a run of string content as ScanString
// ends it (no quote, backslash or control character), is a name
// checkArgumentKey accepts: of the bytes it refuses, only '<' and '>' can
// be in such a run.
func directKey(key []byte) bool {
	for _, c := range key {
		if c|2 == '>' { // '<' (0x3c) or '>' (0x3e), nothing else
			return false
		}
	}
	return len(key) > 0
}

// appendValueDirect writes the argument value at raw[pos:] as
// appendArgument does and returns the index after it; false when it is
// not a valid JSON value.
func (r *renderer) appendValueDirect(buf, raw []byte, pos int) ([]byte, int, bool) {
	if pos >= len(raw) {
		return buf, pos, false
	}
	switch c := raw[pos]; {
	case c == '"':
		if end := pyjson.ScanString(raw, pos+1); end < len(raw) && raw[end] == '"' {
			return append(buf, raw[pos+1:end]...), end + 1, true
		}
	case c == '-' || c >= '0' && c <= '9':
		n := pyjson.NumberLen(raw[pos:])
		return append(buf, raw[pos:pos+n]...), pos + n, n > 0
	case c == 't':
		return appendWord(buf, raw, pos, "true")
	case c == 'f':
		return appendWord(buf, raw, pos, "false")
	case c == 'n':
		return appendWord(buf, raw, pos, "null")
	case c == '[' || c == '{':
		if out, end, ok := appendNestedDirect(buf, raw, pos, 1); ok {
			return out, end, true
		}
	}
	// A string with escapes, or a list or an object that appendNestedDirect
	// leaves: a tape of the value.
	d := &r.s.doc
	n, err := d.ParseValue(raw[pos:])
	if err != nil {
		return buf, pos, false
	}
	if d.Kind(0) == pyjson.String {
		buf = d.AppendString(buf, 0)
	} else {
		buf = d.AppendPython(buf, 0)
	}
	return buf, pos + n, true
}

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
	pos = pyjson.SkipSpace(raw, pos+1)
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
			buf = append(buf, raw[pos:q+1]...)
			pos = pyjson.SkipSpace(raw, q+1)
			if pos >= len(raw) || raw[pos] != ':' {
				return buf, pos, false
			}
			buf = append(buf, ':', ' ')
			if pos = pyjson.SkipSpace(raw, pos+1); pos >= len(raw) {
				return buf, pos, false
			}
		}
		switch c := raw[pos]; {
		case c == '"':
			q := pyjson.ScanString(raw, pos+1)
			if q >= len(raw) || raw[q] != '"' {
				return buf, pos, false
			}
			buf = append(buf, raw[pos:q+1]...)
			pos = q + 1
		case c == '-' || c >= '0' && c <= '9':
			n := pyjson.NumberLen(raw[pos:])
			if n == 0 {
				return buf, pos, false
			}
			buf = append(buf, raw[pos:pos+n]...)
			pos += n
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
		if pos = pyjson.SkipSpace(raw, pos); pos >= len(raw) {
			return buf, pos, false
		}
		if raw[pos] == ',' {
			buf = append(buf, ',', ' ')
			pos = pyjson.SkipSpace(raw, pos+1)
			continue
		}
		if raw[pos] != end {
			return buf, pos, false
		}
		return append(buf, end), pos + 1, true
	}
}

// appendWord writes the literal word that raw[pos:] must start with.
func appendWord(buf, raw []byte, pos int, word string) ([]byte, int, bool) {
	if !bytes.HasPrefix(raw[pos:], []byte(word)) {
		return buf, pos, false
	}
	return append(buf, word...), pos + len(word), true
}
