package grammar

import "github.com/beamharmony/harmony/internal/pyjson"

// unevaluatedItems on an array's own schema (the view's root): the
// elements no schema of the view evaluates must be valid for it. An
// element is evaluated by prefixItems at its position or by items (which
// evaluates every element past its schema's prefixItems), so with items
// in any schema of the view every element is, and otherwise the elements
// past the longest prefixItems are not: they take unevaluatedItems as
// their schema, as items would. Exact where nothing else of the view may
// evaluate elements: contains (the elements it matches), conditions,
// another unevaluatedItems, a $dynamicRef not followed, or another
// variant of a distributed anyOf that may match too; there, and for
// unevaluatedItems below the root, it stays reported (an error under
// strict).

// unevaluatedItemsOf returns the unevaluatedItems of v's root (-1: none)
// and whether the grammar enforces it exactly.
func (c *compiler) unevaluatedItemsOf(v *view) (u int, ok bool) {
	d := c.d
	u = -1
	root := c.evalRoot(v)
	for _, n := range v.nodes {
		if n.node == root {
			u = c.otherKey(&n, kwUnevaluatedItems)
		}
	}
	if u < 0 {
		return -1, false
	}
	if c.types(v)&tArr == 0 {
		return u, true // no array: nothing it constrains
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
		if n.ks.Contains >= 0 {
			return u, false
		}
		if n.node != root && c.otherKey(&n, kwUnevaluatedItems) >= 0 {
			return u, false
		}
		for _, kw := range [...]otherKeyword{kwIf, kwThen, kwElse, kwRecursiveRef} {
			if c.otherKey(&n, kw) >= 0 {
				return u, false
			}
		}
		if dr := c.otherKey(&n, kwDynamicRef); dr >= 0 && c.resolveDynamic(n.node, dr) < 0 {
			return u, false
		}
		if n.ks.AnyOf >= 0 && n.done&doneAnyOf != 0 && d.Kind(n.ks.AnyOf) == pyjson.Array {
			if d.Nodes[n.ks.AnyOf].Len > maxSiblingVariants {
				return u, false
			}
			others := true
			d.Elements(n.ks.AnyOf, func(o, pos int) bool {
				if inView(o) {
					return true
				}
				w := c.viewOf(o, n.path+".anyOf")
				if w.never {
					return true
				}
				for _, m := range w.nodes {
					if evaluatesItems(d, m.node, &m) || m.ks.AnyOf >= 0 || m.ks.OneOf >= 0 {
						others = false
					}
				}
				return others
			})
			if !others {
				return u, false
			}
		}
	}
	return u, true
}

// evaluatesItems reports whether schema s (vnode n) holds a keyword that
// evaluates array elements.
func evaluatesItems(d *pyjson.Doc, s int, n *vnode) bool {
	if n.ks.PrefixItems >= 0 || n.ks.Items >= 0 || n.ks.Contains >= 0 {
		return true
	}
	for _, kw := range [...]otherKeyword{kwUnevaluatedItems, kwIf, kwThen, kwElse, kwDynamicRef, kwRecursiveRef} {
		if d.Lookup(s, unenforced[kw]) >= 0 {
			return true
		}
	}
	return false
}

// rootPath is the path of v's root schema.
func (c *compiler) rootPath(v *view) string {
	root := c.evalRoot(v)
	for _, n := range v.nodes {
		if n.node == root {
			return n.path
		}
	}
	return v.path
}
