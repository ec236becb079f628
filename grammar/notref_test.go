package grammar

import (
	"math/rand/v2"
	"testing"
)

// Under strict, a not that is only a $ref stands for the schema the $ref
// names, which the not readers read as if written in place (strings,
// numbers, required names), and a not of required may declare properties
// whose schemas admit anything (gap decision 296). Each schema is exact
// against a JSON Schema validator on its listed values and random ones.
func TestNotThroughRef(t *testing.T) {
	cases := []contentCase{
		{"Avro's primitive types ruled out by $ref", `{"definitions": {"primitive": {"title": "Primitive Type", "type": "string", "enum": ["null", "boolean", "int", "string"]}}, "type": "string", "not": {"$ref": "#/definitions/primitive"}}`,
			[]string{`"record"`, `"x"`, `""`}, []string{`"int"`, `"null"`, `"string"`, `1`, `null`}},
		{"a chain of $refs to a pattern", `{"$defs": {"a": {"$ref": "#/$defs/b", "description": "temporary"}, "b": {"pattern": "^tmp"}}, "type": "string", "not": {"$ref": "#/$defs/a"}}`,
			[]string{`"x"`, `"atmp"`}, []string{`"tmp"`, `"tmp1"`}},
		{"required names by $ref", `{"$defs": {"r": {"required": ["x"]}}, "type": "object", "properties": {"x": {}, "y": {}}, "not": {"$ref": "#/$defs/r"}}`,
			[]string{`{}`, `{"y": 1}`}, []string{`{"x": 1}`, `{"x": 1, "y": 2}`}},
		{"numbers by $ref", `{"$defs": {"n": {"enum": [1, 2]}}, "type": "integer", "not": {"$ref": "#/$defs/n"}}`,
			[]string{`0`, `3`, `-1`}, []string{`1`, `2`, `"a"`}},
		{"a name declared with a schema of anything (npm's bundledDependencies)", `{"type": "object", "properties": {"a": {}, "b": {"type": "integer"}}, "not": {"properties": {"a": {}}, "required": ["a"]}}`,
			[]string{`{}`, `{"b": 1}`}, []string{`{"a": 1}`, `{"a": 1, "b": 2}`}},
	}
	checkStrictExact(t, cases)
	checkListedAndRandom(t, cases, rand.New(rand.NewPCG(29, 6)), 300)
	for _, schema := range []string{
		// A $ref to a schema that constrains what the names hold.
		`{"$defs": {"r": {"properties": {"x": {"type": "string"}}, "required": ["x"]}}, "type": "object", "not": {"$ref": "#/$defs/r"}}`,
		// A $ref beside a keyword of the not's own.
		`{"$defs": {"p": {"enum": ["a"]}}, "type": "string", "not": {"$ref": "#/$defs/p", "minLength": 2}}`,
		// A $ref to itself.
		`{"$defs": {"a": {"$ref": "#/$defs/a"}}, "type": "string", "not": {"$ref": "#/$defs/a"}}`,
	} {
		checkReportedAt(t, schema, "response_format.json_schema.schema.not")
	}
}
