package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	harmony "github.com/beamharmony/harmony"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Random schemas of the keywords valueValid reads (randomSchema), against
// a JSON Schema validator: a strict grammar accepts no invalid value, and a
// non-strict one that reports nothing accepts none either. A strict grammar
// accepts every valid value but for the documented spellings and objects
// (a whole number written as 1.0, decision 184 and the suite's known
// failures; an object's members in the declared order, closed by default),
// so values with neither are checked both ways.
func TestStrictAgainstValidatorRandom(t *testing.T) {
	for _, strict := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(2, 207))
		compiled, checked := 0, 0
		for range 3000 {
			schema := randomSchema(rng, 2, true)
			schema = schema[:len(schema)-1] + `, "$defs": {"d": ` + randomSchema(rng, 1, false) + `}}`
			g := exactGrammar(t, schema, strict)
			if g == nil {
				continue
			}
			compiled++
			checked += checkRandomValues(t, rng, schema, g, strict, 10, 2)
		}
		t.Logf("strict %v: %d of 3000 compiled (with nothing reported), %d values checked", strict, compiled, checked)
		if compiled < 800 {
			t.Errorf("strict %v: only %d compiled", strict, compiled)
		}
	}
}

// checkRandomValues checks n random values (randomValue, down to depth)
// against g, compiled from schema, and a JSON Schema validator: g accepts
// no invalid value and, strict, every valid one but for the documented
// spellings and objects (a whole number written as 1.0, decision 184;
// members in the declared order, closed by default). It returns n.
func checkRandomValues(t *testing.T, rng *rand.Rand, schema string, g *Grammar, strict bool, n, depth int) int {
	t.Helper()
	validator := validatorFor(t, schema)
	for range n {
		value := randomValue(rng, depth)
		matched, valid := verdicts(t, g, validator, value)
		switch {
		case matched && !valid:
			t.Errorf("%s (strict %v): %s is invalid, yet in the grammar", schema, strict, value)
		case !matched && valid && strict && !strings.Contains(value, ".0") && !strings.Contains(value, "{"):
			t.Errorf("%s (strict): %s is valid, yet not in the grammar", schema, value)
		}
	}
	return n
}

// Texts drawn from strict grammars of random schemas (formats among the
// keywords) are valid, by a validator that asserts formats. Left aside, as
// documented: a part no value satisfies (nothing(), which no engine
// writes), a key written twice in an object of free members, and decision
// 130's leap seconds with an offset that has minutes.
func TestStrictSamplesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 208))
	compiled, samples := 0, 0
	for range 1500 {
		schema := randomSchemaOf(rng, 2, true, true)
		schema = schema[:len(schema)-1] + `, "$defs": {"d": ` + randomSchemaOf(rng, 1, false, true) + `}}`
		g, err := compileFormat(schema, true)
		if err != nil {
			continue
		}
		compiled++
		validator := assertingValidator(t, schema)
		s := newSampler(g, rng)
		for range 6 {
			text := s.Sample()
			if strings.ContainsRune(text, '\uFFFD') {
				continue
			}
			value, ok := strings.CutPrefix(text[strings.Index(text, finalHeader):], finalHeader)
			if !ok {
				t.Fatalf("%s: no final message in %q", schema, text)
			}
			d, err := pyjson.ParseBytes([]byte(value))
			if err != nil {
				t.Errorf("%s: not JSON: %q", schema, value)
				continue
			}
			if hasDuplicateKey(d) {
				continue
			}
			samples++
			instance, err := unmarshalInstance(value)
			if err != nil {
				t.Fatal(err)
			}
			if err := validator.Validate(instance); err != nil && !strings.Contains(err.Error(), "leap second") {
				t.Errorf("%s: %s is in the strict grammar, yet %v", schema, value, err)
			}
		}
	}
	t.Logf("%d of 1500 compiled under strict, %d texts drawn and checked", compiled, samples)
	if compiled < 600 || samples < 3000 {
		t.Errorf("only %d compiled, %d texts", compiled, samples)
	}
}

// hasDuplicateKey reports whether an object of d holds a key twice.
func hasDuplicateKey(d *pyjson.Doc) bool {
	for i := range d.Nodes {
		if d.Kind(i) == pyjson.Object && d.DuplicateKey(i) >= 0 {
			return true
		}
	}
	return false
}

// assertingValidator is validatorFor with formats asserted.
func assertingValidator(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	var doc any
	if err := json.Unmarshal([]byte(schema), &doc); err != nil {
		t.Fatal(err)
	}
	vc := jsonschema.NewCompiler()
	vc.AssertFormat()
	if err := vc.AddResource("mem://s.json", doc); err != nil {
		t.Fatal(err)
	}
	v, err := vc.Compile("mem://s.json")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Texts drawn from strict tool grammars of random parameters parse back
// (the root package's parser, casting by the declared types) to arguments
// valid for the parameters (decision 209). Left aside, as documented: an
// argument or a key written twice, and a number past a double's range
// inside an argument's JSON (which the parser keeps as a string).
func TestStrictToolSamplesParseBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 209))
	huge := regexp.MustCompile(`[eE][+-]?0*[0-9]{3,}`)
	compiled, samples := 0, 0
	for range 1500 {
		schema := `{"type": "object", "properties": {"a": ` + randomArgument(rng) + `, "b": ` + randomArgument(rng) +
			`, "c": ` + randomArgument(rng) + `}`
		if rng.IntN(4) == 0 {
			schema += `, "allOf": [{"properties": {"z": ` + randomArgument(rng) + `}}]`
		}
		schema += `, "$defs": {"d": ` + randomArgument(rng) + `}}`
		tools := []Tool{{Name: "f", Parameters: json.RawMessage(schema), Strict: true}}
		g, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required})
		if err != nil {
			continue
		}
		compiled++
		validator := assertingValidator(t, schema)
		s := newSampler(g, rng)
		for range 6 {
			text := s.Sample()
			if strings.ContainsRune(text, '\uFFFD') || huge.MatchString(text) {
				continue
			}
			res, err := harmony.Parse(text, &harmony.ParseOptions{Tools: []harmony.Tool{{Function: harmony.Function{Name: "f", Parameters: json.RawMessage(schema)}}}})
			if err != nil {
				if !strings.Contains(err.Error(), "appears twice") {
					t.Errorf("%s: %v\n%q", schema, err, text)
				}
				continue
			}
			if len(res.Message.ToolCalls) != 1 {
				t.Fatalf("%s: %d calls in %q", schema, len(res.Message.ToolCalls), text)
			}
			args := string(res.Message.ToolCalls[0].Function.Arguments)
			if d, err := pyjson.ParseBytes([]byte(args)); err != nil || hasDuplicateKey(d) {
				continue
			}
			samples++
			instance, err := unmarshalInstance(args)
			if err != nil {
				t.Fatal(err)
			}
			if err := validator.Validate(instance); err != nil && !strings.Contains(err.Error(), "leap second") {
				t.Errorf("%s: the call %q parses to %s, yet %v", schema, text, args, err)
			}
		}
	}
	t.Logf("%d of 1500 compiled, %d calls drawn, parsed and checked", compiled, samples)
	if compiled < 300 || samples < 1500 {
		t.Errorf("only %d compiled, %d calls", compiled, samples)
	}
}

// randomArgument is a tool property's schema of the shapes tools use (a
// type or two, bounds, an enum, variants of types, a $ref, an array or
// an object), or now and then randomSchemaOf's.
func randomArgument(rng *rand.Rand) string {
	values := func() string {
		var parts []string
		for range 1 + rng.IntN(4) {
			parts = append(parts, randomValue(rng, 1))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	types := []string{`"string"`, `"integer"`, `"number"`, `"boolean"`, `"null"`, `"array"`, `"object"`, `["string", "integer"]`, `["string", "null"]`, `["integer", "null"]`}
	switch rng.IntN(10) {
	case 0, 1:
		return `{"type": ` + types[rng.IntN(len(types))] + `}`
	case 2:
		return `{"type": ` + types[rng.IntN(len(types))] + `, "minimum": ` + strconv.Itoa(rng.IntN(3)) + `, "maxLength": 2}`
	case 3:
		return `{"enum": ` + values() + `}`
	case 4:
		return `{"type": ` + types[rng.IntN(len(types))] + `, "enum": ` + values() + `}`
	case 5:
		return `{"anyOf": [{"type": ` + types[rng.IntN(len(types))] + `}, {"type": ` + types[rng.IntN(len(types))] + `}]}`
	case 6:
		return `{"$ref": "#/$defs/d"` + []string{``, `, "type": "integer"`, `, "description": "x"`}[rng.IntN(3)] + `}`
	case 7:
		return `{"type": "array", "items": {"type": ` + types[rng.IntN(len(types))] + `}}`
	case 8:
		return `{"type": "object", "properties": {"x": {"type": ` + types[rng.IntN(len(types))] + `}}}`
	}
	return randomSchemaOf(rng, 1, false, true)
}

// Cases the random schemas found.
func TestStrictRandomFindings(t *testing.T) {
	// A dependentSchemas case that leaves its trigger out leaves out the
	// triggers of dependentRequired that require it (absentTriggers):
	// before, the case without b wrote b as a's dependent, unchecked.
	checkStrictExact(t, []contentCase{
		{"dependentRequired beside dependentSchemas", `{"dependentSchemas": {"b": {"additionalProperties": {"type": "string"}}}, "dependentRequired": {"a": ["b"]}}`,
			[]string{`{"b": "s"}`, `{"b": "s", "a": "s"}`, `{"c": 1}`}, []string{`{"b": 1}`, `{"b": [1]}`, `{"b": "s", "a": 1}`}},
	})
	// Names an object must not hold, beside propertyNames that allows
	// them: the keyword that asked is reported (before: nothing, and the
	// strict grammar held them).
	for _, c := range []struct{ schema, path string }{
		{`{"not": {"required": ["b"]}, "propertyNames": {"maxLength": 1}}`, "response_format.json_schema.schema.not"},
	} {
		checkReportedAt(t, c.schema, c.path)
	}
	// Names propertyNames rules out need nothing.
	checkStrictExact(t, []contentCase{
		{"a not of a name propertyNames rules out", `{"not": {"required": ["bb"]}, "propertyNames": {"maxLength": 1}}`,
			[]string{`{"b": 1}`, `{}`}, []string{`{"bb": 1}`}},
	})
	// A oneOf's variant is told apart by its listed values only against
	// the other variants as written, not through the oneOf that holds
	// them ($ref to it).
	for _, s := range []string{
		`{"multipleOf": 2, "$ref": "#/$defs/d", "$defs": {"d": {"oneOf": [{"enum": [true, 0]}, {"required": ["b"]}]}}}`,
		`{"$ref": "#/$defs/d", "$defs": {"d": {"oneOf": [{"allOf": [{"minimum": 1}]}, {"allOf": [{"const": "a"}]}]}}}`,
		// (and not through a pending anyOf's $ref back to the oneOf's
		// schema: "a" is valid for both variants)
		`{"anyOf": [{"$ref": "#/$defs/d"}], "$ref": "#/$defs/d", "$defs": {"d": {"maxLength": 1, "oneOf": [{"const": "a"}, {"properties": {"a": {"const": "a"}}}]}}}`,
	} {
		if _, err := compileFormat(s, true); err == nil || !strings.Contains(err.Error(), "oneOf") {
			t.Errorf("%s: a value is valid for two variants, yet %v", s, err)
		}
	}
	// Tool parameters that admit no object admit no call: a 400 naming
	// them, in both modes (before: arguments were written anyway). An
	// enum or const that lists no object says so as a type does (gap
	// decision 320; before, it was reported, an error under strict, and
	// any arguments written).
	for _, c := range []struct{ params, path string }{
		{`{"type": "integer"}`, ""},
		{`{"type": "object", "allOf": [{"type": "string"}]}`, ""},
		{`{"enum": ["GET", "PUT"]}`, ".enum"},
		{`{"const": "GET"}`, ".const"},
		{`{"const": null}`, ".const"},
		{`{"type": "object", "allOf": [{"enum": [1, [2]]}]}`, ".allOf[0].enum"},
		{`{"$ref": "#/$defs/m", "$defs": {"m": {"enum": ["a"]}}}`, ".$ref.enum"},
	} {
		for _, strict := range []bool{false, true} {
			_, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(c.params), Strict: strict}}, Choice: Required})
			var ge *Error
			if !errors.As(err, &ge) || ge.Path != "tools[0].function.parameters"+c.path || !strings.Contains(ge.Msg, "admits no object") {
				t.Errorf("%s (strict %v): %v", c.params, strict, err)
			}
		}
	}
	// An enum that lists an object is not such a case: reported as
	// before (an error under strict). Under strict, an anyOf's variant
	// that lists no object is no variant of the arguments (before: its
	// enum was refused).
	for _, strict := range []bool{false, true} {
		_, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(`{"enum": ["GET", {"a": 1}]}`), Strict: strict}}, Choice: Required})
		if (err != nil) != strict || err != nil && strings.Contains(err.Error(), "admits no object") {
			t.Errorf("an enum listing an object (strict %v): %v", strict, err)
		}
	}
	g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(`{"anyOf": [{"enum": ["a", "b"]}, {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"], "additionalProperties": false}]}`), Strict: true}}, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	checkArgs(t, g, []argCase{{xmlArg("x", "a"), true}, {"", false}})
	// A raw argument's whole number is not written as a float: the
	// parser casts "2.0" to a string where the property's type is an
	// integer's (an enum of 2), so the grammar leaves that spelling to
	// JSON values; "2" casts to a number for an enum of 2.0 too.
	params := `{"type": "object", "properties": {"b": {"enum": [2, "x"]}, "c": {"enum": [2.0]}}}`
	g, err = Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(params), Strict: true}}, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	checkArgs(t, g, []argCase{{xmlArg("b", "2"), true}, {xmlArg("b", "2.0"), false}, {xmlArg("b", "x"), true}, {xmlArg("c", "2.0"), true}, {xmlArg("c", "2"), true}})
	// A not of required with a keyword written twice is not read (before:
	// both were, where JSON readers keep the last, and an object lacking
	// a was let through); enums beside each other keep the values they
	// share by value (before: by spelling, so 1.0 and 1 met nothing); and
	// unevaluatedProperties applies to the names dependentRequired relates
	// too (before: written unchecked).
	checkReportedAt(t, `{"not": {"required": ["a", "c"], "type": "object", "required": ["b"]}}`, "response_format.json_schema.schema.not")
	checkStrictExact(t, []contentCase{
		{"enums intersected by value", `{"allOf": [{"enum": [1.0, "a"]}, {"enum": [1, "b"]}]}`,
			[]string{`1.0`, `1`}, []string{`"a"`, `"b"`}},
		{"unevaluatedProperties beside dependentRequired", `{"dependentRequired": {"a": ["b"]}, "unevaluatedProperties": {"type": "object"}}`,
			[]string{`{"b": {}}`, `{"b": {}, "a": {}}`, `{}`}, []string{`{"b": "b"}`, `{"b": {}, "a": 1}`}},
	})
	// A listed array or object beside unevaluatedItems or
	// unevaluatedProperties: not checked against them (decision 207's
	// check leaves them undecided), so reported (before: written as
	// listed, unchecked, with nothing reported).
	for _, c := range []struct{ schema, path string }{
		{`{"const": ["ba", "ab"], "unevaluatedItems": {"const": null}}`, "response_format.json_schema.schema.unevaluatedItems"},
		{`{"enum": [{"b": 1}, 2], "unevaluatedProperties": {"type": "string"}}`, "response_format.json_schema.schema.unevaluatedProperties"},
		// (and the counts beside them, which the listed values were not
		// checked against either: before, left out silently)
		{`{"enum": [{"a": 1}], "maxProperties": 1, "unevaluatedProperties": false}`, "response_format.json_schema.schema.maxProperties"},
		{`{"enum": [[1, 2]], "uniqueItems": true, "unevaluatedItems": false}`, "response_format.json_schema.schema.uniqueItems"},
	} {
		checkReportedAt(t, c.schema, c.path)
	}
	// A listed value of another type is not affected.
	checkStrictExact(t, []contentCase{{"unevaluatedItems beside listed strings", `{"enum": ["a", "b"], "unevaluatedItems": false}`, []string{`"a"`}, []string{`[]`}}})
	// A dependentSchemas schema that refers back to the schema holding it
	// applies it to the same object again without end: a 400 naming the
	// $ref, as other cycles through no object or array are (before: read
	// as the schema once, where validators fail the instance).
	for _, schema := range []string{`{"dependentSchemas": {"b": {"$ref": "#"}}}`, `{"$ref": "#/$defs/d", "$defs": {"d": {"dependentSchemas": {"b": {"$ref": "#"}}}}}`} {
		if _, err := compileFormat(schema, false); err == nil || !strings.Contains(err.Error(), ".dependentSchemas.b.$ref: refers to itself") {
			t.Errorf("%s: %v", schema, err)
		}
	}
	// Parts no finite value satisfies are left out of the grammar (an
	// engine could enter them and never close the value): here only {}
	// is finite, each member's value having to hold another member.
	g, err = compileFormat(`{"type": "object", "unevaluatedProperties": {"minProperties": 1, "$ref": "#"}}`, true)
	if err != nil {
		t.Fatal(err)
	}
	entered := analysisPrefix + finalHeader + `{"a": {"b": `
	if !g.Matches(analysisPrefix+finalHeader+`{}`) || g.furthestMatch(entered) == len(entered) {
		t.Errorf("the unending members are in the grammar:\n%s", g.GBNF())
	}
}

// A raw argument is written only as the parser reads it back (decision
// 209): the types its declaration shows, strings that don't spell another
// of those types, and a property the declaration does not show (an
// allOf's) only as a string.
func TestArgumentsAsParsed(t *testing.T) {
	compile := func(params string, strict bool) (*Grammar, error) {
		return Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(params), Strict: strict}}, Choice: Required})
	}
	for _, c := range []struct {
		params string
		cases  []argCase
	}{
		// enum of "3" and 4: the text 3 is read as the integer 3.
		{`{"type": "object", "properties": {"n": {"enum": ["3", 4, "x"]}}}`,
			[]argCase{{xmlArg("n", "4"), true}, {xmlArg("n", "x"), true}, {xmlArg("n", "3"), false}}},
		// a string or an integer, unconstrained: 3 is the integer 3, valid.
		{`{"type": "object", "properties": {"n": {"type": ["string", "integer"]}}}`,
			[]argCase{{xmlArg("n", "3"), true}, {xmlArg("n", "x"), true}}},
		// 1.0 listed where the cast is an integer's (type or const
		// decides): the parser reads the text 1.0 as the string "1.0", so
		// only 1 is written (decision 308).
		{`{"type": "object", "properties": {"n": {"type": "integer", "allOf": [{"enum": [1.0, 3]}]}, "m": {"const": 1, "allOf": [{"enum": [true, 1.0]}]}}}`,
			[]argCase{{xmlArg("n", "1"), true}, {xmlArg("n", "1.0"), false}, {xmlArg("n", "3"), true}, {xmlArg("m", "1"), true}, {xmlArg("m", "1.0"), false}}},
		// where the enum decides, 1.0 is a number's: the text 1.0 is the
		// number 1.0.
		{`{"type": "object", "properties": {"n": {"type": "integer", "enum": [1.0, 3]}}}`,
			[]argCase{{xmlArg("n", "1"), true}, {xmlArg("n", "1.0"), true}}},
		// a string or an integer of at least 5: the text 3 is the integer
		// 3, so no string is written so (decision 306; reported before).
		{`{"type": "object", "properties": {"n": {"type": ["string", "integer"], "minimum": 5}}}`,
			[]argCase{{xmlArg("n", "7"), true}, {xmlArg("n", "x"), true}, {xmlArg("n", "3"), false}}},
	} {
		g, err := compile(c.params, true)
		if err != nil {
			t.Errorf("%s: %v", c.params, err)
			continue
		}
		checkArgs(t, g, c.cases)
	}
	for _, c := range []struct{ params, path string }{
		// shown as an object ($ref decides), written as an integer: read
		// as the string "3".
		{`{"type": "object", "properties": {"n": {"type": "integer", "$ref": "#/$defs/o"}}, "$defs": {"o": {"type": "object"}}}`, "tools[0].function.parameters.properties.n"},
		// a property only an allOf declares is not shown: read as a string.
		{`{"type": "object", "allOf": [{"properties": {"n": {"type": "integer"}}}]}`, "tools[0].function.parameters.allOf[0].properties.n"},
	} {
		var ge *Error
		if _, err := compile(c.params, true); !errors.As(err, &ge) || ge.Path != c.path {
			t.Errorf("%s: strict: %v, want an error at %s", c.params, err, c.path)
		}
		g, err := compile(c.params, false)
		if err != nil || !slices.ContainsFunc(g.Dropped, func(d Dropped) bool { return strings.HasPrefix(d.Path, c.path) }) {
			t.Errorf("%s: not strict: %v %v", c.params, g, err)
		}
	}
}
