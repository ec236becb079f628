package split

// PatternQwen35 is the pattern of Qwen 3.5: Qwen 2's, with marks in words
// ([\p{L}\p{M}]+, so a combining mark extends a word) and out of the
// punctuation runs. Source: Qwen/Qwen3.5 tokenizer.json, pre_tokenizer.
const PatternQwen35 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

func init() { register("qwen35", PatternQwen35, scanner(qwen35)) }

// otherMark reports a character of [^\s\p{L}\p{M}\p{N}].
func otherMark(f uint8) bool { return other(f) && !mark(f) }

// qwen35 scans PatternQwen35, its alternatives in order. Every character
// starts a match: a letter or mark a word, a number itself, white space its
// run, anything else a punctuation run.
func qwen35(s string, i int) int {
	c := s[i]
	if c == '\'' {
		if e := contraction(s, i, true); e > 0 {
			return e
		}
	}
	f, n := ascii[c], 1
	if f&cMulti != 0 {
		f, n = classMulti(s, i)
	}
	// [^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+, with the optional character first. A
	// mark is both, and gives the same end either way.
	if prefix(f) && i+n < len(s) {
		if f2, n2 := class(s, i+n); letterOrMark(f2) {
			return runLetterOrMark(s, i+n+n2)
		}
	}
	if letterOrMark(f) {
		return runLetterOrMark(s, i+n)
	}
	if f&cN != 0 {
		return i + n
	}
	// ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*
	if c == ' ' && i+1 < len(s) {
		if f2, n2 := class(s, i+1); otherMark(f2) {
			return byteRun(s, otherMarkRun(s, i+1+n2), "\r\n")
		}
	}
	if otherMark(f) {
		return byteRun(s, otherMarkRun(s, i+n), "\r\n")
	}
	return whitespace(s, i, true)
}

// otherMarkRun returns the end of the run of [^\s\p{L}\p{M}\p{N}] from i.
func otherMarkRun(s string, i int) int {
	for i < len(s) {
		f, n := ascii[s[i]], 1
		if f&cMulti != 0 {
			f, n = classMulti(s, i)
		}
		if !otherMark(f) {
			break
		}
		i += n
	}
	return i
}
