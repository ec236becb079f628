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
// or the end of the key and the value.

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
	// maxKeyWork caps the work of building one, and maxKeyWorkTotal the
	// work of every automaton of a grammar, built or given up: past it,
	// patterns are reported at once, so that a schema of many objects
	// with heavy patterns can't make the compile slow. The work counts
	// the NFA states and set ends visited, stateWork for each DFA state
	// made and moveWork for each of its moves (their cost in time, about
	// 20 ns each here).
	// maxKeyCostTotal caps the engine's elements of a grammar's key
	// automata together.
	maxKeyCostTotal = maxExpanded / 4
	maxKeyWork      = 1 << 18
	maxKeyWorkTotal = 1 << 19
	stateWork       = 128
	moveWork        = 16
)

// keyNFA is a nondeterministic automaton over characters, with empty
// moves (Thompson's construction). A state moves on a character of set to
// next, and to each of eps on no character; tag >= 0 marks a state where
// a key matches pattern tag (tag len(patterns): a name other members
// must not spell).
type keyNFA struct {
	states []nfaState
}

type nfaState struct {
	set  charSet
	next int32
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
			// Spelling it out would count to n in the automaton.
			if it.kind == kRep && it.max != it.min && (i > 0 && matchesEverything(e.items[i-1]) || i+1 < len(e.items) && matchesEverything(e.items[i+1])) {
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
// visited); ok is false past maxKeyStates or budget's work.
func (a *keyNFA) determinize(start int32, budget int) (d *keyDFA, work int, ok bool) {
	d = &keyDFA{}
	index := map[string]int{}
	var sets [][]int32
	mark := make([]int, len(a.states)) // closure's visited stamps
	stamp := 0
	closure := func(from []int32) []int32 {
		stamp++
		var out, stack []int32
		for _, s := range from {
			if mark[s] != stamp {
				mark[s] = stamp
				stack = append(stack, s)
			}
		}
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			out = append(out, s)
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
	stateOf := func(set []int32) (int, bool) {
		if i, ok := index[string(keyOf(set))]; ok {
			return i, true
		}
		if len(d.states) >= maxKeyStates {
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
		sets = append(sets, set)
		return len(d.states) - 1, true
	}
	if _, ok := stateOf(closure([]int32{start})); !ok {
		return nil, work, false
	}
	// Each state's moves: a sweep over the ends of its NFA states' sets
	// splits the characters into intervals, each moving to one set of
	// NFA states (the characters no state moves on, to the empty set).
	type event struct {
		at  rune
		to  int32
		add bool
	}
	var events []event
	count := make([]int32, len(a.states)) // the sets holding the current interval, by NFA target
	var active, sorted []int32
	for i := 0; i < len(d.states); i++ {
		events = events[:0]
		for _, s := range sets[i] {
			st := &a.states[s]
			if st.next < 0 {
				continue
			}
			for _, r := range st.set {
				events = append(events, event{r.lo, st.next, true}, event{r.hi + 1, st.next, false})
			}
		}
		if work += len(events); work > budget {
			return nil, work, false
		}
		slices.SortFunc(events, func(x, y event) int { return int(x.at - y.at) })
		var moves []dfaMove
		byState := map[int]int{} // index in moves, by DFA state
		lastSet, lastTo := []int32(nil), -1
		from := rune(0)
		for k := 0; ; {
			at := rune(unicode.MaxRune + 1)
			if k < len(events) {
				at = events[k].at
			}
			if at > from {
				// The interval [from, at-1] moves to the closure of active.
				sorted = append(sorted[:0], active...)
				slices.Sort(sorted)
				to := lastTo
				if lastTo < 0 || !slices.Equal(sorted, lastSet) {
					var ok bool
					if to, ok = stateOf(closure(sorted)); !ok {
						return nil, work, false
					}
					lastSet, lastTo = append(lastSet[:0], sorted...), to
				}
				if m, ok := byState[to]; ok {
					moves[m].set = append(moves[m].set, runeRange{from, at - 1})
				} else {
					byState[to] = len(moves)
					moves = append(moves, dfaMove{charSet{{from, at - 1}}, to})
				}
			}
			if k == len(events) {
				break
			}
			for ; k < len(events) && events[k].at == at; k++ {
				e := events[k]
				if e.add {
					if count[e.to]++; count[e.to] == 1 {
						active = append(active, e.to)
					}
				} else if count[e.to]--; count[e.to] == 0 {
					active = slices.DeleteFunc(active, func(t int32) bool { return t == e.to })
				}
			}
			from = at
		}
		// The intervals of a move are in order; setOf merges those that
		// touch and cuts the surrogates out.
		kept := moves[:0]
		for _, m := range moves {
			if m.set = setOf(m.set...); len(m.set) > 0 {
				kept = append(kept, m)
			}
		}
		d.states[i].moves = kept
		work += moveWork * len(kept)
	}
	return d, work, true
}

// keyAutomaton is a member of an object of v whose key none of names
// spells (the declared names, and those dependentSchemas keeps out), and
// whose value is valid, in each schema of v, for the schemas of the
// patterns pats the key matches, or for additionalProperties where none of
// that schema's does. With closeOthers, a member whose key no pattern
// matches is left out (objects are closed by default, decision 103:
// reported); without, it is valid for additionalProperties, any value
// where no schema has one. ok is false when the automaton can't
// be built (a pattern the translator refuses, the limits above, a name
// written with an escape): the caller then reports the patterns as
// before. member is nil when no other member can be written.
func (c *compiler) keyAutomaton(v *view, pats []propertyPattern, names []string, ctx textContext, closeOthers bool) (member *expr, ok bool) {
	if c.noKeyAutomata || len(pats) == 0 || len(pats) > maxKeyPatterns || c.keyWork >= maxKeyWorkTotal {
		return nil, false
	}
	if _, ok := escapedName(names); ok {
		return nil, false
	}
	if _, u := c.unevaluatedPropertiesOf(v); u >= 0 || c.unevaluatedClosed(v) {
		return nil, false
	}
	a := &keyNFA{}
	start := a.add()
	for i, p := range pats {
		e := c.namePattern(p.key)
		if e == nil {
			return nil, false
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
	c.keyWork += 4 * len(a.states)
	if len(a.states) > maxKeyNFA || c.keyWork >= maxKeyWorkTotal || !c.spend(v.path, 16*len(a.states)) {
		return nil, false
	}
	dfa, work, ok := a.determinize(start, min(maxKeyWork, maxKeyWorkTotal-c.keyWork))
	c.keyWork += work
	if !ok || !c.spend(v.path, 64*len(dfa.states)) {
		return nil, false
	}
	// The key rules may take a quarter of what is left of the engine's
	// budget (maxExpanded), and all of a grammar's together
	// maxKeyCostTotal, counted before anything is written: past it, the
	// patterns are reported as before, and the rest of the grammar keeps
	// its room.
	moves := make([][]*expr, len(dfa.states)) // each move's characters, encoded
	encoded := map[string]*expr{}             // by the set's ranges
	var buf []byte
	cost := 0
	for i, st := range dfa.states {
		moves[i] = make([]*expr, len(st.moves))
		for j, m := range st.moves {
			buf = buf[:0]
			for _, r := range m.set {
				buf = strconv.AppendInt(append(strconv.AppendInt(buf, int64(r.lo), 16), '-'), int64(r.hi), 16)
				buf = append(buf, ',')
			}
			e, ok := encoded[string(buf)]
			if !ok {
				e = c.keyChars(m.set)
				encoded[string(buf)] = e
			}
			moves[i][j] = e
			cost += expandedCost(e) + 1
		}
		cost += ruleCost + 2
		c.keyWork += moveWork * len(st.moves)
	}
	if cost > (maxExpanded-c.g.expanded)/4 || c.keyCost+cost > maxKeyCostTotal {
		return nil, false
	}
	c.keyCost += cost
	c.keyAutomata = true
	// The end of a key, and its value, by the set of patterns it matches.
	ends := map[uint64]*expr{}
	reported := false
	endOf := func(sig uint64) *expr {
		if sig&(1<<len(pats)) != 0 {
			return nil // a declared or excluded name
		}
		if e, ok := ends[sig]; ok {
			return e
		}
		w := &view{}
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
		switch {
		case w.never:
		case sig == 0 && closeOthers:
			if !reported {
				c.report(v.path+".additionalProperties", "additionalProperties")
				reported = true
			}
		default:
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
	for changed := true; changed; {
		changed = false
		for i, s := range dfa.states {
			if !live[i] && slices.ContainsFunc(s.moves, func(m dfaMove) bool { return live[m.to] }) {
				live[i], changed = true, true
			}
		}
	}
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
		var alts []*expr
		for j, m := range s.moves {
			if live[m.to] {
				alts = append(alts, seq(moves[i][j], ref(rules[m.to])))
			}
		}
		alts = append(alts, endOf(s.sig))
		c.g.define(rules[i], alt(alts...))
	}
	return seq(lit(`"`), ref(rules[0])), true
}

// keyChars is one character of set as a key's JSON text writes it. The
// characters written escaped (jsonSpecial) are, when set holds them all,
// the rule of a key's escapes that keyExcept shares too, so that a move on
// "any other character" costs a few elements, not the escapes' dozens.
func (c *compiler) keyChars(set charSet) *expr {
	special := jsonSpecial()
	if !slices.Equal(set.intersect(special), special) {
		return jsonChars(set.expr())
	}
	if c.keyEscape == 0 {
		c.keyEscape = c.g.rule("key-escape", keyEscapeExpr)
	}
	return alt(jsonChars(set.minus(special).expr()), ref(c.keyEscape))
}
