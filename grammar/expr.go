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
	text  string      // lit
	neg   bool        // class: every character but ranges
	rs    []runeRange // class, sorted, not overlapping
	rule  int         // ref: index in Grammar.rules, or in proto's rules
	proto *proto      // ref: the shared rules rule indexes, or nil
	items []*expr     // seq, alt
	min   int         // rep
	max   int         // rep; -1 for no bound
}

type exprKind uint8

const (
	kLit exprKind = iota
	kClass
	kRef
	kSeq
	kAlt
	kRep
)

// runeRange is the characters lo to hi, both included.
type runeRange struct{ lo, hi rune }

// A rule is a named expression.
type rule struct {
	name string
	body *expr
}

func lit(s string) *expr { return &expr{kind: kLit, text: s} }

// empty matches the empty text.
func empty() *expr { return lit("") }

// seq matches its items in order; a nil item (nothing) makes the whole
// sequence match nothing.
func seq(items ...*expr) *expr {
	var flat []*expr
	for _, it := range items {
		switch {
		case it == nil:
			return nil
		case it.kind == kLit && it.text == "":
		case it.kind == kSeq:
			flat = append(flat, it.items...)
		default:
			flat = append(flat, it)
		}
	}
	// Adjacent literals join.
	var out []*expr
	for _, it := range flat {
		if n := len(out); n > 0 && it.kind == kLit && out[n-1].kind == kLit {
			out[n-1] = lit(out[n-1].text + it.text)
			continue
		}
		out = append(out, it)
	}
	switch len(out) {
	case 0:
		return empty()
	case 1:
		return out[0]
	}
	return &expr{kind: kSeq, items: out}
}

func alt(items ...*expr) *expr {
	var out []*expr
	hasEmpty := false
	for _, it := range items {
		switch {
		case it == nil:
		case it.kind == kLit && it.text == "":
			hasEmpty = true
		case it.kind == kAlt:
			out = append(out, it.items...)
		default:
			out = append(out, it)
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
		e = &expr{kind: kAlt, items: out}
	}
	if hasEmpty {
		// An empty alternative is written as an optional, which every
		// dialect reads alike.
		return opt(e)
	}
	return e
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
	return &expr{kind: kRep, items: []*expr{e}, min: min, max: max}
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

// writeExpr writes e in the GBNF/EBNF notation both dialects share.
func writeExpr(b *strings.Builder, g *Grammar, e *expr, nested bool) {
	switch e.kind {
	case kLit:
		writeLit(b, e.text)
	case kClass:
		writeClass(b, e)
	case kRef:
		b.WriteString(g.rules[g.target(e)].name)
	case kSeq, kAlt:
		sep := " "
		if e.kind == kAlt {
			sep = " | "
		}
		if nested {
			b.WriteByte('(')
		}
		for i, it := range e.items {
			if i > 0 {
				b.WriteString(sep)
			}
			writeExpr(b, g, it, it.kind == kAlt)
		}
		if nested {
			b.WriteByte(')')
		}
	case kRep:
		inner := e.items[0]
		writeExpr(b, g, inner, inner.kind == kSeq || inner.kind == kAlt || inner.kind == kRep)
		switch {
		case e.min == 0 && e.max == 1:
			b.WriteByte('?')
		case e.min == 0 && e.max < 0:
			b.WriteByte('*')
		case e.min == 1 && e.max < 0:
			b.WriteByte('+')
		case e.max < 0:
			b.WriteString("{" + strconv.Itoa(e.min) + ",}")
		case e.min == e.max:
			b.WriteString("{" + strconv.Itoa(e.min) + "}")
		default:
			b.WriteString("{" + strconv.Itoa(e.min) + "," + strconv.Itoa(e.max) + "}")
		}
	}
}

// writeLit writes a string literal. Printable ASCII and non-ASCII
// characters stand for themselves; the quote and the backslash are
// escaped, and control characters written as \uXXXX (xgrammar reads \x
// greedily, so \x is never used).
func writeLit(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			writeHex(b, c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
}

// writeClass writes a character class. Only letters, digits and non-ASCII
// characters stand for themselves; every other character is written as
// \uXXXX, so that no dialect's class metacharacters (] - ^ \ [) matter.
func writeClass(b *strings.Builder, e *expr) {
	b.WriteByte('[')
	if e.neg {
		b.WriteByte('^')
	}
	for _, r := range e.rs {
		writeClassChar(b, r.lo)
		if r.hi > r.lo {
			b.WriteByte('-')
			writeClassChar(b, r.hi)
		}
	}
	b.WriteByte(']')
}

func writeClassChar(b *strings.Builder, c rune) {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		b.WriteRune(c)
	case c >= 0x80 && c != utf8.RuneError && (c < 0xD800 || c > 0xDFFF) && c <= 0xFFFF:
		b.WriteRune(c)
	default:
		writeHex(b, c)
	}
}

func writeHex(b *strings.Builder, c rune) {
	if c > 0xFFFF {
		h := strconv.FormatInt(int64(c), 16)
		b.WriteString(`\U` + strings.Repeat("0", 8-len(h)) + h)
		return
	}
	h := strconv.FormatInt(int64(c), 16)
	b.WriteString(`\u` + strings.Repeat("0", 4-len(h)) + h)
}
