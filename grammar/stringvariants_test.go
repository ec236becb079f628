package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Under strict, a string's patterns and formats are all enforced, by one
// string automaton (gap decision 201); not strict, the first is, and the
// others are reported as before.
func TestSeveralPatterns(t *testing.T) {
	checkStrictExact(t, []contentCase{
		{"two patterns", `{"type": "string", "allOf": [{"pattern": "^a"}, {"pattern": "b$"}]}`,
			[]string{`"ab"`, `"axyb"`}, []string{`"a"`, `"b"`, `"ba"`, `""`}},
		{"a pattern and a format", `{"type": "string", "pattern": "^[0-9.]+$", "format": "ipv4"}`,
			[]string{`"1.2.3.4"`}, []string{`"1.2.3"`, `"a.b.c.d"`}},
		{"with lengths and a not", `{"type": "string", "pattern": "[0-9]", "allOf": [{"pattern": "^[a-z0-9]*$"}], "maxLength": 3, "not": {"const": "a1"}}`,
			[]string{`"1"`, `"ab1"`, `"1a"`}, []string{`"a1"`, `"abc"`, `"abc1"`, `"A1"`}},
	})
	checkReportedAt(t, `{"type": "string", "allOf": [{"pattern": "^a"}, {"pattern": "(?<=b)"}]}`, "response_format.json_schema.schema.allOf[1].pattern")
	g, err := compileFormat(`{"type": "string", "allOf": [{"pattern": "^a"}, {"pattern": "b$"}]}`, false)
	if err != nil || len(g.Dropped) != 1 || g.Dropped[0].Path != "response_format.json_schema.schema.allOf[1].pattern" {
		t.Errorf("not strict: %v %v", g, err)
	}
}

// Under strict, a oneOf of variants that only constrain strings is the
// strings valid for exactly one of them (gap decision 202).
func TestStringVariants(t *testing.T) {
	checkStrictExact(t, []contentCase{
		{"unanchored patterns", `{"oneOf": [{"pattern": "customer"}, {"pattern": "maker"}, {"pattern": "admin"}]}`,
			[]string{`"customer"`, `"xadminx"`}, []string{`"customer admin"`, `"zz"`, `1`, `null`, `{}`}},
		{"lower and upper case", `{"type": "string", "oneOf": [{"pattern": "^[0-9a-f]{8}$"}, {"pattern": "^[0-9A-F]{8}$"}]}`,
			[]string{`"0123abcd"`, `"0123ABCD"`}, []string{`"01234567"`, `"0123abCD"`}},
		{"lengths", `{"oneOf": [{"type": "string", "maxLength": 3}, {"type": "string", "minLength": 2}]}`,
			[]string{`""`, `"a"`, `"abcd"`}, []string{`"ab"`, `"abc"`}},
		{"a format and a pattern", `{"oneOf": [{"type": "string", "format": "ipv4"}, {"type": "string", "pattern": "^[0-9.]+$"}]}`,
			[]string{`"1.2"`, `"1.2.3.04"`}, []string{`"1.2.3.4"`, `"a"`}},
		{"beside the object's other types", `{"type": ["string", "null"], "oneOf": [{"pattern": "^a"}, {"pattern": "b$"}]}`,
			[]string{`"a"`, `"b"`}, []string{`"ab"`, `null`}},
		// Listed strings (decision 226).
		{"overlapping enums", `{"oneOf": [{"enum": ["a", "b"]}, {"const": "b"}, {"enum": ["c", "b"]}]}`,
			[]string{`"a"`, `"c"`}, []string{`"b"`, `"d"`, `1`, `null`}},
		{"an enum beside a pattern", `{"type": "string", "oneOf": [{"enum": ["", "x", "yy"]}, {"pattern": "^.$"}]}`,
			[]string{`""`, `"yy"`, `"a"`}, []string{`"x"`, `"ab"`}},
		{"an enum beside the oneOf", `{"enum": ["a", "b", "c"], "oneOf": [{"pattern": "[ab]"}, {"pattern": "[bc]"}]}`,
			[]string{`"a"`, `"c"`}, []string{`"b"`, `"d"`}},
		// A const beside an enum in one variant: both hold (decision 298).
		{"a const beside an enum that lacks it", `{"oneOf": [{"type": "string", "enum": ["a", "abc"], "const": ""}, {"type": "string", "pattern": "^b"}]}`,
			[]string{`"b"`, `"bc"`}, []string{`""`, `"a"`, `"abc"`}},
		{"a const beside an enum that holds it", `{"oneOf": [{"type": "string", "enum": ["a", "abc"], "const": "a"}, {"type": "string", "pattern": "^[ab]"}]}`,
			[]string{`"b"`, `"abc"`}, []string{`"a"`, `""`}},
	})
	// A listed value of another type: as before.
	if _, err := compileFormat(`{"oneOf": [{"enum": ["a", 1]}, {"type": "string"}]}`, true); err == nil || !strings.Contains(err.Error(), "oneOf") {
		t.Errorf("a number listed: %v", err)
	}
	// The same variants in many properties: one automaton, built once.
	if _, err := compileFormat(dumpProperties(200, `{"oneOf": [{"type": "string", "format": "uuid"}, {"type": "string", "pattern": "^[0-9a-f-]+$"}]}`), true); err != nil {
		t.Errorf("200 properties of the same variants: %v", err)
	}
}

// Under strict, a oneOf's string variants may be $refs (and allOfs) to
// schemas that only constrain strings, and a type one variant alone
// admits is written beside the strings (gap decision 294).
func TestStringVariantsRefsAndTypes(t *testing.T) {
	checkStrictExact(t, stringVariantRefCases)
	for _, schema := range []string{
		// Numbers that are not integers, which no rule writes alone.
		`{"oneOf": [{"type": "number"}, {"type": "integer"}, {"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "b$"}]}`,
		// A variant that constrains numbers too: the general path.
		`{"oneOf": [{"type": ["string", "integer"], "minimum": 0, "pattern": "^a"}, {"type": ["string", "integer"], "pattern": "b$"}]}`,
		// A $ref to a schema of objects and strings.
		`{"$defs": {"o": {"type": ["string", "object"], "required": ["x"], "pattern": "^a"}}, "oneOf": [{"$ref": "#/$defs/o"}, {"type": ["string", "object"], "pattern": "b$"}]}`,
		// A variant that constrains objects another variant admits.
		`{"oneOf": [{"type": "string", "pattern": "^a"}, {"type": ["string", "object"], "pattern": "b$"}, {"type": "object", "required": ["x"]}]}`,
	} {
		checkReportedAt(t, schema, "response_format.json_schema.schema.oneOf")
	}
}

// Both against a JSON Schema validator, on random patterns, lengths,
// listed strings (decision 226) and strings.
func TestStringAutomataAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 202))
	patterns := []string{`^a`, `b$`, `[0-9]`, `^[a-c]+$`, `ab`, `^(a|b0)*$`, `^.{2}$`}
	listed := []string{``, `a`, `b`, `ab`, `a0`, `c-`, `b0`, `aab`} // enum members, and values tried (decision 226)
	variant := func() string {
		var kws []string
		if rng.IntN(3) == 0 {
			var ms []string
			for range 1 + rng.IntN(3) {
				ms = append(ms, strconv.Quote(listed[rng.IntN(len(listed))]))
			}
			kws = append(kws, `"enum": [`+strings.Join(ms, ", ")+`]`)
		}
		if rng.IntN(2) == 0 {
			kws = append(kws, `"type": "string"`)
		}
		if rng.IntN(3) != 0 { // a pattern a schema object: the others in allOf
			kws = append(kws, `"pattern": `+strconv.Quote(patterns[rng.IntN(len(patterns))]))
		}
		if rng.IntN(3) == 0 {
			kws = append(kws, `"minLength": `+strconv.Itoa(rng.IntN(3)))
		}
		if rng.IntN(3) == 0 {
			kws = append(kws, `"maxLength": `+strconv.Itoa(1+rng.IntN(4)))
		}
		return "{" + strings.Join(kws, ", ") + "}"
	}
	checked, compiled := 0, 0
	for round := range 300 {
		var schema string
		if round%2 == 0 {
			schema = `{"type": "string", "pattern": ` + strconv.Quote(patterns[rng.IntN(len(patterns))]) + `, "allOf": [` + variant() + `, ` + variant() + `]}`
		} else {
			var vs []string
			for range 2 + rng.IntN(3) {
				vs = append(vs, variant())
			}
			schema = `{"oneOf": [` + strings.Join(vs, ", ") + `]}`
		}
		g, err := compileFormat(schema, true)
		if err != nil && !strings.Contains(err.Error(), "no value satisfies") && !strings.Contains(err.Error(), "no value can be written") && !strings.Contains(err.Error(), "minLength is greater than maxLength") {
			if round%2 == 0 || !strings.Contains(err.Error(), "oneOf") {
				t.Errorf("%s: %v", schema, err)
			}
			continue
		}
		if g != nil {
			compiled++
		}
		validator := validatorFor(t, schema)
		for range 20 {
			var b strings.Builder
			for range rng.IntN(6) {
				b.WriteByte("ab0c-"[rng.IntN(5)])
			}
			content := strconv.Quote(b.String())
			if rng.IntN(3) == 0 {
				content = strconv.Quote(listed[rng.IntN(len(listed))])
			}
			if rng.IntN(6) == 0 {
				content = []string{`1`, `null`, `[]`, `{}`}[rng.IntN(4)]
			}
			agreeWithValidator(t, schema, g, validator, content)
			checked++
		}
	}
	if compiled < 130 || checked < 4000 {
		t.Errorf("only %d schemas compiled, %d instances checked", compiled, checked)
	}
	t.Logf("%d schemas compiled, %d instances checked", compiled, checked)
}

// Decision 294 against a JSON Schema validator: oneOfs of string variants,
// some behind $ref, beside variants of other types (some constrained), on
// strings and values of every type.
func TestStringVariantsTypesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 294))
	patterns := []string{`^a`, `b$`, `[0-9]`, `^[a-c]+$`, `^.{2}$`}
	others := []string{`{"type": "integer"}`, `{"type": "null"}`, `{"type": "boolean"}`, `{"type": "number"}`,
		`{"type": "integer", "minimum": 2}`, `{"type": "array", "items": {"type": "integer"}, "maxItems": 2}`,
		`{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}`}
	values := []string{`1`, `2`, `-3`, `1.5`, `null`, `true`, `false`, `[]`, `[1]`, `["a"]`, `{}`, `{"n": 1}`, `{"n": "a"}`}
	checked, compiled := 0, 0
	for range 300 {
		var defs, vs []string
		for k := range 2 + rng.IntN(3) {
			switch rng.IntN(4) {
			case 0:
				vs = append(vs, others[rng.IntN(len(others))])
				continue
			}
			kws := []string{`"pattern": ` + strconv.Quote(patterns[rng.IntN(len(patterns))])}
			switch rng.IntN(3) {
			case 0:
				kws = append(kws, `"type": "string"`)
			case 1:
				kws = append(kws, `"type": ["string", `+[]string{`"integer"`, `"null"`, `"boolean"`}[rng.IntN(3)]+`]`)
			}
			if rng.IntN(4) == 0 {
				kws = append(kws, `"maxLength": `+strconv.Itoa(1+rng.IntN(3)))
			}
			variant := "{" + strings.Join(kws, ", ") + "}"
			if rng.IntN(2) == 0 {
				name := "v" + strconv.Itoa(k)
				defs = append(defs, strconv.Quote(name)+": "+variant)
				variant = `{"$ref": "#/$defs/` + name + `"}`
			}
			vs = append(vs, variant)
		}
		schema := `{"$defs": {` + strings.Join(defs, ", ") + `}, "oneOf": [` + strings.Join(vs, ", ") + `]}`
		g, err := compileFormat(schema, true)
		if err != nil {
			if !strings.Contains(err.Error(), "oneOf") && !strings.Contains(err.Error(), "no value satisfies") {
				t.Errorf("%s: %v", schema, err)
			}
			continue // (refused: the general path's, numbers that are not integers alone, or no string for one variant alone)
		}
		compiled++
		validator := validatorFor(t, schema)
		for range 20 {
			var b strings.Builder
			for range rng.IntN(5) {
				b.WriteByte("ab0c"[rng.IntN(4)])
			}
			content := strconv.Quote(b.String())
			if rng.IntN(3) == 0 {
				content = values[rng.IntN(len(values))]
			}
			agreeWithValidator(t, schema, g, validator, content)
			checked++
		}
	}
	if compiled < 150 || checked < 3000 {
		t.Errorf("only %d schemas compiled, %d instances checked", compiled, checked)
	}
	t.Logf("%d schemas compiled, %d instances checked", compiled, checked)
}

// stringVariantRefCases are TestStringVariantsRefsAndTypes's exact
// schemas (gap decision 294); their strict grammars are dumped for
// llama.cpp's and xgrammar's matchers beside decision 289's.
var stringVariantRefCases = []contentCase{
	{"variants behind $ref", `{"$defs": {"hz": {"type": "string", "pattern": "^[0-9]+Hz$"}, "bpm": {"type": "string", "pattern": "^[0-9]+bpm$"}},
		"oneOf": [{"$ref": "#/$defs/hz"}, {"$ref": "#/$defs/bpm"}, {"enum": ["fast", "slow"]}]}`,
		[]string{`"50Hz"`, `"120bpm"`, `"fast"`}, []string{`"50"`, `"fastHz"`, `"medium"`, `1`, `null`}},
	{"a $ref's $ref and allOf", `{"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"allOf": [{"type": "string"}, {"pattern": "^a"}]}},
		"oneOf": [{"$ref": "#/definitions/a"}, {"type": "string", "pattern": "b$"}]}`,
		[]string{`"a"`, `"b"`, `"ax"`}, []string{`"ab"`, `"c"`, `1`}},
	{"an integer one variant admits", `{"oneOf": [{"type": "integer"}, {"type": "string", "pattern": "^-?[0-9]+/[0-9]+$"}, {"type": "string", "pattern": "^0x[0-9a-f]+$"}]}`,
		[]string{`12`, `-3`, `"1/2"`, `"0x1f"`}, []string{`1.5`, `"12"`, `"0x"`, `null`, `true`}},
	{"null and an empty string", `{"oneOf": [{"type": "string", "pattern": "^[0-9]+$"}, {"type": "null"}, {"type": "string", "maxLength": 0}]}`,
		[]string{`"12"`, `null`, `""`}, []string{`"a"`, `0`, `[]`}},
	{"a variant of two types", `{"oneOf": [{"type": "string", "pattern": "^a"}, {"type": ["string", "integer"], "pattern": "b$"}]}`,
		[]string{`"a"`, `"b"`, `7`}, []string{`"ab"`, `"c"`, `null`, `1.5`}},
	{"types two variants admit and one alone", `{"oneOf": [{"type": ["null", "string"], "pattern": "^a"}, {"type": ["null", "string"], "pattern": "b$"}, {"type": ["boolean", "string"], "pattern": "c"}]}`,
		[]string{`"a"`, `"xc"`, `true`}, []string{`"abc"`, `"ac"`, `1`, `null`, `{}`}},
	{"an object one variant admits", `{"oneOf": [{"type": "string", "pattern": "^a"}, {"type": "string", "pattern": "b$"}, {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": false}]}`,
		[]string{`"a"`, `"b"`, `{"n": 1}`}, []string{`"ab"`, `{}`, `{"n": "1"}`, `1`}},
}
