package grammar

import (
	"strings"
	"testing"
)

// $ref resolves against the base URI of the schema resource it is in
// ($id), to a resource by URI, a JSON pointer inside one, or an $anchor;
// $dynamicRef where the dynamic scope can't change its target.
func TestSchemaResources(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		in, out      []string
		reported     string
	}{
		{"a relative ref to a resource, a pointer inside it", `{"$id": "http://example.com/a.json", "type": "object", "properties": {"foo": {"$id": "b.json", "$defs": {"inner": {"type": "object", "properties": {"bar": {"type": "string"}}}}, "$ref": "#/$defs/inner"}}, "$ref": "b.json"}`,
			[]string{`{"bar": "a", "foo": {"bar": "a"}}`}, []string{`{"bar": 1}`, `{"foo": {"bar": 1}}`}, "additionalProperties additionalProperties"},
		{"a pointer resolves in its own resource", `{"$defs": {"x": {"type": "integer"}}, "type": "object", "properties": {"a": {"$id": "http://example.com/sub.json", "$defs": {"x": {"type": "string"}}, "$ref": "#/$defs/x"}}, "additionalProperties": false}`,
			[]string{`{"a": "s"}`}, []string{`{"a": 1}`}, ""},
		{"an anchor", `{"$defs": {"n": {"$anchor": "num", "type": "number"}}, "$ref": "#num"}`,
			[]string{`1.5`}, []string{`"x"`}, ""},
		{"a dynamic anchor of the root's resource", `{"$id": "http://example.com/root", "$dynamicAnchor": "node", "type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "list"}}, "additionalProperties": false,
			"$defs": {"list": {"$id": "list", "$dynamicAnchor": "node", "type": "object", "properties": {"child": {"$dynamicRef": "#node"}}, "additionalProperties": false}}}`,
			[]string{`{"v": 1, "next": {"child": {"v": 2}}}`}, []string{`{"next": {"child": {"child": {}}}}`}, ""},
		{"a dynamic anchor the scope may change", `{"$id": "http://example.com/root", "$ref": "a", "$defs": {"a": {"$id": "a", "$dynamicAnchor": "t", "$ref": "b"}, "b": {"$id": "b", "$dynamicAnchor": "t", "properties": {"x": {"$dynamicRef": "#t"}}}}}`,
			nil, nil, "additionalProperties $dynamicRef"},
		{"another document", `{"$ref": "http://example.com/other.json"}`,
			[]string{`1`}, nil, "$ref"},
	} {
		g, err := compileFormat(c.schema, false)
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
		// Strict refuses what is reported besides the closed objects.
		if kw := strings.TrimSpace(strings.ReplaceAll(c.reported, "additionalProperties", "")); kw != "" {
			if _, err := compileFormat(c.schema, true); err == nil || !strings.Contains(err.Error(), kw) {
				t.Errorf("%s: under strict: %v", c.name, err)
			}
		}
	}
}
