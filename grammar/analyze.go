package grammar

import (
	"slices"
	"strings"
	"sync"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// The analysis of a finished grammar, before it is sent: a grammar an
// engine would refuse, or that would cost it much at every step, is an
// error naming the schema at fault. Each pass is linear, or near it, in
// the grammar's size.
//
//   - Every tool's arguments and the response format's value must match
//     some text: a schema nothing satisfies (false, {"anyOf": []}, a
//     required property whose schema is false, a recursion that never
//     ends) is refused instead of sent as a grammar no generation can
//     complete.
//   - No rule may reach itself before writing anything (left recursion,
//     from a $ref cycle that consumes nothing): engines refuse such
//     grammars, after a round trip.
//   - The walk an engine makes at each step, from a rule down every
//     leftmost alternative to the characters that may come next, must stay
//     linear in the grammar's size: rules whose alternatives share rules
//     below them can multiply the paths at each level (2^30 for 30 levels
//     of two), which stalls llama.cpp's main loop.
//
// The shared rule sets (protos: the reasoning's and the strings' text
// languages, any JSON value, number, multipleOf's remainders) are not
// among a grammar's own rules: each is built, written and analysed once
// per process, when first used, and a grammar refers to them, reuses
// their facts and copies their text. A compile analyses only the rules it
// adds.

// maxLeftmostWalk caps what llama.cpp's check of a grammar for left
// recursion costs (engineWalk), in grammar elements scanned (a rule
// entered costs its elements and visitCost): nested alternatives that
// share rules multiply the rules entered, and a rule entered often costs
// its size each time (1.5 million: about 2 ms of CPU on the machine of
// BENCHMARKS.md; the most any of MaskBench's 11,305 real-world schemas
// takes is 1.29 million, the 99th percentile 0.28). llama.cpp walks the
// leftmost rules again at each step of a generation, from where the
// text is, so the cap bounds that walk too.
const maxLeftmostWalk = 1500000

// facts are what the analysis knows of a set of rules.
type facts struct {
	nullable, productive []bool
	visits               []int // the leftmost walk from each rule (its cost in elements), saturated
	total                int   // a proto's: the walks from all its rules
	cycle                []int // a left recursion's rules, when one was found
}

// ruleSet is the rules an analysis runs over: their bodies, which a
// reference names by index when it names self (a proto, or nil for a
// grammar's own rules). A reference to another proto's rule is to a rule
// whose facts are known already (the proto's), which is not walked.
type ruleSet struct {
	bodies []*expr
	self   *proto
	// scratch, when set, lends the analysis its memory (a grammar's,
	// whose facts are not kept); nil: allocated (a proto's, kept).
	scratch *scratch
	// costs, when set, are the bodies' scanCost, computed already.
	costs []int
}

// enter is what the walk costs to enter rule r (ruleVisit).
func (set *ruleSet) enter(r int) int {
	if set.costs != nil {
		return visitCost + set.costs[r] + 1
	}
	return ruleVisit(set.bodies[r])
}

// scratch is memory the analysis of one grammar borrows and gives back
// (scratchPool), so that the next grammar's analysis allocates nothing it
// needs no longer than the compile.
type scratch struct {
	idx, refs, users []int32
	order, ints      []int
	queue, ids       []int
	lines, costs     []int
	repeated, groups []bool
	bools, reachable []bool
	seen             []bool
	state            []uint8
	bodies           []*expr
	stack            []graphFrame
	spans            []span // builder.spans
	buf              []byte // builder.buf
	// the compiler's (borrow): nil until first used, and again when one
	// grew too large to keep
	names, next map[string]int
	memo        map[string]*expr
	doc         *pyjson.Doc
	paths       []string
	keysAt      []*nodeKeys
	c           compiler           // the compiler itself
	nameFn      func(*expr) string // c.g.nameOf
	tops        []top
	graph       graph
	facts       facts
	protos      []*proto
	keyBlock    []nodeKeys
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// release gives s back, keeping no expression alive.
func (s *scratch) release() {
	clear(s.bodies)
	scratchPool.Put(s)
}

// zeroed returns buf with length n, all zero: buf's memory when it holds
// n, else new memory.
func zeroed[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n, n+n/4)
	}
	*buf = (*buf)[:n]
	clear(*buf)
	return *buf
}

// graphFrame is refGraph's walk: a rule and the next of its references.
type graphFrame struct{ r, next int }

// graph is the reference graph of the rules reachable from some roots:
// the rules in post-order, the rules each refers to and the rules that
// refer to each (both as ranges of one list per direction).
type graph struct {
	order              []int
	refStart, refEnd   []int32 // refs[refStart[r]:refEnd[r]]: the rules r refers to
	refs               []int32
	repeated           []bool  // repeated[i]: refs[i] is inside a repetition
	groups             []bool  // groups[r]: r's body holds a group or a repetition (groupStarts)
	userStart, userEnd []int32 // users[userStart[r]:userEnd[r]]: the rules that refer to r
	users              []int32
	protos             []*proto // the other protos referred to
}

// usersOf returns the rules that refer to r.
func (g *graph) usersOf(r int) []int32 { return g.users[g.userStart[r]:g.userEnd[r]] }

// refsOf returns the rules r refers to (none for a rule not reached).
func (g *graph) refsOf(r int) []int32 { return g.refs[g.refStart[r]:g.refEnd[r]] }

// analyzeRules computes the facts of the rules of set reachable from
// roots (order: in post-order, as refGraph gives them).
func analyzeRules(set *ruleSet, gr *graph) *facts {
	order := gr.order
	n := len(set.bodies)
	sc := set.scratch
	if sc == nil {
		sc = new(scratch)
	}
	bools := zeroed(&sc.bools, 3*n)
	// (Two branches, not a default overwritten: a composite literal
	// taken by address before the test would be allocated on every call.)
	var f *facts
	if set.scratch != nil {
		f = &sc.facts
	} else {
		f = &facts{}
	}
	*f = facts{nullable: bools[:n:n], productive: bools[n : 2*n : 2*n], visits: zeroed(&sc.ints, n)}
	queued := bools[2*n:]
	queue := zeroed(&sc.queue, len(order))[:0]
	// Both properties are least fixpoints over the rules: evaluate the
	// rules below first (post-order), then again each rule that uses one
	// that turned true.
	//
	// The queue is a ring: a rule is in it at most once at a time, and
	// only the rules of order are.
	fixpoint := func(val []bool, eval func(e *expr, val []bool) bool) {
		queue = append(queue[:0], order...)
		for _, r := range queue {
			queued[r] = true
		}
		for head, count := 0, len(queue); count > 0; {
			r := queue[head]
			head, count = (head+1)%len(queue), count-1
			queued[r] = false
			if val[r] || !eval(set.bodies[r], val) {
				continue
			}
			val[r] = true
			for _, u := range gr.usersOf(r) {
				if !val[u] && !queued[u] {
					queued[u] = true
					queue[(head+count)%len(queue)] = int(u)
					count++
				}
			}
		}
	}
	fixpoint(f.nullable, set.nullableExpr)
	fixpoint(f.productive, set.productiveExpr)

	// The leftmost walk: visits[r] is what an engine's walk costs going
	// down from r through every leftmost reference, without memory, as
	// llama.cpp's check for left recursion does (engineWalk): the elements
	// of each rule entered and visitCost; it saturates past the bound. A
	// rule met again on the way down is left recursion.
	const (
		unvisited = iota
		walking
		done
	)
	state := zeroed(&sc.state, n)
	var walkRule func(r int) int
	var walkExpr func(e *expr) int
	walkExpr = func(e *expr) int {
		if e.lib != nil {
			return e.lib.walk
		}
		switch e.kind {
		case kRef:
			if e.proto != set.self {
				return e.proto.facts().visits[e.rule]
			}
			return walkRule(e.rule)
		case kSeq:
			v := 0
			for _, it := range e.items {
				v = min(v+groupVisit(it)+walkExpr(it), maxLeftmostWalk+1)
				if f.cycle != nil || !set.nullableExpr(it, f.nullable) {
					break
				}
			}
			return v
		case kAlt:
			v := 0
			for _, it := range e.items {
				v = min(v+groupVisit(it)+walkExpr(it), maxLeftmostWalk+1)
				if f.cycle != nil {
					break
				}
			}
			return v
		case kRep:
			// A repetition is a rule of its own in the engine.
			return min(repVisit(e)+walkExpr(e.items[0]), maxLeftmostWalk+1)
		}
		return 0
	}
	walkRule = func(r int) int {
		switch state[r] {
		case done:
			return f.visits[r]
		case walking:
			f.cycle = []int{r}
			return 0
		}
		state[r] = walking
		v := min(set.enter(r)+walkExpr(set.bodies[r]), maxLeftmostWalk+1)
		if f.cycle != nil {
			if len(f.cycle) == 1 || f.cycle[0] != f.cycle[len(f.cycle)-1] {
				f.cycle = append(f.cycle, r)
			}
			return 0
		}
		state[r] = done
		f.visits[r] = v
		return v
	}
	for _, r := range order {
		if walkRule(r); f.cycle != nil {
			return f
		}
	}
	return f
}

// walkPath is the schema path that names rule r in the leftmost walk's
// error: r's own, or else the nearest rule that refers to it with one (a
// chunked length's rule is shared by the strings of that length: the
// first met names them), or "tools".
func (c *compiler) walkPath(gr *graph, r int) string {
	if r < 0 {
		return "tools"
	}
	seen := map[int]bool{r: true}
	for queue := []int{r}; len(queue) > 0; queue = queue[1:] {
		x := queue[0]
		if p := c.pathOf(x); p != "" {
			return p
		}
		for _, u := range gr.usersOf(x) {
			if !seen[int(u)] {
				seen[int(u)] = true
				queue = append(queue, int(u))
			}
		}
	}
	return "tools"
}

// How llama.cpp checks a grammar for left recursion, and what it costs
// (engineWalk). The rules are numbered in the order their names first
// appear in the text; the rules llama.cpp makes of a group in parentheses
// and of a repetition (S{m,n}: n-m rules S' ::= S S' | "", S* and S?: one)
// are numbered where they appear. In that order, from each rule no walk
// has entered yet (a start), it walks down every leftmost reference
// without memory, marking each rule it enters; a reference after a rule
// that may be empty is leftmost too. A start's walk is visits (the rules
// below shared ones are walked again each time), and the check costs the
// sum over the starts.
//
// So the order of the rules in the text decides the cost: an object of n
// optional properties is a chain of n rules, each referring to the next
// first (m-1 ::= ", \"a\": " a m-2 | m-2). Written from its end, each rule
// was a start and the check cost n^2/2 rules (892 optional booleans: 6
// million elements scanned, 8 to 14 ms); written from its head (the order
// of first mention, writeOrder), the head's walk enters the whole chain
// and the check costs n.

// engineWalk is what llama.cpp's check for left recursion costs, in
// elements (ruleVisit for each rule entered), for the grammar's own rules
// written in the order ids (the order of their first mention, root first)
// and the rules it makes of their groups and repetitions. It errs on the
// side of more: a start's walk is f.visits, which goes on past every rule
// that may match the empty text (llama.cpp: only past a rule with an empty
// alternative of its own), while a walk marks only the rules it surely
// enters (firstRefs).
// starts is the rule whose groups' and repetitions' starts cost most,
// and what they cost.
func engineWalk(set *ruleSet, gr *graph, f *facts, ids []int, sc *scratch) (total, starts, most int) {
	marked := zeroed(&sc.state, len(set.bodies))
	stack := sc.queue[:0]
	starts = -1
	for _, r := range ids {
		own := 0
		if gr.groups[r] {
			if own = set.groupStarts(set.bodies[r], f, true); own > most {
				starts, most = r, own
			}
		}
		if marked[r] == 0 {
			own = min(own+f.visits[r], maxLeftmostWalk+1)
		}
		total = min(total+own, maxLeftmostWalk+1)
		if marked[r] != 0 {
			continue
		}
		marked[r] = 1
		stack = append(stack[:0], r)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			set.firstRefs(set.bodies[x], func(t int) {
				if marked[t] == 0 {
					marked[t] = 1
					stack = append(stack, t)
				}
			})
		}
	}
	sc.queue = stack
	return total, starts, most
}

// firstRefs calls fn with each of the set's own rules that llama.cpp
// enters when it walks into e from its start: the first reference of each
// alternative, and one after a repetition that may be absent (its rule
// has an empty alternative). Past a reference it does not go on (the
// rule may have no empty alternative of its own, though it may match the
// empty text), so that it never names a rule llama.cpp does not enter.
func (set *ruleSet) firstRefs(e *expr, fn func(int)) {
	if e.lib != nil {
		return // no reference
	}
	switch e.kind {
	case kRef:
		if e.proto == set.self {
			fn(e.rule)
		}
	case kSeq:
		for _, it := range e.items {
			set.firstRefs(it, fn)
			if !(it.kind == kRep && it.min == 0) && !(it.kind == kLit && it.text == "") {
				return
			}
		}
	case kAlt:
		for _, it := range e.items {
			set.firstRefs(it, fn)
		}
	case kRep:
		set.firstRefs(e.items[0], fn)
	}
}

// visitCost is what llama.cpp's walk costs for each rule it enters,
// beside the rule's elements (each scanned twice), in elements: measured,
// about two.
const visitCost = 2

// ruleVisit is what the walk costs to enter a rule whose body is e: at
// most visitCost and its elements (scanCost, which counts its groups'
// elements too, and its end).
func ruleVisit(e *expr) int { return visitCost + scanCost(e) + 1 }

// groupVisit is what the walk costs to enter e, an item of a sequence or
// an alternation, when e is written in parentheses (an alternation): a
// rule of its own in llama.cpp.
func groupVisit(e *expr) int {
	if e.kind == kAlt {
		return ruleVisit(e)
	}
	return 0
}

// repVisit is what the walk costs to enter repetition e: its rule S'
// (S S' | ""), and the rule of S when S is written in parentheses.
func repVisit(e *expr) int {
	inner := e.items[0]
	if grouped(inner) {
		return visitCost + 4 + ruleVisit(inner)
	}
	return visitCost + 3 + scanCost(inner)
}

// walkOf is the walk from e, the rules of the set walked already (f); an
// expression without rule references needs no facts (a frozen one's walk,
// libFacts.walk).
func (set *ruleSet) walkOf(e *expr, f *facts) int {
	if e.lib != nil {
		return e.lib.walk
	}
	v := 0
	switch e.kind {
	case kRef:
		if e.proto != set.self {
			return e.proto.facts().visits[e.rule]
		}
		return f.visits[e.rule]
	case kSeq:
		for _, it := range e.items {
			v = min(v+groupVisit(it)+set.walkOf(it, f), maxLeftmostWalk+1)
			if !set.nullableExpr(it, f.nullable) {
				break
			}
		}
	case kAlt:
		for _, it := range e.items {
			v = min(v+groupVisit(it)+set.walkOf(it, f), maxLeftmostWalk+1)
		}
	case kRep:
		v = min(repVisit(e)+set.walkOf(e.items[0], f), maxLeftmostWalk+1)
	}
	return v
}

// groupStarts is the walk llama.cpp makes from the rules it makes of e's
// groups and repetitions that are starts (engineWalk): a group that is
// not first in its sequence (leftmost: e is where its rule's walk
// enters), and every rule S' of a repetition but the first one, whose
// S' rules refer to each other after S. It counts as starts more than
// llama.cpp may: every group after the first item of a sequence.
func (set *ruleSet) groupStarts(e *expr, f *facts, leftmost bool) int {
	if e.lib != nil {
		if leftmost {
			return e.lib.starts[1]
		}
		return e.lib.starts[0]
	}
	v := 0
	switch e.kind {
	case kSeq:
		for i, it := range e.items {
			first := leftmost && i == 0
			if it.kind == kAlt && !first {
				// A group of its own: a start, entered by nothing.
				v = min(v+groupVisit(it)+set.walkOf(it, f), maxLeftmostWalk+1)
				first = true
			}
			v = min(v+set.groupStarts(it, f, first), maxLeftmostWalk+1)
		}
	case kAlt:
		for _, it := range e.items {
			v = min(v+set.groupStarts(it, f, leftmost), maxLeftmostWalk+1)
		}
	case kRep:
		inner := e.items[0]
		starts := e.max - e.min
		if e.max < 0 {
			starts = 1
		}
		if leftmost && starts > 0 {
			starts-- // the one the walk enters
		}
		group := !leftmost && grouped(inner)
		if starts > 0 || group {
			walk := set.walkOf(inner, f)
			if starts > 0 {
				one := repVisit(e) + walk // S', the group's rule, S
				v = min(starts, maxLeftmostWalk+1) * one
			}
			if group {
				// The group's rule is numbered before the S' rules, and
				// nothing entered it before them: a start of its own.
				v = min(v+ruleVisit(inner)+walk, maxLeftmostWalk+1)
			}
		}
		v = min(v+set.groupStarts(inner, f, true), maxLeftmostWalk+1)
	}
	return v
}

// writeOrder returns the order the rules of gr reachable from root are
// written in (lines, root first) and the order llama.cpp numbers them in,
// the order their names first appear (ids). After root, each rule comes
// where its name first appears: root, the rules root refers to in the
// order it does, the rules those refer to, and so on, so that a rule comes
// before the rules its leftmost walk enters (engineWalk). A rule that a
// repetition refers to comes before the rule with the repetition, all
// the same: llama.cpp counts the rules first named inside a group that a
// repetition applies to, times the repetition's count, and refuses the
// grammar at 2,000.
func writeOrder(set *ruleSet, gr *graph, root int, sc *scratch) (lines, ids []int) {
	n := len(set.bodies)
	state := zeroed(&sc.seen, 2*n)
	mentioned, written := state[:n], state[n:]
	lines, ids = sc.lines[:0], sc.ids[:0]
	mention := func(t int) {
		if !mentioned[t] {
			mentioned[t] = true
			ids = append(ids, t)
		}
	}
	var write func(r int)
	write = func(r int) {
		if written[r] {
			return
		}
		written[r] = true
		if r != root {
			for i := gr.refStart[r]; i < gr.refEnd[r]; i++ {
				if t := int(gr.refs[i]); gr.repeated[i] && !mentioned[t] {
					write(t)
				}
			}
		}
		mention(r)
		for _, t := range gr.refsOf(r) {
			mention(int(t))
		}
		lines = append(lines, r)
	}
	write(root)
	for i := 0; i < len(ids); i++ {
		write(ids[i])
	}
	sc.lines, sc.ids = lines, ids
	return lines, ids
}

func (set *ruleSet) nullableExpr(e *expr, val []bool) bool {
	if e.lib != nil {
		return e.lib.nullable
	}
	switch e.kind {
	case kLit:
		return e.text == ""
	case kRef:
		if e.proto != set.self {
			return e.proto.facts().nullable[e.rule]
		}
		return val[e.rule]
	case kSeq:
		for _, it := range e.items {
			if !set.nullableExpr(it, val) {
				return false
			}
		}
		return true
	case kAlt:
		for _, it := range e.items {
			if set.nullableExpr(it, val) {
				return true
			}
		}
		return false
	case kRep:
		return e.min == 0 || set.nullableExpr(e.items[0], val)
	}
	return false
}

func (set *ruleSet) productiveExpr(e *expr, val []bool) bool {
	if e.lib != nil {
		return e.lib.productive
	}
	switch e.kind {
	case kLit:
		return true
	case kClass:
		return !isNothing(e)
	case kRef:
		if e.proto != set.self {
			return e.proto.facts().productive[e.rule]
		}
		return val[e.rule]
	case kSeq:
		for _, it := range e.items {
			if !set.productiveExpr(it, val) {
				return false
			}
		}
		return true
	case kAlt:
		for _, it := range e.items {
			if set.productiveExpr(it, val) {
				return true
			}
		}
		return false
	case kRep:
		return e.min == 0 || set.productiveExpr(e.items[0], val)
	}
	return false
}

// refGraph returns the graph of the rules of set reachable from roots, in
// post-order (a rule after the rules it refers to, but where a cycle
// closes), and the other protos they refer to.
func refGraph(set *ruleSet, roots ...int) *graph {
	n := len(set.bodies)
	sc := set.scratch
	if sc == nil {
		sc = new(scratch)
	}
	idx := zeroed(&sc.idx, 5*n)
	var g *graph
	if set.scratch != nil {
		g = &sc.graph
	} else {
		g = &graph{}
	}
	*g = graph{refStart: idx[:n:n], refEnd: idx[n : 2*n : 2*n], userStart: idx[2*n : 3*n : 3*n], userEnd: idx[3*n : 4*n : 4*n]}
	state := idx[4*n:] // 0: not seen, 1: seen
	g.refs = zeroed(&sc.refs, 2*n)[:0]
	g.repeated = zeroed(&sc.repeated, 2*n)[:0]
	g.groups = zeroed(&sc.groups, n)
	g.protos = sc.protos[:0]
	g.order = zeroed(&sc.order, n)[:0]
	gen := false // the body holds a group or a repetition
	var walk func(e *expr, in bool)
	walk = func(e *expr, in bool) {
		if e.lib != nil {
			gen = gen || e.kind != kLit && e.kind != kClass
			return // no reference
		}
		switch e.kind {
		case kRef:
			if e.proto != set.self {
				if !slices.Contains(g.protos, e.proto) {
					g.protos = append(g.protos, e.proto)
				}
				return
			}
			g.refs = append(g.refs, int32(e.rule))
			g.repeated = append(g.repeated, in)
		case kRep:
			in, gen = true, true
		}
		for _, it := range e.items {
			gen = gen || it.kind == kAlt
			walk(it, in)
		}
	}
	refsOf := func(r int) {
		g.refStart[r] = int32(len(g.refs))
		gen = false
		walk(set.bodies[r], false)
		g.refEnd[r] = int32(len(g.refs))
		g.groups[r] = gen
	}
	type frame = graphFrame
	stack := zeroed(&sc.stack, 32)[:0]
	edges := 0
	for _, root := range roots {
		if state[root] != 0 {
			continue
		}
		state[root] = 1
		refsOf(root)
		stack = append(stack[:0], frame{root, int(g.refStart[root])})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next == int(g.refEnd[f.r]) {
				g.order = append(g.order, f.r)
				stack = stack[:len(stack)-1]
				continue
			}
			t := int(g.refs[f.next])
			f.next++
			g.userEnd[t]++ // counted here, placed below
			edges++
			if state[t] == 0 {
				state[t] = 1
				refsOf(t)
				stack = append(stack, frame{t, int(g.refStart[t])})
			}
		}
	}
	// The users of each rule, in one list: a rule's users are the rules
	// whose references to it were counted, once per user.
	g.users = zeroed(&sc.users, edges)[:0]
	at := int32(0)
	for r := range n {
		g.userStart[r] = at
		at += g.userEnd[r]
		g.userEnd[r] = g.userStart[r]
	}
	g.users = g.users[:edges]
	sc.refs, sc.order, sc.stack, sc.protos = g.refs, g.order, stack, g.protos // grown, for the next grammar
	for _, r := range g.order {
		for _, t := range g.refsOf(r) {
			if e := g.userEnd[t]; e == g.userStart[t] || g.users[e-1] != int32(r) {
				g.users[e] = int32(r)
				g.userEnd[t]++
			}
		}
	}
	return g
}

// protoFacts are a proto's facts, computed once.
type protoFacts struct {
	once sync.Once
	f    *facts
}

// facts returns the facts of p's rules, all of them walked.
func (p *proto) facts() *facts {
	p.analysis.once.Do(func() {
		set := &ruleSet{bodies: p.bodies, self: p}
		roots := make([]int, len(p.bodies))
		for r := range roots {
			roots[r] = r
		}
		f := analyzeRules(set, refGraph(set, roots...))
		if f.cycle == nil {
			// Every rule counted as a start, whatever the order a grammar
			// writes them in.
			for r, body := range p.bodies {
				f.total = min(f.total+f.visits[r]+set.groupStarts(body, f, true), maxLeftmostWalk+1)
			}
		}
		p.analysis.f = f
	})
	return p.analysis.f
}

// analyze runs the checks on the grammar rooted at root and returns the
// rules reachable from it in the order they are written (writeOrder, root
// first) and the protos they refer to (by their place in the builder's
// protoAt), the ones written out, and what llama.cpp's check for left
// recursion costs (walk).
func (c *compiler) analyze(root int, sc *scratch) (lines []int, written []bool, walk int, err error) {
	rules := c.g.rules
	bodies := zeroed(&sc.bodies, len(rules))
	costs := zeroed(&sc.costs, len(rules))
	for i, r := range rules {
		bodies[i], costs[i] = r.body, r.scan
	}
	set := &ruleSet{bodies: bodies, scratch: sc, costs: costs}
	gr := refGraph(set, root)
	written = zeroed(&sc.reachable, len(c.g.protoAt))
	// A proto is written, and walked by the engine, when a reachable rule
	// refers to it, or a proto written does.
	total := 0
	reached := gr.protos
	for i := 0; i < len(reached); i++ {
		p := reached[i]
		for _, d := range p.deps {
			if !slices.Contains(reached, d) {
				reached = append(reached, d)
			}
		}
		for k, pa := range c.g.protoAt {
			if pa.p == p {
				written[k] = true
			}
		}
		total += p.facts().total
	}
	f := analyzeRules(set, gr)
	if f.cycle != nil {
		// The first rule of the cycle that compiles a schema names it.
		for _, x := range f.cycle {
			if p := c.pathOf(x); p != "" {
				return nil, nil, 0, &Error{Path: p, Msg: "refers to itself before anything is written (a $ref cycle through no object or array), which no engine can use; make the recursion go through a property or an item"}
			}
		}
		return nil, nil, 0, &Error{Path: "tools", Msg: "the grammar refers to itself before anything is written"}
	}
	for _, t := range c.tops {
		if t.e == nil || !set.productiveExpr(t.e, f.productive) {
			return nil, nil, 0, c.unsatisfiedError(c.unsatisfiable(t, f.productive, set))
		}
	}
	if !f.productive[root] {
		return nil, nil, 0, &Error{Path: "tools", Msg: "no output satisfies the constraints"}
	}
	if !c.pruned && c.pruneUnproductive(set, gr, f.productive) {
		// The facts of the pruned rules, once more (then every rule
		// reached is productive).
		c.pruned = true
		return c.analyze(root, sc)
	}
	lines, ids := writeOrder(set, gr, root, sc)
	walk, starts, most := engineWalk(set, gr, f, ids, sc)
	if total += walk; total > maxLeftmostWalk {
		// The path: where the walks into nested rules are longest (a
		// ladder of $refs), or, when the starts of one rule's
		// repetitions cost more (a long string's chunks), that rule's.
		p, worst := "tools", -1
		for _, r := range gr.order {
			if c.pathOf(r) != "" && (worst < 0 || f.visits[r] > f.visits[worst]) {
				worst = r
			}
		}
		if worst >= 0 {
			p = c.pathOf(worst)
		}
		if starts >= 0 && (worst < 0 || most > f.visits[worst]) {
			p = c.walkPath(gr, starts)
		}
		return nil, nil, 0, &Error{Path: p, Msg: "its alternatives ($ref, anyOf, oneOf) or long repetitions (maxLength, maxItems) nest so that an engine would scan more than " +
			itoa(maxLeftmostWalk) + " grammar elements to check the grammar (and again at each step of a generation); merge or flatten the alternatives, lower the counts, or shorten the ones that are entered often"}
	}
	return lines, written, total, nil
}

// pruneUnproductive rewrites the reachable rules (gr's) so that no part
// of the grammar leads where no finite text can follow: a rule no finite
// text matches (an object whose every member value must again be such an
// object, {"unevaluatedProperties": {"minProperties": 1, "$ref": "#"}})
// becomes nothing, and each reference to it is left out of the rules
// that can end (an alternative dropped, a repetition with no minimum
// made empty). An engine could otherwise enter it and generate until its
// token limit, with no way to close the value. It reports whether a rule
// changed.
func (c *compiler) pruneUnproductive(set *ruleSet, gr *graph, productive []bool) bool {
	if !slices.ContainsFunc(gr.order, func(r int) bool { return !productive[r] }) {
		return false // (the rules not reached are not analysed)
	}
	changed := false
	for _, r := range gr.order {
		body := set.bodies[r]
		switch {
		case !productive[r]:
			if !isNothing(body) {
				c.g.define(r, nothing())
				changed = true
			}
		default:
			if nb := set.prune(body, productive); nb != body {
				c.g.define(r, nb) // (nb is never nil: the rule is productive)
				changed = true
			}
		}
	}
	return changed
}

// prune is e without the parts that match no finite text (productive:
// the facts of set's rules), nil when e itself matches none, e itself when
// nothing is left out.
func (set *ruleSet) prune(e *expr, productive []bool) *expr {
	if e.lib != nil || e.kind == kLit || e.kind == kClass || e.kind == kRef {
		if set.productiveExpr(e, productive) {
			return e
		}
		return nil
	}
	var items []*expr
	changed := false
	for i, it := range e.items {
		p := set.prune(it, productive)
		if p != it && !changed {
			changed = true
			items = append(items, e.items[:i]...)
		}
		switch {
		case p == nil && e.kind == kSeq:
			return nil
		case p == nil && e.kind == kRep:
			return rep(nil, e.min, e.max) // empty with no minimum, else nil
		case changed && p != nil:
			items = append(items, p)
		}
	}
	switch {
	case !changed:
		return e
	case e.kind == kSeq:
		return seq(items...)
	case e.kind == kRep:
		return rep(items[0], e.min, e.max)
	case len(items) == 0:
		return nil
	}
	return alt(items...)
}

// unsatisfiedError is the error of a tool's arguments or a response
// format that match nothing, the schema at fault at path, compiled by rule
// (-1: none): the first reason impossible recorded in that rule, else a
// schema that admits no value there.
func (c *compiler) unsatisfiedError(u unsatisfied) error {
	for _, r := range c.unsat {
		if r.rule == u.rule {
			return &Error{Path: r.err.Path, Msg: r.err.Msg}
		}
	}
	if u.variants != "" {
		// The variants, none of which can be written: say so of the
		// keyword, not of the first variant (which alone may well be
		// satisfiable).
		what := "any"
		if strings.HasSuffix(u.variants, ".oneOf") {
			what = "exactly one"
		}
		return &Error{Path: u.variants, Msg: "no value satisfies " + what + " of its variants together with the rest of the schema, so no generation could complete; remove it or relax it"}
	}
	return &Error{Path: u.path, Msg: "no value satisfies this schema, so no generation could complete; remove it or relax it"}
}

// unsatisfied is what unsatisfiable finds: the schema at fault (path),
// the rule that compiles it (-1: none), and the oneOf or anyOf on the way
// down whose variants all match nothing ("": none).
type unsatisfied struct {
	path     string
	rule     int
	variants string
}

// variantsOf returns the path of the oneOf or anyOf whose variants the
// items of e, an alternation, compile, when they are references to rules
// compiling two or more of them (the cases of a oneOf are a variant each,
// several cases for one variant), else "".
func (c *compiler) variantsOf(e *expr) string {
	if e.kind != kAlt {
		return ""
	}
	parent, first := "", ""
	several := false
	for _, it := range e.items {
		if it.kind != kRef || it.proto != nil {
			return ""
		}
		p := c.pathOf(it.rule)
		i := strings.LastIndexByte(p, '[')
		if i < 0 || !strings.HasSuffix(p, "]") || !strings.HasSuffix(p[:i], ".oneOf") && !strings.HasSuffix(p[:i], ".anyOf") {
			return ""
		}
		switch {
		case parent == "":
			parent, first = p[:i], p
		case p[:i] != parent:
			return ""
		case p != first:
			several = true
		}
	}
	if !several {
		return ""
	}
	return parent
}

// unsatisfiable names the schema at fault when t matches nothing: down
// from t through what matches nothing, the deepest rule that compiles a
// schema, and that rule (-1: none).
func (c *compiler) unsatisfiable(t top, productive []bool, set *ruleSet) unsatisfied {
	at, atRule, variants := t.path, -1, ""
	visited := map[int]bool{}
	e := t.e
	for e != nil {
		var next *expr
		var find func(e *expr) bool // finds the first reference that matches nothing
		find = func(e *expr) bool {
			if set.productiveExpr(e, productive) {
				return false
			}
			switch e.kind {
			case kRef:
				next = e
				return true
			case kSeq, kAlt, kRep:
				for _, it := range e.items {
					if find(it) {
						return true
					}
				}
			}
			return false
		}
		if !find(e) {
			break
		}
		if variants == "" {
			variants = c.variantsOf(e)
		}
		if next.proto != nil {
			break // a proto's rules all match some text
		}
		r := next.rule
		if visited[r] {
			break
		}
		visited[r] = true
		if p := c.pathOf(r); p != "" {
			at, atRule = p, r
		}
		e = c.g.rules[r].body
	}
	return unsatisfied{at, atRule, variants}
}
