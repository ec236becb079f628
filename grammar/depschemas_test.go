package grammar

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// dependentSchemas: an object is written in one case per choice of the
// triggers present, each with its trigger's schema applied, the absent
// triggers kept out of its keys; what a case can't apply is reported (an
// error under strict).
func TestDependentSchemas(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		strict       bool
		err          string // a part of the error, or "" for none
		dropped      string // a keyword reported beside additionalProperties, or ""
		in, out      []string
	}{
		{"declared members", `{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "dependentSchemas": {"a": {"required": ["b"]}}, "additionalProperties": false}`, true, "", "",
			[]string{`{"a": 1, "b": "x"}`, `{"b": "x"}`, `{}`}, []string{`{"a": 1}`}},
		{"the trigger's schema changes a member", `{"type": "object", "properties": {"a": {}, "b": {}}, "dependentSchemas": {"a": {"properties": {"b": {"type": "integer"}}}}, "additionalProperties": false}`, true, "", "",
			[]string{`{"a": 1, "b": 2}`, `{"b": "x"}`, `{"a": "x"}`}, []string{`{"a": 1, "b": "x"}`}},
		{"free members under strict", `{"type": "object", "dependentSchemas": {"bar": {"properties": {"foo": {"type": "integer"}}, "required": ["foo"]}}}`, true, "", "",
			[]string{`{"x": 1}`, `{}`, `{"foo": 2, "bar": 1}`, `{"barn": 1}`}, []string{`{"bar": 1}`, `{"bar": 1, "foo": "s"}`}},
		{"a trigger that can't be there", `{"dependentSchemas": {"a": false}}`, true, "", "",
			[]string{`3`, `{}`, `{"b": 1}`, `"a"`}, []string{`{"a": 1}`}},
		{"additionalProperties false forbids a trigger", `{"properties": {"b": {}}, "dependentSchemas": {"a": {}}, "additionalProperties": false}`, true, "", "",
			[]string{`{"b": 1}`}, []string{`{"a": 1}`}},
		{"a variant in the trigger's schema", `{"type": "object", "dependentSchemas": {"a": {"anyOf": [{"required": ["b"]}, {"required": ["c"]}]}}}`, true,
			"dependentSchemas", "", nil, nil},
		{"a variant in the trigger's schema, not strict", `{"type": "object", "properties": {"a": {}}, "dependentSchemas": {"a": {"anyOf": [{"required": ["b"]}, {"required": ["c"]}]}}}`, false,
			"", "dependentSchemas", []string{`{"a": 1}`}, nil},
		// A not of required names one at a time: the case leaves them
		// out (decision 301), names forbidden together stay an error.
		{"names that exclude each other", `{"type": "object", "properties": {"page": {"type": "string"}, "scripts": {"type": "array"}, "x": {}}, "dependencies": {"page": {"not": {"required": ["scripts"]}}, "scripts": {"not": {"required": ["page"]}}}}`, true, "", "",
			[]string{`{"page": "a"}`, `{"scripts": []}`, `{"x": 1}`, `{}`}, []string{`{"page": "a", "scripts": []}`}},
		{"a not of an anyOf of required names", `{"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "dependentSchemas": {"a": {"not": {"anyOf": [{"required": ["b"]}, {"required": ["c"]}]}}}}`, true, "", "",
			[]string{`{"a": 1}`, `{"b": 1, "c": 2}`}, []string{`{"a": 1, "b": 2}`, `{"a": 1, "c": 2}`}},
		{"names forbidden together", `{"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "dependentSchemas": {"a": {"not": {"required": ["b", "c"]}}}}`, true,
			"dependentSchemas", "", nil, nil},
		{"five triggers", `{"type": "object", "dependentSchemas": {"a": {}, "b": {}, "c": {}, "d": {}, "e": {}}}`, true, "dependentSchemas", "", nil, nil},
		{"beside propertyNames, free members", `{"type": "object", "propertyNames": {"maxLength": 3}, "dependentSchemas": {"a": {"required": ["b"]}}}`, true, "dependentSchemas", "", nil, nil},
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
			if d.Keyword != "additionalProperties" {
				reported = d.Keyword
			}
		}
		if reported != c.dropped {
			t.Errorf("%s: reported %v, want %q", c.name, g.Dropped, c.dropped)
		}
		checkContents(t, c.name, g, c.in, c.out)
	}
}

// A tool's arguments don't apply dependentSchemas: reported (an error
// under strict).
func TestDependentSchemasArguments(t *testing.T) {
	params := json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string"}}, "dependentSchemas": {"a": {"required": ["b"]}}}`)
	g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: params}}, Choice: Required})
	if err != nil || !strings.Contains(g.Dropped[0].Path, "dependentSchemas") && (len(g.Dropped) < 2 || !strings.Contains(g.Dropped[1].Path, "dependentSchemas")) {
		t.Errorf("not strict: %v %v", g, err)
	}
	if _, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: params, Strict: true}}, Choice: Required}); err == nil || !strings.Contains(err.Error(), "dependentSchemas") {
		t.Errorf("strict: %v", err)
	}
}

// A ladder of dependentSchemas, each trigger's schema giving a member the
// next level, multiplies the cases by 16 a level: the caps stop it, in
// bounded memory.
func TestDependentSchemasLadder(t *testing.T) {
	defs := map[string]any{"L0": map[string]any{"type": "integer"}}
	const depth = 12
	for k := 1; k <= depth; k++ {
		deps := map[string]any{}
		below := map[string]any{"$ref": "#/$defs/L" + itoa(k-1)}
		for _, tr := range []string{"a", "b", "c", "d"} {
			deps[tr] = map[string]any{"properties": map[string]any{"m": below, tr + "x": below}}
		}
		defs["L"+itoa(k)] = map[string]any{"type": "object", "properties": map[string]any{"m": map[string]any{}, "a": map[string]any{}, "b": map[string]any{}, "c": map[string]any{}, "d": map[string]any{}},
			"dependentSchemas": deps}
	}
	schema, err := json.Marshal(map[string]any{"$defs": defs, "$ref": "#/$defs/L" + itoa(depth)})
	if err != nil {
		t.Fatal(err)
	}
	for _, strict := range []bool{false, true} {
		var g *Grammar
		if n := allocated(func() { g, err = compileFormat(string(schema), strict) }); n > maxCompileBytes {
			t.Errorf("strict %v: %d bytes allocated", strict, n)
		}
		if err == nil && len(g.text) > MaxBytes {
			t.Errorf("strict %v: a grammar of %d bytes", strict, len(g.text))
		}
	}
}

// dependencies (drafts 4 to 7) is enforced as its two successors: an
// array entry as dependentRequired, a schema entry as dependentSchemas,
// both in one object; where they can't be, it is reported by its own name.
func TestDependencies(t *testing.T) {
	schema := `{"type": "object", "properties": {"a": {}, "b": {}, "c": {"type": "integer"}}, "dependencies": {"a": ["b"], "c": {"properties": {"b": {"type": "string"}}, "required": ["b"]}}}`
	for _, strict := range []bool{false, true} {
		g, err := compileFormat(schema, strict)
		if err != nil {
			t.Fatalf("strict %v: %v", strict, err)
		}
		if !strict && (len(g.Dropped) != 1 || g.Dropped[0].Keyword != "additionalProperties") {
			t.Errorf("reported %v", g.Dropped)
		}
		checkContents(t, schema, g,
			[]string{`{}`, `{"b": 1}`, `{"a": 1, "b": 2}`, `{"b": "s", "c": 1}`, `{"a": 1, "b": "s", "c": 1}`},
			[]string{`{"a": 1}`, `{"c": 1}`, `{"b": 2, "c": 1}`, `{"a": 1, "c": 1}`})
	}
	// Free members: not strict, the names are not in view (reported);
	// strict, the names it relates are written as declared ones.
	free := `{"type": "object", "additionalProperties": {"type": "integer"}, "dependencies": {"a": ["b"]}}`
	if g, err := compileFormat(free, false); err != nil || !slices.ContainsFunc(g.Dropped, func(d Dropped) bool { return d.Keyword == "dependencies" }) {
		t.Errorf("%s: %v %v", free, g, err)
	}
	g, err := compileFormat(free, true)
	if err != nil {
		t.Fatal(err)
	}
	checkContents(t, free, g, []string{`{"b": 2, "a": 1}`, `{"b": 2}`, `{"x": 1}`}, []string{`{"a": 1}`, `{"a": 1, "x": 2}`}) // the names it relates first
	for _, c := range []struct{ schema, path string }{
		// a trigger's schema with what a case can't apply
		{`{"type": "object", "properties": {"a": {}}, "dependencies": {"a": {"anyOf": [{"required": ["b"]}, {"required": ["c"]}]}}}`, "response_format.json_schema.schema.dependencies"},
	} {
		checkReportedAt(t, c.schema, c.path)
	}
	// Another value than an object is not constrained.
	if g, err := compileFormat(`{"dependencies": {"a": ["b"]}, "type": ["object", "string"]}`, true); err != nil || !g.Matches(analysisPrefix+finalHeader+`"s"`) {
		t.Errorf("a string beside dependencies: %v", err)
	}
}
