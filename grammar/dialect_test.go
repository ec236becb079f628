package grammar

import (
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
