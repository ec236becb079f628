package corpus

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The generator builds requests as plain Go values and writes them as JSON
// text itself, because the text is the test input: key order, number
// literals and string escapes must be exactly what it chose.
//
//	nil, bool, string, int   JSON null, booleans, strings, integers
//	num                      a number literal, written as is
//	obj                      an object, keys in order
//	[]any                    an array

// obj is a JSON object with its members in order.
type obj []member

type member struct {
	key string
	val any
}

// num is a JSON number literal. The generator uses only literals that
// Python's json module writes back unchanged (DECISIONS.md: numbers keep
// their literals in Go, Python rewrites 1E5 as 100000.0).
type num string

// set returns o with key set to v: replaced in place when present,
// appended otherwise.
func (o obj) set(key string, v any) obj {
	for i := range o {
		if o[i].key == key {
			o[i].val = v
			return o
		}
	}
	return append(o, member{key, v})
}

// get returns the value of key, or nil.
func (o obj) get(key string) any {
	for _, m := range o {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// del returns o without key.
func (o obj) del(key string) obj {
	out := o[:0:0]
	for _, m := range o {
		if m.key != key {
			out = append(out, m)
		}
	}
	return out
}

// encoder writes values as JSON. With escapeRate above zero it writes some
// non-ASCII characters as \u escapes (surrogate pairs for astral ones), so
// that both readers also see escaped input.
type encoder struct {
	buf        []byte
	r          *rand.Rand
	escapeRate float64
}

func (e *encoder) value(v any) {
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case num:
		e.buf = append(e.buf, v...)
	case string:
		e.str(v)
	case obj:
		e.buf = append(e.buf, '{')
		for i, m := range v {
			if i > 0 {
				e.buf = append(e.buf, ", "...)
			}
			e.str(m.key)
			e.buf = append(e.buf, ": "...)
			e.value(m.val)
		}
		e.buf = append(e.buf, '}')
	case []any:
		e.buf = append(e.buf, '[')
		for i, x := range v {
			if i > 0 {
				e.buf = append(e.buf, ", "...)
			}
			e.value(x)
		}
		e.buf = append(e.buf, ']')
	default:
		panic(fmt.Sprintf("corpus: cannot encode %T", v))
	}
}

const hexDigits = "0123456789abcdef"

func (e *encoder) str(s string) {
	e.buf = append(e.buf, '"')
	for _, c := range s {
		switch {
		case c == '"':
			e.buf = append(e.buf, '\\', '"')
		case c == '\\':
			e.buf = append(e.buf, '\\', '\\')
		case c == '\n':
			e.buf = append(e.buf, '\\', 'n')
		case c == '\t':
			e.buf = append(e.buf, '\\', 't')
		case c < 0x20:
			e.u4(c)
		case c >= 0x80 && e.r != nil && e.escapeRate > 0 && e.r.Float64() < e.escapeRate:
			if c > 0xffff {
				hi, lo := utf16.EncodeRune(c)
				e.u4(hi)
				e.u4(lo)
			} else {
				e.u4(c)
			}
		case c == '/' && e.r != nil && e.escapeRate > 0 && e.r.Float64() < e.escapeRate:
			e.buf = append(e.buf, '\\', '/')
		default:
			e.buf = utf8.AppendRune(e.buf, c)
		}
	}
	e.buf = append(e.buf, '"')
}

func (e *encoder) u4(c rune) {
	e.buf = append(e.buf, '\\', 'u', hexDigits[c>>12&0xf], hexDigits[c>>8&0xf], hexDigits[c>>4&0xf], hexDigits[c&0xf])
}
