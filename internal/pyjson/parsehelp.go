package pyjson

// AppendEscaped appends the inside of the JSON string literal for s, as
// AppendQuoted writes it but without the quotes. Escaping works byte by
// byte, so the escaped pieces of a string concatenate to the escaped
// string: a parser can stream a string value as it arrives.
func AppendEscaped(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscapedByte(dst, c)
		start = i + 1
	}
	return append(dst, s[start:]...)
}
