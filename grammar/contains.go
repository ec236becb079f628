package grammar

import (
	"bytes"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// contains, with minContains (default 1) and maxContains, counts an
// array's elements valid for a schema. The grammar enforces it where the
// count is a shape of the array:
//
//   - when every element is valid for it (its schema is true or {}, or
//     the same as items), the count is the array's length: minContains
//     and maxContains bound the length, as minItems and maxItems do;
//   - otherwise, past no prefixItems and without maxItems or a minItems
//     above minContains, at least minContains elements of it among the
//     others: [ (x, )* c (, (x, )* c){k-1} (, x)* ], x an element valid
//     for items, c one valid for items and contains together. Elements
//     of x may be valid for contains too, so maxContains, which would need
//     elements valid for items and not for contains, is enforced only
//     where maxItems keeps the array within it.
//
// What it can't enforce is reported (an error under strict), each keyword
// at its path. minContains and maxContains without contains constrain
// nothing, as JSON Schema says.

// containsNode is one contains of an array's schemas, with its counts.
type containsNode struct {
	node     int // the contains schema
	path     string
	min, max int // minContains (1 when absent), maxContains (-1: none)
	minNode  int // minContains's node, -1 when absent
	maxNode  int
}

// containsOf reads the contains keywords of v's schemas: the first
// contains, and whether there are others (which the grammar leaves out,
// reported).
func (c *compiler) containsOf(v *view) (cn containsNode, ok bool) {
	d := c.d
	for _, n := range v.nodes {
		if n.ks.Contains < 0 {
			continue
		}
		if ok {
			c.dropContains(n.node, n.path, "only one contains of an array is enforced")
			continue
		}
		cn = containsNode{node: n.ks.Contains, path: n.path, min: 1, max: -1,
			minNode: d.Lookup(n.node, "minContains"), maxNode: d.Lookup(n.node, "maxContains")}
		if lo, valid := c.readCount(cn.minNode, n.path, "minContains"); valid {
			cn.min = lo
		}
		if hi, valid := c.readCount(cn.maxNode, n.path, "maxContains"); valid {
			cn.max = hi
		}
		ok = true
	}
	return cn, ok
}

// dropContains reports the contains keywords of schema s (at path), an
// error under strict.
func (c *compiler) dropContains(s int, path, why string) {
	for _, kw := range [...]string{"contains", "minContains", "maxContains"} {
		if c.d.Lookup(s, kw) >= 0 {
			c.loosen(path+"."+kw, kw, why)
		}
	}
}

// everyElement reports whether every element of v's arrays is valid for
// contains schema s: s is true or {}, or, where no prefixItems governs
// the first prefixLen elements, the same JSON as an items (gap decision
// 299: an element of a prefix need not be valid for items).
func (c *compiler) everyElement(v *view, s int, prefixLen int) bool {
	d := c.d
	switch d.Kind(s) {
	case pyjson.True:
		return true
	case pyjson.Object:
		if d.Nodes[s].Len == 0 {
			return true
		}
	}
	if prefixLen > 0 {
		return false
	}
	for _, n := range v.nodes {
		if n.ks.Items >= 0 && bytes.Equal(d.Raw(n.ks.Items), d.Raw(s)) {
			return true
		}
	}
	return false
}

// containsArray applies v's contains to an array of lo to hi elements
// (hi -1: no bound), prefixLen of them a prefix, the others item (nil:
// none), rest being their view: it returns the array when it writes it
// (done), else the length bounds to write it with, contains folded in
// where every element counts.
func (c *compiler) containsArray(v *view, cn containsNode, prefixLen int, rest *view, item *expr, lo, hi int, ctx textContext) (array *expr, done bool, newLo, newHi int) {
	d := c.d
	if c.everyElement(v, cn.node, prefixLen) {
		lo = max(lo, cn.min)
		if cn.max >= 0 && (hi < 0 || cn.max < hi) {
			hi = cn.max
		}
		if hi >= 0 && lo > hi {
			return nil, true, lo, hi // no array
		}
		return nil, false, lo, hi
	}
	if cn.max >= 0 && cn.min > cn.max {
		return nil, true, lo, hi // no array satisfies contains
	}
	if cn.max >= 0 && (hi < 0 || hi > cn.max) {
		c.loosen(cn.path+".maxContains", "maxContains", "the grammar counts the elements valid for contains from below only")
	}
	k := cn.min
	if k == 0 {
		return nil, false, lo, hi
	}
	why := ""
	switch {
	case prefixLen > 0:
		why = "the grammar counts the elements valid for contains only without prefixItems"
	case hi >= 0 || lo > k:
		why = "the grammar counts the elements valid for contains only without maxItems and with minItems at most minContains"
	case c.reps+k > c.repLimit:
		why = c.repetitionsWhy()
	}
	if why != "" {
		for _, kw := range [...]struct {
			node int
			name string
		}{{cn.node, "contains"}, {cn.minNode, "minContains"}} {
			if kw.node >= 0 {
				c.loosen(cn.path+"."+kw.name, kw.name, why)
			}
		}
		return nil, false, lo, hi
	}
	c.reps += k
	// c: an element valid for items and contains together.
	w := &view{path: cn.path + ".contains", root: rest.root}
	w.nodes = append(w.nodes, rest.nodes...)
	w.never = rest.never
	c.addTo(w, cn.node, cn.path+".contains")
	if item == nil || w.never || d.Kind(cn.node) == pyjson.False {
		return nil, true, lo, hi // no element can count
	}
	counted := c.value(w, ctx, false)
	before := ref(c.g.rule("before", star(seq(item, lit(", ")))))
	after := ref(c.g.rule("after", star(seq(lit(", "), item))))
	body := seq(before, counted, rep(seq(lit(", "), before, counted), k-1, k-1), after)
	return seq(lit("["), body, lit("]")), true, lo, hi
}
