package grammar

import (
	"strings"
	"testing"
)

// if/then/else known without the value are applied; others reported (an
// error under strict).
func TestKnownConditions(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		err          string
		in, out      []string
	}{
		{"if alone", `{"if": {"const": 0}}`, "", []string{`3`, `0`}, nil},
		{"then without if", `{"then": {"const": 0}}`, "", []string{`3`}, nil},
		{"else without if", `{"else": {"const": 0}}`, "", []string{`3`}, nil},
		{"if true", `{"if": true, "then": {"const": "then"}, "else": {"const": "else"}}`, "", []string{`"then"`}, []string{`"else"`, `3`}},
		{"if false", `{"if": false, "then": {"const": "then"}, "else": {"const": "else"}}`, "", []string{`"else"`}, []string{`"then"`}},
		{"if of annotations only", `{"type": "object", "if": {"description": "always"}, "then": {"properties": {"a": {"type": "integer"}}, "required": ["a"]}}`, "",
			[]string{`{"a": 1}`}, []string{`{}`, `{"a": "x"}`}},
		{"branches that admit anything", `{"if": {"const": 1}, "then": true, "else": {}}`, "", []string{`2`}, nil},
		{"a condition on the value", `{"if": {"const": 1}, "then": {"const": 2}}`, "if", nil, nil},
	} {
		g, err := compileFormat(c.schema, true)
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
		checkContents(t, c.name, g, c.in, c.out)
	}
}

// not is applied where it excludes types, everything or nothing; other
// not schemas are reported (an error under strict).
func TestNotTypes(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		err          string
		in, out      []string
	}{
		{"not a type", `{"not": {"type": "string"}}`, "", []string{`1`, `null`, `[]`}, []string{`"a"`}},
		{"not types", `{"not": {"type": ["object", "array", "null"]}}`, "", []string{`1.5`, `"a"`, `true`}, []string{`{}`, `[]`, `null`}},
		{"not number, beside type", `{"type": ["number", "string"], "not": {"type": "number"}}`, "", []string{`"a"`}, []string{`1`}},
		{"not false", `{"type": "integer", "not": false}`, "", []string{`1`}, []string{`"a"`}},
		{"not not anything", `{"not": {"not": {}}}`, "", []string{`1`, `"a"`}, nil},
		{"a property that can't be there", `{"type": "object", "properties": {"foo": {"not": {}}, "bar": {}}}`, "", []string{`{"bar": 1}`}, []string{`{"foo": 1}`}},
		{"not anything", `{"not": true}`, "no value satisfies", nil, nil},
		{"not integer (its complement among numbers is not written)", `{"not": {"type": "integer"}}`, "not", nil, nil},
		{"not a schema with more than type", `{"not": {"type": "string", "minLength": 2}}`, "not", nil, nil},
	} {
		g, err := compileFormat(c.schema, true)
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
		checkContents(t, c.name, g, c.in, c.out)
	}
}
