package grammar

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// propertyNames constrains free members' keys as a string schema, checks
// declared names when the grammar is built, and is enforced beside other
// key languages (other members of a strict open object, a map keyed by a
// pattern) only when an enum or const lists the names; otherwise it is
// reported (an error under strict).
func TestPropertyNames(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		strict       bool
		in, out      []string
		reported     string // the keywords reported, space-separated
	}{
		{"maxLength of free keys", `{"type": "object", "propertyNames": {"maxLength": 3}}`, true,
			[]string{`{}`, `{"f": 1}`, `{"foo": {}, "bar": 2}`}, []string{`{"fooo": 1}`, `{"foo": 1, "quux": 2}`}, ""},
		{"pattern of free keys", `{"type": "object", "propertyNames": {"pattern": "^a+$"}, "additionalProperties": {"type": "integer"}}`, true,
			[]string{`{"a": 1, "aaa": 2}`, `{}`}, []string{`{"ab": 1}`, `{"a": "x"}`, `{"": 1}`}, ""},
		{"format of free keys", `{"type": "object", "propertyNames": {"format": "date"}}`, false,
			[]string{`{"2024-01-31": 1}`}, []string{`{"tomorrow": 1}`}, ""},
		{"enum of free keys", `{"propertyNames": {"enum": ["foo", "bar", 3]}}`, true,
			[]string{`{"foo": 1}`, `{"bar": 1, "foo": 2}`, `7`}, []string{`{"baz": 1}`, `{"3": 1}`}, ""},
		{"false", `{"propertyNames": false}`, true,
			[]string{`{}`, `[]`}, []string{`{"a": 1}`}, ""},
		{"not strings", `{"type": "object", "propertyNames": {"type": "integer"}}`, true,
			[]string{`{}`}, []string{`{"1": 1}`}, ""},
		{"declared names checked", `{"type": "object", "properties": {"id": {}, "identifier": {}}, "propertyNames": {"maxLength": 5}, "additionalProperties": false}`, true,
			[]string{`{"id": 1}`, `{}`}, []string{`{"identifier": 1}`, `{"id": 1, "identifier": 2}`}, ""},
		{"declared names by pattern", `{"type": "object", "properties": {"abc": {}, "Abc": {}}, "propertyNames": {"pattern": "^[a-z]+$"}}`, false,
			[]string{`{"abc": 1}`}, []string{`{"Abc": 1}`}, "additionalProperties"},
		{"declared names by format", `{"type": "object", "properties": {"2024-01-31": {}, "x": {}, "2024-13-01": {}}, "propertyNames": {"format": "date"}, "additionalProperties": false}`, true,
			[]string{`{"2024-01-31": 1}`}, []string{`{"x": 1}`, `{"2024-13-01": 1}`}, ""},
		{"other members of an enum", `{"type": "object", "properties": {"a": {"type": "integer"}}, "propertyNames": {"enum": ["a", "b", "c"]}}`, true,
			[]string{`{"a": 1, "b": 2}`, `{"c": 3}`, `{"a": 1, "c": true, "b": null}`}, []string{`{"d": 1}`, `{"a": 1, "a": 2}`, `{"a": "x"}`}, ""},
		{"other members of a pattern", `{"type": "object", "properties": {"a": {}}, "propertyNames": {"pattern": "^[a-z]$"}}`, false,
			[]string{`{"a": 1}`}, nil, "additionalProperties"},
		{"a map keyed by a pattern, names listed", `{"type": "object", "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": false, "propertyNames": {"enum": ["x1", "x2", "y"]}}`, true,
			[]string{`{"x1": 1, "x2": 2}`}, []string{`{"y": 1}`, `{"x3": 1}`}, ""},
		{"a map keyed by a pattern, names by length", `{"type": "object", "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": false, "propertyNames": {"maxLength": 2}}`, false,
			[]string{`{"x1": 1}`}, nil, "propertyNames"},
		{"a keyword no string follows", `{"type": "object", "propertyNames": {"not": {"const": "a"}}}`, false,
			[]string{`{"b": 1}`}, nil, "not"},
		{"beside an enum (each listed value checked, decision 207)", `{"enum": [{"a": 1}, {"abcd": 1}], "propertyNames": {"maxLength": 3}}`, true,
			[]string{`{"a": 1}`}, []string{`{"abcd": 1}`}, ""},
	} {
		g, err := compileFormat(c.schema, c.strict)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkContents(t, c.name, g, c.in, c.out)
		var got []string
		for _, d := range g.Dropped {
			got = append(got, d.Keyword)
		}
		if strings.Join(got, " ") != c.reported {
			t.Errorf("%s: reported %v, want %q", c.name, got, c.reported)
		}
		if c.reported == "propertyNames" || c.reported == "not" {
			if _, err := compileFormat(c.schema, true); err == nil || !strings.Contains(err.Error(), ".propertyNames") {
				t.Errorf("%s: under strict: %v", c.name, err)
			}
		}
	}
	// Under strict, other members beside declared ones need the names
	// listed.
	if _, err := compileFormat(`{"type": "object", "properties": {"a": {}}, "propertyNames": {"pattern": "^[a-z]$"}}`, true); err == nil || !strings.Contains(err.Error(), "propertyNames") {
		t.Errorf("other members of a pattern under strict: %v", err)
	}
	// A required name propertyNames rules out: nothing can be written.
	if _, err := compileFormat(`{"type": "object", "properties": {"long": {}}, "required": ["long"], "propertyNames": {"maxLength": 3}}`, false); err == nil || !strings.Contains(err.Error(), "propertyNames") {
		t.Errorf("a required name ruled out: %v", err)
	}
}

// A tool's free arguments are named as propertyNames lists.
func TestPropertyNamesArguments(t *testing.T) {
	tools := []Tool{{Name: "f", Parameters: json.RawMessage(`{"type": "object", "propertyNames": {"enum": ["x", "y"]}, "additionalProperties": {"type": "integer"}}`), Strict: true}}
	g, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	checkArgs(t, g, []argCase{
		{"", true},
		{xmlArg("x", "1"), true},
		{xmlArg("x", "1") + "\n" + xmlArg("y", "2"), true},
		{xmlArg("z", "1"), false},
	})
	tools[0].Parameters = json.RawMessage(`{"type": "object", "propertyNames": {"maxLength": 2}}`)
	if _, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required}); err == nil || !strings.Contains(err.Error(), "propertyNames") {
		t.Errorf("free arguments named by length under strict: %v", err)
	}
}

// Declared names are checked against a pattern within a bounded work:
// past it the names left are not checked, and the pattern is reported (an
// error under strict).
func TestPropertyNamesMatchWork(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {`)
	for i := 0; i < 100; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + strings.Repeat("a", 100) + itoa(i) + `": {}`)
	}
	b.WriteString(`}, "propertyNames": {"pattern": "^((a?){30}){30}[0-9]*$"}, "additionalProperties": false}`)
	var g *Grammar
	var err error
	used := allocated(func() { g, err = compileFormat(b.String(), false) })
	if err != nil {
		t.Fatal(err)
	}
	if used > maxCompileBytes {
		t.Errorf("%d bytes allocated", used)
	}
	if len(g.Dropped) != 1 || g.Dropped[0].Path != "response_format.json_schema.schema.propertyNames.pattern" {
		t.Errorf("reported %v", g.Dropped)
	}
	if _, err := compileFormat(b.String(), true); err == nil || !strings.Contains(err.Error(), "propertyNames.pattern") {
		t.Errorf("under strict: %v", err)
	}
}
