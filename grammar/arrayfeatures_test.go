package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Arrays that combine what real-world schemas put together (items,
// prefixItems, counts, contains with minContains and maxContains,
// uniqueItems, an enum of arrays, nots of arrays, $refs), alone, as oneOf
// variants beside variants of other types or in an anyOf, against a JSON
// Schema validator on random arrays: the strict grammar accepts exactly
// the valid ones (a whole number written 1.0 aside). Written after
// decision 299's contains counted over a prefix.
func TestStrictArrayFeaturesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 299))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	items := []string{`{"type": "integer"}`, `{"type": "string"}`, `{"enum": ["a", "b"]}`, `{"enum": ["c", 1]}`, `{"const": "a"}`, `{}`, `{"type": ["integer", "null"]}`, `{"$ref": "#/$defs/i"}`, `false`}
	arr := func() string {
		var kws []string
		for range 1 + rng.IntN(3) {
			switch rng.IntN(10) {
			case 0:
				kws = append(kws, `"items": `+pick(items...))
			case 1:
				kws = append(kws, `"prefixItems": [`+pick(items...)+`]`)
			case 2:
				kws = append(kws, pick(`"minItems": `, `"maxItems": `)+strconv.Itoa(rng.IntN(3)))
			case 3:
				kws = append(kws, `"contains": `+pick(items...)+pick(``, `, "minContains": 2`, `, "maxContains": 1`))
			case 4:
				kws = append(kws, `"uniqueItems": true`)
			case 5:
				kws = append(kws, `"type": `+pick(`"array"`, `["array", "null"]`, `["array", "string"]`))
			case 6:
				kws = append(kws, `"enum": [[], ["a"], [1, "a"], "x"]`)
			case 7:
				kws = append(kws, `"not": `+pick(`{"maxItems": 0}`, `{"items": {"type": "integer"}}`, `{"const": []}`))
			case 8:
				kws = append(kws, `"$ref": "#/$defs/p"`)
			case 9: // items and contains the same (decision 299)
				x := pick(items[:7]...)
				kws = append(kws, `"items": `+x+`, "contains": `+x+pick(``, `, "minContains": 2`, `, "maxContains": 1`))
			}
		}
		return "{" + strings.Join(kws, ", ") + "}"
	}
	elems := []string{`1`, `2`, `"a"`, `"b"`, `"c"`, `null`, `true`, `[]`, `1.5`}
	compiled, checked := 0, 0
	for range 4000 {
		var schema string
		defs := `"$defs": {"i": ` + pick(items[:7]...) + `, "p": ` + arr() + `}`
		switch rng.IntN(3) {
		case 0:
			kw := arr()
			schema = "{" + defs + ", " + kw[1:]
		case 1:
			var vs []string
			for range 2 + rng.IntN(2) {
				vs = append(vs, pick(arr(), arr(), `{"type": "string"}`, `{"type": "null"}`, `{"$ref": "#/$defs/p"}`))
			}
			schema = "{" + defs + `, "oneOf": [` + strings.Join(vs, ", ") + "]}"
		case 2:
			schema = "{" + defs + `, "type": "array", "anyOf": [` + arr() + ", " + arr() + "]}"
		}
		g, err := compileFormat(schema, true)
		if err != nil {
			continue
		}
		compiled++
		validator := validatorFor(t, schema)
		for range 20 {
			var es []string
			for range rng.IntN(4) {
				es = append(es, pick(elems...))
			}
			content := "[" + strings.Join(es, ", ") + "]"
			if rng.IntN(6) == 0 {
				content = pick(`"x"`, `null`, `1`, `{}`, `"a"`)
			}
			matched, valid := verdicts(t, g, validator, content)
			if matched && !valid || !matched && valid && !strings.Contains(content, ".0") && !strings.Contains(content, "{") {
				t.Errorf("%s: %s: grammar %v validator %v", schema, content, matched, valid)
			}
			checked++
		}
	}
	t.Logf("%d compiled, %d checked", compiled, checked)
	if compiled < 1200 || checked < 25000 {
		t.Errorf("only %d schemas compiled, %d values checked", compiled, checked)
	}
}
