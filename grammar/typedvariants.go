package grammar

import (
	"bytes"
	"slices"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// typedVariantCases returns, under strict, for a oneOf of v whose variants
// ws are open objects that declare properties and require names
// ({"oneOf": [{"properties": {"login": {"type": "string"}}, "required":
// ["login"]}, {"properties": {"password": {"type": "string"}},
// "required": ["password"]}]}, gap decision 234), the cases of each
// variant that make the oneOf exact. Objects are open under strict, so an
// object may hold both names: it is valid for both variants, so for
// neither, unless a value fails one ({"login": "x", "password": 1} is
// valid for the first alone). An object fails variant j when it lacks a
// name j requires, or holds a name j declares with a value j's schema of
// it rules out; so the cases of variant i are the least choices of one
// such failure for each other variant, beside i's required names, each
// written as an object whose absent names are left out and whose cut
// members hold values of none of the types, and none of the values, the
// cut names (view.excluded). Each variant's own schemas may hold only
// type "object", properties, required, annotations and definitions, and
// each schema a variant declares for a name only a type (typesOnly:
// anything, nothing, or types, but not integer without number, whose
// complement the grammar does not write) or a const or enum of scalars
// (literalsOnly; a cut of numbers a member can't leave out exactly,
// cuttable, refuses). Variants closed to their properties
// (additionalProperties false, every variant; gap decision 311) may share
// names, as closedVariantCases' may not, and are read in both modes: an
// object also fails closed variant j by holding a name j does not
// declare, or one j declares with a schema of another kind than i's
// (numbers one kind; a case told apart so is byKind); a name both declare
// with the same schema (sameSchema) tells them nothing; and a closed
// variant's schema of a name need not be a type or literals where no
// other variant declares the name otherwise. nil when the variants are
// not of that form, when variantsOverlap finds them apart already (their
// grammar is exact as it is), when one variant alone has no type and v
// admits values of other types (valid for that one alone, which the
// cases, objects, leave out),
// beside an enum, const, dependencies or dependentSchemas of v, past
// maxExclusiveCases cases, or past maxCutWork comparisons.
func (c *compiler) typedVariantCases(v *view, ws []*view) [][]exclusiveCase {
	d := c.d
	if len(ws) < 2 || len(ws) > maxDiscriminated ||
		c.has(v, func(ks *schema.Keys) bool { return ks.Enum >= 0 || ks.Const >= 0 }) ||
		c.hasDependencies(v) || c.hasDependentSchemas(v) {
		return nil
	}
	// What the variant's schema of a name admits: values of types, or
	// (listed) the values of a const or enum; neither when not exact (a
	// closed variant's, read only where another variant declares the
	// name with another schema).
	type property struct {
		name   string
		schema int
		types  typeSet
		values []int
		listed bool
		exact  bool
	}
	type variant struct {
		required []string
		props    []property
		typed    bool
		// closed: additionalProperties false, so its objects hold only
		// the names of props (gap decision 311).
		closed bool
	}
	declares := func(x *variant, name string) *property {
		for k := range x.props {
			if x.props[k].name == name {
				return &x.props[k]
			}
		}
		return nil
	}
	// empty reports whether no object is valid for closed variant x: it
	// requires a name it does not declare.
	empty := func(x *variant) bool {
		return x.closed && slices.ContainsFunc(x.required, func(r string) bool { return declares(x, r) == nil })
	}
	vs := make([]variant, len(ws))
	untyped, declared, closed := 0, 0, 0
	for i, w := range ws {
		x := &vs[i]
		for _, n := range w.nodes {
			if v.has(n.node) {
				continue // the view's own, not the variant's
			}
			ks := n.ks
			if n.other || n.mayOther || !typedVariantKeys(d, ks) {
				return nil
			}
			typed, ok := readVariantNode(d, ks, &x.required)
			if !ok {
				return nil
			}
			x.typed = x.typed || typed
			closing := ks.AdditionalProperties >= 0 // false (typedVariantKeys)
			if closing && (x.closed || len(x.props) > 0) || !closing && x.closed && ks.Properties >= 0 {
				// (two closed schemas, or properties one schema declares
				// and another closes out: not read)
				return nil
			}
			x.closed = x.closed || closing
			if ks.Properties >= 0 {
				if d.Kind(ks.Properties) != pyjson.Object || d.DuplicateKey(ks.Properties) >= 0 {
					return nil
				}
				ok = true
				d.Members(ks.Properties, func(k, s int) bool {
					name := d.Str(k)
					p := property{name: name, schema: s}
					if p.types, p.exact = typesOnly(d, s); !p.exact {
						p.values, p.exact = literalsOnly(d, s)
						p.listed = p.exact
					}
					// (a name two schemas of the variant declare: both
					// apply, not read here)
					ok = (p.exact || closing) && !slices.ContainsFunc(x.props, func(p property) bool { return p.name == name }) &&
						len(x.props) < maxExclusiveNames
					x.props = append(x.props, p)
					return ok
				})
				if !ok {
					return nil
				}
				declared++
			}
		}
		if !x.typed {
			untyped++
		}
		if x.closed {
			closed++
		} else if !c.strict {
			return nil // (below: not strict, closed variants only)
		}
	}
	if declared == 0 && closed == 0 || untyped == 1 && c.types(v)&^tObj != 0 {
		// (Variants that only require names are exclusiveVariants'.)
		return nil
	}
	if closed > 0 && closed < len(vs) || !c.strict && closed == 0 {
		// An open variant's objects fail a closed one by holding a name
		// it does not declare, which no case of names can say. Not
		// strict, open variants are closed to their declared names
		// (decision 103), so only closed ones are read, whose meaning is
		// the same in both modes (as closedVariantCases').
		return nil
	}
	sets := make([]typeSet, len(ws))
	for i, w := range ws {
		sets[i] = c.types(w)
		if closed > 0 {
			// Only objects can be valid for one variant alone (a value
			// of another type is for every untyped variant, and they
			// are two or v admits only objects): closed variants apart
			// as objects are written as they are.
			sets[i] &= tObj
		}
	}
	if !c.variantsOverlap(sets, ws) || c.err != nil {
		return nil
	}
	// An option fails one other variant: lacking a name (cut nil), or
	// holding it with a value the other variant's schema of it rules out
	// (cut: of none of its types, or none of its values).
	type option struct {
		name string
		cut  *exclusion
		hold bool // fails a closed variant by holding the name, whatever its value
		kind bool // (hold) because no value of its kind is j's
	}
	out := make([][]exclusiveCase, len(vs))
	total := 0
	w := &cutWork{c: c}
	if cutWorkDone != nil {
		defer func() { cutWorkDone(w.compared) }()
	}
	for i, own := range vs {
		// A member of variant i's objects, by name.
		members := map[string]*cutMember{}
		member := func(name string) *cutMember {
			m, ok := members[name]
			if !ok {
				m = &cutMember{view: c.memberValue(ws[i], name)}
				if !m.view.never {
					m.types = c.types(m.view)
					m.listed, m.isListed = c.literalSet(m.view)
				}
				members[name] = m
				w.charge(len(m.listed) + 16)
			}
			return m
		}
		if empty(&own) {
			continue // no object is valid for it
		}
		cases := []exclusiveCase{{present: slices.Clone(own.required)}}
		for j, other := range vs {
			if j == i || empty(&other) ||
				own.closed && slices.ContainsFunc(other.required, func(r string) bool { return declares(&own, r) == nil }) {
				continue // no object, or none of i's, is valid for j
			}
			var opts []option
			for _, r := range other.required {
				opts = append(opts, option{name: r})
			}
			if other.closed {
				for _, p := range own.props {
					if declares(&other, p.name) == nil && w.leaves(member(p.name), &exclusion{name: p.name}) {
						opts = append(opts, option{name: p.name, hold: true})
					}
				}
			}
			for _, p := range other.props {
				if own.closed {
					q := declares(&own, p.name)
					if q == nil || c.sameSchema(q.schema, p.schema, w) {
						continue // i's objects never hold it, or hold it with a value of j's
					}
				}
				if !p.exact {
					// Another schema of the name: only where it admits no
					// value of a kind i's does (numbers one kind, since the
					// grammar's integer and fraction are spellings), so
					// that holding the name fails j.
					m, jm := member(p.name), c.memberValue(ws[j], p.name)
					jListed, isListed := c.literalSet(jm)
					if w.kinds(m.types, m.listed, m.isListed)&w.kinds(c.types(jm), jListed, isListed) != 0 {
						return nil
					}
					opts = append(opts, option{name: p.name, hold: true, kind: true})
					continue
				}
				cut := &exclusion{name: p.name, path: ws[j].path}
				if p.listed {
					cut.values = p.values
				} else {
					cut.types = p.types
				}
				if !w.leaves(member(p.name), cut) {
					continue // no value of i's is outside it
				}
				if w.charge(len(p.values)); p.listed && !c.cuttable(member(p.name).view, p.values) {
					return nil // (a value outside the list the grammar can't write exactly)
				}
				opts = append(opts, option{name: p.name, cut: cut})
			}
			var next []exclusiveCase
			for _, cs := range cases {
				if slices.ContainsFunc(opts, func(o option) bool {
					if o.hold {
						return slices.Contains(cs.present, o.name)
					}
					return w.meets(cs, o.name, o.cut)
				}) {
					next = append(next, cs)
					continue
				}
				for _, o := range opts {
					if o.hold {
						if !slices.Contains(cs.absent, o.name) {
							next = append(next, exclusiveCase{present: append(slices.Clip(cs.present), o.name), absent: cs.absent, cuts: cs.cuts, byKind: cs.byKind || o.kind})
						}
						continue
					}
					if o.cut == nil {
						if !slices.Contains(cs.present, o.name) {
							next = append(next, exclusiveCase{present: cs.present, absent: append(slices.Clip(cs.absent), o.name), cuts: cs.cuts, byKind: cs.byKind})
						}
						continue
					}
					if slices.Contains(cs.absent, o.name) {
						continue
					}
					nc := exclusiveCase{present: cs.present, absent: cs.absent, cuts: slices.Clone(cs.cuts), byKind: cs.byKind}
					k := slices.IndexFunc(nc.cuts, func(x exclusion) bool { return x.name == o.name })
					if k < 0 {
						nc.cuts, k = append(nc.cuts, exclusion{name: o.name, path: o.cut.path}), len(nc.cuts)
					}
					nc.cuts[k].types |= o.cut.types
					nc.cuts[k].values = append(slices.Clip(nc.cuts[k].values), o.cut.values...)
					w.charge(len(nc.present) + len(nc.absent) + len(nc.cuts) + len(nc.cuts[k].values))
					if !w.leaves(member(o.name), &nc.cuts[k]) {
						continue // no value left for it
					}
					if !slices.Contains(nc.present, o.name) {
						nc.present = append(slices.Clip(nc.present), o.name)
					}
					next = append(next, nc)
				}
			}
			if len(next) > 16*maxExclusiveCases || w.over() {
				return nil
			}
			if cases = w.least(next); w.over() {
				return nil // past maxCutWork
			}
		}
		if total += len(cases); total > maxExclusiveCases {
			return nil
		}
		out[i] = cases
	}
	return out
}

// maxCutWork caps the work of one typedVariantCases, in names and values
// compared: a oneOf of 32 variants whose properties list 900 values each
// took 43 s comparing cuts case by case before it.
const maxCutWork = 1 << 17

// cutWork is what typedVariantCases has compared so far, against
// maxCutWork: past it every check fails and the oneOf is left to the
// general path (refused under strict).
type cutWork struct {
	c     *compiler
	spent int
	// compared counts the values compared (literalEqual), which spent
	// bounds from above: for cutWorkDone.
	compared int
}

// cutWorkDone, set by tests, is told the values each typedVariantCases
// compared.
var cutWorkDone func(compared int)

// charge counts n comparisons, and reports whether the work is still
// within maxCutWork.
func (w *cutWork) charge(n int) bool {
	w.spent += n
	return w.spent <= maxCutWork
}

// over reports whether the work went past maxCutWork.
func (w *cutWork) over() bool { return w.spent > maxCutWork }

// A cutMember is a member of a variant's objects: its view, the types it
// allows and the values it lists (isListed: by a const or enum).
type cutMember struct {
	view     *view
	types    typeSet
	listed   []int
	isListed bool
}

// meets reports whether every object of case cs fails a variant by
// holding member name with a value cut rules out (cut nil: by lacking
// name): the case holds the name, and its own cut of it rules out every
// type and value cut does. False past maxCutWork.
func (w *cutWork) meets(cs exclusiveCase, name string, cut *exclusion) bool {
	if !w.charge(len(cs.absent) + len(cs.present) + len(cs.cuts)) {
		return false
	}
	if cut == nil {
		return slices.Contains(cs.absent, name)
	}
	if !slices.Contains(cs.present, name) {
		return false
	}
	var have exclusion
	if k := slices.IndexFunc(cs.cuts, func(x exclusion) bool { return x.name == name }); k >= 0 {
		have = cs.cuts[k]
	}
	if !w.charge(len(cut.values) * (1 + len(have.values))) {
		return false
	}
	return have.types&cut.types == cut.types && !slices.ContainsFunc(cut.values, func(m int) bool {
		return valueType(w.c.d, m)&have.types == 0 && !slices.ContainsFunc(have.values, func(h int) bool {
			w.compared++
			return w.c.literalEqual(h, m)
		})
	})
}

// leaves reports whether member m keeps a value beside cut: a type cut
// leaves none of the types m allows, or every value m lists is cut.
// False past maxCutWork.
func (w *cutWork) leaves(m *cutMember, cut *exclusion) bool {
	set := m.types &^ cut.types
	if m.view.never || set == 0 || !w.charge(len(m.listed)*(1+len(cut.values))) {
		return false
	}
	return !m.isListed || slices.ContainsFunc(m.listed, func(x int) bool {
		return admits(w.c.d, set, x) && !slices.ContainsFunc(cut.values, func(y int) bool {
			w.compared++
			return w.c.literalEqual(y, x)
		})
	})
}

// kinds is the kinds of value a member admits: types, narrowed to the
// kinds of the values it lists when isListed, numbers one kind (the
// grammar's integer and fraction are spellings).
func (w *cutWork) kinds(types typeSet, listed []int, isListed bool) typeSet {
	if isListed {
		w.charge(len(listed))
		var of typeSet
		for _, m := range listed {
			of |= valueType(w.c.d, m)
		}
		types &= numbersOneKind(of)
	}
	return numbersOneKind(types)
}

// least returns cases without those whose objects another case holds
// already (it asks no more names present or absent, and cuts no more
// types or values), or that equal an earlier one.
func (w *cutWork) least(cases []exclusiveCase) []exclusiveCase {
	// a asks everything b does: b's objects include a's.
	asksAll := func(a, b exclusiveCase) bool {
		if !w.charge(len(a.present)*len(b.present) + len(a.absent)*len(b.absent)) {
			return false
		}
		if slices.ContainsFunc(b.present, func(n string) bool { return !slices.Contains(a.present, n) }) ||
			slices.ContainsFunc(b.absent, func(n string) bool { return !slices.Contains(a.absent, n) }) {
			return false
		}
		return !slices.ContainsFunc(b.cuts, func(x exclusion) bool { return !w.meets(a, x.name, &x) })
	}
	var out []exclusiveCase
	for i, a := range cases {
		redundant := false
		for j, b := range cases {
			if i != j && asksAll(a, b) && (!asksAll(b, a) || j < i) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, a)
		}
	}
	return out
}

// typedVariantKeys reports whether a schema of a variant holds only what
// typedVariantCases reads: type, properties, required,
// additionalProperties false, annotations, definitions, and a $ref (whose
// schema is one of the variant's too).
func typedVariantKeys(d *pyjson.Doc, ks *schema.Keys) bool {
	return (ks.AdditionalProperties < 0 || d.Kind(ks.AdditionalProperties) == pyjson.False) && closedVariantKeys(ks)
}

// sameSchema reports whether schemas a and b admit the same values for
// certain: after following each $ref that stands alone (beside
// annotations, throughRefs), one schema, or two of the same text that
// refers to nothing. False past w's work.
func (c *compiler) sameSchema(a, b int, w *cutWork) bool {
	a, b = c.throughRefs(a), c.throughRefs(b)
	if a == b {
		return true
	}
	ra, rb := c.d.Raw(a), c.d.Raw(b)
	return w.charge(len(ra)/8) && bytes.Equal(ra, rb) && !refers(ra)
}

// refers reports whether schema text may hold a reference ($ref,
// $dynamicRef, $recursiveRef), whose meaning depends on where the text
// stands: a key ending in ref, or an escape that could spell one.
func refers(text []byte) bool {
	return bytes.Contains(text, []byte(`ref"`)) || bytes.Contains(text, []byte(`Ref"`)) || bytes.Contains(text, []byte(`\u`))
}

// numbersOneKind is set with integers and fractions each standing for
// both: a number's kind, whatever its spelling.
func numbersOneKind(set typeSet) typeSet {
	if set&tNum != 0 {
		set |= tNum
	}
	return set
}
