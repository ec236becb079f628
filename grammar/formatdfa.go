package grammar

import "sync"

// A format's automaton, made once per process (gap decision 228). Under
// strict a format beside a pattern or another format is read by the
// string automaton (groupAutomaton), which used to build the format's
// nondeterministic automaton from its expression every time and
// determinize it with the rest: a uri is 1,649 NFA states that the subset
// construction makes 581 states, about 140,000 units of work, before the
// pattern beside it counts at all, though its minimal automaton has 180
// states. Now the first compile that needs a format's automaton builds it,
// minimized, within limits of its own (the same for every compile, so that
// whether a schema compiles never depends on what was compiled before),
// and the string automaton starts from it (keyNFA.embed): the subset
// construction then pairs its states with the rest's, and the compile's
// budget counts that work alone.

// Limits on building a format's automaton, once per process: the work of
// the subset construction and of minimizing (about 20 ns a unit here),
// and the states of the subset construction, before minimizing (a
// uri-reference's pass 1,024, maxKeyStates, and come to 183). The largest,
// email's, takes about 760,000 units. A format past them is built from its
// expression as before.
const (
	maxFormatDeterminize = 1 << 20
	maxFormatMinimize    = 1 << 20
	maxFormatStates      = 4096
)

// formatDFAs holds the minimal automata of the formats' value expressions
// (formatExpr), by expression, each made once.
var formatDFAs struct {
	sync.Mutex
	byExpr map[*expr]*formatAutomatonEntry
}

type formatAutomatonEntry struct {
	once sync.Once
	dfa  *formatDFA // nil: past the limits
}

// formatDFA is a format's minimal automaton, its accepting states with sig
// bit 0, and which of its states can still reach one (found once, as the
// automaton is made, rather than at each embed).
type formatDFA struct {
	*keyDFA
	live []bool
}

// formatAutomaton returns the minimal automaton of e when e is the value
// expression of a format (formatExpr's) and the automaton is within the
// limits above; nil otherwise (the caller then builds e as before).
func formatAutomaton(e *expr) *formatDFA {
	if !isFormatValue(e) {
		return nil
	}
	formatDFAs.Lock()
	entry := formatDFAs.byExpr[e]
	if entry == nil {
		if formatDFAs.byExpr == nil {
			formatDFAs.byExpr = map[*expr]*formatAutomatonEntry{}
		}
		entry = &formatAutomatonEntry{}
		formatDFAs.byExpr[e] = entry
	}
	formatDFAs.Unlock()
	entry.once.Do(func() { entry.dfa = minimalAutomaton(e) })
	return entry.dfa
}

// minimalAutomaton is the minimal automaton of e, its accepting states
// with sig bit 0: nil past the limits of a format's automaton.
func minimalAutomaton(e *expr) *formatDFA {
	a := &keyNFA{}
	start := a.add()
	end, ok := a.build(e, start)
	if !ok {
		return nil
	}
	a.accept(end, 0)
	dfa, _, ok := a.determinize(start, maxFormatDeterminize, maxFormatStates, nil)
	if !ok {
		return nil
	}
	m, _ := dfa.minimize(maxFormatMinimize)
	if m == dfa {
		return nil // (minimize returns dfa itself when it runs out of work)
	}
	return &formatDFA{m, accepting(m)}
}

// accepting reports, for each state of d, whether a state with sig bit 0
// can be reached from it.
func accepting(d *keyDFA) []bool {
	into := make([][]int, len(d.states))
	for i, st := range d.states {
		for _, m := range st.moves {
			into[m.to] = append(into[m.to], i)
		}
	}
	live := make([]bool, len(d.states))
	var stack []int
	for i, st := range d.states {
		if st.sig&1 != 0 {
			live[i] = true
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, j := range into[i] {
			if !live[j] {
				live[j] = true
				stack = append(stack, j)
			}
		}
	}
	return live
}

// embed adds the states of format automaton d after from, as an NFA (a
// state for each of d's states from which a text can still be accepted,
// and one for each of their moves), and returns the state its accepted
// texts lead to; ok is false past maxKeyNFA.
func (a *keyNFA) embed(d *formatDFA, from int32) (int32, bool) {
	end := a.add()
	if !d.live[0] {
		return end, true // no text: end is reached from nowhere
	}
	q := make([]int32, len(d.states))
	for i := range d.states {
		if d.live[i] {
			if len(a.states) > maxKeyNFA {
				return 0, false
			}
			q[i] = a.add()
		}
	}
	a.link(from, q[0])
	for i, st := range d.states {
		if !d.live[i] {
			continue
		}
		if st.sig&1 != 0 {
			a.link(q[i], end)
		}
		for _, m := range st.moves {
			if !d.live[m.to] {
				continue
			}
			if len(a.states) > maxKeyNFA {
				return 0, false
			}
			s := a.add()
			a.states[s].set, a.states[s].next = m.set, q[m.to]
			a.link(q[i], s)
		}
	}
	return end, true
}
