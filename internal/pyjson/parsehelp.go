package pyjson

import (
	"math/bits"
	"slices"
)

// escapes marks the bytes a JSON string literal must escape.
var escapes = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// AppendEscaped appends the inside of the JSON string literal for s, as
// AppendQuoted writes it but without the quotes. Escaping works byte by
// byte, so the escaped pieces of a string concatenate to the escaped
// string: a parser can stream a string value as it arrives.
func AppendEscaped(dst []byte, s string) []byte {
	dst = slices.Grow(dst, len(s)+len(s)/8)
	for {
		i := escapeIndex(s)
		dst = append(dst, s[:i]...)
		if i == len(s) {
			return dst
		}
		dst = appendEscapedByte(dst, s[i])
		s = s[i+1:]
	}
}

// escapeIndex returns the index of the first byte of s that a JSON string
// must escape, or len(s). It tests eight bytes at a time, as scanString
// does (the bytes to escape are the bytes that end a run of plain string
// content).
func escapeIndex(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if m := zeroBytes(x^quotes) | zeroBytes(x^backslashes) | (x-spaces)&^x&highBits; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(s) && !escapes[s[i]] {
		i++
	}
	return i
}
