package grammar

import (
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// propertyNames is a schema every key of an object is valid for: a string
// schema, as keys are strings. It is enforced where the grammar can write
// the keys' language:
//
//   - a declared property's name is checked against it when the grammar is
//     built: an optional one it rules out is left out, a required one makes
//     the object impossible;
//   - free members' keys (an object without declared properties) are
//     strings of the schema: its type, minLength/maxLength, pattern,
//     format, enum and const, as a string value's;
//   - other members beside declared ones (strict) and a map keyed by a
//     pattern need the keys' language intersected with another (none of
//     the declared names; the pattern): that is written only when the
//     names are finite (enum, const), as the names that pass both;
//     otherwise propertyNames is reported (an error under strict).
//
// Keywords of the schema that do not constrain strings are passed over; one
// that the grammar can't enforce on a string (anyOf, oneOf, not, ...) is
// reported as anywhere else.

// keyNames is the view of the propertyNames of v's schemas, nil when none
// has one.
func (c *compiler) keyNames(v *view) *view {
	var w *view
	for _, n := range v.nodes {
		if n.ks.PropertyNames >= 0 {
			if w == nil {
				w = &view{}
			}
			c.addTo(w, n.ks.PropertyNames, n.path+".propertyNames")
		}
	}
	if w == nil {
		return nil
	}
	for _, n := range w.nodes {
		c.dropUnenforced(n.node, &n.ks, n.path)
		if n.ks.AnyOf >= 0 {
			c.drop(n.path+".anyOf", "anyOf")
		}
		if n.ks.OneOf >= 0 {
			c.drop(n.path+".oneOf", "oneOf")
		}
	}
	return w
}

// keyIn reports whether name is a key w allows (w nil: any). A pattern or
// format the grammar can't translate is reported where the keys' language
// is written, and counts as matching here.
func (c *compiler) keyIn(w *view, name string) bool {
	if w == nil {
		return true
	}
	if w.never || c.types(w)&tStr == 0 {
		return false
	}
	d := c.d
	for _, n := range w.nodes {
		if n.ks.Const >= 0 && (d.Kind(n.ks.Const) != pyjson.String || d.Str(n.ks.Const) != name) {
			return false
		}
		if n.ks.Enum >= 0 && d.Kind(n.ks.Enum) == pyjson.Array {
			found := false
			d.Elements(n.ks.Enum, func(e, _ int) bool {
				found = d.Kind(e) == pyjson.String && d.Str(e) == name
				return !found
			})
			if !found {
				return false
			}
		}
		for _, k := range [...]struct {
			node    int
			pattern bool
		}{{n.ks.Pattern, true}, {n.ks.Format, false}} {
			if k.node < 0 || d.Kind(k.node) != pyjson.String {
				continue
			}
			if !c.spend(w.path, len(name)*(len(name)+len(d.Raw(k.node)))/4) {
				return false
			}
			var e *expr
			if k.pattern {
				e, _ = patternExpr(d.Str(k.node))
			} else {
				e = formatExpr(d.Str(k.node))
			}
			if e != nil && !exprMatches(e, name) {
				return false
			}
		}
	}
	lo, hi := c.viewLengths(w, "Length")
	runes := utf8.RuneCountInString(name)
	return runes >= lo && (hi < 0 || runes <= hi)
}

// finiteKeys returns the keys w allows when they are finite: the string
// members of its first enum or const that every keyword allows, or none
// when w allows no string.
func (c *compiler) finiteKeys(w *view) (keys []string, finite bool) {
	if w == nil {
		return nil, false
	}
	if w.never || c.types(w)&tStr == 0 {
		return nil, true // none
	}
	d := c.d
	for _, n := range w.nodes {
		var members []int
		switch {
		case n.ks.Const >= 0:
			members = []int{n.ks.Const}
		case n.ks.Enum >= 0 && d.Kind(n.ks.Enum) == pyjson.Array:
			d.Elements(n.ks.Enum, func(e, _ int) bool { members = append(members, e); return true })
		default:
			continue
		}
		for _, m := range members {
			if d.Kind(m) == pyjson.String && c.keyIn(w, d.Str(m)) {
				keys = append(keys, d.Str(m))
			}
		}
		return keys, true
	}
	return nil, false
}

// keyOf is the expression of a free member's key valid for w (w nil: any
// key), a JSON string in ctx: nil when no key is.
func (c *compiler) keyOf(w *view, ctx textContext) *expr {
	if w == nil {
		return seq(lit(`"`), ref(c.stringText(ctx).rules[0]), lit(`"`))
	}
	if w.never || c.types(w)&tStr == 0 {
		return nil
	}
	if keys, ok := c.finiteKeys(w); ok {
		return c.keyLiterals(keys, nil, ctx)
	}
	return c.viewString(w, ctx, false)
}

// keyLiterals is keys as JSON strings in ctx, those that except rules out
// left out (nil: none); nil when none is left.
func (c *compiler) keyLiterals(keys []string, except func(string) bool, ctx textContext) *expr {
	var alts []*expr
	for _, k := range keys {
		q := string(pyjson.AppendQuoted(nil, k))
		if except != nil && except(k) || containsForbidden(q, ctx) {
			continue
		}
		alts = append(alts, lit(q))
	}
	return alt(alts...)
}

// dropPropertyNames reports the propertyNames of v's schemas (why: what
// the grammar can't do), an error under strict.
func (c *compiler) dropPropertyNames(v *view, why string) {
	for _, n := range v.nodes {
		if n.ks.PropertyNames >= 0 {
			c.loosen(n.path+".propertyNames", "propertyNames", why)
		}
	}
}

// exprMatches reports whether s is in the language of e, an expression
// without rule references (a pattern's or a format's value).
func exprMatches(e *expr, s string) bool {
	for _, end := range exprEnds(e, s, 0) {
		if end == len(s) {
			return true
		}
	}
	return false
}

// exprEnds returns the positions where a match of e in s from pos can
// end, each once.
func exprEnds(e *expr, s string, pos int) []int {
	switch e.kind {
	case kLit:
		if strings.HasPrefix(s[pos:], e.text) {
			return []int{pos + len(e.text)}
		}
	case kClass:
		if pos < len(s) {
			r, n := utf8.DecodeRuneInString(s[pos:])
			if e.has(r) {
				return []int{pos + n}
			}
		}
	case kSeq:
		cur := []int{pos}
		for _, it := range e.items {
			var next []int
			for _, p := range cur {
				next = addEnds(next, exprEnds(it, s, p))
			}
			if len(next) == 0 {
				return nil
			}
			cur = next
		}
		return cur
	case kAlt:
		var out []int
		for _, it := range e.items {
			out = addEnds(out, exprEnds(it, s, pos))
		}
		return out
	case kRep:
		var out []int
		cur := []int{pos}
		if e.min == 0 {
			out = append(out, pos)
		}
		for n := 1; (e.max < 0 || n <= e.max) && len(cur) > 0; n++ {
			var next []int
			for _, p := range cur {
				for _, q := range exprEnds(e.items[0], s, p) {
					if q > p || n <= e.min {
						next = addEnds(next, []int{q})
					}
				}
			}
			cur = next
			if n >= e.min {
				out = addEnds(out, cur)
			}
			if n > len(s)+e.min {
				break
			}
		}
		return out
	}
	return nil
}

// addEnds adds the positions of b not in a to a.
func addEnds(a, b []int) []int {
	for _, x := range b {
		found := false
		for _, y := range a {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			a = append(a, x)
		}
	}
	return a
}
