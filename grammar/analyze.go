package grammar

import (
	"slices"
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

// maxLeftmostWalk caps the rules an engine visits to check a grammar for
// left recursion (llama.cpp walks the leftmost references from every rule
// without memory): an object of n optional properties costs about n^2/2,
// and nested alternatives that share rules multiply.
const maxLeftmostWalk = 400000

// facts are what the analysis knows of a set of rules.
type facts struct {
	nullable, productive []bool
	visits               []int // the leftmost walk from each rule, saturated
	total                int   // their sum over the rules walked
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
}

// scratch is memory the analysis of one grammar borrows and gives back
// (scratchPool), so that the next grammar's analysis allocates nothing it
// needs no longer than the compile.
type scratch struct {
	idx, refs, users []int32
	order, ints      []int
	queue            []int
	bools, reachable []bool
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
	f := &facts{}
	if set.scratch != nil {
		f = &sc.facts
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

	// The leftmost walk: visits[r] counts the rules an engine visits
	// going down from r through every leftmost reference, without
	// memory, as llama.cpp's check for left recursion does from every
	// rule; it saturates past the bound. A rule met again on the way down
	// is left recursion.
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
				v = min(v+walkExpr(it), maxLeftmostWalk+1)
				if f.cycle != nil || !set.nullableExpr(it, f.nullable) {
					break
				}
			}
			return v
		case kAlt:
			v := 0
			for _, it := range e.items {
				v = min(v+walkExpr(it), maxLeftmostWalk+1)
				if f.cycle != nil {
					break
				}
			}
			return v
		case kRep:
			// A repetition is a rule of its own in the engine.
			return min(1+walkExpr(e.items[0]), maxLeftmostWalk+1)
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
		v := min(1+walkExpr(set.bodies[r]), maxLeftmostWalk+1)
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
		f.total = min(f.total+f.visits[r], maxLeftmostWalk+1)
	}
	return f
}

// refFreeWalk is what analyzeRules's leftmost walk counts in e, an
// expression without rule references.
func refFreeWalk(set *ruleSet, e *expr) int {
	v := 0
	switch e.kind {
	case kSeq:
		for _, it := range e.items {
			v = min(v+refFreeWalk(set, it), maxLeftmostWalk+1)
			if !set.nullableExpr(it, nil) {
				break
			}
		}
	case kAlt:
		for _, it := range e.items {
			v = min(v+refFreeWalk(set, it), maxLeftmostWalk+1)
		}
	case kRep:
		// A repetition is a rule of its own in the engine.
		v = min(1+refFreeWalk(set, e.items[0]), maxLeftmostWalk+1)
	}
	return v
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
	g := &graph{}
	if set.scratch != nil {
		g = &sc.graph
	}
	*g = graph{refStart: idx[:n:n], refEnd: idx[n : 2*n : 2*n], userStart: idx[2*n : 3*n : 3*n], userEnd: idx[3*n : 4*n : 4*n]}
	state := idx[4*n:] // 0: not seen, 1: seen
	g.refs = zeroed(&sc.refs, 2*n)[:0]
	g.protos = sc.protos[:0]
	g.order = zeroed(&sc.order, n)[:0]
	var walk func(e *expr)
	walk = func(e *expr) {
		if e.lib != nil {
			return // no reference
		}
		if e.kind == kRef {
			if e.proto != set.self {
				if !slices.Contains(g.protos, e.proto) {
					g.protos = append(g.protos, e.proto)
				}
				return
			}
			g.refs = append(g.refs, int32(e.rule))
		}
		for _, it := range e.items {
			walk(it)
		}
	}
	refsOf := func(r int) {
		g.refStart[r] = int32(len(g.refs))
		walk(set.bodies[r])
		g.refEnd[r] = int32(len(g.refs))
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
		p.analysis.f = analyzeRules(set, refGraph(set, roots...))
	})
	return p.analysis.f
}

// analyze runs the checks on the grammar rooted at root and returns the
// rules reachable from it and the protos they refer to (by their place in
// the builder's protoAt), the ones written out.
func (c *compiler) analyze(root int, sc *scratch) (reachable, written []bool, err error) {
	rules := c.g.rules
	bodies := zeroed(&sc.bodies, len(rules))
	for i, r := range rules {
		bodies[i] = r.body
	}
	set := &ruleSet{bodies: bodies, scratch: sc}
	gr := refGraph(set, root)
	order := gr.order
	reachable = zeroed(&sc.reachable, len(rules)+len(c.g.protoAt))
	written = reachable[len(rules):]
	reachable = reachable[:len(rules)]
	for _, r := range order {
		reachable[r] = true
	}
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
				return nil, nil, &Error{Path: p, Msg: "refers to itself before anything is written (a $ref cycle through no object or array), which no engine can use; make the recursion go through a property or an item"}
			}
		}
		return nil, nil, &Error{Path: "tools", Msg: "the grammar refers to itself before anything is written"}
	}
	for _, t := range c.tops {
		if t.e == nil || !set.productiveExpr(t.e, f.productive) {
			return nil, nil, c.unsatisfiedError(c.unsatisfiable(t, f.productive, set))
		}
	}
	if !f.productive[root] {
		return nil, nil, &Error{Path: "tools", Msg: "no output satisfies the constraints"}
	}
	if total += f.total; total > maxLeftmostWalk {
		p, worst := "tools", -1
		for _, r := range order {
			if c.pathOf(r) != "" && (worst < 0 || f.visits[r] > f.visits[worst]) {
				worst = r
			}
		}
		if worst >= 0 {
			p = c.pathOf(worst)
		}
		return nil, nil, &Error{Path: p, Msg: "its optional properties and alternatives ($ref, anyOf, oneOf) chain so that an engine would visit more than " +
			itoa(maxLeftmostWalk) + " rules to check the grammar; mark more properties required, or merge or flatten the alternatives"}
	}
	return reachable, written, nil
}

// unsatisfiedError is the error of a tool's arguments or a response
// format that match nothing, the schema at fault at path, compiled by rule
// (-1: none): the first reason impossible recorded in that rule, else a
// schema that admits no value there.
func (c *compiler) unsatisfiedError(path string, rule int) error {
	for _, u := range c.unsat {
		if u.rule == rule {
			return &Error{Path: u.err.Path, Msg: u.err.Msg}
		}
	}
	return &Error{Path: path, Msg: "no value satisfies this schema, so no generation could complete; remove it or relax it"}
}

// unsatisfiable names the schema at fault when t matches nothing: down
// from t through what matches nothing, the deepest rule that compiles a
// schema, and that rule (-1: none).
func (c *compiler) unsatisfiable(t top, productive []bool, set *ruleSet) (string, int) {
	at, atRule := t.path, -1
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
	return at, atRule
}
