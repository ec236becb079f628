package grammar

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// member is one property of an object being written: its expression and
// whether it must be present.
type member struct {
	e        *expr
	required bool
}

// chainRules writes members in order, separated by sep: each required
// member present, each optional one present or not. A rule per member,
// next(i), is what may follow once something was written, from member i
// on; the first member written is one alternative of a single rule, up to
// the first required one. The grammar stays linear in the number of
// members.
//
// rest, when not nil, is what may follow the members (other members).
//
// For xgrammar, at least blockedChainMin members are written in blocks
// (gap decision 270): xgrammar predicts every rule a place may go on
// into, and in one chain the place after a member goes on into each
// later optional member's rule, as many as there are members left; each
// of its masks, computed ahead and while generating, walks them all. In
// blocks of about the square root of n, the last member of a block goes
// on to the block tail of the next block, a rule whose choices are the
// first member written in that block (each starting with sep, so one
// place to xgrammar) or the next block tail: a place goes on into the
// rest of its block and the block tails, about 2 sqrt(n) rules. The
// language is the same; the members of a block are written once more.
func (c *compiler) chainRules(ms []member, sep string, rest *otherMembers) *expr {
	n := len(ms)
	after, alone := empty(), empty()
	if rest != nil {
		after, alone = rest.after(), rest.alone()
	}
	if n == 0 {
		return alone
	}
	next := make([]expr, n) // a reference to each member's rule
	for i := n - 1; i >= 0; i-- {
		next[i] = expr{kind: kRef, rule: c.g.declare("m")}
	}
	at := func(i int) *expr {
		if i == n {
			return after
		}
		return &next[i]
	}
	sepLit := lit(sep)
	// Blocks of size members (0: one chain); tails[b] is the block tail of
	// block b >= 1: the members from block b on, the members before it
	// written or left out.
	size := 0
	var tails []expr
	if c.blocks && n >= blockedChainMin && c.smallSoFar() {
		c.wroteBlocks = true
		size = int(math.Ceil(math.Sqrt(float64(n))))
		tails = make([]expr, (n+size-1)/size)
		for b := len(tails) - 1; b >= 1; b-- {
			tails[b] = expr{kind: kRef, rule: c.g.declare("m")}
		}
	}
	tail := func(b int) *expr { // the members from block b on
		if b*size >= n {
			return after
		}
		return &tails[b]
	}
	follow := func(i int) *expr { // what may follow member i once written
		if size > 0 && (i+1)%size == 0 {
			return tail((i + 1) / size)
		}
		return at(i + 1)
	}
	for i := n - 1; i >= 0; i-- {
		if c.g.over != "" {
			return nil // a cap passed: the compile fails
		}
		m := ms[i]
		withNext := seq(sepLit, m.e, follow(i))
		if m.required {
			c.g.define(next[i].rule, withNext)
		} else {
			c.g.define(next[i].rule, alt(withNext, follow(i)))
		}
	}
	for b := len(tails) - 1; b >= 1; b-- {
		if c.g.over != "" {
			return nil
		}
		var firsts []*expr
		skip := true // every member of the block optional
		for i := b * size; i < min(n, (b+1)*size); i++ {
			firsts = append(firsts, seq(sepLit, ms[i].e, follow(i)))
			if ms[i].required {
				skip = false
				break
			}
		}
		if skip {
			firsts = append(firsts, tail(b+1))
		}
		c.g.define(tails[b].rule, alt(firsts...))
	}
	var firsts []*expr
	required := false
	for i, m := range ms {
		firsts = append(firsts, seq(m.e, at(i+1)))
		if m.required {
			required = true
			break
		}
	}
	if !required {
		firsts = append(firsts, alone)
	}
	return ref(c.g.rule("m", alt(firsts...)))
}

// smallSoFar reports whether the compile is still one Compile may do
// again at little cost: the schemas read so far hold at most a tenth of
// maxSchemaValues and the work done is at most a quarter of maxWork.
// Blocks are written in such compiles only, so that the compile in one
// chain Compile may do after a failure keeps the two within the bounds
// of one (gap decision 270).
func (c *compiler) smallSoFar() bool {
	return c.values <= maxSchemaValues/10 && c.work <= maxWork/4
}

// blockedChainMin is the fewest members chainRules writes in blocks for
// xgrammar: below it the blocks would save it little (30 optional string
// properties: the same masks; 100: a third of the time; gap decision
// 270).
const blockedChainMin = 48

// maxCountedRules caps the rules of a countedChain: a member's position
// times the counts told apart.
const maxCountedRules = 1024

// countedChain is chainRules for an object whose minProperties (lo) or
// maxProperties (hi, < 0: none) the members do not meet by themselves
// (gap decision 203): a rule per position and count of members written so
// far, the count going up to hi (or, without it, to lo, where it stops),
// the other members of rest counted one by one after the declared ones.
// So {"minProperties": 1} over optional properties is any one of them at
// least, and maxProperties caps the members however many are other
// members. ok is false past maxCountedRules (the counts are then
// reported, as before).
func (c *compiler) countedChain(ms []member, sep string, rest *otherMembers, lo, hi int) (body *expr, ok bool) {
	n := len(ms)
	top := lo // the count told apart up to, where it stops without hi
	if hi >= 0 {
		top = hi
	}
	if (n+1)*(top+1) > maxCountedRules {
		return nil, false
	}
	next := func(k int) (int, bool) { // the count after one more member
		switch {
		case hi < 0:
			return min(k+1, top), true
		case k < hi:
			return k + 1, true
		}
		return 0, false
	}
	ended := func(k int) *expr { // nothing more: the count is met
		if k >= lo {
			return empty()
		}
		return nil
	}
	// at[j][k]: what may follow once k >= 1 members were written and
	// member j is next (j == n: the other members), nil when nothing can.
	at := make([][]*expr, n+1)
	for j := range at {
		at[j] = make([]*expr, top+1)
	}
	var sepLit *expr
	if rest != nil {
		sepLit = lit(rest.sep)
	}
	// The other members, counted: a rule per count.
	for k := top; k >= 1; k-- {
		var e *expr
		if rest != nil {
			if k2, ok := next(k); ok {
				if k2 == k {
					e = rest.more // the count stopped at lo: any number more
				} else {
					e = alt(seq(sepLit, rest.member, at[n][k2]), ended(k))
				}
			} else {
				e = ended(k)
			}
		} else {
			e = ended(k)
		}
		at[n][k] = c.countedRule(e)
	}
	sepM := lit(sep)
	for j := n - 1; j >= 1; j-- {
		for k := top; k >= 1; k-- {
			var e *expr
			if k2, ok := next(k); ok {
				e = seq(sepM, ms[j].e, at[j+1][k2])
			}
			if !ms[j].required {
				e = alt(e, at[j+1][k])
			}
			at[j][k] = c.countedRule(e)
		}
		if c.g.over != "" {
			return nil, true // a cap passed: the compile fails
		}
	}
	// The first member written: a declared one, up to the first required,
	// or, when none is, another member or nothing.
	var firsts []*expr
	k1, canWrite := next(0)
	required := false
	for j, m := range ms {
		if canWrite {
			firsts = append(firsts, seq(m.e, at[j+1][k1]))
		}
		if m.required {
			required = true
			break
		}
	}
	if !required {
		if rest != nil && canWrite {
			firsts = append(firsts, seq(rest.member, at[n][k1]))
		}
		firsts = append(firsts, ended(0))
	}
	first := alt(firsts...)
	if first == nil {
		return nil, true // no object has such a count
	}
	return ref(c.g.rule("m", first)), true
}

// countedRule is e as a rule of countedChain (nil: nothing can follow).
func (c *compiler) countedRule(e *expr) *expr {
	if e == nil {
		return nil
	}
	if e.kind == kLit || e.kind == kRef {
		return e
	}
	return ref(c.g.rule("m", e))
}

// maxTrieNodes caps the nodes of a grammar's key tries (keyExcept): each
// is a rule of two elements at least, a character and where the key
// leaves the trie, so a trie of more than maxExpanded/2 nodes (shared
// ones apart) can't fit an engine. The largest of MaskBench's grammars
// makes 6,918; a required name of 15 million characters made as many
// rules, 25 GB and three minutes before the engine's cap refused it
// (gap decision 219).
const maxTrieNodes = maxExpanded / 2

// keyExcept is the text of a key that is none of names: a JSON string
// (with json) or an argument's raw key. It is a trie of the names: at
// each node the key may end (unless the node spells a name), go on with a
// character of a name below, or leave the trie with any other character
// (then any key follows). A JSON key has one spelling (escapes only where
// jsonCharText writes them, "<" as \u003c), so that no key outside the
// trie names a declared property: a character a key writes escaped is one
// step of the trie, its escape, and a node leaves by the escapes of the
// other such characters (gap decision 313). A raw key never holds "<",
// ", > or a newline, so a name with one is no key's.
// The tries of a grammar hold at most maxTrieNodes nodes together, counted
// as they are made: past it the compile fails at path (the object's).
func (c *compiler) keyExcept(names []string, json bool, path string) *expr {
	type node struct {
		name     bool
		children map[rune]int
		order    []rune
	}
	nodes := []node{{}}
	tooMany := func() *expr {
		c.fail(path, "the names that other members' keys must differ from (those declared or required, and those propertyNames rules out) make a trie of more than "+strconv.Itoa(maxTrieNodes)+" characters, more than an engine can hold; shorten or remove some, or set additionalProperties to false (gap decision 219)")
		return nil
	}
	for _, n := range names {
		at, whole := 0, true
		for i, r := range n {
			if !json && !keyFreeRaw.has(r) || r == utf8.RuneError && !strings.HasPrefix(n[i:], "\uFFFD") {
				// A raw key never holds it, and no key holds a byte
				// that is not UTF-8: no key can name n.
				whole = false
				break
			}
			child, ok := nodes[at].children[r]
			if !ok && c.trieNodes+len(nodes) >= maxTrieNodes {
				return tooMany()
			}
			if !ok {
				if nodes[at].children == nil {
					nodes[at].children = map[rune]int{}
				}
				child = len(nodes)
				nodes[at].children[r] = child
				nodes[at].order = append(nodes[at].order, r)
				nodes = append(nodes, node{})
			}
			at = child
		}
		if whole {
			nodes[at].name = true
		}
	}
	c.trieNodes += len(nodes)
	var free, escape *expr
	var end string
	var excluded []runeRange
	if json {
		excluded, free, escape, end = keyExcludedJSON, keyFreeJSON, keyEscapeExpr, `"`
	} else {
		excluded, free = keyExcludedRaw, keyFreeRaw
	}
	// The rest of a key that left the trie, and the escape, shared by
	// every key of the grammar in this form.
	ix := 0
	if json {
		ix = 1
	}
	if c.keyRest[ix] == 0 {
		// The free characters repeated, then the end or an escape and
		// the rest again: not (free | escape)* end, the same language,
		// whose repetition xgrammar (vLLM, SGLang) reads as a recursion
		// a character, which took it 82 ms a token to mask (0.2 ms so;
		// gap decision 261).
		if escape != nil {
			c.keyEscape = c.g.rule("key-escape", escape)
			rest := c.g.declare("key-rest")
			c.g.define(rest, seq(star(free), alt(seq(ref(c.keyEscape), ref(rest)), lit(end))))
			c.keyRest[ix] = rest
		} else {
			c.keyRest[ix] = c.g.rule("key-rest", seq(star(free), lit(end)))
		}
	}
	tail := ref(c.keyRest[ix])
	if escape != nil {
		escape = ref(c.keyEscape)
	}
	// A node's rule is made after its children's (a child comes after
	// its parent in nodes), and once for every node that accepts the
	// same rest of a key: the same names below it (by their children's
	// rules), spelling a name or not. So the nodes of a long name's tail,
	// and of every name that several objects declare, are one rule each.
	if c.keyNodes[ix] == nil {
		c.keyNodes[ix] = map[string]int{}
	}
	memo := c.keyNodes[ix]
	rules := make([]int, len(nodes))
	var sig []byte
	var pairs []int
	// What every node without children, and every node, ends with: the
	// same expressions, made once.
	freeTail := seq(free, tail)
	var escTail *expr
	if escape != nil {
		escTail = seq(escape, tail)
	}
	endLit := lit(end)
	for i := len(nodes) - 1; i >= 0; i-- {
		nd := nodes[i]
		sig = append(sig[:0], '0')
		if nd.name {
			sig[0] = '1'
		}
		if i == 0 && !json {
			sig = append(sig, 'r') // a raw key is not empty
		}
		pairs = pairs[:0]
		for _, r := range nd.order {
			pairs = append(pairs, int(r), rules[nd.children[r]])
		}
		sortPairs(pairs)
		for _, p := range pairs {
			sig = strconv.AppendInt(append(sig, ','), int64(p), 10)
		}
		if r, ok := memo[string(sig)]; ok {
			rules[i] = r
			continue
		}
		rules[i] = c.g.declare("key")
		memo[string(sig)] = rules[i]
		// Where the key may end or leave the trie: a rule of its own,
		// the same for every node whose names go on with the same
		// characters, so that a node of one child is that character or
		// this rule.
		var buf [8]*expr
		leave := buf[:0]
		if !nd.name && (json || i > 0) {
			leave = append(leave, endLit)
		}
		if len(nd.order) == 0 {
			leave = append(leave, freeTail)
			if escTail != nil {
				leave = append(leave, escTail)
			}
			c.g.define(rules[i], alt(leave...))
			continue
		}
		sig = append(sig[:1], 'L')
		if i == 0 && !json {
			sig = append(sig, 'r')
		}
		for k := 0; k < len(pairs); k += 2 {
			sig = strconv.AppendInt(append(sig, ','), int64(pairs[k]), 10)
		}
		leaveRule, ok := memo[string(sig)]
		if !ok {
			others := append([]runeRange(nil), excluded...)
			escapedChild := false
			for _, r := range nd.order {
				others = append(others, runeRange{r, r})
				escapedChild = escapedChild || json && !keyFreeJSON.has(r)
			}
			leave = append(leave, seq(class(true, others...), tail))
			switch {
			case escapedChild:
				// The escapes of the characters no name goes on with.
				var escapes []*expr
				for _, e := range keyJSONEscapes {
					if !slices.Contains(nd.order, e) {
						escapes = append(escapes, lit(jsonCharText(e)))
					}
				}
				if len(escapes) > 0 {
					leave = append(leave, seq(alt(escapes...), tail))
				}
			case escTail != nil:
				leave = append(leave, escTail)
			}
			leaveRule = c.g.rule("key-leave", alt(leave...))
			memo[string(sig)] = leaveRule
		}
		var moves [8]*expr
		alts := moves[:0]
		for _, r := range nd.order {
			move := string(r)
			if json {
				move = jsonCharText(r) // the one spelling a key has
			}
			alts = append(alts, seq(lit(move), ref(rules[nd.children[r]])))
		}
		c.g.define(rules[i], alt(append(alts, ref(leaveRule))...))
	}
	if json {
		return seq(lit(`"`), ref(rules[0]))
	}
	return ref(rules[0])
}

// sortPairs sorts a list of pairs (a rune, a rule) by rune.
func sortPairs(pairs []int) {
	for i := 2; i < len(pairs); i += 2 {
		for j := i; j >= 2 && pairs[j-2] > pairs[j]; j -= 2 {
			pairs[j-2], pairs[j] = pairs[j], pairs[j-2]
			pairs[j-1], pairs[j+1] = pairs[j+1], pairs[j-1]
		}
	}
}

// The characters a key's text holds only apart from the trie: in a JSON
// key (escaped there) and in an argument's raw key; a class of any other.
var (
	keyExcludedJSON = []runeRange{{'<', '<'}, {0, 0x1f}, {'"', '"'}, {'\\', '\\'}}
	keyExcludedRaw  = []runeRange{{'<', '<'}, {'"', '"'}, {'>', '>'}, {'\n', '\n'}}
	keyFreeJSON     = freeze(class(true, keyExcludedJSON...))
	keyFreeRaw      = freeze(class(true, keyExcludedRaw...))
)

// keyJSONEscapes are the characters a JSON key writes escaped, those of
// keyExcludedJSON, in the order keyEscapeExpr writes their escapes.
var keyJSONEscapes = func() []rune {
	var rs []rune
	for c := rune(0); c < 0x20; c++ {
		rs = append(rs, c)
	}
	return append(rs, '"', '\\', '<')
}()

// keyEscapeExpr is a character of a JSON key that is written escaped,
// only as jsonCharText spells it: with one spelling per key, a key
// outside keyExcept's trie can't be a declared name spelled otherwise
// (\u0061 for a). Built once.
var keyEscapeExpr = freeze(func() *expr {
	var alts []*expr
	for _, c := range keyJSONEscapes {
		alts = append(alts, lit(jsonCharText(c)))
	}
	return alt(alts...)
}())

// An object closed by default (not strict: its declared members only)
// that is one variant of an anyOf would rule out the values that hold
// another variant's properties too, though any variant matching is
// enough: {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]} admits
// {"a": 1, "b": 2}. So such an object may also hold the properties the
// other variants declare or require, optional, after its own, each valid
// for the object's schemas (their additionalProperties, which allow it)
// and for the other variant's property schema (which the value was meant
// for). The variants are found from the view's schemas (an anyOf element
// among them), not kept in the view, so that views alike stay one rule.
// Bounded: anyOfs of at most maxSiblingVariants variants, at most
// maxSiblingNames names added.
const (
	maxSiblingVariants = 8
	maxSiblingNames    = 32
)

// anyOfSiblings returns the other elements of the anyOf whose element s
// is (nil: none, or an anyOf of more than maxSiblingVariants), from an
// index of the document's anyOfs built at the first call.
func (c *compiler) anyOfSiblings(s int) (anyOf int, ok bool) {
	if c.anyOfOf == nil {
		c.anyOfOf = map[int]int{}
		d := c.d
		for i := range d.Nodes {
			if d.Kind(i) != pyjson.Object {
				continue
			}
			a := d.Lookup(i, "anyOf")
			if a < 0 || d.Kind(a) != pyjson.Array || d.Nodes[a].Len > maxSiblingVariants {
				continue
			}
			d.Elements(a, func(e, _ int) bool {
				c.anyOfOf[e] = a
				return true
			})
		}
	}
	anyOf, ok = c.anyOfOf[s]
	return anyOf, ok
}

// siblingMembers adds to an object's members (names, their values' views,
// whether each is required) the properties the other variants of the
// anyOfs whose variants v holds declare or require.
func (c *compiler) siblingMembers(v *view, names []string, values []*view, required []bool) ([]string, []*view, []bool) {
	d := c.d
	added := 0
	add := func(name string, schema int, path string) bool {
		if slices.Contains(names, name) {
			return true
		}
		if added++; added > maxSiblingNames || !c.spend(v.path, len(name)+64) {
			return false
		}
		value := c.memberValue(v, name)
		if schema >= 0 {
			c.addTo(value, schema, path)
		}
		names, values, required = append(names, name), append(values, value), append(required, false)
		return true
	}
	for _, vn := range v.nodes {
		anyOf, ok := c.anyOfSiblings(vn.node)
		if !ok {
			continue
		}
		d.Elements(anyOf, func(o, pos int) bool {
			if o == vn.node {
				return true
			}
			path := vn.path
			if i := strings.LastIndex(path, ".anyOf["); i >= 0 && strings.HasSuffix(path, "]") {
				path = path[:i] + ".anyOf[" + strconv.Itoa(pos) + "]"
			}
			w := c.viewOf(o, path)
			for _, n := range w.nodes {
				if ps := n.ks.Properties; ps >= 0 && d.Kind(ps) == pyjson.Object {
					d.Members(ps, func(k, val int) bool { return add(d.Str(k), val, n.path+".properties."+d.Str(k)) })
				}
				if rs := n.ks.Required; rs >= 0 && d.Kind(rs) == pyjson.Array {
					d.Elements(rs, func(e, _ int) bool { return d.Kind(e) != pyjson.String || add(d.Str(e), -1, "") })
				}
			}
			return added <= maxSiblingNames
		})
	}
	return names, values, required
}

// An object closed by unevaluatedProperties: false that is one variant of
// an anyOf (the view holds the variant): JSON Schema counts as evaluated
// the properties of every variant the value matches, not only the one
// being written, so {"properties": {"a": ...}, "anyOf": [{"required":
// ["b"], ...}, {"required": ["c"], ...}], "unevaluatedProperties": false}
// admits b and c together when both variants match. Where another
// variant's match is the presence of one property valid for its schema (a
// variant of only properties with one name, required, and optionally type
// object), that property is added, optional, valid for the object's
// schemas and the variant's property schema: present, the variant matches
// and so it is evaluated, which is exact. Where another variant could
// evaluate properties otherwise, the grammar would rule out values the
// schema admits: reported (an error under strict). Bounded like
// siblingMembers: anyOfs of at most maxSiblingVariants. Beside
// dependentRequired (add false), whose cases are built from the names
// before, none is added: each is reported instead.
func (c *compiler) evaluatedSiblings(v *view, names []string, values []*view, required []bool, add bool) ([]string, []*view, []bool) {
	d := c.d
	var closing vnode
	root := c.evalRoot(v)
	for _, n := range v.nodes {
		if n.node == root {
			closing = n
		}
	}
	inView := func(s int) bool {
		for _, n := range v.nodes {
			if n.node == s {
				return true
			}
		}
		return false
	}
	for _, n := range v.nodes {
		if n.ks.AnyOf < 0 || n.done&doneAnyOf == 0 || d.Kind(n.ks.AnyOf) != pyjson.Array {
			continue
		}
		if d.Nodes[n.ks.AnyOf].Len > maxSiblingVariants {
			c.loosen(closing.path+".unevaluatedProperties", "unevaluatedProperties",
				"beside an anyOf of more than "+itoa(maxSiblingVariants)+" variants the grammar can't tell which properties the matching variants evaluate")
			continue
		}
		d.Elements(n.ks.AnyOf, func(o, pos int) bool {
			if inView(o) {
				return true
			}
			path := n.path + ".anyOf[" + strconv.Itoa(pos) + "]"
			w := c.viewOf(o, path)
			if w.never || !evaluatesProperties(d, w) {
				return c.err == nil
			}
			name, schema, ok := singlePropertyVariant(d, w)
			if !ok || !add {
				c.loosen(closing.path+".unevaluatedProperties", "unevaluatedProperties",
					"the properties the variant at "+path+" evaluates when it matches too are left out")
				return c.err == nil
			}
			if slices.Contains(names, name) || !c.spend(v.path, len(name)+64) {
				return c.err == nil
			}
			value := c.memberValue(v, name)
			c.addTo(value, schema, path+".properties."+name)
			names, values, required = append(names, name), append(values, value), append(required, false)
			return c.err == nil
		})
	}
	return names, values, required
}

// evaluatesProperties reports whether a value valid for view w may have
// properties w evaluates: a schema of it declares or matches properties,
// or holds a keyword that can (variants, conditions, dynamic references).
func evaluatesProperties(d *pyjson.Doc, w *view) bool {
	for _, n := range w.nodes {
		ks := n.ks
		if ks.Properties >= 0 || ks.PatternProperties >= 0 || ks.AdditionalProperties >= 0 || ks.AnyOf >= 0 || ks.OneOf >= 0 {
			return true
		}
		if !n.mayOther {
			continue
		}
		for _, kw := range [...]otherKeyword{kwUnevaluatedProperties, kwDependentSchemas, kwDependencies, kwIf, kwThen, kwElse, kwDynamicRef, kwRecursiveRef} {
			if n.keys.others[kw] >= 0 {
				return true
			}
		}
	}
	return false
}

// singlePropertyVariant reports whether view w, an anyOf variant, matches
// an object exactly when one property is present and valid for its
// schema: one schema of only properties with one name, that name
// required, and optionally type "object" (and annotations).
func singlePropertyVariant(d *pyjson.Doc, w *view) (name string, schema int, ok bool) {
	if len(w.nodes) != 1 || d.DuplicateKey(w.nodes[0].node) >= 0 {
		return "", -1, false
	}
	s := w.nodes[0].node
	ks := w.nodes[0].ks
	if ks.Properties < 0 || d.Kind(ks.Properties) != pyjson.Object || d.Nodes[ks.Properties].Len != 1 ||
		ks.Required < 0 || d.Kind(ks.Required) != pyjson.Array || d.Nodes[ks.Required].Len != 1 {
		return "", -1, false
	}
	d.Members(ks.Properties, func(k, val int) bool {
		name, schema = d.Str(k), val
		return false
	})
	d.Elements(ks.Required, func(e, _ int) bool {
		ok = d.Kind(e) == pyjson.String && d.Str(e) == name
		return false
	})
	d.Members(s, func(k, val int) bool {
		switch d.Str(k) {
		case "properties", "required", "title", "description", "$comment", "examples", "default", "$schema":
		case "type":
			ok = ok && d.Kind(val) == pyjson.String && d.Str(val) == "object"
		default:
			ok = false
		}
		return ok
	})
	return name, schema, ok
}
