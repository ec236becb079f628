package split

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"
	"time"
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
	if err := checkBacktracking(pattern); err != nil {
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

// Find implements Matcher. It has no time limit: text from outside should
// go through FindContext.
func (b *BacktrackMatcher) Find(s string, pos int) (int, int) {
	start, end, err := b.find(b.re, s, pos)
	if err != nil {
		// Only a timeout or a backtracking limit can fail a match, and
		// neither is set.
		panic(fmt.Sprintf("split: regexp2 failed on pattern %q: %v", b.pattern, err))
	}
	return start, end
}

// MaxMatchTime bounds one search of FindContext (one match, or the search
// that finds there is none), whatever the context allows: a pattern that
// backtracks polynomially on a hostile text fails the text instead of
// holding a core. A search of a published tokenizer's pattern takes
// microseconds.
var MaxMatchTime = time.Second

// ErrMatchTimeout is the error of a search that took longer than
// MaxMatchTime.
var ErrMatchTimeout = errors.New("the split pattern took too long to match this text")

// FindContext is Find bounded in time: it returns ctx's error when ctx is
// done before or during the search, and an error wrapping ErrMatchTimeout
// when the search alone takes longer than MaxMatchTime.
func (b *BacktrackMatcher) FindContext(ctx context.Context, s string, pos int) (int, int, error) {
	if err := ctx.Err(); err != nil {
		return -1, -1, err
	}
	limit := MaxMatchTime
	byDeadline := false
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < limit {
			limit, byDeadline = max(left, time.Millisecond), true
		}
	}
	// The limit is a field of the compiled pattern, read by each search:
	// a shallow copy carries this search's own.
	re := *b.re
	re.MatchTimeout = limit
	start, end, err := b.find(&re, s, pos)
	if err == nil {
		return start, end, nil
	}
	if cerr := ctx.Err(); cerr != nil || byDeadline {
		if cerr == nil {
			cerr = context.DeadlineExceeded
		}
		return -1, -1, fmt.Errorf("split pattern %q: %w", b.pattern, cerr)
	}
	return -1, -1, fmt.Errorf("split pattern %q: %w (limit %v, at byte %d of %d)", b.pattern, ErrMatchTimeout, limit, pos, len(s))
}

// find runs one search with re, b's pattern compiled.
func (b *BacktrackMatcher) find(re *regexp2.Regexp, s string, pos int) (int, int, error) {
	if pos < 0 {
		pos = 0
	}
	if pos > len(s) {
		return -1, -1, nil
	}
	d := b.decode(s)
	// The first rune that starts at or after pos.
	ri := sort.SearchInts(d.offs, pos)
	m, err := re.FindRunesMatchStartingAt(d.runes, ri)
	if err != nil {
		return -1, -1, err
	}
	if m == nil {
		return -1, -1, nil
	}
	return d.offs[m.RuneIndex], d.offs[m.RuneIndex+m.RuneLength], nil
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
