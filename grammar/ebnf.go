package grammar

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// xgrammar (vLLM's and SGLang's grammar engine) reads the notation the
// grammar is written in, but matches three of its constructs differently
// from llama.cpp and from what they mean (gap decision 238; found by
// matching every grammar of the JSON Schema Test Suite and of the attacks
// with xgrammar's own matcher, templates/xgrammar):
//
//   - A bounded repetition of a rule that holds a choice (chunk{2} where
//     chunk ::= char{51} and char ::= [a-z] | "\\" ([nt] | "u")) is
//     counted wrongly by its Earley parser: the string is refused at its
//     closing quote. Long strings (minLength, maxLength past 64) and long
//     arrays are written so.
//   - A negated class is read by the low byte of each character it names:
//     [^\u2028] rules out "(" and lets U+2028 through, and a class naming
//     U+1680 makes the compile fail.
//   - A range of characters of three or four bytes in UTF-8 whose ends
//     are not at a byte boundary ([\U00010000-\U0001fffd]) refuses some
//     of the characters it holds (U+1F600).
//
// EBNF writes the grammar without any of them: every bounded repetition
// of anything but one class written out (the copies it requires, then a
// chain of rules for the optional ones, as llama.cpp expands them itself),
// every negated class that names a character past ASCII written as the
// positive class of the characters it matches, and every range past ASCII
// cut at UTF-8 byte boundaries. A class's counted repetition ([a-z]{0,61}, [0-9]{4,}) is
// kept as it is: xgrammar counts it right (gap decision 265: checked with
// its native build and with its WebAssembly build 0.1.27 on classes in
// sequences, options, repetitions and beside each other), and it is one
// element to it, where written out each copy and each link of the chain
// is a place it matches the whole vocabulary from before a grammar's
// first token (a pattern's [a-z]{0,1000}: 5.8 s for 200,000 tokens, 0.85
// s kept). The language is the same; only the text differs from GBNF's.

// toEBNF rewrites text, a grammar as Compile writes it, into the EBNF
// xgrammar matches as written. A rule with nothing to rewrite (most of
// them: the text languages' states) is copied as it is; the others are
// read, rewritten and written again, and the rules their repetitions need
// added at the end. The rules of each proto in forms (a text language,
// written whole and in order) are replaced by its xg form, written where
// the first of them was. It panics on text Compile does not write.
func toEBNF(text string, forms []*proto) string {
	x := &ebnfRewriter{names: map[string]bool{}, chains: map[string][]string{}, atoms: map[string]string{}}
	for line := range strings.Lines(text) {
		if name, _, ok := strings.Cut(line, " ::= "); ok {
			x.names[name] = true
		}
	}
	for _, pr := range forms {
		for _, name := range pr.xg.names[len(pr.names):] { // its rules of its own
			x.names[name] = true
		}
	}
	size := len(text) + len(text)/8
	for _, pr := range forms {
		form, _ := pr.xg.written()
		own, _ := pr.written()
		size += len(form) - len(own)
	}
	b := make([]byte, 0, size)
	p := &writtenParser{}
	cut := func(line string) (name, body string) {
		name, body, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ::= ")
		if !ok {
			panic("grammar: EBNF of a text Compile did not write: a line without ::=")
		}
		return name, body
	}
	write := func(name, body string) {
		if !needsRewrite(body) {
			b = append(append(append(b, name...), " ::= "...), body...)
			b = append(b, '\n')
			return
		}
		p.refs = p.refs[:0]
		e, err := p.body(body)
		if err != nil {
			panic("grammar: EBNF of a text Compile did not write: rule " + name + ": " + err.Error())
		}
		b = appendRule(b, name, x.rewrite(e), refName)
	}
	var in *proto // the proto whose rules are being replaced
	next := 0     // the number of its rule expected next
	for line := range strings.Lines(text) {
		name, body := cut(line)
		if in != nil {
			if name != in.names[next] {
				panic("grammar: EBNF of a text Compile did not write: the rules of " + in.base + " not in a row")
			}
			if next++; next == len(in.names) {
				in = nil
			}
			continue
		}
		for _, pr := range forms {
			if name == pr.names[0] {
				in, next = pr, 1
			}
		}
		if in == nil {
			write(name, body)
			continue
		}
		form, _ := in.xg.written()
		for line := range strings.Lines(form) {
			write(cut(line))
		}
		if next == len(in.names) {
			in = nil
		}
	}
	for _, r := range x.added {
		b = appendRule(b, r.name, r.body, refName)
	}
	return string(b)
}

// refName is the name of a reference toEBNF reads or makes: its text.
func refName(e *expr) string { return e.text }

// needsRewrite reports whether a rule's body, as Compile writes it, holds
// a counted repetition or a class that names a character past ASCII.
func needsRewrite(body string) bool {
	inLit, inClass := false, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case inLit:
			if c == '\\' {
				i++
			} else if c == '"' {
				inLit = false
			}
		case inClass:
			switch {
			case c >= utf8.RuneSelf:
				return true
			case c == ']':
				inClass = false
			case c == '\\' && i+1 < len(body):
				if body[i+1] == 'U' || body[i+1] == 'u' && i+5 < len(body) && body[i+2:i+4] != "00" || body[i+1] == 'u' && i+5 < len(body) && body[i+4] >= '8' {
					return true
				}
				i++
			}
		case c == '"':
			inLit = true
		case c == '[':
			inClass = true
		case c == '{':
			return true
		}
	}
	return false
}

// ebnfRewriter rewrites rules read from a grammar's text, adding the rules
// its repetitions need. References hold their rule's name in text.
type ebnfRewriter struct {
	names map[string]bool // the rule names taken
	added []rule
	// atoms are the rules made for repeated expressions that are not a
	// reference, by their text; chains the rules of a repeated element's
	// optional copies, by its text (chains[t][k-1] matches up to k).
	atoms  map[string]string
	chains map[string][]string
}

func (x *ebnfRewriter) rewrite(e *expr) *expr {
	switch e.kind {
	case kClass:
		if len(e.rs) == 0 || e.rs[len(e.rs)-1].hi < utf8.RuneSelf {
			return e // ASCII only
		}
		rs := e.rs
		if e.neg {
			rs = setOf(setOf(rs...).complement()...)
			if len(rs) == 0 {
				return nothing()
			}
		}
		var aligned []runeRange
		for _, r := range rs {
			aligned = appendAligned(aligned, r.lo, r.hi)
		}
		return &expr{kind: kClass, rs: aligned}
	case kSeq, kAlt:
		items := make([]*expr, len(e.items))
		for i, it := range e.items {
			items[i] = x.rewrite(it)
		}
		return &expr{kind: e.kind, items: items}
	case kRep:
		inner := x.rewrite(e.items[0])
		if e.min == 0 && (e.max == 1 || e.max < 0) || e.min == 1 && e.max < 0 || inner.kind == kClass {
			// A class's counted repetition is kept: xgrammar counts it
			// right and reads it as one element, where the copies and
			// the chain are each a place it matches the vocabulary from
			// (gap decision 265).
			return &expr{kind: kRep, items: []*expr{inner}, min: e.min, max: e.max}
		}
		atom := x.atom(inner)
		var items []*expr
		for range e.min {
			items = append(items, atom)
		}
		switch {
		case e.max < 0 && !hasRef(inner):
			// The rest repeated inline, not its rule: a repetition of a
			// rule of several forms is what cost xgrammar 60 to 85 ms a
			// token to mask in the cases measured (char*, key-rest; gap
			// decision 263), and the tests refuse it (slowRepetition).
			// (For a pattern's \W{5,} both forms measured alike.)
			items = append(items, &expr{kind: kRep, items: []*expr{inner}, min: 0, max: -1})
		case e.max < 0:
			items = append(items, &expr{kind: kRep, items: []*expr{atom}, min: 0, max: -1})
		case e.max > e.min:
			items = append(items, x.chain(atom, e.max-e.min))
		}
		switch len(items) {
		case 0:
			return empty()
		case 1:
			return items[0]
		}
		return &expr{kind: kSeq, items: items}
	}
	return e
}

// atom is e as one element to repeat: e itself when it is a reference,
// a literal or a short class, else a reference to a rule of e (made once
// per text).
func (x *ebnfRewriter) atom(e *expr) *expr {
	if e.kind == kRef || e.kind == kLit && len(e.text) <= 16 || e.kind == kClass && len(e.rs) <= 4 {
		return e
	}
	key := string(appendExpr(nil, refName, e, false))
	name, ok := x.atoms[key]
	if !ok {
		name = x.add("rep", e)
		x.atoms[key] = name
	}
	return &expr{kind: kRef, text: name}
}

// chain is up to k copies of atom: a reference to the rule upto-k of a
// chain upto-1 ::= atom?, upto-j ::= (atom upto-(j-1))?, one rule a copy,
// as llama.cpp expands x{0,k}, so that no repetition is counted and no
// group nests deeper than one.
func (x *ebnfRewriter) chain(atom *expr, k int) *expr {
	if k == 1 {
		return &expr{kind: kRep, items: []*expr{atom}, min: 0, max: 1}
	}
	key := string(appendExpr(nil, refName, atom, false))
	rules := x.chains[key]
	for j := len(rules) + 1; j <= k; j++ {
		var body *expr
		if j == 1 {
			body = &expr{kind: kRep, items: []*expr{atom}, min: 0, max: 1}
		} else {
			body = &expr{kind: kRep, items: []*expr{{kind: kSeq, items: []*expr{atom, {kind: kRef, text: rules[j-2]}}}}, min: 0, max: 1}
		}
		rules = append(rules, x.add("upto", body))
	}
	x.chains[key] = rules
	return &expr{kind: kRef, text: rules[k-1]}
}

// add adds a rule of body named xg-BASE-N, a name no rule has, and
// returns the name.
func (x *ebnfRewriter) add(base string, body *expr) string {
	for n := len(x.added); ; n++ {
		name := "xg-" + base + "-" + strconv.Itoa(n)
		if !x.names[name] {
			x.names[name] = true
			x.added = append(x.added, rule{name: name, body: body})
			return name
		}
	}
}

// appendAligned appends the characters lo to hi as ranges that each hold
// every character of some UTF-8 prefix bytes followed by one byte of a
// range and then any continuation bytes (U+1F000-U+1FFFF, F0 9F then
// anything, not U+1F600-U+1FFFD): xgrammar splits other ranges of three
// and four bytes wrongly, and refuses some of their characters.
func appendAligned(out []runeRange, lo, hi rune) []runeRange {
	for _, last := range [...]rune{0x7F, 0x7FF, 0xFFFF} {
		if lo <= last && hi > last {
			return appendAligned(appendAligned(out, lo, last), last+1, hi)
		}
	}
	if hi < utf8.RuneSelf {
		return append(out, runeRange{lo, hi})
	}
	for i := 1; i < utf8.UTFMax; i++ {
		m := rune(1)<<(6*i) - 1 // the bits of the last i bytes
		if lo&^m == hi&^m {
			break // the same bytes before the last i
		}
		if lo&m != 0 {
			return appendAligned(appendAligned(out, lo, lo|m), lo|m+1, hi)
		}
		if hi&m != m {
			return appendAligned(appendAligned(out, lo, hi&^m-1), hi&^m, hi)
		}
	}
	return append(out, runeRange{lo, hi})
}

// writtenParser reads rules' bodies as Compile writes them (appendExpr);
// refs are the references read, each naming its rule in text.
type writtenParser struct {
	src  string
	pos  int
	refs []*expr
}

// body reads a whole rule body.
func (p *writtenParser) body(src string) (*expr, error) {
	p.src, p.pos = src, 0
	e, err := p.alt()
	if err == nil && p.pos < len(p.src) {
		err = p.errorf("unexpected %q", p.src[p.pos])
	}
	return e, err
}

func (p *writtenParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at %d: "+format, append([]any{p.pos}, args...)...)
}

func (p *writtenParser) alt() (*expr, error) {
	var items []*expr
	for {
		e, err := p.seq()
		if err != nil {
			return nil, err
		}
		items = append(items, e)
		if !strings.HasPrefix(p.src[p.pos:], " | ") {
			break
		}
		p.pos += 3
	}
	if len(items) == 1 {
		return items[0], nil
	}
	return &expr{kind: kAlt, items: items}, nil
}

func (p *writtenParser) seq() (*expr, error) {
	var items []*expr
	for p.pos < len(p.src) && p.src[p.pos] != ')' && !strings.HasPrefix(p.src[p.pos:], " | ") {
		if len(items) > 0 {
			if p.src[p.pos] != ' ' {
				return nil, p.errorf("expected a space")
			}
			p.pos++
		}
		e, err := p.item()
		if err != nil {
			return nil, err
		}
		items = append(items, e)
	}
	switch len(items) {
	case 0:
		return nil, p.errorf("empty sequence")
	case 1:
		return items[0], nil
	}
	return &expr{kind: kSeq, items: items}, nil
}

func (p *writtenParser) item() (*expr, error) {
	e, err := p.atom()
	if err != nil {
		return nil, err
	}
	for p.pos < len(p.src) {
		lo, hi := 0, 0
		switch p.src[p.pos] {
		case '?':
			lo, hi = 0, 1
		case '*':
			lo, hi = 0, -1
		case '+':
			lo, hi = 1, -1
		case '{':
			end := strings.IndexByte(p.src[p.pos:], '}')
			if end < 0 {
				return nil, p.errorf("unclosed {")
			}
			counts := p.src[p.pos+1 : p.pos+end]
			a, b, two := strings.Cut(counts, ",")
			if lo, err = strconv.Atoi(a); err != nil {
				return nil, p.errorf("bad count %q", counts)
			}
			switch {
			case !two:
				hi = lo
			case b == "":
				hi = -1
			default:
				if hi, err = strconv.Atoi(b); err != nil || hi < lo {
					return nil, p.errorf("bad count %q", counts)
				}
			}
			p.pos += end
		default:
			return e, nil
		}
		p.pos++
		e = &expr{kind: kRep, items: []*expr{e}, min: lo, max: hi}
	}
	return e, nil
}

func (p *writtenParser) atom() (*expr, error) {
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.src[p.pos]; {
	case c == '(':
		p.pos++
		e, err := p.alt()
		if err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ')' {
			return nil, p.errorf("unclosed (")
		}
		p.pos++
		return e, nil
	case c == '"':
		return p.literal()
	case c == '[':
		return p.class()
	case c >= 'a' && c <= 'z':
		start := p.pos
		for p.pos < len(p.src) && (p.src[p.pos] >= 'a' && p.src[p.pos] <= 'z' || p.src[p.pos] >= '0' && p.src[p.pos] <= '9' || p.src[p.pos] == '-') {
			p.pos++
		}
		r := &expr{kind: kRef, text: p.src[start:p.pos]}
		p.refs = append(p.refs, r)
		return r, nil
	}
	return nil, p.errorf("unexpected %q", p.src[p.pos])
}

// char reads one character of a literal or a class: itself, or an escape
// as appendLit and appendClassChar write them.
func (p *writtenParser) char() (rune, error) {
	if p.pos >= len(p.src) {
		return 0, p.errorf("unexpected end")
	}
	if p.src[p.pos] != '\\' {
		c, n := utf8.DecodeRuneInString(p.src[p.pos:])
		p.pos += n
		return c, nil
	}
	if p.pos+1 >= len(p.src) {
		return 0, p.errorf("unexpected end")
	}
	k := p.src[p.pos+1]
	p.pos += 2
	switch k {
	case '"', '\\':
		return rune(k), nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u', 'U':
		n := 4
		if k == 'U' {
			n = 8
		}
		if p.pos+n > len(p.src) {
			return 0, p.errorf("short escape")
		}
		v, err := strconv.ParseUint(p.src[p.pos:p.pos+n], 16, 32)
		if err != nil {
			return 0, p.errorf("bad escape")
		}
		p.pos += n
		return rune(v), nil
	}
	return 0, p.errorf("unknown escape \\%c", k)
}

func (p *writtenParser) literal() (*expr, error) {
	p.pos++ // "
	var b strings.Builder
	for {
		if p.pos >= len(p.src) {
			return nil, p.errorf("unclosed literal")
		}
		if p.src[p.pos] == '"' {
			p.pos++
			return &expr{kind: kLit, text: b.String()}, nil
		}
		c, err := p.char()
		if err != nil {
			return nil, err
		}
		b.WriteRune(c)
	}
}

func (p *writtenParser) class() (*expr, error) {
	p.pos++ // [
	e := &expr{kind: kClass}
	if p.pos < len(p.src) && p.src[p.pos] == '^' {
		e.neg = true
		p.pos++
	}
	for {
		if p.pos >= len(p.src) {
			return nil, p.errorf("unclosed class")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			return e, nil
		}
		lo, err := p.char()
		if err != nil {
			return nil, err
		}
		hi := lo
		if p.pos < len(p.src) && p.src[p.pos] == '-' {
			p.pos++
			if hi, err = p.char(); err != nil {
				return nil, err
			}
		}
		e.rs = append(e.rs, runeRange{lo, hi})
	}
}
