package grammar

import (
	"math/big"
	"slices"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// if/then/else where the condition is known without the value: without
// if, then and else are ignored (JSON Schema applies them only beside
// it); an if with neither then nor else (or with both admitting anything)
// changes nothing; if true (or admitting anything) applies then, as an
// allOf member would, and if false applies else. Other conditions stay
// reported (an error under strict).

// conditionKnown reports whether schema s's if/then/else are applied by
// the view without looking at the value, and returns the branch that
// applies (-1: none).
func conditionKnown(d *pyjson.Doc, s int) (branch int, known bool) {
	cond, then, els := d.Lookup(s, "if"), d.Lookup(s, "then"), d.Lookup(s, "else")
	trivial := func(n int) bool { return n < 0 || anySchema(d, n) }
	switch {
	case cond < 0, trivial(then) && trivial(els):
		return -1, true
	case anySchema(d, cond):
		if trivial(then) {
			return -1, true
		}
		return then, true
	case d.Kind(cond) == pyjson.False:
		if trivial(els) {
			return -1, true
		}
		return els, true
	}
	return -1, false
}

// not, where the grammar can apply it: a schema that matches nothing
// (false, or not of one that admits anything) excludes nothing; one that
// admits anything excludes every value; one of only type (and
// annotations) excludes those types, except integer without number, whose
// complement among numbers (the numbers that are not whole) the grammar
// does not write. Other not schemas stay reported (an error under
// strict).

// notTypes returns the types schema s's not excludes, and whether that is
// all it does.
func notTypes(d *pyjson.Doc, s int) (excluded typeSet, exact bool) {
	n := d.Lookup(s, "not")
	if n < 0 {
		return 0, true
	}
	return typesOnly(d, n)
}

// typesOnly reads schema s when it constrains a value by its type alone:
// the types it admits, tAll for a schema that admits anything (true,
// annotations only), none for one that admits nothing (false). exact is
// false for any other schema, and for "integer" without "number" (a whole
// number written 2.0 is an integer, which the grammar's types, by
// spelling, do not tell).
func typesOnly(d *pyjson.Doc, s int) (types typeSet, exact bool) {
	switch {
	case neverSchema(d, s):
		return 0, true
	case anySchema(d, s):
		return tAll, true
	case d.Kind(s) != pyjson.Object, d.DuplicateKey(s) >= 0:
		return 0, false // (a key written twice: not read, see heldNames)
	}
	t, exact := -1, true
	d.Members(s, func(k, val int) bool {
		switch d.Str(k) {
		case "type":
			t = val
		default:
			exact = annotation(d.Str(k))
		}
		return exact
	})
	if !exact || t < 0 {
		return 0, false
	}
	types = typesOf(d, t)
	if types&tInt != 0 && types&tFrac == 0 {
		return 0, false
	}
	return types, true
}

// neverSchema reports whether schema s matches nothing: false, or only
// not of a schema that admits anything.
func neverSchema(d *pyjson.Doc, s int) bool {
	switch d.Kind(s) {
	case pyjson.False:
		return true
	case pyjson.Object:
		n, only := -1, true
		d.Members(s, func(k, val int) bool {
			switch d.Str(k) {
			case "not":
				n = val
			case "title", "description", "$comment", "examples", "default":
			default:
				only = false
			}
			return only
		})
		return only && n >= 0 && anySchema(d, n)
	}
	return false
}

// notKeywords are the keywords of a not's schema that notString and
// notRequired read, as nodes (-1: absent).
type notKeywords struct{ pattern, enum, constant, required, typ int }

// notSchema is the schema the not of schema s stands for (-1: none): its
// own, or, where it is only a $ref (and annotations), the schema the $ref
// names (throughRefs; gap decision 296: Avro's {"not": {"$ref":
// "#/definitions/primitiveType"}}, an enum of strings). A $ref that can't
// be resolved is left as it is, and the readers refuse it.
func (c *compiler) notSchema(s int) int {
	return c.throughRefs(c.d.Lookup(s, "not"))
}

// maxRefsAlone caps the $refs throughRefs follows.
const maxRefsAlone = 8

// throughRefs is the schema n stands for: n, or, where n is only a $ref
// (beside annotations), the schema the $ref names, followed up to
// maxRefsAlone times. A $ref that can't be resolved is left as it is.
func (c *compiler) throughRefs(n int) int {
	n, _ = c.refsAlone(n)
	return n
}

// refsAlone is throughRefs, and the number of $refs it followed.
func (c *compiler) refsAlone(n int) (target, hops int) {
	d := c.d
	for range maxRefsAlone {
		if n < 0 || d.Kind(n) != pyjson.Object || d.DuplicateKey(n) >= 0 {
			return n, hops
		}
		ref, only := -1, true
		d.Members(n, func(key, val int) bool {
			if k := d.Str(key); k == "$ref" {
				ref = val
			} else {
				only = annotation(k)
			}
			return only
		})
		if ref < 0 || !only || d.Kind(ref) != pyjson.String {
			return n, hops
		}
		target := c.resolveRef(n, ref)
		if target < 0 {
			return n, hops
		}
		n, hops = target, hops+1
	}
	return n, hops
}

// readNot reads a not's schema n (notSchema): ok is false when there is
// none, when it is not an object, or when it holds a keyword other than
// those of notKeywords and annotations.
func readNot(d *pyjson.Doc, n int) (k notKeywords, ok bool) {
	k = notKeywords{-1, -1, -1, -1, -1}
	if n < 0 || d.Kind(n) != pyjson.Object || d.DuplicateKey(n) >= 0 {
		return k, false
	}
	ok = true
	d.Members(n, func(key, val int) bool {
		switch d.Str(key) {
		case "pattern":
			k.pattern = val
		case "enum":
			k.enum = val
		case "const":
			k.constant = val
		case "required":
			k.required = val
		case "type":
			k.typ = val
		default:
			ok = annotation(d.Str(key))
		}
		return ok
	})
	return k, ok
}

// notString reads the not of schema s when it rules out strings only by
// their text (gap decision 198): a pattern, or an enum or const of
// strings, beside "type": "string" at most (and annotations). neg is the
// texts it rules out, as a value expression (a pattern's search, translated
// once per compile by namePattern, or the literals whole); stringsOnly is
// true when the not rules out every value that is not a string too
// ({"not": {"pattern": "^a"}}: a number is valid for the pattern, so not
// for the not). ok is false for any other not.
func (c *compiler) notString(s int) (neg *expr, stringsOnly bool, ok bool) {
	// Read once per schema: types asks for it at every view of the value.
	if r, hit := c.notStringsRead[s]; hit {
		return r.neg, r.stringsOnly, r.ok
	}
	neg, stringsOnly, ok = c.readNotString(s)
	if c.notStringsRead == nil {
		c.notStringsRead = map[int]notStringRead{}
	}
	c.notStringsRead[s] = notStringRead{neg, stringsOnly, ok}
	return neg, stringsOnly, ok
}

// notStringRead is what notString found in a schema.
type notStringRead struct {
	neg             *expr
	stringsOnly, ok bool
}

// readNotString is notString, read from the document.
func (c *compiler) readNotString(s int) (neg *expr, stringsOnly bool, ok bool) {
	d := c.d
	k, ok := readNot(d, c.notSchema(s))
	if !ok || k.required >= 0 || (k.pattern >= 0) == (k.enum >= 0 || k.constant >= 0) || k.enum >= 0 && k.constant >= 0 {
		return nil, false, false // one pattern, or one enum or const
	}
	if k.typ >= 0 && typesOf(d, k.typ) != tStr {
		return nil, false, false
	}
	switch {
	case k.pattern >= 0:
		if d.Kind(k.pattern) != pyjson.String {
			return nil, false, false
		}
		e := c.namePattern(k.pattern)
		if e == nil && c.strict {
			// A pattern with lookahead assertions, which the string
			// automaton reads (decisions 286, 288).
			e = c.aheadName(k.pattern)
		}
		return e, k.typ < 0, e != nil
	case k.enum >= 0:
		if d.Kind(k.enum) != pyjson.Array {
			return nil, false, false
		}
		var alts []*expr
		d.Elements(k.enum, func(e, _ int) bool {
			if ok = d.Kind(e) == pyjson.String; ok {
				alts = append(alts, lit(d.Str(e)))
			}
			return ok
		})
		if !ok || len(alts) == 0 {
			return nil, false, false
		}
		return alt(alts...), false, true
	}
	if d.Kind(k.constant) != pyjson.String {
		return nil, false, false
	}
	return lit(d.Str(k.constant)), false, true
}

// maxNotNumbers caps the numbers the nots of one view rule out
// (notNumbers): each splits the view's range in two, a range of a few
// rules per digit of its bounds.
const maxNotNumbers = 16

// notNumbers reads the not of schema s when, for a view of numbers, it
// rules out numbers by their values (gap decision 223): an enum or a const
// (beside a type and annotations at most). xs are the numbers it rules
// out (3.0 is 3); others are the types of its other members (a string,
// null, ...), which a view admitting any of them can't apply this way. ok
// is false for any other not, for a number past maxRangeDigits digits
// either side of the point, or past maxNotNumbers members.
func (c *compiler) notNumbers(s int) (xs []*big.Rat, others typeSet, ok bool) {
	d := c.d
	k, ok := readNot(d, c.notSchema(s))
	if !ok || k.required >= 0 || k.pattern >= 0 || (k.enum >= 0) == (k.constant >= 0) {
		return nil, 0, false
	}
	ruled := tAll // the types the not's schema admits
	if k.typ >= 0 {
		ruled = typesOf(d, k.typ)
	}
	add := func(m int) bool {
		if !admits(d, ruled, m) {
			return true // of a type the not's schema rules out: it rules out nothing
		}
		switch d.Kind(m) {
		case pyjson.Number:
			v, rounded, huge := parseBound(string(d.Raw(m)), true)
			if huge || rounded || len(xs) == maxNotNumbers {
				return false
			}
			xs = append(xs, v)
		default:
			others |= valueType(d, m)
		}
		return true
	}
	if k.constant >= 0 {
		return xs, others, add(k.constant)
	}
	if d.Kind(k.enum) != pyjson.Array {
		return nil, 0, false
	}
	ok = true
	d.Elements(k.enum, func(e, _ int) bool {
		ok = add(e)
		return ok
	})
	return xs, others, ok
}

// annotation reports whether a schema keyword only annotates: it
// constrains no value.
func annotation(keyword string) bool {
	switch keyword {
	case "title", "description", "$comment", "examples", "default", "deprecated", "readOnly", "writeOnly":
		return true
	}
	return schema.Extension(keyword)
}

// notRequired reads the not of schema s when it rules out objects by the
// names they hold (gap decisions 199 and 205): its schema only requires
// names, through required, allOf and anyOf of such schemas (and "type":
// "object", properties of schemas that admit anything, and annotations;
// behind a $ref too, notSchema). sets are the sets of names the not forbids an
// object to hold all of: such an object must lack a name of each set
// (not {"required": ["a", "b"]}: one set; not {"anyOf": [{"required":
// ["a"]}, {"required": ["b"]}]}: two, so both names absent). objectsOnly is
// true when the not rules out every value that is not an object too (a
// number is valid for required, so not for the not). ok is false for any
// other not.
func (c *compiler) notRequired(s int) (sets [][]string, objectsOnly bool, ok bool) {
	d := c.d
	n := c.notSchema(s)
	if n < 0 {
		return nil, false, false
	}
	sets, typed, ok := heldNames(d, n, 0)
	if !ok {
		return nil, false, false
	}
	return sets, !typed, true
}

// Limits on the schemas notRequired reads: their sets of names, the
// names of one set, and how deep allOf and anyOf nest.
const (
	maxHeldSets  = 8
	maxHeldNames = 8
	maxHeldDepth = 3
)

// heldNames reads schema n when all it asks of an object is to hold
// names: sets, the sets of names one of which the object holds all of
// (required adds its names to each; allOf joins its members' sets one from
// each; anyOf lists its members' sets), and typed when it says "type":
// "object". ok is false for any other schema, past the limits above, or
// for a set of no name (the schema would admit every object).
func heldNames(d *pyjson.Doc, n, depth int) (sets [][]string, typed bool, ok bool) {
	if depth >= maxHeldDepth || d.Kind(n) != pyjson.Object || d.DuplicateKey(n) >= 0 {
		// (A key written twice: JSON Schema readers keep its last
		// value, which a walk of every member would not.)
		return nil, false, false
	}
	sets, ok = [][]string{nil}, true
	d.Members(n, func(key, val int) bool {
		var these [][]string // what this keyword asks: one of these sets
		switch k := d.Str(key); k {
		case "required":
			if ok = d.Kind(val) == pyjson.Array; !ok {
				return false
			}
			var names []string
			d.Elements(val, func(e, _ int) bool {
				if ok = d.Kind(e) == pyjson.String; ok && !slices.Contains(names, d.Str(e)) {
					names = append(names, d.Str(e))
					ok = len(names) <= maxHeldNames // (past it: refused below; stop reading)
				}
				return ok
			})
			these = [][]string{names}
		case "allOf", "anyOf":
			if ok = d.Kind(val) == pyjson.Array && d.Nodes[val].Len > 0; !ok {
				return false
			}
			if k == "allOf" {
				these = [][]string{nil}
			}
			d.Elements(val, func(e, _ int) bool {
				sub, subTyped, subOK := heldNames(d, e, depth+1)
				if ok = subOK && !subTyped; !ok {
					return false // a type inside: not followed
				}
				if k == "allOf" {
					these = joinSets(these, sub)
				} else {
					these = append(these, sub...)
				}
				// Past the limits, stop here: joined one member at a
				// time, a set of thousands of names took a quadratic
				// time to grow (gap decision 316).
				ok = len(these) <= maxHeldSets && setsWithin(these)
				return ok
			})
		case "type":
			typed = typesOf(d, val) == tObj
			ok = typed
			return ok
		case "properties":
			// Schemas that admit anything ({"properties": {"x": {}},
			// "required": ["x"]}) ask nothing of the names they hold
			// (gap decision 296).
			if ok = d.Kind(val) == pyjson.Object && d.DuplicateKey(val) < 0; ok {
				d.Members(val, func(_, p int) bool {
					ok = anySchema(d, p)
					return ok
				})
			}
			return ok
		default:
			ok = annotation(k)
			return ok
		}
		sets = joinSets(sets, these)
		ok = ok && len(sets) <= maxHeldSets && setsWithin(sets)
		return ok
	})
	if !ok {
		return nil, false, false
	}
	for _, set := range sets {
		if len(set) == 0 || len(set) > maxHeldNames {
			return nil, false, false
		}
	}
	return sets, typed, true
}

// setsWithin reports whether every set of sets holds at most
// maxHeldNames names.
func setsWithin(sets [][]string) bool {
	for _, set := range sets {
		if len(set) > maxHeldNames {
			return false
		}
	}
	return true
}

// joinSets is every union of a set of a with a set of b.
func joinSets(a, b [][]string) [][]string {
	var out [][]string
	for _, x := range a {
		for _, y := range b {
			u := slices.Clip(x)
			for _, name := range y {
				if !slices.Contains(u, name) {
					u = append(u, name)
				}
			}
			out = append(out, u)
		}
	}
	return out
}
