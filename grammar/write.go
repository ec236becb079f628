package grammar

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

// target is the index in g.rules of the rule reference e names.
func (g *Grammar) target(e *expr) int {
	if e.proto != nil {
		base, _ := baseOf(g.protos, e.proto)
		return base + e.rule
	}
	return e.rule
}

// write writes every rule of g out, root first, for grammars put together
// by hand in tests; Compile writes its grammars as it builds them.
func (g *Grammar) write() string {
	nameOf := func(e *expr) string { return g.rules[g.target(e)].name }
	b := appendRule(nil, g.rules[g.root].name, g.rules[g.root].body, nameOf)
	for i, r := range g.rules {
		if i != g.root {
			b = appendRule(b, r.name, r.body, nameOf)
		}
	}
	return string(b)
}
