package grammar

import (
	"slices"
	"strconv"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// stringVariants is, under strict, the value of a oneOf (node oneOf of
// v's schema i, at path) whose variants only constrain strings (type,
// pattern, format, minLength, maxLength, an enum or const of strings, and
// annotations): the strings valid for exactly one variant, by one string
// automaton over every variant's patterns, formats, listed strings and
// lengths (groupAutomaton, gap decisions 202 and 226). Unanchored or
// overlapping patterns ({"oneOf": [{"pattern": "customer"}, {"pattern":
// "admin"}]}), a lowercase and an uppercase UUID (the all-digit ones are
// valid for both), overlapping enums ({"oneOf": [{"enum": ["a", "b"]},
// {"enum": ["b", "c"]}]}: "a" and "c"). A value of another type is valid
// for every variant that admits its type, since none constrains it: so
// for one alone only when a single variant admits it, which is left to
// the general path (ok false), as are views with a not or another pending
// anyOf or oneOf, a listed value that is not a string, raw arguments
// (xml), and automata past their limits. The strings a discriminator's
// conditions leave out (view.excluded) are left out by the automaton too.
// ok false: the caller goes on as before.
func (c *compiler) stringVariants(v *view, i int, oneOf int, path string, xml bool) (text *expr, ok bool) {
	d := c.d
	if !c.strict || xml || d.Kind(oneOf) != pyjson.Array || d.Nodes[oneOf].Len < 2 || d.Nodes[oneOf].Len > maxDiscriminated {
		return nil, false
	}
	ok = true
	d.Elements(oneOf, func(e, _ int) bool {
		if ok = d.Kind(e) == pyjson.Object && d.DuplicateKey(e) < 0; ok {
			d.Members(e, func(k, _ int) bool {
				switch d.Str(k) {
				case "type", "pattern", "format", "minLength", "maxLength", "enum", "const", "description", "title", "$comment", "examples", "default":
					return true
				}
				ok = false
				return false
			})
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	var groups []stringGroup
	key := []byte("variants") // the memo's: the groups' keywords
	var admitting [8]int      // the variants that admit each other type, by bit
	d.Elements(oneOf, func(e, pos int) bool {
		w := c.with(v, i, doneOneOf, e, path+"["+strconv.Itoa(pos)+"]")
		if w.never {
			return true // valid for nothing
		}
		for _, n := range w.nodes {
			ks := n.ks
			if ks.Not >= 0 || ks.AnyOf >= 0 && n.done&doneAnyOf == 0 || ks.OneOf >= 0 && n.done&doneOneOf == 0 {
				ok = false
				return false
			}
		}
		set := c.types(w)
		// An enum or const (the variant's own or beside the oneOf): its
		// strings, every value valid for the variant among them.
		lits, listed := c.literalSet(w)
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
	for _, n := range admitting {
		if n == 1 {
			return nil, false
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
	if e, ok := c.memo[string(key)]; ok {
		return e, true // the same variants elsewhere in the schemas
	}
	if text, ok = c.groupAutomaton(groups, negs, false, path); ok {
		c.memo[string(key)] = text
	}
	return text, ok
}
