package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// FuzzCompile compiles arbitrary schemas, as a response format and as a
// tool's parameters, strict and not: an error is an *Error naming a path,
// never a panic, and compiling or refusing takes at most 64 MiB and gives
// a grammar within the caps. The seeds are the attacks of issue 33 and the
// property tests' schemas.
func FuzzCompile(f *testing.F) {
	for _, seed := range []string{
		`{"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}`,
		`{"type": "number", "minimum": -1.5e300, "maximum": 1e300}`,
		`{"type": "number", "exclusiveMinimum": 1e-300, "maximum": 1e999999999}`,
		`{"$defs": {"A": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}`,
		`{"anyOf": [{"type": "integer"}, {"$ref": "#"}]}`,
		`{"allOf": [false]}`, `false`, `{"anyOf": []}`,
		`{"type": "object", "properties": {"a": {"type": "string", "maxLength": 1024}, "b": {"type": "array", "items": {"type": "string", "minLength": 1000}, "minItems": 1000}}, "required": ["a", "b"]}`,
		ladder(6, true), ladder(6, false),
		// Custom formats beside patterns, a defined one spelt otherwise
		// (decision 275).
		`{"type": "object", "properties": {"c": {"type": "string", "format": "cuid", "pattern": "^[cC][0-9a-z]{6,}$"}, "e": {"format": "E-Mail", "pattern": "@"}, "j": {"format": "jwt"}}}`,
		`{"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "required": ["c"], "dependentRequired": {"a": ["b"], "b": ["a", "z"], "c": ["b"]}}`,
		`{"type": "object", "properties": {"ab": {}}, "propertyNames": {"pattern": "^[a-z]{1,3}$", "maxLength": 2}, "additionalProperties": {"type": "integer"}}`,
		`{"type": "object", "patternProperties": {"^x": {}}, "additionalProperties": false, "propertyNames": {"enum": ["x1", "y", 2]}}`,
		`{"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 3}, "minContains": 1000}`,
		`{"contains": {"items": {"contains": {"const": 1}, "minContains": 2}}, "minContains": 3, "maxContains": 2}`,
		`{"$id": "http://e.com/r", "$dynamicAnchor": "n", "$ref": "s.json#/$defs/x", "$defs": {"s": {"$id": "s.json", "$defs": {"x": {"$anchor": "a", "properties": {"c": {"$dynamicRef": "#n"}, "d": {"$ref": "#a"}}}}}}}`,
		string(propertyTools[1].Parameters), string(propertyTools[2].Parameters),
		// Parts no value satisfies beside parts that compile, and
		// references to the root beside what it implies (real-world
		// shapes: TestImpossibleParts, TestRefBesideImpliedKeywords).
		`{"type": "object", "properties": {"a": {"type": "object", "enum": ["A"]}, "b": {"minimum": 3, "maximum": 2}, "c": {"type": "array", "allOf": [{"minItems": 2}, {"maxItems": 1}]}}}`,
		`{"type": "object", "properties": {"n": {}}, "patternProperties": {"^b_": {"type": "string"}}, "required": ["b_x", "n"], "additionalProperties": false}`,
		rootRefs(4, func(i int) string { return `, "type": "object", "items": {"type": "string"}` }),
		rootRefs(4, func(i int) string { return `, "maxProperties": ` + itoa(i) }),
		// A pattern beside declared properties, variants meeting one
		// schema, a oneOf told apart by a property, long strings
		// (decisions 185 to 188).
		`{"type": "object", "properties": {"a": {"type": "integer"}, "x-b": {}}, "patternProperties": {"^x-": {"type": "string", "maxLength": 3}}, "additionalProperties": false}`,
		`{"allOf": [{"anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}, {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]}], "$defs": {"a": {"type": "object", "properties": {"x": {"$ref": "#"}}}}}`,
		`{"oneOf": [{"type": "object", "properties": {"k": {"const": "a"}}, "required": ["k"]}, {"type": "object", "properties": {"k": {"enum": ["b", 1.0]}, "z": false}, "required": ["k"]}, {"required": ["z"]}]}`,
		`{"type": "object", "properties": {"a": {"type": "string", "minLength": 1500, "maxLength": 1048576}, "b": {"type": "string", "minLength": 70000}}}`,
		// Strings past 4,096 characters in units for xgrammar, at the
		// units' edges (gap decision 272).
		`{"type": "object", "properties": {"a": {"type": "string", "minLength": 4095, "maxLength": 262145}, "b": {"type": "string", "maxLength": 8193}, "c": {"type": "string", "minLength": 262144, "maxLength": 262144}}}`,
		`{"type": "object", "properties": {"a": {}, "b": {"const": 1}}, "dependencies": {"a": ["b"], "b": {"required": ["c"]}}, "oneOf": [{"required": ["a"]}, {"required": ["c"], "title": "c"}], "patternProperties": {"^c": {"type": "integer"}}}`,
		// Large rules the leftmost walk enters often, and a chain of
		// optional members (gap decision 194).
		fatLadder(5, 3), manyProperties(40, `{"anyOf": [{"type": "boolean"}, {"$ref": "#"}]}`),
		// A oneOf of objects whose required members' types are read
		// pair by pair, within maxMemberTypeWork (gap decisions 289 to
		// 292).
		sameMembersOneOf(32, 64),
		// String variants behind $ref beside types one variant alone
		// admits, arrays from lists of strings, and nots behind $ref
		// (gap decisions 294 to 296).
		`{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"type": "string"}, {"pattern": "^a", "_format": "x"}]}, "n": {"enum": ["a1", 2]}, "c": {"$ref": "#/$defs/c"}}, "type": "object", "properties": {"v": {"oneOf": [{"$ref": "#/$defs/a"}, {"type": ["string", "integer"], "pattern": "b$"}, {"type": "object", "required": ["x"]}, {"type": "array", "items": {"enum": ["top", "left"]}}, {"type": "array", "items": {"const": "v"}, "minItems": 1}]}, "w": {"type": ["string", "integer"], "not": {"$ref": "#/$defs/n"}}, "x": {"not": {"$ref": "#/$defs/c"}}, "y": {"type": "object", "not": {"properties": {"q": {}}, "required": ["q"]}}}}`,
		`{"type": "string", "pattern": "^((ab){0,40}c){0,60}(x(a|b){0,100}){0,30}$"}`,
		// Lengths beside patterns and formats, counted by an automaton
		// (gap decision 197).
		`{"type": "object", "properties": {"h": {"type": "string", "pattern": "^[a-z]([a-z0-9-]*[a-z0-9])?$", "maxLength": 63}, "m": {"format": "email", "minLength": 5, "maxLength": 30}, "u": {"pattern": "a.{3}b", "maxLength": 900}}}`,
		// Nots of strings' texts (gap decision 198).
		`{"type": "object", "properties": {"u": {"pattern": "^[a-z]+$", "not": {"enum": ["root", ""]}}, "p": {"not": {"pattern": "\\.\\."}}, "t": {"type": ["string", "null"], "not": {"const": "x"}}}}`,
		// A legacy $id beside a $ref, and a long enum past the engine's
		// cap, reported (gap decision 232).
		`{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"c": {"type": "string"}}, "properties": {"a": {"$id": "/p/a", "$ref": "#/definitions/c"}}}`,
		`{"properties": {"n": {"enum": [` + longList(3000) + `]}}}`,
		// A oneOf of objects closed to names of their own (gap decision 231).
		`{"oneOf": [{"properties": {"a": {"type": "integer"}, "b": {}}, "additionalProperties": false}, {"type": "object", "properties": {"c": {"$ref": "#/$defs/s"}}, "additionalProperties": false}, {"properties": {"d": {}}, "required": ["d"], "additionalProperties": false}], "$defs": {"s": {"type": "string"}}}`,
		// Open variants told apart by the closed-object default, not
		// strict (gap decision 233), one beside an anyOf.
		`{"type": "object", "properties": {"errors": {"oneOf": [{"properties": {"login": {"type": "string"}}, "required": ["login"]}, {"anyOf": [{"properties": {"login": {}}}, {"properties": {"p": {"type": "integer"}}}], "required": ["p"]}]}}}`,
		// Open object variants told apart by names and members' types,
		// under strict (gap decision 234).
		`{"type": "object", "oneOf": [{"properties": {"login": {"type": "string"}, "realm": {"type": ["string", "null"]}}, "required": ["login"]}, {"properties": {"password": {"type": "string"}, "realm": {"type": "number"}, "kind": {"enum": ["a", 1]}}, "required": ["password"]}, {"type": "object", "properties": {"token": {}, "login": false, "kind": {"const": "a"}}, "required": ["token"]}]}`,
		// Lookahead assertions at a pattern's start, and parts that match
		// every text side by side (gap decision 230).
		`{"type": "object", "properties": {"a": {"type": "string", "pattern": "^(?!org\\.)(?=[a-z])[a-z.]{1,9}$"}, "b": {"pattern": "^[\\s\\S]*", "not": {"pattern": "^x"}}}, "patternProperties": {"^[\\s\\S]*": {"type": "integer"}, "^c": {"minimum": 2}}}`,
		// Lookahead assertions anywhere, at the limits of their automata
		// (gap decision 286), and in groups repeated without bound.
		`{"type": "object", "properties": {"a": {"pattern": "^(((?:x(?=[xy]*z)){16}){16}){16}$"}, "b": {"pattern": "^(?:(?:x(?=.*a)|y(?=.*b)|z(?=.*c)){16}){16}$"}, "c": {"pattern": "^(?:[ab](?=.*[xy])|c)(?:[ab](?=.*[xy])|c)(?:[ab](?=.*[xy])|c)(?:[ab](?=.*[xy])|c)(?:[ab](?=.*[xy])|c)(?:[ab](?=.*[xy])|c)(?:[ab](?=.*[xy])|c)(?:[ab](?=.*[xy])|c)$"}, "d": {"pattern": "^.?(?!.{0,40}q).?(?!.{0,40}q).?(?!.{0,40}q).?(?!.{0,40}q).?(?!.{0,40}q).?(?!.{0,40}q).?(?!.{0,40}q).?(?!.{0,40}q)$", "maxLength": 30}, "e": {"format": "duration", "pattern": "^P(?:(\\d+W)|(?!.*W)(?=\\d|T\\d)(\\d+Y)?(\\d+M)?(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+([.,]\\d+)?S)?)?)$"}}}`,
		`{"type": "object", "properties": {"a": {"pattern": "^((?!a.{0,40}b).)*$"}, "b": {"pattern": "^(?:(?=.*a)(?=.*b)(?=.*c)(?=.*d)(?=.*e)(?=.*f)(?=.*g)(?=.*h).)*$"}, "c": {"pattern": "^(?:(?![ab][ab][ab][ab][ab][ab][ab][ab][ab][ab][ab][ab][ab][ab][ab][ab]).)*$", "maxLength": 40}, "d": {"pattern": "^(?:(?:(?:(?!ab).)*(?=c).)*(?!d).)*$"}, "e": {"pattern": "^((?!mode)(?!Mode).)*$", "format": "email"}, "f": {"pattern": "^(?:(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|)(?:(?=[^x]*x)|).)*$"}, "g": {"pattern": "^(?:(?:(?=.*a)|(?!.*b))(?:(?=.*a)|(?!.*b))(?:(?=.*a)|(?!.*b))(?:(?=.*a)|(?!.*b))(?:(?=.*a)|(?!.*b))(?:(?=.*a)|(?!.*b))(?:(?=.*a)|(?!.*b))(?:(?=.*a)|(?!.*b)).)*$"}}}`,
		// Key patterns with lookahead assertions, beside declared names
		// (gap decision 288).
		`{"type": "object", "properties": {"elements": {"minimum": 1}, "pattern": {"type": "string"}, "a--b": {}}, "patternProperties": {"^(?!pattern$).*$": {"type": "integer"}, "^(?:(?!--)[a-z-])+$": {"maximum": 1}, "^x(?!y)": {}}, "additionalProperties": false}`,
		// A format beside a pattern, the dead sets dropped (gap decision 227).
		`{"type": "object", "properties": {"u": {"type": "string", "format": "uri", "pattern": "^https?://"}, "v": {"oneOf": [{"format": "ipv4", "pattern": "^1"}, {"format": "date", "pattern": "^2"}]}}}`,
		// String variants that list their strings (gap decision 226).
		`{"type": "object", "properties": {"t": {"oneOf": [{"enum": ["a", "b", 1]}, {"const": "b"}, {"type": "string", "pattern": "^[a-c]$", "maxLength": 1}]}, "u": {"enum": ["x", "y"], "oneOf": [{"pattern": "x"}, {"pattern": "[xy]"}]}}}`,
		// A discriminator's values no condition lists (gap decision 224).
		`{"type": "object", "properties": {"x": {}, "t": {"type": ["string", "integer", "null"], "maximum": 9}}, "allOf": [{"if": {"properties": {"t": {"const": "a"}}}, "then": {"required": ["x"]}}, {"if": {"properties": {"t": {"enum": [null, 2, "b"]}}, "required": ["t"]}, "else": {"properties": {"x": false}}}, {"if": {"properties": {"k": {"const": true}}}, "then": {"required": ["t"]}}]}`,
		// Nots of numbers' values (gap decision 223).
		`{"type": "object", "properties": {"p": {"type": "integer", "minimum": 1024, "maximum": 65535, "not": {"enum": [6379, 6380.0, "x", 2.5]}}, "f": {"type": "number", "exclusiveMaximum": 1e20, "allOf": [{"not": {"const": -0.5}}, {"not": {"enum": [1e19, 0]}}]}, "n": {"type": ["integer", "null"], "not": {"const": 0}}}}`,
		// A not of required (gap decision 199).
		`{"properties": {"a": {}, "b": {"not": {"required": ["x", "y"]}}}, "not": {"required": ["a", "b"]}, "dependentSchemas": {"a": {"required": ["c"]}}}`,
		// Keys told apart by an automaton (gap decision 196).
		`{"type": "object", "properties": {"id": {"type": "string"}, "ix": {}}, "patternProperties": {"^i": {"minimum": 0}, "x$": {"type": "integer"}, "[0-9]{1,40}": {}}, "additionalProperties": {"type": "string"}}`,
		`{"patternProperties": {"a.{6}$": {"type": "integer"}, "^(?:b|c)+$": false}, "dependentSchemas": {"q": {"required": ["r"]}}}`,
		`{"type": "array", "prefixItems": [{"$ref": "#/$defs/a"}, {"type": "integer"}], "items": {"$ref": "#/$defs/a"}, "maxItems": 900, "$defs": {"a": {"anyOf": [{"type": "null"}, {"type": "array", "items": {"$ref": "#/$defs/a"}, "maxItems": 3}]}}}`,
		// oneOf of required lists and of literals, string variants,
		// several patterns, counted members, bounded multiples (gap
		// decisions 200 to 204).
		`{"properties": {"r": {}, "l": {}, "w": {}}, "oneOf": [{"required": ["r"]}, {"required": ["l", "w"]}, {"required": ["r", "w"], "title": "t"}], "allOf": [{"anyOf": [{"required": ["l"]}, {"minProperties": 2}]}]}`,
		`{"oneOf": [{"const": "a"}, {"enum": ["b", 1, 1.0, [1]]}, {"type": "string", "pattern": "^[0-9]+$", "maxLength": 3}, {"pattern": "x", "format": "uuid"}]}`,
		`{"type": "string", "allOf": [{"pattern": "^a"}, {"pattern": "b$", "format": "hostname"}], "minLength": 2, "maxLength": 40, "not": {"const": "ab"}}`,
		`{"type": "object", "properties": {"a": {}, "b": {"type": "integer"}}, "required": ["b"], "additionalProperties": {"type": "integer"}, "minProperties": 3, "maxProperties": 30}`,
		`{"anyOf": [{"type": "number", "multipleOf": 11, "minimum": 100}, {"type": "integer", "multipleOf": 64, "exclusiveMinimum": -9223372036854775808, "maximum": 1e30}]}`,
		// A discriminator's if/then/else (gap decision 206).
		`{"type": "object", "properties": {"t": {"enum": ["a", "b", 1]}, "x": {}}, "allOf": [{"if": {"properties": {"t": {"const": "a"}}, "required": ["t"]}, "then": {"required": ["x"]}, "else": {"if": {"properties": {"t": {"enum": ["b"]}}}, "then": false}}, {"if": {"properties": {"t": {"enum": ["b", 1.0]}}}}]}`,
		// Listed values checked against the whole schema (gap decision
		// 207), and a check whose work runs out.
		`{"allOf": [{"enum": [{"a": [1, 1.0]}, {"a": [2]}, "x", 1e400]}, {"not": {"properties": {"a": {"uniqueItems": true, "contains": {"const": 1}}}}}], "oneOf": [{"if": {"type": "object"}, "then": {"required": ["a"]}}, {"pattern": "^x"}], "$defs": {"d": {"$ref": "#"}}}`,
		`{"enum": [` + strings.Repeat(`[1, 2, 3, 4, 5, 6, 7, 8, 1.0], `, 300) + `[]], "uniqueItems": true, "not": {"maxItems": 0}}`,
		// Parts no finite value satisfies, a dependentSchemas cycle, and
		// raw arguments as the parser reads them (gap decisions 208 and
		// 209).
		`{"type": "object", "unevaluatedProperties": {"minProperties": 1, "$ref": "#"}, "dependentSchemas": {"b": {"$ref": "#/$defs/o"}}, "$defs": {"o": {"dependentSchemas": {"c": {"$ref": "#"}}}}}`,
		`{"type": "object", "properties": {"n": {"type": "integer", "$ref": "#/$defs/o"}, "m": {"enum": ["3", 4, 2.0]}, "k": {"type": ["string", "integer"], "minimum": 5}}, "allOf": [{"properties": {"z": {"type": "integer"}}}], "additionalProperties": {"enum": [1, "1"]}, "$defs": {"o": {"type": "object"}}}`,
		// uniqueItems that holds by itself and on listed values (gap
		// decision 211).
		`{"type": "array", "items": {"anyOf": [{"enum": ["a", "b", 1, 1.0]}, {"const": [1]}]}, "uniqueItems": true, "minItems": 2, "maxItems": 3}`,
		`{"type": ["string", "array"], "maxItems": 1, "uniqueItems": true, "items": {"enum": ["x", "y"], "not": {"const": "y"}}}`,
		// Counts past 64 in chunks, length pairs shared, and counts that
		// take a grammar past the engine's cap (gap decision 210).
		`{"type": "object", "properties": {"a": {"type": "string", "minLength": 70, "maxLength": 300}, "b": {"type": "array", "items": {"type": "string", "maxLength": 300}, "minItems": 65, "maxItems": 1000}, "c": {"additionalProperties": {"type": "integer"}, "minProperties": 100}}, "required": ["a", "b"]}`,
		strings.TrimSuffix(manyProperties(700, `{"type": "boolean"}`), "}}") + `, "s": {"type": "string", "maxLength": 32767}, "t": {"type": "string", "maxLength": 32768}, "u": {"type": "array", "maxItems": 1000}}}`,
		// A oneOf of which two variants constrain objects alone, one
		// told apart by a discriminator no variant requires, and one of
		// required names beside nots of required (gap decisions 213, 215
		// and 216).
		`{"properties": {"a": {}, "b": {}}, "oneOf": [{"required": ["a"], "not": {"required": ["b", "c"]}}, {"allOf": [{"required": ["b"]}, {"not": {"required": ["a"]}}, {"not": {"required": []}}]}, {"required": [], "not": {"required": ["a", "b"]}}]}`,
		`{"properties": {"s": {"type": "string"}, "r": {}}, "oneOf": [{"properties": {"s": {"const": "c"}}, "required": ["r"]}, {"properties": {"s": {"enum": ["q", 1.0]}}, "required": ["r", "w"], "type": "object"}, {"properties": {"s": {"const": 1}}, "required": ["s"], "title": "t"}]}`,
		`{"required": ["k"], "oneOf": [{"$ref": "#/$defs/a"}, {"properties": {"k": {"enum": [1, 2.0]}}, "dependentSchemas": {"z": false}}, {"type": ["string", "object"], "minProperties": 1}, {}], "$defs": {"a": {"properties": {"k": {"const": 2}}, "additionalProperties": false}}}`,
		// Wide views, patterns beside names, copies of views, nots and
		// patterns of one string, long names, decimal multiples (gap
		// decisions 218 to 220).
		`{"type": "object", "unevaluatedProperties": false, "allOf": [{"patternProperties": {"^k0_": {"type": "integer"}}, "properties": {"j0": {}}}, {"patternProperties": {"^k1_": {}}, "properties": {"j1": {"maximum": 3}}, "additionalProperties": {"type": "string"}}, {"properties": {"j0": {"minimum": 1}}}]}`,
		`{"type": "string", "allOf": [{"pattern": "a"}, {"pattern": "b"}, {"not": {"const": "ab"}}, {"anyOf": [{"maxLength": 3}, {"minLength": 5}]}, {"oneOf": [{"format": "email"}, {"pattern": "^x"}]}]}`,
		`{"type": "object", "required": ["` + strings.Repeat("k", 300) + `", "kk"], "properties": {"` + strings.Repeat("k", 200) + `": {"type": "number", "multipleOf": 0.01, "exclusiveMinimum": -1.005, "maximum": 1e3}}}`,
		`{"type": ["number", "null"], "allOf": [{"multipleOf": 0.1}, {"multipleOf": 1e-3}, {"anyOf": [{"maximum": -0.5}, {"exclusiveMinimum": 2.25}]}]}`,
		// A long minimum beside a format and beside a pattern, whose
		// live pairs took a sweep per character (gap decision 245);
		// distinct long patterns, one repeated, and escaped pointers
		// (decision 246).
		`{"minLength": 1024, "format": "json-pointer"}`,
		`{"type": "string", "pattern": "^(/[a-z~]*)*$", "minLength": 1000, "not": {"const": "/a"}}`,
		`{"type": "object", "properties": {"a": {"pattern": "^(` + strings.Repeat("ab|", 400) + `c)1$"}, "b": {"pattern": "^(` + strings.Repeat("ab|", 400) + `c)2$"}, "c": {"pattern": "^(` + strings.Repeat("ab|", 400) + `c)1$"}}}`,
		`{"$defs": {"a/b~c": {"type": "integer"}, "d%25": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a~1b~0c"}, "y": {"$ref": "#/$defs/d%2525"}, "z": {"$ref": "#/$defs/a~1b~0c"}}}`,
		// Percent-escapes in pointers, decoded before ~1 and ~0, with and
		// without $id (decision 247).
		`{"$defs": {"a b": {"type": "integer"}, "c%": {"maxLength": 2}, "d/e": {"const": 1}, "%C3": {}}, "properties": {"x": {"$ref": "#/$defs/a%20b"}, "y": {"$ref": "#%2F$defs/c%25"}, "z": {"$ref": "#/$defs/d%7E1e"}, "w": {"$ref": "#/$defs/%C3"}, "v": {"$ref": "#/$defs/c%"}}}`,
		`{"$id": "http://e.com/s", "$defs": {"a<b>": {"type": "integer"}}, "properties": {"x": {"$ref": "#/$defs/a%3Cb%3e"}, "y": {"$ref": "s#/$defs/a%3cb%3E"}, "z": {"$ref": "http://e.com/s#%2F$defs%2Fa%3Cb%3E"}}}`,
		// Declared names with escaped characters beside other members
		// and patterns, propertyNames' nots, raw minimums (gap decisions
		// 313 to 315).
		`{"type": "object", "properties": {"<a>": {"type": "integer"}, "q\"\n\\": {}, "\u0001": {}}, "patternProperties": {"^<": {"type": "string"}}, "additionalProperties": {"type": "string", "minLength": 7}}`,
		`{"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}, "propertyNames": {"not": {"enum": ["x<", "y\t", "a"]}}, "dependentSchemas": {"b": {"required": ["c"]}}, "additionalProperties": {"type": "string", "minLength": 3}}`,
		`{"type": "object", "propertyNames": {"allOf": [{"not": {"pattern": "^x-"}}, {"not": {"const": "id"}}], "maxLength": 4}, "additionalProperties": {"type": "integer"}}`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, schema []byte, strict bool) {
		if err := checkBounded(schema, strict); err != nil {
			t.Fatal(err)
		}
	})
}

// checkBounded compiles schema (when it is JSON) as a response format (for
// llama.cpp and for xgrammar) and as a tool's parameters, strict or not,
// and returns what breaks a bound:
// more than 64 MiB allocated, an error that is not an *Error naming a
// path, a grammar past the caps, or one that llama.cpp would refuse, whose
// leftmost walk is past the estimate, or whose EBNF does not read back or
// holds what xgrammar matches otherwise.
func checkBounded(schema []byte, strict bool) error {
	if !json.Valid(schema) {
		return nil
	}
	for _, spec := range []*Spec{
		{Format: &Format{Schema: schema, Strict: strict}},
		{Tools: []Tool{{Name: "f", Parameters: schema, Strict: strict}}, Choice: Required},
		{Format: &Format{Schema: schema, Strict: strict}, XGrammar: true},
	} {
		var g *Grammar
		var err error
		n := allocated(func() { g, err = Compile(context.Background(), spec) })
		if n > maxCompileBytes {
			return fmt.Errorf("%d bytes allocated", n)
		}
		if err != nil {
			var ge *Error
			if !errors.As(err, &ge) || ge.Path == "" || ge.Msg == "" {
				return fmt.Errorf("error %#v", err)
			}
			continue
		}
		if len(g.text) > MaxBytes || grammarCost(g) > maxExpanded+ruleCost*g.numRules() {
			return fmt.Errorf("a grammar of %d bytes, cost %d", len(g.text), grammarCost(g))
		}
		// As llama.cpp would load it (llamacheck_test.go).
		rules, err := llamaParse(g.GBNF())
		if err != nil {
			return fmt.Errorf("llama.cpp would refuse the grammar: %v", err)
		}
		if cost, recursive := llamaLeftRecursionCheck(rules); recursive || cost > g.leftmostWalk {
			return fmt.Errorf("llama.cpp's check for left recursion: recursive %v, cost %d, estimated %d", recursive, cost, g.leftmostWalk)
		}
		// As xgrammar gets it: readable, without what it matches
		// otherwise (gap decision 238).
		x, err := parseWritten(g.EBNF())
		if err != nil {
			return fmt.Errorf("the EBNF does not read back: %v", err)
		}
		if bad := xgrammarHazard(x); bad != "" {
			return fmt.Errorf("the EBNF holds %s", bad)
		}
		if bad := slowRepetition(x); bad != "" {
			return fmt.Errorf("the EBNF holds %s", bad)
		}
	}
	return nil
}

// longList is n distinct strings of 22 characters, a JSON list's members.
func longList(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"cvar_name_number_%05d"`, i)
	}
	return b.String()
}

// sameMembersOneOf is a oneOf of n object variants that each require the
// same names names, each of a chain of anyOf through $refs: the types of
// every required member, compared pair by pair, are read within a budget
// (maxMemberTypeWork, decision 292).
func sameMembersOneOf(n, names int) string {
	defs := []string{`"t0": {"anyOf": [{"type": "string"}, {"type": "null"}]}`}
	for i := 1; i < 12; i++ {
		defs = append(defs, fmt.Sprintf(`"t%d": {"anyOf": [{"$ref": "#/$defs/t%d"}, {"$ref": "#/$defs/t%d"}, {"type": "boolean"}]}`, i, i-1, i-1))
	}
	var variants []string
	for range n {
		var props, req []string
		for k := range names {
			props = append(props, fmt.Sprintf(`"p%d": {"$ref": "#/$defs/t11"}`, k))
			req = append(req, fmt.Sprintf(`"p%d"`, k))
		}
		variants = append(variants, `{"type": "object", "properties": {`+strings.Join(props, ", ")+`}, "required": [`+strings.Join(req, ", ")+`]}`)
	}
	return `{"$defs": {` + strings.Join(defs, ", ") + `}, "oneOf": [` + strings.Join(variants, ", ") + `]}`
}
