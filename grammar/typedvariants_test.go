package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Under strict, a oneOf of open object variants that declare properties
// of types or of listed values and require names is exact (gap decision
// 234): random variants (two or three, each declaring one to three names
// of a pool with a schema of types or a const or enum, some required,
// typed or not) beside a parent that may
// be an object, declare a name or require one, and may hold
// additionalProperties, a not of required or minProperties, judged by a JSON Schema
// validator on random objects (members of every type, in any order) and
// other values. A strict grammar agrees with the validator on every
// instance, or the compile fails naming the oneOf (integer without
// number, whose complement the grammar does not write, and a listed
// fraction beside unbounded numbers are among the schemas drawn) or the
// schema no value satisfies.
func TestTypedVariantsAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(234, 3))
	pool := []string{"a", "b", "c", "d", "e"}
	schemas := []string{`{"type": "string"}`, `{"type": "number"}`, `{"type": ["string", "null"]}`, `{}`,
		`{"type": "boolean"}`, `{"type": "object"}`, `false`, `{"type": "integer"}`, `{"type": ["array", "number"]}`,
		`{"enum": ["x", "y"]}`, `{"const": "x"}`, `{"type": "string", "enum": ["y", 0]}`, `{"enum": [0, null, true]}`,
		`{"enum": [true, false]}`, `{"const": 1.5}`, `{"type": "integer", "enum": [0, 2]}`}
	values := []string{`0`, `1.5`, `"x"`, `"y"`, `null`, `true`, `false`, `[]`, `{}`}
	others := []string{`0`, `"x"`, `[]`, `null`}
	compiled, refused, checked, valid := 0, 0, 0, 0
	for range 900 {
		var variants []string
		for range 2 + rng.IntN(2) {
			var props, req []string
			for _, n := range shuffledNames(rng, pool)[:1+rng.IntN(3)] {
				props = append(props, strconv.Quote(n)+`: `+schemas[rng.IntN(len(schemas))])
				if rng.IntN(2) == 0 {
					req = append(req, strconv.Quote(n))
				}
			}
			kws := []string{`"properties": {` + strings.Join(props, ", ") + `}`}
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
			parent = append(parent, `"properties": {`+strconv.Quote(pool[rng.IntN(len(pool))])+`: {"type": ["string", "number"]}}`)
		}
		if rng.IntN(4) == 0 {
			parent = append(parent, `"required": [`+strconv.Quote(pool[rng.IntN(len(pool))])+`]`)
		}
		switch rng.IntN(8) {
		case 0:
			parent = append(parent, `"additionalProperties": {"type": ["number", "string", "boolean"]}`)
		case 1:
			parent = append(parent, `"not": {"required": [`+strconv.Quote(pool[rng.IntN(len(pool))])+`]}`)
		case 2:
			parent = append(parent, `"minProperties": 2`)
		}
		schema := "{" + strings.Join(parent, ", ") + "}"
		g, err := compileFormat(schema, true)
		if err != nil {
			if !strings.Contains(err.Error(), ".oneOf") && !strings.Contains(err.Error(), "no value satisfies") {
				t.Errorf("%s: %v", schema, err)
			}
			refused++
			continue
		}
		compiled++
		validator := validatorFor(t, schema)
		for range 40 {
			content, members := others[rng.IntN(len(others))], []string(nil)
			if rng.IntN(8) > 0 {
				for _, n := range pool {
					if rng.IntN(2) == 0 {
						members = append(members, strconv.Quote(n)+": "+values[rng.IntN(len(values))])
					}
				}
				content = "{" + strings.Join(members, ", ") + "}"
			}
			matched, ok := verdictsInAnyOrder(t, g, validator, content, members)
			if matched != ok {
				t.Errorf("%s: %s: the grammar says %v, the validator %v", schema, content, matched, ok)
			}
			if ok {
				valid++
			}
			checked++
		}
	}
	if compiled < 250 || refused < 100 || valid < 2000 {
		t.Errorf("only %d schemas compiled (%d refused), %d of %d instances valid", compiled, refused, valid, checked)
	}
	t.Logf("%d schemas compiled (%d refused), %d of %d instances valid", compiled, refused, valid, checked)
}

// typedVariantCases's comparisons are bounded (maxCutWork), whatever the
// variants list: a oneOf of 32 variants whose properties list 900 values
// each took 43 s before, comparing cuts case by case. Each shape is
// refused or compiled within the cap on memory, and no call compares
// more values than maxCutWork.
func TestTypedVariantsBounded(t *testing.T) {
	most, calls := 0, 0
	cutWorkDone = func(compared int) { most, calls = max(most, compared), calls+1 }
	defer func() { cutWorkDone = nil }()
	for _, shape := range []struct {
		variants, props, values int
		required                bool
	}{{32, 3, 900, false}, {4, 10, 1000, true}, {2, 40, 1000, true}, {32, 8, 200, false}} {
		var variants []string
		for i := range shape.variants {
			var props []string
			for k := range shape.props {
				var values []string
				for e := range shape.values {
					values = append(values, strconv.Quote("v"+strconv.Itoa((i+e)%7)+"_"+strconv.Itoa(e)))
				}
				props = append(props, `"p`+strconv.Itoa((k+i)%(shape.props+3))+`": {"enum": [`+strings.Join(values, ", ")+`]}`)
			}
			variant := `{"properties": {` + strings.Join(props, ", ") + `}`
			if shape.required {
				variant += `, "required": ["p` + strconv.Itoa(i%shape.props) + `"]`
			}
			variants = append(variants, variant+"}")
		}
		schema := `{"type": "object", "oneOf": [` + strings.Join(variants, ", ") + `]}`
		if n := allocated(func() { _, _ = compileFormat(schema, true) }); n > maxCompileBytes {
			t.Errorf("%v: %d bytes allocated", shape, n)
		}
	}
	if calls == 0 || most > maxCutWork {
		t.Errorf("%d calls, the most values compared by one %d (cap %d)", calls, most, maxCutWork)
	}
	t.Logf("%d calls, the most values compared by one %d (cap %d)", calls, most, maxCutWork)
}
