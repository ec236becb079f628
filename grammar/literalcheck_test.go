package grammar

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// A schema that lists its values (enum, const) beside keywords no grammar
// of values could enforce is exact in both modes: each listed value is
// checked against the whole schema, and only the valid ones are written
// (decision 207).
func TestListedValuesChecked(t *testing.T) {
	cases := []contentCase{
		{"not", `{"enum": ["a", "b", "c"], "not": {"pattern": "^[ab]"}}`,
			[]string{`"c"`}, []string{`"a"`, `"b"`}},
		{"not not", `{"allOf": [{"enum": [{"baz": 3, "foo": 1}, {"foo": 1}]}, {"not": {"not": {"oneOf": [{"required": ["foo", "bar"]}, {"required": ["foo", "baz"]}], "type": "object"}}}]}`,
			[]string{`{"baz": 3, "foo": 1}`}, []string{`{"foo": 1}`}},
		{"oneOf", `{"enum": [1, 2, 3], "oneOf": [{"minimum": 2}, {"maximum": 2}]}`,
			[]string{`1`, `3`}, []string{`2`}},
		{"if then else", `{"enum": ["ab", "b", "ax"], "if": {"pattern": "^a"}, "then": {"maxLength": 1}, "else": {"const": "b"}}`,
			[]string{`"b"`}, []string{`"ab"`, `"ax"`}},
		{"uniqueItems", `{"enum": [[1, 1], [1, 2], [1, 1.0], [{"a": 1, "b": 2}, {"b": 2, "a": 1}]], "uniqueItems": true}`,
			[]string{`[1, 2]`}, []string{`[1, 1]`, `[1, 1.0]`, `[{"a": 1, "b": 2}, {"b": 2, "a": 1}]`}},
		{"a decimal multipleOf", `{"enum": [0.3, 0.35, 1], "multipleOf": 0.1}`,
			[]string{`0.3`, `1`, `1.0`}, []string{`0.35`}},
		{"an object's members", `{"const": {"a": "x-1"}, "properties": {"a": {"pattern": "^x-[0-9]$"}}, "required": ["a"]}`,
			[]string{`{"a": "x-1"}`}, nil},
		{"formats", `{"type": "string", "enum": ["2024-02-30", "2024-02-28", "x"], "format": "date"}`,
			[]string{`"2024-02-28"`}, []string{`"2024-02-30"`, `"x"`}},
		{"patternProperties and additionalProperties", `{"enum": [{"x1": 1}, {"x1": "s"}, {"y": 1}, {"y": "s"}], "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": {"type": "string"}}`,
			[]string{`{"x1": 1}`, `{"y": "s"}`}, []string{`{"x1": "s"}`, `{"y": 1}`}},
		{"a tuple", `{"enum": [[1, "a"], [1, 2], [1, "a", 3]], "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false}`,
			[]string{`[1, "a"]`}, []string{`[1, 2]`, `[1, "a", 3]`}},
		{"contains counted", `{"enum": [[1], [1, 1], [1, 1, 1]], "contains": {"const": 1}, "minContains": 2, "maxContains": 2}`,
			[]string{`[1, 1]`}, []string{`[1]`, `[1, 1, 1]`}},
		{"dependentSchemas", `{"enum": [{"a": 1}, {"a": 1, "b": 2}, {"c": 1}], "dependentSchemas": {"a": {"required": ["b"]}}}`,
			[]string{`{"a": 1, "b": 2}`, `{"c": 1}`}, []string{`{"a": 1}`}},
		{"a $ref", `{"$defs": {"small": {"maximum": 5}}, "enum": [1, 10], "not": {"$ref": "#/$defs/small"}}`,
			[]string{`10`}, []string{`1`}},
		{"a property's listed values", `{"type": "object", "properties": {"k": {"enum": ["a", "bb", "ccc"], "not": {"maxLength": 1}}}, "required": ["k"], "additionalProperties": false}`,
			[]string{`{"k": "bb"}`, `{"k": "ccc"}`}, []string{`{"k": "a"}`}},
		{"minProperties and propertyNames", `{"enum": [{}, {"a": 1}, {"abcd": 1}], "minProperties": 1, "propertyNames": {"maxLength": 3}}`,
			[]string{`{"a": 1}`}, []string{`{}`, `{"abcd": 1}`}},
	}
	checkExact(t, cases) // not strict the same, nothing reported
}

// No listed value valid is a schema nothing satisfies: a 400 in both
// modes. A value the check can't decide leaves the schema as before: the
// keyword is reported, an error under strict.
func TestListedValuesUnsatisfiedOrUndecided(t *testing.T) {
	for _, schema := range []string{
		`{"enum": ["a"], "not": {"const": "a"}}`,
		`{"const": [1, 1], "uniqueItems": true}`,
	} {
		for _, strict := range []bool{false, true} {
			var ge *Error
			if _, err := compileFormat(schema, strict); !errors.As(err, &ge) || !strings.Contains(ge.Msg, "every listed value") {
				t.Errorf("%s (strict %v): %v", schema, strict, err)
			}
		}
	}
	// 1,000 arrays of nine elements compared pairwise: past the check's
	// work, so decided as before (uniqueItems reported).
	var many []string
	for i := range 1000 {
		many = append(many, "[1, 2, 3, 4, 5, 6, 7, 8, "+itoa(i)+"]")
	}
	spent := `{"enum": [` + strings.Join(many, ", ") + `], "uniqueItems": true}`
	for _, c := range []struct{ schema, path string }{
		{`{"enum": [{"a": 1}], "not": {"required": ["b"]}, "unevaluatedProperties": false}`, "response_format.json_schema.schema.not"},
		{`{"enum": ["x"], "pattern": "(?<=a)x"}`, "response_format.json_schema.schema.pattern"},
		{spent, "response_format.json_schema.schema.uniqueItems"},
	} {
		checkReportedAt(t, c.schema, c.path)
	}
}

// The check of a listed value agrees with the JSON Schema Test Suite on
// every instance it decides: each instance is placed inside its schema (a
// keyword no vocabulary defines, which only annotates) and checked there.
func TestValueValidAgainstSuite(t *testing.T) {
	decided, total := 0, 0
	for _, f := range loadSuite(t) {
		for i, sc := range f.cases {
			schema := bytes.TrimSpace(sc.Schema)
			if len(schema) == 0 || schema[0] != '{' {
				continue // a boolean schema: no keyword to check
			}
			for _, in := range sc.Tests {
				total++
				doc := append([]byte(`{"x-beam-instance": `), in.Data...)
				if inner := bytes.TrimSpace(schema[1:]); inner[0] != '}' {
					doc = append(append(doc, ", "...), inner...)
				} else {
					doc = append(doc, '}')
				}
				c := &compiler{doc: &pyjson.Doc{}}
				if !c.load(doc, "", false, "") {
					t.Fatalf("%s#%d: %v", f.name, i, c.err)
				}
				m := c.d.Lookup(0, "x-beam-instance")
				got := c.valueValid(0, m, 0)
				if got == undecided {
					continue
				}
				decided++
				want := in.Valid
				if f.name == "format" && strings.Contains(in.Description, "only an annotation by default") {
					want = false // the grammar asserts format (decision 104)
				}
				if (got == valid) != want {
					t.Errorf("%s#%d %q: %q checked %v, want valid=%v", f.name, i, sc.Description, in.Description, got == valid, want)
				}
			}
		}
	}
	t.Logf("%d of %d instances decided", decided, total)
	if decided < total*3/4 {
		t.Errorf("only %d of %d instances decided", decided, total)
	}
}

// randomValue is a small JSON value: scalars, and arrays and objects of
// them (keys a, b and c) down to depth.
func randomValue(rng *rand.Rand, depth int) string {
	scalars := []string{`null`, `true`, `false`, `0`, `1`, `1.0`, `2`, `-1`, `2.5`, `3`, `""`, `"a"`, `"ab"`, `"b"`, `"ba"`}
	switch n := rng.IntN(10); {
	case depth <= 0 || n < 6:
		return scalars[rng.IntN(len(scalars))]
	case n < 8:
		var parts []string
		for range rng.IntN(4) {
			parts = append(parts, randomValue(rng, depth-1))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	default:
		var parts []string
		for _, k := range []string{"a", "b", "c"} {
			if rng.IntN(2) == 0 {
				parts = append(parts, strconv.Quote(k)+": "+randomValue(rng, depth-1))
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
}

// randomSchema is a schema object of one to three keywords drawn from
// those valueValid reads (formats aside: the validator does not assert
// them) and unevaluatedProperties and unevaluatedItems (which it leaves
// undecided), down to depth; refs may point to #/$defs/d, and to the root
// (in place, in items, in a property). A keyword may come twice (a JSON
// reader keeps the last).
func randomSchema(rng *rand.Rand, depth int, refs bool) string {
	return randomSchemaOf(rng, depth, refs, false)
}

// randomSchemaOf is randomSchema, with formats (date, time, date-time,
// ipv4, uuid, hostname) among the keywords when formats is set.
func randomSchemaOf(rng *rand.Rand, depth int, refs, formats bool) string {
	sub := func() string {
		if depth <= 0 {
			return []string{`{}`, `true`, `false`, `{"type": "integer"}`, `{"const": "a"}`, `{"minimum": 1}`}[rng.IntN(6)]
		}
		return randomSchemaOf(rng, depth-1, refs, formats)
	}
	subs := func() string {
		var parts []string
		for range 1 + rng.IntN(3) {
			parts = append(parts, sub())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	values := func() string {
		var parts []string
		for range 1 + rng.IntN(4) {
			parts = append(parts, randomValue(rng, 2))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	keywords := []func() string{
		func() string {
			return `"type": ` + []string{`"integer"`, `"number"`, `"string"`, `"array"`, `"object"`, `"null"`, `"boolean"`, `["string", "integer"]`}[rng.IntN(8)]
		},
		func() string { return `"const": ` + randomValue(rng, 2) },
		func() string { return `"enum": ` + values() },
		func() string { return `"not": ` + sub() },
		func() string { return `"anyOf": ` + subs() },
		func() string { return `"oneOf": ` + subs() },
		func() string { return `"allOf": ` + subs() },
		func() string { return `"if": ` + sub() + `, "then": ` + sub() + `, "else": ` + sub() },
		func() string {
			return []string{`"minimum": `, `"maximum": `, `"exclusiveMinimum": `, `"exclusiveMaximum": `}[rng.IntN(4)] + []string{`0`, `1`, `2`, `1.5`}[rng.IntN(4)]
		},
		func() string { return `"multipleOf": ` + []string{`2`, `0.5`, `1`}[rng.IntN(3)] },
		func() string {
			return []string{`"minLength": `, `"maxLength": `}[rng.IntN(2)] + strconv.Itoa(rng.IntN(3))
		},
		func() string { return `"pattern": ` + []string{`"^a"`, `"b$"`, `"a"`}[rng.IntN(3)] },
		func() string { return `"items": ` + sub() },
		func() string { return `"prefixItems": ` + subs() },
		func() string {
			return []string{`"minItems": `, `"maxItems": `}[rng.IntN(2)] + strconv.Itoa(rng.IntN(3))
		},
		func() string { return `"uniqueItems": true` },
		func() string {
			return `"contains": ` + sub() + []string{``, `, "minContains": 2`, `, "maxContains": 1`, `, "minContains": 0`}[rng.IntN(4)]
		},
		func() string { return `"properties": {"a": ` + sub() + `, "b": ` + sub() + `}` },
		func() string { return `"required": ` + []string{`["a"]`, `["b"]`, `["a", "c"]`}[rng.IntN(3)] },
		func() string { return `"additionalProperties": ` + sub() },
		func() string { return `"patternProperties": {"^[ab]": ` + sub() + `}` },
		func() string {
			return []string{`"minProperties": `, `"maxProperties": `}[rng.IntN(2)] + strconv.Itoa(rng.IntN(3))
		},
		func() string { return `"dependentRequired": {"a": ["b"]}` },
		func() string { return `"dependentSchemas": {"b": ` + sub() + `}` },
		func() string { return `"propertyNames": {"maxLength": 1}` },
		func() string { return `"unevaluatedProperties": ` + sub() },
		func() string { return `"unevaluatedItems": ` + sub() },
		func() string { return []string{`"additionalProperties": false`, `"items": false`}[rng.IntN(2)] },
	}
	keywords = append(keywords,
		func() string {
			return `"pattern": ` + []string{`"^[a-c]{1,2}$"`, `"a|b"`, `"^$"`, `"^(ab)+$"`, `"[^a]"`}[rng.IntN(5)]
		},
		func() string {
			return []string{`"$ref": "#"`, `"items": {"$ref": "#"}`, `"properties": {"a": {"$ref": "#"}, "c": ` + sub() + `}`}[rng.IntN(3)]
		},
		func() string { return `"contains": ` + sub() + `, "minContains": 1, "maxContains": 2` },
		func() string {
			return []string{`"anyOf": [{"required": ["a"]}, {"required": ["b"]}]`, `"oneOf": [{"required": ["a"]}, {"required": ["b"]}]`}[rng.IntN(2)]
		},
		func() string { return `"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]` },
		func() string { return `"propertyNames": {"pattern": "^[ab]$"}` },
	)
	if formats {
		keywords = append(keywords, func() string {
			return `"format": ` + []string{`"date"`, `"time"`, `"date-time"`, `"ipv4"`, `"uuid"`, `"hostname"`}[rng.IntN(6)]
		})
	}
	var parts []string
	for range 1 + rng.IntN(3) {
		parts = append(parts, keywords[rng.IntN(len(keywords))]())
	}
	if refs && rng.IntN(5) == 0 {
		parts = append(parts, `"$ref": "#/$defs/d"`)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// The check of a value agrees with a JSON Schema validator on random
// schemas and values, wherever it decides; and a strict grammar of a
// random schema beside an enum is exact (or refused).
func TestValueValidAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 207))
	decided, total, compiled := 0, 0, 0
	for range 1500 {
		schema := randomSchema(rng, 2, true)
		schema = schema[:len(schema)-1] + `, "$defs": {"d": ` + randomSchema(rng, 1, false) + `}}`
		validator := validatorFor(t, schema)
		for range 8 {
			value := randomValue(rng, 2)
			instance, err := unmarshalInstance(value)
			if err != nil {
				t.Fatal(err)
			}
			want := validator.Validate(instance) == nil
			doc := `{"x-beam-instance": ` + value + `, ` + schema[1:]
			c := &compiler{doc: &pyjson.Doc{}}
			if !c.load([]byte(doc), "", false, "") {
				t.Fatal(c.err)
			}
			total++
			got := c.valueValid(0, c.d.Lookup(0, "x-beam-instance"), 0)
			if got == undecided {
				continue
			}
			decided++
			if (got == valid) != want {
				t.Errorf("%s: %s: checked %v, the validator says %v", schema, value, got == valid, want)
			}
		}
		// The same schema beside an enum of values: exact under strict.
		var members []string
		for range 1 + rng.IntN(5) {
			members = append(members, randomValue(rng, 2))
		}
		listed := `{"allOf": [{"enum": [` + strings.Join(members, ", ") + `]}, ` + schema + `]}`
		listed = listed[:len(listed)-2] + `], "$defs": ` + schema[strings.Index(schema, `"$defs": `)+len(`"$defs": `):len(schema)-1] + `}`
		g, err := compileFormat(listed, true)
		var ge *Error
		if err != nil && !errors.As(err, &ge) {
			t.Fatalf("%s: %v", listed, err)
		}
		if g != nil {
			compiled++
		}
		lv := validatorFor(t, listed)
		for _, m := range members {
			if err == nil || strings.Contains(ge.Msg, "every listed value") {
				agreeWithValidator(t, listed, g, lv, m)
			}
		}
	}
	t.Logf("%d of %d checks decided; %d of 1500 strict schemas beside an enum compiled", decided, total, compiled)
	if decided < total/2 || compiled < 500 {
		t.Errorf("only %d of %d decided, %d compiled", decided, total, compiled)
	}
}

// Long enums meet as JSON Schema compares values, whatever their length
// (gap decision 217): 1999 and 1999.0 are one value, and no member is lost
// to the work cap of comparing them pair by pair (which left 4,000,000
// pairs undecided, and the members out).
func TestLongEnumsIntersect(t *testing.T) {
	var ints, floats []string
	for i := range 2000 {
		ints, floats = append(ints, strconv.Itoa(i)), append(floats, strconv.Itoa(i)+".0")
	}
	schema := `{"allOf": [{"enum": [` + strings.Join(ints, ", ") + `, "x", {"a": [1, 2.50]}]}, {"enum": [` + strings.Join(floats, ", ") + `, {"a": [1.0, 2.5]}, "y"]}]}`
	for _, strict := range []bool{false, true} {
		g, err := compileFormat(schema, strict)
		if err != nil {
			t.Fatal(err)
		}
		checkContents(t, fmt.Sprintf("strict %v", strict), g,
			[]string{`0`, `1999`, `1999.0`, `1000`, `{"a": [1, 2.50]}`},
			[]string{`2000`, `"x"`, `"y"`, `-1`, `{"a": [1, 2.51]}`})
	}
}

// An object of more names than any grammar of it can hold is refused
// before its members are built, naming it (gap decision 217).
func TestTooManyObjectMembers(t *testing.T) {
	for _, schema := range []string{
		`{"properties": {"o": {"required": ` + nameList(maxObjectMembers+1) + `}}}`,
		`{"properties": {"o": {"type": "object", "properties": {"a": {}}, "dependentRequired": {"a": ` + nameList(maxObjectMembers+1) + `}}}}`,
	} {
		for _, strict := range []bool{false, true} {
			_, err := compileFormat(schema, strict)
			var ge *Error
			if !errors.As(err, &ge) || ge.Path != "response_format.json_schema.schema.properties.o" || !strings.Contains(ge.Msg, "more than "+strconv.Itoa(maxObjectMembers)+" names") {
				t.Errorf("strict %v: %v", strict, err)
			}
		}
	}
}
