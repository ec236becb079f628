package grammar

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// builder collects the rules of one grammar. Each rule is written out as
// soon as it is defined, so that the size caps (rules, bytes, the engines'
// expansion of repetitions) hold while the grammar is built, not after: the
// first cap passed sets over, and the compiler stops there.
//
// The shared sets of rules (protos) are not copied in: a reference to one
// of their rules names the proto (expr.proto), and the grammar records
// where among its own rules each proto's text goes.
type builder struct {
	rules []rule // the grammar's own rules
	names map[string]int
	next  map[string]int // per base name, the next suffix to try
	// protoBases are the name prefixes of the protos instantiated, and
	// protoAt the protos in the order they were.
	protoBases []string
	protoAt    []protoAt
	// room for the first few of each, without allocating
	protoBasesBuf [6]string
	protoAtBuf    [8]protoAt

	// buf holds the text of the rules defined ("name ::= body\n"), one
	// after the other, and spans each rule's text in buf.
	buf        []byte
	spans      []span
	nameFn     func(*expr) string // nameOf, as a value made once
	bytes      int                // the text written so far
	protoRules int                // the rules of the protos instantiated
	expanded   int                // the engine's elements for it (expandedCost)
	over       string
	// overExpanded: over is maxExpanded's (the engine's elements).
	overExpanded bool
}

// span is a rule's text in builder.buf.
type span struct{ start, end int32 }

// protoAt is a proto of a grammar and which of its rules are written
// here, from to to, after root and the protos placed before it. A proto
// is usually written whole, in one place.
type protoAt struct {
	p        *proto
	from, to int
}

// A proto is a set of rules shared by every grammar that uses it (the
// text languages), built once: its rules refer to each other by their
// index in the proto (a reference holds the proto), and a grammar writes
// them once, in a row. Its text, cost and facts are computed once too.
type proto struct {
	base   string // every name is base-SOMETHING
	names  []string
	bodies []*expr
	first  int    // a text language's rule of non-empty text (textLang.first)
	refs   []expr // a reference to each rule, shared by the grammars
	// xg, when set, is the same language written for xgrammar, which EBNF
	// writes in place of these rules: the same names, in the same order,
	// and more rules after them (textLang.rules).
	xg *proto

	analysis protoFacts

	// deps are the other protos its rules refer to.
	deps []*proto
	// named: its names are taken in a grammar one by one (placeNamed), as
	// if its rules were declared there, not all names base-SOMETHING.
	named bool

	prefixOnce sync.Once
	prefixText string

	once     sync.Once
	text     string
	offsets  []int // where each rule's text starts in text, and the end
	expanded int
}

// newProto returns the proto of rules names with bodies, whose references
// to each other are made with refs (the proto's ref, set before the
// bodies are built); deps are the other protos they refer to.
func newProto(base string, names []string) *proto {
	p := &proto{base: base, names: names}
	p.refs = make([]expr, len(names))
	for i := range p.refs {
		p.refs[i] = expr{kind: kRef, rule: i, proto: p}
	}
	return p
}

// prefix is the prefix of p's names, base-.
func (p *proto) prefix() string {
	p.prefixOnce.Do(func() { p.prefixText = p.base + "-" })
	return p.prefixText
}

// written returns p's rules written out and their expanded cost.
func (p *proto) written() (string, int) {
	p.once.Do(func() {
		var b []byte
		for i, body := range p.bodies {
			p.offsets = append(p.offsets, len(b))
			b = appendRule(b, p.names[i], body, func(e *expr) string { return e.proto.names[e.rule] })
			p.expanded += expandedCost(body) + ruleCost
		}
		p.offsets = append(p.offsets, len(b))
		p.text = string(b)
	})
	return p.text, p.expanded
}

// ref is a reference to p's rule i.
func (p *proto) ref(i int) *expr { return &p.refs[i] }

// instantiate adds p's rules to the grammar, once, written whole.
func (g *builder) instantiate(p *proto) {
	if !g.has(p) {
		g.place(p, 0, len(p.names))
	}
}

// has reports whether p's rules are among the grammar's.
func (g *builder) has(p *proto) bool {
	for _, pa := range g.protoAt {
		if pa.p == p {
			return true
		}
	}
	return false
}

// placeNamed adds the rules of p (named) to the grammar, written whole,
// when none of its names is taken; it reports whether it did.
func (g *builder) placeNamed(p *proto) bool {
	for _, name := range p.names {
		if g.taken(name) {
			return false
		}
	}
	if g.names == nil {
		g.names = map[string]int{}
	}
	for _, name := range p.names {
		g.names[name] = -1 // a proto's
	}
	g.place(p, 0, len(p.names))
	return true
}

// place writes p's rules from to to next among the protos' (after root
// and the protos placed before); the first place of a proto adds all its
// rules to the grammar, each place must write others.
func (g *builder) place(p *proto, from, to int) {
	first := !g.has(p)
	if g.protoAt == nil {
		g.protoAt, g.protoBases = g.protoAtBuf[:0], g.protoBasesBuf[:0]
	}
	g.protoAt = append(g.protoAt, protoAt{p, from, to})
	if !first {
		return
	}
	if !p.named {
		g.protoBases = append(g.protoBases, p.prefix())
	}
	text, cost := p.written()
	g.account(len(text), cost)
	g.protoRules += len(p.names)
	if len(g.rules)+g.protoRules > MaxRules && g.over == "" {
		g.over = "the grammar takes more than " + itoa(MaxRules) + " rules; simplify the schemas"
	}
}

func ref(i int) *expr { return &expr{kind: kRef, rule: i} }

// declare adds a rule without a body yet (for recursion) and returns its
// index. Names are made unique.
func (g *builder) declare(name string) int {
	if g.names == nil {
		g.names = map[string]int{}
	}
	name = ruleName(name)
	if g.taken(name) {
		// The first free base-N, N from 2; suffixes already tried for
		// this base are taken for good, so the search resumes there.
		if g.next == nil {
			g.next = map[string]int{}
		}
		base := name
		for _, b := range g.protoBases {
			if strings.HasPrefix(base, b) || base == b[:len(b)-1] { // base+"-" starts with b
				// Every base-N would be a proto's name.
				base = "s-" + base
			}
		}
		n := max(g.next[base], 2)
		for {
			name = base + "-" + itoa(n)
			if !g.taken(name) {
				break
			}
			n++
		}
		g.next[base] = n + 1
	}
	g.names[name] = len(g.rules)
	g.rules = append(g.rules, rule{name: name})
	g.spans = append(g.spans, span{})
	if len(g.rules)+g.protoRules > MaxRules && g.over == "" {
		g.over = "the grammar takes more than " + itoa(MaxRules) + " rules; simplify the schemas"
	}
	return len(g.rules) - 1
}

// taken reports whether a rule is named name, or a proto's rules may be.
func (g *builder) taken(name string) bool {
	if _, ok := g.names[name]; ok {
		return true
	}
	for _, b := range g.protoBases {
		if strings.HasPrefix(name, b) || name == b[:len(b)-1] {
			return true
		}
	}
	return false
}

// define gives rule i its body and writes it out.
func (g *builder) define(i int, body *expr) {
	if body == nil {
		body = nothing()
	}
	cost, scan := elementCosts(body)
	if cost >= minSplitCost {
		if split := g.splitGroups(body, g.rules[i].name); split != body {
			body = split
			cost, scan = elementCosts(split)
		}
	}
	g.rules[i].body, g.rules[i].scan = body, scan
	if g.nameFn == nil {
		g.nameFn = g.nameOf
	}
	start := len(g.buf)
	g.buf = appendRule(g.buf, g.rules[i].name, body, g.nameFn)
	g.spans[i] = span{int32(start), int32(len(g.buf))}
	g.account(len(g.buf)-start, cost+ruleCost)
}

// rule adds a rule with its body and returns its index.
func (g *builder) rule(name string, body *expr) int {
	i := g.declare(name)
	g.define(i, body)
	return i
}

// overExpandedText is the error of a grammar past maxExpanded.
var overExpandedText = "the grammar takes more than " + itoa(maxExpanded) + " elements once an engine expands its repetitions; simplify the schemas or lower their counts (maxLength, maxItems, ...)"

// account adds a rule's text and expanded cost to the totals and checks
// the caps.
func (g *builder) account(bytes, cost int) {
	g.bytes += bytes
	g.expanded += cost
	switch {
	case g.over != "":
	case g.bytes > MaxBytes:
		g.over = "the grammar takes more than " + itoa(MaxBytes) + " bytes; simplify the schemas"
	case g.expanded > maxExpanded:
		g.overExpanded = true
		g.over = overExpandedText
	}
}

// nameOf is the name of the rule reference e names.
func (g *builder) nameOf(e *expr) string {
	if e.proto != nil {
		return e.proto.names[e.rule]
	}
	return g.rules[e.rule].name
}

// text is the grammar's text: root, the protos' rules written
// (written[k]: protoAt[k]), each proto's as one block, then the grammar's
// own rules in the order lines (writeOrder, root first). The protos come
// first so that their names appear before the rules that use them.
func (g *builder) text(lines []int, written []bool) string {
	line := func(i int) []byte { return g.buf[g.spans[i].start:g.spans[i].end] }
	n := 0
	for _, i := range lines {
		n += len(line(i))
	}
	for k, pa := range g.protoAt {
		if written[k] {
			n += pa.p.offsets[pa.to] - pa.p.offsets[pa.from]
		}
	}
	var b strings.Builder
	b.Grow(n)
	b.Write(line(lines[0]))
	for k, pa := range g.protoAt {
		if written[k] {
			b.WriteString(pa.p.text[pa.p.offsets[pa.from]:pa.p.offsets[pa.to]])
		}
	}
	for _, i := range lines[1:] {
		b.Write(line(i))
	}
	return b.String()
}

// nothing matches no text at all: an empty character class is not written
// the same way by every dialect, so it is a class of no character that
// exists (a lone surrogate).
func nothing() *expr { return class(false, runeRange{0xD800, 0xD800}) }

// isNothing reports whether e is nothing().
func isNothing(e *expr) bool {
	return e.kind == kClass && !e.neg && len(e.rs) == 1 && e.rs[0] == runeRange{0xD800, 0xD800}
}

// ruleName keeps what both dialects allow in a rule name: lowercase
// letters, digits and hyphens, starting with a letter.
func ruleName(s string) string {
	if validRuleName(s) {
		return s
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			s = strings.ToLower(s) // else lowered below, byte by byte
			break
		}
	}
	var buf [64]byte
	b := buf[:0]
	for _, c := range s {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b = append(b, byte(c))
		case len(b) > 0 && b[len(b)-1] != '-':
			b = append(b, '-')
		}
		if len(b) > 48 {
			break
		}
	}
	for len(b) > 0 && b[len(b)-1] == '-' {
		b = b[:len(b)-1] // (b never starts with one)
	}
	name := string(b)
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		name = "r-" + name
	}
	if len(name) > 48 {
		name = strings.TrimRight(name[:48], "-")
	}
	return name
}

// validRuleName reports whether ruleName keeps s as it is: lowercase
// letters, digits and single hyphens, starting with a letter, not ending
// with a hyphen, at most 48 bytes.
func validRuleName(s string) bool {
	if s == "" || len(s) > 48 || s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '-' {
		return false
	}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && s[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

func itoa(n int) string { return strconv.Itoa(n) }
