package grammar

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// A oneOf of lists that share values is exact in both modes (gap decision
// 312): a value one list alone holds is valid, one two hold is not, as a
// JSON Schema validator says.
func TestLiteralVariants(t *testing.T) {
	cases := []contentCase{
		{"enums of several types",
			`{"oneOf": [{"enum": ["red", "orange", 6, 9.0, null]}, {"enum": ["blue", "orange", 6, 3]}]}`,
			[]string{`"red"`, `9`, `9.0`, `null`, `"blue"`, `3`},
			[]string{`"orange"`, `6`, `6.0`, `"green"`, `true`, `[]`}},
		{"a const beside enums, in a property",
			`{"type": "object", "properties": {"c": {"oneOf": [{"enum": [1, 2, "x"]}, {"type": "integer", "enum": [2.0, 4, "x"]}, {"const": 4}]}}, "required": ["c"], "additionalProperties": false}`,
			[]string{`{"c": 1}`, `{"c": "x"}`},
			[]string{`{"c": 2}`, `{"c": 4}`, `{"c": 3}`, `{}`}},
		{"a variant behind a $ref (MaskBench's Github_easy o58619)",
			`{"definitions": {"colours": {"enum": ["red", "orange", 6, 9.0, null]}}, "type": "object", "properties": {"c": {"oneOf": [{"$ref": "#/definitions/colours"}, {"enum": ["blue", "orange", 6, 3]}]}}, "required": ["c"], "additionalProperties": false}`,
			[]string{`{"c": "red"}`, `{"c": null}`, `{"c": 3}`, `{"c": 9}`},
			[]string{`{"c": "orange"}`, `{"c": 6}`, `{"c": "green"}`}},
		{"beside the parent's type",
			`{"type": "string", "oneOf": [{"enum": ["a", 1, "b"]}, {"enum": [1, "b", "c"]}]}`,
			[]string{`"a"`, `"c"`},
			[]string{`1`, `"b"`, `"d"`}},
	}
	checkExact(t, cases)
	checkListedAndRandom(t, cases, rand.New(rand.NewPCG(312, 2)), 100)
}

// The same on random lists (two to four variants of one to four values
// drawn from a pool where 1 and 1.0 are one value, some beside a type,
// under a parent that may have a type or an enum of its own), checked
// against a JSON Schema validator on every value of the pool and a few
// more, strict and not.
func TestLiteralVariantsAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(312, 1))
	pool := []string{`1`, `1.0`, `2`, `2.5`, `"a"`, `"b"`, `"c"`, `null`, `true`, `false`}
	types := []string{`"string"`, `"number"`, `"integer"`, `["string", "null"]`, `"boolean"`}
	instances := append([]string{`7`, `"z"`, `[]`, `{}`, `2.0`}, pool...)
	checked, compiled, shared := 0, 0, 0
	for round := range 800 {
		var variants []string
		for range 2 + rng.IntN(3) {
			var values []string
			for range 1 + rng.IntN(4) {
				values = append(values, pool[rng.IntN(len(pool))])
			}
			kws := []string{`"enum": [` + strings.Join(values, ", ") + `]`}
			if len(values) == 1 && rng.IntN(2) == 0 {
				kws = []string{`"const": ` + values[0]}
			}
			if rng.IntN(4) == 0 {
				kws = append(kws, `"type": `+types[rng.IntN(len(types))])
			}
			variants = append(variants, "{"+strings.Join(kws, ", ")+"}")
		}
		parent := []string{`"oneOf": [` + strings.Join(variants, ", ") + `]`}
		switch rng.IntN(4) {
		case 0:
			parent = append(parent, `"type": `+types[rng.IntN(len(types))])
		case 1:
			parent = append(parent, `"enum": [`+pool[rng.IntN(len(pool))]+`, `+pool[rng.IntN(len(pool))]+`, "a"]`)
		}
		schema := "{" + strings.Join(parent, ", ") + "}"
		validator := validatorFor(t, schema)
		for _, strict := range []bool{true, false} {
			g, err := compileFormat(schema, strict)
			if err != nil {
				// (every variant's values left out, or none the parent
				// allows: a schema nothing satisfies)
				if !strings.Contains(err.Error(), "no value satisfies") && !strings.Contains(err.Error(), "no value can be written") {
					t.Errorf("round %d strict %v: %s: %v", round, strict, schema, err)
				}
				continue
			}
			if !strict && len(g.Dropped) > 0 {
				t.Errorf("round %d: %s: not strict, reported %v", round, schema, g.Dropped)
				continue
			}
			if strict {
				compiled++
				if sharesValue(schema) {
					shared++
				}
			}
			for _, in := range instances {
				agreeWithValidator(t, schema, g, validator, in)
				checked++
			}
		}
	}
	if compiled < 600 || shared < 400 || checked < 18000 {
		t.Errorf("only %d schemas compiled under strict (%d with lists that share a value), %d instances checked", compiled, shared, checked)
	}
	t.Logf("%d schemas compiled under strict (%d with lists that share a value), %d instances checked", compiled, shared, checked)
}

// sharesValue reports, roughly, whether two of a test schema's lists name
// one value: a text that two enums or consts hold (1 and 1.0 aside).
func sharesValue(schema string) bool {
	seen := map[string]int{}
	for _, part := range strings.Split(schema, "{")[2:] {
		own := map[string]bool{}
		for _, f := range strings.FieldsFunc(part, func(r rune) bool { return strings.ContainsRune("[], }", r) }) {
			if f == `"enum":` || f == `"const":` || f == `"type":` {
				continue
			}
			own[f] = true
		}
		for f := range own {
			seen[f]++
		}
	}
	for _, n := range seen {
		if n > 1 {
			return true
		}
	}
	return false
}
