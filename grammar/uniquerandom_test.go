package grammar

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

var uniqueSchemas = flag.Int("unique-schemas", 400, "how many random schemas TestUniqueItemsAgainstValidator draws")

// Random arrays of listed values with uniqueItems (enum and const of
// values equal as JSON Schema compares them, a not of listed values, a
// type, counts), judged by a JSON Schema validator on random arrays: a
// strict grammar holds exactly the valid ones, a grammar with nothing
// reported no invalid one (gap decision 211). Numbers are spelled as the
// grammar writes listed values (decision 184: 0 and 0.0, not -0.0). Run
// longer with -unique-schemas N (24,000 agree, six seeds of 4,000, when
// this was written).
func TestUniqueItemsAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9))
	vals := []string{`"a"`, `"b"`, `1`, `1.0`, `2`, `null`, `true`, `[1]`, `{"k": 1}`, `"c"`, `0`, `0.0`}
	pick := func(n int) []string {
		var out []string
		for range n {
			out = append(out, vals[rng.IntN(len(vals))])
		}
		return out
	}
	bad, comp := 0, 0
	for range *uniqueSchemas {
		var kw []string
		kw = append(kw, `"uniqueItems": true`)
		item := `{"enum": [` + strings.Join(pick(1+rng.IntN(7)), ", ") + `]`
		if rng.IntN(3) == 0 {
			item += `, "not": {"enum": [` + strings.Join(pick(1+rng.IntN(2)), ", ") + `]}`
		}
		if rng.IntN(4) == 0 {
			item += `, "type": ["string", "integer", "null"]`
		}
		item += "}"
		if rng.IntN(5) == 0 {
			item = `{"const": ` + pick(1)[0] + `}`
		}
		kw = append(kw, `"items": `+item)
		if rng.IntN(2) == 0 {
			kw = append(kw, fmt.Sprintf(`"minItems": %d`, rng.IntN(4)))
		}
		if rng.IntN(2) == 0 {
			kw = append(kw, fmt.Sprintf(`"maxItems": %d`, rng.IntN(5)))
		}
		if rng.IntN(3) == 0 {
			kw = append(kw, `"type": "array"`)
		}
		schema := "{" + strings.Join(kw, ", ") + "}"
		validator := validatorFor(t, schema)
		for _, strict := range []bool{true, false} {
			g := exactGrammar(t, schema, strict)
			if g == nil {
				continue
			}
			comp++
			for range 30 {
				n := rng.IntN(5)
				v := "[" + strings.Join(pick(n), ", ") + "]"
				got, valid := verdicts(t, g, validator, v)
				if got != valid && (got || strict) {
					bad++
					if bad < 10 {
						t.Errorf("%s strict=%v %s: grammar %v validator %v", schema, strict, v, got, valid)
					}
				}
			}
		}
	}
	t.Logf("%d grammars with nothing reported, %d disagreements", comp, bad)
	if comp < *uniqueSchemas {
		t.Errorf("only %d grammars", comp)
	}
}
