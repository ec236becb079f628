package grammar

import "github.com/beamharmony/harmony/internal/pyjson"

// unevaluatedProperties beyond false on the root (unevaluatedClosed):
//
//   - true, or any schema that admits everything, constrains nothing, and
//     evaluates every property it meets, so that unevaluatedProperties on
//     the root then constrains nothing either;
//   - additionalProperties in any schema of the view (whatever its value)
//     evaluates every property its schema does not declare, so
//     unevaluatedProperties on the root constrains nothing;
//   - a schema on the root, where nothing else of the view may evaluate
//     properties the grammar does not see (patternProperties, conditions,
//     dependentSchemas, an unresolved $dynamicRef, unevaluatedProperties
//     below the root, another anyOf variant declaring properties), is the
//     schema of every member no schema of the view declares, as
//     additionalProperties would be.
//
// Elsewhere it stays reported (an error under strict).

// anySchema reports whether schema node s admits every value: true or an
// object of annotations only.
func anySchema(d *pyjson.Doc, s int) bool {
	switch d.Kind(s) {
	case pyjson.True:
		return true
	case pyjson.Object:
		ok := true
		d.Members(s, func(k, _ int) bool {
			ok = annotation(d.Str(k))
			return ok
		})
		return ok
	}
	return false
}

// unevaluatedPropertiesOf returns how the grammar applies the
// unevaluatedProperties of v's root: noop when it constrains nothing
// (absent included), else schema, the node members no schema declares
// take (-1: not applied this way: false, which unevaluatedClosed applies,
// or reported).
func (c *compiler) unevaluatedPropertiesOf(v *view) (noop bool, schema int) {
	d := c.d
	u := -1
	root := c.evalRoot(v)
	for _, n := range v.nodes {
		if n.node == root {
			u = c.otherKey(&n, kwUnevaluatedProperties)
		}
	}
	if u < 0 || anySchema(d, u) {
		return true, -1
	}
	for _, n := range v.nodes {
		if n.ks.AdditionalProperties >= 0 {
			return true, -1
		}
		if n.node != root {
			if nu := c.otherKey(&n, kwUnevaluatedProperties); nu >= 0 && anySchema(d, nu) {
				return true, -1
			}
		}
	}
	if d.Kind(u) != pyjson.Object {
		return false, -1
	}
	for _, n := range v.nodes {
		if n.ks.PatternProperties >= 0 {
			return false, -1
		}
		for _, kw := range [...]otherKeyword{kwIf, kwThen, kwElse, kwDependentSchemas, kwDependencies, kwRecursiveRef} {
			if c.otherKey(&n, kw) >= 0 {
				return false, -1
			}
		}
		if dr := c.otherKey(&n, kwDynamicRef); dr >= 0 && c.resolveDynamic(n.node, dr) < 0 {
			return false, -1
		}
		if n.node != root && c.otherKey(&n, kwUnevaluatedProperties) >= 0 {
			return false, -1
		}
		if n.ks.AnyOf >= 0 && n.done&doneAnyOf != 0 && !c.siblingsEvaluateNothing(v, &n) {
			return false, -1
		}
	}
	return false, u
}

// siblingsEvaluateNothing reports whether the other variants of n's
// distributed anyOf (at most maxSiblingVariants) evaluate no property.
func (c *compiler) siblingsEvaluateNothing(v *view, n *vnode) bool {
	d := c.d
	if d.Kind(n.ks.AnyOf) != pyjson.Array || d.Nodes[n.ks.AnyOf].Len > maxSiblingVariants {
		return false
	}
	nothing := true
	d.Elements(n.ks.AnyOf, func(o, _ int) bool {
		for _, m := range v.nodes {
			if m.node == o {
				return true
			}
		}
		w := c.viewOf(o, n.path+".anyOf")
		nothing = w.never || !evaluatesProperties(d, w)
		return nothing
	})
	return nothing
}
