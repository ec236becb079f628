package grammar

import (
	"slices"
	"strconv"
	"strings"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// The types of a oneOf's variants (gap decision 289). A oneOf is written
// exactly as the choice of its variants when no value is valid for two of
// them; the first test of that is that their types are apart. Two
// things made variants look alike when they were not, or made them
// alike when the oneOf already said which one a value takes:
//
//   - A variant's types were those of its type keywords alone. A variant
//     that is itself a oneOf or anyOf of typed schemas ({"oneOf":
//     [{"oneOf": [{"type": "string"}, {"type": "integer"}]}, {"type":
//     "null"}]}), or lists its values (enum, const), admits those types
//     only: variantTypes narrows by them.
//   - A value of a type that two variants admit whole (neither
//     constrains it: {"oneOf": [{"required": ["a"]}, {"required": ["b"]},
//     {"type": "string", "minLength": 2}]} for arrays, numbers, ...) is
//     valid for both, so for no variant alone: no variant may take it
//     (sharedWholeTypes). objectsAlone did this for objects only.

// maxTypeWork caps the schemas variantTypes reads for one oneOf: past it,
// a variant's nested schemas narrow nothing (which only keeps a variant's
// types wider than they are, and the oneOf reported as before).
const maxTypeWork = 256

// variantTypes is the types of the values valid for variant w: c.types(w)
// narrowed by w's enum and const and by its anyOf and oneOf not yet
// distributed, whose variants' types are read from their schemas
// (schemaTypes). Always a superset of the types of w's values. work counts
// the schemas read, against maxTypeWork.
func (c *compiler) variantTypes(w *view, work *int) typeSet {
	set := c.types(w)
	d := c.d
	for _, n := range w.nodes {
		if set == 0 {
			break
		}
		ks := n.ks
		set &= listedTypes(d, ks.Const, ks.Enum)
		for _, comb := range [...]struct {
			node int
			done uint8
		}{{ks.AnyOf, doneAnyOf}, {ks.OneOf, doneOneOf}} {
			if comb.node < 0 || n.done&comb.done != 0 || d.Kind(comb.node) != pyjson.Array {
				continue
			}
			var union typeSet
			d.Elements(comb.node, func(e, _ int) bool {
				union |= c.schemaTypes(e, 3, work)
				return union != tAll
			})
			set &= union
		}
	}
	return set
}

// listedTypes is the types of the values of a const (node constant) and
// an enum (node enum), tAll for those absent or not read.
func listedTypes(d *pyjson.Doc, constant, enum int) typeSet {
	set := tAll
	if constant >= 0 {
		set &= valueType(d, constant)
	}
	if enum >= 0 && d.Kind(enum) == pyjson.Array {
		var union typeSet
		d.Elements(enum, func(m, _ int) bool {
			union |= valueType(d, m)
			return true
		})
		set &= union
	}
	return set
}

// schemaTypes is a superset of the types of the values valid for schema
// s, read from its type, const, enum, a not of types, and, depth levels
// down, its $ref, allOf, anyOf and oneOf; tAll past maxTypeWork, for a
// key written twice, or for what it does not read.
func (c *compiler) schemaTypes(s, depth int, work *int) typeSet {
	d := c.d
	switch d.Kind(s) {
	case pyjson.False:
		return 0
	case pyjson.Object:
	default:
		return tAll
	}
	if *work++; *work > maxTypeWork || d.DuplicateKey(s) >= 0 {
		return tAll
	}
	ks := &c.keysOf(s).ks
	set := tAll
	refOnly := ks.Ref >= 0 && c.refAlone // drafts 4 to 7: its siblings ignored
	if !refOnly {
		if ks.Type >= 0 {
			set &= typesOf(d, ks.Type)
		}
		set &= listedTypes(d, ks.Const, ks.Enum)
		if excluded, exact := notTypes(d, s); exact {
			set &^= excluded
		}
	}
	if depth == 0 {
		return set
	}
	if ks.Ref >= 0 {
		if target := c.resolveRef(s, ks.Ref); target >= 0 && target != s {
			set &= c.schemaTypes(target, depth-1, work)
		}
		if refOnly {
			return set
		}
	}
	if ks.AllOf >= 0 && d.Kind(ks.AllOf) == pyjson.Array {
		d.Elements(ks.AllOf, func(e, _ int) bool {
			set &= c.schemaTypes(e, depth-1, work)
			return set != 0
		})
	}
	for _, comb := range [...]int{ks.AnyOf, ks.OneOf} {
		if comb < 0 || d.Kind(comb) != pyjson.Array || set == 0 {
			continue
		}
		var union typeSet
		d.Elements(comb, func(e, _ int) bool {
			union |= c.schemaTypes(e, depth-1, work)
			return union != tAll
		})
		set &= union
	}
	return set
}

// wholeTypes is the types whose every value that v admits variant w
// admits too: those of w's types (c.types) that no schema of w outside v
// constrains (keywordTypes; a not of types alone is in c.types already),
// nor a keyword of unenforced (an object's ones constrain objects only).
func (c *compiler) wholeTypes(v, w *view) typeSet {
	if w.never {
		return 0
	}
	set := c.types(w)
	for i := range w.nodes {
		n := &w.nodes[i]
		if v.has(n.node) {
			continue // v's own: every value of the oneOf satisfies it
		}
		ks := n.pendingKeys()
		if ks.Not >= 0 {
			if _, exact := notTypes(c.d, n.node); exact {
				ks.Not = -1 // in c.types(w)
			}
		}
		set &^= keywordTypes(&ks) | c.otherTypes(n)
		if n.keys != nil && n.keys.misspelt {
			set = 0 // reported, and read by no validator: left as it was
		}
	}
	return set
}

// sharedWholeTypes is the types of v that two variants of ws at least
// admit whole (wholeTypes): a value of one of them is valid for both, so
// for no variant alone. An integer and a number that is not one are told
// apart by no rule of the grammar (a number is written with or without
// its fraction, whatever its value), so numbers are in the set only when
// both are.
func (c *compiler) sharedWholeTypes(v *view, ws []*view) typeSet {
	var once, twice typeSet
	for _, w := range ws {
		whole := c.wholeTypes(v, w)
		twice |= once & whole
		once |= whole
	}
	if twice&tNum != tNum {
		twice &^= tNum
	}
	return twice & c.types(v)
}

// numbersApart reports whether no number is valid for both views: their
// ranges (minimum, maximum and the exclusive ones, viewBounds) meet
// nowhere. {"oneOf": [{"minimum": -1, "maximum": -1}, {"minimum": 50}]}.
// Called once both views' numbers are written, whose bounds were read
// then: what reading them reports is reported already.
func (c *compiler) numbersApart(a, b *view) bool {
	aLo, aHi := c.viewBounds(a)
	bLo, bHi := c.viewBounds(b)
	below := func(hi, lo *bound) bool { // every number up to hi is under lo
		if hi == nil || lo == nil {
			return false
		}
		cmp := hi.v.Cmp(lo.v)
		return cmp < 0 || cmp == 0 && !(hi.incl && lo.incl)
	}
	return below(aHi, bLo) || below(bHi, aLo)
}

// The empty array in a oneOf (gap decision 291). {"oneOf": [{"type":
// "array", "items": {"type": "number"}}, {"type": "array", "items":
// {"type": "string"}}]} holds the arrays of numbers and those of strings,
// but not [], which is valid for both: excludeSharedEmptyArray leaves it
// out of every variant where two variants surely admit it, and
// arraysApart then finds the variants' arrays apart, their elements being
// of types apart.

// excludeSharedEmptyArray leaves the empty array out of the variants ws of
// a oneOf of v when two of them surely admit it (admitsEmptyArray): it is
// valid for both, so for no variant alone.
func (c *compiler) excludeSharedEmptyArray(v *view, ws []*view) {
	if len(ws) > maxDiscriminated {
		return
	}
	n := 0
	for _, w := range ws {
		if c.admitsEmptyArray(v, w) {
			n++
		}
	}
	if n < 2 {
		return
	}
	for _, w := range ws {
		if c.types(w)&tArr != 0 && !emptyExcluded(w) {
			w.excluded = append(slices.Clip(w.excluded), exclusion{emptyArray: true})
		}
	}
}

// admitsEmptyArray reports whether [] is surely valid for variant w of a
// oneOf of v, as far as w's own schemas say (v's apply to every variant):
// w admits arrays, and none of its schemas outside v has a keyword that
// could rule [] out (minItems past 0, contains, enum, const, not, an anyOf
// or oneOf not yet distributed, a keyword of unenforced, a misspelt one).
// False where unsure.
func (c *compiler) admitsEmptyArray(v, w *view) bool {
	if w.never || c.types(w)&tArr == 0 || emptyExcluded(w) {
		return false
	}
	d := c.d
	for i := range w.nodes {
		n := &w.nodes[i]
		if v.has(n.node) {
			continue
		}
		ks := n.pendingKeys()
		if ks.Enum >= 0 || ks.Const >= 0 || ks.Not >= 0 || ks.Contains >= 0 || ks.AnyOf >= 0 || ks.OneOf >= 0 ||
			n.other || n.mayOther || n.keys != nil && n.keys.misspelt {
			return false
		}
		if ks.MinItems >= 0 && (d.Kind(ks.MinItems) != pyjson.Number || !isIntegral(string(d.Raw(ks.MinItems))) || strings.TrimLeft(string(d.Raw(ks.MinItems)), "-0.") != "") {
			return false // (a minItems of 0, written 0, 0.0 or -0, rules nothing out)
		}
	}
	return true
}

// emptyExcluded reports whether v's value may not be the empty array
// (excludeSharedEmptyArray).
func emptyExcluded(v *view) bool {
	return slices.ContainsFunc(v.excluded, func(x exclusion) bool { return x.name == "" && x.emptyArray })
}

// arraysApart reports whether no array is valid for both views: the types
// of their elements (every items schema's, schemaTypes) are apart, or the
// strings an items schema of each lists share none (elementStringsApart,
// gap decision 295), their elements all governed by items (no
// prefixItems, no items of drafts 4 to 2019-09 as a list), so only []
// could be valid for both, and one of them does not write []
// (emptyExcluded, or a minItems of 1 at least).
func (c *compiler) arraysApart(a, b *view) bool {
	work := 0
	ia, okA := c.elementTypes(a, &work)
	ib, okB := c.elementTypes(b, &work)
	return okA && okB && (ia&ib == 0 || c.elementStringsApart(a, b)) && (c.noEmptyArray(a) || c.noEmptyArray(b))
}

// elementStringsApart reports whether an items schema of a and one of b
// are each only an enum or const of strings (literalsOnly, beside a type
// and annotations) and the two lists share no string ({"items": {"enum":
// ["top", "left"]}} against {"items": {"enum": ["vertical"]}}): every
// element is among each view's list, so no element, and no array but [],
// is valid for both. Lists of up to 7 strings are compared pair by pair,
// longer ones through a set of the longer (stringsApart).
func (c *compiler) elementStringsApart(a, b *view) bool {
	la, lb := c.elementStrings(a), c.elementStrings(b)
	if la == nil || lb == nil {
		return false
	}
	if len(la) > len(lb) {
		la, lb = lb, la
	}
	if len(lb) >= 8 {
		return stringsApart(c.d, la, lb)
	}
	for _, x := range la {
		for _, y := range lb {
			if c.d.Str(x) == c.d.Str(y) {
				return false
			}
		}
	}
	return true
}

// elementStrings is the list of strings the first items schema of v that
// lists strings only allows (nil: none does).
func (c *compiler) elementStrings(v *view) []int {
	d := c.d
	for _, n := range v.nodes {
		if n.ks.Items < 0 {
			continue
		}
		values, ok := literalsOnly(d, n.ks.Items)
		if ok && !slices.ContainsFunc(values, func(m int) bool { return d.Kind(m) != pyjson.String }) {
			return values
		}
	}
	return nil
}

// elementTypes is a superset of the types of the elements of v's arrays:
// the intersection of schemaTypes of its items schemas (tAll: none). ok
// is false where a prefixItems, or an items list, governs some elements.
func (c *compiler) elementTypes(v *view, work *int) (types typeSet, ok bool) {
	d := c.d
	types = tAll
	for _, n := range v.nodes {
		ks := n.ks
		if ks.PrefixItems >= 0 || ks.Items >= 0 && d.Kind(ks.Items) == pyjson.Array {
			return 0, false
		}
		if ks.Items >= 0 {
			types &= c.schemaTypes(ks.Items, 3, work)
		}
	}
	return types, true
}

// noEmptyArray reports whether the grammar writes no [] for v: it is
// excluded, or a minItems of v is 1 or more.
func (c *compiler) noEmptyArray(v *view) bool {
	if emptyExcluded(v) {
		return true
	}
	d := c.d
	for _, n := range v.nodes {
		if m := n.ks.MinItems; m >= 0 && d.Kind(m) == pyjson.Number {
			if f, err := strconv.ParseFloat(string(d.Raw(m)), 64); err == nil && f >= 1 {
				return true
			}
		}
	}
	return false
}

// isEmptyArray reports whether JSON value m is [].
func isEmptyArray(d *pyjson.Doc, m int) bool {
	return d.Kind(m) == pyjson.Array && d.Nodes[m].Len == 0
}

// Lists of strings told apart by a set (gap decision 293): a oneOf of two
// enums of 200 and 100 strings took 20,000 comparisons pair by pair, past
// maxLiteralPairs, and was refused; a set of one list's strings tells
// them apart in 300.

// maxStringSet caps the strings stringSet reads.
const maxStringSet = 1 << 16

// stringSet is the set of the strings of values, nil when one of them is
// not a string, when they are fewer than 8 (compared one by one as
// before) or more than maxStringSet.
func stringSet(d *pyjson.Doc, values []int) map[string]bool {
	if len(values) < 8 || len(values) > maxStringSet {
		return nil
	}
	set := make(map[string]bool, len(values))
	for _, m := range values {
		if d.Kind(m) != pyjson.String {
			return nil
		}
		set[d.Str(m)] = true
	}
	return set
}

// stringsApart reports whether a and b, lists of JSON values, are both of
// strings only and share none (by a set of b's, stringSet).
func stringsApart(d *pyjson.Doc, a, b []int) bool {
	set := stringSet(d, b)
	if set == nil || len(a) > maxStringSet {
		return false
	}
	for _, m := range a {
		if d.Kind(m) != pyjson.String || set[d.Str(m)] {
			return false
		}
	}
	return true
}
