package grammar

import (
	"strings"
	"testing"
)

// unevaluatedItems on an array's own schema: the elements past every
// prefixItems, when no schema has items, take it as their schema; where
// something else may evaluate elements, or below the root, it is reported
// (an error under strict).
func TestUnevaluatedItems(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		strict       bool
		err          string // a part of the error, or "" for none
		dropped      string // the keyword reported, or ""
		in, out      []string
	}{
		{"false past a prefix", `{"prefixItems": [{"type": "string"}], "unevaluatedItems": false}`, true, "", "",
			[]string{`["a"]`, `[]`, `3`}, []string{`["a", 1]`, `["a", "b"]`}},
		{"a schema past a prefix", `{"type": "array", "prefixItems": [{}], "unevaluatedItems": {"type": "integer"}}`, true, "", "",
			[]string{`["x", 1, 2]`, `["x"]`}, []string{`["x", "y"]`}},
		{"items evaluate every element", `{"items": {"type": "string"}, "unevaluatedItems": false}`, true, "", "",
			[]string{`["a", "b"]`}, []string{`[1]`}},
		{"a prefix in allOf", `{"allOf": [{"prefixItems": [{}, {}]}], "unevaluatedItems": false}`, true, "", "",
			[]string{`[1, 2]`, `[1]`}, []string{`[1, 2, 3]`}},
		{"untyped", `{"unevaluatedItems": false}`, true, "", "",
			[]string{`[]`, `3`, `{"a": [1]}`}, []string{`[1]`}},
		{"no array", `{"type": "string", "unevaluatedItems": false}`, true, "", "",
			[]string{`"a"`}, []string{`[]`}},
		{"beside contains", `{"contains": {"type": "string"}, "unevaluatedItems": false}`, true, "unevaluatedItems", "", nil, nil},
		{"below the root", `{"allOf": [{"unevaluatedItems": false}]}`, true, "unevaluatedItems", "", nil, nil},
		{"another anyOf variant evaluates elements", `{"anyOf": [{"prefixItems": [{}]}, {"prefixItems": [{}, {}]}], "unevaluatedItems": false}`, true,
			"unevaluatedItems", "", nil, nil},
		{"another anyOf variant, not strict", `{"anyOf": [{"prefixItems": [{}]}, {"prefixItems": [{}, {}]}], "unevaluatedItems": false}`, false,
			"", "unevaluatedItems", []string{`[1, 2]`}, nil},
		{"oneOf variants (oneOf itself reported: both are arrays)", `{"oneOf": [{"prefixItems": [{"type": "string"}]}, {"prefixItems": [{"type": "integer"}, {}]}], "unevaluatedItems": false}`, false, "", "",
			[]string{`["a"]`, `[1, 2]`}, []string{`["a", 2]`, `[1, 2, 3]`}},
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
			if d.Keyword == "unevaluatedItems" {
				reported = d.Keyword
			}
		}
		if reported != c.dropped {
			t.Errorf("%s: reported %v, want %q", c.name, g.Dropped, c.dropped)
		}
		checkContents(t, c.name, g, c.in, c.out)
	}
}
