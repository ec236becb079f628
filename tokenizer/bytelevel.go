package tokenizer

// The byte-level alphabet of GPT-2 (bytes_to_unicode): every byte is written
// as one printable character, so that a vocabulary of strings can hold any
// byte sequence. Printable Latin-1 bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') stand
// for themselves; the 68 others map, in byte order, to U+0100 upward (the
// space is 'Ġ' U+0120, '\n' is 'Ċ' U+010A).

// byteRune maps a byte to its character in the byte-level alphabet.
var byteRune [256]rune

// runeByte maps a character of the byte-level alphabet back to its byte; -1
// for characters outside the alphabet. The alphabet's largest rune is U+0143.
var runeByte [0x144]int16

// byteSpace is the byte-level character of the space byte, 'Ġ'.
const byteSpace = 'Ġ'

func init() {
	for i := range runeByte {
		runeByte[i] = -1
	}
	n := 0
	for b := 0; b < 256; b++ {
		if ('!' <= b && b <= '~') || (0xA1 <= b && b <= 0xAC) || (0xAE <= b && b <= 0xFF) {
			byteRune[b] = rune(b)
		} else {
			byteRune[b] = rune(256 + n)
			n++
		}
		runeByte[byteRune[b]] = int16(b)
	}
}

// byteLevelDecode returns the bytes that the byte-level string s stands for,
// and false when s holds a character outside the alphabet.
func byteLevelDecode(dst []byte, s string) ([]byte, bool) {
	for _, r := range s {
		if r < 0 || int(r) >= len(runeByte) || runeByte[r] < 0 {
			return dst, false
		}
		dst = append(dst, byte(runeByte[r]))
	}
	return dst, true
}
