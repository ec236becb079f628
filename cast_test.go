package harmony_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// castCase parses one argument of a tool whose property v has the schema
// and compares the arguments' JSON.
type castCase struct {
	name   string
	schema string // the property's schema
	raw    string // the text between the parameter's newlines
	want   string // the value's JSON in the arguments
	warn   bool   // the value fits none of the types
}

var castCases = []castCase{
	{"string keeps digits", `{"type": "string"}`, "3", `"3"`, false},
	{"string keeps null", `{"type": "string"}`, "null", `"null"`, false},
	{"string keeps spaces", `{"type": "string"}`, " x ", `" x "`, false},
	{"string keeps TRUE", `{"type": "string"}`, "TRUE", `"TRUE"`, false},
	{"integer", `{"type": "integer"}`, "3", `3`, false},
	{"integer ignores surrounding whitespace", `{"type": "integer"}`, " \t42\r ", `42`, false},
	{"integer negative", `{"type": "integer"}`, "-17", `-17`, false},
	{"integer minus zero is an integer literal", `{"type": "integer"}`, "-0", `-0`, false},
	{"integer huge keeps its digits", `{"type": "integer"}`, "123456789012345678901234567890", `123456789012345678901234567890`, false},
	{"integer rejects 3.0", `{"type": "integer"}`, "3.0", `"3.0"`, true},
	{"integer rejects leading zero", `{"type": "integer"}`, "02134", `"02134"`, true},
	{"integer rejects exponent", `{"type": "integer"}`, "1e3", `"1e3"`, true},
	{"integer rejects plus", `{"type": "integer"}`, "+3", `"+3"`, true},
	{"integer rejects empty", `{"type": "integer"}`, "", `""`, true},
	{"integer rejects words", `{"type": "integer"}`, "three", `"three"`, true},
	{"number keeps 3.0", `{"type": "number"}`, "3.0", `3.0`, false},
	{"number takes integers", `{"type": "number"}`, "3", `3`, false},
	{"number keeps exponent literal", `{"type": "number"}`, "1E5", `1E5`, false},
	{"number keeps underflow literal", `{"type": "number"}`, "-1e-400", `-1e-400`, false},
	{"number rejects overflow to infinity", `{"type": "number"}`, "1e400", `"1e400"`, true},
	{"number huge integer is exact", `{"type": "number"}`, "1" + strings.Repeat("0", 400), "1" + strings.Repeat("0", 400), false},
	{"number rejects NaN", `{"type": "number"}`, "NaN", `"NaN"`, true},
	{"number rejects Infinity", `{"type": "number"}`, "Infinity", `"Infinity"`, true},
	{"number rejects -Infinity", `{"type": "number"}`, "-Infinity", `"-Infinity"`, true},
	{"number rejects .5", `{"type": "number"}`, ".5", `".5"`, true},
	{"number rejects hex", `{"type": "number"}`, "0x10", `"0x10"`, true},
	{"number minus zero", `{"type": "number"}`, "-0", `-0`, false},
	{"boolean true", `{"type": "boolean"}`, "true", `true`, false},
	{"boolean false with space", `{"type": "boolean"}`, "false ", `false`, false},
	{"boolean rejects TRUE", `{"type": "boolean"}`, "TRUE", `"TRUE"`, true},
	{"boolean rejects Python True", `{"type": "boolean"}`, "True", `"True"`, true},
	{"null", `{"type": "null"}`, "null", `null`, false},
	{"null rejects None", `{"type": "null"}`, "None", `"None"`, true},
	{"object in Python style, literals kept", `{"type": "object"}`, `{"a":1,"b":[1.0,2e5,"x"]}`, `{"a": 1, "b": [1.0, 2e5, "x"]}`, false},
	{"object multiline", `{"type": "object"}`, "{\n  \"a\": null\n}", `{"a": null}`, false},
	{"object rejects array", `{"type": "object"}`, "[1]", `"[1]"`, true},
	{"object rejects invalid JSON", `{"type": "object"}`, "{a: 1}", `"{a: 1}"`, true},
	{"object rejects overflowing number", `{"type": "object"}`, `{"a": 1e400}`, `"{\"a\": 1e400}"`, true},
	{"object rejects NaN inside", `{"type": "object"}`, `{"a": NaN}`, `"{\"a\": NaN}"`, true},
	{"array", `{"type": "array", "items": {"type": "integer"}}`, `[1, "x", true]`, `[1, "x", true]`, false},
	{"array empty", `{"type": "array"}`, `[]`, `[]`, false},
	{"array rejects object", `{"type": "array"}`, `{}`, `"{}"`, true},
	{"array rejects trailing text", `{"type": "array"}`, `[1] x`, `"[1] x"`, true},
	{"integer|string keeps leading zero as string", `{"type": ["integer", "string"]}`, "02134", `"02134"`, false},
	{"integer|string casts digits", `{"type": ["integer", "string"]}`, "3", `3`, false},
	{"integer|string keeps 3.0 as string", `{"type": ["integer", "string"]}`, "3.0", `"3.0"`, false},
	{"string|integer tries integer first", `{"type": ["string", "integer"]}`, "3", `3`, false},
	{"integer|number takes 3.0 as number", `{"type": ["integer", "number"]}`, "3.0", `3.0`, false},
	{"string|null reads null", `{"type": ["string", "null"]}`, "null", `null`, false},
	{"string|null keeps text", `{"type": ["string", "null"]}`, "none", `"none"`, false},
	{"nullable string reads null", `{"type": "string", "nullable": true}`, "null", `null`, false},
	{"nullable integer", `{"type": "integer", "nullable": true}`, "null", `null`, false},
	{"number|null rejects words", `{"type": ["number", "null"]}`, "x", `"x"`, true},
	{"anyOf", `{"anyOf": [{"type": "integer"}, {"type": "string"}]}`, "7", `7`, false},
	{"anyOf string member", `{"anyOf": [{"type": "integer"}, {"type": "string"}]}`, "seven", `"seven"`, false},
	{"oneOf", `{"oneOf": [{"type": "boolean"}, {"type": "null"}]}`, "true", `true`, false},
	{"pydantic Optional[int]", `{"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null}`, "null", `null`, false},
	{"$ref to $defs", `{"$ref": "#/$defs/Count"}`, "5", `5`, false},
	{"$ref to $defs rejects words", `{"$ref": "#/$defs/Count"}`, "five", `"five"`, true},
	{"$ref recursive is any", `{"$ref": "#/$defs/Loop"}`, "5", `5`, false},
	{"$ref unresolvable is any", `{"$ref": "#/$defs/Missing"}`, "x", `"x"`, false},
	{"$ref nullable at property level", `{"$ref": "#/$defs/Count", "nullable": true}`, "null", `null`, false},
	{"enum of strings is a string", `{"type": "string", "enum": ["1", "2"]}`, "1", `"1"`, false},
	{"enum of integers", `{"enum": [1, 2]}`, "2", `2`, false},
	{"enum of integers rejects words", `{"enum": [1, 2]}`, "x", `"x"`, true},
	{"enum membership is not checked", `{"enum": [1, 2]}`, "3", `3`, false},
	{"enum mixed", `{"enum": [1.5, "x", null]}`, "null", `null`, false},
	{"enum empty admits nothing", `{"enum": []}`, "x", `"x"`, true},
	{"const", `{"const": true}`, "true", `true`, false},
	{"no type is any: number", `{}`, "3", `3`, false},
	{"no type is any: text", `{"description": "anything"}`, "hello", `"hello"`, false},
	{"no type is any: object", `{}`, `{"a": [1]}`, `{"a": [1]}`, false},
	{"unknown type name is any", `{"type": "file"}`, "true", `true`, false},
	{"properties without type is an object", `{"properties": {"a": {"type": "integer"}}}`, `{"a": 1}`, `{"a": 1}`, false},
	{"allOf without type is any", `{"allOf": [{"type": "integer"}]}`, "x", `"x"`, false},
	// Where the declaration writes "any", casting admits any value (these
	// drifted before the one schema walk, internal/schema).
	{"properties that are not an object is any", `{"properties": [1]}`, "3", `3`, false},
	{"an empty type list is any", `{"type": []}`, "3", `3`, false},
	{"an empty anyOf is any", `{"anyOf": []}`, "true", `true`, false},
	{"an empty oneOf is any, text kept", `{"oneOf": []}`, "x", `"x"`, false},
	{"string value with quotes and newlines", `{"type": "string"}`, "a \"b\"\n\\c", `"a \"b\"\n\\c"`, false},
}

func castTool(schema string) harmony.Tool {
	params := `{"type": "object", "properties": {"v": ` + schema + `}, "$defs": {"Count": {"type": "integer"}, "Loop": {"$ref": "#/$defs/Loop"}}}`
	return harmony.Tool{Type: "function", Function: harmony.Function{Name: "t", Parameters: json.RawMessage(params)}}
}

func castGeneration(raw string) string {
	return "<|channel|>analysis<|message|>x<|end|><|start|>assistant to=t<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"v\">\n" + raw + "\n</rfl:parameter><|call|>"
}

func TestCastBySchema(t *testing.T) {
	for _, tc := range castCases {
		t.Run(tc.name, func(t *testing.T) {
			opts := &harmony.ParseOptions{Tools: []harmony.Tool{castTool(tc.schema)}}
			gen := castGeneration(tc.raw)
			if o := replay(t, gen, opts); o.err != "" {
				t.Fatal(o.err)
			}
			res, err := harmony.Parse(gen, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := string(res.Message.ToolCalls[0].Function.Arguments)
			if want := `{"v": ` + tc.want + `}`; got != want {
				t.Errorf("arguments %s, want %s", got, want)
			}
			if warned := len(res.Warnings) > 0; warned != tc.warn {
				t.Errorf("warnings %q, want a warning: %v", res.Warnings, tc.warn)
			}
		})
	}
}

// Without tools every argument is a string; so are an unknown tool's and
// an unknown property's arguments, with a warning.
func TestCastWithoutSchema(t *testing.T) {
	gen := castGeneration("3")
	res, err := harmony.Parse(gen, nil)
	if err != nil || string(res.Message.ToolCalls[0].Function.Arguments) != `{"v": "3"}` || len(res.Warnings) != 0 {
		t.Errorf("no tools: %s %q %v", res.Message.ToolCalls[0].Function.Arguments, res.Warnings, err)
	}
	other := castTool(`{"type": "integer"}`)
	other.Function.Name = "other"
	res, _ = harmony.Parse(gen, &harmony.ParseOptions{Tools: []harmony.Tool{other}})
	if string(res.Message.ToolCalls[0].Function.Arguments) != `{"v": "3"}` || len(res.Warnings) != 1 ||
		!strings.Contains(res.Warnings[0].Msg, "unknown tool") {
		t.Errorf("unknown tool: %s %q", res.Message.ToolCalls[0].Function.Arguments, res.Warnings)
	}
	res, _ = harmony.Parse(strings.Replace(gen, `name="v"`, `name="w"`, 1),
		&harmony.ParseOptions{Tools: []harmony.Tool{castTool(`{"type": "integer"}`)}})
	if string(res.Message.ToolCalls[0].Function.Arguments) != `{"w": "3"}` || len(res.Warnings) != 1 ||
		!strings.Contains(res.Warnings[0].Msg, "not in the tool's schema") {
		t.Errorf("unknown property: %s %q", res.Message.ToolCalls[0].Function.Arguments, res.Warnings)
	}
}

// An argument the properties do not declare takes the additionalProperties
// schema, when that is a schema; without one it stays a string.
func TestCastAdditionalProperties(t *testing.T) {
	gen := "<|channel|>analysis<|message|>x<|end|><|start|>assistant to=t<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"a\">\n5\n</rfl:parameter>\n<rfl:parameter name=\"b\">\n5\n</rfl:parameter><|call|>"
	for _, c := range []struct{ params, want string }{
		{`{"type": "object", "additionalProperties": {"type": "integer"}}`, `{"a": 5, "b": 5}`},
		{`{"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}`, `{"a": "5", "b": 5}`},
		{`{"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": true}`, `{"a": 5, "b": "5"}`},
	} {
		tool := harmony.Tool{Function: harmony.Function{Name: "t", Parameters: json.RawMessage(c.params)}}
		opts := &harmony.ParseOptions{Tools: []harmony.Tool{tool}}
		if o := replay(t, gen, opts); o.err != "" {
			t.Fatal(o.err)
		}
		res, err := harmony.Parse(gen, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(res.Message.ToolCalls[0].Function.Arguments); got != c.want {
			t.Errorf("%s: arguments %s, want %s", c.params, got, c.want)
		}
	}
}
