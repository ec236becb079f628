package grammar

import "sync"

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
// The shared rule sets (protos: the text languages) are analysed once,
// when first used, and their facts reused by every grammar.

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

// ruleSet is the rules an analysis runs over: their bodies, what each
// reference refers to, and the rules whose facts are known already (a
// proto's, in a grammar), which are not walked.
type ruleSet struct {
	bodies []*expr
	target func(*expr) int
	known  func(r int) (nullable bool, visits int, ok bool)
}

// analyzeRules computes the facts of the rules of set reachable from
// roots (order: in post-order, as refGraph gives them).
func analyzeRules(set *ruleSet, order []int, users [][]int) *facts {
	n := len(set.bodies)
	f := &facts{nullable: make([]bool, n), productive: make([]bool, n), visits: make([]int, n)}
	for r := range n {
		if nl, v, ok := set.known(r); ok {
			f.nullable[r], f.productive[r], f.visits[r] = nl, true, v
		}
	}
	// Both properties are least fixpoints over the rules: evaluate the
	// rules below first (post-order), then again each rule that uses one
	// that turned true.
	fixpoint := func(val []bool, eval func(e *expr, val []bool) bool) {
		queued := make([]bool, n)
		queue := append([]int(nil), order...)
		for _, r := range queue {
			queued[r] = true
		}
		for len(queue) > 0 {
			r := queue[0]
			queue = queue[1:]
			queued[r] = false
			if val[r] || !eval(set.bodies[r], val) {
				continue
			}
			val[r] = true
			for _, u := range users[r] {
				if !val[u] && !queued[u] {
					queued[u] = true
					queue = append(queue, u)
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
	state := make([]uint8, n)
	var walkRule func(r int) int
	var walkExpr func(e *expr) int
	walkExpr = func(e *expr) int {
		switch e.kind {
		case kRef:
			return walkRule(set.target(e))
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
		if _, v, ok := set.known(r); ok {
			return v
		}
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

func (set *ruleSet) nullableExpr(e *expr, val []bool) bool {
	switch e.kind {
	case kLit:
		return e.text == ""
	case kRef:
		return val[set.target(e)]
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
	switch e.kind {
	case kLit:
		return true
	case kClass:
		return !isNothing(e)
	case kRef:
		return val[set.target(e)]
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

// refGraph returns the rules of set reachable from root in post-order (a
// rule after the rules it refers to, but where a cycle closes) and, for
// each rule, the rules that refer to it. Known rules are not walked into.
func refGraph(set *ruleSet, root int) (order []int, users [][]int) {
	n := len(set.bodies)
	users = make([][]int, n)
	seen := make([]bool, n)
	type frame struct {
		r    int
		refs []int
		next int
	}
	var buf []int
	refsOf := func(r int) []int {
		start := len(buf)
		var walk func(e *expr)
		walk = func(e *expr) {
			if e.kind == kRef {
				buf = append(buf, set.target(e))
			}
			for _, it := range e.items {
				walk(it)
			}
		}
		walk(set.bodies[r])
		return buf[start:len(buf):len(buf)]
	}
	seen[root] = true
	stack := []frame{{root, refsOf(root), 0}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next == len(f.refs) {
			order = append(order, f.r)
			stack = stack[:len(stack)-1]
			continue
		}
		t := f.refs[f.next]
		f.next++
		if _, _, ok := set.known(t); ok {
			continue
		}
		if k := len(users[t]); k == 0 || users[t][k-1] != f.r {
			users[t] = append(users[t], f.r)
		}
		if !seen[t] {
			seen[t] = true
			stack = append(stack, frame{t, refsOf(t), 0})
		}
	}
	return order, users
}

// protoFacts are a proto's facts, computed once.
type protoFacts struct {
	once sync.Once
	f    *facts
}

// facts returns the facts of p's rules, all of them walked.
func (p *proto) facts() *facts {
	p.analysis.once.Do(func() {
		set := &ruleSet{bodies: p.bodies, target: func(e *expr) int { return e.rule },
			known: func(int) (bool, int, bool) { return false, 0, false }}
		order := make([]int, 0, len(p.bodies))
		users := make([][]int, len(p.bodies))
		seen := make([]bool, len(p.bodies))
		for r := range p.bodies {
			if !seen[r] {
				o, u := refGraph(set, r)
				for _, x := range o {
					if !seen[x] {
						seen[x] = true
						order = append(order, x)
					}
				}
				for x := range u {
					users[x] = append(users[x], u[x]...)
				}
			}
		}
		p.analysis.f = analyzeRules(set, order, users)
	})
	return p.analysis.f
}

// analyze runs the checks on the grammar rooted at root and returns the
// rules reachable from it, the ones written out.
func (c *compiler) analyze(root int) (reachable []bool, err error) {
	rules := c.g.rules
	bodies := make([]*expr, len(rules))
	for i, r := range rules {
		bodies[i] = r.body
	}
	// The rules of each proto, and its facts.
	type protoRule struct {
		f     *facts
		local int
	}
	inProto := make([]protoRule, len(rules))
	for p, base := range c.g.bases {
		f := p.facts()
		for i := range p.names {
			inProto[base+i] = protoRule{f, i}
		}
	}
	set := &ruleSet{
		bodies: bodies,
		target: func(e *expr) int {
			if e.proto != nil {
				return c.g.bases[e.proto] + e.rule
			}
			return e.rule
		},
		known: func(r int) (bool, int, bool) {
			if pr := inProto[r]; pr.f != nil {
				return pr.f.nullable[pr.local], pr.f.visits[pr.local], true
			}
			return false, 0, false
		},
	}
	order, users := refGraph(set, root)
	reachable = make([]bool, len(rules))
	for _, r := range order {
		reachable[r] = true
	}
	// A proto is written, and walked by the engine, when a reachable rule
	// refers to it.
	total := 0
	for p, base := range c.g.bases {
		used := false
		for _, r := range order {
			if refersTo(bodies[r], p, base, len(p.names)) {
				used = true
				break
			}
		}
		if used {
			for i := range p.names {
				reachable[base+i] = true
			}
			total += p.facts().total
		}
	}
	f := analyzeRules(set, order, users)
	if f.cycle != nil {
		// The first rule of the cycle that compiles a schema names it.
		for _, x := range f.cycle {
			if p, ok := c.paths[x]; ok {
				return nil, &Error{p, "refers to itself before anything is written (a $ref cycle through no object or array), which no engine can use; make the recursion go through a property or an item"}
			}
		}
		return nil, &Error{"tools", "the grammar refers to itself before anything is written"}
	}
	for _, t := range c.tops {
		if t.e == nil || !set.productiveExpr(t.e, f.productive) {
			return nil, &Error{c.unsatisfiable(t, f.productive, set), "no value satisfies this schema, so no generation could complete; remove it or relax it"}
		}
	}
	if !f.productive[root] {
		return nil, &Error{"tools", "no output satisfies the constraints"}
	}
	if total += f.total; total > maxLeftmostWalk {
		p, worst := "tools", -1
		for _, r := range order {
			if _, ok := c.paths[r]; ok && (worst < 0 || f.visits[r] > f.visits[worst]) {
				worst = r
			}
		}
		if worst >= 0 {
			p = c.paths[worst]
		}
		return nil, &Error{p, "its optional properties and alternatives ($ref, anyOf, oneOf) chain so that an engine would visit more than " +
			itoa(maxLeftmostWalk) + " rules to check the grammar; mark more properties required, or merge or flatten the alternatives"}
	}
	return reachable, nil
}

// refersTo reports whether e refers to a rule of proto p, whose rules are
// at base to base+n in the grammar.
func refersTo(e *expr, p *proto, base, n int) bool {
	if e.kind == kRef && (e.proto == p || e.proto == nil && e.rule >= base && e.rule < base+n) {
		return true
	}
	for _, it := range e.items {
		if refersTo(it, p, base, n) {
			return true
		}
	}
	return false
}

// unsatisfiable names the schema at fault when t matches nothing: down
// from t through what matches nothing, the deepest rule that compiles a
// schema.
func (c *compiler) unsatisfiable(t top, productive []bool, set *ruleSet) string {
	at := t.path
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
		r := set.target(next)
		if visited[r] {
			break
		}
		visited[r] = true
		if p, ok := c.paths[r]; ok {
			at = p
		}
		e = c.g.rules[r].body
	}
	return at
}
