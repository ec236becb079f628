package grammar

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

var countSchemas = flag.Int("count-schemas", 150, "how many random schemas TestCountsAgainstValidator draws")

// Random schemas whose counts (string lengths, array elements, object
// members) lie around chunkFrom and the chunk boundaries, beside the
// keywords that meet counts (prefixItems, contains with minContains and
// maxContains, unevaluatedItems, patternProperties, properties, a
// pattern), judged by a JSON Schema validator on values whose counts lie
// near the bounds: a strict grammar holds exactly the valid ones, a
// grammar with nothing reported no invalid one (gap decision 210).
// Run longer with -count-schemas N.
func TestCountsAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 210))
	bounds := []int{0, 1, 2, 3, 8, 63, 64, 65, 66, 70, 80, 81, 82, 100, 121, 129, 130, 150, 200}
	count := func() int { return bounds[rng.IntN(len(bounds))] }
	pair := func(kind string) (string, int, int) {
		lo, hi := -1, -1
		var s string
		if rng.IntN(4) > 0 {
			lo = count()
			s += fmt.Sprintf(`, "min%s": %d`, kind, lo)
		}
		if rng.IntN(4) > 0 {
			hi = count()
			if lo > hi && rng.IntN(4) > 0 {
				lo, hi = hi, lo
				s = fmt.Sprintf(`, "min%s": %d`, kind, lo)
			}
			s += fmt.Sprintf(`, "max%s": %d`, kind, hi)
		}
		return s, lo, hi
	}
	// near are the counts to try: the bounds, one off them, random ones.
	near := func(lo, hi int) []int {
		ns := []int{rng.IntN(210)}
		for _, b := range []int{lo, hi} {
			if b >= 0 {
				ns = append(ns, b, b+1, max(b-1, 0))
			}
		}
		return ns
	}
	intArray := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprint(rng.IntN(3)) // 0, 1 or 2
			if rng.IntN(8) == 0 {
				parts[i] = `"s"`
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	checked, compiled := 0, 0
	for i := range *countSchemas {
		var schema string
		var values []string
		switch i % 3 {
		case 0: // a string
			counts, lo, hi := pair("Length")
			extra := ""
			if rng.IntN(3) == 0 {
				extra = `, "pattern": "^[a-z]*$"`
			}
			schema = `{"type": "string"` + counts + extra + `}`
			for _, n := range near(lo, hi) {
				values = append(values, `"`+strings.Repeat("x", n)+`"`)
				if n > 0 && rng.IntN(2) == 0 {
					values = append(values, `"`+strings.Repeat("x", n-1)+`\n"`)
				}
			}
		case 1: // an array
			counts, lo, hi := pair("Items")
			var kw []string
			if rng.IntN(2) == 0 {
				kw = append(kw, `"type": "array"`)
			}
			if rng.IntN(3) == 0 {
				kw = append(kw, `"prefixItems": [{"type": "integer"}, {"type": "integer"}]`)
			}
			if rng.IntN(2) == 0 {
				kw = append(kw, `"items": {"type": "integer"}`)
			}
			if rng.IntN(3) == 0 {
				kw = append(kw, `"contains": {"const": 2}`)
				if rng.IntN(2) == 0 {
					kw = append(kw, fmt.Sprintf(`"minContains": %d`, rng.IntN(3)))
				}
			}
			if rng.IntN(5) == 0 {
				kw = append(kw, `"unevaluatedItems": false`)
			}
			schema = `{` + strings.TrimPrefix(strings.Join(kw, ", ")+counts, ", ") + `}`
			for _, n := range near(lo, hi) {
				values = append(values, intArray(n))
			}
		case 2: // an object
			counts, lo, hi := pair("Properties")
			var kw []string
			if rng.IntN(2) == 0 {
				kw = append(kw, `"type": "object"`)
			}
			if rng.IntN(3) == 0 {
				kw = append(kw, `"properties": {"k0": {"type": "integer"}, "k1": {"type": "integer"}}`)
			}
			if rng.IntN(3) == 0 {
				kw = append(kw, `"patternProperties": {"^k": {"type": "integer"}}`)
			}
			if rng.IntN(2) == 0 {
				kw = append(kw, `"additionalProperties": {"type": "integer"}`)
			}
			schema = `{` + strings.TrimPrefix(strings.Join(kw, ", ")+counts, ", ") + `}`
			for _, n := range near(lo, hi) {
				var b strings.Builder
				b.WriteString("{")
				for j := range n {
					if j > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, `"k%d": %d`, j, rng.IntN(3))
				}
				values = append(values, b.String()+"}")
			}
		}
		validator := validatorFor(t, schema)
		for _, strict := range []bool{true, false} {
			g := exactGrammar(t, schema, strict)
			if g == nil {
				continue
			}
			compiled++
			for _, v := range values {
				matched, valid := verdicts(t, g, validator, v)
				checked++
				switch {
				case matched && !valid:
					t.Errorf("%s (strict %v): %.80s... is invalid, yet in the grammar", schema, strict, v)
				case !matched && valid && strict:
					t.Errorf("%s (strict): %.80s... is valid, yet not in the grammar", schema, v)
				}
			}
		}
	}
	t.Logf("%d grammars with nothing reported, %d values checked", compiled, checked)
	if compiled < *countSchemas/2 {
		t.Errorf("only %d grammars compiled", compiled)
	}
}
