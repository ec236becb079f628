package grammar

import (
	"slices"
	"strconv"
	"strings"

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
// rest, when not nil, is what may follow the members: rest(true) once a
// member was written (it then starts with sep), rest(false) when none was.
func (c *compiler) chainRules(ms []member, sep string, rest func(after bool) *expr) *expr {
	n := len(ms)
	if rest == nil {
		rest = func(bool) *expr { return empty() }
	}
	if n == 0 {
		return rest(false)
	}
	next := make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		next[i] = c.g.declare("m")
	}
	after := rest(true)
	at := func(i int) *expr {
		if i == n {
			return after
		}
		return ref(next[i])
	}
	for i := n - 1; i >= 0; i-- {
		m := ms[i]
		withNext := seq(lit(sep), m.e, at(i+1))
		if m.required {
			c.g.define(next[i], withNext)
		} else {
			c.g.define(next[i], alt(withNext, at(i+1)))
		}
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
		firsts = append(firsts, rest(false))
	}
	return ref(c.g.rule("m", alt(firsts...)))
}

// keyExcept is the text of a key that is none of names: a JSON string
// (with json) or an argument's raw key. It is a trie of the names' texts:
// at each node the key may end (unless the node spells a name), go on with
// a character of a name below, or leave the trie with any other character
// (then any key follows). A JSON key has one spelling (escapes only where
// jsonCharText writes them, "<" as \u003c), so that no key outside the
// trie names a declared property; a name whose text holds an escape or a
// "<" is not followed past it (extras refuses such names under strict).
func (c *compiler) keyExcept(names []string, json bool) *expr {
	type node struct {
		name     bool
		children map[rune]int
		order    []rune
	}
	nodes := []node{{}}
	for _, n := range names {
		text := n
		if json {
			q := string(pyjson.AppendQuoted(nil, n))
			text = q[1 : len(q)-1]
		}
		at, whole := 0, true
		for _, r := range text {
			if r == '\\' || r == '<' {
				whole = false
				break
			}
			child, ok := nodes[at].children[r]
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
	var free, escape *expr
	var end string
	excluded := []runeRange{{'<', '<'}}
	if json {
		excluded = append(excluded, runeRange{0, 0x1f}, runeRange{'"', '"'}, runeRange{'\\', '\\'})
		// Only the one spelling jsonCharText gives each character that
		// needs an escape: with one spelling per key, a key outside the
		// trie can't be a declared name spelled otherwise (\u0061 for a).
		var alts []*expr
		for c := rune(0); c < 0x20; c++ {
			alts = append(alts, lit(jsonCharText(c)))
		}
		escape, end = alt(append(alts, lit(jsonCharText('"')), lit(jsonCharText('\\')), lit(jsonCharText('<')))...), `"`
	} else {
		excluded = append(excluded, runeRange{'"', '"'}, runeRange{'>', '>'}, runeRange{'\n', '\n'})
	}
	free = class(true, excluded...)
	// The rest of a key that left the trie, and the escape, shared by
	// every key of the grammar in this form.
	ix := 0
	if json {
		ix = 1
	}
	if c.keyRest[ix] == 0 {
		unit := free
		if escape != nil {
			c.keyEscape = c.g.rule("key-escape", escape)
			unit = alt(free, ref(c.keyEscape))
		}
		c.keyRest[ix] = c.g.rule("key-rest", seq(star(unit), lit(end)))
	}
	tail := ref(c.keyRest[ix])
	if escape != nil {
		escape = ref(c.keyEscape)
	}
	rules := make([]int, len(nodes))
	for i := range nodes {
		rules[i] = c.g.declare("key")
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		nd := nodes[i]
		var alts []*expr
		if !nd.name && (json || i > 0) {
			alts = append(alts, lit(end))
		}
		others := append([]runeRange(nil), excluded...)
		for _, r := range nd.order {
			others = append(others, runeRange{r, r})
			alts = append(alts, seq(lit(string(r)), ref(rules[nd.children[r]])))
		}
		alts = append(alts, seq(class(true, others...), tail))
		if escape != nil {
			alts = append(alts, seq(escape, tail))
		}
		c.g.define(rules[i], alt(alts...))
	}
	if json {
		return seq(lit(`"`), ref(rules[0]))
	}
	return ref(rules[0])
}

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
