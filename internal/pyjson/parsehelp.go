package pyjson

import (
	"math/bits"
	"slices"
)

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
// must escape (stringSpecial), or len(s). It is scanString for a string,
// eight bytes at a time the same way; one generic function for both cost
// the parser about 6% (measured), so the two stay apart.
func escapeIndex(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if m := zeroBytes(x^quotes) | zeroBytes(x^backslashes) | (x-spaces)&^x&highBits; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(s) && !stringSpecial[s[i]] {
		i++
	}
	return i
}
