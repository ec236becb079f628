package grammar

import (
	"slices"
	"strconv"
	"unicode"
)

// The key automaton writes the members of an object that the object's
// schemas do not declare when their keys are told apart by patterns:
// several patternProperties, or patterns beside other members that
// additionalProperties allows (gap decision 196). JSON Schema gives such a
// member, in each schema of the object, the schemas of the patterns its
// key matches, or additionalProperties when none does; a context-free
// grammar can say "the key matches this pattern" but not "the key matches
// none of these", so the keys are read by one deterministic automaton
// over their characters, built from the patterns (and from the declared
// names, which other members must not spell). Each of its states knows
// which patterns the key read so far matches; a key may end in a state
// whose set of patterns has a schema that admits some value, and its value
// is then valid for that set's schemas. The automaton is written as one
// rule per state, each a choice of a character class and the next state,
// or the end of the key and the value. It is built under strict only,
// where it turns a refusal into an exact grammar; not strict, the patterns
// it would tell apart are reported as before, which costs a compile a few
// microseconds where the automaton costs tens (decision 196).

// Limits on a key automaton: past them the patterns are reported, as
// before (an error under strict).
const (
	// maxKeyPatterns caps the patterns one automaton tells apart (a
	// state's set of them is a bit set).
	maxKeyPatterns = 63
	// maxKeyNFA caps the states of the patterns' nondeterministic
	// automaton (counted repetitions are written out in it).
	maxKeyNFA = 4096
	// maxKeyStates caps the deterministic automaton's states, each a rule
	// of the grammar. The declared names are spelled out in it (a trie,
	// as keyExcept writes them), a state for each of their characters.
	maxKeyStates = 1024
	// maxKeyCostTotal caps the engine's elements of a grammar's key
	// automata together.
	maxKeyCostTotal = maxExpanded / 4
	// maxKeyWork caps the work of building one, and maxKeyWorkTotal the
	// work of every automaton of a grammar, built or given up: past it,
	// patterns are reported at once, so that a schema of many objects
	// with heavy patterns can't make the compile slow. The work counts
	// the NFA states and set ends visited, stateWork for each DFA state
	// made and moveWork for each of its moves (their cost in time, about
	// 20 ns each here).
	maxKeyWork      = 1 << 18
	maxKeyWorkTotal = 1 << 20
	stateWork       = 128
	moveWork        = 16
	// minMinimized is the most states an automaton is written with
	// unminimized: minimizing a small one costs more than the few
	// rules it saves.
	minMinimized = 64
)

// keyNFA is a nondeterministic automaton over characters, with empty
// moves (Thompson's construction). A state moves on a character of set to
// next, and to each of eps on no character; tag >= 0 marks a state where
// a key matches pattern tag (tag len(patterns): a name other members
// must not spell).
type keyNFA struct {
	states []nfaState
	// ahead, when set, is the budget of the automata of a pattern's
	// lookahead assertions (kAnd, kLook), which build reads only then;
	// looks, when set, the assertions (kAhead) of an alternating
	// automaton's NFA, which build reads only then.
	ahead *aheadBudget
	looks *lookTable
}

type nfaState struct {
	set  charSet
	next int32
	// look, when not 0, marks a lookahead assertion read by the
	// alternating automaton (lookahead.go): lookTable.looks[look-1].
	look int32
	eps  []int32
	tag  int
}

func (a *keyNFA) add() int32 {
	a.states = append(a.states, nfaState{next: -1, tag: -1})
	return int32(len(a.states) - 1)
}

func (a *keyNFA) link(from, to int32) { a.states[from].eps = append(a.states[from].eps, to) }

// accept marks the texts that lead to state end as matching tag, in a
// state of its own (end may be where other texts lead too).
func (a *keyNFA) accept(end int32, tag int) {
	s := a.add()
	a.link(end, s)
	a.states[s].tag = tag
}

// step adds a state that moves on a character of set from a state that
// from reaches on no character, and returns the state it moves to.
func (a *keyNFA) step(from int32, set charSet) int32 {
	s, n := a.add(), a.add()
	a.link(from, s)
	a.states[s].set, a.states[s].next = set, n
	return n
}

// build adds the states of e after from and returns the state a text of
// e's language leads to; ok is false past maxKeyNFA or for an expression
// that is not over characters.
func (a *keyNFA) build(e *expr, from int32) (int32, bool) {
	if len(a.states) > maxKeyNFA {
		return 0, false
	}
	switch e.kind {
	case kLit:
		cur := from
		for _, r := range e.text {
			if len(a.states) > maxKeyNFA {
				return 0, false // a literal of a million characters (decision 219)
			}
			cur = a.step(cur, setOf(runeRange{r, r}))
		}
		return cur, true
	case kClass:
		return a.step(from, setOfClass(e)), true
	case kSeq:
		cur := from
		for i, it := range e.items {
			// Beside a part that matches every text (an unanchored
			// pattern's ends), a repetition's count past its minimum
			// is absorbed: .*X{m,n} and X{m,n}.* are .*X{m} and X{m}.*.
			// Spelling it out would count to n in the automaton. A part
			// that matches every text is kept as it is: two side by side
			// (^[\s\S]* and the end of its search) absorbed each other,
			// and the automaton took the empty text alone.
			if it.kind == kRep && it.max != it.min && !matchesEverything(it) && (i > 0 && matchesEverything(e.items[i-1]) || i+1 < len(e.items) && matchesEverything(e.items[i+1])) {
				it = &expr{kind: kRep, items: it.items, min: it.min, max: it.min}
			}
			var ok bool
			if cur, ok = a.build(it, cur); !ok {
				return 0, false
			}
		}
		return cur, true
	case kAlt:
		end := a.add()
		for _, it := range e.items {
			to, ok := a.build(it, from)
			if !ok {
				return 0, false
			}
			a.link(to, end)
		}
		return end, true
	case kRep:
		cur := from
		for range e.min {
			var ok bool
			if cur, ok = a.build(e.items[0], cur); !ok {
				return 0, false
			}
		}
		if e.max < 0 {
			loop := a.add()
			a.link(cur, loop)
			to, ok := a.build(e.items[0], loop)
			if !ok {
				return 0, false
			}
			a.link(to, loop)
			return loop, true
		}
		end := a.add()
		for range e.max - e.min {
			a.link(cur, end)
			var ok bool
			if cur, ok = a.build(e.items[0], cur); !ok {
				return 0, false
			}
		}
		a.link(cur, end)
		return end, true
	case kAnd:
		return a.intersect(e, from)
	case kLook:
		return a.alternate(e, from)
	case kAhead:
		if a.looks == nil {
			return 0, false
		}
		s := a.add()
		a.link(from, s)
		a.states[s].look = a.looks.index(e) + 1
		return s, true
	}
	return 0, false // a rule reference
}

// keyDFA is the deterministic automaton of a keyNFA: each state a set of
// the NFA's states (the empty set included: a key no pattern can match
// any more), what the keys that end there match (sig: bit i for pattern
// i, bit len(patterns) for an excluded name), and its moves, each on a
// set of characters, the sets of a state disjoint and covering every
// character.
type keyDFA struct {
	states []dfaState
}

type dfaState struct {
	sig   uint64
	moves []dfaMove
}

type dfaMove struct {
	set charSet
	to  int
}

// determinize builds the DFA of a from state start by the subset
// construction, and returns the work it took (NFA states and set ends
// visited); ok is false past maxStates states or budget's work. A set of NFA
// states that live (when not nil) says can lead to no accepted text is
// made the dead state, the empty set's, rather than a state of its own.
func (a *keyNFA) determinize(start int32, budget, maxStates int, live func(set []int32) bool) (d *keyDFA, work int, ok bool) {
	d = &keyDFA{}
	index := map[string]int{}
	var sets [][]int32
	mark := make([]int, len(a.states)) // closure's visited stamps
	stamp := 0
	// closure is the states from reaches on no character, those that
	// matter only (a move on a character, or a tag): two sets that differ
	// in the others are one state. It returns a buffer the next call
	// reuses.
	var out, stack []int32
	closure := func(from []int32) []int32 {
		stamp++
		out, stack = out[:0], stack[:0]
		for _, s := range from {
			if mark[s] != stamp {
				mark[s] = stamp
				stack = append(stack, s)
			}
		}
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if st := &a.states[s]; st.next >= 0 || st.tag >= 0 {
				out = append(out, s)
			}
			work++
			for _, t := range a.states[s].eps {
				if mark[t] != stamp {
					mark[t] = stamp
					stack = append(stack, t)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	var key []byte
	keyOf := func(set []int32) []byte {
		key = key[:0]
		for _, s := range set {
			key = append(key, byte(s), byte(s>>8), byte(s>>16))
		}
		return key
	}
	var stateOf func(set []int32) (int, bool)
	stateOf = func(set []int32) (int, bool) {
		if i, ok := index[string(keyOf(set))]; ok {
			return i, true
		}
		if live != nil && len(set) > 0 && !live(set) {
			// No text from here is accepted: the dead state, the empty
			// set's, found again by this set's key.
			dead := string(key)
			i, ok := stateOf(nil)
			if ok {
				index[dead] = i
			}
			return i, ok
		}
		if len(d.states) >= maxStates {
			return 0, false
		}
		var sig uint64
		for _, s := range set {
			if t := a.states[s].tag; t >= 0 {
				sig |= 1 << t
			}
		}
		index[string(key)] = len(d.states)
		d.states = append(d.states, dfaState{sig: sig})
		work += stateWork
		sets = append(sets, slices.Clone(set))
		return len(d.states) - 1, true
	}
	if _, ok := stateOf(closure([]int32{start})); !ok {
		return nil, work, false
	}
	// Each state's moves: a sweep over the ends of its NFA states' sets
	// splits the characters into intervals, each moving to one set of
	// NFA states (the characters no state moves on, to the empty set).
	// An event is where an NFA state's set starts or ends, packed for a
	// fast sort: the character above 32 bits, the target above 1, and 1
	// for a start.
	var events []uint64
	byTargets := map[string]int{}         // DFA states by the NFA states moved to, before their closure
	count := make([]int32, len(a.states)) // the sets holding the current interval, by NFA target
	var active []int32                    // the targets of the current interval, in order
	var lastSet []int32
	for i := 0; i < len(d.states); i++ {
		events = events[:0]
		for _, s := range sets[i] {
			st := &a.states[s]
			if st.next < 0 {
				continue
			}
			for _, r := range st.set {
				events = append(events, uint64(r.lo)<<32|uint64(st.next)<<1|1, uint64(r.hi+1)<<32|uint64(st.next)<<1)
			}
		}
		if work += len(events); work > budget {
			return nil, work, false
		}
		slices.Sort(events)
		var moves []dfaMove
		lastSet, lastTo := lastSet[:0], -1
		from := rune(0)
		for k := 0; ; {
			at := rune(unicode.MaxRune + 1)
			if k < len(events) {
				at = rune(events[k] >> 32)
			}
			if at > from {
				// The interval [from, at-1] moves to the closure of active.
				to := lastTo
				if lastTo < 0 || !slices.Equal(active, lastSet) {
					// The same targets lead to the same state: their
					// closure is computed once.
					var ok bool
					if to, ok = byTargets[string(keyOf(active))]; !ok {
						targets := string(key)
						if to, ok = stateOf(closure(active)); !ok {
							return nil, work, false
						}
						byTargets[targets] = to
					}
					lastSet, lastTo = append(lastSet[:0], active...), to
				}
				m := slices.IndexFunc(moves, func(m dfaMove) bool { return m.to == to })
				if m < 0 {
					m = len(moves)
					moves = append(moves, dfaMove{to: to})
				}
				moves[m].set = appendInterval(moves[m].set, from, at-1)
			}
			if k == len(events) {
				break
			}
			for ; k < len(events) && rune(events[k]>>32) == at; k++ {
				t := int32(uint32(events[k]) >> 1)
				if events[k]&1 == 1 {
					if count[t]++; count[t] == 1 {
						n, _ := slices.BinarySearch(active, t)
						active = slices.Insert(active, n, t)
					}
				} else if count[t]--; count[t] == 0 {
					n, _ := slices.BinarySearch(active, t)
					active = slices.Delete(active, n, n+1)
				}
			}
			from = at
		}
		kept := moves[:0]
		for _, m := range moves {
			if len(m.set) > 0 {
				kept = append(kept, m)
			}
		}
		d.states[i].moves = kept
		work += moveWork * len(kept)
	}
	return d, work, true
}

// appendInterval adds the characters lo to hi to set, whose ranges all
// lie below lo: without the surrogates, and joined to the last range when
// they touch it (a charSet's form).
func appendInterval(set charSet, lo, hi rune) charSet {
	if lo <= surrogateHi && hi >= surrogateLo {
		if lo < surrogateLo {
			set = appendInterval(set, lo, surrogateLo-1)
		}
		if hi <= surrogateHi {
			return set
		}
		lo = surrogateHi + 1
	}
	if n := len(set); n > 0 && set[n-1].hi+1 == lo {
		set[n-1].hi = hi
		return set
	}
	return append(set, runeRange{lo, hi})
}

// minimize merges the states of d that no key tells apart (Moore's
// partition refinement: first by what the keys ending there match, then
// by where each character leads, until no block splits), and returns the
// minimal automaton, its first state still the start, with the work it
// took. Each round costs the whole automaton and a long chain of states
// takes a round per state: past budget, d is returned as it is (a
// partition not yet stable could merge states a key tells apart).
func (d *keyDFA) minimize(budget int) (*keyDFA, int) {
	n := len(d.states)
	block := make([]int, n)
	ids := map[uint64]int{}
	for i, st := range d.states {
		b, ok := ids[st.sig]
		if !ok {
			b = len(ids)
			ids[st.sig] = b
		}
		block[i] = b
	}
	work := 0
	type seg struct {
		lo, hi rune
		b      int
	}
	var segs []seg
	block, blocks, stable := refine(block, len(ids), func(i int, block []int, buf []byte) []byte {
		// Where each character leads, by block, as intervals in order.
		segs = segs[:0]
		for _, m := range d.states[i].moves {
			for _, r := range m.set {
				segs = append(segs, seg{r.lo, r.hi, block[m.to]})
			}
		}
		slices.SortFunc(segs, func(x, y seg) int { return int(x.lo - y.lo) })
		for j, sg := range segs {
			if j > 0 && segs[j-1].b == sg.b && (segs[j-1].hi+1 == sg.lo || segs[j-1].hi+1 == surrogateLo && sg.lo == surrogateHi+1) {
				buf = appendInt(buf[:len(buf)-4], int(sg.hi)) // the interval goes on
				continue
			}
			buf = appendInt(appendInt(appendInt(buf, sg.b), int(sg.lo)), int(sg.hi))
		}
		work += len(segs) + 1
		return buf
	}, func() bool { return work > budget })
	if !stable {
		return d, work
	}
	// The blocks in the order their first states come (the start first).
	number := make([]int, blocks)
	for i := range number {
		number[i] = -1
	}
	m := &keyDFA{}
	for i, st := range d.states {
		if number[block[i]] < 0 {
			number[block[i]] = len(m.states)
			m.states = append(m.states, dfaState{sig: st.sig, moves: st.moves})
		}
	}
	for i := range m.states {
		var moves []dfaMove
		for _, mv := range m.states[i].moves {
			to := number[block[mv.to]]
			if k := slices.IndexFunc(moves, func(x dfaMove) bool { return x.to == to }); k >= 0 {
				moves[k].set = moves[k].set.union(mv.set)
			} else {
				moves = append(moves, dfaMove{mv.set, to})
			}
		}
		slices.SortFunc(moves, func(x, y dfaMove) int { return int(x.set[0].lo - y.set[0].lo) })
		m.states[i].moves = moves
		work += len(moves)
	}
	return m, work
}

// refine is Moore's partition refinement: block is a first partition of
// states into blocks (numbered from 0), and moves appends to buf what
// tells state i apart under the current partition (where its moves lead,
// by block). Each round splits the blocks whose states differ, until no
// block splits; it returns the stable partition, each block numbered by
// the round's order of first states, and their number. stop, checked
// after each round that split a block, ends it early (stable false: the
// partition returned could merge states that differ). Shared by the key
// automata (keyDFA.minimize) and the marker-free texts
// (automaton.minimal).
func refine(block []int, blocks int, moves func(i int, block []int, buf []byte) []byte, stop func() bool) (_ []int, _ int, stable bool) {
	var buf []byte
	for {
		ids := map[string]int{}
		next := make([]int, len(block))
		for i := range block {
			buf = moves(i, block, appendInt(buf[:0], block[i]))
			id, ok := ids[string(buf)]
			if !ok {
				id = len(ids)
				ids[string(buf)] = id
			}
			next[i] = id
		}
		block = next
		if len(ids) == blocks {
			return block, blocks, true
		}
		if blocks = len(ids); stop != nil && stop() {
			return block, blocks, false
		}
	}
}

// appendInt appends the 4 bytes of v.
func appendInt(b []byte, v int) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

// deterministic is the DFA of a from state start, minimized past
// minMinimized states, its work counted against the key automata's budget
// of the grammar and its size against the compile's (spend, at path); ok
// is false past either, or past the limits on its states.
func (c *compiler) deterministic(a *keyNFA, start int32, path string, live func(set []int32) bool) (*keyDFA, bool) {
	c.keyWork += 4 * len(a.states)
	if a.ahead != nil {
		c.keyWork += a.ahead.spent
	}
	if len(a.states) > maxKeyNFA || c.keyWork >= maxKeyWorkTotal || !c.spend(path, 16*len(a.states)) {
		return nil, false
	}
	dfa, work, ok := a.determinize(start, min(maxKeyWork, maxKeyWorkTotal-c.keyWork), maxKeyStates, live)
	c.keyWork += work
	if ok && len(dfa.states) > minMinimized {
		dfa, work = dfa.minimize(min(maxKeyWork, maxKeyWorkTotal-c.keyWork) / 4)
		c.keyWork += work
	}
	if !ok || !c.spend(path, 64*len(dfa.states)) {
		return nil, false
	}
	return dfa, true
}

// keyAutomaton is a member of an object of v whose key none of names
// spells (the declared names, and those dependentSchemas keeps out), and
// whose value is valid, in each schema of v, for the schemas of the
// patterns pats the key matches, or for additionalProperties where none of
// that schema's does (any value where no schema has one: under strict an
// object is open as its schema says). ok is false when the automaton
// can't be built (not strict, a pattern the translator refuses, the limits
// above): the caller then reports the
// patterns as before. member is nil when no other member can be written.
func (c *compiler) keyAutomaton(v *view, pats []propertyPattern, names []string, ctx textContext) (member *expr, ok bool) {
	if !c.strict || len(pats) == 0 || len(pats) > maxKeyPatterns || c.keyWork >= maxKeyWorkTotal {
		return nil, false
	}
	if _, u := c.unevaluatedPropertiesOf(v); u >= 0 || c.unevaluatedClosed(v) {
		return nil, false
	}
	a := &keyNFA{ahead: c.aheadBudget()}
	start := a.add()
	for i, p := range pats {
		e := c.namePattern(p.key)
		if e == nil {
			// A pattern with lookahead assertions (decision 288).
			if e = c.aheadName(p.key); e == nil {
				return nil, false
			}
		}
		end, ok := a.build(e, start)
		if !ok {
			return nil, false
		}
		a.accept(end, i)
	}
	for _, name := range names {
		end, _ := a.build(lit(name), start)
		a.accept(end, len(pats))
	}
	dfa, ok := c.deterministic(a, start, v.path, nil)
	if !ok {
		return nil, false
	}
	// The key rules may take a quarter of what is left of the engine's
	// budget (maxExpanded), and all of a grammar's together
	// maxKeyCostTotal, counted before anything is written: past it, the
	// patterns are reported as before, and the rest of the grammar keeps
	// its room.
	moves := make([][]*expr, len(dfa.states)) // each move's characters, encoded
	cost := 0
	for i, st := range dfa.states {
		moves[i] = make([]*expr, len(st.moves))
		for j, m := range st.moves {
			e, made := c.moveChars(m.set, false)
			moves[i][j] = e
			cost += made + expandedCost(e) + 1
		}
		cost += ruleCost + 2
		c.keyWork += moveWork * len(st.moves)
	}
	if cost > (maxExpanded-c.g.expanded)/4 || c.keyCost+cost > maxKeyCostTotal {
		return nil, false
	}
	c.keyCost += cost
	// The end of a key, and its value, by the set of patterns it matches.
	ends := map[uint64]*expr{}
	endOf := func(sig uint64) *expr {
		if sig&(1<<len(pats)) != 0 {
			return nil // a declared or excluded name
		}
		if e, ok := ends[sig]; ok {
			return e
		}
		w := &view{root: rootNone}
		for i := range v.nodes {
			matched := false
			for j, p := range pats {
				if p.owner == i && sig&(1<<j) != 0 {
					c.addTo(w, p.schema, p.path)
					matched = true
				}
			}
			if ap := v.nodes[i].ks.AdditionalProperties; !matched && ap >= 0 {
				c.addTo(w, ap, v.nodes[i].path+".additionalProperties")
			}
		}
		var end *expr
		if !w.never {
			if w.path == "" {
				w.path = v.path + ".additionalProperties"
			}
			if value := c.value(w, ctx, false); value != nil {
				end = ref(c.g.rule("key-end", seq(lit(`": `), value)))
			}
		}
		ends[sig] = end
		return end
	}
	// The states from which a key can end: the others are left out.
	n := len(dfa.states)
	live := make([]bool, n)
	for i, s := range dfa.states {
		live[i] = endOf(s.sig) != nil
	}
	if c.err != nil {
		return nil, true
	}
	first := make([]int32, 1, n+1)
	var to []int32
	for _, s := range dfa.states {
		for _, m := range s.moves {
			to = append(to, int32(m.to))
		}
		first = append(first, int32(len(to)))
	}
	liveBackwards(live, first, to)
	if !live[0] {
		return nil, true
	}
	rules := make([]int, n)
	for i := range dfa.states {
		if live[i] {
			rules[i] = c.g.declare("key")
		}
	}
	for i, s := range dfa.states {
		if !live[i] {
			continue
		}
		var self, alts []*expr
		for j, m := range s.moves {
			switch {
			case !live[m.to]:
			case m.to == i:
				self = append(self, moves[i][j])
			default:
				alts = append(alts, seq(moves[i][j], ref(rules[m.to])))
			}
		}
		alts = append(alts, endOf(s.sig))
		c.g.define(rules[i], c.stateBody(rules[i], self, alts))
	}
	return seq(lit(`"`), ref(rules[0])), true
}

// stateBody is the body of rule me, a state of an automaton whose moves
// to itself are self (each a move's characters, moveChars) and whose
// other moves, and its end, are rest. The characters of the moves to
// itself that are classes and literals are written repeated, then a
// move away, an escape and the state again, or the end: me ::= [...]*
// (escape me | "a" other | ...), not me ::= [...] me | escape me | ...,
// the same language. xgrammar (vLLM, SGLang) reads the recursion as one
// more level a character, and took 39 ms to mask a token inside such a
// string (gap decision 263); llama.cpp reads either alike.
func (c *compiler) stateBody(me int, self, rest []*expr) *expr {
	var stay, again []*expr
	for _, m := range self {
		body := m
		if m.kind == kRef && m.proto == nil {
			body = c.g.rules[m.rule].body
		}
		parts := []*expr{body}
		if body.kind == kAlt {
			parts = body.items
		}
		for _, p := range parts {
			if hasRef(p) {
				again = append(again, seq(p, ref(me)))
			} else {
				stay = append(stay, p)
			}
		}
	}
	if len(stay) == 0 || len(again)+len(rest) == 0 {
		alts := make([]*expr, 0, len(self)+len(rest))
		for _, m := range self {
			alts = append(alts, seq(m, ref(me)))
		}
		return alt(append(alts, rest...)...)
	}
	return seq(star(alt(stay...)), alt(append(again, rest...)...))
}

// moveChars is one character of set as a JSON string's text writes it
// (with raw, an argument's raw text: "<" left out), for the moves of the
// key and length automata. An encoding that is a choice (a class and
// escapes) is a rule, one per set and form in a schema, so that each move
// on it costs an engine two elements; made is what a rule made here costs.
// The characters written escaped (jsonSpecial), when set holds them all,
// are the rule of a key's escapes that keyExcept shares too.
func (c *compiler) moveChars(set charSet, raw bool) (chars *expr, made int) {
	var b []byte
	if raw {
		b = append(b, 'r')
	}
	for _, r := range set {
		b = strconv.AppendInt(append(strconv.AppendInt(append(b, ','), int64(r.lo), 16), '-'), int64(r.hi), 16)
	}
	key := "chars" + string(b)
	if e, ok := c.memo[key]; ok {
		return e, 0
	}
	var e *expr
	special := set.intersect(jsonSpecial())
	switch {
	case raw:
		e = rawChars(set.expr())
	case len(special) == 0:
		e = set.expr() // written as it is
	case !slices.Equal(special, jsonSpecial()):
		e = jsonChars(set.expr())
	default:
		if c.keyEscape == 0 {
			c.keyEscape = c.g.rule("key-escape", keyEscapeExpr)
			made += expandedCost(keyEscapeExpr) + ruleCost
		}
		e = alt(jsonChars(set.minus(special).expr()), ref(c.keyEscape))
	}
	if e != nil && (e.kind == kAlt || e.kind == kClass && expandedCost(e) > 3) {
		// An alternation, or a class of more than one range: a rule, so
		// that each move costs a reference (an automaton has many moves
		// on the same characters).
		made += expandedCost(e) + ruleCost
		e = ref(c.g.rule("chars", e))
	}
	c.memo[key] = e
	return e, made
}
