package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	harmony "github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// A raw argument's text is read back as the first type of its property
// that it spells (decision 209). Decision 306: a string branch leaves out
// the texts read as a type that its view constrains, or admits no value
// of unless every value of that type is valid for the argument; and an
// untyped argument that constrains anything takes the values of every
// type, its strings raw and the others as JSON.
func TestRawArgumentsMisread(t *testing.T) {
	for _, c := range []struct {
		param string
		cases []argCase // strict and not, with nothing reported
		// reported, when set, is the path reported when not strict,
		// which then holds cases' texts in the grammar.
		reported string
	}{
		// allOf does not decide the cast (cast.go reads any type): 1 is
		// read as the integer 1, invalid.
		{param: `{"allOf": [{"type": "string"}]}`,
			cases: []argCase{{xmlArg("a", "x"), true}, {xmlArg("a", "12ab"), true}, {xmlArg("a", "<b>1</b>"), true}, {xmlArg("a", "<|start|>"), false}, {xmlArg("a", "1"), false}, {xmlArg("a", "null"), false}, {xmlArg("a", "true"), false}, {xmlArg("a", "[]"), false}, {xmlArg("a", "{}"), false}, {xmlArg("a", " 2.5"), false}}},
		// what is not a string matches the pattern, so not the not
		// (enforced under strict only, decision 198).
		{param: `{"not": {"pattern": "^a"}}`,
			cases:    []argCase{{xmlArg("a", "x"), true}, {xmlArg("a", "ab"), false}, {xmlArg("a", "1"), false}, {xmlArg("a", "null"), false}},
			reported: "tools[0].function.parameters.properties.a.not"},
		// 3 is read as an integer, below the second variant's minimum.
		{param: `{"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 10}]}`,
			cases: []argCase{{xmlArg("a", "x"), true}, {xmlArg("a", "null"), true}, {xmlArg("a", "10"), true}, {xmlArg("a", "3"), false}, {xmlArg("a", "-0"), false}}},
		// [1] is read as an array, whose items must be strings. The
		// strings that are not left out are raw text, "<" and all, the
		// markers and the closing tag kept out.
		{param: `{"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}`,
			cases: []argCase{{xmlArg("a", "x"), true}, {xmlArg("a", `["x"]`), true}, {xmlArg("a", "3"), true}, {xmlArg("a", "[1]"), false}, {xmlArg("a", " [true]"), false},
				{xmlArg("a", "<b>"), true}, {xmlArg("a", "a </b> <<|x"), true}, {xmlArg("a", "x<|end|>"), false}, {xmlArg("a", "<|call|>"), false}, {xmlArg("a", "a</rfl:parameter>"), false}}},
		{param: `{"type": ["string", "array"], "items": {"type": "string"}}`,
			cases: []argCase{{xmlArg("a", "x"), true}, {xmlArg("a", `["x"]`), true}, {xmlArg("a", "[1]"), false}}},
		{param: `{"type": ["string", "integer"], "minimum": 5}`,
			cases: []argCase{{xmlArg("a", "x"), true}, {xmlArg("a", "7"), true}, {xmlArg("a", "3"), false}, {xmlArg("a", "3.5"), true}}},
		// every null and integer is valid: nothing left out.
		{param: `{"anyOf": [{"type": "string", "maxLength": 4}, {"type": "null"}, {"type": "integer"}]}`,
			cases: []argCase{{xmlArg("a", "null"), true}, {xmlArg("a", "3"), true}, {xmlArg("a", "x"), true}, {xmlArg("a", "12345"), true}, {xmlArg("a", "abcde"), false}}},
		{param: `{"oneOf": [{"type": "string"}, {"type": "null"}]}`,
			cases: []argCase{{xmlArg("a", "null"), true}, {xmlArg("a", "x"), true}}},
		// untyped, its strings constrained: a text of another type is
		// that value, valid whatever its length.
		{param: `{"maxLength": 1}`,
			cases: []argCase{{xmlArg("a", "x"), true}, {xmlArg("a", "xy"), false}, {xmlArg("a", "null"), true}, {xmlArg("a", "[1, 2]"), true}, {xmlArg("a", "{}"), true}, {xmlArg("a", "-10.5"), true}, {xmlArg("a", "false"), true}}},
		{param: `{"pattern": "^a", "description": "d"}`,
			cases: []argCase{{xmlArg("a", "ab"), true}, {xmlArg("a", "b"), false}, {xmlArg("a", "5"), true}, {xmlArg("a", "true"), true}}},
		// untyped, its numbers or objects constrained.
		{param: `{"minimum": 1}`,
			cases: []argCase{{xmlArg("a", "1"), true}, {xmlArg("a", "0"), false}, {xmlArg("a", "x"), true}, {xmlArg("a", "null"), true}}},
		{param: `{"required": ["x"]}`,
			cases:    []argCase{{xmlArg("a", `{"x": 1}`), true}, {xmlArg("a", "{}"), false}, {xmlArg("a", "x"), true}, {xmlArg("a", "3"), true}, {xmlArg("a", "{x"), false}},
			reported: "tools[0].function.parameters.properties.a.additionalProperties"}, // the closed default (decision 103)
	} {
		params := `{"type": "object", "properties": {"a": ` + c.param + `}, "additionalProperties": false}`
		for _, strict := range []bool{true, false} {
			g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(params), Strict: strict}}, Choice: Required})
			switch {
			case err != nil:
				t.Errorf("%s: strict %v: %v", c.param, strict, err)
			case !strict && c.reported != "":
				if !slices.ContainsFunc(g.Dropped, func(d Dropped) bool { return d.Path == c.reported }) {
					t.Errorf("%s: not strict: reported %v, want %s", c.param, g.Dropped, c.reported)
				}
			case len(g.Dropped) > 0:
				t.Errorf("%s: strict %v: reported %v", c.param, strict, g.Dropped)
			default:
				checkArgs(t, g, c.cases)
			}
		}
	}
}

// Random argument objects rendered as calls by the renderer, against the
// strict grammar of random tool parameters (now and then with an anyOf of
// required names at the root), and the grammar not strict
// where it reports nothing: a call in the grammar parses back (casting by
// the parameters) to valid arguments, with no warning but an argument's
// that the declaration does not show; and the call of valid arguments is
// in the grammar, but for the documented exceptions (a whole number
// written as 1.0, decision 184; an object inside an argument, closed by
// default, its members in the declared order) and for the values the
// parser warns on (a type or an argument the declaration does not show,
// decision 209).
func TestToolArgumentsAgainstValidator(t *testing.T) {
	compiled, checked, valid, matched := 0, 0, 0, 0
	for i := range 2000 {
		for _, strict := range []bool{true, false} {
			rng := rand.New(rand.NewPCG(uint64(i), 306))
			// The parameters: properties at the root, behind a $ref, only
			// in an allOf (not shown: read as strings), or beside an
			// additionalProperties schema (for the argument x).
			props := `"properties": {"a": ` + misreadArgument(rng) + `, "b": ` + randomArgument(rng) + `, "c": ` + randomArgument(rng) + `}`
			var schema, defs string
			switch rng.IntN(4) {
			case 0:
				schema, defs = `{"$ref": "#/$defs/P"`, `"P": {"type": "object", `+props+`}, `
			case 1:
				schema = `{"type": "object", "allOf": [{` + props + `}]`
			case 2:
				schema = `{"type": "object", ` + props + `, "additionalProperties": ` + misreadArgument(rng)
			default:
				schema = `{"type": "object", ` + props
			}
			var required []string
			for _, k := range []string{`"a"`, `"b"`, `"c"`} {
				if rng.IntN(3) == 0 {
					required = append(required, k)
				}
			}
			if len(required) > 0 {
				schema += `, "required": [` + strings.Join(required, ", ") + `]`
			}
			if rng.IntN(3) == 0 && !strings.Contains(schema, "additionalProperties") {
				schema += `, "additionalProperties": false`
			}
			if rng.IntN(5) == 0 {
				// (decision 307; a oneOf for odd seeds, decision 310)
				schema += `, "` + []string{"anyOf", "oneOf"}[i%2] + `": [{"required": ["a"]}, {"required": ["b", "c"]}]`
			}
			schema += `, "$defs": {` + defs + `"d": ` + randomArgument(rng) + `}}`
			g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(schema), Strict: strict}}, Choice: Required})
			if err != nil || (!strict && len(g.Dropped) > 0) {
				continue
			}
			compiled++
			validator := assertingValidator(t, schema)
			tools := []harmony.Tool{{Function: harmony.Function{Name: "f", Parameters: json.RawMessage(schema)}}}
			for range 12 {
				var parts []string
				for _, k := range []string{"a", "b", "c", "x"} {
					if rng.IntN(2) == 0 {
						parts = append(parts, strconv.Quote(k)+": "+randomValue(rng, 2))
					}
				}
				args := "{" + strings.Join(parts, ", ") + "}"
				call := harmony.ToolCall{Function: harmony.FunctionCall{Name: "f", Arguments: json.RawMessage(args)}}
				text := renderCall(t, "r", []harmony.ToolCall{call}, []Tool{{Name: "f", Parameters: json.RawMessage(schema)}})
				in := g.Matches(text)
				res, err := harmony.Parse(text, &harmony.ParseOptions{Tools: tools})
				if err != nil {
					t.Fatalf("%s: %q: %v", schema, text, err)
				}
				checked++
				if in {
					matched++
				}
				// An argument the declaration does not show (x beside no
				// additionalProperties, a property only an allOf declares)
				// is read as a string, with a warning that it is not in the
				// schema; any other warning is a value that fits none of
				// its declared types, which the grammar never holds.
				undeclared := false
				for _, w := range res.Warnings {
					if !strings.Contains(w.Msg, "is not in the tool's schema") {
						if in {
							t.Errorf("seed %d (strict %v): %s: %q is in the grammar, yet the parser warns: %v", i, strict, schema, text, w)
						}
						undeclared = false
						break
					}
					undeclared = true
				}
				if len(res.Warnings) > 0 && !undeclared {
					continue
				}
				instance, err := unmarshalInstance(args)
				if err != nil {
					t.Fatal(err)
				}
				if validator.Validate(instance) == nil {
					valid++
					if !in && !undeclared && !strings.Contains(args, ".0") && !strings.Contains(args[1:], "{") {
						t.Errorf("seed %d (strict %v): %s: %s is valid, yet its call is not in the grammar:\n%q", i, strict, schema, args, text)
					}
				}
				if !in {
					continue
				}
				back := string(res.Message.ToolCalls[0].Function.Arguments)
				if d, err := pyjson.ParseBytes([]byte(back)); err != nil || hasDuplicateKey(d) {
					continue
				}
				if instance, err = unmarshalInstance(back); err != nil {
					t.Fatal(err)
				}
				if err := validator.Validate(instance); err != nil {
					t.Errorf("seed %d (strict %v): %s: the call of %s is in the grammar, yet parses back to %s: %v", i, strict, schema, args, back, err)
				}
			}
		}
	}
	t.Logf("%d grammars, %d calls: %d of valid arguments, %d in the grammar", compiled, checked, valid, matched)
	if compiled < 900 || valid < 700 {
		t.Errorf("only %d grammars, %d calls of valid arguments", compiled, valid)
	}
}

// misreadArgument is randomArgument's schema, or half the time one whose
// raw texts the parser may read as another type than it admits: behind an
// allOf (which does not decide the cast), a string beside a bounded
// number, a not of a pattern, or constrained strings alone.
func misreadArgument(rng *rand.Rand) string {
	switch rng.IntN(8) {
	case 0:
		return `{"allOf": [` + randomArgument(rng) + `]}`
	case 1:
		return `{"anyOf": [{"type": "string"` + []string{``, `, "maxLength": 2`}[rng.IntN(2)] + `}, {"type": ` + []string{`"integer"`, `"number"`}[rng.IntN(2)] + `, "minimum": ` + strconv.Itoa(rng.IntN(3)) + `}]}`
	case 2:
		return `{"not": {"pattern": "^a"}}`
	case 3:
		return []string{`{"maxLength": 2}`, `{"pattern": "^a"}`, `{"minLength": 2}`}[rng.IntN(3)]
	}
	return randomArgument(rng)
}

// A raw argument's pattern whose end matches everything (^a, unanchored)
// writes that tail as the raw text itself: "<" allowed there, the markers
// and the closing tag kept out (decision 306). Before the tail, and in a
// bounded raw string, "<" stays out (decision 129).
func TestRawPatternTail(t *testing.T) {
	for _, c := range []struct {
		param string
		cases []argCase
	}{
		{`{"type": "string", "pattern": "^a"}`, []argCase{
			{xmlArg("a", "ab"), true}, {xmlArg("a", "a</b>"), true}, {xmlArg("a", "a<"), true}, {xmlArg("a", "a <<|x"), true},
			{xmlArg("a", "x"), false}, {xmlArg("a", "<a"), false}, {xmlArg("a", "a<|end|>"), false}, {xmlArg("a", "a</rfl:parameter>"), false},
		}},
		{`{"type": "string", "pattern": "^git "}`, []argCase{
			{xmlArg("a", "git log > out < in"), true}, {xmlArg("a", "git <|call|>"), false}, {xmlArg("a", "gi"), false},
		}},
		{`{"type": "string", "pattern": "^a.*z$"}`, []argCase{{xmlArg("a", "abz"), true}, {xmlArg("a", "a<z"), false}}}, // (decision 129)
	} {
		params := `{"type": "object", "properties": {"a": ` + c.param + `}, "required": ["a"], "additionalProperties": false}`
		for _, strict := range []bool{true, false} {
			g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(params), Strict: strict}}, Choice: Required})
			if err != nil || len(g.Dropped) > 0 {
				t.Errorf("%s: strict %v: %v", c.param, strict, err)
				continue
			}
			checkArgs(t, g, c.cases)
		}
	}
}

// Under strict, an anyOf of the parameters' root is the choice of its
// variants' arguments (decision 307): "a or b required" beside the root's
// properties is exact. A property only a variant declares
// is not shown, so read back as a string: its type is reported, as for an
// allOf's (decision 209).
func TestArgumentsRootAnyOf(t *testing.T) {
	params := `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}], "additionalProperties": false}`
	cases := []argCase{
		{"", false}, {xmlArg("a", "x"), true}, {xmlArg("b", "3"), true}, {xmlArg("a", "x") + "\n" + xmlArg("b", "3"), true},
		{xmlArg("b", "x"), false}, {xmlArg("c", "x"), false},
	}
	g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(params), Strict: true}}, Choice: Required})
	if err != nil || len(g.Dropped) > 0 {
		t.Fatalf("strict: %v %v", err, g)
	}
	checkArgs(t, g, cases)
	// Not strict, reported as before.
	g, err = Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(params)}}, Choice: Required})
	if err != nil || !slices.ContainsFunc(g.Dropped, func(d Dropped) bool { return d.Path == "tools[0].function.parameters.anyOf" }) {
		t.Errorf("not strict: %v %v", err, g)
	}
	shown := `{"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"properties": {"c": {"type": "integer"}}, "required": ["c"]}, {"required": ["a"]}]}`
	var ge *Error
	if _, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(shown), Strict: true}}, Choice: Required}); !errors.As(err, &ge) || !strings.HasPrefix(ge.Path, "tools[0].function.parameters.anyOf[0].properties.c") {
		t.Errorf("a variant's own property: %v", err)
	}
}

// Under strict, a oneOf of the parameters' root whose variants are told
// apart by the names an object holds and lacks, or by a discriminator, is
// the choice of each variant's cases, written as arguments (decision 310;
// refused under strict before): "a or b, not both", "an action and its
// own arguments". Variants told apart otherwise (by
// their values' types) stay an error under strict, and not strict the
// oneOf stays reported.
func TestArgumentsRootOneOf(t *testing.T) {
	a, b, c, x := xmlArg("a", "s"), xmlArg("b", "3"), xmlArg("c", "t"), xmlArg("x", "4")
	for _, tc := range []struct {
		name, params string
		cases        []argCase
	}{
		{"required", `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}], "additionalProperties": false}`,
			[]argCase{{"", false}, {a, true}, {b, true}, {a + "\n" + b, false}, {xmlArg("b", "s"), false}, {c, false}}},
		{"not required", `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "string"}}, "oneOf": [{"required": ["a"], "not": {"required": ["b"]}}, {"required": ["b"], "not": {"required": ["a"]}}], "additionalProperties": false}`,
			[]argCase{{"", false}, {a, true}, {b + "\n" + c, true}, {a + "\n" + b, false}, {c, false}}},
		{"closed variants", `{"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "oneOf": [{"properties": {"a": {}, "b": {}}, "additionalProperties": false}, {"properties": {"c": {}}, "required": ["c"], "additionalProperties": false}]}`,
			[]argCase{{"", true}, {a + "\n" + b, true}, {c, true}, {a + "\n" + c, false}, {x, false}}},
		{"discriminator", `{"type": "object", "properties": {"shape": {"type": "string"}, "r": {"type": "number"}, "side": {"type": "number"}}, "oneOf": [{"properties": {"shape": {"const": "circle"}}, "required": ["r"]}, {"properties": {"shape": {"const": "square"}}, "required": ["side"]}]}`,
			[]argCase{{xmlArg("shape", "circle") + "\n" + xmlArg("r", "1"), true}, {xmlArg("r", "1"), true}, {xmlArg("r", "1") + "\n" + xmlArg("side", "2"), false},
				{xmlArg("shape", "square") + "\n" + xmlArg("r", "1") + "\n" + xmlArg("side", "2"), true}, {xmlArg("shape", "circle") + "\n" + xmlArg("side", "2"), false}}},
		{"required discriminator", `{"type": "object", "properties": {"action": {"type": "string", "enum": ["create", "delete"]}, "name": {"type": "string"}, "id": {"type": "string"}}, "required": ["action"], "oneOf": [{"properties": {"action": {"const": "create"}}, "required": ["name"]}, {"properties": {"action": {"const": "delete"}}, "required": ["id"]}], "additionalProperties": false}`,
			[]argCase{{xmlArg("action", "create") + "\n" + xmlArg("name", "n"), true}, {xmlArg("action", "delete") + "\n" + xmlArg("id", "3"), true},
				{xmlArg("action", "create") + "\n" + xmlArg("id", "3"), false}, {xmlArg("name", "n"), false}}},
		{"closed variants sharing a name", `{"type": "object", "properties": {"page": {"type": "string"}, "option": {"type": "string"}, "regex": {"type": "string"}}, "oneOf": [{"properties": {"page": {}, "option": {}}, "required": ["page"], "additionalProperties": false}, {"properties": {"page": {}, "regex": {}}, "required": ["page"], "additionalProperties": false}]}`,
			[]argCase{{xmlArg("page", "p") + "\n" + xmlArg("option", "o"), true}, {xmlArg("page", "p") + "\n" + xmlArg("regex", "r"), true}, {xmlArg("page", "p"), false},
				{xmlArg("page", "p") + "\n" + xmlArg("option", "o") + "\n" + xmlArg("regex", "r"), false}, {xmlArg("option", "o"), false}}},
		{"free arguments", `{"type": "object", "additionalProperties": {"type": "integer"}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}`,
			[]argCase{{xmlArg("a", "1"), true}, {b, true}, {xmlArg("a", "1") + "\n" + x, true}, {xmlArg("a", "1") + "\n" + b, false}, {x, false}, {a, false}}},
	} {
		g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(tc.params), Strict: true}}, Choice: Required})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(g.Dropped) > 0 {
			t.Errorf("%s: reported %v", tc.name, g.Dropped)
		}
		t.Run(tc.name, func(t *testing.T) { checkArgs(t, g, tc.cases) })
		g, err = Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(tc.params)}}, Choice: Required})
		if err != nil || !slices.ContainsFunc(g.Dropped, func(d Dropped) bool { return d.Path == "tools[0].function.parameters.oneOf" }) {
			t.Errorf("%s, not strict: %v", tc.name, err)
		}
	}
	var ge *Error
	for _, typed := range []string{
		`{"type": "object", "oneOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"properties": {"a": {"type": "string"}}, "required": ["a"]}]}`,
		// closed variants told apart by a value's kind (decision 311): an
		// argument is read back by its declared schema, not its variant's
		`{"type": "object", "properties": {"v": {"type": ["integer", "string"]}}, "oneOf": [{"properties": {"v": {"type": "integer", "minimum": 0}}, "additionalProperties": false}, {"properties": {"v": {"type": "string", "maxLength": 3}}, "additionalProperties": false}]}`,
	} {
		if _, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(typed), Strict: true}}, Choice: Required}); !errors.As(err, &ge) || ge.Path != "tools[0].function.parameters.oneOf" {
			t.Errorf("variants told apart by types: %s: %v", typed, err)
		}
	}
}

// Under strict, a tool's parameters with if/then/else of their members
// are a choice of cases, each its arguments (gap decision 330), as a
// response format's object is (decisions 206 to 329). Against a JSON
// Schema validator: the call of valid arguments is in the grammar, and a
// call in the grammar parses back to valid arguments (a case that leaves
// an argument's null out leaves out the raw text null too, which the
// parser reads as null); random discriminators and conditions of presence
// over three names, some negated or requiring their name.
func TestIfCasesAsArgumentsAgainstValidator(t *testing.T) {
	names := []string{"k", "j", "h"}
	vals := []string{`"p"`, `"q"`, `null`}
	branches := []string{`{"required": ["a"]}`, `{"properties": {"b": false}}`, `{"not": {"required": ["a"]}}`, `{"properties": {"j": {"const": null}}}`, `{"properties": {"k": {"const": "q"}}}`, `{"maxProperties": 3}`}
	compiled, valid, matched := 0, 0, 0
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 330))
		schema := `{"type": "object", "properties": {"k": {"type": ["string", "null"]}, "j": {"enum": ["p", "q", null]}, "h": {"type": "string"}, "a": {"type": "string"}, "b": {"type": "integer"}}`
		if rng.IntN(3) == 0 {
			schema = strings.Replace(schema, `"type": "object", `, "", 1)
		}
		if rng.IntN(4) == 0 {
			schema += `, "required": [` + strconv.Quote(names[rng.IntN(3)]) + `]`
		}
		var conds []string
		for range 1 + rng.IntN(3) {
			conds = append(conds, randomNameCondition(rng, names, vals, branches))
		}
		schema += `, "allOf": [` + strings.Join(conds, ", ") + `]}`
		g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(schema), Strict: true}}, Choice: Required})
		if err != nil {
			// Refused as impossible, or naming what strict can't enforce:
			// a name's values beside its presence (decision 326), a not
			// of required in an argument list.
			if !strings.Contains(err.Error(), "can be written") && !strings.Contains(err.Error(), "no value satisfies") &&
				!strings.Contains(err.Error(), ".if: the keyword if can't") && !strings.Contains(err.Error(), ".not: the keyword not can't") {
				t.Errorf("%s: %v", schema, err)
			}
			continue
		}
		compiled++
		validator := assertingValidator(t, schema)
		tools := []harmony.Tool{{Function: harmony.Function{Name: "f", Parameters: json.RawMessage(schema)}}}
		for range 20 {
			var parts []string
			for _, n := range names {
				if rng.IntN(2) == 0 {
					v := append(slices.Clone(vals), `"t"`)[rng.IntN(len(vals)+1)]
					if n == "h" && v == `null` {
						v = `"p"`
					}
					parts = append(parts, strconv.Quote(n)+": "+v)
				}
			}
			if rng.IntN(2) == 0 {
				parts = append(parts, `"a": "s"`)
			}
			if rng.IntN(2) == 0 {
				parts = append(parts, `"b": `+strconv.Itoa(rng.IntN(3)))
			}
			args := "{" + strings.Join(parts, ", ") + "}"
			call := harmony.ToolCall{Function: harmony.FunctionCall{Name: "f", Arguments: json.RawMessage(args)}}
			text := renderCall(t, "r", []harmony.ToolCall{call}, []Tool{{Name: "f", Parameters: json.RawMessage(schema)}})
			in := g.Matches(text)
			res, err := harmony.Parse(text, &harmony.ParseOptions{Tools: tools})
			if err != nil {
				t.Fatal(err)
			}
			instance, err := unmarshalInstance(args)
			if err != nil {
				t.Fatal(err)
			}
			if validator.Validate(instance) == nil {
				valid++
				if !in {
					t.Errorf("%s: %s is valid, yet its call is not in the grammar", schema, args)
				}
			}
			if in {
				matched++
				back := string(res.Message.ToolCalls[0].Function.Arguments)
				if instance, err = unmarshalInstance(back); err != nil {
					t.Fatal(err)
				}
				if err := validator.Validate(instance); err != nil {
					t.Errorf("%s: the call of %s is in the grammar, yet parses back to %s: %v", schema, args, back, err)
				}
			}
		}
	}
	t.Logf("%d grammars, %d calls of valid arguments, %d in the grammar", compiled, valid, matched)
	if compiled < 120 || valid < 1200 {
		t.Errorf("only %d grammars, %d calls of valid arguments", compiled, valid)
	}
}
