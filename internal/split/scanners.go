package split

// The hand-written scanners. Each of the patterns here matches at every
// position (each character is a letter, a number, whitespace or "other",
// and some alternative takes each), never matches empty and has no
// look-behind, so Find is the match that starts at pos. (DeepSeek's
// patterns do not match everywhere: deepseek.go has finders for them.) Each scanner follows its pattern's
// alternatives in order, with the backtracking made explicit; the
// differential tests prove them equal to regexp2 on the same pattern.

func init() {
	register("gpt2", PatternGPT2, scanner(gpt2))
	register("cl100k", PatternCL100K, scanner(cl100k))
	register("qwen2", PatternQwen2, scanner(qwen2))
	register("o200k", PatternO200K, scanner(o200k))
	register("tekken", PatternTekken, scanner(tekken))
}

// register makes m the hand-written matcher of pattern, known as name.
func register(name, pattern string, m Matcher) {
	scanners[pattern] = m
	scannerNames[pattern] = name
}

// A scanner returns the end of the match that starts at s[i], i < len(s).
type scanner func(s string, i int) int

// Scanner returns the step function of m when m is a hand-written scanner
// (Regex's matcher of a known pattern, or GPT2), and nil otherwise. The
// function returns the end of the match that starts at s[i], for i < len(s)
// at the start of a character; since such a pattern matches at every
// position and never matches empty, the matches of s are the spans from 0
// to next(s, 0), from there to next(s, next(s, 0)), and so on to len(s),
// exactly as All gives them.
func Scanner(m Matcher) func(s string, i int) int {
	if sc, ok := m.(scanner); ok {
		return sc
	}
	return nil
}

// Find implements Matcher.
func (sc scanner) Find(s string, pos int) (int, int) {
	if pos = matchStart(s, pos); pos >= len(s) {
		return -1, -1
	}
	return pos, sc(s, pos)
}

// gpt2 scans 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+.
func gpt2(s string, i int) int {
	c := s[i]
	if c == '\'' {
		if e := contraction(s, i, false); e > 0 {
			return e
		}
	}
	if c == ' ' && i+1 < len(s) {
		// The optional space, then a run of the next character's class.
		f, n := ascii[s[i+1]], 1
		if f&cMulti != 0 {
			f, n = classMulti(s, i+1)
		}
		switch {
		case f&cL != 0:
			return run(s, i+1+n, cL)
		case f&cN != 0:
			return run(s, i+1+n, cN)
		case other(f):
			return otherRun(s, i+1+n)
		}
	}
	f, n := ascii[s[i]], 1
	if f&cMulti != 0 {
		f, n = classMulti(s, i)
	}
	switch {
	case f&cL != 0:
		return run(s, i+n, cL)
	case f&cN != 0:
		return run(s, i+n, cN)
	case other(f):
		return otherRun(s, i+n)
	}
	return whitespace(s, i, false)
}

// cl100k scans (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
// ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+.
func cl100k(s string, i int) int { return cl100kDigits(s, i, 3) }

// qwen2 scans cl100k's pattern with \p{N} for \p{N}{1,3}.
func qwen2(s string, i int) int { return cl100kDigits(s, i, 1) }

func cl100kDigits(s string, i int, digits int) int {
	c := s[i]
	if c == '\'' {
		if e := contraction(s, i, true); e > 0 {
			return e
		}
	}
	f, n := ascii[s[i]], 1
	if f&cMulti != 0 {
		f, n = classMulti(s, i)
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+, with the optional character first.
	if prefix(f) && i+n < len(s) {
		if f2, n2 := class(s, i+n); f2&cL != 0 {
			return run(s, i+n+n2, cL)
		}
	}
	if f&cL != 0 {
		return run(s, i+n, cL)
	}
	if f&cN != 0 {
		j := i + n
		for k := 1; k < digits && j < len(s); k++ {
			f2, n2 := ascii[s[j]], 1
			if f2&cMulti != 0 {
				f2, n2 = classMulti(s, j)
			}
			if f2&cN == 0 {
				break
			}
			j += n2
		}
		return j
	}
	// ?[^\s\p{L}\p{N}]+[\r\n]*
	if c == ' ' && i+1 < len(s) {
		if f2, n2 := class(s, i+1); other(f2) {
			return byteRun(s, otherRun(s, i+1+n2), "\r\n")
		}
	}
	if other(f) {
		return byteRun(s, otherRun(s, i+n), "\r\n")
	}
	return whitespace(s, i, true)
}

// o200k scans the o200k pattern, whose first two alternatives are
//
//	A1 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|...)?
//	A2 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|...)?
//
// (U and W below), then \p{N}{1,3}, ?[^\s\p{L}\p{N}]+[\r\n/]*, \s*[\r\n]+,
// \s+(?!\S) and \s+.
func o200k(s string, i int) int {
	if e := o200kASCII(s, i, true); e >= 0 {
		return e
	}
	return o200kFamily(s, i, true, 3)
}

// tekken scans PatternTekken: o200k's pattern without the contractions,
// with \p{N} for \p{N}{1,3}.
func tekken(s string, i int) int {
	if e := o200kASCII(s, i, false); e >= 0 {
		return e
	}
	return o200kFamily(s, i, false, 1)
}

// o200kFamily scans o200k's pattern, with or without its contractions and
// with runs of up to digits numbers, where o200kASCII does not decide.
func o200kFamily(s string, i int, contr bool, digits int) int {
	f, n := ascii[s[i]], 1
	if f&cMulti != 0 {
		f, n = classMulti(s, i)
	}
	pre := prefix(f) && i+n < len(s)
	// A1 with the optional character, then without it.
	if pre {
		if e := o200kA1(s, i+n, contr); e > 0 {
			return e
		}
	}
	if f&(cU|cW) != 0 {
		if e := o200kA1(s, i, contr); e > 0 {
			return e
		}
	}
	// A2 likewise.
	if pre {
		if e := o200kA2(s, i+n, contr); e > 0 {
			return e
		}
	}
	if f&cU != 0 {
		return o200kA2(s, i, contr)
	}
	if f&cN != 0 {
		j := i + n
		for k := 1; k < digits && j < len(s); k++ {
			f2, n2 := ascii[s[j]], 1
			if f2&cMulti != 0 {
				f2, n2 = classMulti(s, j)
			}
			if f2&cN == 0 {
				break
			}
			j += n2
		}
		return j
	}
	// ?[^\s\p{L}\p{N}]+[\r\n/]*
	if s[i] == ' ' && i+1 < len(s) {
		if f2, n2 := class(s, i+1); other(f2) {
			return byteRun(s, otherRun(s, i+1+n2), "\r\n/")
		}
	}
	if other(f) {
		return byteRun(s, otherRun(s, i+n), "\r\n/")
	}
	return whitespace(s, i, true)
}

// letterCase classes the ASCII letters for o200kASCII.
var letterCase = func() (t [256]uint8) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = upper
		t[c+'a'-'A'] = lower
	}
	return t
}()

const (
	upper = 1
	lower = 2
)

// o200kASCII is o200k's first two alternatives where only ASCII decides
// them: an optional ASCII character of [^\r\n\p{L}\p{N}], then ASCII
// letters up to an ASCII byte that is not one or the end of s. Upper then
// lower case letters (at least one lower) are A1's U* W+, upper case
// letters alone A2's U+; a contraction may follow. It returns -1 when the
// match does not start so, or when a byte past the letters is not ASCII
// (a letter or mark there could extend the match).
func o200kASCII(s string, i int, contr bool) int {
	j := i
	if letterCase[s[j]] == 0 {
		if f := ascii[s[j]]; !prefix(f) || f&cMulti != 0 {
			return -1
		}
		j++
		if j >= len(s) || letterCase[s[j]] == 0 {
			return -1
		}
	}
	for j < len(s) && letterCase[s[j]] == upper {
		j++
	}
	for j < len(s) && letterCase[s[j]] == lower {
		j++
	}
	if j < len(s) {
		switch c := s[j]; {
		case c >= 0x80:
			return -1
		case c == '\'' && contr:
			return o200kContraction(s, j)
		}
	}
	return j
}

// o200kA1 matches U* W+ S? at s[j], or returns -1. U* takes the longest run
// it can; if a W follows, W+ takes its run; otherwise U* gives back
// characters until W+ can take one: the match ends after the last W inside
// the U run.
func o200kA1(s string, j int, contr bool) int {
	lastW := -1
	for j < len(s) {
		f, n := ascii[s[j]], 1
		if f&cMulti != 0 {
			f, n = classMulti(s, j)
		}
		if f&cU == 0 {
			if f&cW != 0 {
				return o200kMaybeContraction(s, run(s, j+n, cW), contr)
			}
			break
		}
		j += n
		if f&cW != 0 {
			lastW = j
		}
	}
	if lastW < 0 {
		return -1
	}
	return o200kMaybeContraction(s, lastW, contr)
}

// o200kA2 matches U+ W* S? at s[j], or returns -1.
func o200kA2(s string, j int, contr bool) int {
	e := run(s, j, cU)
	if e == j {
		return -1
	}
	return o200kMaybeContraction(s, run(s, e, cW), contr)
}

// o200kMaybeContraction is o200kContraction when contr is set.
func o200kMaybeContraction(s string, e int, contr bool) int {
	if contr {
		return o200kContraction(s, e)
	}
	return e
}

// o200kContraction extends a match ending at e over an optional
// case-insensitive contraction.
func o200kContraction(s string, e int) int {
	if e < len(s) && s[e] == '\'' {
		if c := contraction(s, e, true); c > 0 {
			return c
		}
	}
	return e
}
