package grammar

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// An expr is one expression of a grammar: a literal, a character class, a
// reference to a rule, a sequence, an alternation or a repetition. The
// compiler builds a tree of them; the writers turn it into each engine's
// dialect (GBNF, xgrammar's EBNF), and the tests match text against it.
type expr struct {
	kind  exprKind
	neg   bool        // class: every character but ranges
	text  string      // lit
	rs    []runeRange // class, sorted, not overlapping
	rule  int         // ref: index in Grammar.rules, or in proto's rules
	proto *proto      // ref: the shared rules rule indexes, or nil
	items []*expr     // seq, alt
	min   int         // rep
	max   int         // rep; -1 for no bound
	// lib, when set, holds what every grammar would compute of the
	// expression again: it is built once per process and shared
	// (frozen), without rule references.
	lib *libFacts
}

// libFacts are the facts of a frozen expression: its text, as written
// not nested, its expanded cost, whether it matches the empty text and
// some text, and the rules an engine's leftmost walk visits in it.
type libFacts struct {
	text                 string
	cost, scan           int
	nullable, productive bool
	walk                 int
	starts               [2]int // groupStarts, not leftmost and leftmost
	made                 int    // madeRules
	split                bool   // madeRules: splitGroups would change it
}

// freeze computes e's facts once, for the grammars that share e (an
// expression built once per process). An expression with a rule reference
// is left as it is: its facts depend on the grammar. Expressions are never
// changed once built; a copy of a frozen one that changes it must not keep
// lib.
func freeze(e *expr) *expr {
	if e == nil || e.lib != nil || hasRef(e) {
		return e
	}
	set := &ruleSet{}
	none := &facts{} // e refers to no rule
	starts := [2]int{set.groupStarts(e, none, false), set.groupStarts(e, none, true)}
	made, refused := madeRules(e)
	e.lib = &libFacts{
		text:       string(appendExpr(nil, nil, e, false)),
		cost:       expandedCost(e),
		scan:       scanCost(e),
		nullable:   set.nullableExpr(e, nil),
		productive: set.productiveExpr(e, nil),
		walk:       set.walkOf(e, none),
		starts:     starts,
		made:       made,
		split:      refused,
	}
	return e
}

// hasRef reports whether e refers to a rule.
func hasRef(e *expr) bool {
	if e == nil {
		return false
	}
	if e.kind == kRef {
		return true
	}
	for _, it := range e.items {
		if hasRef(it) {
			return true
		}
	}
	return false
}

type exprKind uint8

const (
	kLit exprKind = iota
	kClass
	kRef
	kSeq
	kAlt
	kRep
	// kAhead, kAnd and kLook are a pattern's lookahead assertions, and
	// exist only between the pattern translator and the string automaton
	// (gap decision 286), never in a grammar: kAhead is an assertion where
	// the parser read it (items[0] the texts it looks for, neg for
	// (?!...); items[1] and items[2] the texts that decide it where they
	// end and at the value's end, or both nil), kAnd the texts of items[0]
	// that have (neg: don't have) a prefix in items[1], kLook the texts of
	// items[0], whose assertions (kAhead) the alternating automaton reads.
	kAhead
	kAnd
	kLook
)

// runeRange is the characters lo to hi, both included.
type runeRange struct{ lo, hi rune }

// A rule is a named expression.
type rule struct {
	name string
	body *expr
	scan int // scanCost(body), once defined (what the leftmost walk reads)
}

func lit(s string) *expr {
	// The most frequent literals are shared (expressions are never
	// changed once built).
	switch s {
	case "":
		return litEmpty
	case `"`:
		return litQuote
	case ", ":
		return litComma
	case ": ":
		return litColon
	case "null":
		return &litCommon[0]
	case "true":
		return &litCommon[1]
	case "false":
		return &litCommon[2]
	case "{":
		return &litCommon[3]
	case "}":
		return &litCommon[4]
	case "[":
		return &litCommon[5]
	case "]":
		return &litCommon[6]
	case "{}":
		return &litCommon[7]
	case "[]":
		return &litCommon[8]
	case "0":
		return &litCommon[9]
	case "-":
		return &litCommon[10]
	case ".":
		return &litCommon[11]
	}
	return &expr{kind: kLit, text: s}
}

var (
	litEmpty  = &expr{kind: kLit}
	litQuote  = &expr{kind: kLit, text: `"`}
	litComma  = &expr{kind: kLit, text: ", "}
	litColon  = &expr{kind: kLit, text: ": "}
	litCommon = [...]expr{{kind: kLit, text: "null"}, {kind: kLit, text: "true"}, {kind: kLit, text: "false"},
		{kind: kLit, text: "{"}, {kind: kLit, text: "}"}, {kind: kLit, text: "["}, {kind: kLit, text: "]"},
		{kind: kLit, text: "{}"}, {kind: kLit, text: "[]"}, {kind: kLit, text: "0"}, {kind: kLit, text: "-"},
		{kind: kLit, text: "."}}
)

// empty matches the empty text.
func empty() *expr { return litEmpty }

// seq matches its items in order; a nil item (nothing) makes the whole
// sequence match nothing.
func seq(items ...*expr) *expr {
	n := 0
	var one *expr
	for _, it := range items {
		switch {
		case it == nil:
			return nil
		case it.kind == kLit && it.text == "":
		case it.kind == kSeq && !frozenUnit(it):
			n += len(it.items)
			one = it.items[0]
		default:
			n++
			one = it
		}
	}
	switch n {
	case 0:
		return empty()
	case 1:
		return one
	}
	// Sequences flattened, adjacent literals joined.
	e, out := newList(kSeq, n)
	for _, it := range items {
		switch {
		case it.kind == kLit && it.text == "":
		case it.kind == kSeq && !frozenUnit(it):
			out = append(out, it.items...)
		default:
			out = append(out, it)
		}
	}
	out = joinLiterals(out)
	if len(out) == 1 {
		return out[0]
	}
	e.items = out
	return e
}

// newList returns a new sequence or alternation and room for its n items,
// in one allocation when n is small.
func newList(kind exprKind, n int) (*expr, []*expr) {
	switch {
	case n <= 2:
		r := &struct {
			e     expr
			items [2]*expr
		}{e: expr{kind: kind}}
		return &r.e, r.items[:0:n]
	case n <= 4:
		r := &struct {
			e     expr
			items [4]*expr
		}{e: expr{kind: kind}}
		return &r.e, r.items[:0:n]
	case n <= 8:
		r := &struct {
			e     expr
			items [8]*expr
		}{e: expr{kind: kind}}
		return &r.e, r.items[:0:n]
	}
	return &expr{kind: kind}, make([]*expr, 0, n)
}

// frozenUnit reports whether seq keeps e, a sequence, as one item instead
// of taking in its items: e is frozen, and no literal of it would join
// one around it. The text, cost and language are the same either way,
// but e keeps its facts.
func frozenUnit(e *expr) bool {
	return e.lib != nil && len(e.items) > 1 && e.items[0].kind != kLit && e.items[len(e.items)-1].kind != kLit
}

// joinLiterals joins each run of adjacent literals of a sequence's items
// into one literal, in place, each run's text built once: joining them
// one at a time would copy the text so far at every literal, quadratic in
// a long run (a pattern of 4,000 literal characters took 10 MB).
func joinLiterals(items []*expr) []*expr {
	w := 0
	for i := 0; i < len(items); {
		j := i + 1
		if items[i].kind == kLit {
			for j < len(items) && items[j].kind == kLit {
				j++
			}
		}
		if j-i == 1 {
			items[w] = items[i]
		} else {
			var b strings.Builder
			n := 0
			for _, l := range items[i:j] {
				n += len(l.text)
			}
			b.Grow(n)
			for _, l := range items[i:j] {
				b.WriteString(l.text)
			}
			items[w] = lit(b.String())
		}
		w++
		i = j
	}
	return items[:w]
}

// alt matches any of its items. Items that match nothing (nil) are left
// out, and so are repeated references to one rule and repeated literals
// (an engine that walks every alternative would walk each twice).
func alt(items ...*expr) *expr {
	n := 0
	for _, it := range items {
		switch {
		case it == nil:
		case it.kind == kAlt:
			n += len(it.items)
		default:
			n++
		}
	}
	list, out := newList(kAlt, n)
	hasEmpty := false
	var seen map[altKey]bool // past a few items
	add := func(it *expr) {
		if it.kind == kRef || it.kind == kLit {
			k := altKey{it.kind, it.rule, it.proto, it.text}
			if seen == nil && len(out) < 16 {
				for _, o := range out {
					if o.kind == k.kind && o.rule == k.rule && o.proto == k.proto && o.text == k.text {
						return
					}
				}
			} else {
				if seen == nil {
					seen = map[altKey]bool{}
					for _, o := range out {
						if o.kind == kRef || o.kind == kLit {
							seen[altKey{o.kind, o.rule, o.proto, o.text}] = true
						}
					}
				}
				if seen[k] {
					return
				}
				seen[k] = true
			}
		}
		out = append(out, it)
	}
	for _, it := range items {
		switch {
		case it == nil:
		case it.kind == kLit && it.text == "":
			hasEmpty = true
		case it.kind == kAlt:
			for _, in := range it.items {
				add(in)
			}
		default:
			add(it)
		}
	}
	var e *expr
	switch len(out) {
	case 0:
		if hasEmpty {
			return empty()
		}
		return nil // no alternative: matches nothing
	case 1:
		e = out[0]
	default:
		list.items = out
		e = list
	}
	if hasEmpty {
		// An empty alternative is written as an optional, which every
		// dialect reads alike.
		return opt(e)
	}
	return e
}

// altKey identifies a reference or a literal among alternatives.
type altKey struct {
	kind  exprKind
	rule  int
	proto *proto
	text  string
}

func rep(e *expr, min, max int) *expr {
	if e == nil || max == 0 {
		if min == 0 {
			return empty()
		}
		return nil
	}
	if max == 1 && min == 1 {
		return e
	}
	// The expression and its one item in one allocation.
	r := &struct {
		e    expr
		item [1]*expr
	}{}
	r.item[0] = e
	r.e = expr{kind: kRep, items: r.item[:], min: min, max: max}
	return &r.e
}

func opt(e *expr) *expr  { return rep(e, 0, 1) }
func star(e *expr) *expr { return rep(e, 0, -1) }
func plus(e *expr) *expr { return rep(e, 1, -1) }

// class matches one character of the ranges (or, negated, any other).
func class(neg bool, rs ...runeRange) *expr {
	return &expr{kind: kClass, neg: neg, rs: normalize(rs)}
}

// chars is a class of the characters of s.
func chars(neg bool, s string) *expr {
	var rs []runeRange
	for _, c := range s {
		rs = append(rs, runeRange{c, c})
	}
	return class(neg, rs...)
}

func digitRange(lo, hi byte) *expr {
	if lo == hi {
		return lit(string(lo))
	}
	return class(false, runeRange{rune(lo), rune(hi)})
}

// normalize sorts ranges and merges those that overlap or touch.
func normalize(rs []runeRange) []runeRange {
	out := append([]runeRange(nil), rs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].lo < out[j-1].lo; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r.lo <= merged[n-1].hi+1 {
			merged[n-1].hi = max(merged[n-1].hi, r.hi)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// has reports whether class e matches c.
func (e *expr) has(c rune) bool {
	in := false
	for _, r := range e.rs {
		if c >= r.lo && c <= r.hi {
			in = true
			break
		}
	}
	return in != e.neg
}

// appendRule appends one rule, "name ::= body" and a newline, to b; nameOf
// names the rule a reference refers to.
func appendRule(b []byte, name string, body *expr, nameOf func(*expr) string) []byte {
	b = append(b, name...)
	b = append(b, " ::= "...)
	b = appendExpr(b, nameOf, body, false)
	return append(b, '\n')
}

// appendExpr appends e in the GBNF/EBNF notation both dialects share.
func appendExpr(b []byte, nameOf func(*expr) string, e *expr, nested bool) []byte {
	if e.lib != nil {
		if nested && grouped(e) {
			return append(append(append(b, '('), e.lib.text...), ')')
		}
		return append(b, e.lib.text...)
	}
	switch e.kind {
	case kLit:
		b = appendLit(b, e.text)
	case kClass:
		b = appendClass(b, e)
	case kRef:
		b = append(b, nameOf(e)...)
	case kSeq, kAlt:
		sep := " "
		if e.kind == kAlt {
			sep = " | "
		}
		if nested {
			b = append(b, '(')
		}
		for i, it := range e.items {
			if i > 0 {
				b = append(b, sep...)
			}
			b = appendExpr(b, nameOf, it, it.kind == kAlt)
		}
		if nested {
			b = append(b, ')')
		}
	case kRep:
		// A repetition of a repetition is written in parentheses: x{1,4}?
		// is one quantifier too many for xgrammar.
		if nested {
			b = append(b, '(')
		}
		inner := e.items[0]
		b = appendExpr(b, nameOf, inner, grouped(inner))
		switch {
		case e.min == 0 && e.max == 1:
			b = append(b, '?')
		case e.min == 0 && e.max < 0:
			b = append(b, '*')
		case e.min == 1 && e.max < 0:
			b = append(b, '+')
		case e.max < 0:
			b = append(strconv.AppendInt(append(b, '{'), int64(e.min), 10), ",}"...)
		case e.min == e.max:
			b = append(strconv.AppendInt(append(b, '{'), int64(e.min), 10), '}')
		default:
			b = strconv.AppendInt(append(b, '{'), int64(e.min), 10)
			b = append(strconv.AppendInt(append(b, ','), int64(e.max), 10), '}')
		}
		if nested {
			b = append(b, ')')
		}
	}
	return b
}

// grouped reports whether e is written in parentheses when a repetition
// applies to it.
func grouped(e *expr) bool { return e.kind == kSeq || e.kind == kAlt || e.kind == kRep }

// maxExpanded caps the cost of a grammar in an engine once the engine has
// parsed it and expanded its repetitions (expandedCost), so that no grammar
// the gateway sends costs the engine much to load: llama.cpp copies the
// item of S{m,n} n times, in m copies and n-m rules of their own. It was
// 65,536 (gap decision 99); measured again with llama.cpp's loader, the
// attack families' largest grammars loaded in at most 2.3 ms of CPU there,
// so it is 81,920 (gap decision 235), which lets the strict grammars of
// real Kubernetes schemas through; at it the slowest grammar seen (long
// lists of literals) loads in about 5 ms, half the 10 ms an engine may
// take.
const maxExpanded = 81920

// ruleCost is what a rule costs an engine beside its elements, in
// elements: measured with llama.cpp's grammar loader, a rule costs about
// ten times what an element does.
const ruleCost = 10

// expandedCost estimates the cost of e in llama.cpp's grammar once it is
// parsed, in elements: a character each for a literal, a few for a class,
// one for a reference; a group in parentheses is a rule of its own; a
// repetition S{m,n} is the item m times plus n-m rules of it. The writers
// emit nothing whose engine form is larger.
func expandedCost(e *expr) int {
	if e.lib != nil {
		return e.lib.cost
	}
	n, _ := elementCosts(e)
	return n
}

// scanCost is expandedCost with each class counted as the elements
// llama.cpp makes of it (classElements) rather than a few more: what its
// check for left recursion scans of e (the leftmost walk, analyze.go). A
// long raw string is a chunk of a thousand [^<] classes, which
// expandedCost counts three times over, so that the walk's estimate
// refused a string of 524,288 characters that llama.cpp checks in 0.7 ms
// of CPU (gap decision 309).
func scanCost(e *expr) int {
	if e.lib != nil {
		return e.lib.scan
	}
	_, n := elementCosts(e)
	return n
}

// classElements is what llama.cpp makes of class e: an element for each
// character it lists and two for each range (its first character and
// its last), a negated class's first one marking the negation.
func classElements(e *expr) int {
	n := 0
	for _, r := range e.rs {
		n++
		if r.hi > r.lo {
			n++
		}
	}
	return max(n, 1)
}

// elementCosts is expandedCost and scanCost of e, in one pass.
func elementCosts(e *expr) (expanded, scanned int) {
	if e.lib != nil {
		return e.lib.cost, e.lib.scan
	}
	switch e.kind {
	case kLit:
		n := utf8.RuneCountInString(e.text)
		return n, n
	case kClass:
		return 1 + 2*len(e.rs), classElements(e)
	case kRef:
		return 1, 1
	case kSeq, kAlt:
		for _, it := range e.items {
			x, s := elementCosts(it)
			expanded, scanned = expanded+x, scanned+s
			if e.kind == kSeq && it.kind == kAlt {
				expanded, scanned = expanded+ruleCost+1, scanned+ruleCost+1 // written in parentheses: a rule
			}
		}
		if e.kind == kAlt {
			expanded, scanned = expanded+len(e.items)-1, scanned+len(e.items)-1
		}
		return expanded, scanned
	case kRep:
		inner := e.items[0]
		x, s := elementCosts(inner)
		return repCost(e, inner, x), repCost(e, inner, s)
	}
	return 0, 0
}

// repCost is the cost of repetition e of inner, whose item costs item.
func repCost(e, inner *expr, item int) int {
	own := 0
	if grouped(inner) {
		// A rule of its own, referred to by each copy.
		own, item = item+ruleCost, 1
	}
	opts := 1 // the rule S' of an unbounded repetition
	if e.max >= 0 {
		opts = e.max - e.min
	}
	// m copies; each optional rule holds the item, a reference and
	// an alternative; a reference to the first of them.
	return own + e.min*item + opts*(item+2+ruleCost) + 1
}

// appendLit appends a string literal. Printable ASCII and non-ASCII
// characters stand for themselves; the quote and the backslash are
// escaped, and control characters written as \uXXXX (xgrammar reads \x
// greedily, so \x is never used).
func appendLit(b []byte, s string) []byte {
	b = append(b, '"')
	// Runs of characters that stand for themselves are written at once.
	plain := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == 0x7f {
			break
		}
		plain = i + 1
	}
	b = append(b, s[:plain]...)
	for _, c := range s[plain:] {
		switch {
		case c == '"':
			b = append(b, `\"`...)
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c < 0x20 || c == 0x7f:
			b = appendHex(b, c)
		default:
			b = utf8.AppendRune(b, c)
		}
	}
	return append(b, '"')
}

// appendClass appends a character class. Only letters, digits and non-ASCII
// characters stand for themselves; every other character is written as
// \uXXXX, so that no dialect's class metacharacters (] - ^ \ [) matter.
func appendClass(b []byte, e *expr) []byte {
	b = append(b, '[')
	if e.neg {
		b = append(b, '^')
	}
	for _, r := range e.rs {
		b = appendClassChar(b, r.lo)
		if r.hi > r.lo {
			b = append(b, '-')
			b = appendClassChar(b, r.hi)
		}
	}
	return append(b, ']')
}

func appendClassChar(b []byte, c rune) []byte {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return append(b, byte(c))
	case c >= 0x80 && c != utf8.RuneError && (c < 0xD800 || c > 0xDFFF) && c <= 0xFFFF:
		return utf8.AppendRune(b, c)
	}
	return appendHex(b, c)
}

// appendHex appends c as \uXXXX, or \UXXXXXXXX past the BMP, in lowercase
// hex digits.
func appendHex(b []byte, c rune) []byte {
	const digits = "0123456789abcdef"
	n := 4
	if c > 0xFFFF {
		b, n = append(b, `\U`...), 8
	} else {
		b = append(b, `\u`...)
	}
	for i := n - 1; i >= 0; i-- {
		b = append(b, digits[(c>>(4*i))&0xf])
	}
	return b
}
