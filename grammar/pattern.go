package grammar

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file translates a JSON Schema "pattern" (an ECMA-262 regular
// expression) into an expression over the characters of the string values
// it matches. JSON Schema patterns are not anchored: a value is valid when
// the pattern matches some part of it (RegExp.prototype.test), so the
// translation allows any text before and after, unless ^ or $ pins that
// end.
//
// The dialect is ECMA-262's with the u flag's semantics (JSON Schema
// 2020-12 asks for Unicode patterns): characters are code points, and "."
// matches one, astral characters included; \uHHHH\uHHHH surrogate pairs
// and \u{H...} name one code point; \p{...} and \P{...} are supported (a
// General_Category, a Script, a binary property of Go's unicode tables, an
// emoji property of Unicode's emoji-data.txt: emoji.go).
// Annex B's lenient forms that have one clear meaning are accepted: a "{"
// that does not start a quantifier, a lone "]" or "}", an escaped
// punctuation character, and a class escape at one end of a range in a
// class ([\w-.] is \w, "-" and "."). Refused, with a *patternError that
// names the byte offset: lookahead and lookbehind, backreferences (\1,
// \k<name>), word boundaries (\b, \B), an anchor inside a repeated group
// ((^a)*), octal escapes, unknown letter escapes (\q), inline modifiers,
// anything that does not parse, and patterns past the limits below.
// Lookahead assertions are read apart, for the string automaton: those at
// a pattern's start by leadingLookaheads (gap decision 230), the others
// by aheadPattern (lookahead.go, gap decision 286).

// Limits on a pattern. Each is an error past it.
const (
	// maxPatternLen caps a pattern's length, in bytes.
	maxPatternLen = 4096
	// maxPatternProduct caps the product of the counted repetitions
	// nested in each other (((a{10}){10}){10} is 1000); one repetition's
	// bounds are capped by MaxCount.
	maxPatternProduct = 4096
	// maxPatternSize caps the size of the translated expression written
	// out: its nodes plus the ranges of its classes.
	maxPatternSize = 1 << 16
	// maxPatternWeight caps the size of the expression once an engine has
	// written each repetition out (x{3} as x x x): characters of
	// literals, ranges of classes, times the enclosing repetitions' bounds.
	maxPatternWeight = 1 << 17
	// maxPatternDepth caps how deep groups nest.
	maxPatternDepth = 100
)

// maxPatternBytes caps the bytes of the distinct patterns one compile
// translates, together: a pattern's translation costs up to about 270
// bytes of memory and as many nanoseconds per byte (an alternation of
// 1,300 two-letter words, 3.9 KB, took 1 MB and 1 ms), so 100 such
// patterns, a 260 KB schema, took 100 MB and 95 ms before this cap (gap
// decision 246). The most any of JSONSchemaBench's real-world schemas
// holds is 8.6 KB. Each pattern counts patternCharge bytes more than its
// length.
const maxPatternBytes = 32 << 10

// patternCharge is what each distinct pattern counts against
// maxPatternBytes beyond its length: what any pattern costs, however
// short (its parser and their tables, the expression's facts, a
// regular expression to match names with, a place among the compile's
// patterns), about 3 KB, which for thousands of patterns of a few bytes
// the length alone did not bound (8,000 patternProperties of 6 bytes
// each, 486 KB, took 85 MB; gap decision 317). The most patterns any of
// JSONSchemaBench's real-world schemas holds is 276 (5 KB), 14 KB with
// the charge.
const patternCharge = 32

// patternOf is patternExpr of text, translated once per compile (the same
// pattern is often on many properties), within maxPatternBytes: past it a
// pattern is refused with errPatternBudget, the callers' report (an error
// under strict).
func (c *compiler) patternOf(text string) (*expr, error) {
	if r, ok := c.patternTexts[text]; ok {
		return r.e, r.err
	}
	var r translated
	if c.ended() {
		// (not kept: the compile stops with the context's error)
		return nil, c.err
	}
	if !c.chargePattern(len(text) + patternCharge) {
		r.err = errPatternBudget
	} else {
		r.e, r.err = patternExpr(text)
	}
	if c.patternTexts == nil {
		c.patternTexts = map[string]translated{}
	}
	c.patternTexts[text] = r
	return r.e, r.err
}

// chargePattern counts n bytes of patterns translated against
// maxPatternBytes, and reports whether they fit.
func (c *compiler) chargePattern(n int) bool {
	c.patternBytes += n
	return c.patternBytes <= maxPatternBytes
}

// translated is a pattern's translation, or why there is none.
type translated struct {
	e   *expr
	err error
}

// errPatternBudget is patternOf's error past maxPatternBytes.
var errPatternBudget = errors.New("the schemas' distinct patterns are longer than " + strconv.Itoa(maxPatternBytes) + " bytes together (each counting " + strconv.Itoa(patternCharge) + " more), more than the grammar translates for one request")

// patternError is a pattern that can't be translated: Offset is the byte
// offset in the pattern where the problem is.
type patternError struct {
	Offset int
	Msg    string
}

func (e *patternError) Error() string {
	return "pattern: at offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// patternExpr returns the expression of the string values pattern p
// matches (search semantics: the pattern may match any part of a value
// unless anchored), over the values' characters, never nil: a pattern
// that can match no value (like "[]" or "a^") gives an expression whose
// language is empty (a class of no character that exists). The encoders
// (jsonChars, rawChars) turn it into the text a JSON string or a raw
// argument holds. The error is a *patternError.
func patternExpr(p string) (*expr, error) {
	if err := patternLimits(p); err != nil {
		return nil, err
	}
	ps := &patternParser{src: p, meter: newPatMeter(), nulls: map[*expr]bool{}}
	e, err := ps.parse()
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nothing(), nil
	}
	return e, nil
}

// patternLimits is the error of a pattern too long or not UTF-8, or nil.
func patternLimits(p string) error {
	if len(p) > maxPatternLen {
		return &patternError{maxPatternLen, "the pattern is longer than " + strconv.Itoa(maxPatternLen) + " bytes"}
	}
	if !utf8.ValidString(p) {
		return &patternError{patBadUTF8(p), "the pattern is not valid UTF-8"}
	}
	return nil
}

func patBadUTF8(s string) int {
	for i, c := range s {
		if c == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return i
			}
		}
	}
	return 0
}

// anchor flags: what the text a term matched must touch.
const (
	anchorStart = 1 // a ^ held: the match starts at the value's start
	anchorEnd   = 2 // a $ held: the match ends at the value's end
)

// A patTerm is what part of a pattern matches, split by the anchors it
// asserted: v[a] is the texts matched with anchor flags a (nil: none),
// null[a] whether the empty text is among them. An anchor asserted inside
// a match can hold only at the match's own start (^) or end ($), so each
// match has one set of flags, and the flags decide where the match may be
// in the value. Terms without anchors (all but v[0] nil) are plain.
type patTerm struct {
	v    [4]*expr
	null [4]bool
	prod int // the largest product of nested counted repetitions inside
}

func patPlain(e *expr, null bool) patTerm {
	return patTerm{v: [4]*expr{e}, null: [4]bool{null}, prod: 1}
}

func (t patTerm) plain() bool { return t.v[1] == nil && t.v[2] == nil && t.v[3] == nil }

type patternParser struct {
	src   string
	pos   int
	depth int
	meter *patMeter
	nulls map[*expr]bool
	// aheads is set when lookahead assertions are read (aheadPattern),
	// not refused; aheadCount counts those read so far, and withAhead
	// memoizes hasAhead.
	aheads     bool
	aheadCount int
	withAhead  map[*expr]bool
	// classes holds one expression per set of characters the pattern
	// names (each ".", "\d" or "[a-z]" again is the same one), and
	// dot the set "." matches: building a set and its class again at
	// each of a pattern's 4,000 dots took 28 MB.
	classes map[string]*expr
	sets    int // sets met
	dot     charSet
	key     []byte
}

// setExpr is the expression of the characters of s, one per set past
// the first few (memoFrom).
func (ps *patternParser) setExpr(s charSet) *expr {
	if ps.sets++; ps.sets <= memoFrom {
		return s.expr()
	}
	k := appendRangesKey(ps.key[:0], s)
	ps.key = k
	if e, ok := ps.classes[string(k)]; ok {
		return e
	}
	e := s.expr()
	if ps.classes == nil {
		ps.classes = map[string]*expr{}
	}
	ps.classes[string(k)] = e
	return e
}

// patFail is how the parser unwinds on an error (recovered in parse).
type patFail struct{ err *patternError }

func (ps *patternParser) fail(at int, msg string) {
	panic(patFail{&patternError{at, msg}})
}

func (ps *patternParser) parse() (e *expr, err error) {
	err = ps.guard(func() { e = ps.top() })
	if err != nil {
		return nil, err
	}
	return e, nil
}

// top is the pattern's expression, under search semantics.
func (ps *patternParser) top() *expr {
	t := ps.disjunction()
	if ps.pos < len(ps.src) {
		ps.fail(ps.pos, "unmatched )")
	}
	// Search semantics: any text before a match that does not start at
	// the value's start, any text after one that does not end at its end.
	anyText := star(setAll().expr())
	var alts []*expr
	for a, v := range t.v {
		if v == nil {
			continue
		}
		var before, after *expr = anyText, anyText
		if a&anchorStart != 0 {
			before = empty()
		}
		if a&anchorEnd != 0 {
			after = empty()
		}
		alts = append(alts, seq(before, v, after))
	}
	e := groupReps(alt(alts...))
	ps.check(e, 0)
	return e
}

// check fails when e is past the size limits.
func (ps *patternParser) check(e *expr, at int) {
	if e == nil {
		return
	}
	if ps.meter.size(e) > maxPatternSize {
		ps.tooComplex(at)
	}
	if ps.meter.weight(e) > maxPatternWeight {
		ps.fail(at, "the pattern's repetitions are too large: written out they would exceed "+strconv.Itoa(maxPatternWeight)+" elements")
	}
}

func (ps *patternParser) tooComplex(at int) {
	ps.fail(at, "the pattern is too complex: its expression would exceed "+strconv.Itoa(maxPatternSize)+" nodes")
}

func (ps *patternParser) more() bool { return ps.pos < len(ps.src) }

func (ps *patternParser) peek() byte {
	if ps.pos < len(ps.src) {
		return ps.src[ps.pos]
	}
	return 0
}

func (ps *patternParser) has(prefix string) bool {
	return len(ps.src)-ps.pos >= len(prefix) && ps.src[ps.pos:ps.pos+len(prefix)] == prefix
}

// disjunction is alternatives separated by |, up to a ) or the end.
func (ps *patternParser) disjunction() patTerm {
	t := ps.alternative()
	if ps.peek() != '|' {
		return t
	}
	// The alternatives by anchors, joined once (joining them one at a
	// time would copy the alternation each time).
	var alts [4][]*expr
	for {
		for a, v := range t.v {
			if v != nil {
				alts[a] = append(alts[a], v)
			}
		}
		if ps.peek() != '|' {
			break
		}
		ps.pos++
		u := ps.alternative()
		for a := range t.v {
			t.v[a] = u.v[a]
			t.null[a] = t.null[a] || u.null[a]
		}
		t.prod = max(t.prod, u.prod)
	}
	for a := range t.v {
		t.v[a] = alt(alts[a]...)
	}
	return t
}

// alternative is terms one after the other, up to a |, a ) or the end.
func (ps *patternParser) alternative() patTerm {
	start := ps.pos
	acc := patPlain(empty(), true)
	// run collects plain terms, joined in one sequence (joining them one
	// at a time would copy the sequence each time).
	var run []*expr
	runNull := true
	runProd := 1
	runSize := 0
	flush := func() {
		if len(run) > 0 {
			acc = ps.seqTerms(acc, patTerm{v: [4]*expr{seq(run...)}, null: [4]bool{runNull}, prod: runProd}, start)
			ps.check(acc.v[0], start)
			run, runNull, runProd, runSize = nil, true, 1, 0
		}
	}
	for ps.more() && ps.peek() != '|' && ps.peek() != ')' {
		t := ps.term()
		if t.plain() {
			if runSize += ps.meter.size(t.v[0]); runSize > maxPatternSize {
				ps.tooComplex(start)
			}
			if t.v[0] == nil {
				// Matches nothing: so does the alternative, but the rest
				// must still parse.
				run = append(run, nil)
			} else {
				run = append(run, t.v[0])
			}
			runNull = runNull && t.null[0]
			runProd = max(runProd, t.prod)
			continue
		}
		flush()
		acc = ps.seqTerms(acc, t, start)
		for _, v := range acc.v {
			ps.check(v, start)
		}
	}
	flush()
	return acc
}

// seqTerms is patSeq of a and b, where a part patSeq leaves out (it
// matched the empty text beside an anchor) must not hold a lookahead
// assertion: the assertion would be lost with it.
func (ps *patternParser) seqTerms(a, b patTerm, at int) patTerm {
	if ps.aheadCount == 0 {
		return patSeq(a, b, nil)
	}
	return patSeq(a, b, func(e *expr) {
		if ps.hasAhead(e) {
			ps.fail(at, "a lookahead assertion beside a ^ or $ it can't stand with is not supported")
		}
	})
}

// patSeq is a then b. An anchor holds only where its match allows it: a
// $ in a only if b matched the empty text, a ^ in b only if a did.
// dropped, when not nil, is called with each part left out so.
func patSeq(a, b patTerm, dropped func(*expr)) patTerm {
	if a.plain() && b.plain() {
		return patTerm{v: [4]*expr{seq(a.v[0], b.v[0])}, null: [4]bool{a.null[0] && b.null[0]}, prod: max(a.prod, b.prod)}
	}
	var out patTerm
	out.prod = max(a.prod, b.prod)
	for i, x := range a.v {
		if x == nil {
			continue
		}
		for j, y := range b.v {
			if y == nil {
				continue
			}
			var e *expr
			var null bool
			switch aEnd, bStart := i&anchorEnd != 0, j&anchorStart != 0; {
			case !aEnd && !bStart:
				e, null = seq(x, y), a.null[i] && b.null[j]
			case aEnd && !bStart:
				if !b.null[j] {
					continue
				}
				e, null = x, a.null[i]
				if dropped != nil {
					dropped(y)
				}
			case !aEnd && bStart:
				if !a.null[i] {
					continue
				}
				e, null = y, b.null[j]
				if dropped != nil {
					dropped(x)
				}
			default:
				if !a.null[i] || !b.null[j] {
					continue
				}
				e, null = empty(), true
				if dropped != nil {
					dropped(x)
					dropped(y)
				}
			}
			if e == nil {
				continue
			}
			k := i | j
			out.v[k] = alt(out.v[k], e)
			out.null[k] = out.null[k] || null
		}
	}
	return out
}

// term is an assertion, or an atom and its quantifier.
func (ps *patternParser) term() patTerm {
	start := ps.pos
	switch c := ps.peek(); c {
	case '^':
		ps.pos++
		ps.noQuantifier(start, "^")
		return patTerm{v: [4]*expr{anchorStart: empty()}, null: [4]bool{anchorStart: true}, prod: 1}
	case '$':
		ps.pos++
		ps.noQuantifier(start, "$")
		return patTerm{v: [4]*expr{anchorEnd: empty()}, null: [4]bool{anchorEnd: true}, prod: 1}
	case '\\':
		if ps.has(`\b`) || ps.has(`\B`) {
			ps.fail(start, "word boundary assertions (\\b, \\B) are not supported")
		}
	case '*', '+', '?':
		ps.fail(start, "nothing to repeat before "+string(c))
	case '{':
		if _, _, ok := ps.braces(); ok {
			ps.fail(start, "nothing to repeat before {")
		}
	}
	before := ps.aheadCount
	t := ps.atom()
	return ps.quantified(t, start, ps.aheadCount > before)
}

// noQuantifier fails when a quantifier follows an assertion.
func (ps *patternParser) noQuantifier(at int, what string) {
	switch ps.peek() {
	case '*', '+', '?':
		ps.fail(ps.pos, "nothing to repeat: "+what+" is an assertion")
	case '{':
		if _, _, ok := ps.braces(); ok {
			ps.fail(ps.pos, "nothing to repeat: "+what+" is an assertion")
		}
	}
}

// braces reads a braced quantifier at pos without moving: {m}, {m,} or
// {m,n} (max -1 for no bound; bounds past the int range saturate).
func (ps *patternParser) braces() (lo, hi int, ok bool) {
	i := ps.pos
	s := ps.src
	if i >= len(s) || s[i] != '{' {
		return 0, 0, false
	}
	i++
	num := func() (int, bool) {
		start := i
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			n = min(n*10+int(s[i]-'0'), 1<<30)
			i++
		}
		return n, i > start
	}
	lo, ok = num()
	if !ok {
		return 0, 0, false
	}
	hi = lo
	if i < len(s) && s[i] == ',' {
		i++
		var has bool
		if hi, has = num(); !has {
			hi = -1
		}
	}
	if i >= len(s) || s[i] != '}' {
		return 0, 0, false
	}
	return lo, hi, true
}

// skipBraces moves past the braced quantifier braces read.
func (ps *patternParser) skipBraces() {
	for ps.src[ps.pos] != '}' {
		ps.pos++
	}
	ps.pos++
}

// quantified applies the quantifier after an atom, if any; ahead says
// the atom holds a lookahead assertion.
func (ps *patternParser) quantified(t patTerm, start int, ahead bool) patTerm {
	at := ps.pos
	var lo, hi int
	switch ps.peek() {
	case '*':
		lo, hi = 0, -1
		ps.pos++
	case '+':
		lo, hi = 1, -1
		ps.pos++
	case '?':
		lo, hi = 0, 1
		ps.pos++
	case '{':
		var ok bool
		if lo, hi, ok = ps.braces(); !ok {
			return t // a literal {, read as the next atom
		}
		ps.skipBraces()
		if hi >= 0 && lo > hi {
			ps.fail(at, "numbers out of order in a {m,n} quantifier")
		}
		if lo > MaxCount || hi > MaxCount {
			ps.fail(at, "a repetition bound past "+strconv.Itoa(MaxCount))
		}
	default:
		return t
	}
	if ps.peek() == '?' { // lazy: the same language
		ps.pos++
	}
	switch ps.peek() {
	case '*', '+', '?':
		ps.fail(ps.pos, "nothing to repeat: a quantifier follows a quantifier")
	case '{':
		if _, _, ok := ps.braces(); ok {
			ps.fail(ps.pos, "nothing to repeat: a quantifier follows a quantifier")
		}
	}
	factor := max(lo, hi, 1)
	if t.prod*factor > maxPatternProduct {
		ps.fail(at, "nested repetitions too large: their bounds multiply past "+strconv.Itoa(maxPatternProduct))
	}
	if ahead {
		return ps.quantifiedAhead(t, start, lo, hi)
	}
	if !t.plain() {
		switch {
		case lo == 1 && hi == 1:
			return t
		case lo == 0 && hi == 0:
			return patPlain(empty(), true)
		case lo == 0 && hi == 1:
			t.v[0] = alt(t.v[0], empty())
			t.null[0] = true
			return t
		}
		ps.fail(start, "an anchor (^ or $) inside a repeated group is not supported")
	}
	e, null := t.v[0], t.null[0]
	out := patPlain(nil, lo == 0 || null)
	out.prod = t.prod * factor
	switch {
	case e == nil:
		if lo == 0 {
			out.v[0] = empty()
		}
	case null:
		// A repetition of something that matches the empty text is the
		// repetition of its non-empty part, from zero: padding with empty
		// matches reaches any lower bound. Engines refuse (a*)* as left
		// recursion, and the non-empty part of x{m,n} is then simply
		// x{1,n} (no copy of x, however deep the nesting).
		out.v[0] = rep(ps.nonEmpty(e, start), 0, hi)
	default:
		out.v[0] = rep(e, lo, hi)
	}
	ps.check(out.v[0], start)
	return out
}

// atom is one atom: a character, ".", an escape, a class or a group.
func (ps *patternParser) atom() patTerm {
	start := ps.pos
	c, n := utf8.DecodeRuneInString(ps.src[ps.pos:])
	switch c {
	case '.':
		ps.pos++
		if ps.dot == nil {
			ps.dot = setAll().minus(lineTerminators())
		}
		return patPlain(ps.setExpr(ps.dot), false)
	case '\\':
		return patPlain(ps.setExpr(ps.atomEscape()), false)
	case '[':
		return patPlain(ps.setExpr(ps.class()), false)
	case '(':
		return ps.group()
	case ')', '|':
		ps.fail(start, "unexpected "+string(c)) // not reached: the callers stop there
	}
	ps.pos += n
	return patPlain(lit(string(c)), false)
}

// group is a group: (...), (?:...) or (?<name>...).
func (ps *patternParser) group() patTerm {
	start := ps.pos
	ps.pos++ // (
	if ps.peek() == '?' {
		switch {
		case ps.has("?:"):
			ps.pos += 2
		case ps.has("?="), ps.has("?!"):
			if !ps.aheads {
				ps.fail(start, msgLookahead)
			}
			return ps.lookahead(start)
		case ps.has("?<="), ps.has("?<!"):
			ps.fail(start, "lookbehind assertions are not supported")
		case ps.has("?<"):
			ps.pos += 2
			ps.groupName(start)
		default:
			ps.fail(start, "unsupported group syntax (?"+ps.next()+" (inline modifiers are not supported)")
		}
	}
	return ps.groupBody(start)
}

// groupBody reads a group's alternatives and its closing ), the group
// opening at start.
func (ps *patternParser) groupBody(start int) patTerm {
	ps.depth++
	if ps.depth > maxPatternDepth {
		ps.fail(start, "groups nested deeper than "+strconv.Itoa(maxPatternDepth))
	}
	t := ps.disjunction()
	ps.depth--
	if ps.peek() != ')' {
		ps.fail(start, "unterminated group")
	}
	ps.pos++
	return t
}

// next is the character at pos, for messages.
func (ps *patternParser) next() string {
	if !ps.more() {
		return ""
	}
	c, _ := utf8.DecodeRuneInString(ps.src[ps.pos:])
	return string(c)
}

// groupName reads a group's name and the closing >.
func (ps *patternParser) groupName(start int) {
	first := true
	for {
		if !ps.more() {
			ps.fail(start, "unterminated group name")
		}
		c, n := utf8.DecodeRuneInString(ps.src[ps.pos:])
		if c == '>' && !first {
			ps.pos++
			return
		}
		if !(c == '_' || c == '$' || unicode.IsLetter(c) || !first && (unicode.IsDigit(c) || unicode.In(c, unicode.Mn, unicode.Mc, unicode.Pc))) {
			ps.fail(ps.pos, "invalid group name")
		}
		first = false
		ps.pos += n
	}
}

// atomEscape reads an escape outside a class, from its backslash.
func (ps *patternParser) atomEscape() charSet {
	start := ps.pos
	ps.pos++
	if !ps.more() {
		ps.fail(start, "\\ at the end of the pattern")
	}
	switch c := ps.peek(); {
	case c >= '1' && c <= '9':
		ps.fail(start, "backreferences (\\"+string(c)+") are not supported")
	case c == 'k':
		ps.fail(start, "backreferences (\\k<name>) are not supported")
	}
	return ps.escape(start, false)
}

// escape reads the escape after a backslash at start, in a class or not.
// Class escapes (\d, \p{...}, ...) give their set, the others one
// character.
func (ps *patternParser) escape(start int, inClass bool) charSet {
	c, n := utf8.DecodeRuneInString(ps.src[ps.pos:])
	ps.pos += n
	switch c {
	case 'd':
		return digitSet()
	case 'D':
		return digitSet().complement()
	case 'w':
		return wordSet()
	case 'W':
		return wordSet().complement()
	case 's':
		return spaceSet()
	case 'S':
		return spaceSet().complement()
	case 'p', 'P':
		s := ps.property(start)
		if c == 'P' {
			return s.complement()
		}
		return s
	case 't':
		return setChars("\t")
	case 'n':
		return setChars("\n")
	case 'v':
		return setChars("\v")
	case 'f':
		return setChars("\f")
	case 'r':
		return setChars("\r")
	case 'b':
		if inClass {
			return setChars("\b")
		}
	case '-':
		return setChars("-")
	case 'c':
		if l := ps.peek(); l >= 'a' && l <= 'z' || l >= 'A' && l <= 'Z' {
			ps.pos++
			return setOf(runeRange{rune(l % 32), rune(l % 32)})
		}
		ps.fail(start, "\\c must be followed by a letter")
	case '0':
		if d := ps.peek(); d >= '0' && d <= '9' {
			ps.fail(start, "octal escapes are not supported")
		}
		return setChars("\x00")
	case 'x':
		v, ok := ps.hex(2)
		if !ok {
			ps.fail(start, "\\x must be followed by two hex digits")
		}
		return setOf(runeRange{v, v})
	case 'u':
		v := ps.unicodeEscape(start)
		return setOf(runeRange{v, v})
	}
	switch {
	case c >= '1' && c <= '9':
		ps.fail(start, "octal escapes are not supported")
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		ps.fail(start, "unknown escape \\"+string(c))
	}
	// An escaped punctuation character (or any other): itself.
	return setOf(runeRange{c, c})
}

// hex reads n hex digits.
func (ps *patternParser) hex(n int) (rune, bool) {
	if len(ps.src)-ps.pos < n {
		return 0, false
	}
	v, err := strconv.ParseUint(ps.src[ps.pos:ps.pos+n], 16, 32)
	if err != nil || ps.src[ps.pos] == '+' || ps.src[ps.pos] == '-' {
		return 0, false
	}
	ps.pos += n
	return rune(v), true
}

// unicodeEscape reads what follows \u: four hex digits (a surrogate pair
// of two escapes is one character) or {hex digits}.
func (ps *patternParser) unicodeEscape(start int) rune {
	if ps.peek() == '{' {
		ps.pos++
		begin := ps.pos
		for ps.more() && ps.peek() != '}' {
			ps.pos++
		}
		if !ps.more() || ps.pos == begin {
			ps.fail(start, "\\u{ must be followed by hex digits and }")
		}
		v, err := strconv.ParseUint(ps.src[begin:ps.pos], 16, 32)
		if err != nil || v > unicode.MaxRune || ps.src[begin] == '+' || ps.src[begin] == '-' {
			ps.fail(start, "invalid \\u{...} escape")
		}
		ps.pos++
		if v >= surrogateLo && v <= surrogateHi {
			ps.fail(start, "a lone surrogate \\u{"+ps.src[begin:ps.pos-1]+"} matches no character")
		}
		return rune(v)
	}
	v, ok := ps.hex(4)
	if !ok {
		ps.fail(start, "\\u must be followed by four hex digits or {hex digits}")
	}
	switch {
	case v >= 0xD800 && v <= 0xDBFF:
		if ps.has(`\u`) {
			save := ps.pos
			ps.pos += 2
			if lo, ok := ps.hex(4); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00)
			}
			ps.pos = save
		}
		ps.fail(start, "a lone surrogate escape matches no character")
	case v >= 0xDC00 && v <= 0xDFFF:
		ps.fail(start, "a lone surrogate escape matches no character")
	}
	return v
}

// property reads the {name} of \p or \P.
func (ps *patternParser) property(start int) charSet {
	if ps.peek() != '{' {
		ps.fail(start, "\\p and \\P must be followed by {property}")
	}
	begin := ps.pos + 1
	for ps.more() && ps.peek() != '}' {
		ps.pos++
	}
	if !ps.more() {
		ps.fail(start, "unterminated \\p{...}")
	}
	name := ps.src[begin:ps.pos]
	ps.pos++
	s, ok := propertySet(name)
	if !ok {
		ps.fail(start, "unknown or unsupported Unicode property \\p{"+name+"}")
	}
	return s
}

// class reads a character class [...] and returns its set.
func (ps *patternParser) class() charSet {
	start := ps.pos
	ps.pos++ // [
	neg := false
	if ps.peek() == '^' {
		neg = true
		ps.pos++
	}
	var set charSet
	var rs []runeRange
	for {
		if !ps.more() {
			ps.fail(start, "unterminated character class")
		}
		if ps.peek() == ']' {
			ps.pos++
			break
		}
		anchorStart := ps.pos
		a, aSingle := ps.classAtom()
		if ps.peek() == '-' && ps.pos+1 < len(ps.src) && ps.src[ps.pos+1] != ']' {
			ps.pos++ // -
			b, bSingle := ps.classAtom()
			if aSingle && bSingle {
				if a[0].lo > b[0].lo {
					ps.fail(anchorStart, "range out of order in character class")
				}
				rs = append(rs, runeRange{a[0].lo, b[0].lo})
				continue
			}
			// Annex B: a class escape at one end makes the - literal.
			set = set.union(a).union(b).union(setChars("-"))
			continue
		}
		set = set.union(a)
	}
	set = set.union(setOf(rs...))
	if neg {
		return set.complement()
	}
	return set
}

// classAtom reads one character or class escape in a class; single tells
// a character (a range's possible end) from a class escape.
func (ps *patternParser) classAtom() (s charSet, single bool) {
	start := ps.pos
	c, n := utf8.DecodeRuneInString(ps.src[ps.pos:])
	if c != '\\' {
		ps.pos += n
		return setOf(runeRange{c, c}), true
	}
	ps.pos++
	if !ps.more() {
		ps.fail(start, "\\ at the end of the pattern")
	}
	if ps.peek() == 'B' {
		ps.fail(start, "\\B in a character class")
	}
	if ps.peek() == 'k' {
		ps.fail(start, "\\k in a character class")
	}
	switch ps.peek() {
	case 'd', 'D', 'w', 'W', 's', 'S', 'p', 'P':
		return ps.escape(start, true), false
	}
	return ps.escape(start, true), true
}

// nonEmpty is the non-empty texts of e's language.
func (ps *patternParser) nonEmpty(e *expr, at int) *expr {
	if e == nil {
		return nil
	}
	switch e.kind {
	case kLit:
		if e.text == "" {
			return nil
		}
		return e
	case kClass:
		return e
	case kSeq:
		// The first item that is not empty starts it: one alternative
		// for each item up to the first that can't be empty, each a copy
		// of the rest of the sequence.
		k := 0
		for _, it := range e.items {
			k++
			if !ps.nullable(it) {
				break
			}
		}
		if k*len(e.items) > maxPatternSize {
			ps.fail(at, "the pattern is too complex: a repeated sequence of "+strconv.Itoa(k)+" optional items")
		}
		var alts []*expr
		for i, it := range e.items {
			alts = append(alts, seq(append([]*expr{ps.nonEmpty(it, at)}, e.items[i+1:]...)...))
			if !ps.nullable(it) {
				break
			}
		}
		return alt(alts...)
	case kAlt:
		alts := make([]*expr, 0, len(e.items))
		for _, it := range e.items {
			alts = append(alts, ps.nonEmpty(it, at))
		}
		return alt(alts...)
	case kRep:
		x := e.items[0]
		if !ps.nullable(x) {
			return rep(x, max(e.min, 1), e.max)
		}
		// A non-empty text of x{m,n} starts with a non-empty x; the empty
		// repetitions before it can be left out.
		rest := -1
		if e.max >= 0 {
			rest = e.max - 1
		}
		return seq(ps.nonEmpty(x, at), rep(x, max(e.min-1, 0), rest))
	}
	panic("grammar: a rule reference in a value expression")
}

// nullable reports whether e matches the empty text (memoized: the
// parser's expressions share subexpressions).
func (ps *patternParser) nullable(e *expr) bool {
	if e == nil {
		return false
	}
	if n, ok := ps.nulls[e]; ok {
		return n
	}
	n := false
	switch e.kind {
	case kLit:
		n = e.text == ""
	case kSeq:
		n = true
		for _, it := range e.items {
			if !ps.nullable(it) {
				n = false
				break
			}
		}
	case kAlt:
		for _, it := range e.items {
			if ps.nullable(it) {
				n = true
				break
			}
		}
	case kRep:
		n = e.min == 0 || ps.nullable(e.items[0])
	case kAhead:
		n = true
	}
	ps.nulls[e] = n
	return n
}

// patMeter measures expressions, memoized by node (the parser's
// expressions share subexpressions, which the written grammar repeats).
type patMeter struct {
	sizes, weights map[*expr]int
}

func newPatMeter() *patMeter {
	return &patMeter{sizes: map[*expr]int{}, weights: map[*expr]int{}}
}

const patMeterCap = 1 << 40

// size is e's nodes and class ranges, written out as a tree.
func (m *patMeter) size(e *expr) int {
	if e == nil {
		return 0
	}
	if n, ok := m.sizes[e]; ok {
		return n
	}
	n := 1
	switch e.kind {
	case kClass:
		n += len(e.rs)
	case kSeq, kAlt, kRep, kAhead:
		for _, it := range e.items {
			n = min(n+m.size(it), patMeterCap)
		}
	}
	m.sizes[e] = n
	return n
}

// weight is e's size once each repetition is written out: characters of
// literals and ranges of classes, times the repetitions' bounds.
func (m *patMeter) weight(e *expr) int {
	if e == nil {
		return 0
	}
	if n, ok := m.weights[e]; ok {
		return n
	}
	n := 0
	switch e.kind {
	case kLit:
		n = max(utf8.RuneCountInString(e.text), 1)
	case kClass:
		n = max(len(e.rs), 1)
	case kSeq, kAlt, kAhead:
		for _, it := range e.items {
			n = min(n+m.weight(it), patMeterCap)
		}
	case kRep:
		n = min(m.weight(e.items[0])*max(e.min, e.max, 1), patMeterCap)
	}
	m.weights[e] = n
	return n
}

// leadingLookaheads splits a pattern that starts with ^ and lookahead
// assertions, ^(?=A)(?!B)C, into the rest, ^C, the patterns its values
// must match, ^(?:A), and those they must not match, ^(?:B) (gap decision
// 230): at the start of the value, (?=A) holds where a start of the value
// matches A, which is where ^(?:A) matches under search semantics. The
// string automaton takes them as more values and nots. ok is false for any
// other pattern: no such start, a quantified assertion, or an alternation
// at the top of the rest (^(?!a)b|c asserts for b alone).
func leadingLookaheads(p string) (rest string, musts, mustNots []string, ok bool) {
	if !strings.HasPrefix(p, "^(?=") && !strings.HasPrefix(p, "^(?!") {
		return "", nil, nil, false
	}
	pos := 1
	for strings.HasPrefix(p[pos:], "(?=") || strings.HasPrefix(p[pos:], "(?!") {
		end, found := patternGroupEnd(p, pos)
		if !found || end < len(p) && strings.IndexByte("*+?{", p[end]) >= 0 {
			return "", nil, nil, false
		}
		body := "^(?:" + p[pos+3:end-1] + ")"
		if p[pos+2] == '=' {
			musts = append(musts, body)
		} else {
			mustNots = append(mustNots, body)
		}
		pos = end
	}
	if patternTopAlternation(p[pos:]) {
		return "", nil, nil, false
	}
	return "^" + p[pos:], musts, mustNots, true
}

// walkPatternGroups calls fn with each (, ) and | of p from start that is
// neither escaped nor in a class, and the depth of the groups it stands
// in (a group's parentheses stand outside it); fn returns false to stop.
func walkPatternGroups(p string, start int, fn func(i, depth int) bool) {
	depth := 0
	for i := start; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			i = patternClassEnd(p, i)
		case '(':
			if !fn(i, depth) {
				return
			}
			depth++
		case ')':
			if depth--; !fn(i, depth) {
				return
			}
		case '|':
			if !fn(i, depth) {
				return
			}
		}
	}
}

// patternGroupEnd returns the position just past the ) that closes the
// group opening at p[open].
func patternGroupEnd(p string, open int) (end int, found bool) {
	walkPatternGroups(p, open, func(i, depth int) bool {
		if p[i] == ')' && depth == 0 {
			end, found = i+1, true
		}
		return !found
	})
	return end, found
}

// patternClassEnd returns the position of the ] that closes the class
// opening at p[open] (ECMA-262: the first one not escaped, so [] is an
// empty class), or len(p).
func patternClassEnd(p string, open int) int {
	for i := open + 1; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case ']':
			return i
		}
	}
	return len(p)
}

// patternTopAlternation reports whether p has a | outside every group
// and class.
func patternTopAlternation(p string) (found bool) {
	walkPatternGroups(p, 0, func(i, depth int) bool {
		found = p[i] == '|' && depth == 0
		return !found
	})
	return found
}

// lookaheadPattern is the expressions of a pattern with lookahead
// assertions at its start (leadingLookaheads): the rest's, those of the
// patterns its values must match and of those they must not. ok is false
// when the pattern is not of that form or a part does not translate.
func lookaheadPattern(p string) (rest *expr, musts, negs []*expr, ok bool) {
	r, ms, ns, ok := leadingLookaheads(p)
	if !ok {
		return nil, nil, nil, false
	}
	all, ok := patternExprs(append(append([]string{r}, ms...), ns...))
	if !ok {
		return nil, nil, nil, false
	}
	return all[0], all[1 : 1+len(ms)], all[1+len(ms):], true
}

// patternExprs is patternExpr of each of ps; ok is false when one does
// not translate.
func patternExprs(ps []string) ([]*expr, bool) {
	out := make([]*expr, len(ps))
	for i, p := range ps {
		e, err := patternExpr(p)
		if err != nil {
			return nil, false
		}
		out[i] = e
	}
	return out, true
}
