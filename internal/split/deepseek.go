package split

import "unicode/utf8"

// DeepSeek V3's pre-tokenizer is a Sequence of three Isolated Splits, then a
// ByteLevel without regex. Its patterns, exactly as its tokenizer.json
// writes them (JSON's "\u3040" is the character U+3040). Source:
// deepseek-ai/DeepSeek-V3 tokenizer.json, pre_tokenizer.
const (
	// PatternDeepSeekDigits splits off runs of up to three numbers.
	PatternDeepSeekDigits = `\p{N}{1,3}`
	// PatternDeepSeekCJK splits off runs of CJK ideographs (U+4E00 to
	// U+9FA5), hiragana and katakana.
	PatternDeepSeekCJK = "[一-龥\u3040-ゟ゠-ヿ]+"
	// PatternDeepSeekWords is the word pattern: an ASCII punctuation
	// character before ASCII letters, letters and marks with an optional
	// character before them, punctuation and symbols, then cl100k's white
	// space alternatives.
	PatternDeepSeekWords = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"
)

// patternDeepSeekCJKEscaped is PatternDeepSeekCJK with U+3040 written as a
// regex escape, as some copies of the pattern write it.
const patternDeepSeekCJKEscaped = `[一-龥\x{3040}-ゟ゠-ヿ]+`

func init() {
	register("deepseek-digits", PatternDeepSeekDigits, finder(deepseekDigits))
	register("deepseek-cjk", PatternDeepSeekCJK, finder(deepseekCJK))
	register("deepseek-cjk", patternDeepSeekCJKEscaped, finder(deepseekCJK))
	register("deepseek-words", PatternDeepSeekWords, finder(deepseekWords))
}

// A finder is a hand-written matcher of a pattern that does not match at
// every position: it returns the first match at or after pos (a character
// boundary, pos < len(s)), or -1, -1. Like the scanners, a finder never
// matches empty and has no look-behind.
type finder func(s string, pos int) (int, int)

// Find implements Matcher.
func (f finder) Find(s string, pos int) (int, int) {
	if pos = matchStart(s, pos); pos >= len(s) {
		return -1, -1
	}
	return f(s, pos)
}

// Finder returns a function that finds the first match of m at or after
// byte offset pos, when m is one of the hand-written matchers (Regex's
// matcher of a known pattern), and nil otherwise. Its matches are never
// empty, so the matches of s are found by calling it from 0, then from the
// end of each match, as All does.
func Finder(m Matcher) func(s string, pos int) (start, end int) {
	switch m := m.(type) {
	case scanner:
		return m.Find
	case finder:
		return m.Find
	}
	return nil
}

// deepseekDigits finds \p{N}{1,3}.
func deepseekDigits(s string, i int) (int, int) {
	for i < len(s) {
		f, n := ascii[s[i]], 1
		if f&cMulti != 0 {
			f, n = classMulti(s, i)
		}
		if f&cN != 0 {
			j := i + n
			for k := 1; k < 3 && j < len(s); k++ {
				f2, n2 := class(s, j)
				if f2&cN == 0 {
					break
				}
				j += n2
			}
			return i, j
		}
		i += n
	}
	return -1, -1
}

// cjk reports a code point of [一-龥\x{3040}-ゟ゠-ヿ]: U+4E00 to U+9FA5,
// U+3040 to U+30FF.
func cjk(r rune) bool { return 0x4E00 <= r && r <= 0x9FA5 || 0x3040 <= r && r <= 0x30FF }

// deepseekCJK finds [一-龥\x{3040}-ゟ゠-ヿ]+. Every such character is three
// bytes long with a first byte from 0xE3 to 0xE9, so the search passes over
// other bytes without decoding them (a continuation byte is never one).
func deepseekCJK(s string, i int) (int, int) {
	for ; i < len(s); i++ {
		if c := s[i]; c < 0xE3 || c > 0xE9 {
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !cjk(r) {
			i += n - 1
			continue
		}
		j := i + n
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !cjk(r) {
				break
			}
			j += n
		}
		return i, j
	}
	return -1, -1
}

// deepseekWords finds PatternDeepSeekWords: the first position from i where
// one of its alternatives matches (some characters, numbers and controls
// among them, start none).
func deepseekWords(s string, i int) (int, int) {
	for i < len(s) {
		if e := deepseekWordAt(s, i); e > 0 {
			return i, e
		}
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
		}
	}
	return -1, -1
}

// asciiPunct marks the characters of [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]:
// every ASCII punctuation and symbol character.
var asciiPunct = func() (t [256]bool) {
	for _, c := range "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" {
		t[c] = true
	}
	return t
}()

// deepseekWordAt returns the end of the match of PatternDeepSeekWords that
// starts at s[i], or -1, trying its alternatives in order.
func deepseekWordAt(s string, i int) int {
	c := s[i]
	// [punct][A-Za-z]+
	if asciiPunct[c] && i+1 < len(s) && letterCase[s[i+1]] != 0 {
		j := i + 2
		for j < len(s) && letterCase[s[j]] != 0 {
			j++
		}
		return j
	}
	f, n := ascii[c], 1
	if f&cMulti != 0 {
		f, n = classMulti(s, i)
	}
	// [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+, with the optional character
	// first. A mark is both, and gives the same end either way.
	if f&(cNL|cL|cPS) == 0 && i+n < len(s) {
		if f2, n2 := class(s, i+n); letterOrMark(f2) {
			return runLetterOrMark(s, i+n+n2)
		}
	}
	if letterOrMark(f) {
		return runLetterOrMark(s, i+n)
	}
	// ?[\p{P}\p{S}]+[\r\n]*
	if c == ' ' && i+1 < len(s) {
		if f2, n2 := class(s, i+1); f2&cPS != 0 {
			return byteRun(s, run(s, i+1+n2, cPS), "\r\n")
		}
	}
	if f&cPS != 0 {
		return byteRun(s, run(s, i+n, cPS), "\r\n")
	}
	if f&cS != 0 {
		return whitespace(s, i, true)
	}
	return -1
}

// runLetterOrMark returns the end of the run of [\p{L}\p{M}] from i.
func runLetterOrMark(s string, i int) int {
	for i < len(s) {
		f, n := ascii[s[i]], 1
		if f&cMulti != 0 {
			f, n = classMulti(s, i)
		}
		if !letterOrMark(f) {
			break
		}
		i += n
	}
	return i
}
