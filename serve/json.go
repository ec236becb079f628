package serve

import (
	"strconv"
	"unicode/utf8"
)

// The replies are written by hand into reused buffers: a streamed token
// costs one small append per field instead of a reflective encoding.

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, byte for byte as
// encoding/json writes it with SetEscapeHTML(false) (TestAppendString):
// invalid UTF-8 becomes U+FFFD, HTML characters are not escaped (JSON
// does not need it, and prompts and arguments are full of < and >).
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but end lines in JavaScript;
		// escape them as encoding/json does.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendOptString appends s as a JSON string, or null when it is empty.
func appendOptString(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return appendString(dst, s)
}

// appendInt appends n.
func appendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }
