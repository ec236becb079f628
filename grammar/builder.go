package grammar

import (
	"slices"
	"strings"
	"sync"
)

// builder collects the rules of one grammar. Each rule is written out as
// soon as it is defined, so that the size caps (rules, bytes, the engines'
// expansion of repetitions) hold while the grammar is built, not after: the
// first cap passed sets over, and the compiler stops there.
type builder struct {
	rules []rule
	names map[string]int
	next  map[string]int // per base name, the next suffix to try
	bases map[*proto]int // where each shared set of rules starts in rules
	// protoBases are the name prefixes of the protos instantiated.
	protoBases []string

	// lines holds each defined rule's text ("name ::= body\n"); a proto's
	// rules are all at its first rule.
	lines    []string
	bytes    int // the text written so far
	expanded int // the engine's elements for it (expandedCost)
	over     string
}

// A proto is a set of rules shared by every grammar that uses it (the
// text languages), built once: its rules refer to each other by their
// index in the proto, and a grammar adds them once, in a row. Its text and
// cost are computed once too.
type proto struct {
	base   string // every name is base-SOMETHING
	names  []string
	bodies []*expr

	analysis protoFacts

	once     sync.Once
	text     string
	expanded int
}

// written returns p's rules written out and their expanded cost.
func (p *proto) written() (string, int) {
	p.once.Do(func() {
		var b strings.Builder
		for i, body := range p.bodies {
			writeRule(&b, p.names[i], body, func(e *expr) string { return p.names[e.rule] })
			p.expanded += expandedCost(body) + ruleCost
		}
		p.text = b.String()
	})
	return p.text, p.expanded
}

// instantiate adds p's rules to the grammar, once, and returns the index
// of the first.
func (g *builder) instantiate(p *proto) int {
	if base, ok := g.bases[p]; ok {
		return base
	}
	if g.bases == nil {
		g.bases = map[*proto]int{}
	}
	if g.names == nil {
		g.names = map[string]int{}
	}
	base := len(g.rules)
	g.bases[p] = base
	g.protoBases = append(g.protoBases, p.base+"-")
	for i, name := range p.names {
		g.rules = append(g.rules, rule{name: name, body: p.bodies[i]})
	}
	g.lines = append(g.lines, make([]string, len(p.names))...)
	text, cost := p.written()
	g.lines[base] = text
	g.account(len(text), cost)
	return base
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
			if strings.HasPrefix(base+"-", b) {
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
	g.lines = append(g.lines, "")
	if len(g.rules) > MaxRules && g.over == "" {
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
		if strings.HasPrefix(name, b) {
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
	g.rules[i].body = body
	var b strings.Builder
	writeRule(&b, g.rules[i].name, body, g.nameOf)
	g.lines[i] = b.String()
	g.account(b.Len(), expandedCost(body)+ruleCost)
}

// rule adds a rule with its body and returns its index.
func (g *builder) rule(name string, body *expr) int {
	i := g.declare(name)
	g.define(i, body)
	return i
}

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
		g.over = "the grammar takes more than " + itoa(maxExpanded) + " elements once an engine expands its repetitions; simplify the schemas or lower their counts (maxLength, maxItems, ...)"
	}
}

// nameOf is the name of the rule reference e names.
func (g *builder) nameOf(e *expr) string {
	if e.proto != nil {
		return g.rules[g.bases[e.proto]+e.rule].name
	}
	return g.rules[e.rule].name
}

// text is the grammar written out, root first, then the reachable rules
// in the order they were declared (a shared set of rules is written whole
// when any of them is reachable).
func (g *builder) text(root int, reachable []bool) string {
	protoAt := make(map[int]*proto, len(g.bases))
	for p, base := range g.bases {
		protoAt[base] = p
	}
	var b strings.Builder
	b.Grow(g.bytes)
	b.WriteString(g.lines[root])
	for i := 0; i < len(g.lines); i++ {
		if p, ok := protoAt[i]; ok {
			n := len(p.names)
			if slices.Contains(reachable[i:i+n], true) {
				b.WriteString(g.lines[i])
			}
			i += n - 1
			continue
		}
		if i != root && reachable[i] {
			b.WriteString(g.lines[i])
		}
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
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() > 48 {
			break
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		name = "r-" + name
	}
	if len(name) > 48 {
		name = strings.TrimRight(name[:48], "-")
	}
	return name
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
