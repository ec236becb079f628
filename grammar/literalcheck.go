package grammar

import (
	"bytes"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// Listed values checked one by one (gap decision 207).
//
// A schema whose enum or const lists its values allows a finite set of
// JSON values: the grammar writes each that is valid. Keywords a grammar
// could not enforce on a language of values (not, if, oneOf, uniqueItems,
// a pattern of an object's member, ...) are enforced on a finite set by
// checking each listed value against the schema, as a validator would. A
// value the check can't decide (a keyword it does not read, a pattern the
// translator refuses, its work spent) leaves the view to viewLiterals,
// which reports what it does not check.

// verdict is what checking a value against a schema found.
type verdict uint8

const (
	undecided verdict = iota
	valid
	invalid
)

// and is the verdict of two checks that must both hold.
func (a verdict) and(b verdict) verdict {
	switch {
	case a == invalid || b == invalid:
		return invalid
	case a == undecided || b == undecided:
		return undecided
	}
	return valid
}

const (
	// maxCheckDepth is how deep checking a value follows schemas and
	// values ($ref, combinators, members, elements).
	maxCheckDepth = 64
	// maxCheckWork is the steps checking listed values may take in one
	// compile (a schema visited, a pair of elements compared); past it
	// the values left are undecided.
	maxCheckWork = 1 << 16
	// maxNumberText is the longest number (and largest exponent) the
	// check compares exactly; others are undecided.
	maxNumberText = 400
)

// listedValid is whether the listed value m is valid for view v: an
// object where v admits only objects, without the names v rules out and
// with those it asks for, and valid for every schema of v (valueValid).
func (c *compiler) listedValid(v *view, m int) verdict {
	d := c.d
	ok := valid
	if v.objectsOnly && d.Kind(m) != pyjson.Object {
		ok = invalid
	}
	for _, name := range v.absent {
		if d.Kind(m) == pyjson.Object && c.lookup(m, name) >= 0 {
			ok = invalid
		}
	}
	for _, name := range v.present {
		if d.Kind(m) == pyjson.Object && c.lookup(m, name) < 0 {
			ok = invalid
		}
	}
	for _, n := range v.nodes {
		if ok == invalid {
			break
		}
		ok = ok.and(c.valueValid(n.node, m, 0))
	}
	return ok
}

// checkedLiterals is the expression of view v when it lists its values
// (enum or const) and other keywords constrain them beyond what
// viewLiterals checks: the listed values valid for every schema of the
// view, each checked by valueValid. ok is false when v lists no values,
// viewLiterals checks all its keywords, or a value can't be decided.
func (c *compiler) checkedLiterals(v *view, ctx textContext, xml bool) (*expr, bool) {
	d := c.d
	first := -1
	for _, n := range v.nodes {
		if n.ks.Enum >= 0 {
			first = n.ks.Enum
			break
		} else if n.ks.Const >= 0 {
			first = -2 - n.ks.Const
			break
		}
	}
	if first == -1 {
		return nil, false // (most views: no list)
	}
	needs := len(v.absent) > 0 || len(v.present) > 0
	for _, n := range v.nodes {
		ks := n.ks
		needs = needs || n.other || ks.Not >= 0 || ks.AnyOf >= 0 || ks.OneOf >= 0 || beyondLiterals(ks)
	}
	if !needs {
		return nil, false
	}
	var members []int
	if first <= -2 {
		members = []int{-2 - first}
	} else if d.Kind(first) == pyjson.Array {
		d.Elements(first, func(e, _ int) bool { members = append(members, e); return true })
	} else {
		return nil, false
	}
	keep := make([]bool, len(members))
	set := c.types(v) // a oneOf variant's types may leave some out (decision 289)
	noEmpty := emptyExcluded(v)
	for i, m := range members {
		if c.spent() {
			return nil, false
		}
		if !admits(d, set, m) || noEmpty && isEmptyArray(d, m) { // (decision 291)
			continue
		}
		ok := c.listedValid(v, m)
		if ok == undecided {
			return nil, false
		}
		keep[i] = ok == valid
	}
	var alts []*expr
	for i, m := range members {
		if !keep[i] {
			continue
		}
		if !c.spend(v.path, len(d.Raw(m))+32) {
			return nil, true
		}
		alts = c.appendListed(alts, m, string(d.AppendPython(nil, m)), ctx, xml)
	}
	if len(alts) == 0 {
		c.impossible(v.path, "no value can be written: every listed value (enum or const) is invalid for the schema's other keywords or holds a Harmony marker")
		return nil, true
	}
	return alt(alts...), true
}

// appendListed appends to alts the ways the grammar writes listed value m
// (text: its JSON, as Python writes it): a raw argument's string as is,
// nothing for a value that holds a marker or that the parser would read
// back as another (decision 209), and a whole number also as an int's and
// a float's spelling (decision 184; in a raw argument only the int's), in
// an array or object too (decision 302).
func (c *compiler) appendListed(alts []*expr, m int, text string, ctx textContext, xml bool) []*expr {
	d := c.d
	if xml && c.casting && !c.castKeeps(m) {
		return alts
	}
	if xml && d.Kind(m) == pyjson.String {
		text = d.Str(m)
	}
	if containsForbidden(text, ctx) {
		return alts
	}
	if k := d.Kind(m); k == pyjson.Array || k == pyjson.Object {
		return append(alts, c.listedComposite(m, text))
	}
	if !xml || !c.casting || d.Kind(m) != pyjson.Number || c.argCast.kinds&tFrac != 0 || pyjson.IsIntegerLiteral(text) {
		// (A raw argument read as an integer only: the parser reads
		// 1.0 back as the string "1.0", so only 1 is written.)
		alts = append(alts, lit(text))
	}
	if d.Kind(m) == pyjson.Number {
		for _, s := range integralSpellings(string(d.Raw(m))) {
			// (The parser casts "2.0" to a string where the property's
			// type is an integer's.)
			if s != text && (!xml || pyjson.IsIntegerLiteral(s)) {
				alts = append(alts, lit(s))
			}
		}
	}
	return alts
}

// listedComposite is listed array or object m (text: its JSON, as Python
// writes it) as the grammar writes it: text, with each whole number inside
// also in the int's and the float's spellings, since JSON Schema compares
// numbers by value (`{"enum": [[1.0]]}` holds `[1]`; decision 302). A
// number keeps its own spelling too; the rest is Python's. The float's
// ".0" is one shared rule (pointZero), so that a long list of arrays of
// numbers costs a reference per number, not an alternation.
func (c *compiler) listedComposite(m int, text string) *expr {
	d := c.d
	end := d.Next(m)
	spelled := false
	for i := m + 1; i < end && !spelled; i++ {
		spelled = d.Kind(i) == pyjson.Number && len(integralSpellings(string(d.Raw(i)))) > 0
	}
	if !spelled {
		return lit(text)
	}
	p := pointZeroProto()
	c.g.instantiate(p)
	pointZero := p.ref(0)
	var items []*expr
	var pending []byte
	var walk func(i int)
	walk = func(i int) {
		switch d.Kind(i) {
		case pyjson.Array:
			pending = append(pending, '[')
			for e, n := i+1, 0; e < d.Next(i); e, n = d.Next(e), n+1 {
				if n > 0 {
					pending = append(pending, ", "...)
				}
				walk(e)
			}
			pending = append(pending, ']')
		case pyjson.Object:
			pending = append(pending, '{')
			for k, n := i+1, 0; k < d.Next(i); k, n = d.Next(k+1), n+1 {
				if n > 0 {
					pending = append(pending, ", "...)
				}
				pending = d.AppendPython(pending, k)
				pending = append(pending, ": "...)
				walk(k + 1)
			}
			pending = append(pending, '}')
		case pyjson.Number:
			raw := string(d.Raw(i))
			spellings := integralSpellings(raw)
			switch {
			case len(spellings) == 0:
				pending = append(pending, raw...)
			case raw == spellings[0] || raw == spellings[1]:
				// The int's spelling, then ".0" or nothing.
				pending = append(pending, spellings[0]...)
				items = append(items, lit(string(pending)), pointZero)
				pending = pending[:0]
			default:
				// Its own spelling (1e2), or either of the others.
				items = append(items, lit(string(pending)), alt(lit(raw), seq(lit(spellings[0]), pointZero)))
				pending = pending[:0]
			}
		default:
			pending = d.AppendPython(pending, i)
		}
	}
	walk(m)
	return seq(append(items, lit(string(pending)))...)
}

// pointZeroProto is the rule of a whole number's optional ".0" in a
// listed array or object (listedComposite), built once.
var pointZeroProto = sync.OnceValue(func() *proto {
	p := newProto("point-zero", []string{"point-zero"})
	p.bodies = []*expr{opt(lit(".0"))}
	return p
})

// beyondLiterals reports whether ks holds a keyword that constrains a
// value beyond the type, lengths and numeric bounds viewLiterals checks
// listed values against (multipleOf too: viewLiterals checks it, but the
// view reports it unless the grammar's numbers enforce it).
func beyondLiterals(ks *schema.Keys) bool {
	for _, n := range [...]int{ks.Properties, ks.Required, ks.AdditionalProperties, ks.PatternProperties,
		ks.MinProperties, ks.MaxProperties, ks.PropertyNames, ks.DependentRequired, ks.Items, ks.PrefixItems,
		ks.MinItems, ks.MaxItems, ks.UniqueItems, ks.Contains, ks.Pattern, ks.Format, ks.Mult} {
		if n >= 0 {
			return true
		}
	}
	return false
}

// valueValid checks the JSON value m against schema s, as JSON Schema
// 2020-12 validates (drafts 4 to 7 where the compiler reads them: a $ref's
// siblings ignored, boolean exclusiveMinimum and exclusiveMaximum, the
// array form of items with additionalItems, dependencies). Keywords it does
// not read that constrain values ($dynamicRef, $recursiveRef,
// unevaluatedProperties and unevaluatedItems on an object or array,
// contentEncoding, contentMediaType, contentSchema, a format the grammar
// does not know) make the verdict undecided unless another keyword rules
// the value out; keywords no vocabulary defines only annotate.
func (c *compiler) valueValid(s, m, depth int) verdict {
	return c.valueValidSkipping(s, m, depth, 0)
}

// valueValidSkipping is valueValid with the keywords of s that skip names
// left out: the combinators a view distributed (doneAnyOf, doneOneOf,
// doneIf) and, with skipExpanded, the schemas its $ref, $dynamicRef and
// allOf lead to, which the view holds as schemas of their own (each with
// its own combinators done or not): the check of a value against one
// schema of a view as the grammar writes it.
func (c *compiler) valueValidSkipping(s, m, depth int, skip uint8) verdict {
	d := c.d
	if depth > 0 && m == c.writtenValue && slices.Contains(c.writtenNodes, s) {
		// One of the view's own schemas again, reached in place (a
		// pending anyOf's $ref back to the schema whose oneOf is being
		// told apart): the grammar writes it once, as the view holds it,
		// so what it would say here is not known.
		return undecided
	}
	switch d.Kind(s) {
	case pyjson.True:
		return valid
	case pyjson.False:
		return invalid
	case pyjson.Object:
	default:
		return valid // not a schema: no constraint, as expand reads it
	}
	c.checkWork += 1 + int(d.Nodes[s].Len)
	if depth > maxCheckDepth || c.checkWork > maxCheckWork || d.DuplicateKey(s) >= 0 {
		return undecided
	}
	if c.refAlone {
		if ref := d.Lookup(s, "$ref"); ref >= 0 {
			return c.refValid(s, ref, m, depth)
		}
	}
	mk := d.Kind(m)
	out := valid
	var kb [32]byte
	d.Members(s, func(k, val int) bool {
		var got verdict
		kw := string(d.KeyText(k, kb[:0]))
		switch {
		case skip&doneAnyOf != 0 && kw == "anyOf", skip&doneOneOf != 0 && kw == "oneOf",
			skip&doneIf != 0 && (kw == "if" || kw == "then" || kw == "else"),
			skip&skipExpanded != 0 && (kw == "$ref" || kw == "$dynamicRef" || kw == "allOf"):
			return true
		}
		switch kw {
		case "$ref":
			got = c.refValid(s, val, m, depth)
		case "$dynamicRef", "$recursiveRef", "contentEncoding", "contentMediaType", "contentSchema":
			got = undecided
		case "unevaluatedProperties":
			got = valid
			if mk == pyjson.Object {
				got = undecided
			}
		case "unevaluatedItems":
			got = valid
			if mk == pyjson.Array {
				got = undecided
			}
		case "type":
			got = verdictOf(admits(d, typesOf(d, val), m))
		case "enum":
			got = invalid
			if d.Kind(val) != pyjson.Array {
				return undecidedStop(&out)
			}
			d.Elements(val, func(e, _ int) bool {
				got = got.or(c.sameValue(e, m, depth+1))
				return got != valid
			})
		case "const":
			got = c.sameValue(val, m, depth+1)
		case "allOf", "anyOf", "oneOf":
			got = c.combinedValid(kw, val, m, depth)
		case "not":
			got = c.valueValid(val, m, depth+1).not()
		case "if":
			then, els := d.Lookup(s, "then"), d.Lookup(s, "else")
			switch c.valueValid(val, m, depth+1) {
			case valid:
				got = valid
				if then >= 0 {
					got = c.valueValid(then, m, depth+1)
				}
			case invalid:
				got = valid
				if els >= 0 {
					got = c.valueValid(els, m, depth+1)
				}
			default:
				got = verdictOf(then < 0 && els < 0).or(undecided)
			}
		default:
			got = c.typedValid(s, kw, val, m, depth)
		}
		out = out.and(got)
		return out != invalid
	})
	return out
}

// skipExpanded is valueValidSkipping's flag for the schemas a view
// expanded ($ref, $dynamicRef, allOf), beside the done combinators.
const skipExpanded = 1 << 7

// undecidedStop makes *out undecided (unless already invalid) and ends a
// walk of keywords that can't go on.
func undecidedStop(out *verdict) bool {
	*out = out.and(undecided)
	return false
}

// or is the verdict of two checks one of which must hold.
func (a verdict) or(b verdict) verdict {
	switch {
	case a == valid || b == valid:
		return valid
	case a == undecided || b == undecided:
		return undecided
	}
	return invalid
}

// not is the verdict of a not.
func (a verdict) not() verdict {
	switch a {
	case valid:
		return invalid
	case invalid:
		return valid
	}
	return undecided
}

func verdictOf(ok bool) verdict {
	if ok {
		return valid
	}
	return invalid
}

// refValid checks m against the target of the $ref at node ref of s.
func (c *compiler) refValid(s, ref, m, depth int) verdict {
	target := c.resolveRef(s, ref)
	if target < 0 {
		return undecided
	}
	return c.valueValid(target, m, depth+1)
}

// combinedValid checks m against allOf, anyOf or oneOf (kw) at node arr.
func (c *compiler) combinedValid(kw string, arr, m, depth int) verdict {
	d := c.d
	if d.Kind(arr) != pyjson.Array {
		return undecided
	}
	out := valid
	if kw == "anyOf" {
		out = invalid
	}
	matched, open := 0, false
	d.Elements(arr, func(e, _ int) bool {
		got := c.valueValid(e, m, depth+1)
		switch kw {
		case "allOf":
			out = out.and(got)
			return out != invalid
		case "anyOf":
			out = out.or(got)
			return out != valid
		}
		if got == valid {
			matched++
		}
		open = open || got == undecided
		return matched < 2
	})
	if kw != "oneOf" {
		return out
	}
	switch {
	case matched >= 2:
		return invalid
	case open:
		return undecided
	}
	return verdictOf(matched == 1)
}

// typedValid checks m against keyword kw (at node val) of schema s, a
// keyword that constrains values of one type (any other value is valid for
// it) or annotates.
func (c *compiler) typedValid(s int, kw string, val, m, depth int) verdict {
	d := c.d
	switch mk := d.Kind(m); {
	case mk == pyjson.Number:
		switch kw {
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			if k := d.Kind(val); k == pyjson.True || k == pyjson.False {
				return valid // draft 4's flag, read beside minimum or maximum
			}
			cmp, ok := c.compareNumbers(m, val)
			if !ok {
				return undecided
			}
			exclusive := kw == "exclusiveMinimum" || kw == "exclusiveMaximum"
			if kw == "minimum" || kw == "maximum" {
				flag := d.Lookup(s, "exclusive"+strings.ToUpper(kw[:1])+kw[1:])
				exclusive = flag >= 0 && d.Kind(flag) == pyjson.True
			}
			if strings.HasSuffix(kw, "inimum") {
				cmp = -cmp
			}
			return verdictOf(cmp < 0 || cmp == 0 && !exclusive)
		case "multipleOf":
			x, ok1 := numberRat(d, m)
			k, ok2 := numberRat(d, val)
			if !ok1 || !ok2 || k.Sign() <= 0 {
				return undecided
			}
			return verdictOf(new(big.Rat).Quo(x, k).IsInt())
		}
	case mk == pyjson.String:
		switch kw {
		case "minLength", "maxLength":
			n, ok := countOf(d, val)
			if !ok {
				return undecided
			}
			runes := utf8.RuneCountInString(d.Str(m))
			if kw == "minLength" {
				return verdictOf(runes >= n)
			}
			return verdictOf(runes <= n)
		case "pattern", "format":
			if d.Kind(val) != pyjson.String {
				return undecided
			}
			var e *expr
			if kw == "pattern" {
				e = c.namePattern(val)
			} else {
				e = formatExpr(d.Str(val))
			}
			if e == nil {
				return undecided
			}
			match, decided := c.exprMatches(e, d.Str(m))
			if !decided || match && kw == "format" && formatLoose(d.Str(val)) != "" {
				// (A loose format's expression holds some invalid
				// strings too: only a mismatch is a verdict.)
				return undecided
			}
			return verdictOf(match)
		}
	case mk == pyjson.Array:
		return c.arrayValid(s, kw, val, m, depth)
	case mk == pyjson.Object:
		return c.objectValid(s, kw, val, m, depth)
	}
	return valid
}

// arrayValid is typedValid for an array m.
func (c *compiler) arrayValid(s int, kw string, val, m, depth int) verdict {
	d := c.d
	elems := elementsOf(d, m)
	each := func(from int, schema func(i int) int) verdict {
		out := valid
		for i := from; i < len(elems) && out != invalid; i++ {
			if sch := schema(i); sch != -1 {
				out = out.and(c.valueValid(sch, elems[i], depth+1))
			}
		}
		return out
	}
	switch kw {
	case "items":
		if d.Kind(val) == pyjson.Array { // drafts 4 to 2019-09: a tuple
			tuple := elementsOf(d, val)
			n := len(tuple)
			out := each(0, func(i int) int {
				if i < n {
					return tuple[i]
				}
				return -1
			})
			if extra := d.Lookup(s, "additionalItems"); extra >= 0 && len(elems) > n {
				out = out.and(each(n, func(int) int { return extra }))
			}
			return out
		}
		from := 0
		if p := d.Lookup(s, "prefixItems"); p >= 0 {
			if d.Kind(p) != pyjson.Array {
				return undecided
			}
			from = int(d.Nodes[p].Len)
		}
		return each(from, func(int) int { return val })
	case "prefixItems":
		if d.Kind(val) != pyjson.Array {
			return undecided
		}
		tuple := elementsOf(d, val)
		return each(0, func(i int) int {
			if i < len(tuple) {
				return tuple[i]
			}
			return -1
		})
	case "minItems", "maxItems":
		n, ok := countOf(d, val)
		if !ok {
			return undecided
		}
		if kw == "minItems" {
			return verdictOf(len(elems) >= n)
		}
		return verdictOf(len(elems) <= n)
	case "uniqueItems":
		if d.Kind(val) != pyjson.True {
			return valid
		}
		out := valid
		for i := range elems {
			for j := i + 1; j < len(elems); j++ {
				out = out.and(c.sameValue(elems[i], elems[j], depth+1).not())
				if out == invalid || c.spent() {
					return out.and(verdictOf(!c.spent()).or(undecided))
				}
			}
		}
		return out
	case "contains":
		lo, hi := 1, -1
		if n := d.Lookup(s, "minContains"); n >= 0 {
			var ok bool
			if lo, ok = countOf(d, n); !ok {
				return undecided
			}
		}
		if n := d.Lookup(s, "maxContains"); n >= 0 {
			var ok bool
			if hi, ok = countOf(d, n); !ok {
				return undecided
			}
		}
		found := 0
		for _, e := range elems {
			switch c.valueValid(val, e, depth+1) {
			case valid:
				found++
			case undecided:
				return undecided
			}
		}
		return verdictOf(found >= lo && (hi < 0 || found <= hi))
	}
	return valid
}

// objectValid is typedValid for an object m.
func (c *compiler) objectValid(s int, kw string, val, m, depth int) verdict {
	d := c.d
	if c.checkWork += int(d.Nodes[m].Len); d.DuplicateKey(m) >= 0 {
		return undecided
	}
	out := valid
	switch kw {
	case "properties", "additionalProperties":
		if d.Kind(val) != pyjson.Object && kw == "properties" {
			return undecided
		}
		props, pats := d.Lookup(s, "properties"), d.Lookup(s, "patternProperties")
		if props >= 0 && d.Kind(props) != pyjson.Object || pats >= 0 && d.Kind(pats) != pyjson.Object {
			return undecided
		}
		d.Members(m, func(k, mv int) bool {
			if c.spent() {
				out = out.and(undecided)
				return false
			}
			name := d.Str(k)
			declared := -1
			if props >= 0 {
				declared = c.lookup(props, name)
			}
			if kw == "properties" {
				if declared >= 0 {
					out = out.and(c.valueValid(declared, mv, depth+1))
				}
				return out != invalid
			}
			if declared >= 0 {
				return true
			}
			covered := invalid // by a pattern of patternProperties
			if pats >= 0 {
				d.Members(pats, func(p, _ int) bool {
					e := c.namePattern(p)
					if e == nil {
						covered = covered.or(undecided)
						return true
					}
					match, decided := c.exprMatches(e, name)
					if !decided {
						covered = covered.or(undecided)
					} else if match {
						covered = valid
					}
					return covered != valid
				})
			}
			switch covered {
			case undecided:
				out = out.and(undecided)
			case invalid:
				out = out.and(c.valueValid(val, mv, depth+1))
			}
			return out != invalid
		})
	case "patternProperties":
		if d.Kind(val) != pyjson.Object {
			return undecided
		}
		d.Members(m, func(k, mv int) bool {
			if c.spent() {
				out = out.and(undecided)
				return false
			}
			name := d.Str(k)
			d.Members(val, func(p, ps int) bool {
				e := c.namePattern(p)
				if e == nil {
					out = out.and(undecided)
					return false
				}
				match, decided := c.exprMatches(e, name)
				switch {
				case !decided:
					out = out.and(undecided)
				case match:
					out = out.and(c.valueValid(ps, mv, depth+1))
				}
				return out != invalid
			})
			return out != invalid
		})
	case "required":
		return c.namesHeld(val, m)
	case "minProperties", "maxProperties":
		n, ok := countOf(d, val)
		if !ok {
			return undecided
		}
		if kw == "minProperties" {
			return verdictOf(int(d.Nodes[m].Len) >= n)
		}
		return verdictOf(int(d.Nodes[m].Len) <= n)
	case "propertyNames":
		d.Members(m, func(k, _ int) bool {
			out = out.and(c.valueValid(val, k, depth+1))
			return out != invalid
		})
	case "dependentRequired", "dependentSchemas", "dependencies":
		if d.Kind(val) != pyjson.Object {
			return undecided
		}
		d.Members(val, func(k, dep int) bool {
			if c.spent() {
				out = out.and(undecided)
				return false
			}
			if c.lookup(m, d.Str(k)) < 0 {
				return true
			}
			if d.Kind(dep) == pyjson.Array && kw != "dependentSchemas" {
				out = out.and(c.namesHeld(dep, m))
			} else if kw != "dependentRequired" {
				out = out.and(c.valueValid(dep, m, depth+1))
			} else {
				out = undecided
			}
			return out != invalid
		})
	}
	return out
}

// elementsOf is the elements of array arr.
func elementsOf(d *pyjson.Doc, arr int) []int {
	var out []int
	d.Elements(arr, func(e, _ int) bool { out = append(out, e); return true })
	return out
}

// namesHeld checks that object m holds every name of the array at names.
func (c *compiler) namesHeld(names, m int) verdict {
	d := c.d
	if d.Kind(names) != pyjson.Array {
		return undecided
	}
	out := valid
	d.Elements(names, func(e, _ int) bool {
		if c.spent() {
			out = out.and(undecided)
		} else if d.Kind(e) != pyjson.String {
			out = undecided
		} else if c.lookup(m, d.Str(e)) < 0 {
			out = invalid
		}
		return out != invalid
	})
	return out
}

// lookup is d.Lookup, its work counted (maxCheckWork).
func (c *compiler) lookup(obj int, name string) int {
	c.checkWork += int(c.d.Nodes[obj].Len)
	return c.d.Lookup(obj, name)
}

// spent reports whether checking listed values spent its work.
func (c *compiler) spent() bool { return c.checkWork > maxCheckWork }

// listedValues returns a test of whether a JSON value m (written text)
// equals one of values (written texts), as JSON Schema compares them: the
// same text, or sameValue's verdict. For short lists it compares each
// pair; for long ones it looks the value up by its text and its valueKey
// in sets made once (two enums of 24,000 numbers took 3 s pair by pair),
// and compares pair by pair only a value valueKey can't key.
func (c *compiler) listedValues(values []int, texts []string) func(m int, text string) bool {
	pairwise := func(m int, text string) bool {
		return slices.Contains(texts, text) || slices.ContainsFunc(values, func(o int) bool { return c.sameValue(m, o, 0) == valid })
	}
	if len(values) <= 16 {
		return pairwise
	}
	byText := make(map[string]bool, len(texts))
	for _, t := range texts {
		byText[t] = true
	}
	byKey := make(map[string]bool, len(values))
	var unkeyed []int
	var buf []byte
	for _, o := range values {
		key, ok := c.valueKey(buf[:0], o, 0)
		if ok {
			byKey[string(key)] = true
		} else {
			unkeyed = append(unkeyed, o)
		}
		buf = key
	}
	return func(m int, text string) bool {
		if byText[text] {
			return true
		}
		if key, ok := c.valueKey(buf[:0], m, 0); ok {
			buf = key
			if byKey[string(key)] {
				return true
			}
			// m equals no keyed value; an unkeyed one may still be it
			return slices.ContainsFunc(unkeyed, func(o int) bool { return c.sameValue(m, o, 0) == valid })
		}
		return slices.ContainsFunc(values, func(o int) bool { return c.sameValue(m, o, 0) == valid })
	}
}

// valueKey appends to b a text that two JSON values share when sameValue
// finds them equal, and only then: a number by its value as a fraction,
// an object's members in the order of their keys. ok is false for a value
// it does not key (a number with an exponent or of more than 40
// characters, an object with a key written twice, nesting past
// maxCheckDepth); such values are compared by sameValue.
func (c *compiler) valueKey(b []byte, m, depth int) (_ []byte, ok bool) {
	d := c.d
	if depth > maxCheckDepth {
		return b, false
	}
	switch d.Kind(m) {
	case pyjson.Number:
		raw := d.Raw(m)
		if len(raw) > 40 || strings.Trim(string(raw), "-.0123456789") != "" || bytes.HasPrefix(raw, []byte("-.")) || raw[0] == '.' {
			return b, false // an exponent, NaN, Infinity: compared by sameValue
		}
		// A decimal without exponent: its sign, its whole part without
		// leading zeros and its fraction without trailing ones (JSON's
		// grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?), -0 as 0.
		neg := raw[0] == '-'
		if neg {
			raw = raw[1:]
		}
		whole, frac, _ := bytes.Cut(raw, []byte{'.'})
		frac = bytes.TrimRight(frac, "0")
		if neg && !(string(whole) == "0" && len(frac) == 0) {
			b = append(b, '-')
		}
		b = append(append(b, 'n'), whole...)
		if len(frac) > 0 {
			b = append(append(b, '.'), frac...)
		}
		return b, true
	case pyjson.String:
		str := d.Str(m)
		return append(append(strconv.AppendInt(append(b, 's'), int64(len(str)), 10), ':'), str...), true
	case pyjson.Array:
		b = append(b, '[')
		ok = true
		for e := m + 1; e < d.Next(m) && ok; e = d.Next(e) {
			b, ok = c.valueKey(b, e, depth+1)
			b = append(b, ',')
		}
		return append(b, ']'), ok
	case pyjson.Object:
		if d.DuplicateKey(m) >= 0 {
			return b, false
		}
		type member struct {
			key string
			val int
		}
		var members []member
		d.Members(m, func(k, v int) bool {
			members = append(members, member{d.Str(k), v})
			return true
		})
		slices.SortFunc(members, func(x, y member) int { return strings.Compare(x.key, y.key) })
		b = append(b, '{')
		ok = true
		for _, mb := range members {
			b = append(append(strconv.AppendInt(b, int64(len(mb.key)), 10), ':'), mb.key...)
			if b, ok = c.valueKey(b, mb.val, depth+1); !ok {
				break
			}
			b = append(b, ',')
		}
		return append(b, '}'), ok
	case pyjson.True:
		return append(b, 't'), true
	case pyjson.False:
		return append(b, 'f'), true
	}
	return append(b, 'z'), true // null
}

// sameValue reports whether JSON values a and b are equal as JSON Schema
// compares them: numbers by value (1 and 1.0 alike), objects whatever the
// order of their members.
func (c *compiler) sameValue(a, b, depth int) verdict {
	d := c.d
	c.checkWork++
	if depth > maxCheckDepth || c.checkWork > maxCheckWork {
		return undecided
	}
	ka, kb := d.Kind(a), d.Kind(b)
	if ka != kb {
		return invalid
	}
	switch ka {
	case pyjson.Number:
		cmp, ok := c.compareNumbers(a, b)
		if !ok {
			return undecided
		}
		return verdictOf(cmp == 0)
	case pyjson.String:
		return verdictOf(d.Str(a) == d.Str(b))
	case pyjson.Array:
		if d.Nodes[a].Len != d.Nodes[b].Len {
			return invalid
		}
		out := valid
		for ea, eb := a+1, b+1; ea < d.Next(a) && out != invalid; ea, eb = d.Next(ea), d.Next(eb) {
			out = out.and(c.sameValue(ea, eb, depth+1))
		}
		return out
	case pyjson.Object:
		if d.DuplicateKey(a) >= 0 || d.DuplicateKey(b) >= 0 {
			return undecided
		}
		if d.Nodes[a].Len != d.Nodes[b].Len {
			return invalid
		}
		out := valid
		d.Members(a, func(k, va int) bool {
			if c.spent() {
				out = out.and(undecided) // (each lookup is work: past the cap, stop)
				return false
			}
			vb := c.lookup(b, d.Str(k))
			if vb < 0 {
				out = invalid
			} else {
				out = out.and(c.sameValue(va, vb, depth+1))
			}
			return out != invalid
		})
		return out
	}
	return valid // null, true, false: the kind is the value
}

// compareNumbers compares the numbers at nodes a and b: -1, 0 or 1; ok is
// false when either is not a number the check compares exactly.
func (c *compiler) compareNumbers(a, b int) (int, bool) {
	d := c.d
	ra, rb := string(d.Raw(a)), string(d.Raw(b))
	if ia, err := strconv.ParseInt(ra, 10, 64); err == nil {
		if ib, err := strconv.ParseInt(rb, 10, 64); err == nil {
			return cmpInt(ia, ib), true
		}
	}
	x, ok1 := numberRat(d, a)
	y, ok2 := numberRat(d, b)
	if !ok1 || !ok2 {
		return 0, false
	}
	return x.Cmp(y), true
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// numberRat is the value of number node n, exactly; false for text past
// maxNumberText or an exponent past it (whose value would take memory
// in proportion to the exponent), or not a number.
func numberRat(d *pyjson.Doc, n int) (*big.Rat, bool) {
	if d.Kind(n) != pyjson.Number {
		return nil, false
	}
	raw := string(d.Raw(n))
	if len(raw) > maxNumberText {
		return nil, false
	}
	if i := strings.IndexAny(raw, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(raw[i+1:], "+"))
		if err != nil || e > maxNumberText || e < -maxNumberText {
			return nil, false
		}
	}
	return new(big.Rat).SetString(raw)
}

// countOf reads a count keyword (minLength, maxItems, ...): a
// non-negative whole number (2.0 too).
func countOf(d *pyjson.Doc, n int) (int, bool) {
	r, ok := numberRat(d, n)
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 0, false
	}
	return int(r.Num().Int64()), true
}
