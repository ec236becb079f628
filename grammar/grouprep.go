package grammar

// groupReps returns e with no repetition applied directly to another:
// xgrammar reads one quantifier after an element (x+* is a syntax error
// there; llama.cpp applies both), and the writers put no parentheses
// around a repetition inside a repetition. A repetition of a repetition
// is merged into one where that keeps the language and costs an engine
// no more ((x+)* is x*, (x{1,4})? is x{0,4}); otherwise the inner one is
// put in a group of its own, a sequence of one item, which the writers
// parenthesize. Alternations with an empty alternative become such
// repetitions too (alt writes them as x?), so every expression the
// translators return goes through here. What needs no change is returned
// itself.
func groupReps(e *expr) *expr {
	return groupRepsMemo(e, map[*expr]*expr{})
}

func groupRepsMemo(e *expr, memo map[*expr]*expr) *expr {
	if e == nil || len(e.items) == 0 {
		return e
	}
	if out, ok := memo[e]; ok {
		return out
	}
	items := make([]*expr, len(e.items))
	same := true
	for i, it := range e.items {
		items[i] = groupRepsMemo(it, memo)
		same = same && items[i] == it
	}
	out := e
	if !same {
		c := *e
		c.items, c.lib = items, nil
		out = &c
	}
	if out.kind == kRep && items[0].kind == kRep {
		out = mergeReps(out, items[0])
	}
	memo[e] = out
	return out
}

// mergeReps is outer, a repetition of the repetition inner, merged or with
// inner grouped. The counts of x{a,b}{c,d} are the sums of c to d counts
// of a to b: with a at most 1 (and b at least 1, as a repetition's) they
// are every count from a*c to b*d.
func mergeReps(outer, inner *expr) *expr {
	a, b, c, d := inner.min, inner.max, outer.min, outer.max
	if a <= 1 {
		switch {
		case b < 0 || d < 0:
			return rep(inner.items[0], a*c, -1)
		case b*d <= b+d+4: // not costlier once written out
			return rep(inner.items[0], a*c, b*d)
		}
	}
	g := *outer
	g.items, g.lib = []*expr{{kind: kSeq, items: []*expr{inner}}}, nil
	return &g
}
