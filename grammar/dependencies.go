package grammar

import (
	"slices"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// dependentRequired ({"a": ["b", "c"]}: an object with a has b and c too)
// is enforced where the grammar writes an object's members by name (its
// declared properties): the members are written in cases, one for each
// choice of which optional trigger properties are present, each case with
// the names those triggers require made required and the triggers left out
// absent. The cases double with each optional trigger, so past
// maxDependentTriggers the dependencies of the optional triggers are not
// enforced (reported; an error under strict).

// maxDependentTriggers caps the optional properties whose dependentRequired
// an object's grammar follows: 4 is 16 cases of its members.
const maxDependentTriggers = 4

// dependency is one entry of a dependentRequired, as indexes of an
// object's member names: when trigger is present, so is each of
// dependents.
type dependency struct {
	trigger    int
	dependents []int
}

// The older keyword dependencies (drafts 4 to 7) holds both kinds of
// entries: an array is a dependentRequired entry, a schema a
// dependentSchemas one. Each is enforced where its newer keyword is, and
// reported under the name dependencies.

// requiredDeps returns the keywords of vnode n that hold dependentRequired
// entries, with their names: its dependentRequired, and its dependencies
// when any entry of it is an array.
func (c *compiler) requiredDeps(n *vnode) (nodes [2]int, names [2]string) {
	nodes = [2]int{n.ks.DependentRequired, -1}
	names = [2]string{"dependentRequired", "dependencies"}
	if dep := c.otherKey(n, kwDependencies); dep >= 0 && c.depsOfKind(dep, true) {
		nodes[1] = dep
	}
	return nodes, names
}

// depsOfKind reports whether dependencies node dep (an object) holds an
// entry that is an array (arrays) or a schema (!arrays).
func (c *compiler) depsOfKind(dep int, arrays bool) bool {
	d := c.d
	if d.Kind(dep) != pyjson.Object {
		return false
	}
	found := false
	d.Members(dep, func(_, val int) bool {
		found = (d.Kind(val) == pyjson.Array) == arrays
		return !found
	})
	return found
}

// eachDependency calls f with each entry of the dependentRequired of v's
// schemas (and the array entries of their dependencies): a trigger name and
// the names it requires. A dependentRequired that is not an object of
// arrays of strings is left out (reported).
func (c *compiler) eachDependency(v *view, f func(trigger string, dependents []string)) {
	for _, n := range v.nodes {
		nodes, names := c.requiredDeps(&n)
		for i, dr := range nodes {
			if dr < 0 {
				continue
			}
			c.eachDependencyOf(dr, n.path+"."+names[i], names[i], f)
		}
	}
}

// eachDependencyOf is eachDependency for one keyword kw, at node dr and
// path: in dependencies, an entry that is not an array is a schema
// (dependentObjects), not an error.
func (c *compiler) eachDependencyOf(dr int, path, kw string, f func(trigger string, dependents []string)) {
	d := c.d
	if d.Kind(dr) != pyjson.Object {
		c.drop(path, kw)
		return
	}
	d.Members(dr, func(k, deps int) bool {
		if d.Kind(deps) != pyjson.Array {
			if kw == "dependentRequired" {
				c.drop(path, kw)
			}
			return true
		}
		var names []string
		d.Elements(deps, func(e, _ int) bool {
			if d.Kind(e) == pyjson.String {
				names = append(names, d.Str(e))
			}
			return true
		})
		if !c.spend(path, 64+16*len(names)) {
			return false
		}
		f(d.Str(k), names)
		return true
	})
}

// dropDependentRequired reports the dependentRequired of v's schemas (and
// their dependencies with array entries), where the grammar writes an
// object's members without their names in view (free members, an enum's
// objects).
func (c *compiler) dropDependentRequired(v *view) {
	for _, n := range v.nodes {
		nodes, names := c.requiredDeps(&n)
		for i, dr := range nodes {
			if dr >= 0 {
				c.drop(n.path+"."+names[i], names[i])
			}
		}
	}
}

// The presence of a declared member in one case of an object's members.
const (
	mayBe  uint8 = iota // optional
	mustBe              // required
	absent              // left out
)

// memberCases returns the cases an object's members are written in: for
// each case, the presence of each member. required says which are required
// by the schemas, can which can be present at all (a member that can't is
// absent in every case where it is not required), deps the
// dependentRequired entries. Without dependencies it is one case, the
// required members required and the others optional.
func (c *compiler) memberCases(v *view, required, can []bool, deps []dependency) [][]uint8 {
	n := len(required)
	base := make([]uint8, n)
	for i, r := range required {
		switch {
		case r:
			base[i] = mustBe
		case !can[i]:
			base[i] = absent
		}
	}
	if len(deps) == 0 {
		return [][]uint8{base}
	}
	// byTrigger lists, for each member, the entries it triggers.
	byTrigger := make([][]int, n)
	for j, dp := range deps {
		byTrigger[dp.trigger] = append(byTrigger[dp.trigger], j)
	}
	// closure makes required what the required members require, each
	// entry followed once; false when that would be a member left out.
	var work []int
	closure := func(st []uint8) bool {
		work = work[:0]
		for i, s := range st {
			if s == mustBe {
				work = append(work, i)
			}
		}
		for len(work) > 0 {
			t := work[len(work)-1]
			work = work[:len(work)-1]
			for _, j := range byTrigger[t] {
				for _, x := range deps[j].dependents {
					switch st[x] {
					case absent:
						return false
					case mayBe:
						st[x] = mustBe
						work = append(work, x)
					}
				}
			}
		}
		return true
	}
	if !closure(base) {
		return nil // a required member requires one that can't be present
	}
	// The optional triggers that require something not yet required.
	var triggers []int
	for i, st := range base {
		if st != mayBe {
			continue
		}
		for _, j := range byTrigger[i] {
			if requiresMore(base, deps[j].dependents) {
				triggers = append(triggers, i)
				break
			}
		}
	}
	if len(triggers) == 0 {
		return [][]uint8{base}
	}
	if len(triggers) > maxDependentTriggers {
		for _, nd := range v.nodes {
			nodes, names := c.requiredDeps(&nd)
			for i, dr := range nodes {
				if dr >= 0 {
					c.loosen(nd.path+"."+names[i], names[i],
						"more than "+itoa(maxDependentTriggers)+" optional properties require others, and each doubles the object's grammar")
				}
			}
		}
		return [][]uint8{base}
	}
	if !c.spend(v.path, n<<len(triggers)) {
		return nil
	}
	var cases [][]uint8
	for mask := range 1 << len(triggers) {
		st := append([]uint8(nil), base...)
		for b, t := range triggers {
			st[t] = absent
			if mask&(1<<b) != 0 {
				st[t] = mustBe
			}
		}
		// A case whose present triggers require a trigger it leaves
		// out is another case's.
		if closure(st) {
			cases = append(cases, st)
		}
	}
	return cases
}

// requiresMore reports whether some of dependents is not required in st.
func requiresMore(st []uint8, dependents []int) bool {
	for _, x := range dependents {
		if st[x] != mustBe {
			return true
		}
	}
	return false
}

// triggersBeside reports whether v's dependentRequired has a trigger that
// is not among absent (the names an object of the case can't hold, which
// need nothing).
func (c *compiler) triggersBeside(v *view, absent []string) bool {
	found := false
	c.eachDependency(v, func(trigger string, _ []string) {
		found = found || !slices.Contains(absent, trigger)
	})
	return found
}

// absentTriggers returns absent with the triggers of v's dependentRequired
// that require a name of absent, in turn (a trigger left out leaves out the
// triggers that require it): an object of the case can't hold them.
func (c *compiler) absentTriggers(v *view, absent []string) []string {
	for changed := len(absent) > 0; changed; {
		changed = false
		c.eachDependency(v, func(trigger string, dependents []string) {
			if !slices.Contains(absent, trigger) && slices.ContainsFunc(dependents, func(name string) bool { return slices.Contains(absent, name) }) {
				absent = append(absent, trigger)
				changed = true
			}
		})
	}
	return absent
}

// patternHeld reports whether a patternProperties of v matches name, so
// that an object closed to other names may still hold it as a member of
// the pattern (gap decision 300: a trigger of dependentRequired such an
// object holds, whose dependents are then checked like a declared
// trigger's).
func (c *compiler) patternHeld(v *view, name string) bool {
	for _, n := range v.nodes {
		if n.ks.PatternProperties >= 0 && c.patternValues(nil, n.ks.PatternProperties, n.path, name) {
			return true
		}
	}
	return false
}

// dependentMembers adds to an object's members (names, the views of their
// values, whether each is required) those dependentRequired relates, and
// returns its entries, as indexes of the names: a trigger the object may
// hold (not one of absent) (one of names, or any key of an object open under strict, extra
// being its other members' view) with the names it requires, each added
// before the trigger, optional.
func (c *compiler) dependentMembers(v *view, names []string, values []*view, required []bool, extra *view, absent []string) ([]string, []*view, []bool, []dependency) {
	open := c.strict && !extra.never && !c.unevaluatedClosed(v)
	index := make(map[string]int, len(names))
	for i, name := range names {
		index[name] = i
	}
	add := func(name string) int {
		i, ok := index[name]
		if !ok {
			i = len(names)
			index[name] = i
			names = append(names, name)
			values = append(values, c.memberValue(v, name))
			required = append(required, false)
		}
		return i
	}
	var deps []dependency
	c.eachDependency(v, func(trigger string, dependents []string) {
		if c.err != nil {
			return
		}
		if _, ok := index[trigger]; !ok && !open && !c.patternHeld(v, trigger) || slices.Contains(absent, trigger) {
			return // the object can't hold it
		}
		fresh := 1 // the names the object gains, the trigger at most among them
		for _, name := range dependents {
			if _, ok := index[name]; !ok {
				fresh++
			}
		}
		if len(names)+fresh > maxObjectMembers {
			// (as objectMembers: past it no grammar of the object fits)
			c.fail(v.path, tooManyMembersText)
			return
		}
		dp := dependency{dependents: make([]int, len(dependents))}
		for j, name := range dependents {
			dp.dependents[j] = add(name)
		}
		dp.trigger = add(trigger)
		deps = append(deps, dp)
	})
	return names, values, required, deps
}
