package grammar

import (
	"slices"
	"strconv"
	"strings"
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
	// maxKeyWork caps the work of building it, in character ranges
	// compared.
	maxKeyWork = 1 << 20
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
		for _, it := range e.items {
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
// construction; ok is false past maxKeyStates or maxKeyWork.
func (a *keyNFA) determinize(start int32) (*keyDFA, bool) {
	d := &keyDFA{}
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
	var key strings.Builder
	stateOf := func(set []int32) (int, bool) {
		key.Reset()
		for _, s := range set {
			key.WriteString(strconv.Itoa(int(s)))
			key.WriteByte(',')
		}
		if i, ok := index[key.String()]; ok {
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
		index[key.String()] = len(d.states)
		d.states = append(d.states, dfaState{sig: sig})
		sets = append(sets, set)
		return len(d.states) - 1, true
	}
	if _, ok := stateOf(closure([]int32{start})); !ok {
		return nil, false
	}
	work := 0
	type atom struct {
		set     charSet
		targets []int32
	}
	for i := 0; i < len(d.states); i++ {
		// Split every character into atoms, each moving to one set of
		// NFA states; the characters no state moves on lead to the
		// empty set.
		var atoms []atom
		for _, s := range sets[i] {
			st := &a.states[s]
			if st.next < 0 || len(st.set) == 0 {
				continue
			}
			rest := st.set
			for j := range len(atoms) {
				work += len(atoms[j].set) + len(rest)
				in := atoms[j].set.intersect(st.set)
				if len(in) == 0 {
					continue
				}
				if out := atoms[j].set.minus(st.set); len(out) > 0 {
					atoms[j].set = out
					atoms = append(atoms, atom{in, append(slices.Clip(atoms[j].targets), st.next)})
				} else {
					atoms[j].targets = append(atoms[j].targets, st.next)
				}
				rest = rest.minus(in)
			}
			if len(rest) > 0 {
				atoms = append(atoms, atom{rest, []int32{st.next}})
			}
			if work > maxKeyWork {
				return nil, false
			}
		}
		covered := charSet(nil)
		for _, at := range atoms {
			covered = covered.union(at.set)
		}
		if left := setAll().minus(covered); len(left) > 0 {
			atoms = append(atoms, atom{left, nil})
		}
		var moves []dfaMove
		for _, at := range atoms {
			to, ok := stateOf(closure(at.targets))
			if !ok {
				return nil, false
			}
			if k := slices.IndexFunc(moves, func(m dfaMove) bool { return m.to == to }); k >= 0 {
				moves[k].set = moves[k].set.union(at.set)
			} else {
				moves = append(moves, dfaMove{at.set, to})
			}
		}
		slices.SortFunc(moves, func(x, y dfaMove) int { return int(x.set[0].lo - y.set[0].lo) })
		d.states[i].moves = moves
	}
	return d, true
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
	if len(pats) == 0 || len(pats) > maxKeyPatterns {
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
	if len(a.states) > maxKeyNFA || !c.spend(v.path, 16*len(a.states)) {
		return nil, false
	}
	dfa, ok := a.determinize(start)
	if !ok || !c.spend(v.path, 64*len(dfa.states)) {
		return nil, false
	}
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
		for _, m := range s.moves {
			if live[m.to] {
				alts = append(alts, seq(jsonChars(m.set.expr()), ref(rules[m.to])))
			}
		}
		alts = append(alts, endOf(s.sig))
		c.g.define(rules[i], alt(alts...))
	}
	return seq(lit(`"`), ref(rules[0])), true
}
