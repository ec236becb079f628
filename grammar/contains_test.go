package grammar

import (
	"strings"
	"testing"
)

// contains is enforced as a count of elements from below where the array
// is [ x* c x* ]-shaped, and as the length where every element counts;
// maxContains beyond maxItems and the shapes the grammar can't count are
// reported (an error under strict).
func TestContains(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		strict       bool
		in, out      []string
		reported     string // the keywords reported, space-separated
	}{
		{"one element of the schema", `{"type": "array", "contains": {"type": "integer", "minimum": 5}}`, true,
			[]string{`[5]`, `[1, 2, 7]`, `[7, "x", null]`, `["a", 6, 1]`}, []string{`[]`, `[1, 2]`, `["x"]`}, ""},
		{"untyped", `{"contains": {"const": 1}}`, true,
			[]string{`[1]`, `[2, 1]`, `"x"`, `{}`}, []string{`[]`, `[2]`}, ""},
		{"minContains", `{"type": "array", "contains": {"const": 1}, "minContains": 2}`, true,
			[]string{`[1, 1]`, `[1, 2, 1]`, `[2, 1, 3, 1, 4]`, `[1, 1, 1]`}, []string{`[1]`, `[1, 2]`, `[]`}, ""},
		{"minContains 0", `{"type": "array", "contains": {"const": 1}, "minContains": 0}`, true,
			[]string{`[]`, `[2]`}, nil, ""},
		{"with items", `{"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 10}}`, true,
			[]string{`[10]`, `[1, 11]`}, []string{`[1]`, `["a", 11]`, `[10.5]`, `[]`}, ""},
		{"false", `{"contains": false}`, true,
			[]string{`1`, `{}`}, []string{`[]`, `[1]`}, ""},
		{"false with minContains 0", `{"type": "array", "contains": false, "minContains": 0}`, true,
			[]string{`[]`, `[1]`}, nil, ""},
		{"every element counts", `{"type": "array", "items": {"type": "string"}, "contains": {"type": "string"}, "minContains": 2, "maxContains": 3}`, true,
			[]string{`["a", "b"]`, `["a", "b", "c"]`}, []string{`["a"]`, `["a", "b", "c", "d"]`}, ""},
		{"true counts the length", `{"type": "array", "contains": true, "maxContains": 1}`, true,
			[]string{`[1]`}, []string{`[]`, `[1, 2]`}, ""},
		{"maxContains within maxItems", `{"type": "array", "contains": {"const": 1}, "maxContains": 2, "maxItems": 2}`, false,
			[]string{`[1, 2]`}, []string{`[1, 2, 3]`}, "contains"},
		{"maxContains", `{"type": "array", "contains": {"const": 1}, "maxContains": 1}`, false,
			[]string{`[1]`, `[1, 1]`}, []string{`[]`}, "maxContains"},
		{"minContains above maxContains", `{"contains": {"const": 1}, "minContains": 3, "maxContains": 1}`, true,
			[]string{`null`}, []string{`[]`, `[1]`, `[1, 1, 1]`}, ""},
		{"beside prefixItems", `{"type": "array", "prefixItems": [{"type": "string"}], "contains": {"const": 1}}`, false,
			[]string{`["a"]`, `["a", 1]`}, nil, "contains"},
		// A contains the same as items beside prefixItems: a prefix's
		// element need not be valid for items, so it need not count
		// (decision 299).
		{"the same as items beside prefixItems", `{"type": "array", "prefixItems": [{}], "items": {"type": "integer"}, "contains": {"type": "integer"}, "minContains": 2}`, false,
			[]string{`[1, 2, 3]`, `["a", 2]`}, nil, "contains minContains"},
		{"beside maxItems", `{"type": "array", "contains": {"const": 1}, "maxItems": 3}`, false,
			[]string{`[2]`, `[1]`}, []string{`[1, 2, 3, 4]`}, "contains"},
		{"minContains without contains", `{"type": "array", "minContains": 2, "maxContains": 0}`, true,
			[]string{`[]`, `[1, 2]`}, nil, ""},
		{"a keyword inside it the grammar can't enforce", `{"type": "array", "contains": {"if": {"const": 1}, "else": {"const": 2}}}`, false,
			[]string{`[1]`}, nil, "if else"},
		{"beside an enum (each listed value checked, decision 207)", `{"enum": [[1], [2]], "contains": {"const": 1}}`, true,
			[]string{`[1]`}, []string{`[2]`}, ""},
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
		if c.reported != "" {
			if _, err := compileFormat(c.schema, true); err == nil {
				t.Errorf("%s: compiled under strict", c.name)
			}
		}
	}
}

// A schema whose only keyword is one the grammar reports is reported
// wherever it is met, even where a schema of no keyword was compiled
// before (their views differ).
func TestUnenforcedAloneIsReported(t *testing.T) {
	for _, kw := range unenforced {
		if !isUnenforced([]byte(kw)) {
			t.Errorf("isUnenforced(%q) is false", kw)
		}
	}
	_, err := compileFormat(`{"type": "array", "prefixItems": [{}, {"if": {"type": "string"}, "then": false}]}`, true)
	if err == nil || !strings.Contains(err.Error(), "prefixItems[1].if") {
		t.Errorf("%v", err)
	}
}

// unenforcedAt's switch and the unenforced list name the same keywords,
// each at its otherKeyword.
func TestUnenforcedAt(t *testing.T) {
	for i, kw := range unenforced {
		if got := unenforcedAt([]byte(kw)); got != otherKeyword(i) {
			t.Errorf("unenforcedAt(%q) = %d, want %d", kw, got, i)
		}
	}
	for _, name := range []string{"", "If", "items", "$ref", "dependentRequired", "unevaluated"} {
		if got := unenforcedAt([]byte(name)); got != -1 {
			t.Errorf("unenforcedAt(%q) = %d, want -1", name, got)
		}
	}
}
