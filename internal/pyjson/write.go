package pyjson

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// AppendQuoted appends s as a JSON string literal the way Python's
// json.dumps(s, ensure_ascii=False) writes it: `"` and `\` escaped, \n \r \t
// \b \f as short escapes, other control characters as \u00XX, and every
// other character (non-ASCII, `<`, `/`, DEL) as is.
func AppendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = AppendEscaped(dst, s)
	return append(dst, '"')
}

func appendEscapedByte(dst []byte, c byte) []byte {
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// AppendPython appends node i as Python's json.dumps(value,
// ensure_ascii=False) would write it, with two differences that keep the
// rendering lossless: numbers keep their literal text (Python would write
// 1e5 as 100000.0), and repeated object keys are all written.
func (d *Doc) AppendPython(dst []byte, i int) []byte {
	n := &d.Nodes[i]
	switch n.Kind {
	case String:
		if !n.Escaped {
			// A valid literal without escapes has no control characters,
			// quotes or backslashes inside: it is already Python's spelling.
			return append(dst, d.Src[n.Start:n.End]...)
		}
		return appendRequoted(dst, d.Src[n.Start+1:n.End-1])
	case Array:
		dst = append(dst, '[')
		end := int(n.Next)
		for e := i + 1; e < end; e = int(d.Nodes[e].Next) {
			if e != i+1 {
				dst = append(dst, ',', ' ')
			}
			dst = d.AppendPython(dst, e)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		end := int(n.Next)
		for k := i + 1; k < end; {
			if k != i+1 {
				dst = append(dst, ',', ' ')
			}
			dst = d.AppendPython(dst, k)
			dst = append(dst, ':', ' ')
			dst = d.AppendPython(dst, k+1)
			k = int(d.Nodes[k+1].Next)
		}
		return append(dst, '}')
	default:
		return append(dst, d.Src[n.Start:n.End]...)
	}
}

// appendRequoted rewrites the inside of a valid JSON string literal that
// contains escapes into Python's spelling.
func appendRequoted(dst, raw []byte) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		r, n := decodeEscape(raw[i:])
		i += n
		if r < 0x20 || r == '"' || r == '\\' {
			dst = appendEscapedByte(dst, byte(r))
		} else {
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}

// Python parses src and returns it written in Python's json.dumps style.
func Python(src []byte) (string, error) {
	var d Doc
	if err := d.Parse(src); err != nil {
		return "", err
	}
	return string(d.AppendPython(nil, 0)), nil
}
