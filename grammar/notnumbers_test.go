package grammar

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// A not of an enum or const among integers, or among numbers with a
// bound, cuts the range around the values it rules out, in both modes,
// with nothing reported (gap decision 223).
func TestNotNumbers(t *testing.T) {
	cases := []contentCase{
		{"a port that is not a known one", `{"type": "integer", "minimum": 1024, "maximum": 65535, "not": {"enum": [6379, 6380, 43215]}}`,
			[]string{`1024`, `6378`, `6381`, `43214`, `43216`, `65535`}, []string{`6379`, `6380`, `43215`, `1023`, `65536`, `"6381"`}},
		{"not a const, unbounded", `{"type": "integer", "not": {"const": 3}}`,
			[]string{`0`, `2`, `4`, `-3`, `30`, `33`, `13`}, []string{`3`, `3.5`}},
		{"a const spelled with a fraction", `{"type": "integer", "not": {"const": 3.0}}`,
			[]string{`2`, `4`}, []string{`3`}},
		{"around zero", `{"type": "integer", "not": {"enum": [-1, 0, 1]}}`,
			[]string{`-2`, `2`, `-10`, `10`}, []string{`-1`, `0`, `1`}},
		{"members of other types and fractions rule out nothing here", `{"type": "integer", "not": {"enum": ["a", 2.5, null, 7]}}`,
			[]string{`2`, `3`, `8`}, []string{`7`, `"a"`, `null`}},
		{"the not's own type", `{"type": "integer", "not": {"type": "integer", "enum": [5]}}`,
			[]string{`4`, `6`}, []string{`5`}},
		{"a not of strings rules out no integer", `{"type": "integer", "not": {"type": "string", "enum": [5]}}`,
			[]string{`4`, `5`, `6`}, nil},
		{"two nots through allOf, one past the range", `{"type": "integer", "exclusiveMinimum": 0, "allOf": [{"not": {"const": 1}}, {"not": {"enum": [2, -5]}}]}`,
			[]string{`3`, `4`, `100`}, []string{`0`, `1`, `2`, `-5`}},
		{"beside null", `{"type": ["integer", "null"], "not": {"enum": [4]}}`,
			[]string{`null`, `3`, `5`}, []string{`4`}},
		{"bounded numbers: every spelling of the value", `{"type": "number", "minimum": 0, "maximum": 10, "not": {"enum": [3, 2.5]}}`,
			[]string{`0`, `2.49`, `2.51`, `2.99`, `3.001`, `10`, `10.0`, `0.5`}, []string{`3`, `3.0`, `3.000`, `2.5`, `2.50`, `10.5`, `-1`}},
		{"numbers bounded on one side", `{"type": "number", "exclusiveMinimum": 0, "not": {"const": 0.1}}`,
			[]string{`0.01`, `0.11`, `0.2`, `1`, `100.5`}, []string{`0`, `0.1`, `0.10`, `-0.1`}},
		{"numbers bounded above, a negative value", `{"type": "number", "maximum": 0, "not": {"const": -1.5}}`,
			[]string{`0`, `-1`, `-1.49`, `-1.51`, `-2`, `-100`}, []string{`-1.5`, `-1.50`, `0.5`}},
	}
	checkExact(t, cases) // not strict the same, nothing reported
	// Nots the integers can't apply stay reported: an error under strict.
	for _, schema := range []string{
		`{"type": ["integer", "null"], "not": {"enum": [null, 4]}}`, // null too
		`{"type": "number", "not": {"const": 3}}`,                   // unbounded: 3e0, 30e-1 too
		`{"not": {"const": 3}}`,
		`{"type": "integer", "multipleOf": 2, "not": {"const": 4}}`,
		`{"type": "integer", "not": {"const": 1e30}}`, // past maxRangeDigits
		`{"type": "integer", "not": {"enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]}}`,
		`{"type": "number", "minimum": 0, "not": {"const": 0.0000000000000000000000001}}`, // past maxRangeDigits
		`{"type": "integer", "not": {"minimum": 3}}`,
	} {
		if _, err := compileFormat(schema, true); err == nil || !strings.Contains(err.Error(), ".not: ") {
			t.Errorf("%s (strict): %v", schema, err)
		}
		if g, err := compileFormat(schema, false); err != nil || !droppedAt(g, "response_format.json_schema.schema.not") {
			t.Errorf("%s (not strict): %v %v", schema, g, err)
		}
	}
	// Nothing left is an error naming the schema.
	if _, err := compileFormat(`{"type": "integer", "minimum": 3, "maximum": 4, "not": {"enum": [3, 4]}}`, false); err == nil || !strings.Contains(err.Error(), "response_format.json_schema.schema: every integer within minimum and maximum is one that not, or the conditions of if, rule out") {
		t.Errorf("every integer ruled out: %v", err)
	}
}

// droppedAt reports whether g reports the keyword at path.
func droppedAt(g *Grammar, path string) bool {
	for _, d := range g.Dropped {
		if d.Path == path {
			return true
		}
	}
	return false
}

// The numbers' nots agree with a JSON Schema validator: integers, or
// numbers with at least one bound, random bounds (inclusive, exclusive or
// none) and random nots of numbers, one or two, against every integer
// near them, a few far ones, and for numbers halves and quarters, in both
// modes.
func TestNotNumbersAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 223))
	member := func() string {
		n := strconv.Itoa(rng.IntN(41) - 20)
		switch rng.IntN(7) {
		case 0:
			return n + ".0" // the same integer
		case 1:
			return n + ".5"
		case 2:
			return n + ".25"
		case 3:
			return `"` + n + `"`
		}
		return n
	}
	not := func() string {
		if rng.IntN(3) == 0 {
			return `{"not": {"const": ` + member() + `}}`
		}
		var ms []string
		for range 1 + rng.IntN(5) {
			ms = append(ms, member())
		}
		return `{"not": {"enum": [` + strings.Join(ms, ", ") + `]}}`
	}
	bound := func(kws ...string) string {
		return `"` + kws[rng.IntN(len(kws))] + `": ` + strconv.Itoa(rng.IntN(41)-20) + []string{"", ".5"}[rng.IntN(2)] + `, `
	}
	var integers, numbers []string
	for n := -25; n <= 25; n++ {
		integers = append(integers, strconv.Itoa(n))
		numbers = append(numbers, strconv.Itoa(n), fmt.Sprintf("%.1f", float64(n)+0.5), fmt.Sprintf("%.2f", float64(n)+0.25), strconv.Itoa(n)+".0")
	}
	integers = append(integers, `100`, `-100`, `123456789`, `-987654321`)
	numbers = append(numbers, `100.5`, `-100.5`, `0.0`, `-0.5`)
	checked := 0
	for i := range 300 {
		typ, values := `"integer"`, integers
		lo, hi := "", ""
		if rng.IntN(3) > 0 {
			lo = bound("minimum", "exclusiveMinimum")
		}
		if rng.IntN(3) > 0 {
			hi = bound("maximum", "exclusiveMaximum")
		}
		if i%2 == 1 {
			typ, values = `"number"`, numbers
			if lo == "" && hi == "" {
				lo = bound("minimum", "exclusiveMinimum")
			}
		}
		schema := `{"type": ` + typ + `, ` + lo + hi + `"allOf": [` + not()
		if rng.IntN(2) == 0 {
			schema += `, ` + not()
		}
		schema += `]}`
		validator := validatorFor(t, schema)
		for _, strict := range []bool{false, true} {
			g, err := compileFormat(schema, strict)
			var ce *Error
			if err != nil && !errors.As(err, &ce) {
				t.Errorf("%s: %v", schema, err)
				continue
			}
			// (Refused: agreeWithValidator checks that no value is valid.)
			if g != nil && len(g.Dropped) != 0 {
				t.Errorf("%s: reported %v", schema, g.Dropped)
			}
			for _, v := range values {
				agreeWithValidator(t, schema, g, validator, v)
				checked++
			}
		}
	}
	if checked < 60000 {
		t.Errorf("only %d values checked", checked)
	}
}
