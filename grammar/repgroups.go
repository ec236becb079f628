package grammar

// llamaRepetitionLimit is llama.cpp's MAX_REPETITION_THRESHOLD. Its parser
// refuses a repetition of a group in parentheses, (...){m,n}, when the
// rules it made while parsing the group (the group's own, those of the
// groups and repetitions inside it, and the rules first named there),
// times the repetition's count (n, else m, else 1), reach it. A pattern
// such as ^((ab){0,40}c){0,60}$ is 41 rules 60 times.
const llamaRepetitionLimit = 2000

// minSplitCost is the least expandedCost of a rule body that can hold a
// repetition llama.cpp refuses: the group must hold a rule of its own
// (about ruleCost each) and the counts stay under MaxCount, so the product
// reaches llamaRepetitionLimit only past about 300. Cheaper bodies are not
// looked at.
const minSplitCost = 256

// splitGroups returns e with each repeated group that llama.cpp would
// refuse (llamaRepetitionLimit) made a rule of its own, named after base:
// a reference to it is one rule, however often repeated. The rules a
// repetition refers to are written before the rule that repeats them
// (writeOrder), so their names are not first named inside the group. e
// itself is not changed (expressions are shared); what needs no change is
// returned itself.
func (g *builder) splitGroups(e *expr, base string) *expr {
	out, _ := g.split(e, base)
	return out
}

// split is splitGroups, and the rules llama.cpp makes while it parses
// what it returns (madeRules), counted on the way up.
func (g *builder) split(e *expr, base string) (*expr, int) {
	if e.lib != nil && !e.lib.split {
		return e, e.lib.made
	}
	if len(e.items) == 0 {
		return e, 0
	}
	var items []*expr // a copy, made at the first change
	made := 0
	for k, it := range e.items {
		n, m := g.split(it, base)
		if n != it {
			if items == nil {
				items = append([]*expr(nil), e.items...)
			}
			items[k] = n
		}
		if e.kind != kRep && it.kind == kAlt {
			m++ // written in parentheses
		}
		made += m
	}
	if e.kind == kRep {
		inner := e.items[0]
		if items != nil {
			inner = items[0]
		}
		if grouped(inner) {
			if (1+made)*repetitionCount(e) >= llamaRepetitionLimit {
				items, made = []*expr{ref(g.rule(base+"-part", inner))}, 0
			} else {
				made++ // the group's rule
			}
		}
		made += repeatedRules(e)
	}
	if items == nil {
		return e, made
	}
	c := *e
	c.items, c.lib = items, nil
	return &c, made
}

// repeatedRules is the number of rules S' llama.cpp makes of repetition
// e: n-m of S{m,n}, one of S*, S+ and S?.
func repeatedRules(e *expr) int {
	if e.max < 0 {
		return 1
	}
	return e.max - e.min
}

// madeRules is the number of rules llama.cpp makes while it parses e, as
// written in a rule or in a group: one for each group in parentheses
// inside it and the rules S' of each repetition (repeatedRules); and
// whether it would refuse a repeated group inside e (splitGroups would
// change e).
func madeRules(e *expr) (n int, refused bool) {
	for _, it := range e.items {
		m, r := madeRules(it)
		if e.kind != kRep && it.kind == kAlt {
			m++ // written in parentheses
		}
		n, refused = n+m, refused || r
	}
	if e.kind == kRep {
		if grouped(e.items[0]) {
			refused = refused || (1+n)*repetitionCount(e) >= llamaRepetitionLimit
			n++ // the group's rule
		}
		n += repeatedRules(e)
	}
	return n, refused
}

// repetitionCount is what llama.cpp multiplies a repeated group's rules
// by: the largest count, else the least, else 1.
func repetitionCount(e *expr) int {
	switch {
	case e.max > 0:
		return e.max
	case e.min > 0:
		return e.min
	}
	return 1
}
