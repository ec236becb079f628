package grammar

import (
	"fmt"
	"testing"
)

// A schema that declares draft 4, 6 or 7 in its $schema is read as that
// draft reads "$ref": the reference stands for its target, the keywords
// beside it ignored. From 2019-09 on, and without $schema, they apply
// together (JSONSchemaBench: {"type": "string", "$ref": "#/datos"} in a
// draft-4 schema, whose valid instances hold an object there).
func TestRefSiblingsByDialect(t *testing.T) {
	const body = `"properties": {"s": {"type": "string", "description": "d", "$ref": "#/definitions/o"}}, "required": ["s"],
		"definitions": {"o": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}}`
	for _, c := range []struct {
		dialect string
		legacy  bool
	}{
		{`"$schema": "http://json-schema.org/draft-04/schema#", `, true},
		{`"$schema": "http://json-schema.org/draft-06/schema", `, true},
		{`"$schema": "https://json-schema.org/draft-07/schema#", `, true},
		{`"$schema": "http://json-schema.org/draft-03/schema#", `, true},
		{`"$schema": "https://json-schema.org/draft/2019-09/schema", `, false},
		{`"$schema": "https://json-schema.org/draft/2020-12/schema", `, false},
		{``, false},
	} {
		schema := `{"type": "object", ` + c.dialect + body
		for _, strict := range []bool{false, true} {
			g, err := compileFormat(schema, strict)
			if !c.legacy {
				// string and object together: nothing, and s is
				// required.
				if err == nil {
					t.Errorf("%s strict %v: compiles", c.dialect, strict)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s strict %v: %v", c.dialect, strict, err)
				continue
			}
			if !g.Matches(suiteText(`{"s": {"a": 1}}`)) {
				t.Errorf("%s strict %v: rejects the target's value", c.dialect, strict)
			}
			if g.Matches(suiteText(`{"s": "x"}`)) || g.Matches(suiteText(`{"s": {}}`)) {
				t.Errorf("%s strict %v: accepts what the target rules out", c.dialect, strict)
			}
		}
	}
}

// The array form of items (drafts 4 to 2019-09: a schema per position, as
// prefixItems) is enforced, with additionalItems for the elements past
// them; before, it was reported and left out (an error under strict),
// which refused GeoJSON-like coordinates in real-world schemas.
func TestTupleItems(t *testing.T) {
	for _, c := range []struct {
		schema  string
		yes, no []string
	}{
		{`{"$schema": "http://json-schema.org/draft-04/schema#", "type": "array", "items": [{"type": "number"}, {"type": "string"}], "additionalItems": false}`,
			[]string{`[]`, `[1]`, `[1, "a"]`, `[-0.5, ""]`}, []string{`["a"]`, `[1, 2]`, `[1, "a", 2]`, `[1, "a", "b"]`}},
		{`{"type": "array", "items": [{"type": "number"}, {"type": "string"}]}`,
			[]string{`[1, "a", true]`, `[1, "a", {"x": null}]`, `[]`}, []string{`["a"]`, `[1, 2, 3]`}},
		{`{"type": "array", "items": [{"type": "number"}], "additionalItems": {"type": "boolean"}, "minItems": 2, "maxItems": 3}`,
			[]string{`[1, true]`, `[1, true, false]`}, []string{`[1]`, `[1, 2]`, `[1, true, false, true]`}},
	} {
		for _, strict := range []bool{false, true} {
			g, err := compileFormat(c.schema, strict)
			if err != nil {
				t.Errorf("%s strict %v: %v", c.schema, strict, err)
				continue
			}
			if len(g.Dropped) > 0 {
				t.Errorf("%s: dropped %v", c.schema, g.Dropped)
			}
			checkContents(t, fmt.Sprintf("%s strict %v", c.schema, strict), g, c.yes, c.no)
		}
	}
}
