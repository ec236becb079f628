package grammar

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// A schema that lists its values (enum, const) beside keywords no grammar
// of values could enforce is exact in both modes: each listed value is
// checked against the whole schema, and only the valid ones are written
// (decision 207).
func TestListedValuesChecked(t *testing.T) {
	cases := []contentCase{
		{"not", `{"enum": ["a", "b", "c"], "not": {"pattern": "^[ab]"}}`,
			[]string{`"c"`}, []string{`"a"`, `"b"`}},
		{"not not", `{"allOf": [{"enum": [{"baz": 3, "foo": 1}, {"foo": 1}]}, {"not": {"not": {"oneOf": [{"required": ["foo", "bar"]}, {"required": ["foo", "baz"]}], "type": "object"}}}]}`,
			[]string{`{"baz": 3, "foo": 1}`}, []string{`{"foo": 1}`}},
		{"oneOf", `{"enum": [1, 2, 3], "oneOf": [{"minimum": 2}, {"maximum": 2}]}`,
			[]string{`1`, `3`}, []string{`2`}},
		{"if then else", `{"enum": ["ab", "b", "ax"], "if": {"pattern": "^a"}, "then": {"maxLength": 1}, "else": {"const": "b"}}`,
			[]string{`"b"`}, []string{`"ab"`, `"ax"`}},
		{"uniqueItems", `{"enum": [[1, 1], [1, 2], [1, 1.0], [{"a": 1, "b": 2}, {"b": 2, "a": 1}]], "uniqueItems": true}`,
			[]string{`[1, 2]`}, []string{`[1, 1]`, `[1, 1.0]`, `[{"a": 1, "b": 2}, {"b": 2, "a": 1}]`}},
		{"a decimal multipleOf", `{"enum": [0.3, 0.35, 1], "multipleOf": 0.1}`,
			[]string{`0.3`, `1`, `1.0`}, []string{`0.35`}},
		{"an object's members", `{"const": {"a": "x-1"}, "properties": {"a": {"pattern": "^x-[0-9]$"}}, "required": ["a"]}`,
			[]string{`{"a": "x-1"}`}, nil},
		{"formats", `{"type": "string", "enum": ["2024-02-30", "2024-02-28", "x"], "format": "date"}`,
			[]string{`"2024-02-28"`}, []string{`"2024-02-30"`, `"x"`}},
		{"patternProperties and additionalProperties", `{"enum": [{"x1": 1}, {"x1": "s"}, {"y": 1}, {"y": "s"}], "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": {"type": "string"}}`,
			[]string{`{"x1": 1}`, `{"y": "s"}`}, []string{`{"x1": "s"}`, `{"y": 1}`}},
		{"a tuple", `{"enum": [[1, "a"], [1, 2], [1, "a", 3]], "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false}`,
			[]string{`[1, "a"]`}, []string{`[1, 2]`, `[1, "a", 3]`}},
		{"contains counted", `{"enum": [[1], [1, 1], [1, 1, 1]], "contains": {"const": 1}, "minContains": 2, "maxContains": 2}`,
			[]string{`[1, 1]`}, []string{`[1]`, `[1, 1, 1]`}},
		{"dependentSchemas", `{"enum": [{"a": 1}, {"a": 1, "b": 2}, {"c": 1}], "dependentSchemas": {"a": {"required": ["b"]}}}`,
			[]string{`{"a": 1, "b": 2}`, `{"c": 1}`}, []string{`{"a": 1}`}},
		{"a $ref", `{"$defs": {"small": {"maximum": 5}}, "enum": [1, 10], "not": {"$ref": "#/$defs/small"}}`,
			[]string{`10`}, []string{`1`}},
		{"a property's listed values", `{"type": "object", "properties": {"k": {"enum": ["a", "bb", "ccc"], "not": {"maxLength": 1}}}, "required": ["k"], "additionalProperties": false}`,
			[]string{`{"k": "bb"}`, `{"k": "ccc"}`}, []string{`{"k": "a"}`}},
		{"minProperties and propertyNames", `{"enum": [{}, {"a": 1}, {"abcd": 1}], "minProperties": 1, "propertyNames": {"maxLength": 3}}`,
			[]string{`{"a": 1}`}, []string{`{}`, `{"abcd": 1}`}},
	}
	checkStrictExact(t, cases)
	// Not strict the same, and nothing reported.
	for _, c := range cases {
		g, err := compileFormat(c.schema, false)
		if err != nil {
			t.Errorf("%s (not strict): %v", c.name, err)
			continue
		}
		if len(g.Dropped) != 0 {
			t.Errorf("%s (not strict): reported %v", c.name, g.Dropped)
		}
		checkContents(t, c.name+" (not strict)", g, c.in, c.out)
	}
}

// No listed value valid is a schema nothing satisfies: a 400 in both
// modes. A value the check can't decide leaves the schema as before: the
// keyword is reported, an error under strict.
func TestListedValuesUnsatisfiedOrUndecided(t *testing.T) {
	for _, schema := range []string{
		`{"enum": ["a"], "not": {"const": "a"}}`,
		`{"const": [1, 1], "uniqueItems": true}`,
	} {
		for _, strict := range []bool{false, true} {
			var ge *Error
			if _, err := compileFormat(schema, strict); !errors.As(err, &ge) || !strings.Contains(ge.Msg, "every listed value") {
				t.Errorf("%s (strict %v): %v", schema, strict, err)
			}
		}
	}
	// 1,000 arrays of nine elements compared pairwise: past the check's
	// work, so decided as before (uniqueItems reported).
	var many []string
	for i := range 1000 {
		many = append(many, "[1, 2, 3, 4, 5, 6, 7, 8, "+itoa(i)+"]")
	}
	spent := `{"enum": [` + strings.Join(many, ", ") + `], "uniqueItems": true}`
	for _, c := range []struct{ schema, path string }{
		{`{"enum": [{"a": 1}], "not": {"required": ["b"]}, "unevaluatedProperties": false}`, "response_format.json_schema.schema.not"},
		{`{"enum": ["x"], "pattern": "(?<=a)x"}`, "response_format.json_schema.schema.pattern"},
		{spent, "response_format.json_schema.schema.uniqueItems"},
	} {
		checkReportedAt(t, c.schema, c.path)
	}
}

// The check of a listed value agrees with the JSON Schema Test Suite on
// every instance it decides: each instance is placed inside its schema (a
// keyword no vocabulary defines, which only annotates) and checked there.
func TestValueValidAgainstSuite(t *testing.T) {
	decided, total := 0, 0
	for _, f := range loadSuite(t) {
		for i, sc := range f.cases {
			schema := bytes.TrimSpace(sc.Schema)
			if len(schema) == 0 || schema[0] != '{' {
				continue // a boolean schema: no keyword to check
			}
			for _, in := range sc.Tests {
				total++
				doc := append([]byte(`{"x-beam-instance": `), in.Data...)
				if inner := bytes.TrimSpace(schema[1:]); inner[0] != '}' {
					doc = append(append(doc, ", "...), inner...)
				} else {
					doc = append(doc, '}')
				}
				c := &compiler{doc: &pyjson.Doc{}}
				if !c.load(doc, "", false, "") {
					t.Fatalf("%s#%d: %v", f.name, i, c.err)
				}
				m := c.d.Lookup(0, "x-beam-instance")
				got := c.valueValid(0, m, 0)
				if got == undecided {
					continue
				}
				decided++
				want := in.Valid
				if f.name == "format" && strings.Contains(in.Description, "only an annotation by default") {
					want = false // the grammar asserts format (decision 104)
				}
				if (got == valid) != want {
					t.Errorf("%s#%d %q: %q checked %v, want valid=%v", f.name, i, sc.Description, in.Description, got == valid, want)
				}
			}
		}
	}
	t.Logf("%d of %d instances decided", decided, total)
	if decided < total*3/4 {
		t.Errorf("only %d of %d instances decided", decided, total)
	}
}
