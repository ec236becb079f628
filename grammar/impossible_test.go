package grammar

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// A part of a schema that admits no value (an enum whose members the type
// rules out, bounds no number lies within, minItems past maxItems, a
// required name additionalProperties forbids, ...) matches nothing, as JSON
// Schema means: where something else may stand instead (an optional
// property, another variant, another type), the rest of the schema is
// compiled and only that part is left out; where nothing may (the whole
// value, a required property), the request is refused naming the part and
// the reason. Before, each of these refused the whole schema, however
// optional the part (seen on real-world schemas: an optional property
// {"type": "object", "enum": ["A", "B"]}).
func TestImpossibleParts(t *testing.T) {
	for _, c := range impossibleCases {
		for _, strict := range []bool{false, true} {
			g, err := Compile(context.Background(), &Spec{Format: &Format{Schema: json.RawMessage(c.schema), Strict: strict}})
			switch {
			case c.err != "":
				if err == nil || err.Error() != c.err {
					t.Errorf("%s (strict %v): error %v, want %s", c.name, strict, err, c.err)
				}
				continue
			case err != nil:
				t.Errorf("%s (strict %v): %v", c.name, strict, err)
				continue
			}
			checkContents(t, fmt.Sprintf("%s (strict %v)", c.name, strict), g, c.yes, c.no)
		}
	}
}

// impossibleCases are TestImpossibleParts's schemas; those that compile
// are among the grammars templates/llamacpp/grammar.sh checks with
// llama.cpp (TestDumpGrammarsForLlama).
var impossibleCases = func() []impossibleCase {
	const schema = "response_format.json_schema.schema"
	return []impossibleCase{
		{
			// Every name required, so every object satisfies each variant
			// (JSONSchemaBench's Glaive calculate_area schemas): the
			// error names the oneOf, not its first variant, which alone
			// is satisfiable.
			name:   "oneOf of required names beside required ones",
			schema: `{"type": "object", "properties": {"r": {"type": "number"}, "w": {"type": "number"}, "h": {"type": "number"}}, "required": ["r", "w", "h"], "oneOf": [{"required": ["r"]}, {"required": ["w", "h"]}]}`,
			err:    schema + ".oneOf: no value satisfies exactly one of its variants together with the rest of the schema, so no generation could complete; remove it or relax it",
		},
		{
			// Every value is valid for two variants at least (the suite's
			// "oneOf with boolean schemas, all true"; decision 289).
			name:   "oneOf of variants that admit every value",
			schema: `{"oneOf": [true, {"description": "any"}, {"type": "string"}]}`,
			err:    schema + ".oneOf: no value satisfies exactly one of its variants: each type a variant admits, another admits whole; remove it or relax it",
		},
		{
			name:   "optional property, oneOf of variants that admit every value",
			schema: `{"type": "object", "properties": {"a": {"oneOf": [true, true]}, "b": {"type": "integer"}}}`,
			yes:    []string{`{}`, `{"b": 1}`},
			no:     []string{`{"a": 1}`, `{"a": "x", "b": 1}`},
		},
		{
			name:   "optional property, enum ruled out by the type",
			schema: `{"type": "object", "properties": {"a": {"type": "object", "enum": ["A", "B"]}, "b": {"type": "integer"}}}`,
			yes:    []string{`{}`, `{"b": 1}`},
			no:     []string{`{"a": "A"}`, `{"a": {}}`, `{"a": "A", "b": 1}`},
		},
		{
			name:   "required property, enum ruled out by the type",
			schema: `{"type": "object", "properties": {"a": {"type": "object", "enum": ["A"]}}, "required": ["a"]}`,
			err:    schema + ".properties.a.enum: no value can be written: every member is ruled out by the type or holds a Harmony marker",
		},
		{
			name:   "one variant of anyOf",
			schema: `{"anyOf": [{"type": "integer", "minimum": 5, "maximum": 4}, {"type": "string", "maxLength": 2}]}`,
			yes:    []string{`"ab"`, `""`},
			no:     []string{`5`, `4`, `"abc"`},
		},
		{
			name:   "every variant of anyOf",
			schema: `{"anyOf": [{"type": "integer", "minimum": 5, "maximum": 4}, {"type": "array", "minItems": 3, "maxItems": 2}]}`,
			err:    schema + ".anyOf[0]: no integer lies within minimum and maximum",
		},
		{
			name:   "one type of several",
			schema: `{"type": ["number", "string"], "minimum": 10, "exclusiveMaximum": 10}`,
			yes:    []string{`"x"`},
			no:     []string{`10`, `9.5`},
		},
		{
			name:   "lengths merged from allOf",
			schema: `{"type": ["string", "null"], "allOf": [{"minLength": 3}, {"maxLength": 2}]}`,
			yes:    []string{`null`},
			no:     []string{`"ab"`, `"abc"`},
		},
		{
			name:   "lengths merged from allOf, nothing else",
			schema: `{"type": "string", "allOf": [{"minLength": 3}, {"maxLength": 2}]}`,
			err:    schema + ": minLength is greater than maxLength",
		},
		{
			name:   "optional array item count",
			schema: `{"type": "object", "properties": {"a": {"type": "array", "minItems": 2, "maxItems": 1}, "b": {"type": "boolean"}}, "required": ["b"]}`,
			yes:    []string{`{"b": true}`},
			no:     []string{`{"a": [], "b": true}`},
		},
		{
			name:   "objects of minProperties past maxProperties in one variant",
			schema: `{"oneOf": [{"type": "object", "minProperties": 2, "maxProperties": 1}, {"type": "boolean"}]}`,
			yes:    []string{`true`},
			no:     []string{`{}`},
		},
		{
			name:   "required name forbidden, optional property",
			schema: `{"type": "object", "properties": {"o": {"type": "object", "required": ["x"], "additionalProperties": false}, "p": {"type": "null"}}}`,
			yes:    []string{`{}`, `{"p": null}`},
			no:     []string{`{"o": {}}`, `{"o": {"x": 1}}`},
		},
		{
			name: "required name matched by patternProperties",
			schema: `{"type": "object", "properties": {"n": {"type": "integer"}},
				"patternProperties": {"^b_(start|end)$": {"type": "string", "maxLength": 2}, "^b_": {"minLength": 1}},
				"required": ["b_start", "n"], "additionalProperties": false}`,
			// The grammar writes the declared properties first, then
			// the required names it does not declare (under strict, then
			// the members the patterns name: TestKeyAutomaton). Both
			// patterns' schemas apply to b_start: 1 or 2 characters.
			yes: []string{`{"n": 1, "b_start": "ab"}`, `{"n": -2, "b_start": "a"}`},
			no:  []string{`{"n": 1, "b_start": "abc"}`, `{"n": 1, "b_start": ""}`, `{"n": 1, "b_start": 5}`, `{"n": 1}`},
		},
	}
}()

type impossibleCase struct {
	name    string
	schema  string
	err     string   // the error, "" for none
	yes, no []string // contents the grammar must accept, and reject
}
