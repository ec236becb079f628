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
