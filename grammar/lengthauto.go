package grammar

import (
	"slices"
	"sync"
)

// The length automaton enforces minLength and maxLength beside a pattern
// or a format whose parts lengthBounded can't count one by one (gap
// decision 197): ^[a-z][a-z0-9-]*[a-z0-9]$ with maxLength 63, an
// unanchored pattern, an email of at most 254 characters. The value's
// expression is read by a deterministic automaton (the key automaton's
// construction, keyauto.go), and each of its states is paired with the
// number of characters read so far, up to the maximum (or, without one, up
// to the minimum, where the count stops): one rule per pair, a choice of a
// character class and the next pair, or the end of the string where the
// automaton accepts and the count is within the bounds. Like the key
// automaton it is built under strict only, where it turns a refusal into
// an exact grammar; not strict the lengths stay reported. The same
// automaton takes the texts a not rules out (decision 198): a string that
// one of them matches is not written.

// maxLengthStates caps the pairs of a length automaton, each a rule.
const maxLengthStates = 4096

// stringGroup is what a string must be for one group of a string
// automaton: a value of every expression of values (none: any string), of
// lo to hi characters (hi < 0: no upper bound).
type stringGroup struct {
	values []*expr
	lo, hi int
	// multiple > 0: also a whole number that is a multiple of it
	// (keyNFA.multiples; gap decision 204); with decimals > 0, a number
	// that is a multiple of multiple×10^-decimals (keyNFA.decimalMultiples,
	// gap decision 220).
	multiple int64
	decimals int
}

// negTag is the tag of the texts a not rules out in a string automaton's
// NFA; the groups' expressions take the tags below it.
const negTag = 63

// stringAutomaton is the text of the strings of lo to hi characters (hi <
// 0: no upper bound) that are values of value expression e (as
// patternExpr and formatExpr build them; nil: any string) and of none of
// negs (the texts a not rules out, decision 198): a JSON string with its
// quotes, or with raw an argument's raw text. ok is false when it can't be
// built within the limits (the caller then reports the keywords); the
// expression is nil (and ok true) when no string qualifies.
func (c *compiler) stringAutomaton(e *expr, negs []*expr, lo, hi int, raw bool, path string) (text *expr, ok bool) {
	g := stringGroup{lo: lo, hi: hi}
	if e != nil {
		g.values = []*expr{e}
	}
	return c.groupAutomaton([]stringGroup{g}, negs, raw, path)
}

// groupAutomaton is stringAutomaton for strings valid for exactly one of
// groups (one group: for it; decisions 201 and 202), and for none of negs.
func (c *compiler) groupAutomaton(groups []stringGroup, negs []*expr, raw bool, path string) (text *expr, ok bool) {
	if !c.strict && !c.misreadAuto || c.keyWork >= maxKeyWorkTotal {
		return nil, false
	}
	// A pattern's lookahead assertions (decision 286) take their part
	// of the budget as the NFA is built.
	a := &keyNFA{ahead: c.aheadBudget()}
	start := a.add()
	masks := make([]uint64, len(groups))
	// firsts[t] is the first NFA state of tag t's part (each part's states
	// are added one after another, and the start is no part's).
	var firsts []int32
	tag := 0
	for i, g := range groups {
		for _, e := range g.values {
			if tag >= negTag {
				return nil, false
			}
			firsts = append(firsts, int32(len(a.states)))
			var end int32
			var ok bool
			if dfa := formatAutomaton(e); dfa != nil {
				end, ok = a.embed(dfa, start) // a format's, made once (decision 228)
			} else {
				end, ok = a.build(e, start)
			}
			if !ok {
				return nil, false
			}
			a.accept(end, tag)
			masks[i] |= 1 << tag
			tag++
		}
		if g.multiple > 0 && g.decimals > 0 {
			if tag >= negTag || len(a.states)+24*int(g.multiple)*(g.decimals+2) > maxKeyNFA {
				return nil, false
			}
			firsts = append(firsts, int32(len(a.states)))
			a.accept(a.decimalMultiples(g.multiple, g.decimals, start), tag)
			masks[i] |= 1 << tag
			tag++
		} else if g.multiple > 0 {
			if tag >= negTag || len(a.states)+24*int(g.multiple) > maxKeyNFA {
				return nil, false
			}
			firsts = append(firsts, int32(len(a.states)))
			a.accept(a.multiples(g.multiple, start), tag)
			masks[i] |= 1 << tag
			tag++
		}
	}
	partsEnd := int32(len(a.states)) // the nots' parts follow
	for _, neg := range negs {
		end, ok := a.build(neg, start)
		if !ok {
			return nil, false
		}
		a.accept(end, negTag)
	}
	// A set of NFA states that lacks a state of some part of every group
	// can't lead to a string valid for any group: it is the dead state
	// (gap decision 227). Without this, a format's automaton was
	// determinized again for every state of a pattern beside it that no
	// text can satisfy any more: a uri beside ^https?:// took twice the
	// states of the uri alone, past the work the automaton may take.
	partLive := func(set []int32) bool {
		var held uint64
		for _, s := range set {
			if len(firsts) > 0 && s >= firsts[0] && s < partsEnd {
				t, found := slices.BinarySearch(firsts, s)
				if !found {
					t-- // the last part that starts before s
				}
				held |= 1 << t
			}
		}
		for _, m := range masks {
			if held&m == m {
				return true
			}
		}
		return false
	}
	dfa, ok := c.deterministic(a, start, path, partLive)
	if !ok {
		return nil, false
	}
	// The pairs reachable from the start, numbered in the order met: the
	// count goes up to top, the greatest bound, past which no group
	// accepts; or, when a group has no maximum, it stops at top, one past
	// every other bound, where it stands for every count from there on.
	top, hi := 0, 0
	for _, g := range groups {
		top = max(top, g.lo, g.hi)
		if g.hi < 0 {
			hi = -1
		}
	}
	if hi < 0 {
		for _, g := range groups {
			if g.hi >= 0 && g.hi >= top {
				top = g.hi + 1
			}
		}
	}
	type pair struct{ q, k int }
	index := map[pair]int{{0, 0}: 0}
	pairs := []pair{{0, 0}}
	next := func(p pair, to int) (pair, bool) {
		switch {
		case p.k < top:
			return pair{to, p.k + 1}, true
		case hi < 0:
			return pair{to, top}, true
		}
		return pair{}, false // past the maximum
	}
	// Each pair's moves that stay within the count, recorded as they are
	// found: pair i's are the moves edgeMove[firstEdge[i]:firstEdge[i+1]]
	// to the pairs at the same places of edgeTo, so that nothing below
	// looks a pair up again.
	var edgeMove, edgeTo []int32
	firstEdge := []int32{0}
	for i := 0; i < len(pairs); i++ {
		p := pairs[i]
		for j, m := range dfa.states[p.q].moves {
			np, ok := next(p, m.to)
			if !ok {
				continue
			}
			to, seen := index[np]
			if !seen {
				if len(pairs) >= maxLengthStates {
					return nil, false
				}
				to = len(pairs)
				index[np] = to
				pairs = append(pairs, np)
			}
			edgeMove, edgeTo = append(edgeMove, int32(j)), append(edgeTo, int32(to))
		}
		firstEdge = append(firstEdge, int32(len(edgeTo)))
		c.keyWork += stateWork + moveWork*len(dfa.states[p.q].moves)
	}
	if c.keyWork >= maxKeyWorkTotal || !c.spend(path, 64*len(pairs)) {
		return nil, false
	}
	accepts := func(p pair) bool {
		sig := dfa.states[p.q].sig
		if sig&(1<<negTag) != 0 {
			return false
		}
		valid := 0
		for i, g := range groups {
			if sig&masks[i] == masks[i] && p.k >= g.lo && (g.hi < 0 || p.k <= g.hi) {
				valid++
			}
		}
		return valid == 1
	}
	// The pairs from which the string can end: the others are left out.
	live := make([]bool, len(pairs))
	for i, p := range pairs {
		live[i] = accepts(p)
	}
	liveBackwards(live, firstEdge, edgeTo)
	if !live[0] {
		return nil, true // no value has such a length
	}
	// A raw text's pair from which every text is valid (every character
	// keeps it, and it accepts) is the raw text itself, whose rules keep
	// the markers out with "<" allowed; and a move into such a pair may
	// be a "<", the raw text going on after it (decision 306). Elsewhere
	// a raw automaton's moves leave "<" out (decision 129).
	var universal []bool
	var ltRule *expr
	if raw {
		universal = make([]bool, len(pairs))
		for i, p := range pairs {
			if !live[i] || !accepts(p) {
				continue
			}
			var all charSet
			self := true
			for e := firstEdge[i]; e < firstEdge[i+1]; e++ {
				if int(edgeTo[e]) != i {
					self = false
					break
				}
				all = all.union(dfa.states[p.q].moves[edgeMove[e]].set)
			}
			universal[i] = self && slices.Equal(all, setAll())
		}
		if slices.Contains(universal, true) {
			c.rawText() // (its rules, once per grammar)
			ltRule = c.raw.state(rawAfterLT())
		}
	}
	// Each move's characters, encoded once, and what the rules would
	// cost an engine, counted before anything is written.
	moves := make([][]*expr, len(dfa.states))
	made := 0
	for q, st := range dfa.states {
		moves[q] = make([]*expr, len(st.moves))
		for j, m := range st.moves {
			var n int
			moves[q][j], n = c.moveChars(m.set, raw)
			made += n
		}
	}
	cost := made
	for i, p := range pairs {
		if !live[i] {
			continue
		}
		for e := firstEdge[i]; e < firstEdge[i+1]; e++ {
			if move := moves[p.q][edgeMove[e]]; live[edgeTo[e]] && move != nil {
				cost += expandedCost(move) + 1
			}
		}
		cost += ruleCost + 2
	}
	if cost > maxShapeCost || cost > (maxExpanded-c.g.expanded)/4 || c.keyCost+cost > maxKeyCostTotal {
		return nil, false
	}
	c.keyCost += cost
	rules := make([]int, len(pairs))
	for i := range pairs {
		if live[i] {
			rules[i] = c.g.declare("length")
		}
	}
	closing := lit(`"`)
	if raw {
		closing = empty()
	}
	for i, p := range pairs {
		if !live[i] {
			continue
		}
		if raw && universal[i] {
			c.g.define(rules[i], c.rawText())
			continue
		}
		var self, alts []*expr
		for e := firstEdge[i]; e < firstEdge[i+1]; e++ {
			to := edgeTo[e]
			if raw && live[to] && universal[to] && dfa.states[p.q].moves[edgeMove[e]].set.has('<') {
				alts = append(alts, seq(lit("<"), ltRule))
			}
			switch {
			case !live[to] || moves[p.q][edgeMove[e]] == nil:
			case int(to) == i:
				self = append(self, moves[p.q][edgeMove[e]])
			default:
				alts = append(alts, seq(moves[p.q][edgeMove[e]], ref(rules[to])))
			}
		}
		if accepts(p) {
			alts = append(alts, closing)
		}
		c.g.define(rules[i], c.stateBody(rules[i], self, alts))
	}
	if raw {
		return ref(rules[0]), true
	}
	return seq(lit(`"`), ref(rules[0])), true
}

// liveBackwards marks live every node of a graph from which a live node
// can be reached: node i's edges lead to to[first[i]:first[i+1]]. It
// follows the edges reversed from the live nodes, each edge once, so its
// work is linear in the graph: sweeping forwards until nothing changes
// takes a sweep per step of the longest path to a live node (a length
// automaton's pairs for a minLength of 1,024: 80 ms).
func liveBackwards(live []bool, first, to []int32) {
	n := len(live)
	firstFrom := make([]int32, n+1) // the reversed edges, by target
	for _, t := range to {
		firstFrom[t+1]++
	}
	for i := range n {
		firstFrom[i+1] += firstFrom[i]
	}
	from := make([]int32, len(to))
	filled := slices.Clone(firstFrom[:n])
	for i := range n {
		for _, t := range to[first[i]:first[i+1]] {
			from[filled[t]] = int32(i)
			filled[t]++
		}
	}
	var stack []int32
	for i, l := range live {
		if l {
			stack = append(stack, int32(i))
		}
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, f := range from[firstFrom[t]:firstFrom[t+1]] {
			if !live[f] {
				live[f] = true
				stack = append(stack, f)
			}
		}
	}
}

// rawAfterLT is the state of the raw text's automaton (textLang, the
// forbidden strings of an argument) after a "<" read from its start.
var rawAfterLT = sync.OnceValue(func() int {
	a := newAutomaton(forbidden(inArgument))
	return a.next[0][slices.Index(a.special, '<')]
})
