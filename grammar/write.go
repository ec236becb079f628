package grammar

import (
	"slices"
	"sync"
)

// GBNF returns the grammar in llama.cpp's GBNF, for the grammar field of
// its /v1/completions. Markers are written as literal strings, never as
// token references.
func (g *Grammar) GBNF() string { return g.text }

// EBNF returns the grammar in xgrammar's EBNF, for vLLM's
// structured_outputs.grammar and SGLang's ebnf: the notation GBNF's is
// written in (rule names of lowercase letters, digits and hyphens, one
// rule a line with root first, literals and classes written with \uXXXX
// escapes only, as xgrammar reads \x greedily), without the constructs
// xgrammar matches otherwise than they mean: bounded repetitions of
// anything but one class are written out, and negated classes that name a
// character past ASCII are written as positive ones (ebnf.go, gap
// decisions 238 and 265); the marker-free texts are written in a form
// that xgrammar compiles faster (textLang.rules, gap decision 264). The
// language is GBNF's. It is written from the GBNF text, in time linear in
// its size: for a grammar from a [Cache] on the first call only, kept for
// every copy of that cache entry and counted in the cache's budget; for one
// from [Compile], which is compiled for one use, on each call.
func (g *Grammar) EBNF() string {
	if g.text == "" {
		return ""
	}
	if g.ebnf == nil {
		return toEBNF(g.text, g.xgForms())
	}
	m := g.ebnf
	m.once.Do(func() {
		m.text = toEBNF(g.text, m.forms)
		if m.written != nil {
			m.written(len(m.text))
		}
	})
	return m.text
}

// xgForms returns the protos of g that have a form of their own for
// xgrammar (proto.xg), for toEBNF.
func (g *Grammar) xgForms() []*proto {
	var forms []*proto
	for _, pa := range g.protos {
		if pa.p.xg == nil || slices.Contains(forms, pa.p) {
			continue
		}
		if pa.from != 0 || pa.to != len(pa.p.names) {
			panic("grammar: a proto with a form for xgrammar written in part")
		}
		forms = append(forms, pa.p)
	}
	return forms
}

// ebnfMemo holds a grammar's EBNF once written, for the copies of the
// grammar that share it; written, when set, is told its size (the cache's
// accounting).
type ebnfMemo struct {
	forms   []*proto // the grammar's xgForms
	once    sync.Once
	text    string
	written func(bytes int)
}

// The rules of a grammar, its own and its protos', are numbered for the
// tests that walk them: its own first, then each proto's in turn.

// numRules is the number of g's rules.
func (g *Grammar) numRules() int {
	n := len(g.rules)
	for _, pa := range g.protos {
		n += len(pa.p.names)
	}
	return n
}

// target is the number of the rule reference e names.
func (g *Grammar) target(e *expr) int {
	if e.proto == nil {
		return e.rule
	}
	n := len(g.rules)
	for _, pa := range g.protos {
		if pa.p == e.proto {
			return n + e.rule
		}
		n += len(pa.p.names)
	}
	panic("a reference to a proto the grammar does not hold")
}

// ruleAt is g's rule number i.
func (g *Grammar) ruleAt(i int) rule {
	if i < len(g.rules) {
		return g.rules[i]
	}
	i -= len(g.rules)
	for _, pa := range g.protos {
		if i < len(pa.p.names) {
			return rule{name: pa.p.names[i], body: pa.p.bodies[i]}
		}
		i -= len(pa.p.names)
	}
	panic("no such rule")
}

// write writes every rule of g out, root first, for grammars put together
// by hand in tests; Compile writes its grammars as it builds them.
func (g *Grammar) write() string {
	nameOf := func(e *expr) string { return g.ruleAt(g.target(e)).name }
	root := g.ruleAt(g.root)
	b := appendRule(nil, root.name, root.body, nameOf)
	for i := range g.numRules() {
		if r := g.ruleAt(i); i != g.root {
			b = appendRule(b, r.name, r.body, nameOf)
		}
	}
	return string(b)
}
