package grammar

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Views made of an element's or a member's schemas have the schema they
// were made from as their root, or none (decision 303): the
// unevaluatedItems and unevaluatedProperties of a schema reached through
// a $ref see only what that schema's own subtree evaluates, not what the
// schema holding the $ref does beside it.
func TestEvalRootDefects(t *testing.T) {
	cases := []contentCase{
		// Each of these accepted an invalid value before decision 303.
		// Items 0 and 1 of the inner array are evaluated by d's prefixItems,
		// which the root's unevaluatedItems (reached through d's $ref) does
		// not see: every element must be "".
		{"a $ref's sibling prefixItems", `{"unevaluatedItems": {"type": "string", "maxLength": 0, "$ref": "#/$defs/d"}, "$defs": {"d": {"$ref": "#", "prefixItems": [{"type": "integer"}]}}}`,
			[]string{`[""]`, `[]`}, []string{`[[1]]`, `["a"]`}},
		{"a $ref's sibling properties", `{"type": "object", "properties": {"a": {"$ref": "#", "properties": {"x": {}}}}, "unevaluatedProperties": false}`,
			[]string{`{"a": {}}`, `{"a": {"a": {}}}`, `{}`}, []string{`{"a": {"x": 1}}`, `{"x": 1}`}},
		{"a member's $ref", `{"additionalProperties": {"$ref": "#", "prefixItems": [true]}, "unevaluatedItems": {"type": "string"}}`,
			[]string{`{"a": ["x"]}`, `["x", "y"]`}, []string{`{"a": [1]}`, `{"a": [1, "x"]}`, `[1]`}},
	}
	for _, c := range cases {
		checkReported(t, c.schema)
	}
	// Exact now, where the element's or member's own schema holds the
	// keyword (reported before: the view's root was the document's).
	checkExact(t, []contentCase{
		{"items with unevaluatedProperties", `{"type": "array", "items": {"type": "object", "properties": {"a": {}}, "unevaluatedProperties": false}}`,
			[]string{`[{"a": 1}]`, `[]`, `[{}]`}, []string{`[{"b": 1}]`, `[{"a": 1, "b": 2}]`}},
		{"a $ref to the root in prefixItems", `{"type": "array", "prefixItems": [{"$ref": "#"}], "unevaluatedItems": false}`,
			[]string{`[[]]`, `[[[]]]`, `[]`}, []string{`[[], 1]`, `[[1]]`}},
	})
}

// checkReported checks that schema is refused under strict and, not
// strict, compiles with a keyword reported.
func checkReported(t *testing.T, schema string) {
	t.Helper()
	if g := exactGrammar(t, schema, true); g != nil {
		t.Errorf("%s: compiles under strict", schema)
	}
	if g := exactGrammar(t, schema, false); g != nil {
		t.Errorf("%s: compiles with nothing reported", schema)
	}
}

// Random schemas whose unevaluatedItems and unevaluatedProperties sit at
// the root and below it, reached through $refs with siblings that
// evaluate (prefixItems, items, properties) from elements and members,
// against a JSON Schema validator: a strict grammar, and a non-strict one
// that reports nothing, accept no invalid value; a strict one accepts
// every valid value but for objects (member order, decision 103).
func TestEvalRootAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(303, 1))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var sub func(depth int) string
	sub = func(depth int) string {
		if depth <= 0 {
			return pick(`{}`, `true`, `false`, `{"type": "integer"}`, `{"type": "string"}`, `{"$ref": "#"}`)
		}
		var parts []string
		for range 1 + rng.IntN(3) {
			parts = append(parts, pick(
				`"$ref": "#"`, `"$ref": "#/$defs/d"`,
				`"prefixItems": [`+sub(depth-1)+`]`, `"items": `+sub(depth-1),
				`"properties": {"a": `+sub(depth-1)+`}`, `"additionalProperties": `+sub(depth-1),
				`"unevaluatedItems": `+sub(depth-1), `"unevaluatedProperties": `+sub(depth-1),
				`"type": `+pick(`"array"`, `"object"`, `"integer"`, `["array", "object"]`),
				`"allOf": [`+sub(depth-1)+`]`, `"anyOf": [`+sub(depth-1)+`, `+sub(depth-1)+`]`,
				`"oneOf": [`+sub(depth-1)+`]`, `"required": ["a"]`, `"maxItems": 2`))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	// wrapper is a schema that refers to the root beside a keyword that
	// evaluates, where a view's root matters most.
	wrapper := func() string {
		return `{"$ref": "` + pick("#", "#/$defs/d") + `", ` + pick(`"prefixItems": [`+sub(0)+`]`, `"items": `+sub(0),
			`"properties": {"a": `+sub(0)+`}`, `"additionalProperties": `+sub(0), `"type": "array"`) + `}`
	}
	compiled, checked := 0, 0
	for range 3000 {
		// The root: an unevaluated keyword, and places that lead to
		// wrappers (or any schema).
		parts := []string{pick(`"unevaluatedItems"`, `"unevaluatedProperties"`) + `: ` + pick(`false`, `{"type": "string"}`, `{"type": "array", "maxItems": 0}`, sub(1))}
		for range 1 + rng.IntN(2) {
			inner := wrapper()
			if rng.IntN(3) == 0 {
				inner = sub(1)
			}
			parts = append(parts, pick(`"prefixItems": [`+inner+`]`, `"items": `+inner, `"properties": {"a": `+inner+`}`,
				`"additionalProperties": `+inner, `"allOf": [`+inner+`]`, `"anyOf": [`+inner+`, `+sub(0)+`]`))
		}
		schema := "{" + strings.Join(parts, ", ") + `, "$defs": {"d": ` + pick(sub(1), wrapper()) + `}}`
		for _, strict := range []bool{true, false} {
			g := exactGrammar(t, schema, strict)
			if g == nil {
				continue
			}
			compiled++
			checked += checkRandomValues(t, rng, schema, g, strict, 12, 3)
		}
	}
	t.Logf("%d compiles (of 6,000) with nothing reported, %d values checked", compiled, checked)
	if compiled < 1000 {
		t.Errorf("only %d compiled", compiled)
	}
}
