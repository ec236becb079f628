package grammar

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// dependentRequired is enforced where the grammar writes an object's
// members by name: its declared properties, and under strict the names it
// relates in an open object; elsewhere it is reported, and past the cap on
// optional triggers too (an error under strict).
func TestDependentRequired(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		strict       bool
		in, out      []string
		reported     string // the keywords reported, space-separated
	}{
		{"one trigger", `{"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "dependentRequired": {"a": ["b"]}, "additionalProperties": false}`, true,
			[]string{`{}`, `{"b": 1}`, `{"a": 1, "b": 2}`, `{"a": 1, "b": 2, "c": 3}`, `{"c": 3}`},
			[]string{`{"a": 1}`, `{"a": 1, "c": 3}`}, ""},
		{"a required trigger makes its dependents required", `{"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"], "dependentRequired": {"a": ["b"]}, "additionalProperties": false}`, true,
			[]string{`{"a": 1, "b": 2}`}, []string{`{"a": 1}`, `{"b": 2}`}, ""},
		{"a chain", `{"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "dependentRequired": {"a": ["b"], "b": ["c"]}, "additionalProperties": false}`, true,
			[]string{`{}`, `{"c": 1}`, `{"b": 1, "c": 2}`, `{"a": 1, "b": 2, "c": 3}`},
			[]string{`{"a": 1, "b": 2}`, `{"b": 1}`, `{"a": 1, "c": 3}`}, ""},
		{"two triggers", `{"type": "object", "properties": {"a": {}, "b": {}, "x": {}, "y": {}}, "dependentRequired": {"a": ["x"], "b": ["y"]}, "additionalProperties": false}`, true,
			[]string{`{}`, `{"a": 1, "x": 1}`, `{"b": 1, "y": 1}`, `{"a": 1, "b": 2, "x": 3, "y": 4}`, `{"x": 1, "y": 2}`},
			[]string{`{"a": 1}`, `{"a": 1, "b": 2, "x": 3}`, `{"b": 1, "x": 2}`}, ""},
		{"a dependent no schema declares", `{"type": "object", "properties": {"a": {"type": "integer"}}, "dependentRequired": {"a": ["b"]}}`, false,
			[]string{`{}`, `{"a": 1, "b": "x"}`, `{"b": 1}`}, []string{`{"a": 1}`, `{"c": 1}`}, "additionalProperties"},
		{"a dependent additionalProperties forbids", `{"type": "object", "properties": {"a": {}}, "dependentRequired": {"a": ["b"]}, "additionalProperties": false}`, true,
			[]string{`{}`}, []string{`{"a": 1}`, `{"a": 1, "b": 2}`}, ""},
		{"a trigger a closed object can't hold", `{"type": "object", "properties": {"a": {}}, "dependentRequired": {"z": ["a"]}, "additionalProperties": false}`, true,
			[]string{`{}`, `{"a": 1}`}, []string{`{"z": 1}`}, ""},
		{"an open object under strict", `{"dependentRequired": {"bar": ["foo"]}}`, true,
			[]string{`{}`, `{"foo": 1}`, `{"foo": 1, "bar": 2}`, `{"x": 1}`, `{"foo": 1, "bar": 2, "x": 3}`, `"bar"`, `12`},
			[]string{`{"bar": 2}`, `{"bar": 2, "x": 1}`, `{"x": 1, "bar": 2}`}, ""},
		{"free members not strict", `{"dependentRequired": {"bar": ["foo"]}}`, false,
			[]string{`{}`, `{"foo": 1, "bar": 2}`, `{"bar": 2}`}, nil, "dependentRequired"},
		{"beside an enum (each listed value checked, decision 207)", `{"enum": [{"a": 1}, {"a": 1, "b": 2}], "dependentRequired": {"a": ["b"]}}`, true,
			[]string{`{"a": 1, "b": 2}`}, []string{`{"a": 1}`}, ""},
		{"past the cap", `{"type": "object", "properties": {"a": {}, "b": {}, "c": {}, "d": {}, "e": {}, "z": {}}, "dependentRequired": {"a": ["z"], "b": ["z"], "c": ["z"], "d": ["z"], "e": ["z"]}, "additionalProperties": false}`, false,
			[]string{`{"a": 1, "z": 1}`, `{"a": 1}`}, nil, "dependentRequired"},
		{"within the cap", `{"type": "object", "properties": {"a": {}, "b": {}, "c": {}, "d": {}, "z": {}}, "dependentRequired": {"a": ["z"], "b": ["z"], "c": ["z"], "d": ["z"]}, "additionalProperties": false}`, true,
			[]string{`{"a": 1, "z": 1}`, `{"a": 1, "b": 2, "c": 3, "d": 4, "z": 5}`, `{}`},
			[]string{`{"a": 1}`, `{"a": 1, "b": 2, "c": 3, "d": 4}`}, ""},
		{"not an object", `{"type": "object", "properties": {"a": {}}, "dependentRequired": ["a"], "additionalProperties": false}`, false,
			[]string{`{"a": 1}`}, nil, "dependentRequired"},
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
		// Reported, it is an error under strict, except on free members,
		// which strict writes open and so by name.
		if strings.Contains(c.reported, "dependentRequired") && c.name != "free members not strict" {
			if _, err := compileFormat(c.schema, true); err == nil || !strings.Contains(err.Error(), ".dependentRequired") {
				t.Errorf("%s: under strict: %v", c.name, err)
			}
		}
	}
}

// A tool's arguments follow dependentRequired as an object's members do.
func TestDependentRequiredArguments(t *testing.T) {
	tools := []Tool{{Name: "f", Parameters: json.RawMessage(`{"type": "object", "properties": {"card": {"type": "string"}, "cvc": {"type": "string"}}, "dependentRequired": {"card": ["cvc"]}, "additionalProperties": false}`), Strict: true}}
	g, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	checkArgs(t, g, []argCase{
		{"", true},
		{xmlArg("cvc", "123"), true},
		{xmlArg("card", "4111") + "\n" + xmlArg("cvc", "123"), true},
		{xmlArg("card", "4111"), false},
	})
}
