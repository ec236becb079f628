package split

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// Character classes of the known patterns, as bit flags. They follow
// Unicode 16.0, the version of the tables of Oniguruma in Hugging Face's
// tokenizers: Go's tables (Unicode 15.0, which regexp2 reads: \p{..} is
// unicode.Categories, \s is unicode.IsSpace) and the code points Unicode
// 16.0 adds to them (unicode_added.go), which the translation of a pattern
// for regexp2 adds too (translate.go), so that the scanners class every code
// point as the reference engine does.
const (
	cL     uint8 = 1 << iota // \p{L}
	cN                       // \p{N}
	cS                       // \s (White_Space)
	cU                       // o200k's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	cW                       // o200k's [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	cNL                      // \r or \n
	cMulti                   // in ascii: a byte that starts (or is not) a multi-byte character
	cPS                      // \p{P} or \p{S} (DeepSeek's pattern)
)

// ascii holds the classes of the ASCII bytes; every other byte is cMulti.
var ascii = func() (t [256]uint8) {
	for b := range t {
		if b < utf8.RuneSelf {
			t[b] = bmp[b]
		} else {
			t[b] = cMulti
		}
	}
	return t
}()

// bmp holds the classes of every code point of the Basic Multilingual Plane
// (64 KiB, built at init from the range tables in well under a millisecond).
var bmp = buildBMP()

func buildBMP() *[0x10000]uint8 {
	t := new([0x10000]uint8)
	for _, e := range []struct {
		name string // a category or a property
		f    uint8
	}{
		{"L", cL}, {"N", cN}, {"White_Space", cS},
		{"Lu", cU}, {"Lt", cU}, {"Lm", cU | cW}, {"Lo", cU | cW}, {"M", cU | cW},
		{"Ll", cW},
		{"P", cPS}, {"S", cPS},
	} {
		goTab := unicode.Categories[e.name]
		if goTab == nil {
			goTab = unicode.Properties[e.name]
		}
		for _, tab := range []*unicode.RangeTable{goTab, added[e.name]} {
			if tab == nil {
				continue
			}
			for lo, hi := range rangesOf(tab) {
				for c := lo; c <= min(hi, 0xFFFF); c++ {
					t[c] |= e.f
				}
			}
		}
	}
	t['\r'] |= cNL
	t['\n'] |= cNL
	return t
}

// The tables astral reads: the code points above the BMP of each category,
// Unicode 16.0's additions merged in.
var (
	astralLu, astralLt, astralLl = merged("Lu"), merged("Lt"), merged("Ll")
	astralLm, astralLo, astralM  = merged("Lm"), merged("Lo"), merged("M")
	astralN, astralP, astralS    = merged("N"), merged("P"), merged("S")
)

// merged returns the code points above the BMP of the category name, in
// Go's table and in Unicode 16.0's additions to it, as one table of
// stride-one ranges (a range of Go's with a stride may span an added code
// point, which a binary search over the two tables concatenated would
// miss).
func merged(name string) *unicode.RangeTable {
	var rs []unicode.Range32
	for _, t := range []*unicode.RangeTable{unicode.Categories[name], added[name]} {
		if t == nil {
			continue
		}
		for lo, hi := range rangesOf(t) {
			if hi > 0xFFFF {
				rs = append(rs, unicode.Range32{Lo: uint32(max(lo, 0x10000)), Hi: uint32(hi), Stride: 1})
			}
		}
	}
	slices.SortFunc(rs, func(a, b unicode.Range32) int { return int(a.Lo) - int(b.Lo) })
	return &unicode.RangeTable{R32: rs}
}

// astral returns the classes of a code point above the BMP (no White_Space
// there).
func astral(r rune) uint8 {
	var f uint8
	switch {
	case unicode.Is(astralLu, r), unicode.Is(astralLt, r):
		f = cL | cU
	case unicode.Is(astralLl, r):
		f = cL | cW
	case unicode.Is(astralLm, r), unicode.Is(astralLo, r):
		f = cL | cU | cW
	case unicode.Is(astralM, r):
		f = cU | cW
	case unicode.Is(astralN, r):
		f = cN
	case unicode.Is(astralP, r), unicode.Is(astralS, r):
		f = cPS
	}
	return f
}

// mark reports a character of \p{M}: in o200k's classes and not a letter.
func mark(f uint8) bool { return f&cU != 0 && f&cL == 0 }

// letterOrMark reports a character of [\p{L}\p{M}].
func letterOrMark(f uint8) bool { return f&cL != 0 || mark(f) }

// class returns the classes of the character at s[i] and its width. An
// invalid byte is U+FFFD (no class) of width 1, as regexp2 reads Go strings.
func class(s string, i int) (f uint8, n int) {
	if f = ascii[s[i]]; f&cMulti != 0 {
		return classMulti(s, i)
	}
	return f, 1
}

func classMulti(s string, i int) (uint8, int) {
	// Two- and three-byte characters decoded inline (most non-ASCII text);
	// anything else, invalid bytes included, by utf8.
	switch c := s[i]; {
	case 0xC2 <= c && c < 0xE0 && i+1 < len(s):
		if c1 := s[i+1]; c1&0xC0 == 0x80 {
			return bmp[rune(c&0x1F)<<6|rune(c1&0x3F)], 2
		}
	case 0xE0 <= c && c < 0xF0 && i+2 < len(s):
		c1, c2 := s[i+1], s[i+2]
		if c1&0xC0 == 0x80 && c2&0xC0 == 0x80 {
			// Overlong forms (below U+0800) and surrogates are invalid.
			if r := rune(c&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F); r >= 0x800 && (r < 0xD800 || r > 0xDFFF) {
				return bmp[r], 3
			}
		}
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r <= 0xFFFF {
		return bmp[r], n
	}
	return astral(r), n
}

// other reports a character of [^\s\p{L}\p{N}].
func other(f uint8) bool { return f&(cS|cL|cN) == 0 }

// prefix reports a character of [^\r\n\p{L}\p{N}].
func prefix(f uint8) bool { return f&(cNL|cL|cN) == 0 }

// run returns the end of the run of characters from i that have a class in
// want.
func run(s string, i int, want uint8) int {
	for i < len(s) {
		f, n := ascii[s[i]], 1
		if f&cMulti != 0 {
			f, n = classMulti(s, i)
		}
		if f&want == 0 {
			break
		}
		i += n
	}
	return i
}

// otherRun returns the end of the run of [^\s\p{L}\p{N}] from i.
func otherRun(s string, i int) int {
	for i < len(s) {
		f, n := ascii[s[i]], 1
		if f&cMulti != 0 {
			f, n = classMulti(s, i)
		}
		if !other(f) {
			break
		}
		i += n
	}
	return i
}

// byteRun returns the end of the run of bytes from i that are in set.
func byteRun(s string, i int, set string) int {
	for i < len(s) && indexByte(set, s[i]) {
		i++
	}
	return i
}

func indexByte(set string, c byte) bool {
	for k := 0; k < len(set); k++ {
		if set[k] == c {
			return true
		}
	}
	return false
}

// foldsTo[c] holds, for each ASCII letter c of the contractions, the
// non-ASCII characters regexp2 matches for it case-insensitively: the rest of
// the orbit of c under unicode.SimpleFold (ſ U+017F for s), which is also
// Oniguruma's one-character folding.
var foldsTo = func() map[byte][]rune {
	m := map[byte][]rune{}
	for _, c := range []byte("strvmlde") {
		for r := unicode.SimpleFold(rune(c)); r != rune(c); r = unicode.SimpleFold(r) {
			if r >= utf8.RuneSelf {
				m[c] = append(m[c], r)
			}
		}
	}
	return m
}()

// foldAt reports whether the character at s[i] folds to the ASCII letter c,
// and its width.
func foldAt(s string, i int, c byte) (bool, int) {
	if i >= len(s) {
		return false, 0
	}
	b := s[i]
	if b < utf8.RuneSelf {
		return b|0x20 == c, 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	for _, f := range foldsTo[c] {
		if r == f {
			return true, n
		}
	}
	return false, n
}

// contraction returns the end of 's|'t|'re|'ve|'m|'ll|'d at s[i] (which is
// an apostrophe), or -1. With fold, letters match case-insensitively.
func contraction(s string, i int, fold bool) int {
	j := i + 1
	if j >= len(s) {
		return -1
	}
	if !fold {
		switch s[j] {
		case 's', 't', 'm', 'd':
			return j + 1
		case 'r', 'v':
			if j+1 < len(s) && s[j+1] == 'e' {
				return j + 2
			}
		case 'l':
			if j+1 < len(s) && s[j+1] == 'l' {
				return j + 2
			}
		}
		return -1
	}
	for _, one := range []byte("stmd") {
		if ok, n := foldAt(s, j, one); ok {
			return j + n
		}
	}
	for _, two := range []string{"re", "ve", "ll"} {
		if ok, n := foldAt(s, j, two[0]); ok {
			if ok2, n2 := foldAt(s, j+n, two[1]); ok2 {
				return j + n + n2
			}
		}
	}
	return -1
}

// whitespace returns the end of the match of the whitespace alternatives at
// s[i] (a \s character): with newlines, \s*[\r\n]+ (to just after the last
// \r or \n of the run) when the run holds one; then \s+(?!\S) (the whole run
// at the end of the text, else the run but its last character when that
// leaves one); else \s+ (the single character).
func whitespace(s string, i int, newlines bool) int {
	j, last, lastNL := i, i, -1
	for j < len(s) {
		f, n := ascii[s[j]], 1
		if f&cMulti != 0 {
			f, n = classMulti(s, j)
		}
		if f&cS == 0 {
			break
		}
		last = j
		j += n
		if f&cNL != 0 {
			lastNL = j
		}
	}
	switch {
	case newlines && lastNL > 0:
		return lastNL
	case j == len(s):
		return j
	case last > i:
		return last
	}
	return j
}
