package grammar

import (
	"strings"
)

// builder collects the rules of one grammar.
type builder struct {
	rules []rule
	names map[string]int
	bases map[*proto]int // where each shared set of rules starts in rules
}

// A proto is a set of rules shared by every grammar that uses it (the
// text languages), built once: its rules refer to each other by their
// index in the proto, and a grammar adds them once, in a row.
type proto struct {
	names  []string
	bodies []*expr
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
	for i, name := range p.names {
		g.names[name] = base + i
		g.rules = append(g.rules, rule{name: name, body: p.bodies[i]})
	}
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
	base := name
	for n := 2; ; n++ {
		if _, taken := g.names[name]; !taken {
			break
		}
		name = base + "-" + itoa(n)
	}
	g.names[name] = len(g.rules)
	g.rules = append(g.rules, rule{name: name})
	return len(g.rules) - 1
}

func (g *builder) define(i int, body *expr) {
	if body == nil {
		body = nothing()
	}
	g.rules[i].body = body
}

// rule adds a rule with its body and returns its index.
func (g *builder) rule(name string, body *expr) int {
	i := g.declare(name)
	g.define(i, body)
	return i
}

// nothing matches no text at all: an empty character class is not written
// the same way by every dialect, so it is a class of no character that
// exists (a lone surrogate).
func nothing() *expr { return class(false, runeRange{0xD800, 0xD800}) }

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
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
