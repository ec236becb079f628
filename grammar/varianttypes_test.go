package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// A oneOf's variants are told apart by the types their nested anyOf,
// oneOf, enum and const admit, and a type two variants admit whole is no
// variant's (gap decision 289). All but two schemas (the $ref to an allOf
// and the enum, told apart by their literals before) were refused under
// strict before, and reported not strict; now the strict grammar holds
// exactly the values a JSON Schema validator finds valid, listed and random
// ones (a whole number written 1.0 and objects aside where the grammar is
// known to be narrower: decision 184, declared order), and not strict it
// reports nothing.
func TestOneOfVariantTypes(t *testing.T) {
	cases := variantTypeCases
	checkExact(t, cases)
	checkListedAndRandom(t, cases, rand.New(rand.NewPCG(28, 9)), 400)
}

// checkListedAndRandom checks each case's strict grammar against a JSON
// Schema validator: its listed values are as the validator says (in valid,
// out invalid), and of n random values (randomValue) none invalid is in the
// grammar and none valid is left out, a whole number written 1.0 and
// objects aside (decision 184, declared order).
func checkListedAndRandom(t *testing.T, cases []contentCase, rng *rand.Rand, n int) {
	t.Helper()
	for _, c := range cases {
		g, err := compileFormat(c.schema, true)
		if err != nil {
			continue // reported by checkStrictExact
		}
		validator := validatorFor(t, c.schema)
		for _, v := range c.in {
			if _, valid := verdicts(t, g, validator, v); !valid {
				t.Errorf("%s: %s is listed as valid, yet the validator rejects it", c.name, v)
			}
		}
		for _, v := range c.out {
			if _, valid := verdicts(t, g, validator, v); valid {
				t.Errorf("%s: %s is listed as invalid, yet the validator accepts it", c.name, v)
			}
		}
		for range n {
			value := randomValue(rng, 2)
			matched, valid := verdicts(t, g, validator, value)
			switch {
			case matched && !valid:
				t.Errorf("%s: %s is invalid, yet in the grammar", c.name, value)
			case !matched && valid && !strings.Contains(value, ".0") && !strings.Contains(value, "{"):
				t.Errorf("%s: %s is valid, yet not in the grammar", c.name, value)
			}
		}
	}
}

// variantTypeCases are TestOneOfVariantTypes's schemas; their strict
// grammars are among those templates/llamacpp/grammar.sh and
// templates/xgrammar/grammar.sh check (TestDumpGrammarsForLlama).
var variantTypeCases = []contentCase{
	{"a nested oneOf of types beside null (JSON Schema Store's strmprivacy)",
		`{"oneOf": [{"oneOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]}`,
		[]string{`"a"`, `3`, `null`}, []string{`true`, `[]`, `{}`, `2.5`}},
	{"a nested oneOf of enums against an object",
		`{"oneOf": [{"oneOf": [{"type": "string", "enum": ["MAX", "MIN"]}, {"type": "string", "enum": ["NONE"]}]}, {"type": "object", "properties": {"type": {"type": "string"}}, "required": ["type"], "additionalProperties": false}]}`,
		[]string{`"MAX"`, `"NONE"`, `{"type": "x"}`}, []string{`"SUM"`, `{}`, `1`}},
	{"a $ref to an anyOf of types",
		`{"$defs": {"s": {"anyOf": [{"type": "string", "minLength": 2}, {"type": "boolean"}]}}, "oneOf": [{"$ref": "#/$defs/s"}, {"type": "array", "items": {"$ref": "#/$defs/s"}}]}`,
		[]string{`"ab"`, `true`, `["ab", false]`, `[]`}, []string{`"a"`, `["a"]`, `null`, `1`}},
	{"a $ref to an allOf, against null",
		`{"$defs": {"u": {"allOf": [{"type": "string"}, {"maxLength": 4}]}}, "oneOf": [{"$ref": "#/$defs/u"}, {"type": "null"}]}`,
		[]string{`"abcd"`, `null`}, []string{`"abcde"`, `0`}},
	{"an enum of several types against an array",
		`{"oneOf": [{"enum": ["a", 1, null]}, {"type": "array", "maxItems": 1}]}`,
		[]string{`"a"`, `1`, `null`, `[]`, `[2]`}, []string{`"b"`, `[1, 2]`, `{}`}},
	{"strings both variants admit whole are neither's",
		`{"oneOf": [{"instanceof": "RegExp"}, {"type": "string"}]}`,
		[]string{`1`, `null`, `[]`, `{}`, `true`}, []string{`"a"`, `""`}},
	{"null and booleans two variants admit whole",
		`{"oneOf": [{"type": ["null", "boolean", "string"], "minLength": 2}, {"type": ["null", "boolean", "integer"], "minimum": 5}]}`,
		[]string{`"ab"`, `5`}, []string{`null`, `true`, `"a"`, `4`, `2.5`}},
	{"arrays two variants admit whole",
		`{"oneOf": [{"type": ["array", "string"], "minLength": 1}, {"type": ["array", "integer"]}, {"type": "object"}]}`,
		[]string{`"a"`, `3`, `{}`, `{"a": 1}`}, []string{`[]`, `[1]`, `""`, `null`, `2.5`}},
	{"ranges that meet nowhere, other values valid for both",
		`{"oneOf": [{"minimum": -1, "maximum": -1}, {"minimum": 50, "maximum": 100}]}`,
		[]string{`-1`, `50`, `75.5`, `100`}, []string{`0`, `49`, `101`, `"a"`, `null`, `[]`}},
	{"an integer below an exclusive bound, a number from it",
		`{"oneOf": [{"type": "integer", "exclusiveMaximum": 3}, {"type": "number", "minimum": 3}]}`,
		[]string{`2`, `-7`, `3`, `3.5`}, []string{`2.5`, `"3"`}},
	{"arrays of numbers or of strings: [] valid for both (decision 291)",
		`{"oneOf": [{"type": "array", "items": {"type": "number"}}, {"type": "array", "items": {"type": "string"}}]}`,
		[]string{`[1]`, `[1.5, 2]`, `["a"]`, `["a", "b"]`}, []string{`[]`, `[1, "a"]`, `"a"`, `null`}},
	{"arrays of objects or of strings, beside null",
		`{"$defs": {"o": {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false}}, "oneOf": [{"type": "array", "items": {"$ref": "#/$defs/o"}, "maxItems": 2}, {"type": ["array", "null"], "items": {"type": "string"}}]}`,
		[]string{`[{}]`, `[{"a": 1}, {}]`, `["x"]`, `null`}, []string{`[]`, `[{}, {}, {}]`, `[{}, "x"]`, `[1]`}},
	{"one variant requires an element: [] the other's",
		`{"oneOf": [{"type": ["array", "null"], "items": {"type": "integer"}}, {"type": "array", "items": {"type": "boolean"}, "minItems": 1}]}`,
		[]string{`[]`, `[1]`, `[true]`, `null`}, []string{`[1, true]`, `"x"`}},
	{"an enum's [] left out with the others",
		`{"oneOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "array", "items": {"type": "string"}}, {"enum": [[], "none"]}]}`,
		[]string{`[1]`, `["a"]`, `"none"`}, []string{`[]`, `[1, "a"]`}},
	{"objects told apart by a required member's types (decision 292)",
		`{"oneOf": [{"type": "object", "properties": {"value": {"type": "string", "minLength": 2}, "n": {"type": "integer"}}, "required": ["value"], "additionalProperties": false}, {"type": "object", "properties": {"value": {"type": "array", "items": {"type": "integer"}}, "n": {"type": "integer"}}, "required": ["value"], "additionalProperties": false}]}`,
		[]string{`{"value": "ab"}`, `{"value": "ab", "n": 1}`, `{"value": []}`, `{"value": [1, 2], "n": 3}`}, []string{`{}`, `{"value": "a"}`, `{"value": 1}`, `{"value": ["a"]}`, `{"n": 1}`}},
	{"a required member of a $ref's object against a nested oneOf of types",
		`{"$defs": {"point": {"type": "object", "properties": {"at": {"type": "object", "properties": {"x": {"type": "number"}}, "additionalProperties": false}}, "required": ["at"], "additionalProperties": false}}, "oneOf": [{"$ref": "#/$defs/point"}, {"type": "object", "properties": {"at": {"oneOf": [{"type": "string"}, {"type": "null"}]}}, "additionalProperties": false}]}`,
		[]string{`{"at": {}}`, `{"at": {"x": 1}}`, `{"at": "here"}`, `{"at": null}`, `{}`}, []string{`{"at": 1}`, `{"at": []}`}},
	{"enums of 100 and 60 strings, apart (decision 293)",
		`{"oneOf": [{"type": "string", "enum": ` + stringList("a", 0, 100) + `}, {"type": "string", "enum": ` + stringList("b", 0, 60) + `}]}`,
		[]string{`"a0"`, `"a99"`, `"b59"`}, []string{`"a100"`, `"b60"`, `"c"`, `1`}},
	{"objects told apart by a required member's enums of 100 and 60 strings",
		`{"oneOf": [{"type": "object", "properties": {"kind": {"enum": ` + stringList("a", 0, 100) + `}}, "required": ["kind"], "additionalProperties": false}, {"type": "object", "properties": {"kind": {"enum": ` + stringList("b", 0, 60) + `}}, "required": ["kind"], "additionalProperties": false}]}`,
		[]string{`{"kind": "a7"}`, `{"kind": "b7"}`}, []string{`{"kind": "c"}`, `{}`, `{"kind": 1}`}},
	{"arrays of strings from lists that share none (decision 295; WordPress's block.json)",
		`{"oneOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "string", "enum": ["top", "right", "left", "bottom"]}}, {"type": "array", "items": {"type": "string", "enum": ["vertical", "horizontal"]}}]}`,
		[]string{`true`, `["top"]`, `["left", "top"]`, `["vertical", "horizontal"]`}, []string{`[]`, `["top", "vertical"]`, `["x"]`, `"top"`}},
	{"arrays of strings from lists of 10 and 9 that share none",
		`{"oneOf": [{"type": "array", "items": {"enum": ` + stringList("a", 0, 10) + `}, "maxItems": 3}, {"type": "array", "items": {"const": "b"}}, {"type": "array", "items": {"enum": ` + stringList("c", 0, 9) + `}}]}`,
		[]string{`["a0", "a9"]`, `["b", "b"]`, `["c8"]`}, []string{`[]`, `["a0", "b"]`, `["a0", "a1", "a2", "a3"]`, `["c9"]`}},
}

// stringList is a JSON list of the strings prefix+i, i from lo to hi-1.
func stringList(prefix string, lo, hi int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := lo; i < hi; i++ {
		if i > lo {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(prefix + strconv.Itoa(i)))
	}
	return b.String() + "]"
}

// Where the variants' types still meet, the oneOf is refused under strict
// as before, naming it: an integer is valid for both a number and an
// integer variant, and one written with a fraction is told apart by no rule
// (so numbers are dropped only when both kinds are, sharedWholeTypes);
// ranges that share their bound (3) meet; arrays whose elements' types
// meet, or whose first element a prefixItems governs, meet beyond [];
// arrays from lists of strings that share one meet (short or long lists);
// objects whose required member's schemas admit one type, strings, meet;
// long enums that share a string meet (beside a variant with a not, which
// keeps the string automaton of decision 294 from writing them exactly).
func TestOneOfVariantTypesRefused(t *testing.T) {
	for _, schema := range []string{
		`{"oneOf": [{"type": "integer"}, {"type": "string"}, {"type": "number"}]}`,
		`{"oneOf": [{"oneOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "string", "minLength": 2}]}`,
		`{"oneOf": [{"anyOf": [{"type": "null"}, {"minimum": 2}]}, {"type": "integer"}]}`,
		`{"oneOf": [{"type": "integer", "maximum": 3}, {"type": "number", "minimum": 3}]}`,
		`{"oneOf": [{"type": "array", "items": {"type": "number"}}, {"type": "array", "items": {"type": "integer"}}]}`,
		`{"oneOf": [{"type": "object", "properties": {"v": {"type": "string", "minLength": 2}}, "required": ["v"]}, {"type": "object", "properties": {"v": {"type": "string", "pattern": "^a"}}, "required": ["v"]}]}`,
		`{"oneOf": [{"type": "string", "enum": ` + stringList("a", 0, 100) + `}, {"type": "string", "enum": ` + stringList("a", 99, 160) + `}, {"type": "integer", "not": {"const": 3}}]}`,
		`{"oneOf": [{"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"}}, {"type": "array", "items": {"type": "string"}}]}`,
		`{"oneOf": [{"type": "array", "items": {"enum": ["top", "left"]}}, {"type": "array", "items": {"enum": ["vertical", "left"]}}]}`,
		`{"oneOf": [{"type": "array", "items": {"enum": ` + stringList("a", 0, 10) + `}}, {"type": "array", "items": {"enum": ` + stringList("a", 9, 20) + `}}]}`,
	} {
		checkReportedAt(t, schema, "response_format.json_schema.schema.oneOf")
	}
}

// A key no draft knows and no keyword misspelt can be (_format, x-order:
// schema.Extension) constrains nothing, so the oneOf checks that read a
// variant's schemas keyword by keyword take it for an annotation (gap
// decision 294); a misspelt keyword still makes strict refuse, naming it.
func TestOneOfExtensionKeys(t *testing.T) {
	checkStrictExact(t, []contentCase{
		{"extension keys in open variants", `{"type": "object", "oneOf": [{"properties": {"uri": {"_format": "uri", "type": "string"}}, "required": ["uri"]}, {"properties": {"id": {"type": "string", "x-order": 1}}, "required": ["id"]}]}`,
			[]string{`{"uri": "a"}`, `{"id": "b"}`, `{"uri": "a", "id": 1}`}, []string{`{"uri": "a", "id": "b"}`, `{}`, `{"uri": 1}`}},
	})
	if _, err := compileFormat(`{"type": "object", "oneOf": [{"properties": {"uri": {"minLenght": 3, "type": "string"}}, "required": ["uri"]}, {"properties": {"id": {"type": "string"}}, "required": ["id"]}]}`, true); err == nil || !strings.Contains(err.Error(), "oneOf[0].properties.uri.minLenght: unknown keyword") {
		t.Errorf("a misspelt keyword: %v", err)
	}
}

// Under strict, a oneOf refused because two variants meet names the two
// and the types they share, so that whoever wrote it knows where to look.
func TestOneOfOverlapNamed(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"oneOf": [{"type": "integer"}, {"type": "boolean"}, {"type": ["string", "integer"], "not": {"const": 3}}]}`,
			"(oneOf[0] and oneOf[2] both admit integers)"},
		{`{"oneOf": [{"type": "object", "properties": {"v": {"type": "string", "minLength": 2}}, "required": ["v"]}, {"type": "object", "properties": {"v": {"type": "string", "pattern": "^a"}}, "required": ["v"]}]}`,
			"(oneOf[0] and oneOf[1] both admit objects)"},
		{`{"oneOf": [{"type": "string", "minLength": 2}, {"type": "string", "not": {"const": "a"}}]}`,
			"(oneOf[0] and oneOf[1] both admit strings)"},
		{`{"oneOf": ` + numberedVariants(33) + `}`,
			"(more than 32 variants, two of which admit objects)"},
	} {
		_, err := compileFormat(c.schema, true)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.schema, err, c.want)
		}
	}
}

// numberedVariants is a list of n object variants each requiring a name of
// its own, with a property all declare.
func numberedVariants(n int) string {
	var vs []string
	for i := range n {
		vs = append(vs, `{"type": "object", "properties": {"s": {"type": "string", "minLength": 2}}, "required": ["k`+strconv.Itoa(i)+`"]}`)
	}
	return "[" + strings.Join(vs, ", ") + "]"
}
