package pyjson

import "slices"

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
	start := 0
	for i := 0; i < len(s); i++ {
		if !escapes[s[i]] {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscapedByte(dst, s[i])
		start = i + 1
	}
	return append(dst, s[start:]...)
}
