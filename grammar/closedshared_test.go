package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// A oneOf of closed variants that share names is exact in both modes where
// the shared names' schemas are the same or told apart (gap decision 311),
// its listed contents as a JSON Schema validator says; where two variants'
// schemas of a name are of one kind and not the same, the compile fails at
// the oneOf under strict, as before.
func TestClosedSharedVariants(t *testing.T) {
	cases := []contentCase{
		{"a discriminator not required",
			`{"oneOf": [{"type": "object", "properties": {"kind": {"const": "first"}, "first": {"type": "boolean"}}, "additionalProperties": false},
			{"type": "object", "properties": {"kind": {"const": "second"}, "second": {"type": "boolean"}}, "additionalProperties": false}]}`,
			[]string{`{"kind": "first"}`, `{"first": true}`, `{"kind": "second", "second": false}`, `{"second": true}`},
			[]string{`{}`, `{"kind": "first", "second": true}`, `{"kind": "third"}`, `[]`}},
		{"a name of one schema in both, by $ref",
			`{"$defs": {"id": {"type": "string", "description": "the page"}}, "type": "object", "oneOf": [
			{"properties": {"page": {"$ref": "#/$defs/id"}, "option": {"type": "string"}}, "required": ["page"], "additionalProperties": false},
			{"properties": {"page": {"$ref": "#/$defs/id"}, "regex": {"type": "string"}}, "required": ["page"], "additionalProperties": false},
			{"properties": {"permutation": {"type": "number"}}, "required": ["permutation"], "additionalProperties": false}]}`,
			[]string{`{"page": "p", "option": "o"}`, `{"page": "p", "regex": "r"}`, `{"permutation": 1.5}`},
			[]string{`{"page": "p"}`, `{"page": "p", "option": "o", "regex": "r"}`, `{"page": "p", "permutation": 1}`, `{}`}},
		{"a name of one schema in both, by its text",
			`{"type": "object", "oneOf": [
			{"properties": {"type": {"enum": ["exec"]}, "value": {"type": "string", "maxLength": 8}}, "required": ["value"], "additionalProperties": false},
			{"properties": {"type": {"enum": ["install"]}, "value": {"type": "string", "maxLength": 8}}, "required": ["value"], "additionalProperties": false}]}`,
			[]string{`{"type": "exec", "value": "ls"}`, `{"type": "install", "value": "go"}`},
			[]string{`{"value": "ls"}`, `{"type": "exec", "value": "much too long"}`, `{"type": "other", "value": "ls"}`}},
		{"schemas of a name told apart by kind",
			`{"type": "object", "oneOf": [
			{"properties": {"v": {"type": "integer", "minimum": 0}, "k": {"const": "n"}}, "additionalProperties": false},
			{"properties": {"v": {"type": "string", "maxLength": 3}}, "additionalProperties": false}]}`,
			[]string{`{"v": 1}`, `{"v": "abc"}`, `{"k": "n"}`, `{"v": 0, "k": "n"}`},
			[]string{`{}`, `{"v": -1}`, `{"v": "abcd"}`, `{"v": "a", "k": "n"}`}},
		{"the same text without a reference",
			`{"type": "object", "oneOf": [
			{"properties": {"v": {"type": "array", "items": {"type": "string"}}, "a": {"type": "string"}}, "additionalProperties": false},
			{"properties": {"v": {"type": "array", "items": {"type": "string"}}, "b": {"type": "string"}}, "additionalProperties": false}]}`,
			[]string{`{"v": ["x"], "a": "y"}`, `{"b": "y"}`},
			[]string{`{"v": ["x"]}`, `{}`, `{"a": "y", "b": "y"}`}},
	}
	checkExact(t, cases)
	checkListedAndRandom(t, cases, rand.New(rand.NewPCG(311, 2)), 100)
	for _, refused := range []string{
		// schemas of a name of one kind, not the same
		`{"type": "object", "oneOf": [
			{"properties": {"v": {"type": "string", "minLength": 2}}, "additionalProperties": false},
			{"properties": {"v": {"type": "string", "maxLength": 1}}, "additionalProperties": false}]}`,
		// the same text holding a reference (where a reference resolves
		// depends on where it stands)
		`{"$defs": {"id": {"type": "string"}}, "type": "object", "oneOf": [
			{"properties": {"v": {"type": "array", "items": {"$ref": "#/$defs/id"}}, "a": {"type": "string"}}, "additionalProperties": false},
			{"properties": {"v": {"type": "array", "items": {"$ref": "#/$defs/id"}}, "b": {"type": "string"}}, "additionalProperties": false}]}`,
		// an open variant beside a closed one
		`{"type": "object", "oneOf": [
			{"properties": {"a": {"const": 1}, "b": {"type": "string"}}, "additionalProperties": false},
			{"properties": {"a": {"const": 2}}}]}`,
	} {
		if _, err := compileFormat(refused, true); err == nil || !strings.Contains(err.Error(), "schema.oneOf: ") {
			t.Errorf("%s: compiled under strict, or not refused at the oneOf: %v", refused, err)
		}
	}
}

// Under strict, a oneOf of closed variants that share names is exact where
// each shared name's schemas are the same in both variants or told apart
// by the values they admit (gap decision 311): random variants (two or
// three, each closed to one to three names of a small pool, so that they
// share names), each name's schema a type, a const, a $ref to a shared
// definition or a length, checked against a JSON Schema validator on
// random objects. Under strict the grammar agrees with the validator on
// every instance or the compile fails at the oneOf; not strict it accepts
// every valid instance.
func TestClosedSharedVariantsAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(311, 1))
	pool := []string{"a", "b", "c", "d"}
	schemas := []string{
		`{"type": "integer"}`, `{"type": "string"}`, `{}`, `{"$ref": "#/$defs/short"}`,
		`{"type": "string", "maxLength": 2}`, `{"type": "string", "minLength": 2}`,
		`{"enum": ["k0", "k1"]}`,
	}
	values := []string{`0`, `"x"`, `"xyz"`, `"k0"`, `"k1"`, `"k2"`, `true`}
	checked, compiled, valid, shared, exactLoose := 0, 0, 0, 0, 0
	for round := range 600 {
		var variants []string
		owners := map[string]int{}
		for i := range 2 + rng.IntN(2) {
			var props, req []string
			for _, n := range pool { // in the pool's order, so instances list them alike
				if rng.IntN(2) == 0 {
					continue
				}
				owners[n]++
				s := schemas[rng.IntN(len(schemas))]
				if rng.IntN(3) == 0 {
					s = `{"const": "k` + strconv.Itoa(i) + `"}` // a discriminator of its own
				}
				props = append(props, strconv.Quote(n)+`: `+s)
				if rng.IntN(3) == 0 {
					req = append(req, strconv.Quote(n))
				}
			}
			kws := []string{`"properties": {` + strings.Join(props, ", ") + `}`, `"additionalProperties": false`}
			if len(req) > 0 {
				kws = append(kws, `"required": [`+strings.Join(req, ", ")+`]`)
			}
			if rng.IntN(3) != 0 {
				kws = append(kws, `"type": "object"`)
			}
			variants = append(variants, "{"+strings.Join(kws, ", ")+"}")
		}
		sharing := false
		for _, k := range owners {
			sharing = sharing || k > 1
		}
		schema := `{"$defs": {"short": {"type": "string", "maxLength": 1}}, "type": "object", "oneOf": [` + strings.Join(variants, ", ") + `]}`
		validator := validatorFor(t, schema)
		strict, err := compileFormat(schema, true)
		if err != nil {
			// (Refused at the oneOf, or, when no object is valid for one
			// variant alone, as a schema nothing satisfies.)
			if !strings.Contains(err.Error(), ".oneOf") && !strings.Contains(err.Error(), "no value satisfies") {
				t.Errorf("round %d: %s: %v", round, schema, err)
			}
		} else {
			compiled++
			if sharing {
				shared++
			}
		}
		loose, lerr := compileFormat(schema, false)
		for range 40 {
			var members []string
			for _, n := range pool {
				if rng.IntN(2) == 0 {
					members = append(members, strconv.Quote(n)+": "+values[rng.IntN(len(values))])
				}
			}
			content := "{" + strings.Join(members, ", ") + "}"
			if strict != nil {
				agreeWithValidator(t, schema, strict, validator, content)
			}
			instance, _ := unmarshalInstance(content)
			ok := validator.Validate(instance) == nil
			if ok {
				valid++
			}
			if lerr == nil && ok && !loose.Matches(analysisPrefix+finalHeader+content) {
				t.Errorf("%s not strict: %s is valid and rejected", schema, content)
			}
			if lerr == nil && len(loose.Dropped) == 0 {
				agreeWithValidator(t, schema+" (not strict)", loose, validator, content)
				exactLoose++
			}
			checked++
		}
	}
	if shared < 250 || checked < 20000 || valid < 1500 {
		t.Errorf("only %d schemas compiled under strict (%d sharing names), %d instances checked, %d valid", compiled, shared, checked, valid)
	}
	if exactLoose < 10000 {
		t.Errorf("only %d instances checked against a grammar not strict that reports nothing", exactLoose)
	}
	t.Logf("%d schemas compiled under strict (%d sharing names), %d instances checked, %d valid, %d checked not strict where nothing is reported", compiled, shared, checked, valid, exactLoose)
}
