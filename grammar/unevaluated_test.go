package grammar

import (
	"context"
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

// unevaluatedProperties beyond false on the root: true (or annotations
// only) constrains nothing; additionalProperties anywhere, or
// unevaluatedProperties true below, evaluates every member so that the
// root's constrains nothing; a schema is the schema of the members no
// schema declares; beside what may evaluate members unseen it is reported.
func TestUnevaluatedPropertiesSchema(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		strict       bool
		err          string
		in, out      []string
	}{
		{"true", `{"unevaluatedProperties": true}`, true, "", []string{`{"a": 1}`, `3`}, nil},
		{"a schema", `{"type": "object", "unevaluatedProperties": {"type": "string", "minLength": 3}}`, true, "",
			[]string{`{"a": "abc"}`, `{}`}, []string{`{"a": "ab"}`, `{"a": 1}`}},
		{"a schema beside declared and required names", `{"type": "object", "properties": {"a": {}}, "required": ["b"], "unevaluatedProperties": {"type": "integer"}}`, true, "",
			[]string{`{"a": "x", "b": 1}`, `{"b": 2, "c": 3}`}, []string{`{"a": "x", "b": "s"}`, `{"b": 1, "c": "s"}`}},
		{"beside additionalProperties", `{"type": "object", "properties": {"foo": {"type": "string"}}, "additionalProperties": true, "unevaluatedProperties": false}`, true, "",
			[]string{`{"foo": "x", "bar": 1}`}, []string{`{"foo": 1}`}},
		{"true below", `{"properties": {"foo": {"type": "string"}}, "allOf": [{"unevaluatedProperties": true}], "unevaluatedProperties": false}`, true, "",
			[]string{`{"foo": "x", "bar": 1}`}, nil},
		{"beside patternProperties", `{"type": "object", "patternProperties": {"^a": {}}, "unevaluatedProperties": {"type": "integer"}}`, true, "unevaluatedProperties", nil, nil},
		{"not strict, closed by default", `{"type": "object", "properties": {"a": {}}, "unevaluatedProperties": {"type": "integer"}}`, false, "",
			[]string{`{"a": 1}`}, []string{`{"a": 1, "b": 2}`}},
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
		for _, d := range g.Dropped {
			if d.Keyword == "unevaluatedProperties" {
				t.Errorf("%s: reported %v", c.name, g.Dropped)
			}
		}
		checkContents(t, c.name, g, c.in, c.out)
	}
}

// A tool's arguments don't apply unevaluatedProperties as a schema: it is
// reported (an error under strict), the arguments' root being the
// document's first node or not.
func TestUnevaluatedPropertiesArguments(t *testing.T) {
	for _, params := range []string{
		`{"type": "object", "properties": {"y": {}}, "unevaluatedProperties": {"type": "integer"}}`,
		`{"$defs": {"p": {"type": "object", "properties": {"y": {}}, "unevaluatedProperties": {"type": "integer"}}}, "$ref": "#/$defs/p"}`,
	} {
		tool := Tool{Name: "b", Parameters: []byte(params)}
		g, err := Compile(context.Background(), &Spec{Tools: []Tool{tool}, Choice: Required})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range g.Dropped {
			found = found || d.Keyword == "unevaluatedProperties"
		}
		if !found {
			t.Errorf("%s: unevaluatedProperties not reported: %v", params, g.Dropped)
		}
		tool.Strict = true
		if _, err := Compile(context.Background(), &Spec{Tools: []Tool{tool}, Choice: Required}); err == nil || !strings.Contains(err.Error(), "unevaluatedProperties") {
			t.Errorf("%s, strict: %v", params, err)
		}
	}
}
