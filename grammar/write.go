package grammar

import "strings"

// GBNF returns the grammar in llama.cpp's GBNF, for the grammar field of
// its /v1/completions. Markers are written as literal strings, never as
// token references.
func (g *Grammar) GBNF() string { return g.text }

// EBNF returns the grammar in xgrammar's EBNF, for vLLM's
// structured_outputs.grammar and SGLang's ebnf. The notation both read is
// the same here: rule names of lowercase letters, digits and hyphens, one
// rule a line with root first, literals and classes written with \uXXXX
// escapes only (xgrammar reads \x greedily).
func (g *Grammar) EBNF() string { return g.text }

func (g *Grammar) write() string {
	var b strings.Builder
	b.Grow(32 << 10)
	order := append([]int{g.root}, make([]int, 0, len(g.rules))...)
	for i := range g.rules {
		if i != g.root {
			order = append(order, i)
		}
	}
	for _, i := range order {
		r := g.rules[i]
		b.WriteString(r.name)
		b.WriteString(" ::= ")
		writeExpr(&b, g, r.body, false)
		b.WriteByte('\n')
	}
	return b.String()
}

// target is the index in g.rules of the rule reference e names.
func (g *Grammar) target(e *expr) int {
	if e.proto != nil {
		return g.bases[e.proto] + e.rule
	}
	return e.rule
}
