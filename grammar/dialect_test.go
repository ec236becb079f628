package grammar

import (
	"fmt"
	"strings"
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

// A legacy dialect's $id: beside a $ref it is ignored with the $ref's
// other siblings (drafts 6 and 7), and drafts 3 and 4 have no $id at all
// (their identifier is id); from 2019-09 on, and without $schema, it sets
// the base its $ref resolves against (gap decision 232).
func TestLegacyDollarID(t *testing.T) {
	for _, c := range []struct {
		schema   string
		resolved bool // the $ref resolves: property a is a string
	}{
		{`{"$schema": "http://json-schema.org/draft-04/schema#", "definitions": {"c": {"type": "string"}}, "properties": {"a": {"$id": "/x/y", "$ref": "#/definitions/c"}}}`, true},
		{`{"$schema": "http://json-schema.org/draft-06/schema#", "definitions": {"c": {"type": "string"}}, "properties": {"a": {"$id": "/x/y", "$ref": "#/definitions/c"}}}`, true},
		{`{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"c": {"type": "string"}}, "properties": {"a": {"$id": "/x/y", "$ref": "#/definitions/c"}}}`, true},
		{`{"definitions": {"c": {"type": "string"}}, "properties": {"a": {"$id": "/x/y", "$ref": "#/definitions/c"}}}`, false},
		{`{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"c": {"type": "string"}}, "properties": {"a": {"$id": "/x/y", "$ref": "#/$defs/c"}}}`, false},
		{`{"$schema": "http://json-schema.org/draft-04/schema#", "definitions": {"c": {"$id": "c.json", "type": "string"}}, "properties": {"a": {"$ref": "c.json"}}}`, false},
		{`{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"c": {"$id": "c.json", "type": "string"}}, "properties": {"a": {"$ref": "c.json"}}}`, true},
		{`{"definitions": {"c": {"$id": "c.json", "type": "string"}}, "properties": {"a": {"$ref": "c.json"}}}`, true},
	} {
		schema := strings.Replace(c.schema, `"properties"`, `"type": "object", "required": ["a"], "additionalProperties": false, "properties"`, 1)
		g, err := compileFormat(schema, true)
		if !c.resolved {
			if err == nil || !strings.Contains(err.Error(), "properties.a.$ref:") {
				t.Errorf("%s: %v, want the $ref refused", schema, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		for content, want := range map[string]bool{`{"a": "x"}`: true, `{"a": 1}`: false} {
			if got := g.Matches(analysisPrefix + finalHeader + content); got != want {
				t.Errorf("%s: %s: %v, want %v", schema, content, got, want)
			}
		}
	}
}

// A long enum that takes the grammar past an engine's cap is reported, not
// the whole schema refused: the compile is done once more without the
// lists of more than maxListRetry bytes, each reported (an error under
// strict, naming it), as the counts of decision 210 are (gap decision
// 232). A list that fits is written.
func TestLongListPastCap(t *testing.T) {
	var long, short []string
	for i := range 3000 * maxExpanded / 65536 {
		long = append(long, fmt.Sprintf(`"cvar_name_number_%05d"`, i))
	}
	for i := range 20 {
		short = append(short, fmt.Sprintf(`"mode%d"`, i))
	}
	schema := `{"type": "object", "properties": {"name": {"type": "string", "enum": [` + strings.Join(long, ", ") + `]}, "mode": {"enum": [` + strings.Join(short, ", ") + `]}}, "required": ["name", "mode"], "additionalProperties": false}`
	g, err := compileFormat(schema, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "[response_format.json_schema.schema.properties.name.enum]"
	if fmt.Sprint(g.Dropped) != want {
		t.Errorf("reported %v, want %s", g.Dropped, want)
	}
	for content, ok := range map[string]bool{
		`{"name": "cvar_name_number_00042", "mode": "mode3"}`: true,
		`{"name": "anything", "mode": "mode19"}`:              true, // the long list, reported, is not written
		`{"name": "anything", "mode": "mode20"}`:              false,
		`{"name": 1, "mode": "mode1"}`:                        false,
	} {
		if got := g.Matches(analysisPrefix + finalHeader + content); got != ok {
			t.Errorf("%s: %v, want %v", content, got, ok)
		}
	}
	if _, err := compileFormat(schema, true); err == nil || !strings.Contains(err.Error(), "response_format.json_schema.schema.properties.name.enum: ") || !strings.Contains(err.Error(), "past what an engine takes") {
		t.Errorf("strict: %v, want the long enum named", err)
	}
}
