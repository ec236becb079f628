package grammar

import (
	"slices"
	"strconv"
)

// Lookahead assertions anywhere in a pattern (gap decision 286). A
// lookahead (?=A) holds where the rest of the value, from there to its
// end, starts with a text of A; (?!A) where it does not. So an assertion
// constrains everything after it, not only the rest of its group: in
// ^P(?:X|(?!.*W)Y)$ the assertion speaks of what Y and the $ leave. The
// translator reads the assertions where they stand (kAhead), then
// rewrites the pattern so that each assertion is beside what follows it
// to the value's end: that continuation is carried into groups and
// alternatives (distributed), and an assertion with continuation K
// becomes the texts of K that have (or, negated, don't have) a prefix in
// A (kAnd). A language of that form is regular, and the string automaton
// builds it: for each kAnd it determinizes K and A together and keeps the
// states where both (or K alone) accept, within the automata's budget.
//
// A group repeated more than maxAheadRepeat times or without bound would
// need a copy of the continuation for each repetition (the "tempered"
// (?:(?!A).)* is such a group): there the alternating automaton reads the
// assertions instead, as the texts are read, each assertion passed an
// obligation the rest of the text must meet (alternate).
//
// Not read: a ^ inside an assertion (where it can hold depends on where
// the assertion stands), an assertion beside an anchor that leaves it
// out ($(?=a)), an assertion in a group that can match the empty text
// repeated without bound, and more than maxLookaheads assertions in one
// pattern. Lookbehind stays refused.

// Limits on the lookahead assertions of a pattern.
const (
	// maxLookaheads caps the assertions of one pattern: each is an
	// automaton of its own inside the string automaton.
	maxLookaheads = 16
	// maxAheadRepeat is the most times the distributor writes out a
	// repeated group that holds an assertion; past it, or without bound,
	// the alternating automaton reads the group.
	maxAheadRepeat = 16
)

// msgLookahead is the translator's refusal of a lookahead assertion, when
// it does not read them (patternExpr): the callers try aheadPattern then.
const msgLookahead = "lookahead assertions are not supported"

// isLookaheadRefusal reports whether err is patternExpr's refusal of a
// lookahead assertion.
func isLookaheadRefusal(err error) bool {
	pe, ok := err.(*patternError)
	return ok && pe.Msg == msgLookahead
}

// aheadTranslated is lookaheadsOf's translation of a pattern.
type aheadTranslated struct {
	rest        *expr
	musts, negs []*expr
	err         error
}

// lookaheadsOf translates a pattern that patternExpr refused for its
// lookahead assertions, once per compile and within maxPatternBytes:
// those at its start alone (lookaheadPattern, decision 230) or anywhere
// (aheadPattern). err says why it can't be, naming the offset.
func (c *compiler) lookaheadsOf(text string) (rest *expr, musts, negs []*expr, err error) {
	if r, ok := c.aheadTexts[text]; ok {
		return r.rest, r.musts, r.negs, r.err
	}
	var r aheadTranslated
	var leading bool
	if !c.chargePattern(2 * (len(text) + patternCharge)) { // parsed again, up to twice
		r.err = errPatternBudget
	} else if r.rest, r.musts, r.negs, leading = lookaheadPattern(text); !leading {
		r.rest, r.musts, r.negs, r.err = aheadPattern(text)
	}
	if c.aheadTexts == nil {
		c.aheadTexts = map[string]aheadTranslated{}
	}
	c.aheadTexts[text] = r
	return r.rest, r.musts, r.negs, r.err
}

// aheadPattern translates a pattern with lookahead assertions anywhere:
// rest is its texts without the assertions (every text it matches and
// more, written as a grammar where no automaton is built), and a text
// matches the pattern when it is a text of rest and of every one of musts
// and of none of negs. The assertions that constrain the whole value
// (at its start, outside every group) are musts and negs of their own;
// when others remain, the pattern's exact expression is a must too, and
// only the string automaton can read it (it holds kAnd or kLook). The
// error is a *patternError.
func aheadPattern(p string) (rest *expr, musts, negs []*expr, err error) {
	if err := patternLimits(p); err != nil {
		return nil, nil, nil, err
	}
	ps := &patternParser{src: p, meter: newPatMeter(), nulls: map[*expr]bool{}, aheads: true}
	e, err := ps.parse()
	if err != nil {
		return nil, nil, nil, err
	}
	if e == nil {
		return nothing(), nil, nil, nil
	}
	err = ps.guard(func() {
		d := &distributor{ps: ps, memo: map[[2]*expr]*expr{}}
		exact := d.rewrite(e, empty())
		peeled := 0
		for exact != nil && exact.kind == kAnd {
			if exact.neg {
				negs = append(negs, exact.items[1])
			} else {
				musts = append(musts, exact.items[1])
			}
			exact = exact.items[0]
			peeled++
		}
		switch {
		case exact == nil:
			rest = nothing()
		case peeled == d.ands:
			rest = exact
		default:
			rest = groupReps(ps.strip(e, map[*expr]*expr{}))
			musts = append(musts, exact)
		}
		ps.check(rest, 0)
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return rest, musts, negs, nil
}

// lookahead reads a lookahead assertion, from its "?" (the "(" at start
// is read): a term that matches the empty text where the assertion
// holds.
func (ps *patternParser) lookahead(start int) patTerm {
	neg := ps.src[ps.pos+1] == '!'
	ps.pos += 2
	if ps.aheadCount++; ps.aheadCount > maxLookaheads {
		ps.fail(start, "more than "+strconv.Itoa(maxLookaheads)+" lookahead assertions in one pattern")
	}
	t := ps.groupBody(start)
	ps.noQuantifier(start, "a lookahead assertion")
	if t.v[anchorStart] != nil || t.v[anchorStart|anchorEnd] != nil {
		ps.fail(start, "a ^ inside a lookahead assertion is supported only in assertions right after the pattern's leading ^")
	}
	// The rest of the value starts with a text of A: A then any text, or
	// A's texts that end at the value's end ($ inside).
	var parts []*expr
	if t.v[0] != nil {
		parts = append(parts, seq(t.v[0], star(setAll().expr())))
	}
	if t.v[anchorEnd] != nil {
		parts = append(parts, t.v[anchorEnd])
	}
	look := alt(parts...)
	switch {
	case look == nil && neg:
		return patPlain(empty(), true) // nothing to rule out: it always holds
	case look == nil:
		return patPlain(nil, false) // it never holds
	}
	return patPlain(&expr{kind: kAhead, neg: neg, items: []*expr{look, t.v[0], t.v[anchorEnd]}}, true)
}

// quantifiedAhead applies quantifier lo, hi to a term that holds a
// lookahead assertion, as it stands: the distributor writes it out when
// the count is bounded by maxAheadRepeat, the alternating automaton
// reads it otherwise. Refused: an anchor inside, and a group that can
// match the empty text repeated without bound.
func (ps *patternParser) quantifiedAhead(t patTerm, start, lo, hi int) patTerm {
	switch {
	case lo == 1 && hi == 1:
		return t
	case hi == 0:
		return patPlain(empty(), true)
	case lo == 0 && hi == 1:
		t.v[0] = alt(t.v[0], empty())
		t.null[0] = true
		return t
	case !t.plain():
		ps.fail(start, "an anchor (^ or $) inside a repeated group is not supported")
	case hi < 0 && t.null[0]:
		ps.fail(start, "a lookahead assertion inside a group that can match the empty text, repeated without bound, is not supported")
	}
	if t.v[0] == nil {
		return patPlain(rep(nil, lo, hi), lo == 0) // a group that matches nothing
	}
	e := &expr{kind: kRep, items: []*expr{t.v[0]}, min: lo, max: hi}
	return patTerm{v: [4]*expr{e}, null: [4]bool{lo == 0 || t.null[0]}, prod: t.prod * max(lo, hi, 1)}
}

// hasAhead reports whether e holds a lookahead assertion.
func (ps *patternParser) hasAhead(e *expr) bool {
	switch {
	case e == nil || ps.aheadCount == 0:
		return false
	case e.kind == kAhead:
		return true
	case len(e.items) == 0:
		return false
	}
	if found, ok := ps.withAhead[e]; ok {
		return found
	}
	found := slices.ContainsFunc(e.items, ps.hasAhead)
	if ps.withAhead == nil {
		ps.withAhead = map[*expr]bool{}
	}
	ps.withAhead[e] = found
	return found
}

// strip is e without its lookahead assertions: every text e matches, and
// those the assertions rule out. A repetition of what can now be empty is
// that of its non-empty texts (as quantified writes it).
func (ps *patternParser) strip(e *expr, memo map[*expr]*expr) *expr {
	switch {
	case e == nil:
		return nil
	case e.kind == kAhead:
		return empty()
	case !ps.hasAhead(e):
		return e
	}
	if r, ok := memo[e]; ok {
		return r
	}
	items := make([]*expr, len(e.items))
	for i, it := range e.items {
		items[i] = ps.strip(it, memo)
	}
	var r *expr
	switch e.kind {
	case kSeq:
		r = seq(items...)
	case kAlt:
		r = alt(items...)
	case kRep:
		if ps.nullable(items[0]) {
			r = rep(ps.nonEmpty(items[0], 0), 0, e.max)
		} else {
			r = rep(items[0], e.min, e.max)
		}
	}
	memo[e] = r
	return r
}

// A distributor rewrites a pattern's expression so that each lookahead
// assertion stands beside its continuation (kAnd), memoized by expression
// and continuation (a continuation is shared by the alternatives it
// follows).
type distributor struct {
	ps   *patternParser
	memo map[[2]*expr]*expr
	made int // expressions rewritten, within maxPatternSize
	ands int // kAnd and kLook made
	// prepared memoizes prepare.
	prepared map[*expr]*expr
}

// rewrite is e then k, its assertions as kAnd beside their continuation.
func (d *distributor) rewrite(e, k *expr) *expr {
	if e == nil || k == nil {
		return nil
	}
	if !d.ps.hasAhead(e) {
		return seq(e, k)
	}
	key := [2]*expr{e, k}
	if r, ok := d.memo[key]; ok {
		return r
	}
	if d.made++; d.made > maxPatternSize {
		d.ps.tooComplex(0)
	}
	var r *expr
	switch e.kind {
	case kAhead:
		look := d.rewrite(e.items[0], empty())
		switch {
		case look == nil && e.neg:
			r = k
		case look == nil:
			r = nil
		default:
			r = &expr{kind: kAnd, neg: e.neg, items: []*expr{k, look}}
			d.ands++
		}
	case kSeq:
		// From the end: each item's continuation is what follows it.
		// Items without assertions are joined in runs.
		r = k
		for i := len(e.items) - 1; i >= 0 && r != nil; {
			j := i
			for j >= 0 && !d.ps.hasAhead(e.items[j]) {
				j--
			}
			if j < i {
				r = seq(append(slices.Clone(e.items[j+1:i+1]), r)...)
				i = j
				continue
			}
			r = d.rewrite(e.items[i], r)
			i--
		}
	case kAlt:
		var plain, out []*expr
		for _, it := range e.items {
			if d.ps.hasAhead(it) {
				out = append(out, d.rewrite(it, k))
			} else {
				plain = append(plain, it)
			}
		}
		if len(plain) > 0 {
			out = append(out, seq(alt(plain...), k))
		}
		r = alt(out...)
	case kRep:
		if e.max < 0 || e.max > maxAheadRepeat {
			// Each repetition's assertions would need a copy of what
			// follows: the alternating automaton reads them instead.
			r = &expr{kind: kLook, items: []*expr{seq(d.prepare(e), k)}}
			d.ands++
			break
		}
		// x{m,n} then k: the optional copies from the last (k, or x then
		// the next), then the m required ones.
		x := e.items[0]
		r = k
		for range e.max - e.min {
			r = alt(k, d.rewrite(x, r))
		}
		for range e.min {
			r = d.rewrite(x, r)
		}
	}
	d.memo[key] = r
	return r
}

// prepare is e for the alternating automaton: each assertion whose texts
// hold assertions of their own has them rewritten (with nothing after:
// they look at the rest of the value), and is then decided at the value's
// end only.
func (d *distributor) prepare(e *expr) *expr {
	switch {
	case e == nil || len(e.items) == 0 || !d.ps.hasAhead(e):
		return e
	case e.kind == kAhead:
		if !d.ps.hasAhead(e.items[0]) {
			return e
		}
		return &expr{kind: kAhead, neg: e.neg, items: []*expr{d.rewrite(e.items[0], empty()), nil, nil}}
	}
	if r, ok := d.prepared[e]; ok {
		return r
	}
	c := *e
	c.items = make([]*expr, len(e.items))
	for i, it := range e.items {
		c.items[i] = d.prepare(it)
	}
	if d.prepared == nil {
		d.prepared = map[*expr]*expr{}
	}
	d.prepared[e] = &c
	return &c
}

// guard runs fn, which reports a problem with ps.fail, and returns the
// problem.
func (ps *patternParser) guard(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(patFail)
			if !ok {
				panic(r)
			}
			err = f.err
		}
	}()
	fn()
	return nil
}

// intersect adds the states of a kAnd after from (gap decision 286): its
// continuation and its assertion determinized together, the states where
// the continuation accepts and the assertion does (or, negated, does not)
// kept as accepting (embedOnce: made once, within the budget).
func (a *keyNFA) intersect(e *expr, from int32) (int32, bool) {
	return a.embedOnce(e, from, func(b *aheadBudget) (*keyDFA, bool) {
		sub := &keyNFA{ahead: b}
		start := sub.add()
		for tag, it := range e.items {
			end, ok := sub.build(it, start)
			if !ok {
				return nil, false
			}
			sub.accept(end, tag)
		}
		if b.spent += 4 * len(sub.states); b.spent > b.budget {
			return nil, false
		}
		d, work, ok := sub.determinize(start, b.budget-b.spent, maxKeyStates, nil)
		if b.spent += work; !ok {
			return nil, false
		}
		for i := range d.states {
			st := &d.states[i]
			if st.sig&1 != 0 && (st.sig&2 != 0) != e.neg {
				st.sig = 1
			} else {
				st.sig = 0
			}
		}
		return d, true
	})
}

// embedOnce adds the states of e's automaton after from: made by
// construct the first time (its accepting states with sig bit 0),
// minimized within the budget, and kept for the other places e stands;
// embedded as a format's automaton is. ok is false where a is not built
// to read the assertions (no budget), or construct fails.
func (a *keyNFA) embedOnce(e *expr, from int32, construct func(*aheadBudget) (*keyDFA, bool)) (int32, bool) {
	if a.ahead == nil {
		return 0, false
	}
	dfa, ok := a.ahead.dfas[e]
	if !ok {
		d, ok := construct(a.ahead)
		if !ok {
			return 0, false
		}
		if len(d.states) > minMinimized {
			var work int
			d, work = d.minimize(max(a.ahead.budget-a.ahead.spent, 0) / 4)
			a.ahead.spent += work
		}
		dfa = &formatDFA{d, accepting(d)}
		a.ahead.keep(e, dfa)
	}
	return a.embed(dfa, from)
}

// aheadBudget is what is left of the key automata's work for one
// automaton (maxKeyWork at most), for the assertions' automata it builds.
func (c *compiler) aheadBudget() *aheadBudget {
	return &aheadBudget{budget: min(maxKeyWork, maxKeyWorkTotal-c.keyWork)}
}

// aheadBudget is the work the kAnd automata of one string automaton may
// take (their subset constructions, and the states of the automata they
// are built from), and their automata, made once.
type aheadBudget struct {
	budget, spent int
	dfas          map[*expr]*formatDFA // made at the first
}

// keep records e's automaton.
func (b *aheadBudget) keep(e *expr, d *formatDFA) {
	if b.dfas == nil {
		b.dfas = map[*expr]*formatDFA{}
	}
	b.dfas[e] = d
}

// aheadName is the expression of the pattern at node p when it holds
// lookahead assertions (gap decision 288): the texts of its rest, of its
// musts and of none of its negs, as kAnd, which the key automaton and
// aheadMatches read (nil when the pattern has none, or does not
// translate). Made once per pattern node, so that an automaton makes each
// assertion's part once.
func (c *compiler) aheadName(p int) *expr {
	if e, ok := c.aheadNames[p]; ok {
		return e
	}
	var e *expr
	text := c.d.Str(p)
	if _, err := c.patternOf(text); isLookaheadRefusal(err) {
		rest, musts, negs, err := c.lookaheadsOf(text)
		if err == nil {
			e = rest
			for _, m := range musts {
				e = &expr{kind: kAnd, items: []*expr{e, m}}
			}
			for _, n := range negs {
				e = &expr{kind: kAnd, neg: true, items: []*expr{e, n}}
			}
		}
	}
	if c.aheadNames == nil {
		c.aheadNames = map[int]*expr{}
	}
	c.aheadNames[p] = e
	return e
}

// aheadRest is the pattern at node p without its lookahead assertions
// (every text it matches, and more), when the translator refuses it for
// them; nil otherwise.
func (c *compiler) aheadRest(p int) *expr {
	text := c.d.Str(p)
	if _, err := c.patternOf(text); !isLookaheadRefusal(err) {
		return nil
	}
	rest, _, _, err := c.lookaheadsOf(text)
	if err != nil {
		return nil
	}
	return rest
}

// aheadMatches reports whether name is a text of e, an aheadName (the
// pattern at path), by its automaton, made once and run over the name;
// decided is false past the key automata's budget or the grammar's
// matching work.
func (c *compiler) aheadMatches(e *expr, name, path string) (match, decided bool) {
	d, ok := c.aheadDFAs[e]
	if !ok {
		a := &keyNFA{ahead: c.aheadBudget()}
		start := a.add()
		if end, built := a.build(e, start); built {
			a.accept(end, 0)
			d, _ = c.deterministic(a, start, path, nil)
		} else {
			c.keyWork += a.ahead.spent
		}
		if c.aheadDFAs == nil {
			c.aheadDFAs = map[*expr]*keyDFA{}
		}
		c.aheadDFAs[e] = d
	}
	if d == nil {
		return false, false
	}
	if c.matchWork += len(name) + 1; c.matchWork > maxMatchWork {
		return false, false
	}
	q := 0
	for _, r := range name {
		next := -1
		for _, m := range d.states[q].moves {
			if m.set.has(r) {
				next = m.to
				break
			}
		}
		if next < 0 {
			return false, true
		}
		q = next
	}
	return d.states[q].sig&1 != 0, true
}
