package grammar

import (
	"slices"
	"strconv"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// stringVariants is, under strict, the value of a oneOf (node oneOf of
// v's schema i, at path) whose variants only constrain strings (type,
// pattern, format, minLength, maxLength, an enum or const of strings, and
// annotations, in the variant's own schema or those its $ref and allOf
// lead to, gap decision 294): the strings valid for exactly one variant,
// by one string automaton over every variant's patterns, formats, listed
// strings and lengths (groupAutomaton, gap decisions 202 and 226).
// Unanchored or overlapping patterns ({"oneOf": [{"pattern": "customer"},
// {"pattern": "admin"}]}), a lowercase and an uppercase UUID (the
// all-digit ones are valid for both), overlapping enums ({"oneOf":
// [{"enum": ["a", "b"]}, {"enum": ["b", "c"]}]}: "a" and "c"). A value of
// another type is valid for every variant that admits its type, since
// none constrains it: so for none when two variants admit it, and for one
// alone when a single variant does, whose values of that type are written
// beside the strings (294: {"oneOf": [{"type": "integer"}, {"type":
// "string", "pattern": "^-?\\d+/\\d+$"}, {"type": "string", "pattern":
// "^0x"}]}). A variant that admits no strings may constrain the types it
// admits, when no other variant admits them (an object of properties
// beside string variants). Views with a not or another pending anyOf or oneOf, a listed
// value that is not a string, a variant alone admitting numbers that are
// not integers but not the integers, raw arguments (xml), and automata
// past their limits are left to the general path (ok false). The strings
// a discriminator's conditions leave out (view.excluded) are left out by
// the automaton too. ok false: the caller goes on as before.
func (c *compiler) stringVariants(v *view, i int, oneOf int, path string, ctx textContext, xml bool) (text *expr, ok bool) {
	d := c.d
	if !c.strict || xml || d.Kind(oneOf) != pyjson.Array || d.Nodes[oneOf].Len < 2 || d.Nodes[oneOf].Len > maxDiscriminated {
		return nil, false
	}
	ok = true
	d.Elements(oneOf, func(e, _ int) bool {
		ok = d.Kind(e) == pyjson.Object && d.DuplicateKey(e) < 0
		return ok
	})
	if !ok {
		return nil, false
	}
	var groups []stringGroup
	key := []byte("variants") // the memo's: the groups' keywords
	var admitting [8]int      // the variants that admit each other type, by bit
	var owner [8]*view        // the last of them
	var mine []*view          // the variants that constrain other types than strings
	d.Elements(oneOf, func(e, pos int) bool {
		w := c.with(v, i, doneOneOf, e, path+"["+strconv.Itoa(pos)+"]")
		if w.never {
			return true // valid for nothing
		}
		constrained := false // a keyword of other types than strings
		for _, n := range w.nodes {
			ks := n.ks
			if ks.Not >= 0 || ks.AnyOf >= 0 && n.done&doneAnyOf == 0 || ks.OneOf >= 0 && n.done&doneOneOf == 0 {
				ok = false
				return false
			}
			constrained = constrained || !v.has(n.node) && !stringVariantKeys(d, n)
		}
		set := c.types(w)
		if constrained {
			// Its values, of no type another variant admits, are its
			// own (checked below); it may constrain them as it likes,
			// but not strings.
			if set&tStr != 0 {
				ok = false
				return false
			}
			mine = append(mine, w)
		}
		// An enum or const (the variant's own or beside the oneOf): its
		// strings, every value valid for the variant among them.
		lits, listed, exact := c.literalSetOf(w)
		if listed && !exact {
			ok = false // lists too long to intersect: not written from them
			return false
		}
		if listed {
			if slices.ContainsFunc(lits, func(m int) bool { return d.Kind(m) != pyjson.String }) {
				ok = false
				return false
			}
			if set &= tStr; len(lits) == 0 {
				return true // valid for nothing
			}
		}
		for bit := range admitting {
			if t := typeSet(1) << bit; t != tStr && set&t != 0 {
				admitting[bit]++
				owner[bit] = w
			}
		}
		if set&tStr == 0 {
			return true
		}
		var g stringGroup
		g.lo, g.hi = c.viewLengths(w, "Length")
		key = strconv.AppendInt(append(key, '|'), int64(g.lo), 10)
		key = strconv.AppendInt(append(key, ','), int64(g.hi), 10)
		for _, n := range w.nodes {
			for _, k := range [...]struct {
				node    int
				pattern bool
			}{{n.ks.Pattern, true}, {n.ks.Format, false}} {
				if k.node < 0 {
					continue
				}
				var e *expr
				if d.Kind(k.node) == pyjson.String {
					if k.pattern {
						e = c.namePattern(k.node)
						key = append(key, " p"...)
					} else {
						key = append(key, " f"...)
						if e = formatExpr(d.Str(k.node)); formatLoose(d.Str(k.node)) != "" {
							e = nil // told apart by what it holds: not loosely
						}
					}
				}
				if e == nil {
					ok = false // reported where the variant is compiled
					return false
				}
				key = strconv.AppendQuote(key, d.Str(k.node))
				g.values = append(g.values, e)
			}
		}
		if listed {
			alts := make([]*expr, len(lits))
			key = append(key, " l"...)
			for j, m := range lits {
				alts[j] = lit(d.Str(m))
				key = strconv.AppendQuote(key, d.Str(m))
			}
			g.values = append(g.values, alt(alts...))
		}
		groups = append(groups, g)
		return true
	})
	if !ok || c.err != nil || len(groups) < 2 {
		return nil, false
	}
	// A type one variant alone admits: its values of that type (decision
	// 294), the variant's view with every other type left out.
	var alone []*view
	var only []typeSet
	for bit, n := range admitting {
		if n != 1 {
			continue
		}
		k := slices.Index(alone, owner[bit])
		if k < 0 {
			k = len(alone)
			alone, only = append(alone, owner[bit]), append(only, 0)
		}
		only[k] |= typeSet(1) << bit
	}
	for _, set := range only {
		if set&tFrac != 0 && set&tInt == 0 {
			return nil, false // numbers that are not integers: no rule writes them alone
		}
	}
	for _, w := range mine {
		if k := slices.Index(alone, w); k < 0 || only[k] != c.types(w) {
			return nil, false // a type another variant admits, which this one constrains
		}
	}
	// The strings a discriminator's conditions list (view.excluded) are
	// left out by the same automaton.
	var negs []*expr
	excluded, _ := v.excludedValues()
	for _, m := range excluded {
		if d.Kind(m) == pyjson.String {
			negs = append(negs, lit(d.Str(m)))
			key = strconv.AppendQuote(append(key, " not"...), d.Str(m))
		}
	}
	text, ok = c.memo[string(key)] // the same variants elsewhere in the schemas
	if !ok {
		if text, ok = c.groupAutomaton(groups, negs, false, path); !ok {
			return nil, false
		}
		c.memo[string(key)] = text
	}
	if len(alone) == 0 {
		return text, true
	}
	alts := []*expr{text}
	for k, w := range alone {
		x := *w
		x.excluded = append(slices.Clip(w.excluded), exclusion{types: tAll &^ only[k]})
		alts = append(alts, c.value(&x, ctx, xml))
	}
	return alt(alts...), c.err == nil
}

// stringVariantKeys reports whether a schema n of a oneOf variant's own
// (the variant, or one its $ref or allOf leads to) constrains strings
// only, for stringVariants: no keyword of objects, arrays or numbers, no
// nullable, and nothing the compiler reports or may report (other,
// mayOther). type, pattern, format, the lengths, enum, const,
// annotations, definitions, and a $ref or an allOf (whose schemas are the
// variant's too, read in turn) are.
func stringVariantKeys(d *pyjson.Doc, n vnode) bool {
	ks := n.ks
	if n.other || n.mayOther || ks.AllOf >= 0 && d.Kind(ks.AllOf) != pyjson.Array {
		return false
	}
	for _, k := range [...]int{ks.Properties, ks.Required, ks.AdditionalProperties, ks.PatternProperties,
		ks.MinProperties, ks.MaxProperties, ks.PropertyNames, ks.DependentRequired, ks.Items, ks.PrefixItems,
		ks.MinItems, ks.MaxItems, ks.UniqueItems, ks.Contains, ks.Minimum, ks.Maximum, ks.ExclusiveMinimum,
		ks.ExclusiveMaximum, ks.Mult, ks.Nullable} {
		if k >= 0 {
			return false
		}
	}
	return true
}
