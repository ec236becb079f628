package grammar

import (
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A textLang is free text that holds none of a set of forbidden strings
// (the markers; in an argument value also </rfl:parameter>), over the
// characters a textContext allows. It is written as the states of the
// automaton that follows how much of a forbidden string the text ends
// with: each state is a rule, and a character moves to the next state, or
// is not allowed where it would complete a forbidden string. Its rules
// depend only on the forbidden strings and the textContext, so they are built
// once (a proto) and shared by every grammar.
type textLang struct {
	forbidden []string
	// excluded characters never appear (JSON strings: the quote, the
	// backslash and control characters), and escape, when set, is an
	// expression that stands for one character and resets the automaton
	// (a JSON escape).
	excluded *expr
	escape   *expr

	p *proto // its rules, once built
}

// state is a reference to the rule of text from state i on.
func (t *textLang) state(i int) *expr { return t.p.ref(i) }

// first is a reference to the rule of non-empty text from the start.
func (t *textLang) first() *expr { return t.p.ref(t.p.first) }

// automaton is the automaton of a set of forbidden strings: its states
// (the prefixes read so far), the characters of the strings, and the next
// state for each state and character (-1: the character would complete a
// forbidden string).
type automaton struct {
	states  []string
	special []rune
	next    [][]int
}

// newAutomaton returns the smallest automaton of forbidden.
func newAutomaton(forbidden []string) *automaton { return prefixAutomaton(forbidden).minimal() }

// prefixAutomaton returns the automaton whose states are the prefixes of
// the forbidden strings, the empty one first, each string's by length.
func prefixAutomaton(forbidden []string) *automaton {
	a := &automaton{states: []string{""}}
	for _, f := range forbidden {
		for i := 1; i < len(f); i++ {
			if !slices.Contains(a.states, f[:i]) {
				a.states = append(a.states, f[:i])
			}
		}
		for _, c := range f {
			if !slices.Contains(a.special, c) {
				a.special = append(a.special, c)
			}
		}
	}
	slices.Sort(a.special)
	a.next = make([][]int, len(a.states))
	for s := range a.states {
		a.next[s] = make([]int, len(a.special))
		for j, c := range a.special {
			a.next[s][j] = a.step(forbidden, s, c)
		}
	}
	return a
}

// minimal returns the automaton with its equivalent states merged: two
// states are equivalent when every character takes them to equivalent
// states (or completes a forbidden string from both); every state
// accepts, and a character that is not special returns each to the
// start. The prefixes of the markers end alike: after <|start, <|end or
// <|call only | goes on, and after <|start| only > would complete a
// marker, so the reasoning's 49 prefixes are 35 states (gap decision 260).
// Engines pay per state: xgrammar matches the whole vocabulary from each
// (vLLM and SGLang compile a grammar's token masks before its first
// token), and llama.cpp reads each rule. A merged state keeps the first
// prefix of its class; state 0 stays the start.
func (a *automaton) minimal() *automaton {
	// The classes of the states by where each special character leads
	// (refine; tens of states, once per language).
	class, _, _ := refine(make([]int, len(a.states)), 1, func(s int, class []int, buf []byte) []byte {
		for _, n := range a.next[s] {
			to := -1
			if n >= 0 {
				to = class[n]
			}
			buf = appendInt(buf, to)
		}
		return buf
	}, nil)
	// refine numbers the classes by their first state, so the start
	// stays 0 and the first state of each class (its first prefix)
	// stands for it.
	m := &automaton{special: a.special}
	for s := range a.states {
		if class[s] < len(m.states) {
			continue // not the first of its class
		}
		m.states = append(m.states, a.states[s])
		moves := make([]int, len(a.special))
		for j, n := range a.next[s] {
			moves[j] = -1
			if n >= 0 {
				moves[j] = class[n]
			}
		}
		m.next = append(m.next, moves)
	}
	return m
}

// step returns the state after reading c in state s, or -1 when c
// completes a forbidden string.
func (a *automaton) step(forbidden []string, s int, c rune) int {
	next := a.states[s] + string(c)
	for _, f := range forbidden {
		if strings.HasSuffix(next, f) {
			return -1
		}
	}
	// The longest suffix of next that is a state.
	for i := 0; i < len(next); i++ {
		if j := slices.Index(a.states, next[i:]); j >= 0 {
			return j
		}
	}
	return 0
}

var protos sync.Map // name -> *proto

// build adds the rules of the language to g, named name-N; the same name
// must always stand for the same language.
func (t *textLang) build(g *builder, name string) {
	t.share(name)
	g.instantiate(t.p)
}

// share sets the language's rules, named name-N, built once per process.
func (t *textLang) share(name string) {
	p, ok := protos.Load(name)
	if !ok {
		p, _ = protos.LoadOrStore(name, t.proto(name))
	}
	t.p = p.(*proto)
}

// proto builds the language's rules: one per state, then the non-empty
// text from the start; and, as its xg, the same language in the form
// EBNF writes for xgrammar (rules with shareHome).
func (t *textLang) proto(name string) *proto {
	a := newAutomaton(t.forbidden)
	p := t.rules(a, name, false)
	p.xg = t.rules(a, name, true)
	return p
}

// rules writes the language's automaton a as rules named name-N, one per
// state, then name-1st (the non-empty text from the start), then the
// escape's rule. With shareHome, the form for xgrammar: a state more than
// one character from the start returns to it through one rule all such
// states share, name-home (the characters that lead nowhere else, then
// the text from the start), and a class of the forbidden strings'
// characters that lead back from it; the language is the same.
//
// xgrammar (vLLM, SGLang) matches the whole vocabulary from each place a
// rule can be at, before a grammar's first token. Written in each state, a
// move back to the start (a class of nearly every character, then the
// text) is such a place, and it was most of the compile: about 40 to 80
// ms a state for 200,005 tokens, over a second for a grammar that holds
// the reasoning only, 5 to 6 s for the realistic request's tools. Shared,
// it is matched once per language (the compile 5 to 6 times less). Its
// masks while generating cost about what they cost: the start and the
// states next to it (after "<": where a text that holds "<" mostly is)
// keep their moves written in, as a shared move there cost xgrammar half
// again as much a token in a text of many "<" (gap decision 264).
// llama.cpp, which computes nothing ahead but sampled each token 1.6
// times slower with shared moves (gap decision 260), keeps the form
// written in every state.
func (t *textLang) rules(a *automaton, name string, shareHome bool) *proto {
	p := &proto{base: name}
	state := func(i int) *expr { return &expr{kind: kRef, rule: i, proto: p} }
	// (the proto's refs are made once its rules are known, below)
	// The escape is a rule of its own, after the states and the first
	// character, which every state refers to (written once, not once a
	// state); with shareHome the home rule follows it.
	escape := state(len(a.states) + 1)
	home := state(len(a.states) + 1)
	if t.escape != nil {
		home = state(len(a.states) + 2)
	}
	allowed := func(c rune) bool { return t.excluded == nil || !t.excluded.has(c) }
	// near are the start and the states one character from it.
	near := map[int]bool{0: true}
	for _, n := range a.next[0] {
		if n > 0 {
			near[n] = true
		}
	}
	// moves returns a state's moves: those back to the start (a negated
	// class of every character but those that lead elsewhere or nowhere
	// and the excluded ones, then the text from the start; with shareHome
	// away from the start, the shared home rule and a class of the
	// special characters that lead back; the escape, then the start), and
	// those to other states. The start's moves back are its loop, left to
	// the caller: moves(0) returns the loop's class first, alone.
	moves := func(s int) (back, away []*expr) {
		var not []runeRange
		var special []rune // the special characters that lead back
		byTarget := map[int][]rune{}
		var targets []int
		for j, c := range a.special {
			n := a.next[s][j]
			if n == 0 {
				if allowed(c) {
					special = append(special, c)
				}
				continue
			}
			not = append(not, runeRange{c, c})
			if n < 0 || !allowed(c) {
				continue
			}
			if _, ok := byTarget[n]; !ok {
				targets = append(targets, n)
			}
			byTarget[n] = append(byTarget[n], c)
		}
		if t.excluded != nil {
			not = append(not, t.excluded.rs...)
		}
		switch {
		case s == 0:
			back = []*expr{class(true, not...)}
		case shareHome && !near[s]:
			back = []*expr{home}
			if len(special) > 0 {
				back = append(back, seq(chars(false, string(special)), state(0)))
			}
		default:
			back = []*expr{seq(class(true, not...), state(0))}
		}
		if t.escape != nil {
			back = append(back, seq(escape, state(0)))
		}
		for _, n := range targets {
			away = append(away, seq(chars(false, string(byTarget[n])), state(n)))
		}
		return back, away
	}
	// The start is written as a loop: the characters that stay there
	// repeated, then at most one move away, the escape (back to the
	// start) among them (name-0 ::= [^<]* ("<" name-1)?). The language is
	// that of the other states' form (name-0 ::= ([^<] name-0 | "<"
	// name-1)?), which xgrammar (vLLM, SGLang) reads as one more level of
	// recursion a character: the mask of each token took it 1 ms in the
	// reasoning and 30 to 40 ms in a JSON string, against 16 us and 0.3 ms
	// for the loop, which it reads in place. A repetition of the class and
	// the escape together cost it more than the recursion. llama.cpp
	// samples as fast with either (gap decision 261).
	back, away := moves(0)
	p.names = append(p.names, name+"-0")
	p.bodies = append(p.bodies, seq(star(back[0]), opt(alt(append(back[1:], away...)...))))
	for i := 1; i < len(a.states); i++ {
		back, away := moves(i)
		p.names = append(p.names, name+"-"+strconv.Itoa(i))
		p.bodies = append(p.bodies, alt(empty(), alt(append(back, away...)...)))
	}
	// The first character: a move from the start, then the text.
	back, away = moves(0)
	p.first = len(p.names)
	p.names = append(p.names, name+"-1st")
	p.bodies = append(p.bodies, alt(append([]*expr{seq(back[0], state(0))}, append(back[1:], away...)...)...))
	if t.escape != nil {
		p.names = append(p.names, name+"-esc")
		p.bodies = append(p.bodies, t.escape)
	}
	if shareHome {
		var not []runeRange
		for _, c := range a.special {
			not = append(not, runeRange{c, c})
		}
		if t.excluded != nil {
			not = append(not, t.excluded.rs...)
		}
		p.names = append(p.names, name+"-home")
		p.bodies = append(p.bodies, seq(class(true, not...), state(0)))
	}
	p.refs = make([]expr, len(p.names))
	for i := range p.refs {
		p.refs[i] = expr{kind: kRef, rule: i, proto: p}
	}
	return p
}
