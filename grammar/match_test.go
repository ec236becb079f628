package grammar

import (
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// This file is a small matcher and sampler of compiled grammars, for the
// tests: Matches decides whether a text is in a grammar's language, and
// Sample draws random texts from it.

// matcher memoizes, for each rule and position, the positions where a
// match of the rule from there can end.
type matcher struct {
	g    *Grammar
	text string
	memo map[[2]int][]int
	busy map[[2]int]bool
	// furthest is the end of the furthest literal or character matched:
	// where a text the grammar rejects stops matching (furthestMatch).
	furthest int
}

// furthestMatch returns how far into text g can match, a text it rejects
// going wrong there: for the messages of tests.
func (g *Grammar) furthestMatch(text string) int {
	m := &matcher{g: g, text: text, memo: map[[2]int][]int{}, busy: map[[2]int]bool{}}
	m.rule(g.root, 0)
	return m.furthest
}

// Matches reports whether text is in g's language.
func (g *Grammar) Matches(text string) bool {
	m := &matcher{g: g, text: text, memo: map[[2]int][]int{}, busy: map[[2]int]bool{}}
	for _, end := range m.rule(g.root, 0) {
		if end == len(text) {
			return true
		}
	}
	return false
}

// MatchesPrefix reports whether text is a prefix of some text in g's
// language... approximated as: the whole text matches, for tests only.

func (m *matcher) rule(r, pos int) []int {
	key := [2]int{r, pos}
	if ends, ok := m.memo[key]; ok {
		return ends
	}
	if m.busy[key] {
		return nil // left recursion: none in compiled grammars
	}
	m.busy[key] = true
	ends := m.expr(m.g.ruleAt(r).body, pos)
	delete(m.busy, key)
	m.memo[key] = ends
	return ends
}

func (m *matcher) expr(e *expr, pos int) []int {
	switch e.kind {
	case kLit:
		if strings.HasPrefix(m.text[pos:], e.text) {
			m.furthest = max(m.furthest, pos+len(e.text))
			return []int{pos + len(e.text)}
		}
		return nil
	case kClass:
		if pos >= len(m.text) {
			return nil
		}
		c, n := utf8.DecodeRuneInString(m.text[pos:])
		if e.has(c) {
			m.furthest = max(m.furthest, pos+n)
			return []int{pos + n}
		}
		return nil
	case kRef:
		return m.rule(m.g.target(e), pos)
	case kSeq:
		cur := []int{pos}
		for _, it := range e.items {
			var next []int
			for _, p := range cur {
				next = union(next, m.expr(it, p))
			}
			if len(next) == 0 {
				return nil
			}
			cur = next
		}
		return cur
	case kAlt:
		var out []int
		for _, it := range e.items {
			out = union(out, m.expr(it, pos))
		}
		return out
	case kRep:
		var out []int
		cur := []int{pos}
		if e.min == 0 {
			out = union(out, cur)
		}
		for n := 1; e.max < 0 || n <= e.max; n++ {
			var next []int
			for _, p := range cur {
				for _, q := range m.expr(e.items[0], p) {
					if q > p || n <= e.min { // an empty match adds nothing past the minimum
						next = union(next, []int{q})
					}
				}
			}
			if len(next) == 0 {
				break
			}
			cur = next
			if n >= e.min {
				out = union(out, cur)
			}
			if n > len(m.text)+e.min {
				break
			}
		}
		return out
	}
	return nil
}

func union(a, b []int) []int {
	for _, x := range b {
		found := false
		for _, y := range a {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			a = append(a, x)
		}
	}
	return a
}

// sampler draws random texts from a grammar, preferring the shortest
// way out once deep.
type sampler struct {
	g     *Grammar
	rng   *rand.Rand
	short []int // the shortest text each rule derives, in characters
	depth int
	b     strings.Builder
	// pool is the characters a negated class draws from.
	pool []rune
}

func newSampler(g *Grammar, rng *rand.Rand) *sampler {
	s := &sampler{g: g, rng: rng}
	s.pool = []rune("abcxyz ABC019.,-_:;!?'\"\\/<>|=&{}[]()\n\téü日本🙂\u00a0\u2028")
	s.short = make([]int, g.numRules())
	for i := range s.short {
		s.short[i] = 1 << 30
	}
	for changed := true; changed; {
		changed = false
		for i := range s.short {
			if n := s.minLen(g.ruleAt(i).body); n < s.short[i] {
				s.short[i], changed = n, true
			}
		}
	}
	return s
}

func (s *sampler) minLen(e *expr) int {
	switch e.kind {
	case kLit:
		return len(e.text)
	case kClass:
		return 1
	case kRef:
		return s.short[s.g.target(e)]
	case kSeq:
		n := 0
		for _, it := range e.items {
			n = min(n+s.minLen(it), 1<<30)
		}
		return n
	case kAlt:
		n := 1 << 30
		for _, it := range e.items {
			n = min(n, s.minLen(it))
		}
		return n
	case kRep:
		return min(e.min*s.minLen(e.items[0]), 1<<30)
	}
	return 1 << 30
}

// Sample returns a random text of g's language.
func (s *sampler) Sample() string {
	s.b.Reset()
	s.depth = 0
	s.expr(&expr{kind: kRef, rule: s.g.root})
	return s.b.String()
}

func (s *sampler) expr(e *expr) {
	s.depth++
	defer func() { s.depth-- }()
	deep := s.depth > 60 || s.b.Len() > 4000
	switch e.kind {
	case kLit:
		s.b.WriteString(e.text)
	case kClass:
		s.b.WriteRune(s.char(e))
	case kRef:
		s.expr(s.g.ruleAt(s.g.target(e)).body)
	case kSeq:
		for _, it := range e.items {
			s.expr(it)
		}
	case kAlt:
		var pick *expr
		if deep {
			best := 1 << 30
			for _, it := range e.items {
				if n := s.minLen(it); n < best {
					best, pick = n, it
				}
			}
		} else {
			// Only alternatives that can end, in a text of a few
			// thousand characters when some can (a long string's chunks
			// can't: the matcher would take minutes on a megabyte).
			var ok []*expr
			for _, limit := range [...]int{4096, 1<<30 - 1} {
				for _, it := range e.items {
					if s.minLen(it) <= limit {
						ok = append(ok, it)
					}
				}
				if len(ok) > 0 {
					break
				}
			}
			pick = ok[s.rng.IntN(len(ok))]
		}
		s.expr(pick)
	case kRep:
		n := e.min
		hi := e.max
		if hi < 0 {
			hi = e.min + 4
		}
		if !deep && hi > n {
			n += s.rng.IntN(min(hi-n, 6) + 1)
		}
		for range n {
			s.expr(e.items[0])
		}
	}
}

func (s *sampler) char(e *expr) rune {
	if !e.neg {
		// A random range, a random character in it (biased to the ends).
		r := e.rs[s.rng.IntN(len(e.rs))]
		switch s.rng.IntN(4) {
		case 0:
			return r.lo
		case 1:
			return r.hi
		}
		return r.lo + rune(s.rng.IntN(int(r.hi-r.lo)+1))
	}
	for range 100 {
		c := s.pool[s.rng.IntN(len(s.pool))]
		if e.has(c) {
			return c
		}
	}
	return 'q'
}
