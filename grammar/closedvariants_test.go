package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// A oneOf of variants each closed to names of its own is exact in both
// modes (gap decision 231): random variants (two or three, each of one to
// three names from a pool, some required, typed or not) beside a parent
// that may be an object, may declare or require a name, checked against a
// JSON Schema validator on random objects and other values. Under strict
// the grammar agrees with the validator on every instance; not strict it
// accepts every valid instance, and agrees where nothing is reported.
func TestClosedVariantsAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(231, 7))
	pool := []string{"a", "b", "c", "d", "e", "f", "g"}
	values := []string{`0`, `"x"`, `[]`, `{}`, `true`}
	checked, compiled, valid := 0, 0, 0
	for round := range 400 {
		names := shuffledNames(rng, pool)
		var variants []string
		next := 0
		for range 2 + rng.IntN(2) {
			k := 1 + rng.IntN(3)
			if next+k > len(names) {
				k = len(names) - next
			}
			own := names[next : next+k]
			next += k
			var props, req []string
			for _, n := range own {
				props = append(props, strconv.Quote(n)+`: `+[]string{`{"type": "integer"}`, `{"type": "string"}`, `{}`}[rng.IntN(3)])
				if rng.IntN(3) == 0 {
					req = append(req, strconv.Quote(n))
				}
			}
			kws := []string{`"properties": {` + strings.Join(props, ", ") + `}`, `"additionalProperties": false`}
			if len(req) > 0 {
				kws = append(kws, `"required": [`+strings.Join(req, ", ")+`]`)
			}
			if rng.IntN(2) == 0 {
				kws = append(kws, `"type": "object"`)
			}
			variants = append(variants, "{"+strings.Join(kws, ", ")+"}")
		}
		parent := []string{`"oneOf": [` + strings.Join(variants, ", ") + `]`}
		if rng.IntN(2) == 0 {
			parent = append(parent, `"type": "object"`)
		}
		if rng.IntN(4) == 0 {
			parent = append(parent, `"required": [`+strconv.Quote(pool[rng.IntN(len(pool))])+`]`)
		}
		schema := "{" + strings.Join(parent, ", ") + "}"
		validator := validatorFor(t, schema)
		strict, err := compileFormat(schema, true)
		if err != nil && !strings.Contains(err.Error(), "no value satisfies") {
			// One untyped variant beside an untyped parent: refused. A
			// variant that forbids a name the parent requires is an
			// error, as everywhere.
			if !strings.Contains(err.Error(), ".oneOf: ") && !strings.Contains(err.Error(), "which properties does not declare and additionalProperties forbids") {
				t.Errorf("round %d: %s: %v", round, schema, err)
			}
			continue
		}
		loose, lerr := compileFormat(schema, false)
		if strict != nil {
			compiled++
		}
		for range 30 {
			var content string
			if rng.IntN(8) == 0 {
				content = values[rng.IntN(len(values))]
			} else {
				var members []string
				for _, n := range names { // in the order the variants declare them
					if rng.IntN(4) == 0 {
						members = append(members, strconv.Quote(n)+": "+values[rng.IntN(3)])
					}
				}
				content = "{" + strings.Join(members, ", ") + "}"
			}
			agreeWithValidator(t, schema, strict, validator, content)
			instance, _ := unmarshalInstance(content)
			ok := validator.Validate(instance) == nil
			if ok {
				valid++
			}
			if lerr == nil && ok && !loose.Matches(analysisPrefix+finalHeader+content) {
				t.Errorf("%s not strict: %s is valid and rejected", schema, content)
			}
			checked++
		}
	}
	if compiled < 250 || checked < 7000 || valid < 800 {
		t.Errorf("only %d schemas compiled, %d instances checked, %d valid", compiled, checked, valid)
	}
	t.Logf("%d schemas compiled, %d instances checked, %d valid", compiled, checked, valid)
}

func shuffledNames(rng *rand.Rand, s []string) []string {
	out := append([]string(nil), s...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
