package grammar

import (
	"slices"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// closedVariantCases returns, for a oneOf of v whose variants ws are each
// an object closed to its own properties, the names of no two variants
// shared ({"oneOf": [{"properties": {"set": ..., "delete": ...},
// "additionalProperties": false}, {"properties": {"replace": ...},
// "additionalProperties": false}]}, gap decision 231), the cases of each
// variant, as exclusiveNotCases gives them. An object that holds a name
// is valid for the one variant that allows it at most (every other
// variant forbids that name), so it is valid for the oneOf where it is
// for that variant; the empty object is valid for every variant that
// requires no name, so for the oneOf where one variant alone requires
// none. So a variant that requires a name is written as it is; one that
// requires none, as it is where it alone requires none, and otherwise as
// its objects that hold a name: a case for each of its names, the first
// present (the names before it absent). Values of other types are valid
// for every variant without a type, so for none alone where two or none
// have one, and the cases are objects. nil when the variants are not of
// that form (a keyword beside type "object", properties, required and
// additionalProperties false; names shared; the view listing values or
// holding dependencies), when one variant alone has no type and v admits
// values of other types, or past maxExclusiveCases cases.
func (c *compiler) closedVariantCases(v *view, ws []*view) [][]exclusiveCase {
	d := c.d
	if len(ws) < 2 || len(ws) > maxDiscriminated ||
		c.has(v, func(ks *schema.Keys) bool { return ks.Enum >= 0 || ks.Const >= 0 }) ||
		c.hasDependencies(v) || c.hasDependentSchemas(v) {
		return nil
	}
	type variant struct {
		allowed, required []string
		typed             bool
	}
	vs := make([]variant, len(ws))
	owner := map[string]int{} // the variant that allows each name
	untyped := 0
	for i, w := range ws {
		x := &vs[i]
		closed := false
		for _, n := range w.nodes {
			if v.has(n.node) {
				continue // the view's own, not the variant's
			}
			ks := n.ks
			if n.other || n.mayOther || !closedVariantKeys(ks) {
				return nil
			}
			typed, ok := readVariantNode(d, ks, &x.required)
			if !ok {
				return nil
			}
			x.typed = x.typed || typed
			if ks.AdditionalProperties >= 0 {
				if d.Kind(ks.AdditionalProperties) != pyjson.False || closed {
					return nil // (two closed schemas: the names both declare)
				}
				closed = true
				if ks.Properties >= 0 {
					if d.Kind(ks.Properties) != pyjson.Object || d.DuplicateKey(ks.Properties) >= 0 {
						return nil
					}
					d.Members(ks.Properties, func(k, _ int) bool {
						x.allowed = append(x.allowed, d.Str(k))
						return true
					})
				}
			} else if ks.Properties >= 0 {
				return nil // properties a schema of the variant declares and another closes out: not read
			}
		}
		if !closed || len(x.allowed) > maxExclusiveNames || len(x.required) > maxExclusiveNames {
			return nil
		}
		for _, name := range x.allowed {
			if _, shared := owner[name]; shared {
				return nil
			}
			owner[name] = i
		}
		if !x.typed {
			untyped++
		}
	}
	if untyped == 1 && c.types(v)&^tObj != 0 {
		return nil // a value of another type is valid for that variant alone
	}
	empty := 0 // the variants the empty object is valid for
	for _, x := range vs {
		if len(x.required) == 0 {
			empty++
		}
	}
	cases := make([][]exclusiveCase, len(vs))
	total := 0
	for i, x := range vs {
		switch {
		case slices.ContainsFunc(x.required, func(r string) bool { return !slices.Contains(x.allowed, r) }):
			// A name it requires and forbids: no object is valid for it.
		case len(x.required) > 0 || empty == 1:
			cases[i] = []exclusiveCase{{}}
		default:
			for k, name := range x.allowed {
				cases[i] = append(cases[i], exclusiveCase{present: []string{name}, absent: slices.Clone(x.allowed[:k])})
			}
		}
		if total += len(cases[i]); total > maxExclusiveCases {
			return nil
		}
	}
	return cases
}

// closedVariantKeys reports whether a schema of a variant holds only what
// closedVariantCases reads: type, properties, required,
// additionalProperties, annotations, definitions, and a $ref (whose
// schema is one of the variant's too).
func closedVariantKeys(ks *schema.Keys) bool {
	for _, k := range [...]int{ks.Enum, ks.Const, ks.AnyOf, ks.OneOf, ks.AllOf, ks.Not, ks.PatternProperties,
		ks.MinProperties, ks.MaxProperties, ks.PropertyNames, ks.DependentRequired, ks.Items, ks.PrefixItems,
		ks.MinItems, ks.MaxItems, ks.UniqueItems, ks.Contains, ks.MinLength, ks.MaxLength, ks.Pattern, ks.Format,
		ks.Minimum, ks.Maximum, ks.ExclusiveMinimum, ks.ExclusiveMaximum, ks.Mult, ks.Nullable} {
		if k >= 0 {
			return false
		}
	}
	return true
}

// readVariantNode reads a schema ks of a oneOf variant's own for
// closedVariantCases and typedVariantCases: whether it says "type":
// "object" (typed), and its required names, added to required (at most
// maxExclusiveNames in all). ok is false for another type, a required
// that is not a list of strings, or one past maxExclusiveNames names.
func readVariantNode(d *pyjson.Doc, ks *schema.Keys, required *[]string) (typed, ok bool) {
	if ks.Type >= 0 {
		if typesOf(d, ks.Type) != tObj {
			return false, false
		}
		typed = true
	}
	if ks.Required < 0 {
		return typed, true
	}
	if d.Kind(ks.Required) != pyjson.Array {
		return false, false
	}
	ok = true
	d.Elements(ks.Required, func(r, _ int) bool {
		if ok = d.Kind(r) == pyjson.String; ok && !slices.Contains(*required, d.Str(r)) {
			*required = append(*required, d.Str(r))
			ok = len(*required) <= maxExclusiveNames
		}
		return ok
	})
	return typed, ok
}
