package harmony_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// declare renders one tool named f with the given description and
// parameters (JSON) and returns its declaration.
func declare(t *testing.T, description, params string) (string, error) {
	t.Helper()
	tool := harmony.Tool{Type: "function", Function: harmony.Function{Name: "f", Description: description}}
	if params != "" {
		tool.Function.Parameters = json.RawMessage(params)
	}
	return harmony.DeclareTool(tool)
}

// props wraps property members in a parameters object with no required list.
func props(members string) string {
	return `{"type": "object", "properties": {` + members + `}}`
}

// decl is the declaration of tool f whose object body is lines.
func decl(lines ...string) string {
	return "type f = (_: {\n" + strings.Join(lines, "\n") + "\n}) => any;"
}

// Each row is one rule of DECISIONS.md "TypeScript declarations" (or a
// gap decision of docs/gap-decisions.md, marked "gap").
func TestTypeScriptRules(t *testing.T) {
	tests := []struct {
		name        string
		description string
		params      string
		want        string
	}{
		{"no parameters", "", "", "type f = () => any;"},
		{"null parameters", "", "null", "type f = () => any;"},
		{"no properties", "", `{"type": "object"}`, "type f = () => any;"},
		{"empty properties", "", `{"type": "object", "properties": {}}`, "type f = () => any;"},
		{"description lines, empty line as //", "First.\n\nThird.", "", "// First.\n//\n// Third.\ntype f = () => any;"},
		{"root schema description is not rendered", "", `{"type": "object", "description": "root", "properties": {"a": {"type": "string"}}}`,
			decl("a?: string,")},
		{"required has no ?", "", `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["b"]}`,
			decl("a?: string,", "b: string,")},
		{"properties keep their order", "", props(`"z": {"type": "string"}, "a": {"type": "string"}`),
			decl("z?: string,", "a?: string,")},
		{"integer and number are number", "", props(`"i": {"type": "integer"}, "n": {"type": "number"}`),
			decl("i?: number,", "n?: number,")},
		{"boolean and null", "", props(`"b": {"type": "boolean"}, "n": {"type": "null"}`),
			decl("b?: boolean,", "n?: null,")},
		{"title then // then description", "", props(`"a": {"type": "string", "title": "Title", "description": "Desc"}`),
			decl("// Title", "//", "// Desc", "a?: string,")},
		{"empty title and description are absent", "", props(`"a": {"type": "string", "title": "", "description": ""}`),
			decl("a?: string,")},
		{"gap: multi-line property description", "", props(`"a": {"type": "string", "description": "one\n\ntwo"}`),
			decl("// one", "//", "// two", "a?: string,")},
		{"examples as JSON, Python style", "", props(`"a": {"examples": ["x", {"k": [1, 2.50]}, null]}`),
			decl("// Examples:", `// - "x"`, `// - {"k": [1, 2.50]}`, "// - null", "a?: any,")},
		{"gap: examples not an array are ignored", "", props(`"a": {"type": "string", "examples": "x"}`),
			decl("a?: string,")},
		{"string default of a non-enum is JSON", "", props(`"a": {"type": "string", "default": "text"}`),
			decl(`a?: string, // default: "text"`)},
		{"string default of an enum is raw", "", props(`"a": {"enum": ["x", "y"], "default": "x"}`),
			decl(`a?: "x" | "y", // default: x`)},
		{"defaults as JSON", "", props(`"a": {"type": "number", "default": 1.5}, "b": {"type": "boolean", "default": false}, "c": {"default": null}, "d": {"type": "array", "default": [1, 2]}, "e": {"type": "object", "default": {"k": "v"}}`),
			decl("a?: number, // default: 1.5", "b?: boolean, // default: false", "c?: any, // default: null", "d?: any[], // default: [1, 2]", `e?: object, // default: {"k": "v"}`)},
		{"non-identifier names are JSON strings", "", props(`"my-key": {"type": "string"}, "$ok_1": {"type": "string"}, "1st": {"type": "string"}, "ñ": {"type": "string"}, "a\"b": {"type": "string"}`),
			decl(`"my-key"?: string,`, "$ok_1?: string,", `"1st"?: string,`, `"ñ"?: string,`, `"a\"b"?: string,`)},
		{"enum members as JSON literals", "", props(`"a": {"type": "integer", "enum": [1, 2]}, "b": {"enum": ["x", 1, null, true]}`),
			decl("a?: 1 | 2,", `b?: "x" | 1 | null | true,`)},
		{"repeated enum members are left out", "", props(`"a": {"enum": ["x", "x", "y"]}`), decl(`a?: "x" | "y",`)},
		{"gap: empty enum is never", "", props(`"a": {"enum": []}`), decl("a?: never,")},
		{"const", "", props(`"a": {"const": "only"}`), decl(`a?: "only",`)},
		{"enum wins over type", "", props(`"a": {"type": "string", "enum": ["x"]}`), decl(`a?: "x",`)},
		{"anyOf union", "", props(`"a": {"anyOf": [{"type": "string"}, {"type": "number"}]}`), decl("a?: string | number,")},
		{"oneOf union", "", props(`"a": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}`), decl("a?: string | boolean,")},
		{"Optional[X] is X | null", "", props(`"a": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null}`),
			decl("a?: number | null, // default: null")},
		{"variant descriptions are not rendered", "", props(`"a": {"anyOf": [{"type": "string", "description": "s"}, {"type": "number", "description": "n"}]}`),
			decl("a?: string | number,")},
		{"type array", "", props(`"a": {"type": ["string", "null"]}`), decl("a?: string | null,")},
		{"repeated union members are left out", "", props(`"a": {"type": ["integer", "number"]}`), decl("a?: number,")},
		{"gap: unions are flattened before dedup", "", props(`"a": {"anyOf": [{"type": ["string", "null"]}, {"type": "null"}]}`),
			decl("a?: string | null,")},
		{"object or null in a type array", "", props(`"a": {"type": ["object", "null"], "properties": {"x": {"type": "string"}}}`),
			decl("a?: {", "    x?: string,", "    } | null,")},
		{"nullable adds | null", "", props(`"a": {"type": "string", "nullable": true}`), decl("a?: string | null,")},
		{"nullable on a nullable type adds nothing", "", props(`"a": {"type": ["string", "null"], "nullable": true}`), decl("a?: string | null,")},
		{"nullable false adds nothing", "", props(`"a": {"type": "string", "nullable": false}`), decl("a?: string,")},
		{"array of strings", "", props(`"a": {"type": "array", "items": {"type": "string"}}`), decl("a?: string[],")},
		{"array without items", "", props(`"a": {"type": "array"}`), decl("a?: any[],")},
		{"union items in parentheses", "", props(`"a": {"type": "array", "items": {"type": ["string", "number"]}}`), decl("a?: (string | number)[],")},
		{"enum items in parentheses", "", props(`"a": {"type": "array", "items": {"enum": ["x", "y"]}}`), decl(`a?: ("x" | "y")[],`)},
		{"one-member union items without parentheses", "", props(`"a": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "string"}]}}`), decl("a?: string[],")},
		{"array of arrays", "", props(`"a": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}`), decl("a?: number[][],")},
		{"gap: object items at the array's indent", "", props(`"a": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}`),
			decl("a?: {", "    x: string,", "    }[],")},
		{"nested objects indent by 4", "", props(`"a": {"type": "object", "properties": {"b": {"type": "object", "properties": {"c": {"type": "string", "description": "deep"}}}}}`),
			decl("a?: {", "    b?: {", "        // deep", "        c?: string,", "        },", "    },")},
		{"object without properties", "", props(`"a": {"type": "object"}, "b": {"type": "object", "properties": {}}`), decl("a?: object,", "b?: object,")},
		{"properties without type is an object", "", props(`"a": {"properties": {"x": {"type": "number"}}}`), decl("a?: {", "    x?: number,", "    },")},
		{"unknown, missing, allOf and not are any", "", props(`"a": {"type": "file"}, "b": {}, "c": {"allOf": [{"type": "string"}]}, "d": {"not": {"type": "string"}}, "e": true`),
			decl("a?: any,", "b?: any,", "c?: any,", "d?: any,", "e?: any,")},
		{"allOf with a type uses the type", "", props(`"a": {"type": "string", "allOf": [{"minLength": 1}]}`), decl("a?: string,")},
		{"validation keywords are ignored", "", props(`"a": {"type": "string", "format": "date", "pattern": "^x", "minLength": 1}, "b": {"type": "integer", "minimum": 0, "maximum": 9}`),
			decl("a?: string,", "b?: number,")},
		{"$ref to $defs", "", `{"type": "object", "$defs": {"Unit": {"type": "string", "enum": ["c", "f"]}}, "properties": {"u": {"$ref": "#/$defs/Unit"}}}`,
			decl(`u?: "c" | "f",`)},
		{"$ref to definitions, object target", "", `{"type": "object", "definitions": {"P": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}}, "properties": {"p": {"$ref": "#/definitions/P"}}}`,
			decl("p?: {", "    x: number,", "    },")},
		{"$ref: comments come from the property, not the target", "", `{"type": "object", "$defs": {"U": {"type": "string", "description": "target", "default": "t"}}, "properties": {"u": {"$ref": "#/$defs/U", "description": "own"}}}`,
			decl("// own", "u?: string,")},
		{"recursive $ref is any", "", `{"type": "object", "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}, "properties": {"n": {"$ref": "#/$defs/Node"}}}`,
			decl("n?: {", "    next?: any,", "    },")},
		{"unresolvable and remote $ref are any", "", props(`"a": {"$ref": "#/$defs/Missing"}, "b": {"$ref": "https://example.com/s.json"}`), decl("a?: any,", "b?: any,")},
		{"$ref with escaped pointer", "", `{"type": "object", "$defs": {"a/b": {"type": "boolean"}}, "properties": {"x": {"$ref": "#/$defs/a~1b"}}}`,
			decl("x?: boolean,")},
		{"$ref to a property through the root", "", `{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"$ref": "#/properties/a"}}}`,
			decl("a?: number,", "b?: number,")},
		{"description and title escapes decoded", "", props(`"a": {"type": "string", "description": "tab\there \u00e9"}`),
			decl("// tab\there é", "a?: string,")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := declare(t, tt.description, tt.params)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// nest returns a parameters schema whose property chain a.a.a... is depth
// levels deep below the root.
func nest(depth int) string {
	s := `{"type": "string"}`
	for i := 1; i < depth; i++ {
		s = `{"type": "object", "properties": {"a": ` + s + `}}`
	}
	return props(`"a": ` + s)
}

func TestTypeScriptErrors(t *testing.T) {
	tests := []struct {
		name        string
		description string
		params      string
		want        string // the whole error text
	}{
		{"64 levels are too deep plus one", "", nest(65),
			"tools[0].function.parameters" + strings.Repeat(".properties.a", 65) + ": schema nested deeper than 64 levels"},
		{"items count as a level", "", props(`"a": ` + strings.Repeat(`{"type": "array", "items": `, 64) + `{"type": "string"}` + strings.Repeat("}", 64)),
			"tools[0].function.parameters.properties.a" + strings.Repeat(".items", 64) + ": schema nested deeper than 64 levels"},
		{"parameters must be an object", "", `[1]`, "tools[0].function.parameters: must be a JSON Schema object, got array"},
		{"parameters must be JSON", "", `{"a": }`, "tools[0].function.parameters: invalid JSON at byte 6: unexpected '}'"},
		{"marker in a tool description", "Ends <|end|> here", "", "tools[0].function.description: must not contain the marker <|end|>"},
		{"marker in a property description", "", props(`"a": {"type": "string", "description": "x<|call|>"}`),
			"tools[0].function.parameters.properties.a.description: must not contain the marker <|call|>"},
		{"marker in a title", "", props(`"a": {"type": "string", "title": "<|start|>"}`),
			"tools[0].function.parameters.properties.a.title: must not contain the marker <|start|>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := declare(t, tt.description, tt.params)
			if err == nil {
				t.Fatalf("no error; rendered:\n%s", got)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tt.want)
			}
		})
	}
	if _, err := declare(t, "", nest(64)); err != nil {
		t.Errorf("64 levels: %v", err)
	}
}
