package pyjson

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// AppendEscaped appends the inside of the JSON string literal for s, as
// AppendQuoted writes it but without the quotes. Escaping works byte by
// byte, so the escaped pieces of a string concatenate to the escaped
// string: a parser can stream a string value as it arrives. Like append, it
// leaves the bytes of dst's array past the result's length as they were.
//
// It reads s eight bytes at a time and always moves on by eight, so the
// next load never waits for the last word's tests; a word is stored whole
// (8-byte stores at the end of dst, each overwritten by the next), and an
// escape in it splits it. A loop over bytes was as fast only when its code
// sat inside one 64-byte line: the same machine code ran about 35% slower
// straddling two, as the linker's placement moved it.
func AppendEscaped(dst []byte, s string) []byte {
	dst = slices.Grow(dst, len(s)+len(s)/8)
	// Each store writes 8 bytes at the end of dst, some of them past its
	// new length; at least 8 more input bytes remain after a word, and they
	// write at least 8 more, so nothing past the final length is touched.
	for len(s) >= 16 {
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		m := specialBytes(x)
		dst = store8(dst, x, 8)
		if m != 0 {
			dst = escapeWord(dst[:len(dst)-8], s[:8], x, m)
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; stringSpecial[c] {
			dst = appendEscapedByte(dst, c)
		} else {
			dst = append(dst, c)
		}
	}
	return dst
}

// store8 stores the eight bytes of x at the end of dst and keeps the first
// n of them.
func store8(dst []byte, x uint64, n int) []byte {
	l := len(dst)
	if cap(dst)-l < 8 {
		dst = slices.Grow(dst, 64)
	}
	binary.LittleEndian.PutUint64(dst[l:l+8], x)
	return dst[:l+n]
}

// escapeWord appends the eight bytes w, x as a word, escaped; m flags
// (zeroBytes) the first byte to escape and perhaps others after it.
func escapeWord(dst []byte, w string, x uint64, m uint64) []byte {
	prev := 0
	for m != 0 {
		k := bits.TrailingZeros64(m) >> 3
		m &= m - 1
		if !stringSpecial[w[k]] {
			continue // a borrow flagged a byte above a true match
		}
		dst = store8(dst, x>>(8*prev), k-prev)
		dst = appendEscapedByte(dst, w[k])
		prev = k + 1
	}
	if prev < 8 {
		dst = store8(dst, x>>(8*prev), 8-prev)
	}
	return dst
}
