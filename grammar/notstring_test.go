package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Under strict, a not that rules out strings by their text (a pattern, an
// enum or const of strings) is enforced on the view's strings by the
// string automaton (gap decision 198); not strict, it stays reported.
func TestNotStrings(t *testing.T) {
	cases := []contentCase{
		{"not a pattern: strings only", `{"not": {"pattern": "^a"}}`,
			[]string{`"b"`, `""`, `"ba"`}, []string{`"a"`, `"abc"`, `1`, `null`, `{}`}},
		{"not a pattern of strings", `{"not": {"type": "string", "pattern": "^a"}}`,
			[]string{`"b"`, `1`, `null`, `[]`}, []string{`"a"`, `"ab"`}},
		{"not an enum", `{"type": "string", "not": {"enum": ["a", "bc"]}}`,
			[]string{`"b"`, `"abc"`, `""`, `"bcd"`}, []string{`"a"`, `"bc"`}},
		{"not a const, any type", `{"not": {"const": "x"}}`,
			[]string{`"y"`, `1`, `{"a": 1}`}, []string{`"x"`}},
		{"beside a pattern and lengths", `{"type": "string", "pattern": "^[a-z]+$", "maxLength": 4, "not": {"pattern": "^(admin|root)$"}}`,
			[]string{`"adm"`, `"user"`}, []string{`"root"`, `"admin"`, `"users"`, `"Ab"`}},
		{"two nots through allOf", `{"type": "string", "allOf": [{"not": {"pattern": "x"}}, {"not": {"const": ""}}]}`,
			[]string{`"a"`, `"ab"`}, []string{`""`, `"ax"`}},
		{"beside a format", `{"type": "string", "format": "date", "not": {"pattern": "^1999-"}}`,
			[]string{`"2024-01-31"`}, []string{`"1999-12-31"`, `"x"`}},
	}
	checkStrictExact(t, cases)
	// Not strict, the not is reported, as before.
	for _, c := range cases {
		if g, err := compileFormat(c.schema, false); err != nil || len(g.Dropped) == 0 || g.Dropped[0].Keyword != "not" {
			t.Errorf("%s (not strict): %v %v", c.name, g, err)
		}
	}
	// In propertyNames the keys' language enforces it (decision 314), but
	// not beside the declared names of an open object, even where a
	// value's not was just enforced: an error under strict.
	schema := `{"type": "object", "properties": {"a": {"type": "string", "not": {"pattern": "^x"}}}, "propertyNames": {"not": {"pattern": "^x"}}}`
	if _, err := compileFormat(schema, true); err == nil || !strings.Contains(err.Error(), ".propertyNames: ") {
		t.Errorf("%s: %v", schema, err)
	}
}

// The string automaton's nots agree with a JSON Schema validator: random
// nots of patterns and enums, with and without a pattern and lengths,
// against random values.
func TestNotStringsAgainstValidator(t *testing.T) {
	nots := []string{`{"pattern": "^a"}`, `{"pattern": "b"}`, `{"type": "string", "pattern": "a.$"}`, `{"enum": ["ab", "", "c-1"]}`, `{"const": "ba"}`, `{"type": "string", "enum": ["a"]}`}
	sides := []string{``, `"type": "string", `, `"pattern": "^[a-c1-]*$", `, `"minLength": 1, "maxLength": 3, `}
	values := []string{`1`, `null`, `true`, `[]`, `{}`}
	rng := rand.New(rand.NewPCG(7, 198))
	checked := 0
	for range 150 {
		schema := `{` + sides[rng.IntN(len(sides))] + `"not": ` + nots[rng.IntN(len(nots))] + `}`
		g, err := compileFormat(schema, true)
		if err != nil {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		validator := validatorFor(t, schema)
		for range 20 {
			var content string
			if rng.IntN(5) == 0 {
				content = values[rng.IntN(len(values))]
			} else {
				var b strings.Builder
				for range rng.IntN(5) {
					b.WriteByte("abc1-"[rng.IntN(5)])
				}
				content = strconv.Quote(b.String())
			}
			agreeWithValidator(t, schema, g, validator, content)
			checked++
		}
	}
	if checked < 2500 {
		t.Errorf("only %d values checked", checked)
	}
}
