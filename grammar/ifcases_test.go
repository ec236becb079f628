package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Under strict, a discriminator's if/then/else is a case of the object per
// condition, and one for the property absent (gap decision 206).
func TestIfCases(t *testing.T) {
	checkStrictExact(t, []contentCase{
		{"required discriminator, then and else", `{"type": "object", "properties": {"type": {"enum": ["a", "b"]}, "x": {}, "y": {}}, "required": ["type"], "allOf": [{"if": {"properties": {"type": {"const": "a"}}}, "then": {"required": ["x"]}}, {"if": {"properties": {"type": {"const": "b"}}}, "then": {"required": ["y"]}, "else": {"properties": {"y": false}}}]}`,
			[]string{`{"type": "a", "x": 1}`, `{"type": "b", "y": 1}`, `{"type": "b", "x": 1, "y": 2}`},
			[]string{`{"type": "a"}`, `{"type": "a", "x": 1, "y": 2}`, `{"type": "b"}`, `{}`}},
		{"optional discriminator: absent, every then", `{"type": "object", "properties": {"k": {"const": true}, "n": {"type": "string"}}, "if": {"properties": {"k": {"const": true}}}, "then": {"required": ["n"]}}`,
			[]string{`{"n": "x"}`, `{"k": true, "n": "x"}`}, []string{`{}`, `{"k": true}`}},
		{"untyped: other values meet every condition", `{"properties": {"k": {"enum": ["a", "b"]}, "x": {}}, "allOf": [{"if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"maxProperties": 1}}, {"if": {"properties": {"k": {"const": "b"}}}, "then": {"type": ["object", "string"]}}]}`,
			[]string{`"s"`, `{"k": "a", "x": 1}`, `{"x": 1}`, `{"k": "b"}`}, []string{`1`, `null`, `{"k": "a"}`, `{"k": "b", "x": 1}`, `{}`}},
		{"an if that requires the property: absent, its else", `{"type": "object", "properties": {"k": {"enum": [1, 2]}, "a": {}, "b": {}}, "allOf": [{"if": {"properties": {"k": {"const": 1}}, "required": ["k"]}, "then": {"required": ["a"]}, "else": {"required": ["b"]}}, {"if": {"properties": {"k": {"const": 2}}, "required": ["k"]}, "then": {"required": ["b"]}}]}`,
			[]string{`{"b": 1}`, `{"k": 1, "a": 1}`, `{"k": 1, "a": 1, "b": 2}`, `{"k": 2, "b": 1}`},
			[]string{`{}`, `{"a": 1}`, `{"k": 1}`, `{"k": 2}`}},
	})
	for _, s := range []string{
		// a value no condition names: the elses with it
		`{"type": "object", "properties": {"k": {"enum": ["a", "b", "c"]}}, "if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["x"]}}`,
		// the property's values are not listed
		`{"type": "object", "properties": {"k": {"type": "string"}}, "if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["x"]}}`,
		// not only objects, and a condition that requires the property
		`{"properties": {"k": {"enum": ["a"]}}, "if": {"properties": {"k": {"const": "a"}}, "required": ["k"]}, "then": {"required": ["x"]}}`,
	} {
		if _, err := compileFormat(s, true); err == nil || !strings.Contains(err.Error(), "if") {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// Against a JSON Schema validator, on random discriminators.
func TestIfCasesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 206))
	keys := []string{"a", "b", "c"}
	vals := []string{`"p"`, `"q"`, `"r"`}
	checked, compiled := 0, 0
	for range 200 {
		n := 1 + rng.IntN(3)
		schema := `{"type": "object", "properties": {"k": {"enum": [` + strings.Join(vals[:n], ", ") + `]}, "a": {}, "b": {"type": "integer"}, "c": {}}`
		untyped := rng.IntN(3) == 0
		if untyped {
			schema = strings.Replace(schema, `"type": "object", `, "", 1)
		}
		if rng.IntN(2) == 0 {
			schema += `, "required": ["k"]`
		}
		var conds []string
		for i := range n {
			cond := `{"properties": {"k": {"const": ` + vals[i] + `}}`
			if rng.IntN(3) == 0 {
				cond += `, "required": ["k"]`
			}
			cond += `}`
			s := `{"if": ` + cond
			switch rng.IntN(4) {
			case 0, 1:
				s += `, "then": {"required": [` + strconv.Quote(keys[rng.IntN(3)]) + `]}`
			case 2:
				s += `, "then": {"type": ["object", "string"]}` // other values: in the absent case alone
			}
			if rng.IntN(2) == 0 {
				s += `, "else": {"properties": {` + strconv.Quote(keys[rng.IntN(3)]) + `: false}}`
			}
			conds = append(conds, s+`}`)
		}
		schema += `, "allOf": [` + strings.Join(conds, ", ") + `]}`
		g, err := compileFormat(schema, true)
		if untyped && strings.Contains(schema, `"required"`) && err != nil && strings.Contains(err.Error(), "if") {
			continue // a required property beside other values: refused, as decision 206 says
		}
		if err != nil && !strings.Contains(err.Error(), "no value satisfies") {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		if g != nil {
			compiled++
		}
		validator := validatorFor(t, schema)
		for range 20 {
			content := randomObject(rng, append([]string{"k"}, keys...))
			content = strings.Replace(content, `"k": 0`, `"k": "p"`, 1)
			content = strings.Replace(content, `"k": 1`, `"k": "q"`, 1)
			content = strings.Replace(content, `"k": 2`, `"k": "r"`, 1)
			if rng.IntN(6) == 0 {
				content = []string{`1`, `"s"`, `null`, `[]`}[rng.IntN(4)]
			}
			agreeWithValidator(t, schema, g, validator, content)
			checked++
		}
	}
	if compiled < 150 || checked < 3000 {
		t.Errorf("only %d schemas compiled, %d instances checked", compiled, checked)
	}
}
