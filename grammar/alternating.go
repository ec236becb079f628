package grammar

import (
	"slices"
	"unicode"
)

// The alternating automaton reads the lookahead assertions of a group
// repeated without bound (or more than maxAheadRepeat times), where the
// distributor can't give each repetition its own continuation (gap
// decision 286). It reads the text once, as a deterministic automaton
// whose states are sets of threads: a thread is a state of the pattern's
// NFA with the obligations its path took on. Passing an assertion adds
// one: for (?!A), the rest of the text must not start with a text of A,
// so A's automaton runs alongside and the thread dies where A matches
// (the negative obligations of a thread run as one set of states: any of
// them matching kills it); for (?=A), A must match, so its automaton runs
// alongside, each such obligation a set of its own, met (and dropped)
// where A matches and fatal where no text can make it match. A text is
// accepted where some thread's state accepts and its obligations hold at
// the end. The result is made once per expression, minimized, and
// embedded as the other automata of the string automaton are, within the
// same budget.

// threadWork is the work of visiting a thread or taking on an obligation,
// in the key automata's units (about 20 ns each): a map's look-up and an
// interned set's, about 30 times a subset construction's step.
const threadWork = 32

// Tags of an assertion's automaton: decided where A's text ends (the
// value goes on past it), or only at the value's end (A ended with $).
const (
	tagNow = 0
	tagEnd = 1
)

// lookTable numbers the assertions (kAhead) of an alternating automaton's
// NFA.
type lookTable struct {
	looks  []*expr
	byExpr map[*expr]int32
}

// index is e's number, given on first sight.
func (t *lookTable) index(e *expr) int32 {
	if i, ok := t.byExpr[e]; ok {
		return i
	}
	t.looks = append(t.looks, e)
	t.byExpr[e] = int32(len(t.looks) - 1)
	return int32(len(t.looks) - 1)
}

// alternate adds the states of a kLook after from: its alternating
// automaton (embedOnce).
func (a *keyNFA) alternate(e *expr, from int32) (int32, bool) {
	return a.embedOnce(e, from, func(b *aheadBudget) (*keyDFA, bool) { return b.alternating(e.items[0]) })
}

// thread is a state of the pattern's NFA (q), with its negative
// obligations (n, an interned set of the assertions' automaton's states)
// and its positive ones (p, an interned set of such sets).
type thread struct{ q, n, p int32 }

// altBuilder holds what alternating builds with.
type altBuilder struct {
	b         *aheadBudget
	main, obl *keyNFA
	starts    [][]int32 // each assertion's first states (closed)
	neg       []bool
	osets     *interner // sets of obl's states
	psets     *interner // sets of osets' ids
	mark      []int     // obl closure's visited stamps
	stamp     int
}

// alternating is the deterministic automaton of e, an expression whose
// assertions (kAhead) are read as obligations; its accepting states have
// sig bit 0. ok is false past the budget or maxKeyStates.
func (b *aheadBudget) alternating(e *expr) (*keyDFA, bool) {
	ab := &altBuilder{b: b, osets: newInterner(), psets: newInterner()}
	ab.main = &keyNFA{ahead: b, looks: &lookTable{byExpr: map[*expr]int32{}}}
	start := ab.main.add()
	end, ok := ab.main.build(e, start)
	if !ok {
		return nil, false
	}
	ab.main.accept(end, 0)
	// The assertions' automata, one NFA for all.
	ab.obl = &keyNFA{ahead: b}
	for _, look := range ab.main.looks.looks {
		s := ab.obl.add()
		parts := [...]struct {
			e   *expr
			tag int
		}{{look.items[1], tagNow}, {look.items[2], tagEnd}}
		if look.items[1] == nil && look.items[2] == nil {
			// Assertions inside: decided at the value's end (prepare).
			parts[0].e = nil
			parts[1].e = look.items[0]
		}
		for _, part := range parts {
			if part.e == nil {
				continue
			}
			end, ok := ab.obl.build(part.e, s)
			if !ok {
				return nil, false
			}
			ab.obl.accept(end, part.tag)
		}
		ab.neg = append(ab.neg, look.neg)
		ab.starts = append(ab.starts, []int32{s})
	}
	if b.spent += 4 * (len(ab.main.states) + len(ab.obl.states)); b.spent > b.budget {
		return nil, false
	}
	ab.mark = make([]int, len(ab.obl.states))
	for i, s := range ab.starts {
		ab.starts[i] = slices.Clone(ab.close(s))
	}
	return ab.determinize(start)
}

// close is the states of obl that set reaches on no character, those
// that matter only (a move or a tag), sorted, in a buffer the next call
// reuses.
func (ab *altBuilder) close(set []int32) []int32 {
	ab.stamp++
	var out, stack []int32
	for _, s := range set {
		if ab.mark[s] != ab.stamp {
			ab.mark[s] = ab.stamp
			stack = append(stack, s)
		}
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		st := &ab.obl.states[s]
		if st.next >= 0 || st.tag >= 0 {
			out = append(out, s)
		}
		ab.b.spent++
		for _, t := range st.eps {
			if ab.mark[t] != ab.stamp {
				ab.mark[t] = ab.stamp
				stack = append(stack, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// has reports whether set holds a state tagged tag.
func (ab *altBuilder) has(set []int32, tag int) bool {
	for _, s := range set {
		if ab.obl.states[s].tag == tag {
			return true
		}
	}
	return false
}

// interner numbers sets of int32 (sorted, without repeats), the empty
// set 0.
type interner struct {
	sets  [][]int32
	index map[string]int32
	key   []byte
}

func newInterner() *interner {
	return &interner{sets: [][]int32{nil}, index: map[string]int32{"": 0}}
}

// id is set's number, given on first sight (set is copied then).
func (in *interner) id(set []int32) int32 {
	in.key = in.key[:0]
	for _, s := range set {
		in.key = append(in.key, byte(s), byte(s>>8), byte(s>>16))
	}
	if i, ok := in.index[string(in.key)]; ok {
		return i
	}
	in.sets = append(in.sets, slices.Clone(set))
	i := int32(len(in.sets) - 1)
	in.index[string(in.key)] = i
	return i
}

// sortedSet is s sorted, without repeats, in place.
func sortedSet(s []int32) []int32 {
	slices.Sort(s)
	return slices.Compact(s)
}

// spawn adds assertion j's obligation to n and p; alive is false where it
// already fails.
func (ab *altBuilder) spawn(n, p int32, j int) (int32, int32, bool) {
	s0 := ab.starts[j]
	ab.b.spent += threadWork + len(s0) + len(ab.osets.sets[n]) + len(ab.psets.sets[p])
	if ab.neg[j] {
		if ab.has(s0, tagNow) {
			return 0, 0, false
		}
		return ab.osets.id(sortedSet(append(slices.Clone(ab.osets.sets[n]), s0...))), p, true
	}
	switch {
	case ab.has(s0, tagNow):
		return n, p, true // met at once
	case len(s0) == 0:
		return 0, 0, false
	}
	ids := append(slices.Clone(ab.psets.sets[p]), ab.osets.id(s0))
	return n, ab.psets.id(sortedSet(ids)), true
}

// move is the states of obl that set moves to on c, closed.
func (ab *altBuilder) move(set []int32, c rune) []int32 {
	var to []int32
	for _, s := range set {
		if st := &ab.obl.states[s]; st.next >= 0 && st.set.has(c) {
			to = append(to, st.next)
		}
	}
	ab.b.spent += 2 * len(set)
	return ab.close(to)
}

// threads appends to out the threads the main NFA's state from reaches
// on no character, with obligations n and p and those of the assertions
// passed on the way.
func (ab *altBuilder) threads(out []thread, from int32, n, p int32) []thread {
	seen := map[thread]bool{}
	stack := []thread{{from, n, p}}
	for len(stack) > 0 && ab.b.spent <= ab.b.budget {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[t] {
			continue
		}
		seen[t] = true
		ab.b.spent += threadWork
		st := &ab.main.states[t.q]
		if st.look > 0 {
			var alive bool
			if t.n, t.p, alive = ab.spawn(t.n, t.p, int(st.look-1)); !alive {
				continue
			}
		}
		if st.next >= 0 || st.tag >= 0 {
			out = append(out, t)
		}
		for _, e := range st.eps {
			stack = append(stack, thread{e, t.n, t.p})
		}
	}
	return out
}

// step appends to out what thread t becomes on c.
func (ab *altBuilder) step(out []thread, t thread, c rune) []thread {
	st := &ab.main.states[t.q]
	if st.next < 0 || !st.set.has(c) {
		return out
	}
	nset := ab.move(ab.osets.sets[t.n], c)
	if ab.has(nset, tagNow) {
		return out
	}
	n := ab.osets.id(nset)
	var ids []int32
	for _, id := range ab.psets.sets[t.p] {
		pset := ab.move(ab.osets.sets[id], c)
		switch {
		case ab.has(pset, tagNow):
			continue // met
		case len(pset) == 0:
			return out // can't be met any more
		}
		ids = append(ids, ab.osets.id(pset))
	}
	return ab.threads(out, st.next, n, ab.psets.id(sortedSet(ids)))
}

// accepts reports whether t accepts where the text ends.
func (ab *altBuilder) accepts(t thread) bool {
	if ab.main.states[t.q].tag != 0 || ab.has(ab.osets.sets[t.n], tagEnd) {
		return false
	}
	for _, id := range ab.psets.sets[t.p] {
		if !ab.has(ab.osets.sets[id], tagEnd) {
			return false
		}
	}
	return true
}

// determinize is the subset construction over sets of threads.
func (ab *altBuilder) determinize(start int32) (*keyDFA, bool) {
	d := &keyDFA{}
	index := map[string]int{}
	var sets [][]thread
	var key []byte
	stateOf := func(ts []thread) (int, bool) {
		slices.SortFunc(ts, func(x, y thread) int {
			switch {
			case x.q != y.q:
				return int(x.q - y.q)
			case x.n != y.n:
				return int(x.n - y.n)
			}
			return int(x.p - y.p)
		})
		ts = slices.Compact(ts)
		key = key[:0]
		for _, t := range ts {
			for _, v := range [...]int32{t.q, t.n, t.p} {
				key = append(key, byte(v), byte(v>>8), byte(v>>16))
			}
		}
		if i, ok := index[string(key)]; ok {
			return i, true
		}
		if len(d.states) >= maxKeyStates {
			return 0, false
		}
		var sig uint64
		for _, t := range ts {
			if ab.accepts(t) {
				sig = 1
				break
			}
		}
		index[string(key)] = len(d.states)
		d.states = append(d.states, dfaState{sig: sig})
		sets = append(sets, slices.Clone(ts))
		ab.b.spent += stateWork
		return len(d.states) - 1, true
	}
	first := ab.threads(nil, start, 0, 0)
	if ab.b.spent > ab.b.budget {
		return nil, false
	}
	if _, ok := stateOf(first); !ok {
		return nil, false
	}
	var bounds []rune
	var next []thread
	for i := 0; i < len(d.states); i++ {
		// The characters split where any set of a thread starts or ends.
		bounds = append(bounds[:0], 0, surrogateLo, surrogateHi+1)
		addSet := func(set charSet) {
			for _, r := range set {
				bounds = append(bounds, r.lo, r.hi+1)
			}
		}
		for _, t := range sets[i] {
			if st := &ab.main.states[t.q]; st.next >= 0 {
				addSet(st.set)
			}
			for _, s := range ab.osets.sets[t.n] {
				addSet(ab.obl.states[s].set)
			}
			for _, id := range ab.psets.sets[t.p] {
				for _, s := range ab.osets.sets[id] {
					addSet(ab.obl.states[s].set)
				}
			}
		}
		slices.Sort(bounds)
		bounds = slices.Compact(bounds)
		var moves []dfaMove
		for k, lo := range bounds {
			if lo > unicode.MaxRune || lo >= surrogateLo && lo <= surrogateHi {
				continue
			}
			hi := rune(unicode.MaxRune)
			if k+1 < len(bounds) {
				hi = bounds[k+1] - 1
			}
			next = next[:0]
			for _, t := range sets[i] {
				next = ab.step(next, t, lo)
			}
			if ab.b.spent > ab.b.budget {
				return nil, false
			}
			to, ok := stateOf(next)
			if !ok {
				return nil, false
			}
			m := slices.IndexFunc(moves, func(m dfaMove) bool { return m.to == to })
			if m < 0 {
				m = len(moves)
				moves = append(moves, dfaMove{to: to})
			}
			moves[m].set = appendInterval(moves[m].set, lo, min(hi, unicode.MaxRune))
		}
		d.states[i].moves = moves
		ab.b.spent += moveWork * len(moves)
	}
	return d, true
}
