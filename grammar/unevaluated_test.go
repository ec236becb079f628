package grammar

import (
	"strings"
	"testing"
)

// An object closed by unevaluatedProperties: false that is an anyOf
// variant also holds the property of another variant that matches when
// that property is present and valid: JSON Schema counts it evaluated.
// Another variant that could evaluate properties otherwise is reported (an
// error under strict).
func TestUnevaluatedAnyOfSiblings(t *testing.T) {
	const variants = `"anyOf": [{"properties": {"bar": {"const": "bar"}}, "required": ["bar"]}, {"type": "object", "properties": {"baz": {"const": "baz"}}, "required": ["baz"]}]`
	for _, c := range []struct {
		name, schema string
		strict       bool
		err          string // a part of the error, or "" for none
		dropped      string // a keyword reported, or ""
		in, out      []string
	}{
		{"both variants match", `{"properties": {"foo": {"type": "string"}}, ` + variants + `, "unevaluatedProperties": false}`, true, "", "",
			[]string{`{"foo": "f", "bar": "bar"}`, `{"foo": "f", "bar": "bar", "baz": "baz"}`, `{"baz": "baz"}`, `{"baz": "baz", "bar": "bar"}`},
			[]string{`{"foo": "f", "bar": "bar", "baz": "x"}`, `{"foo": "f", "bar": "bar", "quux": 1}`, `{"foo": "f"}`}},
		{"not strict alike", `{"properties": {"foo": {"type": "string"}}, ` + variants + `, "unevaluatedProperties": false}`, false, "", "",
			[]string{`{"foo": "f", "bar": "bar", "baz": "baz"}`}, []string{`{"bar": "bar", "baz": "x"}`}},
		{"additionalProperties false still forbids them", `{"properties": {"foo": {}, "bar": {}}, ` + variants + `, "additionalProperties": false, "unevaluatedProperties": false}`, true, "", "",
			[]string{`{"foo": 1, "bar": "bar"}`}, []string{`{"bar": "bar", "baz": "baz"}`, `{"baz": "baz"}`}},
		{"a variant of two properties", `{"anyOf": [{"properties": {"a": {}}, "required": ["a"]}, {"properties": {"b": {}, "c": {}}, "required": ["b"]}], "unevaluatedProperties": false}`, true,
			"unevaluatedProperties", "", nil, nil},
		{"a variant of two properties, not strict", `{"anyOf": [{"properties": {"a": {}}, "required": ["a"]}, {"properties": {"b": {}, "c": {}}, "required": ["b"]}], "unevaluatedProperties": false}`, false,
			"", "unevaluatedProperties", []string{`{"a": 1}`, `{"b": 1, "c": 2}`}, []string{`{"c": 2}`}},
		{"a variant evaluating nothing", `{"properties": {"a": {}}, "anyOf": [{"required": ["a"]}, {"minLength": 2}], "unevaluatedProperties": false}`, true, "", "",
			[]string{`{"a": 1}`}, []string{`{"a": 1, "b": 2}`}},
		{"beside dependentRequired", `{"properties": {"foo": {}}, ` + variants + `, "dependentRequired": {"foo": ["bar"]}, "unevaluatedProperties": false}`, true,
			"unevaluatedProperties", "", nil, nil},
		{"an anyOf of nine variants", `{"anyOf": [` + strings.Repeat(`{"properties": {"a": {}}, "required": ["a"]}, `, 8) + `{"required": ["a"]}], "unevaluatedProperties": false}`, true,
			"unevaluatedProperties", "", nil, nil},
	} {
		g, err := compileFormat(c.schema, c.strict)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error about %s", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		reported := ""
		for _, d := range g.Dropped {
			if d.Keyword == "unevaluatedProperties" {
				reported = d.Keyword
			}
		}
		if reported != c.dropped {
			t.Errorf("%s: reported %v, want %q", c.name, g.Dropped, c.dropped)
		}
		checkContents(t, c.name, g, c.in, c.out)
	}
}
