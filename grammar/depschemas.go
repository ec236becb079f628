package grammar

import (
	"slices"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// dependentSchemas: where an object holds a trigger property, it must be
// valid for the trigger's schema too. An object is written as one case per
// choice of the triggers present, at most maxDependentTriggers of them (16
// cases): in each, the present triggers are required and their schemas
// join the object's (members, their values, additionalProperties, counts),
// and the absent ones are left out of the declared members and of the
// other members' keys. Where a trigger's schema holds what a case can't
// apply (variants, enum, const, conditions, another dependentSchemas), or
// there are more triggers, or the keys of free members can't be kept from
// a trigger (beside propertyNames or patternProperties), dependentSchemas
// is reported (an error under strict) and the object written as without
// it.

// depTrigger is a trigger property and the schemas it brings, with their
// paths.
type depTrigger struct {
	name    string
	schemas []int
	paths   []string
	holders []int // the schema whose dependentSchemas holds each
}

// dependentObjects is viewObject: the object's cases, or the object alone
// when its schemas have no dependentSchemas.
func (c *compiler) dependentObjects(v *view, ctx textContext, xml bool) *expr {
	d := c.d
	var triggers []depTrigger
	for _, n := range v.nodes {
		nodes, names := c.schemaDeps(&n)
		for j, ds := range nodes {
			if ds < 0 {
				continue
			}
			if d.Kind(ds) != pyjson.Object {
				c.drop(n.path+"."+names[j], names[j])
				continue
			}
			d.Members(ds, func(k, val int) bool {
				if d.Kind(val) == pyjson.Array {
					return true // dependencies' dependentRequired entry
				}
				name := d.Str(k)
				i := slices.IndexFunc(triggers, func(t depTrigger) bool { return t.name == name })
				if i < 0 {
					i = len(triggers)
					triggers = append(triggers, depTrigger{name: name})
				}
				triggers[i].schemas = append(triggers[i].schemas, val)
				triggers[i].paths = append(triggers[i].paths, n.path+"."+names[j]+"."+name)
				triggers[i].holders = append(triggers[i].holders, n.node)
				return true
			})
		}
	}
	if len(triggers) == 0 {
		return c.objectBody(v, ctx, xml, nil, nil)
	}
	if len(triggers) > maxDependentTriggers {
		c.loosenDependentSchemas(v, "more than "+itoa(maxDependentTriggers)+" trigger properties")
		return c.objectBody(v, ctx, xml, nil, nil)
	}
	var cases []*expr
	var present, absent []string
	for mask := range 1 << len(triggers) {
		w := &view{nodes: slices.Clone(v.nodes), path: v.path, root: v.root, absent: v.absent, objectsOnly: v.objectsOnly, present: v.present, excluded: v.excluded}
		w.copyLinks(v)
		present, absent = present[:0], absent[:0]
		for i, t := range triggers {
			if mask&(1<<i) == 0 {
				absent = append(absent, t.name)
				continue
			}
			present = append(present, t.name)
			for j, s := range t.schemas {
				// (the schemas that led to its holder on the stack: a
				// $ref back to one of them applies it to the same object
				// again, a cycle no validator can end)
				c.chain = v.ancestors(c.chain[:0], t.holders[j])
				c.expand(w, s, t.paths[j], c.chain)
			}
		}
		if c.err != nil {
			return nil
		}
		if w.never || c.types(w)&tObj == 0 {
			continue // no object holds these triggers
		}
		caseAbsent := slices.Clone(absent)
		for _, n := range w.nodes[len(v.nodes):] {
			forbid, ok := c.appliesInCase(&n)
			if !ok {
				c.loosenDependentSchemas(v, "the schema at "+n.path+" holds keywords a case of the object can't apply (anyOf, oneOf, enum, const, a not other than of required names one at a time, conditions or dependentSchemas)")
				return c.objectBody(v, ctx, xml, nil, nil)
			}
			caseAbsent = append(caseAbsent, forbid...)
		}
		cases = append(cases, c.objectBody(w, ctx, xml, present, caseAbsent))
	}
	return alt(cases...)
}

// appliesInCase reports whether the schema of vnode n, joined to an
// object's schemas for a case of dependentSchemas, constrains the object
// only through what objectBody reads, and the names a not of required
// names of it rules out one at a time (forbid: {"not": {"required":
// ["b"]}}, or an anyOf of such, gap decision 301), which the case leaves
// out.
func (c *compiler) appliesInCase(n *vnode) (forbid []string, ok bool) {
	ks := n.ks
	if ks.AnyOf >= 0 || ks.OneOf >= 0 || ks.Enum >= 0 || ks.Const >= 0 || n.other {
		return nil, false
	}
	if ks.Not >= 0 {
		sets, _, read := c.notRequired(n.node)
		if !read {
			return nil, false
		}
		for _, set := range sets {
			if len(set) != 1 {
				return nil, false // names forbidden together: a choice the case does not make
			}
			forbid = append(forbid, set[0])
		}
	}
	return forbid, c.otherKey(n, kwDependentSchemas) < 0 && c.otherKey(n, kwDependencies) < 0
}

// schemaDeps returns the keywords of vnode n that hold dependentSchemas
// entries, with their names: its dependentSchemas, and its dependencies
// when it is not an object of arrays alone (whose entries are
// dependentRequired's).
func (c *compiler) schemaDeps(n *vnode) (nodes [2]int, names [2]string) {
	nodes = [2]int{c.otherKey(n, kwDependentSchemas), -1}
	names = [2]string{"dependentSchemas", "dependencies"}
	if dep := c.otherKey(n, kwDependencies); dep >= 0 && (c.d.Kind(dep) != pyjson.Object || c.depsOfKind(dep, false)) {
		nodes[1] = dep
	}
	return nodes, names
}

// loosenDependentSchemas reports the dependentSchemas of v's schemas (and
// their dependencies with schema entries; an error under strict): the
// grammar writes the object as without them.
func (c *compiler) loosenDependentSchemas(v *view, why string) {
	for _, n := range v.nodes {
		nodes, names := c.schemaDeps(&n)
		for i, ds := range nodes {
			if ds >= 0 {
				c.loosen(n.path+"."+names[i], names[i], why)
			}
		}
	}
}

// hasDependentSchemas reports whether a schema of v has dependentSchemas,
// or dependencies of either kind (which only an object's grammar applies).
func (c *compiler) hasDependentSchemas(v *view) bool {
	for _, n := range v.nodes {
		if c.otherKey(&n, kwDependentSchemas) >= 0 || c.otherKey(&n, kwDependencies) >= 0 {
			return true
		}
	}
	return false
}
