package grammar

import (
	"slices"
	"strings"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// A discriminator's if/then/else (gap decision 206): schemas that apply
// then when one property holds given values and else otherwise, one
// if/then/else for each value, usually in an allOf:
//
//	{"type": "object", "properties": {"type": {"enum": ["a", "b"]}, ...},
//	 "allOf": [{"if": {"properties": {"type": {"const": "a"}}}, "then": ...},
//	           {"if": {"properties": {"type": {"const": "b"}}}, "then": ...}]}
//
// The value of the property decides every condition at once. So under
// strict the object is written as one case per condition, where the
// property holds that condition's values (present, and restricted to them
// by the if itself, which joins the case) with that condition's then and
// the other conditions' else, and, when the object does not require the
// property, a case where it is absent (then every condition without
// required is true, and its then applies; one that requires the property
// is false, and its else applies). When the property may take a value no
// condition lists (its values are not listed, or some of its const or
// enum, literalSet, are among none), one case more holds it with a value
// none lists, every else applied (gap decision 224): the property's value
// leaves out every condition's values (view.excluded), which its strings,
// booleans, null, integers and bounded numbers can (cuttable). Where a
// value is among two conditions' values (gap decision 297: {"const":
// "static"} and {"enum": ["static", "react"]}), the cases are instead one
// for each set of conditions some value meets: those conditions' ifs and
// thens, the others' else, their values left out. This is exact when the
// object's schemas allow only objects: elsewhere, as before, the
// conditions are reported (an error under strict).

// maxIfCases caps the cases of one view's discriminator conditions. It
// was 16; real discriminators list more (JSON Schema Store's Minecraft
// item modifiers: 31 functions), and the compile's caps on work and on
// the engine's elements bound what cases of cases cost (gap decision 325).
const maxIfCases = 64

// maxIfComparisons caps the comparisons ifCases makes between the values
// the property may take and the conditions' values (each against each):
// past it, the conditions are not split, as when they are not a
// discriminator's.
const maxIfComparisons = 1 << 16

// discriminatorIf is one if/then/else of a discriminator: the schema it
// is in, the property, its values (literal nodes), whether the if requires
// the property, and the branches (-1: none).
type discriminatorIf struct {
	at                   int // the index of its schema in the view
	name                 string
	values               []int
	required             bool
	cond, then, els      int
	condPath, then0, el0 string
	// presence: the condition is the property's presence (readPresence:
	// no values, required).
	presence bool
	// objectTyped: values that are not objects fail cond (they meet
	// every other condition).
	objectTyped bool
}

// readDiscriminatorIf reads the if of schema s when it is a
// discriminator's: properties of one name whose schema is a const or an
// enum of strings, booleans, null or plain numbers, and required of that
// name at most, with annotations; or the not of such a schema alone
// (negated: the condition is cond's failing, so then applies where cond
// fails and else where it holds, gap decision 225). cond is the schema
// read; follow resolves a schema that is only a $ref (gap decision 329),
// and refs is the path each $ref it followed adds.
func readDiscriminatorIf(d *pyjson.Doc, s int, follow func(int) (int, string)) (name string, values []int, required, negated, objectTyped bool, cond int, refs string, ok bool) {
	cond = d.Lookup(s, "if")
	if cond < 0 || d.Kind(cond) != pyjson.Object || d.DuplicateKey(cond) >= 0 {
		return "", nil, false, false, false, -1, "", false
	}
	cond, refs = follow(cond)
	if inner := d.Lookup(cond, "not"); inner >= 0 && d.Kind(inner) == pyjson.Object && d.DuplicateKey(inner) < 0 {
		only := true
		d.Members(cond, func(k, _ int) bool {
			only = d.Str(k) == "not" || annotation(d.Str(k))
			return only
		})
		if only {
			var more string
			cond, more = follow(inner)
			negated, refs = true, refs+".not"+more
		}
	}
	name, values, required, objectTyped, ok = readDiscriminator(d, cond)
	return name, values, required, negated, objectTyped, cond, refs, ok
}

// refOnly is throughRefs with the path the references it followed add
// ("$ref" each).
func (c *compiler) refOnly(s int) (int, string) {
	s, hops := c.refsAlone(s)
	return s, strings.Repeat(".$ref", hops)
}

// readPresence reads schema cond when it is a condition of presence (gap
// decision 324): required of one name, with annotations, which holds
// where an object holds that name (and for every other value).
func readPresence(d *pyjson.Doc, cond int) (name string, ok bool) {
	if d.Kind(cond) != pyjson.Object || d.DuplicateKey(cond) >= 0 {
		return "", false
	}
	ok = true
	d.Members(cond, func(k, val int) bool {
		if key := d.Str(k); key == "required" {
			ok = d.Kind(val) == pyjson.Array && d.Nodes[val].Len == 1 && d.Kind(val+1) == pyjson.String
			if ok {
				name = d.Str(val + 1)
			}
		} else {
			ok = annotation(key)
		}
		return ok
	})
	return name, ok && d.Lookup(cond, "required") >= 0
}

// readDiscriminator reads schema cond when it is a discriminator's
// condition (readDiscriminatorIf). Such a condition may also say "type":
// "object" (objectTyped: it fails for values that are not objects; of an
// anyOf, when each of its conditions says so), and an anyOf of
// conditions on one name is one condition (gap decision 323): it holds
// where one of them does, that is where the property holds one of their
// values, or is absent and one of them does not require it.
func readDiscriminator(d *pyjson.Doc, cond int) (name string, values []int, required, objectTyped, ok bool) {
	return readCondition(d, cond, true)
}

// readCondition is readDiscriminator, an anyOf read when variants says so
// (one level: not in a variant).
func readCondition(d *pyjson.Doc, cond int, variants bool) (name string, values []int, required, objectTyped, ok bool) {
	if d.Kind(cond) != pyjson.Object || d.DuplicateKey(cond) >= 0 {
		return "", nil, false, false, false
	}
	if any := d.Lookup(cond, "anyOf"); any >= 0 && variants {
		ok = d.Kind(any) == pyjson.Array && d.Nodes[any].Len > 0
		d.Members(cond, func(k, _ int) bool {
			ok = ok && (d.Str(k) == "anyOf" || annotation(d.Str(k)))
			return ok
		})
		if !ok {
			return "", nil, false, false, false
		}
		required, objectTyped = true, true
		d.Elements(any, func(e, i int) bool {
			n, vs, req, typed, vok := readCondition(d, e, false)
			if ok = vok && (i == 0 || n == name); ok {
				name, values = n, append(values, vs...)
				required = required && req
				objectTyped = objectTyped && typed // (other values meet an untyped one)
			}
			return ok
		})
		if !ok {
			return "", nil, false, false, false
		}
		return name, values, required, objectTyped, true
	}
	ok = true
	reqName := ""
	d.Members(cond, func(k, val int) bool {
		switch key := d.Str(k); key {
		case "type":
			// Only objects meet the condition: the same to a view of
			// objects only (ifCases asks for one).
			objectTyped = true
			ok = d.Kind(val) == pyjson.String && d.Str(val) == "object" ||
				d.Kind(val) == pyjson.Array && d.Nodes[val].Len == 1 && d.Kind(val+1) == pyjson.String && d.Str(val+1) == "object"
		case "properties":
			if ok = d.Kind(val) == pyjson.Object && d.Nodes[val].Len == 1; !ok {
				return false
			}
			d.Members(val, func(pk, ps int) bool {
				name = d.Str(pk)
				values, ok = literalsOnly(d, ps)
				return ok
			})
		case "required":
			ok = d.Kind(val) == pyjson.Array && d.Nodes[val].Len == 1 && d.Kind(val+1) == pyjson.String
			if ok {
				required, reqName = true, d.Str(val+1)
			}
		default:
			ok = annotation(key)
		}
		return ok
	})
	if !ok || values == nil || required && reqName != name {
		return "", nil, false, false, false
	}
	return name, values, required, objectTyped, true
}

// literalsOnly reads schema s when it is only a const or an enum (and a
// type and annotations) of values literalEqual compares: its values (of
// the type's types, one at least).
func literalsOnly(d *pyjson.Doc, s int) (values []int, ok bool) {
	if values, ok = literalList(d, s); len(values) == 0 {
		return nil, false
	}
	return values, ok
}

// literalList is literalsOnly, but ok with no values when the type rules
// out every listed one ({"type": "number", "enum": ["a"]}: a schema
// nothing satisfies).
func literalList(d *pyjson.Doc, s int) (values []int, ok bool) {
	if d.Kind(s) != pyjson.Object || d.DuplicateKey(s) >= 0 {
		return nil, false
	}
	ok = true
	typ := -1
	d.Members(s, func(k, val int) bool {
		switch key := d.Str(k); key {
		case "type":
			typ = val
		case "const":
			values = append(values, val)
		case "enum":
			if ok = d.Kind(val) == pyjson.Array && d.Nodes[val].Len > 0; ok {
				d.Elements(val, func(e, _ int) bool {
					values = append(values, e)
					return true
				})
			}
		default:
			ok = annotation(key)
		}
		return ok
	})
	if !ok || len(values) == 0 || d.Lookup(s, "const") >= 0 && d.Lookup(s, "enum") >= 0 {
		return nil, false
	}
	if typ >= 0 {
		// Beside a type, the listed values of its types ({"type":
		// "boolean", "enum": [false]}, decision 225).
		set := typesOf(d, typ)
		values = slices.DeleteFunc(values, func(m int) bool { return !admits(d, set, m) })
	}
	for _, m := range values {
		if !comparableLiteral(d, m) {
			return nil, false
		}
	}
	return values, true
}

// comparableLiteral reports whether literalEqual tells value m apart
// exactly: a string, true, false, null, or a number of up to 40
// characters without an exponent.
func comparableLiteral(d *pyjson.Doc, m int) bool {
	switch d.Kind(m) {
	case pyjson.String, pyjson.True, pyjson.False, pyjson.Null:
		return true
	case pyjson.Number:
		raw := string(d.Raw(m))
		return len(raw) <= 40 && !slices.ContainsFunc([]byte(raw), func(b byte) bool { return b == 'e' || b == 'E' })
	}
	return false
}

// literalEqual reports whether two comparableLiteral values are equal as
// JSON Schema compares them (numbers by value).
func (c *compiler) literalEqual(a, b int) bool {
	return comparableLiteral(c.d, a) && comparableLiteral(c.d, b) && c.mayEqual(a, b)
}

// ifCases is, under strict, the value of view v (objects only) whose
// pending if/then/else are discriminators' or conditions of presence: the
// conditions on each name give cases of their own (caseGroup), and the
// object is a case for each choice of one case per name (gap decision
// 326: the conditions of prometheus's auth, each on a name of its own);
// ok is false when they are not (v is then compiled as before, its
// conditions reported).
func (c *compiler) ifCases(v *view, ctx textContext, xml bool) (e *expr, ok bool) {
	return c.casesOf(v, false, func(w *view) *expr { return c.value(w, ctx, xml) })
}

// casesOf is ifCases with each case's view compiled by compile; with
// objects, v's values are objects whatever its types say (a tool's
// arguments, gap decision 330).
func (c *compiler) casesOf(v *view, objects bool, compile func(w *view) *expr) (e *expr, ok bool) {
	if !c.strict {
		return nil, false
	}
	d := c.d
	var ifs []discriminatorIf
	unknown := false // a condition the view does not apply by itself
	for i, n := range v.nodes {
		if n.done&doneIf != 0 || c.otherKey(&n, kwIf) < 0 {
			continue
		}
		name, values, required, negated, objectTyped, cond, refs, ok := readDiscriminatorIf(d, n.node, c.refOnly)
		presence := false
		if !ok && cond >= 0 {
			name, presence = readPresence(d, cond)
			ok, required = presence, presence
		}
		if !ok {
			if _, known := conditionKnown(d, n.node); known {
				continue // applied by the view, or nothing to apply
			}
			return nil, false
		}
		if k := slices.IndexFunc(ifs, func(f discriminatorIf) bool { return f.name == name }); k >= 0 && ifs[k].presence != presence {
			return nil, false // a name's values and its presence: not told apart
		}
		if _, known := conditionKnown(d, n.node); !known {
			unknown = true
		}
		f := discriminatorIf{at: i, name: name, values: values, required: required,
			cond: cond, then: d.Lookup(n.node, "then"), els: d.Lookup(n.node, "else"),
			condPath: n.path + ".if", then0: n.path + ".then", el0: n.path + ".else", presence: presence, objectTyped: objectTyped}
		f.condPath += refs
		if negated {
			// Where the not's schema holds, the if fails: else applies.
			f.then, f.els, f.then0, f.el0 = f.els, f.then, f.el0, f.then0
		}
		ifs = append(ifs, f)
	}
	if !unknown || len(ifs)+1 > maxIfCases {
		return nil, false
	}
	// The conditions by name, in the order the names come.
	var groups [][]discriminatorIf
	for _, f := range ifs {
		if k := slices.IndexFunc(groups, func(g []discriminatorIf) bool { return g[0].name == f.name }); k >= 0 {
			groups[k] = append(groups[k], f)
		} else {
			groups = append(groups, []discriminatorIf{f})
		}
	}
	// A value that is not an object meets every condition (properties
	// and required constrain objects only) but one of "type": "object",
	// so every then applies to it: the case of every name absent writes
	// it, when no condition requires its name or is of objects only, and
	// the object does not require the name either. Otherwise, where v
	// admits other values, they are a case of their own (others, gap
	// decision 328), and the cases of names objects only.
	others := !objects && c.types(v) != tObj && slices.ContainsFunc(ifs, func(f discriminatorIf) bool {
		return f.required || f.objectTyped || c.requiresName(v, f.name)
	})
	perName := make([][]ifCase, len(groups))
	total := 1
	for k, g := range groups {
		var ok bool
		if perName[k], ok = c.caseGroup(v, g); !ok {
			return nil, false
		}
		if total *= len(perName[k]); total > maxIfCases {
			return nil, false
		}
	}
	// A case: v's schemas, its conditions distributed, with one case of
	// each name's added.
	caseOf := func(choice []int) *expr {
		w := &view{nodes: slices.Clone(v.nodes), path: v.path, root: v.root, absent: slices.Clip(v.absent), objectsOnly: v.objectsOnly || others, present: slices.Clip(v.present), excluded: slices.Clip(v.excluded)}
		w.copyLinks(v)
		for _, f := range ifs {
			w.nodes[f.at].done |= doneIf
		}
		deepest := ""
		for k, j := range choice {
			ic := &perName[k][j]
			w.objectsOnly = w.objectsOnly || len(ic.present) > 0
			w.present = append(w.present, ic.present...)
			w.absent = append(w.absent, ic.absent...)
			w.excluded = append(w.excluded, ic.excluded...)
			for i, s := range ic.add {
				if s >= 0 {
					c.addTo(w, s, ic.paths[i])
					if len(ic.paths[i]) > len(deepest) {
						deepest = ic.paths[i]
					}
				}
			}
		}
		if len(w.excluded) == 0 {
			w.excluded = nil
		}
		c.cases = append(c.cases, deepest)
		e := compile(w)
		c.cases = c.cases[:len(c.cases)-1]
		return e
	}
	var cases []*expr
	if others {
		// The values that are not objects: each condition holds for
		// them but one of objects only, whose else applies.
		w := &view{nodes: slices.Clone(v.nodes), path: v.path, root: v.root, absent: v.absent, present: v.present,
			excluded: append(slices.Clip(v.excluded), exclusion{types: tObj})}
		w.copyLinks(v)
		for _, f := range ifs {
			w.nodes[f.at].done |= doneIf
			if s, path := f.then, f.then0; !f.objectTyped && s >= 0 {
				c.addTo(w, s, path)
			} else if s, path := f.els, f.el0; f.objectTyped && s >= 0 {
				c.addTo(w, s, path)
			}
		}
		if cases = append(cases, compile(w)); c.err != nil {
			return nil, true
		}
	}
	choice := make([]int, len(groups))
	for {
		cases = append(cases, caseOf(choice))
		if c.err != nil {
			return nil, true
		}
		k := len(choice) - 1
		for ; k >= 0; k-- {
			if choice[k]++; choice[k] < len(perName[k]) {
				break
			}
			choice[k] = 0
		}
		if k < 0 {
			break
		}
	}
	return alt(cases...), true
}

// An ifCase is one case of the conditions on one name (caseGroup): the
// branches (and ifs) it adds with their paths, the name present or
// absent, and the values it leaves out.
type ifCase struct {
	add             []int
	paths           []string
	present, absent []string
	excluded        []exclusion
}

// caseGroup is the cases of conditions ifs, all on one name, in an object
// of schemas v: for conditions of presence (gap decision 324), the name
// present (each if and then applies) and absent (each else); for a
// discriminator's (decisions 206, 224, 297), one for each condition or set
// of conditions some value meets, one for a value none lists, and one for
// the name absent. ok is false when they can't be told apart.
func (c *compiler) caseGroup(v *view, ifs []discriminatorIf) (cases []ifCase, ok bool) {
	d := c.d
	name := ifs[0].name
	one := []string{name}
	absentCase := func() {
		if c.requiresName(v, name) {
			return
		}
		ic := ifCase{absent: one}
		for _, f := range ifs {
			if f.required {
				ic.add, ic.paths = append(ic.add, f.els), append(ic.paths, f.el0)
			} else {
				ic.add, ic.paths = append(ic.add, f.then), append(ic.paths, f.then0)
			}
		}
		cases = append(cases, ic)
	}
	if ifs[0].presence {
		ic := ifCase{present: one}
		for _, f := range ifs {
			ic.add, ic.paths = append(ic.add, f.cond, f.then), append(ic.paths, f.condPath, f.then0)
		}
		cases = append(cases, ic)
		absentCase()
		return cases, true
	}
	// The values the property may take (its listed ones, or, where it
	// lists none, every condition's), each with the conditions it meets
	// (a bit each); a value among none, or values not listed, make the
	// case of the property present with none of the conditions' values
	// (rest).
	declared, finite := c.literalSet(c.memberValue(v, name))
	var listed []int // every condition's values, which the rest case rules out
	for _, f := range ifs {
		listed = append(listed, f.values...)
	}
	candidates := declared
	if !finite {
		candidates = listed
	}
	if len(candidates)*len(listed) > maxIfComparisons {
		return nil, false
	}
	rest := !finite
	var classes []uint64 // the sets of conditions values meet, each once
	for _, m := range candidates {
		if !comparableLiteral(d, m) {
			return nil, false
		}
		var meets uint64
		for k, f := range ifs {
			if slices.ContainsFunc(f.values, func(x int) bool { return c.literalEqual(x, m) }) {
				meets |= 1 << k
			}
		}
		if meets == 0 {
			rest = true
		} else if !slices.Contains(classes, meets) {
			classes = append(classes, meets)
		}
	}
	// Two conditions true at once for some value (gap decision 297): a
	// case for each set of conditions some value meets, the property
	// holding only such values.
	overlapping := slices.ContainsFunc(classes, func(meets uint64) bool { return meets&(meets-1) != 0 })
	if overlapping && len(classes)+2 > maxIfCases {
		return nil, false
	}
	if rest && !c.cuttable(c.memberValue(v, name), listed) {
		return nil, false
	}
	if !overlapping {
		// The case of the name absent is the case of condition i, its
		// name absent or holding i's values (i's if, which does not
		// require the name, says so), when the two add the same
		// branches: i's then applies where the name is absent too, and
		// every other condition's else does (gap decision 327).
		merged := -1
		if !c.requiresName(v, name) {
			for i, f := range ifs {
				same := !f.required // (its if, added, must let the name be absent)
				for j, g := range ifs {
					same = same && (j == i || g.required || g.then == g.els)
				}
				if same {
					merged = i
					break
				}
			}
		}
		for i, f := range ifs {
			ic := ifCase{add: []int{f.cond, f.then}, paths: []string{f.condPath, f.then0}, present: one}
			if i == merged {
				ic.present = nil
			}
			for j, g := range ifs {
				if j != i {
					ic.add, ic.paths = append(ic.add, g.els), append(ic.paths, g.el0)
				}
			}
			cases = append(cases, ic)
		}
		if merged >= 0 {
			if rest {
				ic := ifCase{present: one, excluded: []exclusion{{name: name, values: listed, path: ifs[0].condPath}}}
				for _, f := range ifs {
					ic.add, ic.paths = append(ic.add, f.els), append(ic.paths, f.el0)
				}
				cases = append(cases, ic)
			}
			return cases, true
		}
	} else {
		for _, meets := range classes {
			// The conditions of meets hold (each if restricts the
			// property to its values, and its then applies); the others
			// fail (their values left out, their else applies).
			ic := ifCase{present: one}
			var outside []int
			for k, f := range ifs {
				if meets&(1<<k) != 0 {
					ic.add, ic.paths = append(ic.add, f.cond, f.then), append(ic.paths, f.condPath, f.then0)
				} else {
					ic.add, ic.paths = append(ic.add, f.els), append(ic.paths, f.el0)
					outside = append(outside, f.values...)
				}
			}
			if len(outside) > 0 {
				if !c.cuttable(c.memberValue(v, name), outside) {
					return nil, false
				}
				ic.excluded = []exclusion{{name: name, values: outside, path: ifs[0].condPath}}
			}
			cases = append(cases, ic)
		}
	}
	if rest {
		// The property holds a value no condition lists: every if is
		// false, every else applies.
		ic := ifCase{present: one, excluded: []exclusion{{name: name, values: listed, path: ifs[0].condPath}}}
		for _, f := range ifs {
			ic.add, ic.paths = append(ic.add, f.els), append(ic.paths, f.el0)
		}
		cases = append(cases, ic)
	}
	absentCase()
	return cases, true
}

// cuttable reports whether the values of view mv (a discriminator's
// property) can leave out the literal values listed (ifCases): a string
// by the string automaton (under strict, which ifCases is), null and
// booleans by their literals, a number where numbersExcept cuts its range
// (integers, or a bounded number, without multipleOf). A view of literals
// (enum, const) leaves them out whatever their type.
func (c *compiler) cuttable(mv *view, listed []int) bool {
	if mv.never || c.has(mv, func(ks *schema.Keys) bool { return ks.Enum >= 0 || ks.Const >= 0 }) {
		return true
	}
	set := c.types(mv)
	if set&tNum == 0 || !slices.ContainsFunc(listed, func(m int) bool { return c.d.Kind(m) == pyjson.Number }) {
		return true
	}
	if c.has(mv, func(ks *schema.Keys) bool { return ks.Mult >= 0 }) {
		return false
	}
	if set&tFrac == 0 {
		return true
	}
	lo, hi := c.viewBounds(mv)
	return lo != nil || hi != nil
}

// requiresName reports whether a schema of v requires name, or v's
// present names hold it.
func (c *compiler) requiresName(v *view, name string) bool {
	if slices.Contains(v.present, name) {
		return true
	}
	d := c.d
	for _, n := range v.nodes {
		if n.ks.Required < 0 || d.Kind(n.ks.Required) != pyjson.Array {
			continue
		}
		found := false
		d.Elements(n.ks.Required, func(e, _ int) bool {
			found = d.Kind(e) == pyjson.String && d.Str(e) == name
			return !found
		})
		if found {
			return true
		}
	}
	return false
}
