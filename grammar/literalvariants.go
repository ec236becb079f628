package grammar

import (
	"slices"
	"strconv"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// literalVariants is the value of a oneOf (node oneOf of v's node i, at
// path) whose variants are each a const or an enum of scalars alone (a
// type and annotations beside it: literalList; directly or behind a $ref
// that stands alone, throughRefs) and share values
// ({"oneOf": [{"enum": ["red", "orange", 6, null]}, {"enum": ["blue",
// "orange", 6.0]}]}, gap decision 312): a value is valid for the variant
// that lists it when no other lists it too, so each variant is written
// together with the rest of v without the values another lists
// (view.excluded), and the alternatives are apart. Their meaning is the
// same in both modes. ok false when a variant is of another form, when no
// two lists share a value (the general path writes them as they are, told
// apart by literalsApart), for a tool's raw arguments (xml), and past
// maxLiteralPairs comparisons.
func (c *compiler) literalVariants(v *view, i, oneOf int, path string, ctx textContext, xml bool) (e *expr, ok bool) {
	d := c.d
	if xml || d.Kind(oneOf) != pyjson.Array || d.Nodes[oneOf].Len < 2 || d.Nodes[oneOf].Len > maxDiscriminated {
		return nil, false
	}
	var lists [][]int
	total := 0
	ok = true
	d.Elements(oneOf, func(s, _ int) bool {
		var values []int
		values, ok = literalList(d, c.throughRefs(s)) // (none: a variant nothing satisfies)
		total += len(values)
		ok = ok && total <= maxLiteralPairs
		lists = append(lists, values)
		return ok
	})
	if !ok {
		return nil, false
	}
	// shared[k]: the values of list k that another list holds too.
	shared := make([][]int, len(lists))
	found := false
	checks := 0
	for a, list := range lists {
		for _, x := range list {
			for b, other := range lists {
				if b == a {
					continue
				}
				if checks += len(other); checks > maxLiteralPairs {
					return nil, false
				}
				if slices.ContainsFunc(other, func(y int) bool { return c.literalEqual(x, y) }) {
					shared[a] = append(shared[a], x)
					found = true
					break
				}
			}
		}
	}
	if !found {
		return nil, false
	}
	var alts []*expr
	d.Elements(oneOf, func(s, k int) bool {
		w := c.with(v, i, doneOneOf, s, path+"["+strconv.Itoa(k)+"]")
		if c.err != nil {
			return false
		}
		if len(shared[k]) > 0 {
			w.excluded = append(slices.Clip(w.excluded), exclusion{values: shared[k], path: w.path})
		}
		alts = append(alts, c.value(w, ctx, xml))
		return c.err == nil
	})
	return alt(alts...), true
}
