package split

import (
	"fmt"
	"sort"
	"sync/atomic"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// BacktrackMatcher runs a pattern on regexp2. Regex uses it for every pattern
// without a hand-written scanner; tests use it as the reference for the
// scanners. It keeps the decoding of the last text it searched (12 bytes per
// character), so that finding every match of one text decodes it once.
type BacktrackMatcher struct {
	pattern    string // as written in tokenizer.json
	translated string // in regexp2's syntax
	re         *regexp2.Regexp
	last       atomic.Pointer[decoded] // the last string searched, decoded
}

// decoded is a string as regexp2 reads it: one rune per character (U+FFFD
// per invalid byte) and the byte offset of every rune (plus len(s) at the
// end).
type decoded struct {
	s     string
	runes []rune
	offs  []int
}

// Backtrack returns a matcher that runs pattern on regexp2 even when a
// hand-written scanner exists for it (Regex prefers the scanner).
func Backtrack(pattern string) (*BacktrackMatcher, error) {
	translated, err := translate(pattern)
	if err != nil {
		return nil, err
	}
	// No backtracking limit: a long whitespace run backtracks once per
	// character in \s+(?!\S), and an error is not a match.
	re, err := regexp2.Compile(translated, regexp2.None, regexp2.OptionMaxBacktrackingStackSize(-1))
	if err != nil {
		return nil, &PatternError{Pattern: pattern, Offset: -1, Msg: fmt.Sprintf("does not compile: %v", err)}
	}
	return &BacktrackMatcher{pattern: pattern, translated: translated, re: re}, nil
}

// Translated returns the pattern in regexp2's syntax.
func (b *BacktrackMatcher) Translated() string { return b.translated }

// Find implements Matcher.
func (b *BacktrackMatcher) Find(s string, pos int) (int, int) {
	if pos < 0 {
		pos = 0
	}
	if pos > len(s) {
		return -1, -1
	}
	d := b.decode(s)
	// The first rune that starts at or after pos.
	ri := sort.SearchInts(d.offs, pos)
	m, err := b.re.FindRunesMatchStartingAt(d.runes, ri)
	if err != nil {
		// Only a timeout or a backtracking limit can fail a match, and
		// neither is set.
		panic(fmt.Sprintf("split: regexp2 failed on pattern %q: %v", b.pattern, err))
	}
	if m == nil {
		return -1, -1
	}
	return d.offs[m.RuneIndex], d.offs[m.RuneIndex+m.RuneLength]
}

// decode returns s as runes, reusing the last decoding when s is the same
// string (the common case: a caller finding every match of one text).
func (b *BacktrackMatcher) decode(s string) *decoded {
	if d := b.last.Load(); d != nil && d.s == s {
		return d
	}
	d := &decoded{s: s, runes: make([]rune, 0, len(s)), offs: make([]int, 0, len(s)+1)}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		d.runes = append(d.runes, r)
		d.offs = append(d.offs, i)
		i += size
	}
	d.offs = append(d.offs, len(s))
	b.last.Store(d)
	return d
}
