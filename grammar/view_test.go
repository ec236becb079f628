package grammar

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// Keywords apply as JSON Schema 2020-12 applies them: the members of an
// allOf, the target of a $ref and their siblings together; an anyOf's
// siblings with each variant; an untyped schema's keywords to the types
// they constrain only.
func TestKeywordsApplyTogether(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		strict       bool
		in, out      []string
	}{
		{"allOf of several objects", `{"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"properties": {"b": {"type": "string"}}, "required": ["b"]}]}`, false,
			[]string{`{"a": 1, "b": "x"}`}, []string{`{"a": 1}`, `{"b": "x"}`, `{"a": "x", "b": "x"}`}},
		{"siblings of a one-element allOf", `{"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}}], "properties": {"b": {"type": "string"}}, "required": ["b"]}`, false,
			[]string{`{"a": 1, "b": "x"}`, `{"b": "x"}`}, []string{`{"a": 1}`, `{}`}},
		{"siblings of a $ref", `{"$defs": {"N": {"type": "integer", "minimum": 0}}, "$ref": "#/$defs/N", "maximum": 5}`, true,
			[]string{"0", "5"}, []string{"-1", "6"}},
		{"siblings of anyOf", `{"type": "object", "properties": {"m": {"type": "boolean"}}, "anyOf": [{"required": ["x"]}, {"required": ["y"]}]}`, false,
			[]string{`{"m": true, "x": 1}`, `{"y": null}`}, []string{`{"m": true}`, `{}`}},
		// additionalProperties sees only its own schema's properties.
		{"additionalProperties beside an allOf", `{"allOf": [{"properties": {"a": {}}}], "additionalProperties": false}`, true,
			[]string{`{}`, `[]`}, []string{`{"a": 1}`}},
		{"an untyped maxLength", `{"maxLength": 2}`, true,
			[]string{`"ab"`, `12345`, `[1, 2, 3]`, `null`}, []string{`"abc"`}},
		{"an untyped maximum", `{"maximum": 3}`, true,
			[]string{`3`, `"long string"`, `{}`}, []string{`4`, `3.5`}},
		{"anyOf of a type and an untyped bound", `{"anyOf": [{"type": "integer"}, {"minimum": 2}]}`, true,
			[]string{`1`, `2.5`, `"x"`}, []string{`1.5`}},
		{"properties without type", `{"properties": {"a": {"type": "integer"}}}`, false,
			[]string{`{"a": 1}`, `"x"`, `[]`, `7`}, []string{`{"a": "x"}`}},
		{"type list with per-type keywords", `{"type": ["string", "integer"], "minLength": 2, "minimum": 10}`, true,
			[]string{`"ab"`, `10`}, []string{`"a"`, `9`, `null`}},
		{"enum filtered by siblings", `{"enum": ["a", "bb", 1, 20], "type": "string", "minLength": 2}`, true,
			[]string{`"bb"`}, []string{`"a"`, `1`, `20`}},
		// Under strict, an object that allows other members is open.
		{"an open object under strict", `{"type": "object", "properties": {"a": {"type": "integer"}}}`, true,
			[]string{`{"a": 1}`, `{"a": 1, "b": "x"}`, `{"b": [1]}`, `{}`, `{"ab": 1}`, `{"": 0}`},
			[]string{`{"a": 1, "a": 2}`, `{"b": 1, "a": 2}`, `{"a": "x"}`, `{"a": 1, "\u0061": "x"}`, `{"\u0061": "x"}`}},
		{"other members of a schema", `{"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "boolean"}}`, true,
			[]string{`{"a": 1, "b": true}`, `{"c": false, "d": true}`}, []string{`{"b": 1}`}},
		{"closed by default", `{"type": "object", "properties": {"a": {"type": "integer"}}}`, false,
			[]string{`{"a": 1}`, `{}`}, []string{`{"a": 1, "b": 2}`}},
	} {
		g, err := compileFormat(c.schema, c.strict)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkContents(t, c.name, g, c.in, c.out)
	}
}

// Under strict, a tool's arguments are open when the schema allows other
// members: other arguments, never one named like a declared one.
func TestOpenArgumentsUnderStrict(t *testing.T) {
	tools := []Tool{{Name: "f", Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`), Strict: true}}
	g, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	checkArgs(t, g, []argCase{
		{xmlArg("city", "Paris"), true},
		{xmlArg("city", "Paris") + "\n" + xmlArg("units", "metric"), true},
		{xmlArg("city", "Paris") + "\n" + xmlArg("city", "Lyon"), false},
		{xmlArg("units", "metric"), false},
	})
	// Not strict: closed, and reported.
	tools[0].Strict = false
	g, err = Compile(context.Background(), &Spec{Tools: tools, Choice: Required})
	if err != nil || len(g.Dropped) != 1 || !strings.HasSuffix(g.Dropped[0].Path, ".additionalProperties") {
		t.Fatalf("%v %v", g, err)
	}
	if g.Matches(argCall + xmlArg("city", "Paris") + "\n" + xmlArg("units", "metric")) {
		t.Error("a closed tool takes another argument")
	}
}

// oneOf whose variants share a type is enforced as anyOf: reported, and
// an error under strict; variants of distinct types are exact.
func TestOneOf(t *testing.T) {
	if g, err := compileFormat(`{"oneOf": [{"type": "integer"}, {"type": "string"}]}`, true); err != nil || len(g.Dropped) != 0 {
		t.Errorf("distinct types: %v %v", g, err)
	}
	if _, err := compileFormat(`{"oneOf": [{"type": "integer"}, {"type": "integer", "minimum": 3}]}`, true); err == nil || !strings.Contains(err.Error(), "oneOf") {
		t.Errorf("overlapping variants under strict: %v", err)
	}
}

// oneOf of objects told apart by a property is exact: one variant requires
// a property that the other forbids, or whose const or enum values the
// other's never allows, or variants that each require one name are
// written with the others' names absent. Variants that may both hold an
// object are not.
func TestOneOfDiscriminated(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		accepted     []string
		rejected     []string
	}{
		{"a const discriminator",
			`{"oneOf": [{"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "integer"}}, "required": ["kind", "r"], "additionalProperties": false}, {"type": "object", "properties": {"kind": {"enum": ["square", "rect"]}, "side": {"type": "integer"}}, "required": ["kind", "side"], "additionalProperties": false}]}`,
			[]string{`{"kind": "circle", "r": 1}`, `{"kind": "rect", "side": 2}`},
			[]string{`{"kind": "circle", "side": 1}`, `{"kind": "square", "r": 1}`, `{}`}},
		{"a property the other forbids",
			`{"oneOf": [{"type": "object", "properties": {"src": {"type": "string"}}, "required": ["src"], "additionalProperties": false}, {"type": "object", "properties": {"replace": {"type": "string"}}, "required": ["replace"], "additionalProperties": false}]}`,
			[]string{`{"src": "a"}`, `{"replace": "b"}`},
			[]string{`{}`, `{"src": "a", "replace": "b"}`}},
		{"a discriminator beside the object's own properties, with another type",
			`{"properties": {"id": {"type": "integer"}}, "required": ["id"], "oneOf": [{"properties": {"kind": {"const": "a"}}, "required": ["kind"]}, {"properties": {"kind": {"const": "b"}, "b": {"type": "boolean"}}, "required": ["kind"]}], "type": "object"}`,
			[]string{`{"id": 1, "kind": "a"}`, `{"id": 1, "kind": "b", "b": true}`},
			[]string{`{"id": 1}`, `{"id": 1, "kind": "c"}`}},
		{"a discriminator no variant requires: {} is valid for both, so for neither (decision 215)",
			`{"oneOf": [{"type": "object", "properties": {"k": {"const": "a"}}}, {"type": "object", "properties": {"k": {"const": "b"}}}]}`,
			[]string{`{"k": "a"}`, `{"k": "b"}`},
			[]string{`{}`, `{"k": "c"}`, `"s"`}},
		{"untyped variants apart as objects: any other value is valid for both (decision 213)",
			`{"oneOf": [{"properties": {"k": {"const": "a"}}, "required": ["k"]}, {"properties": {"k": {"const": "b"}}, "required": ["k"]}, {"type": "string"}]}`,
			[]string{`{"k": "a"}`, `{"k": "b"}`},
			[]string{`"s"`, `1`, `null`, `[]`, `true`, `{}`, `{"k": "c"}`}},
		{"variants that each require one name: the other names absent",
			`{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "integer"}}, "oneOf": [{"required": ["a"]}, {"required": ["b"], "description": "b"}, {"required": ["c"]}]}`,
			[]string{`{"a": "x"}`, `{"b": "y"}`, `{"c": 1}`},
			[]string{`{}`, `{"a": "x", "b": "y"}`, `{"b": "y", "c": 1}`, `{"a": "x", "c": 1}`}},
		{"2 and 2.0 are one value, valid for both variants, so for neither: each variant's values the other does not list (decision 234)",
			`{"oneOf": [{"type": "object", "properties": {"k": {"enum": [1, 2]}}, "required": ["k"]}, {"type": "object", "properties": {"k": {"enum": [2.0, 3]}}, "required": ["k"]}]}`,
			[]string{`{"k": 1}`, `{"k": 3}`},
			[]string{`{"k": 2}`, `{"k": 2.0}`, `{}`}},
	} {
		g, err := compileFormat(c.schema, true)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkContents(t, c.name, g, c.accepted, c.rejected)
	}
	for _, s := range []string{
		// one-name variants beside dependencies, which may require a name
		// back (the fuzzer's crash: grammar/testdata/fuzz/FuzzCompile)
		`{"type": "object", "properties": {"a": {}, "c": {}}, "dependencies": {"a": ["c"]}, "oneOf": [{"required": ["a"]}, {"required": ["c"]}]}`,
	} {
		if _, err := compileFormat(s, true); err == nil || !strings.Contains(err.Error(), "oneOf") {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// pattern and format are enforced, in a JSON string and in a raw
// argument; beside them a length is reported, or under strict counted by
// the length automaton (strictIn and strictOut, decision 197), and
// several patterns and formats are all enforced under strict (decision
// 201).
func TestPatternAndFormat(t *testing.T) {
	for _, c := range []struct {
		name, schema        string
		in, out             []string
		reported            string
		strictIn, strictOut []string
	}{
		{"pattern", `{"type": "string", "pattern": "^[A-Z]{2}-\\d+$"}`, []string{`"AB-12"`}, []string{`"ab-12"`, `"AB-"`, `"xAB-1"`}, "", nil, nil},
		{"unanchored pattern", `{"type": "string", "pattern": "ab"}`, []string{`"xxabyy"`, `"ab"`}, []string{`"a b"`}, "", nil, nil},
		{"date-time", `{"type": "string", "format": "date-time"}`, []string{`"2024-02-29T13:45:00Z"`, `"2024-02-29T13:45:00.5+02:00"`}, []string{`"2024-02-29"`, `"yesterday"`}, "", nil, nil},
		{"uuid", `{"format": "uuid"}`, []string{`"123e4567-e89b-12d3-a456-426614174000"`, `5`}, []string{`"123e4567"`}, "", nil, nil},
		{"a marker in a pattern's value is escaped", `{"type": "string", "pattern": "^<\\|end\\|>$"}`, []string{`"\u003c|end|>"`}, []string{`"<|end|>"`}, "", nil, nil},
		{"pattern beside maxLength, counted", `{"type": "string", "pattern": "^a+$", "maxLength": 2}`, []string{`"a"`, `"aa"`}, []string{`"aaa"`, `"b"`}, "", nil, nil},
		{"pattern beside maxLength, not counted", `{"type": "string", "pattern": "a", "maxLength": 2}`, []string{`"xxxa"`}, []string{`"b"`}, "maxLength",
			[]string{`"a"`, `"xa"`, `"ab"`}, []string{`"xxxa"`, `"b"`, `""`, `"aaa"`}},
		{"two patterns", `{"allOf": [{"pattern": "^a"}, {"pattern": "b$"}], "type": "string"}`, []string{`"ax"`}, []string{`"xb"`}, "pattern", []string{`"ab"`, `"axb"`}, []string{`"ax"`, `"xb"`}},
		{"unknown format", `{"type": "string", "format": "color"}`, []string{`"red"`}, nil, "format", nil, nil},
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
		g, err = compileFormat(c.schema, true)
		if c.strictIn != nil {
			if err != nil {
				t.Errorf("%s: strict: %v", c.name, err)
				continue
			}
			checkContents(t, c.name+" (strict)", g, c.strictIn, c.strictOut)
		} else if (err != nil) != (c.reported != "") {
			t.Errorf("%s: strict: %v", c.name, err)
		}
	}
	// A raw argument.
	tools := []Tool{{Name: "f", Parameters: json.RawMessage(`{"type": "object", "properties": {"day": {"type": "string", "format": "date"}}, "required": ["day"], "additionalProperties": false}`)}}
	g, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	call := analysisPrefix + "<|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"day\">\n"
	if !g.Matches(call+"2025-01-31\n</rfl:parameter>") || g.Matches(call+"soon\n</rfl:parameter>") {
		t.Error("a date argument")
	}
}

// A keyword is reported once, however many variants its schema is
// compiled with.
func TestReportedOnce(t *testing.T) {
	g, err := compileFormat(`{"type": "array", "uniqueItems": true, "anyOf": [{"minItems": 1}, {"maxItems": 5}, {"items": {"type": "integer"}}]}`, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Dropped) != 1 || g.Dropped[0].Keyword != "uniqueItems" {
		t.Errorf("reported %v", g.Dropped)
	}
}

// A map keyed by a pattern (one pattern beside additionalProperties:
// false, or not strict without it) is enforced; other uses of
// patternProperties are reported.
func TestPatternProperties(t *testing.T) {
	g, err := compileFormat(`{"type": "object", "patternProperties": {"^[a-z]+$": {"type": "integer"}}, "additionalProperties": false}`, true)
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[string]bool{`{}`: true, `{"ab": 1, "c": 2}`: true, `{"Ab": 1}`: false, `{"ab": "x"}`: false} {
		if g.Matches(analysisPrefix+finalHeader+s) != want {
			t.Errorf("%s in the grammar: %v", s, !want)
		}
	}
	// Without additionalProperties: false, not strict, the default that
	// closes objects leaves out the members the pattern does not name,
	// reported as additionalProperties (decision 190); under strict, the
	// other members are written too, each valid for additionalProperties
	// (the key automaton, decision 196).
	for _, c := range []struct {
		schema              string
		strictIn, strictOut []string
	}{
		{`{"type": "object", "patternProperties": {"^a": {"type": "integer"}}}`,
			[]string{`{"b": 1}`, `{"b": true, "a": 1}`}, nil},
		{`{"patternProperties": {"^a": {"type": "integer"}}}`,
			[]string{`{"b": 1}`, `{"": "x"}`}, nil},
		{`{"type": "object", "properties": {"x": {"type": "string"}}, "patternProperties": {"^a": {"type": "integer"}}, "additionalProperties": {"type": "boolean"}}`,
			[]string{`{"b": true}`, `{"x": "s", "a": 1, "b": false}`}, []string{`{"b": 1}`, `{"x": true}`}},
	} {
		s := c.schema
		g, err := compileFormat(s, false)
		if err != nil || len(g.Dropped) != 1 || g.Dropped[0].Keyword != "additionalProperties" {
			t.Errorf("%s: %v %v", s, g, err)
			continue
		}
		checkContents(t, s, g, []string{`{"a": 1, "ab": 2}`, `{}`}, []string{`{"a": "x"}`, `{"b": 1}`, `{"b": true}`})
		g, err = compileFormat(s, true)
		if err != nil || len(g.Dropped) != 0 {
			t.Errorf("%s: strict: %v %v", s, g, err)
			continue
		}
		checkContents(t, s+" (strict)", g, append([]string{`{"a": 1, "ab": 2}`, `{}`}, c.strictIn...), append([]string{`{"a": "x"}`, `{"ab": 1.5}`}, c.strictOut...))
	}
	// A pattern every name matches leaves no member additional: exact
	// under strict too, beside declared properties as well.
	for _, c := range []struct {
		schema   string
		accepted []string
		rejected []string
	}{
		{`{"type": "object", "patternProperties": {"^[a-z_]*": {"type": "integer"}}}`,
			[]string{`{}`, `{"a": 1, "B": 2, "": 3}`}, []string{`{"a": "x"}`}},
		{`{"type": "object", "properties": {"by": {"type": "string"}}, "patternProperties": {".*": {"type": "string"}}}`,
			[]string{`{"by": "x", "other": "y"}`, `{"other": "y"}`}, []string{`{"other": 1}`, `{"by": "x", "by": "y"}`, `{"by": 1}`}},
	} {
		for _, strict := range []bool{false, true} {
			g, err := compileFormat(c.schema, strict)
			if err != nil || len(g.Dropped) != 0 {
				t.Errorf("%s (strict %v): %v %v", c.schema, strict, g, err)
				continue
			}
			checkContents(t, c.schema, g, c.accepted, c.rejected)
		}
	}
	// Several patterns, and a pattern that matches a declared name, are
	// the key automaton's under strict (decision 196): exact; not strict,
	// reported.
	for _, c := range []struct {
		schema   string
		accepted []string
		rejected []string
	}{
		{`{"type": "object", "patternProperties": {"^a": {"type": "integer"}, "b$": {"type": "string"}}, "additionalProperties": false}`,
			[]string{`{"a": 1, "b": "x", "cb": "y"}`}, []string{`{"ab": 1}`, `{"ab": "x"}`, `{"c": 1}`, `{"a": "x"}`}},
		{`{"type": "object", "properties": {"ab": {}}, "patternProperties": {"^a": {"type": "integer"}}, "additionalProperties": false}`,
			[]string{`{"ab": 1, "ac": 2}`, `{"a": 1}`}, []string{`{"ab": "x"}`, `{"ac": "x"}`, `{"b": 1}`, `{"ab": 1, "ab": 2}`}},
	} {
		g, err := compileFormat(c.schema, true)
		if err != nil || len(g.Dropped) != 0 {
			t.Errorf("%s: %v %v", c.schema, g, err)
			continue
		}
		checkContents(t, c.schema, g, c.accepted, c.rejected)
		if g, err := compileFormat(c.schema, false); err != nil || !slices.ContainsFunc(g.Dropped, func(d Dropped) bool { return d.Keyword == "patternProperties" }) {
			t.Errorf("%s (not strict): %v %v", c.schema, g, err)
		}
	}
	for _, s := range []string{
		`{"type": "object", "properties": {"x": {}}, "patternProperties": {"^a": {"type": "integer"}}, "propertyNames": {"maxLength": 3}, "additionalProperties": false}`,
	} {
		g, err := compileFormat(s, false)
		if err != nil || len(g.Dropped) == 0 || !strings.HasSuffix(g.Dropped[len(g.Dropped)-1].Path, ".patternProperties") {
			t.Errorf("%s: %v %v", s, g, err)
		}
		if _, err := compileFormat(s, true); err == nil {
			t.Errorf("%s: strict compiled", s)
		}
	}
}

// Beside declared properties, one pattern with additionalProperties: false
// is enforced too: the declared members in their order, then members the
// pattern names; a declared name the pattern matches takes both schemas.
func TestPatternPropertiesBesideProperties(t *testing.T) {
	for _, c := range []struct {
		schema   string
		accepted []string
		rejected []string
	}{
		{`{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"], "patternProperties": {"^a": {"type": "integer"}}, "additionalProperties": false}`,
			[]string{`{"x": "s"}`, `{"x": "s", "a": 1}`, `{"x": "s", "ab": 1, "a1": 2}`},
			[]string{`{}`, `{"a": 1}`, `{"x": "s", "a": "t"}`, `{"x": "s", "b": 1}`, `{"x": "s", "x": "t"}`, `{"x": "s", "ba": 1}`}},
		{`{"type": "object", "properties": {"x": {"type": "string"}}, "patternProperties": {"^a": {"type": "integer"}}, "additionalProperties": false}`,
			[]string{`{}`, `{"x": "s"}`, `{"a": 1}`, `{"a": 1, "ab": 2}`, `{"x": "s", "a": 1}`},
			[]string{`{"a": 1, "x": "s"}`, `{"x": 1}`, `{"x": "s", "x": "t"}`}},
		{`{"type": "object", "properties": {"ab": {"type": "integer"}}, "patternProperties": {"^a": {"minimum": 3}}, "additionalProperties": false}`,
			[]string{`{}`, `{"ab": 3}`},
			[]string{`{"ab": 2}`}},
	} {
		for _, strict := range []bool{false, true} {
			g, err := compileFormat(c.schema, strict)
			if err != nil {
				t.Fatalf("%s (strict %v): %v", c.schema, strict, err)
			}
			if len(g.Dropped) != 0 && (strict || !strings.Contains(c.schema, `"ab"`)) {
				// Not strict, a pattern that matches a declared name is
				// reported (under strict, the key automaton's).
				t.Errorf("%s: reported %v", c.schema, g.Dropped)
			}
			checkContents(t, c.schema, g, c.accepted, c.rejected)
		}
	}
}

// minProperties and maxProperties are counted on an object of free
// members, hold by themselves on a closed one when its required and
// declared properties keep within them, and are reported otherwise.
func TestPropertyCounts(t *testing.T) {
	g, err := compileFormat(`{"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1, "maxProperties": 2}`, true)
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[string]bool{`{}`: false, `{"a": 1}`: true, `{"a": 1, "b": 2}`: true, `{"a": 1, "b": 2, "c": 3}`: false} {
		if g.Matches(analysisPrefix+finalHeader+s) != want {
			t.Errorf("%s in the grammar: %v", s, !want)
		}
	}
	if g, err := compileFormat(`{"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"], "additionalProperties": false, "minProperties": 1, "maxProperties": 2}`, true); err != nil || len(g.Dropped) != 0 {
		t.Errorf("counts a closed object keeps within: %v %v", g, err)
	}
	// Counts the declared properties don't keep by themselves: counted
	// (decision 203, TestCountedMembers); past maxCountedRules, reported.
	if _, err := compileFormat(`{"type": "object", "properties": {"a": {}, "b": {}}, "minProperties": 1, "maxProperties": 1000}`, true); err == nil || !strings.Contains(err.Error(), "Properties") {
		t.Errorf("counts past maxCountedRules: %v", err)
	}
	if _, err := compileFormat(`{"type": "object", "maxProperties": 0, "minProperties": 1}`, false); err == nil {
		t.Error("no object has from 1 to 0 members")
	}
}

// No repetition is written directly after another: xgrammar reads one
// quantifier after an element.
func TestNoStackedQuantifiers(t *testing.T) {
	e := opt(rep(class(false, runeRange{'a', 'z'}), 1, 4))
	if got := string(appendExpr(nil, func(*expr) string { return "" }, e, false)); got != "([a-z]{1,4})?" {
		t.Errorf("written %s", got)
	}
	for name := range map[string]bool{"keywords_strict": true, "realistic_required": true} {
		data, err := os.ReadFile("testdata/" + name + ".ebnf")
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"}?", "}*", "}+", "}{", "?*", "*?", "+?", "??", "**", "++", "?+", "*+", "+*"} {
			if strings.Contains(strings.ReplaceAll(string(data), `"`+q, ""), q) {
				t.Errorf("%s holds %q", name, q)
			}
		}
	}
}

// unevaluatedProperties: false on the schema a view is made from closes
// the object to the properties its schemas declare, without a report;
// elsewhere, or beside what evaluates other members, it is reported.
func TestUnevaluatedProperties(t *testing.T) {
	g, err := compileFormat(`{"type": "object", "allOf": [{"properties": {"a": {"type": "integer"}}}], "properties": {"b": {}}, "unevaluatedProperties": false}`, true)
	if err != nil || len(g.Dropped) != 0 {
		t.Fatalf("%v %v", g, err)
	}
	for s, want := range map[string]bool{`{"a": 1, "b": 2}`: true, `{"a": 1, "c": 2}`: false, `{}`: true} {
		if g.Matches(analysisPrefix+finalHeader+s) != want {
			t.Errorf("%s in the grammar: %v", s, !want)
		}
	}
	if g, err := compileFormat(`{"unevaluatedProperties": false}`, false); err != nil || !g.Matches(analysisPrefix+finalHeader+`{}`) || g.Matches(analysisPrefix+finalHeader+`{"a": 1}`) || !g.Matches(analysisPrefix+finalHeader+`3`) {
		t.Errorf("untyped: %v %v", g, err)
	}
	for _, s := range []string{
		`{"type": "object", "allOf": [{"properties": {"a": {}}, "unevaluatedProperties": false}], "properties": {"b": {}}}`,
		`{"type": "object", "properties": {"a": {}}, "if": {"properties": {"b": {}}}, "unevaluatedProperties": false}`,
	} {
		if _, err := compileFormat(s, true); err == nil || !strings.Contains(err.Error(), "unevaluatedProperties") && !strings.Contains(err.Error(), "if") {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// Under strict, an open object whose declared names hold a character a
// JSON key writes escaped (a quote, a backslash, a control character, "<")
// keeps other keys from naming them: the trie follows the escape, the one
// spelling a key has (gap decision 313; an error before).
func TestOpenObjectEscapedName(t *testing.T) {
	checkStrictExact(t, []contentCase{{"declared names with escapes",
		`{"type": "object", "properties": {"a\nb": {"type": "number"}, "<id>": {"type": "number"}, "q\"": {"type": "number"}}, "additionalProperties": {"type": "string"}}`,
		[]string{
			`{"a\nb": 1}`,
			`{"a\nb": 2, "<id>": 1}`, // (the declared order)
			`{"q\"": 1, "x": "s"}`,
			`{"a\nb": 1, "a\nc": "s", "a\tb": "s", "a\n": "s", "\u003cid": "s", "\u003cid>>": "s"}`,
		},
		[]string{
			`{"a\nb": "s"}`,          // a declared name as another member
			`{"\u003cid>": "s"}`,     // the same, "<" escaped
			`{"a\u000ab": "s"}`,      // a key has one spelling
			`{"q\u0022": "s"}`,       // (the same)
			`{"<x": "s"}`,            // "<" is written escaped
			`{"q\"": 1, "q\"": "s"}`, // a declared name twice
		}}})
	if _, err := compileFormat(`{"type": "object", "properties": {"a\nb": {"type": "number"}}, "additionalProperties": false}`, true); err != nil {
		t.Errorf("closed: %v", err)
	}
}

// Not strict, an object closed by default that is an anyOf variant may
// also hold the properties the other variants declare or require, valid
// for both; under strict, open objects hold them anyway; oneOf, whose
// variants must not both match, and objects closed by their schema don't.
func TestAnyOfSiblingProperties(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		in, out      []string
	}{
		{"declared", `{"anyOf": [{"properties": {"bar": {"type": "integer"}}, "required": ["bar"]}, {"properties": {"foo": {"type": "string"}}, "required": ["foo"]}]}`,
			[]string{`{"bar": 2}`, `{"foo": "baz"}`, `{"bar": 2, "foo": "baz"}`, `{"foo": "baz", "bar": 2}`},
			[]string{`{"bar": "quux", "foo": 2}`, `{"bar": 2, "foo": 2}`, `{}`}},
		{"required", `{"type": "object", "properties": {"m": {"type": "boolean"}}, "anyOf": [{"required": ["x"]}, {"required": ["y"]}]}`,
			[]string{`{"m": true, "x": 1}`, `{"x": 1, "y": 2}`}, []string{`{"m": true}`, `{"z": 1}`}},
		{"oneOf", `{"oneOf": [{"properties": {"bar": {"type": "integer"}}, "required": ["bar"]}, {"properties": {"foo": {"type": "string"}}, "required": ["foo"]}]}`,
			[]string{`{"bar": 2}`}, []string{`{"bar": 2, "foo": "baz"}`}},
		{"closed by its schema", `{"anyOf": [{"properties": {"bar": {}}, "required": ["bar"], "additionalProperties": false}, {"properties": {"foo": {}}, "required": ["foo"]}]}`,
			[]string{`{"bar": 2}`, `{"foo": 1, "bar": 2}`}, []string{`{"bar": 2, "foo": 1}`}},
	} {
		g, err := compileFormat(c.schema, false)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkContents(t, c.name, g, c.in, c.out)
	}
}

// A ladder of anyOfs whose levels declare properties: the sibling
// properties of one level's variants don't reach the next level's, so the
// views below stay alike and the grammar stays small.
func TestAnyOfSiblingsLadder(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"$defs": {`)
	const n = 30
	for i := 0; i < n; i++ {
		next := `{"required": ["z"]}, {}`
		if i+1 < n {
			next = `{"$ref": "#/$defs/L` + itoa(i+1) + `"}, {"$ref": "#/$defs/L` + itoa(i+1) + `", "description": "the same"}`
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"L` + itoa(i) + `": {"type": "object", "properties": {"p` + itoa(i) + `": {"type": "integer"}}, "anyOf": [` + next + `]}`)
	}
	b.WriteString(`}, "$ref": "#/$defs/L0"}`)
	var g *Grammar
	var err error
	used := allocated(func() { g, err = compileFormat(b.String(), false) })
	if err != nil {
		t.Fatal(err)
	}
	if len(g.text) > 256<<10 || used > maxCompileBytes {
		t.Errorf("%d bytes of grammar, %d allocated", len(g.text), used)
	}
}

// String lengths past MaxCount are enforced in chunks (longString):
// exactly, under strict too, in JSON and in raw arguments, one rule per
// length pair however many strings share it.
func TestLongStrings(t *testing.T) {
	x := func(n int) string { return `"` + strings.Repeat("x", n) + `"` }
	for _, c := range []struct {
		schema   string
		accepted []string
		rejected []string
	}{
		// an exact part and more than MaxCount optional characters
		{`{"type": "string", "minLength": 1500, "maxLength": 2600}`, []string{x(1500), x(1501), x(2000), x(2600)}, []string{x(1499), x(2601), x(0)}},
		{`{"type": "string", "maxLength": 3000}`, []string{x(0), x(1), x(2969), x(2970), x(2971), x(3000), `"` + strings.Repeat(`\n`, 3000) + `"`}, []string{x(3001), `"` + strings.Repeat(`\n`, 3001) + `"`}},
		{`{"type": "string", "minLength": 2000}`, []string{x(2000), x(3000)}, []string{x(1999), x(10)}},
		{`{"type": "string", "minLength": 1100, "maxLength": 1200}`, []string{x(1100), x(1200)}, []string{x(1099), x(1201)}},
		{`{"type": "string", "minLength": 5000, "maxLength": 5000}`, []string{x(5000)}, []string{x(4999), x(5001)}},
	} {
		for _, strict := range []bool{false, true} {
			g, err := compileFormat(c.schema, strict)
			if err != nil || len(g.Dropped) != 0 {
				t.Fatalf("%s (strict %v): %v %v", c.schema, strict, err, g)
			}
			checkContents(t, c.schema, g, c.accepted, c.rejected)
		}
	}

	// A raw argument.
	tools := []Tool{{Name: "f", Parameters: json.RawMessage(`{"type": "object", "properties": {"text": {"type": "string", "maxLength": 5000}}, "required": ["text"]}`), Strict: true}}
	g, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	checkArgs(t, g, []argCase{
		{xmlArg("text", strings.Repeat("y", 5000)), true},
		{xmlArg("text", strings.Repeat("y", 5001)), false},
	})

	// Strings that share a length pair share its rule and spend the
	// repetition budget once.
	var props []string
	for i := range 300 {
		props = append(props, fmt.Sprintf(`"p%d": {"type": "string", "maxLength": 65535}`, i))
	}
	g, err = compileFormat(`{"type": "object", "properties": {`+strings.Join(props, ", ")+`}}`, true)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(g.GBNF(), "\nlong"); n != 1 {
		t.Errorf("%d rules for one length pair", n)
	}

	// Past the budget, or past MaxLength, a length is not enforced:
	// reported, an error under strict naming it.
	for _, c := range []struct{ schema, path string }{
		{`{"type": "object", "properties": {"a": {"type": "string", "maxLength": 1048576}, "b": {"type": "string", "maxLength": 1048575}}}`, "response_format.json_schema.schema.properties.b.maxLength"},
		{`{"type": "string", "maxLength": 2000000}`, "response_format.json_schema.schema.maxLength"},
	} {
		checkReportedAt(t, c.schema, c.path)
	}
}

// argCall is what comes before a call of the tool f's arguments.
const argCall = analysisPrefix + "<|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|>"

// xmlArg is one argument as the format writes it.
func xmlArg(k, v string) string {
	return `<rfl:parameter name="` + k + `">` + "\n" + v + "\n</rfl:parameter>"
}

// argCase is a call's arguments and whether the grammar holds them.
type argCase struct {
	args string
	in   bool
}

// checkArgs checks that g holds each case's call of f as the case says.
func checkArgs(t *testing.T, g *Grammar, cases []argCase) {
	t.Helper()
	for _, c := range cases {
		if g.Matches(argCall+c.args) != c.in {
			t.Errorf("%q in the grammar: %v, want %v", c.args, !c.in, c.in)
		}
	}
}

// Every count past chunkFrom is written in chunks (chunkedRep): a string's
// length, an array's elements, an object's members. Whatever the pair,
// the grammar holds exactly the counts from lo to hi, in JSON strings and
// arrays, under strict and not, nothing reported. The counts probed are
// the bounds and the chunk boundaries near them, and random ones.
func TestChunkedCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	bounds := []int{0, 1, 64, 65, 70, 82, 129, 300}
	type pair struct{ lo, hi int }
	pairs := []pair{{0, 1000}, {1000, -1}} // strings and arrays (objects of 1,000 members take the test's matcher seconds)
	for i, lo := range bounds {
		pairs = append(pairs, pair{lo, -1})
		for _, hi := range bounds[i:] {
			if hi > 0 {
				pairs = append(pairs, pair{lo, hi})
			}
		}
	}
	str := func(n int) string { return `"` + strings.Repeat("x", n) + `"` }
	arr := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("1, ", n), ", ") + "]" }
	obj := func(n int) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"k%d": 1`, i)
		}
		return b.String() + "}"
	}
	for _, p := range pairs {
		top := max(p.lo, p.hi)
		b := chunkSize(top)
		probe := map[int]bool{p.lo - 1: true, p.lo: true, p.lo + 1: true, p.hi - 1: true, p.hi: true, p.hi + 1: true, top + 7: true}
		for k := 1; k*b <= top+b; k++ {
			if k <= 2 || k*b+b > top {
				probe[k*b-1], probe[k*b], probe[k*b+1] = true, true, true
			}
			probe[p.lo+k*b-1], probe[p.lo+k*b] = true, true
		}
		for range 3 {
			probe[rng.IntN(top+10)] = true
		}
		for _, kind := range []struct {
			name, schema string
			text         func(int) string
		}{
			{"Length", `{"type": "string"%s}`, str},
			{"Items", `{"type": "array", "items": {"type": "integer"}%s}`, arr},
			{"Properties", `{"type": "object", "additionalProperties": {"type": "integer"}%s}`, obj},
		} {
			if kind.name == "Properties" && top > 300 {
				continue
			}
			counts := `, "min` + kind.name + `": ` + itoa(p.lo)
			if p.hi >= 0 {
				counts += `, "max` + kind.name + `": ` + itoa(p.hi)
			}
			schema := fmt.Sprintf(kind.schema, counts)
			for _, strict := range []bool{false, true} {
				g, err := compileFormat(schema, strict)
				if err != nil || len(g.Dropped) != 0 {
					t.Fatalf("%s (strict %v): %v %v", schema, strict, err, g.Dropped)
				}
				for n := range probe {
					if n < 0 {
						continue
					}
					want := n >= p.lo && (p.hi < 0 || n <= p.hi)
					if got := g.Matches(analysisPrefix + finalHeader + kind.text(n)); got != want {
						t.Errorf("%s (strict %v): %d in the grammar: %v, want %v", schema, strict, n, got, want)
					}
				}
			}
		}
	}
}

// Arrays with prefixItems count their rest in chunks too: every count
// from 0 to 210 against the bounds, untyped arrays included.
func TestChunkedCountsWithPrefix(t *testing.T) {
	arr := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("1, ", n), ", ") + "]" }
	for _, c := range []struct {
		s      string
		lo, hi int
	}{
		{`{"type":"array","prefixItems":[{"type":"integer"},{"type":"integer"}],"items":{"type":"integer"},"minItems":100,"maxItems":100}`, 100, 100},
		{`{"type":"array","prefixItems":[{"type":"integer"},{"type":"integer"},{"type":"integer"}],"items":{"type":"integer"},"minItems":1,"maxItems":130}`, 1, 130},
		{`{"type":"array","prefixItems":[{"type":"integer"}],"items":{"type":"integer"},"minItems":70}`, 70, -1},
		{`{"minItems":66,"maxItems":200,"items":{"type":"integer"}}`, 66, 200},
	} {
		for _, strict := range []bool{false, true} {
			g, err := compileFormat(c.s, strict)
			if err != nil {
				t.Fatal(err)
			}
			for n := 0; n <= 210; n++ {
				want := n >= c.lo && (c.hi < 0 || n <= c.hi)
				if got := g.Matches(analysisPrefix + finalHeader + arr(n)); got != want {
					t.Errorf("%s %v: %d: %v", c.s, strict, n, got)
				}
			}
		}
	}
}

// uniqueItems holds by itself where no array of two elements can be
// written: it is enforced (nothing reported, strict compiles), and the
// grammar agrees with a validator. Where two elements can be, it is
// reported as before.
func TestUniqueItemsVacuous(t *testing.T) {
	values := []string{`[]`, `[1]`, `[1, 1]`, `[1, 2]`, `"a"`, `1`, `{}`, `null`, `[[1], [1]]`}
	for _, schema := range []string{
		`{"type": "string", "uniqueItems": true}`,
		`{"type": ["integer", "null"], "uniqueItems": true}`,
		`{"type": "array", "maxItems": 1, "uniqueItems": true}`,
		`{"type": "array", "maxItems": 0, "uniqueItems": true}`,
		`{"maxItems": 1.0, "uniqueItems": true}`,
		`{"type": "array", "items": false, "uniqueItems": true}`,
		`{"type": "array", "prefixItems": [{"type": "array"}], "items": false, "uniqueItems": true}`,
	} {
		g, err := compileFormat(schema, true)
		if err != nil {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		validator := validatorFor(t, schema)
		for _, v := range values {
			agreeWithValidator(t, schema, g, validator, v)
		}
	}
	for _, schema := range []string{
		`{"type": "array", "maxItems": 2, "uniqueItems": true}`,
		`{"type": "array", "prefixItems": [{}, {}], "items": false, "uniqueItems": true}`,
		`{"type": "array", "items": {"type": "integer"}, "maxItems": 3, "uniqueItems": true}`,
		`{"uniqueItems": true}`,
		// (decided on the view that holds it, before its variants)
		`{"anyOf": [{"type": "string"}, {"type": "array", "maxItems": 1}], "uniqueItems": true}`,
	} {
		checkReportedAt(t, schema, "response_format.json_schema.schema.uniqueItems")
	}
}

// uniqueItems on arrays whose elements are a short list of values is
// enforced (uniqueArray, gap decision 211): every array of up to four
// elements drawn from the values involved agrees with a validator, under
// strict and not.
func TestUniqueListedItems(t *testing.T) {
	pool := []string{`"a"`, `"b"`, `"c"`, `1`, `1.0`, `2`, `null`, `[1]`}
	var arrays []string
	var grow func(prefix []string)
	grow = func(prefix []string) {
		arrays = append(arrays, "["+strings.Join(prefix, ", ")+"]")
		if len(prefix) == 4 {
			return
		}
		for _, v := range pool {
			grow(append(slices.Clip(prefix), v))
		}
	}
	grow(nil)
	for _, schema := range []string{
		`{"type": "array", "items": {"enum": ["a", "b", "c"]}, "uniqueItems": true}`,
		`{"type": "array", "items": {"enum": ["a", "b", "c"]}, "uniqueItems": true, "minItems": 2}`,
		`{"type": "array", "items": {"enum": ["a", "b", "c"]}, "uniqueItems": true, "minItems": 1, "maxItems": 2}`,
		`{"items": {"enum": [1, 1.0, 2, "a"]}, "uniqueItems": true}`,
		`{"type": "array", "items": {"type": "string", "enum": ["a", 1, "b", null]}, "uniqueItems": true}`,
		`{"type": "array", "items": {"enum": [[1], null], "not": {"type": "null"}}, "uniqueItems": true}`,
		`{"type": "array", "items": {"const": "a"}, "uniqueItems": true}`,
		`{"type": "array", "items": {"$ref": "#/$defs/e"}, "uniqueItems": true, "$defs": {"e": {"enum": ["a", "b", "c", 2]}}}`,
	} {
		validator := validatorFor(t, schema)
		for _, strict := range []bool{true, false} {
			g, err := compileFormat(schema, strict)
			if err != nil || len(g.Dropped) != 0 {
				t.Errorf("%s (strict %v): %v %v", schema, strict, err, g)
				continue
			}
			for _, a := range arrays {
				agreeWithValidator(t, schema, g, validator, a)
			}
		}
	}
	// No array of enough distinct elements: an error naming the items.
	if _, err := compileFormat(`{"type": "array", "items": {"enum": ["a", "a"]}, "uniqueItems": true, "minItems": 2}`, false); err == nil || !strings.Contains(err.Error(), "distinct") {
		t.Errorf("minItems past the values: %v", err)
	}
}
