package grammar

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

// analyze runs the checks on the grammar rooted at root and returns the
// rules reachable from it, the ones written out.
func (c *compiler) analyze(root int) (reachable []bool, err error) {
	rules := c.g.rules
	target := func(e *expr) int {
		if e.proto != nil {
			return c.g.bases[e.proto] + e.rule
		}
		return e.rule
	}
	order, users := c.refGraph(root, target)
	reachable = make([]bool, len(rules))
	for _, r := range order {
		reachable[r] = true
	}

	// Both properties are least fixpoints over the rules: evaluate the
	// rules below first (post-order), then again each rule that uses one
	// that turned true.
	fixpoint := func(eval func(e *expr, val []bool) bool) []bool {
		val := make([]bool, len(rules))
		queued := make([]bool, len(rules))
		queue := append([]int(nil), order...)
		for _, r := range queue {
			queued[r] = true
		}
		for len(queue) > 0 {
			r := queue[0]
			queue = queue[1:]
			queued[r] = false
			if val[r] || !eval(rules[r].body, val) {
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
		return val
	}
	var nullableExpr, productiveExpr func(e *expr, val []bool) bool
	nullableExpr = func(e *expr, val []bool) bool {
		switch e.kind {
		case kLit:
			return e.text == ""
		case kRef:
			return val[target(e)]
		case kSeq:
			for _, it := range e.items {
				if !nullableExpr(it, val) {
					return false
				}
			}
			return true
		case kAlt:
			for _, it := range e.items {
				if nullableExpr(it, val) {
					return true
				}
			}
			return false
		case kRep:
			return e.min == 0 || nullableExpr(e.items[0], val)
		}
		return false
	}
	productiveExpr = func(e *expr, val []bool) bool {
		switch e.kind {
		case kLit:
			return true
		case kClass:
			return !isNothing(e)
		case kRef:
			return val[target(e)]
		case kSeq:
			for _, it := range e.items {
				if !productiveExpr(it, val) {
					return false
				}
			}
			return true
		case kAlt:
			for _, it := range e.items {
				if productiveExpr(it, val) {
					return true
				}
			}
			return false
		case kRep:
			return e.min == 0 || productiveExpr(e.items[0], val)
		}
		return false
	}
	nullable := fixpoint(nullableExpr)

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
	state := make([]uint8, len(rules))
	visits := make([]int, len(rules))
	var cycle []int // the rules of a left recursion, innermost first
	var walkRule func(r int) int
	var walkExpr func(e *expr) int
	walkExpr = func(e *expr) int {
		switch e.kind {
		case kRef:
			return walkRule(target(e))
		case kSeq:
			n := 0
			for _, it := range e.items {
				n = min(n+walkExpr(it), maxLeftmostWalk+1)
				if cycle != nil || !nullableExpr(it, nullable) {
					break
				}
			}
			return n
		case kAlt:
			n := 0
			for _, it := range e.items {
				n = min(n+walkExpr(it), maxLeftmostWalk+1)
				if cycle != nil {
					break
				}
			}
			return n
		case kRep:
			// A repetition is a rule of its own in the engine.
			return min(1+walkExpr(e.items[0]), maxLeftmostWalk+1)
		}
		return 0
	}
	walkRule = func(r int) int {
		switch state[r] {
		case done:
			return visits[r]
		case walking:
			cycle = []int{r}
			return 0
		}
		state[r] = walking
		n := min(1+walkExpr(rules[r].body), maxLeftmostWalk+1)
		if cycle != nil {
			if len(cycle) == 1 || cycle[0] != cycle[len(cycle)-1] {
				cycle = append(cycle, r)
			}
			return 0
		}
		state[r] = done
		visits[r] = n
		return n
	}
	total, worst := 0, -1
	for _, r := range order {
		if walkRule(r); cycle != nil {
			// The first rule of the cycle that compiles a schema names it.
			for _, x := range cycle {
				if p, ok := c.paths[x]; ok {
					return nil, &Error{p, "refers to itself before anything is written (a $ref cycle through no object or array), which no engine can use; make the recursion go through a property or an item"}
				}
			}
			return nil, &Error{"tools", "the grammar refers to itself before anything is written"}
		}
		total = min(total+visits[r], maxLeftmostWalk+1)
		if _, ok := c.paths[r]; ok && (worst < 0 || visits[r] > visits[worst]) {
			worst = r
		}
	}
	productive := fixpoint(productiveExpr)
	for _, t := range c.tops {
		if t.e == nil || !productiveExpr(t.e, productive) {
			return nil, &Error{c.unsatisfiable(t, productive, productiveExpr, target), "no value satisfies this schema, so no generation could complete; remove it or relax it"}
		}
	}
	if !productive[root] {
		return nil, &Error{"tools", "no output satisfies the constraints"}
	}
	if total > maxLeftmostWalk {
		p := "tools"
		if worst >= 0 {
			p = c.paths[worst]
		}
		return nil, &Error{p, "its optional properties and alternatives ($ref, anyOf, oneOf) chain so that an engine would visit more than " +
			itoa(maxLeftmostWalk) + " rules to check the grammar; mark more properties required, or merge or flatten the alternatives"}
	}
	return reachable, nil
}

// maxLeftmostWalk caps the rules an engine visits to check a grammar for
// left recursion (llama.cpp walks the leftmost references from every rule
// without memory): an object of n optional properties costs about n^2/2,
// and nested alternatives that share rules multiply.
const maxLeftmostWalk = 400000

// refGraph returns the rules reachable from root in post-order (a rule
// after the rules it refers to, but where a cycle closes) and, for each
// rule, the rules that refer to it.
func (c *compiler) refGraph(root int, target func(*expr) int) (order []int, users [][]int) {
	rules := c.g.rules
	users = make([][]int, len(rules))
	seen := make([]bool, len(rules))
	type frame struct {
		r    int
		refs []int
		next int
	}
	refsOf := func(r int) []int {
		var out []int
		var walk func(e *expr)
		walk = func(e *expr) {
			if e.kind == kRef {
				out = append(out, target(e))
			}
			for _, it := range e.items {
				walk(it)
			}
		}
		walk(rules[r].body)
		return out
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
		if n := len(users[t]); n == 0 || users[t][n-1] != f.r {
			users[t] = append(users[t], f.r)
		}
		if !seen[t] {
			seen[t] = true
			stack = append(stack, frame{t, refsOf(t), 0})
		}
	}
	return order, users
}

// unsatisfiable names the schema at fault when t matches nothing: down
// from t through what matches nothing, the deepest rule that compiles a
// schema.
func (c *compiler) unsatisfiable(t top, productive []bool, productiveExpr func(*expr, []bool) bool, target func(*expr) int) string {
	at := t.path
	visited := map[int]bool{}
	e := t.e
	for e != nil {
		var next *expr
		var find func(e *expr) bool // finds the first reference that matches nothing
		find = func(e *expr) bool {
			if productiveExpr(e, productive) {
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
		r := target(next)
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
