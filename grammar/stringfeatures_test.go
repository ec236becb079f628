package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Strings that combine what real-world schemas put together (patterns,
// lengths, formats, enums and consts, nots of patterns, enums and consts,
// allOf, a $ref), alone, as oneOf variants beside variants of other types
// (decision 294) or in an anyOf, against a JSON Schema validator that
// asserts formats, on random strings and values: the strict grammar
// accepts exactly the valid ones. Written after decision 298's const
// beside an enum, which decision 226's string variants read as the const
// alone.
func TestStrictStringFeaturesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 298))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	pats := []string{`^a`, `b$`, `[0-9]`, `^[a-c]+$`, `^.{2}$`, `^(ab)*$`, `a|b`, `^[^a]*$`, `^\\d{1,3}$`}
	lits := []string{`""`, `"a"`, `"b"`, `"ab"`, `"ba"`, `"1"`, `"12"`, `"abc"`, `"1.2.3.4"`}
	str := func() string {
		var kws []string
		for range 1 + rng.IntN(3) {
			switch rng.IntN(9) {
			case 0:
				kws = append(kws, `"pattern": "`+pats[rng.IntN(len(pats))]+`"`)
			case 1:
				kws = append(kws, pick(`"minLength": `, `"maxLength": `)+strconv.Itoa(rng.IntN(4)))
			case 2:
				kws = append(kws, `"enum": [`+pick(lits...)+`, `+pick(lits...)+`, `+pick(`1`, `null`, `"zz"`)+`]`)
			case 3:
				kws = append(kws, `"const": `+pick(lits...))
			case 4:
				kws = append(kws, `"not": `+pick(`{"pattern": "`+pats[rng.IntN(len(pats))]+`"}`, `{"enum": [`+pick(lits...)+`]}`, `{"const": `+pick(lits...)+`}`, `{"$ref": "#/$defs/p"}`))
			case 5:
				kws = append(kws, `"format": `+pick(`"ipv4"`, `"date"`, `"uuid"`, `"hostname"`))
			case 6:
				kws = append(kws, `"type": `+pick(`"string"`, `["string", "integer"]`, `["string", "null"]`))
			case 7:
				kws = append(kws, `"allOf": [{"pattern": "`+pats[rng.IntN(len(pats))]+`"}]`)
			case 8:
				kws = append(kws, `"$ref": "#/$defs/p"`)
			}
		}
		return "{" + strings.Join(kws, ", ") + "}"
	}
	compiled, checked := 0, 0
	for range 4000 {
		var schema string
		defs := `"$defs": {"p": ` + str() + `}`
		switch rng.IntN(3) {
		case 0:
			kw := str()
			schema = "{" + defs + ", " + kw[1:]
			if kw == "{}" {
				schema = "{" + defs + "}"
			}
		case 1:
			var vs []string
			for range 2 + rng.IntN(3) {
				vs = append(vs, pick(str(), str(), `{"type": "integer"}`, `{"type": "null"}`, `{"$ref": "#/$defs/p"}`))
			}
			schema = "{" + defs + `, "oneOf": [` + strings.Join(vs, ", ") + "]}"
		case 2:
			schema = "{" + defs + `, "type": "string", "anyOf": [` + str() + ", " + str() + "]}"
		}
		g, err := compileFormat(schema, true)
		if err != nil {
			continue
		}
		compiled++
		validator := assertingValidator(t, schema)
		for range 20 {
			var b strings.Builder
			for range rng.IntN(5) {
				b.WriteByte("ab01c.-"[rng.IntN(7)])
			}
			content := strconv.Quote(b.String())
			switch rng.IntN(6) {
			case 0:
				content = pick(lits...)
			case 1:
				content = pick(`1`, `null`, `true`, `[]`, `{}`, `"2023-01-02"`, `"1.2.3.4"`, `"a-b.c"`, `"123e4567-e89b-12d3-a456-426614174000"`, `12`)
			}
			matched, valid := verdicts(t, g, validator, content)
			if matched != valid {
				t.Errorf("%s: %s: grammar %v validator %v", schema, content, matched, valid)
			}
			checked++
		}
	}
	t.Logf("%d compiled, %d checked", compiled, checked)
	if compiled < 1500 || checked < 30000 {
		t.Errorf("only %d schemas compiled, %d values checked", compiled, checked)
	}
}
