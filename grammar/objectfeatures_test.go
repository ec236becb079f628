package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Objects that combine the features real-world schemas put together
// (discriminator conditions whose values may meet, oneOf of required
// names, discriminators or nots, nots of required names, behind $ref too,
// dependentRequired, dependentSchemas, counts of members, anyOf of
// required names, oneOf of typed or closed variants, patternProperties,
// propertyNames, unevaluatedProperties, additionalProperties, allOf of
// members and required names, an if of a discriminator) against a JSON Schema validator, on random objects of
// random values: a strict grammar accepts no invalid object and, in some
// order of its members, every valid one; a grammar not strict that
// reports nothing accepts no invalid object. Each feature has its own
// test; this one looks for what they miss together (it was written after
// decision 297's overlapping conditions, which the per-feature tests drew
// apart by construction).
func TestStrictObjectFeaturesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 297))
	keys := []string{"k", "a", "b", "c"}
	pool := []string{`"p"`, `"q"`, `"r"`, `"s"`, `1`, `2`, `null`, `true`, `[]`, `{}`}
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	name := func() string { return strconv.Quote(keys[1+rng.IntN(3)]) }
	names := func() string {
		var ns []string
		for range 1 + rng.IntN(2) {
			if n := name(); !strings.Contains(strings.Join(ns, ","), n) {
				ns = append(ns, n)
			}
		}
		return "[" + strings.Join(ns, ", ") + "]"
	}
	kValues := func() string {
		var vs []string
		for range 1 + rng.IntN(2) {
			vs = append(vs, pick(`"p"`, `"q"`, `"r"`))
		}
		return "[" + strings.Join(vs, ", ") + "]"
	}
	branch := func() string {
		return pick(`{"required": `+names()+`}`, `{"properties": {`+pick(`"a"`, `"b"`, `"c"`)+`: false}}`, `{"not": {"required": `+names()+`}}`)
	}
	features := []func() string{
		func() string { // discriminator conditions, their values drawn with replacement
			var conds []string
			for range 1 + rng.IntN(3) {
				cond := `{"properties": {"k": {"enum": ` + kValues() + `}}` + pick(``, `, "required": ["k"]`) + `}`
				if rng.IntN(5) == 0 {
					cond = `{"not": ` + cond + `}`
				}
				s := `{"if": ` + cond
				if rng.IntN(4) > 0 {
					s += `, "then": ` + branch()
				}
				if rng.IntN(2) == 0 {
					s += `, "else": ` + branch()
				}
				conds = append(conds, s+`}`)
			}
			return `"allOf": [` + strings.Join(conds, ", ") + `]`
		},
		func() string { // oneOf of required names, discriminators, nots
			var vs []string
			for range 2 + rng.IntN(2) {
				vs = append(vs, pick(`{"required": `+names()+`}`,
					`{"properties": {"k": {"const": `+pick(`"p"`, `"q"`, `"r"`)+`}}, "required": ["k"]}`,
					`{"properties": {"k": {"enum": `+kValues()+`}}, "required": ["k", `+name()+`]}`,
					`{"required": `+names()+`, "not": {"required": `+names()+`}}`))
			}
			return `"oneOf": [` + strings.Join(vs, ", ") + `]`
		},
		func() string { // a not of required names, or of an anyOf of them, or behind a $ref
			return pick(`"not": {"required": `+names()+`}`,
				`"not": {"anyOf": [{"required": `+names()+`}, {"required": `+names()+`}]}`,
				`"not": {"$ref": "#/$defs/r"}`)
		},
		func() string { return `"dependentRequired": {` + name() + `: ` + names() + `}` },
		func() string {
			return `"dependentSchemas": {` + name() + `: ` + pick(`{"required": `+names()+`}`, `{"properties": {"k": {"const": "p"}}}`,
				`{"not": {"required": [`+name()+`]}}`, `{"not": {"anyOf": [{"required": [`+name()+`]}, {"required": [`+name()+`]}]}}`,
				`{"not": {"required": `+names()+`}}`) + `}`
		},
		func() string { return pick(`"minProperties": `, `"maxProperties": `) + strconv.Itoa(1+rng.IntN(3)) },
		func() string { return `"anyOf": [{"required": ` + names() + `}, {"required": ` + names() + `}]` },
		func() string { // oneOf of closed or open variants declaring typed members
			var vs []string
			for range 2 + rng.IntN(2) {
				v := `{"properties": {` + name() + `: ` + pick(`{"type": "integer"}`, `{"type": "string"}`, `{"enum": ["p", 1]}`, `{"const": null}`, `{}`) + `}`
				if rng.IntN(2) == 0 {
					v += `, "required": ` + names()
				}
				if rng.IntN(3) == 0 {
					v += `, "additionalProperties": false`
				}
				vs = append(vs, v+`}`)
			}
			return `"oneOf": [` + strings.Join(vs, ", ") + `]`
		},
		func() string {
			return `"patternProperties": {"^[ab]": ` + pick(`{"type": "integer"}`, `{"type": "string"}`, `false`) + `}`
		},
		func() string {
			return `"propertyNames": ` + pick(`{"enum": ["k", "a", "b"]}`, `{"pattern": "^[kab]$"}`, `{"maxLength": 1}`, `{"not": {"const": "c"}}`)
		},
		func() string { return `"unevaluatedProperties": ` + pick(`false`, `{"type": "integer"}`) },
		func() string {
			return `"additionalProperties": ` + pick(`{"type": "integer"}`, `{"type": "string"}`, `false`)
		},
		func() string {
			return `"allOf": [{"properties": {` + name() + `: ` + pick(`{"type": "integer"}`, `{"minimum": 2}`, `{"const": "p"}`) + `}}, {"required": ` + names() + `}]`
		},
		func() string {
			return `"if": {"properties": {"k": {"const": "p"}}, "required": ["k"]}, "then": {"properties": {` + name() + `: {"type": "integer"}}}, "else": ` + branch()
		},
	}
	compiled, checked := map[bool]int{}, 0
	for round := range 2000 {
		strict := round%4 != 0
		schema := `{"type": "object", "$defs": {"r": {"required": ` + names() + `}}, "properties": {"k": ` +
			pick(`{"enum": ["p", "q", "r"]}`, `{"type": "string"}`, `{}`, `{"type": ["string", "integer"]}`)
		for _, n := range keys[1:] {
			schema += `, "` + n + `": ` + pick(`{}`, `{"type": "integer"}`, `{"type": "string"}`, `{"enum": ["p", 1]}`, `{"type": ["integer", "null"]}`)
		}
		schema += `}`
		if rng.IntN(3) == 0 {
			schema += `, "required": ` + pick(`["k"]`, `["a"]`, `["k", "b"]`)
		}
		if rng.IntN(4) == 0 {
			schema += `, "additionalProperties": false`
		}
		used := map[int]bool{}
		for range 1 + rng.IntN(3) {
			f := rng.IntN(len(features))
			if !used[f] {
				used[f] = true
				schema += `, ` + features[f]()
			}
		}
		schema += `}`
		g, err := compileFormat(schema, strict)
		if err != nil {
			continue // refused: what strict can't enforce, or nothing satisfies it
		}
		if !strict && len(g.Dropped) > 0 {
			continue // reported: accepts more than the schema, as documented
		}
		compiled[strict]++
		validator := validatorFor(t, schema)
		for range 25 {
			var members []string
			for _, k := range keys {
				if rng.IntN(2) == 0 {
					members = append(members, strconv.Quote(k)+": "+pool[rng.IntN(len(pool))])
				}
			}
			if rng.IntN(8) == 0 {
				members = append(members, `"x": 1`)
			}
			content := "{" + strings.Join(members, ", ") + "}"
			matched, valid := verdictsInAnyOrder(t, g, validator, content, members)
			if matched && !valid || strict && matched != valid {
				t.Errorf("strict %v: %s: %s: the grammar says %v, the validator %v", strict, schema, content, matched, valid)
			}
			checked++
		}
	}
	t.Logf("%d strict grammars, %d not strict reporting nothing, %d objects checked", compiled[true], compiled[false], checked)
	if compiled[true] < 600 || checked < 20000 {
		t.Errorf("only %d strict grammars, %d objects checked", compiled[true], checked)
	}
}
