package split

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Patterns that can backtrack exponentially are refused when they are
// compiled: a backtracking engine tries every way a repeated part can
// divide the text, and when the part can divide it in many ways (it holds
// a repeat of its own, as (a+)+, or an alternation, as (a|ab)+) and what
// follows it can fail, the number of ways grows exponentially with the
// text. The check is conservative and structural: a repeat whose upper
// bound is above one, that is not possessive, and whose body holds another
// such repeat or an alternation (outside atomic groups and look-arounds,
// which never backtrack once matched) is refused, unless it is the last
// thing its alternative matches and needs at most one repetition (then
// the first way that matches ends the search). Every pattern of a
// published tokenizer.json known here passes; a pattern that only
// backtracks polynomially passes too, and is bounded by the match-time
// limit instead (see FindContext).

// reNode is a node of a pattern's structure, as far as backtracking goes.
type reNode struct {
	kind       reKind
	subs       []*reNode
	min, max   int // repeat bounds; max -1 is unbounded
	possessive bool
	frozen     bool // an atomic group or a look-around: never backtracked into
	off        int  // byte offset in the pattern
}

type reKind uint8

const (
	reAtom reKind = iota
	reConcat
	reAlt
	reGroup
	reRepeat
)

// reParser reads a pattern that translate accepted.
type reParser struct {
	src string
	i   int
}

// checkBacktracking returns a *PatternError when pattern (already accepted
// by translate) can backtrack exponentially.
func checkBacktracking(pattern string) error {
	p := &reParser{src: pattern}
	root := p.alt()
	if off := exponential(root, true); off >= 0 {
		return &PatternError{Pattern: pattern, Offset: off,
			Msg: "a repeat whose body holds another repeat or an alternation, followed by more of the pattern, " +
				"can backtrack exponentially (as (a+)+b does); refused"}
	}
	return nil
}

// exponential returns the offset of the first repeat under n that can
// backtrack exponentially, or -1. tail says that nothing that can fail
// follows n in its alternative.
func exponential(n *reNode, tail bool) int {
	switch n.kind {
	case reConcat:
		for i, s := range n.subs {
			if off := exponential(s, tail && i == len(n.subs)-1); off >= 0 {
				return off
			}
		}
	case reAlt:
		for _, s := range n.subs {
			if off := exponential(s, tail); off >= 0 {
				return off
			}
		}
	case reGroup:
		return exponential(n.subs[0], tail || n.frozen)
	case reRepeat:
		loops := (n.max < 0 || n.max > 1) && !n.possessive
		if loops && divides(n.subs[0]) && !(tail && n.min <= 1) {
			return n.off
		}
		return exponential(n.subs[0], tail && !loops)
	}
	return -1
}

// divides reports whether n can match the same text in more than one way
// that a repeat around it would explore: it holds a backtracking repeat or
// an alternation outside frozen groups.
func divides(n *reNode) bool {
	switch n.kind {
	case reAlt:
		return true
	case reRepeat:
		if (n.max < 0 || n.max > 1) && !n.possessive {
			return true
		}
		return divides(n.subs[0])
	case reGroup:
		return !n.frozen && divides(n.subs[0])
	case reConcat:
		for _, s := range n.subs {
			if divides(s) {
				return true
			}
		}
	}
	return false
}

func (p *reParser) more() bool { return p.i < len(p.src) }

// alt reads alternatives up to a ')' or the end.
func (p *reParser) alt() *reNode {
	off := p.i
	branches := []*reNode{p.concat()}
	for p.more() && p.src[p.i] == '|' {
		p.i++
		branches = append(branches, p.concat())
	}
	if len(branches) == 1 {
		return branches[0]
	}
	return &reNode{kind: reAlt, subs: branches, off: off}
}

// concat reads items up to a '|', a ')' or the end.
func (p *reParser) concat() *reNode {
	n := &reNode{kind: reConcat, off: p.i}
	for p.more() && p.src[p.i] != '|' && p.src[p.i] != ')' {
		item := p.atom()
		if item == nil {
			continue
		}
		n.subs = append(n.subs, p.quantifiers(item))
	}
	return n
}

// quantifiers wraps item in the quantifiers that follow it.
func (p *reParser) quantifiers(item *reNode) *reNode {
	for p.more() {
		off := p.i
		lo, hi := 0, 0
		interval := false
		switch p.src[p.i] {
		case '*':
			lo, hi = 0, -1
			p.i++
		case '+':
			lo, hi = 1, -1
			p.i++
		case '?':
			lo, hi = 0, 1
			p.i++
		case '{':
			t := &translator{src: p.src, i: p.i + 1}
			q, ok := t.interval()
			if !ok {
				return item
			}
			p.i = t.i
			lo, hi = intervalBounds(q)
			interval = true
		default:
			return item
		}
		item = &reNode{kind: reRepeat, subs: []*reNode{item}, min: lo, max: hi, off: off}
		if !p.more() {
			return item
		}
		switch p.src[p.i] {
		case '?':
			p.i++
			if interval && !strings.Contains(p.src[off:p.i], ",") {
				// x{n}? is (?:x{n})?.
				item = &reNode{kind: reRepeat, subs: []*reNode{item}, min: 0, max: 1, off: off}
			}
		case '+':
			p.i++
			if interval {
				// x{n,m}+ is (?:x{n,m})+.
				item = &reNode{kind: reRepeat, subs: []*reNode{item}, min: 1, max: -1, off: off}
			} else {
				item.possessive = true
			}
		}
	}
	return item
}

// intervalBounds reads translate's spelling of an interval: {n}, {n,} or
// {n,m}.
func intervalBounds(q string) (lo, hi int) {
	body := q[1 : len(q)-1]
	a, b, comma := strings.Cut(body, ",")
	lo, _ = strconv.Atoi(a)
	switch {
	case !comma:
		return lo, lo
	case b == "":
		return lo, -1
	}
	hi, _ = strconv.Atoi(b)
	return lo, hi
}

// atom reads one item; it returns nil for an option switch such as (?i).
func (p *reParser) atom() *reNode {
	off := p.i
	c, size := utf8.DecodeRuneInString(p.src[p.i:])
	p.i += size
	switch c {
	case '(':
		return p.group(off)
	case '[':
		p.skipClass()
	case '\\':
		p.skipEscape()
	}
	return &reNode{kind: reAtom, off: off}
}

// group reads a group after its '('.
func (p *reParser) group(off int) *reNode {
	n := &reNode{kind: reGroup, off: off}
	rest := p.src[p.i:]
	switch {
	case strings.HasPrefix(rest, "?>"), strings.HasPrefix(rest, "?="), strings.HasPrefix(rest, "?!"):
		n.frozen = true
		p.i += 2
	case strings.HasPrefix(rest, "?<="), strings.HasPrefix(rest, "?<!"):
		n.frozen = true
		p.i += 3
	case strings.HasPrefix(rest, "?<"), strings.HasPrefix(rest, "?'"):
		closer := ">"
		if rest[1] == '\'' {
			closer = "'"
		}
		p.i += 2 + strings.Index(rest[2:], closer) + 1
	case strings.HasPrefix(rest, "?"):
		// (?:, or options: (?i:...) opens a group, (?i) does not.
		j := strings.IndexAny(rest, ":)")
		p.i += j + 1
		if rest[j] == ')' {
			return nil
		}
	}
	n.subs = []*reNode{p.alt()}
	if p.more() {
		p.i++ // ')'
	}
	return n
}

// skipClass skips a character class after its '['; translate refused
// nested classes, so the first ']' not escaped (and not first) ends it.
func (p *reParser) skipClass() {
	start := p.i
	for p.more() {
		c := p.src[p.i]
		switch {
		case c == '\\':
			p.i++
			p.skipEscape()
			continue
		case c == ']' && p.i > start && !(p.i == start+1 && p.src[start] == '^'):
			p.i++
			return
		}
		p.i++
	}
}

// skipEscape skips what follows a backslash: one character, with the
// braces of \p{...} and \x{...}.
func (p *reParser) skipEscape() {
	if !p.more() {
		return
	}
	c, size := utf8.DecodeRuneInString(p.src[p.i:])
	p.i += size
	if (c == 'p' || c == 'P' || c == 'x') && p.more() && p.src[p.i] == '{' {
		if end := strings.IndexByte(p.src[p.i:], '}'); end >= 0 {
			p.i += end + 1
		}
	}
}
