package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Under strict, a not of required makes an object lack one of the names,
// a case for each (gap decision 199); not strict, it stays reported.
func TestNotRequired(t *testing.T) {
	cases := []contentCase{
		{"one name, untyped", `{"properties": {"a": {"type": "integer"}, "b": {}}, "not": {"required": ["a"]}}`,
			[]string{`{}`, `{"b": 1}`}, []string{`{"a": 1}`, `{"a": 1, "b": 2}`, `1`, `"s"`}},
		{"two names, objects only", `{"type": "object", "properties": {"a": {}, "b": {}}, "not": {"type": "object", "required": ["a", "b"]}}`,
			[]string{`{}`, `{"a": 1}`, `{"b": 2}`}, []string{`{"a": 1, "b": 2}`}},
		{"a name the object requires", `{"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"], "not": {"required": ["a", "b"]}}`,
			[]string{`{"a": 1}`}, []string{`{"a": 1, "b": 2}`, `{"b": 2}`}},
		{"open object", `{"type": "object", "not": {"required": ["x"]}}`,
			[]string{`{}`, `{"y": 1}`}, []string{`{"x": 1}`, `{"y": 1, "x": 2}`}},
		{"not of type object, other types kept", `{"type": ["object", "null"], "not": {"type": "object", "required": ["x"]}}`,
			[]string{`null`, `{}`}, []string{`{"x": 1}`}},
	}
	// allOf and anyOf of required inside the not, and several nots in one
	// view (gap decision 205).
	cases = append(cases,
		contentCase{"not an allOf", `{"type": "object", "properties": {"cmd": {}, "args": {}}, "not": {"allOf": [{"required": ["cmd"]}, {"required": ["args"]}]}}`,
			[]string{`{}`, `{"cmd": 1}`, `{"args": 2}`}, []string{`{"cmd": 1, "args": 2}`}},
		contentCase{"not an anyOf", `{"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "not": {"anyOf": [{"required": ["a"]}, {"required": ["b", "c"]}]}}`,
			[]string{`{}`, `{"b": 1}`, `{"c": 1}`}, []string{`{"a": 1}`, `{"b": 1, "c": 2}`, `1`}},
		contentCase{"two nots", `{"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "not": {"required": ["a", "b"]}, "allOf": [{"not": {"required": ["b", "c"]}}]}`,
			[]string{`{"a": 1, "c": 2}`, `{"b": 1}`, `{}`}, []string{`{"a": 1, "b": 2}`, `{"b": 1, "c": 2}`}},
	)
	checkStrictExact(t, cases)
	for _, c := range cases {
		if g, err := compileFormat(c.schema, false); err != nil || !strings.Contains(strings.Join(droppedKeywords(g), " "), "not") {
			t.Errorf("%s (not strict): %v %v", c.name, g, err)
		}
	}
}

// droppedKeywords are the keywords g reports.
func droppedKeywords(g *Grammar) []string {
	var out []string
	for _, d := range g.Dropped {
		out = append(out, d.Keyword)
	}
	return out
}

// The nots of required agree with a JSON Schema validator: random objects
// of declared properties, required names and a not of required, against
// random instances (members in the declared order).
func TestNotRequiredAgainstValidator(t *testing.T) {
	keys := []string{"a", "b", "c", "d"}
	rng := rand.New(rand.NewPCG(7, 199))
	checked := 0
	for range 150 {
		var props, req, not []string
		for _, k := range keys {
			props = append(props, strconv.Quote(k)+": {}")
			if rng.IntN(5) == 0 {
				req = append(req, strconv.Quote(k))
			}
			if rng.IntN(2) == 0 {
				not = append(not, strconv.Quote(k))
			}
		}
		if len(not) == 0 {
			not = []string{`"a"`}
		}
		notSchema := `{"required": [` + strings.Join(not, ", ") + `]}`
		switch rng.IntN(4) { // decision 205's forms too
		case 0:
			notSchema = `{"anyOf": [` + notSchema + `, {"required": [` + strconv.Quote(keys[rng.IntN(len(keys))]) + `]}]}`
		case 1:
			notSchema = `{"allOf": [` + notSchema + `, {"required": [` + strconv.Quote(keys[rng.IntN(len(keys))]) + `]}]}`
		}
		schema := `{"properties": {` + strings.Join(props, ", ") + `}, "required": [` + strings.Join(req, ", ") + `], "not": ` + notSchema
		if rng.IntN(2) == 0 {
			schema += `, "type": "object"`
		}
		if rng.IntN(3) == 0 {
			schema += `, "additionalProperties": false`
		}
		schema += `}`
		g, err := compileFormat(schema, true)
		if err != nil && !strings.Contains(err.Error(), "no value satisfies this schema") {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		validator := validatorFor(t, schema)
		for range 20 {
			content := randomObject(rng, append(keys, "x"))
			if rng.IntN(8) == 0 {
				content = "7"
			}
			agreeWithValidator(t, schema, g, validator, content)
			checked++
		}
	}
	if checked < 2500 {
		t.Errorf("only %d instances checked", checked)
	}
}
