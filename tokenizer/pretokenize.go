package tokenizer

import (
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/split"
)

// stepKind is the kind of one pre-tokenizer.
type stepKind uint8

const (
	stepSplit stepKind = iota
	stepDigits
	stepByteLevel
)

// behavior is Hugging Face's SplitDelimiterBehavior: what happens to the
// matches of a split pattern.
type behavior uint8

const (
	isolated behavior = iota
	removed
	mergedWithPrevious
	mergedWithNext
	contiguous
)

// step is one pre-tokenizer of the pipeline.
type step struct {
	kind        stepKind
	path        string
	matcher     split.Matcher // Split's pattern; ByteLevel's GPT-2 pattern when use_regex
	behavior    behavior
	invert      bool
	prefixSpace bool // ByteLevel add_prefix_space
	useRegex    bool // ByteLevel use_regex
}

// piece is a piece of a normalized segment. Its bytes at i >= pre are the
// segment's bytes at off+i-pre; pre is 1 when a ByteLevel add_prefix_space
// put a space before them, a space that counts as part of the character at
// off (Hugging Face's prepend).
type piece struct {
	s   string
	off int32
	pre int32
}

// sub returns the piece's bytes [a, b).
func (p piece) sub(a, b int) piece {
	if a < int(p.pre) {
		return piece{p.s[a:b], p.off, p.pre}
	}
	return piece{p.s[a:b], p.off + int32(a) - p.pre, 0}
}

// match is one span of a piece and whether the pattern matched it.
type match struct {
	start, end int
	hit        bool
}

// findMatches lists the matches of m in s with the gaps between them, as
// Hugging Face's Pattern::find_matches does for a regex (split.Splits).
func findMatches(dst []match, m split.Matcher, s string) []match {
	split.Splits(m, s, func(start, end int, hit bool) bool {
		dst = append(dst, match{start, end, hit})
		return true
	})
	return dst
}

// findMatches is findMatches bounded by the state's context: on an error
// it records it in st.err.
func (st *state) findMatches(dst []match, m split.Matcher, s string) []match {
	if st.ctx == nil {
		return findMatches(dst, m, s)
	}
	err := split.SplitsContext(st.ctx, m, s, func(start, end int, hit bool) bool {
		dst = append(dst, match{start, end, hit})
		return true
	})
	if err != nil {
		st.err = err
	}
	return dst
}

// findDigits lists each numeric character as a match (Rust's
// char::is_numeric: categories Nd, Nl and No, at Unicode 17.0) with the
// gaps between them.
func findDigits(dst []match, s string) []match {
	last := 0
	for i, r := range s {
		n := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, n = utf8.DecodeRuneInString(s[i:])
		}
		if split.IsNumber(r) {
			if last < i {
				dst = append(dst, match{last, i, false})
			}
			dst = append(dst, match{i, i + n, true})
			last = i + n
		}
	}
	if last < len(s) {
		dst = append(dst, match{last, len(s), false})
	}
	return dst
}

// applyBehavior turns matches into the spans to keep, as Hugging Face's
// NormalizedString::split does.
func applyBehavior(dst, ms []match, b behavior, invert bool) []match {
	if invert {
		for i := range ms {
			ms[i].hit = !ms[i].hit
		}
	}
	switch b {
	case isolated:
		return append(dst, ms...)
	case removed:
		for _, m := range ms {
			if !m.hit {
				dst = append(dst, m)
			}
		}
		return dst
	case contiguous:
		prev := false
		for _, m := range ms {
			if m.hit == prev && len(dst) > 0 {
				dst[len(dst)-1].end = m.end
			} else {
				dst = append(dst, m)
			}
			prev = m.hit
		}
		return dst
	case mergedWithPrevious:
		prev := false
		for _, m := range ms {
			if m.hit && !prev && len(dst) > 0 {
				dst[len(dst)-1].end = m.end
			} else {
				dst = append(dst, m)
			}
			prev = m.hit
		}
		return dst
	case mergedWithNext:
		start := len(dst)
		prev := false
		for i := len(ms) - 1; i >= 0; i-- {
			m := ms[i]
			if m.hit && !prev && len(dst) > start {
				dst[len(dst)-1].start = m.start
			} else {
				dst = append(dst, m)
			}
			prev = m.hit
		}
		for i, j := start, len(dst)-1; i < j; i, j = i+1, j-1 {
			dst[i], dst[j] = dst[j], dst[i]
		}
		return dst
	}
	return dst
}

// preTokenize splits a normalized segment into the pieces the model
// encodes, running every step on every piece in order and dropping empty
// pieces. The pieces are appended to st.pieces.
func (t *Tokenizer) preTokenize(st *state, seg string) {
	st.pieces = append(st.pieces[:0], piece{s: seg})
	if seg == "" {
		st.pieces = st.pieces[:0]
		return
	}
	for i := range t.steps {
		s := &t.steps[i]
		next := st.next[:0]
		for _, p := range st.pieces {
			if st.err != nil {
				st.pieces = st.pieces[:0]
				return
			}
			if s.kind == stepByteLevel {
				if s.prefixSpace && p.s[0] != ' ' {
					p = piece{" " + p.s, p.off, 1}
				}
				if !s.useRegex {
					next = append(next, p)
					continue
				}
			}
			st.matches = st.matches[:0]
			if s.kind == stepDigits {
				st.matches = findDigits(st.matches, p.s)
			} else {
				st.matches = st.findMatches(st.matches, s.matcher, p.s)
			}
			b, inv := s.behavior, s.invert
			if s.kind == stepByteLevel {
				b, inv = isolated, false
			}
			st.kept = applyBehavior(st.kept[:0], st.matches, b, inv)
			for _, m := range st.kept {
				if m.end > m.start {
					next = append(next, p.sub(m.start, m.end))
				}
			}
		}
		st.next = st.pieces
		st.pieces = next
	}
}
