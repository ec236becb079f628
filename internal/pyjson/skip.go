package pyjson

import (
	"encoding/binary"
	"math/bits"
)

// SkipValue reads one value at the start of src, which must be valid
// UTF-8, as ParseValue reads it, without a tape: it accepts the values
// ParseValue accepts, ends where it ends, and returns how deeply the
// value's arrays and objects nest (0 for a scalar, 1 for [] or {"a": 1}).
// Its errors name a place and a cause as ParseValue's do, not always the
// same ones. A caller that needs a value's extent, not its parts (a raw
// member kept as text, the elements of a list), so reads a large value
// without allocating in proportion to it.
func SkipValue(src []byte) (end, depth int, err error) {
	if len(src) > 1<<31-1 {
		return 0, 0, &SyntaxError{0, "document larger than 2 GiB"}
	}
	var objects [(MaxDepth + 63) / 64]uint64 // bit d: the container at depth d is an object
	open, deepest, pos := 0, 0, 0
	for {
		if pos >= len(src) {
			return pos, deepest, errorAt(pos, "unexpected end of input")
		}
		switch c := src[pos]; {
		case c == '"':
			if pos, err = skipStringAt(src, pos); err != nil {
				return pos, deepest, err
			}
		case c == '{' || c == '[':
			if open >= MaxDepth {
				return pos, deepest, errorAt(pos, "nesting deeper than %d", MaxDepth)
			}
			deepest = max(deepest, open+1)
			closer := byte(']')
			if c == '{' {
				closer = '}'
			}
			pos = skipSpace(src, pos+1)
			if pos < len(src) && src[pos] == closer {
				pos++
				break // an empty container is a value that ended
			}
			if c == '{' {
				objects[open>>6] |= 1 << (open & 63)
			} else {
				objects[open>>6] &^= 1 << (open & 63)
			}
			open++
			if c == '{' {
				goto member
			}
			continue
		case c == '-' || (c >= '0' && c <= '9'):
			n := NumberLen(src[pos:])
			if n == 0 {
				return pos, deepest, errorAt(pos, "invalid number")
			}
			pos += n
		case c == 't' || c == 'f' || c == 'n':
			lit := "null"
			if c == 't' {
				lit = "true"
			} else if c == 'f' {
				lit = "false"
			}
			if pos+len(lit) > len(src) || string(src[pos:pos+len(lit)]) != lit {
				return pos, deepest, errorAt(pos, "invalid literal")
			}
			pos += len(lit)
		default:
			return pos, deepest, errorAt(pos, "unexpected %q", c)
		}
		// A value ended at pos: close the containers it completes.
		for {
			if open == 0 {
				return pos, deepest, nil
			}
			object := objects[(open-1)>>6]&(1<<((open-1)&63)) != 0
			if pos = skipSpace(src, pos); pos >= len(src) {
				if object {
					return pos, deepest, errorAt(pos, "unexpected end of input in an object")
				}
				return pos, deepest, errorAt(pos, "unexpected end of input in an array")
			}
			c := src[pos]
			if c == ',' {
				pos = skipSpace(src, pos+1)
				if object {
					goto member
				}
				break // the next element
			}
			if object && c != '}' {
				return pos, deepest, errorAt(pos, "expected ',' or '}' in an object")
			}
			if !object && c != ']' {
				return pos, deepest, errorAt(pos, "expected ',' or ']' in an array")
			}
			pos++
			open--
		}
		continue
	member:
		// An object member's key at pos, its colon and the whitespace up
		// to its value.
		if pos < len(src) && src[pos] == '"' {
			if pos, err = skipStringAt(src, pos); err != nil {
				return pos, deepest, err
			}
			if pos = skipSpace(src, pos); pos >= len(src) || src[pos] != ':' {
				return pos, deepest, errorAt(pos, "expected ':' after an object key")
			}
			pos = skipSpace(src, pos+1)
			continue
		}
		return pos, deepest, errorAt(pos, "expected a string key")
	}
}

// skipStringAt returns the index after the string whose opening quote is
// at start, checking its escapes and that it holds no control character.
// Most strings end within their first eight bytes, tested first as
// parse does.
func skipStringAt(src []byte, start int) (int, error) {
	pos := start + 1
	if pos+8 <= len(src) {
		if m := specialBytes(binary.LittleEndian.Uint64(src[pos:])); m != 0 {
			pos += bits.TrailingZeros64(m) >> 3
		} else {
			pos = scanString(src, pos+8)
		}
	} else {
		pos = scanString(src, pos)
	}
	if pos < len(src) && src[pos] == '"' {
		return pos + 1, nil
	}
	for {
		if pos >= len(src) {
			return pos, errorAt(pos, "unterminated string")
		}
		switch c := src[pos]; {
		case c == '"':
			return pos + 1, nil
		case c == '\\':
			var err error
			if pos, err = escape(src, pos); err != nil {
				return pos, err
			}
		default:
			return pos, errorAt(pos, "control character %#02x in a string", c)
		}
		pos = scanString(src, pos)
	}
}

// HoldsNothingText reports whether raw, the text of one JSON value, is
// null, an empty list or an empty object: HoldsNothing for a value read
// without a tape.
func HoldsNothingText(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case 'n':
		return true
	case '[', '{':
		p := skipSpace(raw, 1)
		return p < len(raw) && (raw[p] == ']' || raw[p] == '}')
	}
	return false
}
