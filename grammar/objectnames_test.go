package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Objects whose members' names meet what real-world schemas say of names
// (properties, patternProperties, additionalProperties, propertyNames,
// member counts, required, dependentRequired, unevaluatedProperties
// beside an allOf, an anyOf of required names or properties) against a
// JSON Schema validator, on random objects of names some patterns match:
// the strict grammar accepts exactly the valid ones, in some order of
// their members. Written after decision 300's unevaluated required names
// and dependentRequired triggers held by a pattern.
func TestStrictObjectNamesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 300))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	keys := []string{"a", "ab", "b", "ba", "c", "x1", "_"}
	val := func() string {
		return pick(`{"type": "integer"}`, `{"type": "string"}`, `{}`, `false`, `{"const": 1}`, `{"enum": [1, "s"]}`, `{"minimum": 2}`)
	}
	key := func() string { return strconv.Quote(keys[rng.IntN(len(keys))]) }
	feats := []func() string{
		func() string { return `"properties": {` + key() + `: ` + val() + `, ` + key() + `: ` + val() + `}` },
		func() string {
			return `"patternProperties": {` + pick(`"^a"`, `"b$"`, `"[0-9]"`, `"^_"`) + `: ` + val() + pick(``, `, "^b": `+val()) + `}`
		},
		func() string {
			return `"additionalProperties": ` + pick(`false`, `{"type": "integer"}`, `{"type": "string"}`, `true`)
		},
		func() string {
			return `"propertyNames": ` + pick(`{"pattern": "^[ab]"}`, `{"maxLength": 1}`, `{"enum": ["a", "b", "c", "ab"]}`, `{"not": {"const": "c"}}`, `{"pattern": "^[a-c]+$", "minLength": 2}`)
		},
		func() string { return pick(`"minProperties": `, `"maxProperties": `) + strconv.Itoa(rng.IntN(4)) },
		func() string {
			a, b := key(), key()
			if a == b || rng.IntN(2) == 0 {
				return `"required": [` + a + `]`
			}
			return `"required": [` + a + `, ` + b + `]`
		},
		func() string { return `"dependentRequired": {` + key() + `: [` + key() + `]}` },
		func() string {
			return `"allOf": [{"properties": {` + key() + `: ` + val() + `}}], "unevaluatedProperties": ` + pick(`false`, `{"type": "string"}`)
		},
		func() string {
			return `"anyOf": [{"required": [` + key() + `]}, {"properties": {` + key() + `: ` + val() + `}}]`
		},
	}
	compiled, checked := 0, 0
	for range 5000 {
		var parts []string
		used := map[int]bool{}
		for range 1 + rng.IntN(4) {
			f := rng.IntN(len(feats))
			if !used[f] {
				used[f] = true
				parts = append(parts, feats[f]())
			}
		}
		schema := `{"type": "object", ` + strings.Join(parts, ", ") + `}`
		g, err := compileFormat(schema, true)
		if err != nil {
			continue
		}
		compiled++
		validator := validatorFor(t, schema)
		for range 20 {
			var members []string
			for _, k := range keys {
				if rng.IntN(3) == 0 {
					members = append(members, strconv.Quote(k)+": "+pick(`1`, `2`, `"s"`, `null`))
				}
			}
			rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
			if len(members) > 4 {
				members = members[:4]
			}
			content := "{" + strings.Join(members, ", ") + "}"
			matched, valid := verdictsInAnyOrder(t, g, validator, content, members)
			if matched != valid {
				t.Errorf("%s: %s: grammar %v validator %v", schema, content, matched, valid)
			}
			checked++
		}
	}
	t.Logf("%d compiled, %d checked", compiled, checked)
	if compiled < 2500 || checked < 50000 {
		t.Errorf("only %d schemas compiled, %d objects checked", compiled, checked)
	}
}

// Gap decision 300: under unevaluatedProperties: false, a name no schema
// declares is never valid, so requiring it leaves no object and a
// dependentRequired that adds it leaves its trigger out; a trigger of
// dependentRequired that a pattern lets an otherwise closed object hold
// brings its dependents.
func TestUnevaluatedNamesAndPatternTriggers(t *testing.T) {
	checkStrictExact(t, []contentCase{
		{"a dependent no schema declares, unevaluated", `{"type": "object", "allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": false, "dependentRequired": {"a": ["c"]}}`,
			[]string{`{}`}, []string{`{"a": 1}`, `{"c": 1}`, `{"a": 1, "c": 1}`}},
		{"a trigger a pattern holds", `{"type": "object", "properties": {"c": {}}, "patternProperties": {"^b": {"type": "integer"}}, "additionalProperties": false, "dependentRequired": {"ba": ["c"]}}`,
			[]string{`{"c": 1, "ba": 2}`, `{"bb": 1}`, `{}`}, []string{`{"ba": 2}`, `{"ba": "s", "c": 1}`}},
		{"a trigger a pattern holds, its dependent forbidden", `{"type": "object", "properties": {"c": {}}, "patternProperties": {"^a": false, "^b": {}}, "additionalProperties": false, "dependentRequired": {"ba": ["a"]}}`,
			[]string{`{"c": 1}`, `{"bb": 1}`}, []string{`{"ba": 1}`, `{"c": 1, "ba": 1}`}},
		// The test suite's "unevaluatedProperties with oneOf": a variant's
		// case may not hold a name only the other declares (it fails
		// there, so nothing evaluates the name).
		{"a name only another oneOf variant declares", `{"properties": {"foo": {"type": "string"}}, "oneOf": [{"properties": {"bar": {"const": "bar"}}, "required": ["bar"]}, {"properties": {"baz": {"const": "baz"}}, "required": ["baz"]}], "unevaluatedProperties": false}`,
			[]string{`{"bar": "bar"}`, `{"foo": "f", "baz": "baz"}`}, []string{`{"bar": "bar", "baz": "x"}`, `{"baz": "baz", "bar": 1}`, `{"bar": "bar", "baz": "baz"}`, `{}`}},
	})
	for _, schema := range []string{
		`{"type": "object", "properties": {"a": {}}, "unevaluatedProperties": false, "required": ["c"]}`,
		`{"type": "object", "allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": false, "required": ["a", "c"]}`,
	} {
		if _, err := compileFormat(schema, false); err == nil || !strings.Contains(err.Error(), "requires c, which no schema declares and unevaluatedProperties forbids") {
			t.Errorf("%s: %v", schema, err)
		}
	}
}
