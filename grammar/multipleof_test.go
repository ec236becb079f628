package grammar

import (
	"strings"
	"testing"
)

// multipleOf of whole numbers (at most 64 together), without bounds
// beside, is written as the integers it admits; for integers, one that
// divides 1 admits them all; otherwise it is reported (an error under
// strict), and where the value can't be a number it constrains nothing.
func TestMultipleOf(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		err          string
		in, out      []string
	}{
		{"by 2", `{"type": "integer", "multipleOf": 2}`, "", []string{`0`, `10`, `-4`, `1234567890`}, []string{`7`, `-3`, `1.5`}},
		{"by 3", `{"multipleOf": 3}`, "", []string{`0`, `9`, `123`, `-999`, `"a"`, `[1]`}, []string{`10`, `124`, `1.5`}},
		{"by 7, type number", `{"type": "number", "multipleOf": 7}`, "", []string{`0`, `49`, `1001`}, []string{`50`, `7.5`}},
		{"two of them", `{"allOf": [{"multipleOf": 2}, {"multipleOf": 3}]}`, "", []string{`6`, `36`}, []string{`4`, `9`}},
		{"an enum beside", `{"enum": [1, 2, 3, 4], "multipleOf": 2}`, "", []string{`2`, `4`}, []string{`1`, `3`}},
		{"a const beside", `{"const": 3, "multipleOf": 2}`, "no value", nil, nil},
		{"dividing 1, for integers", `{"type": "integer", "multipleOf": 1e-8}`, "", []string{`5`, `-12`}, []string{`1.5`}},
		{"no number", `{"type": "string", "multipleOf": 1.5}`, "", []string{`"a"`}, nil},
		{"whole numbers of a fraction (decision 220)", `{"type": "integer", "multipleOf": 2.5}`, "", []string{`0`, `5`, `-10`, `25`}, []string{`2`, `7`, `12`}},
		{"whole numbers of a fraction beside a bound", `{"type": "integer", "multipleOf": 0.75, "minimum": 4}`, "", []string{`6`, `9`, `300`}, []string{`3`, `4`, `7`}},
		{"a fraction (decision 220)", `{"multipleOf": 1.5}`, "", []string{`0`, `1.5`, `-4.50`, `3`, `"a"`, `[1]`}, []string{`1`, `2.25`, `0.5`}},
		{"a fraction of too many remainders", `{"multipleOf": 0.875}`, "multipleOf", nil, nil},
		{"beside a bound (decision 204)", `{"type": "integer", "multipleOf": 2, "minimum": 1}`, "", []string{`2`, `40`}, []string{`0`, `3`}},
		{"beside a bound past the automaton's limits", `{"type": "integer", "multipleOf": 64, "minimum": -9223372036854775808, "maximum": 9223372036854775807}`, "multipleOf", nil, nil},
		{"too large", `{"type": "integer", "multipleOf": 65}`, "multipleOf", nil, nil},
	} {
		g, err := compileFormat(c.schema, true)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error about %s", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkContents(t, c.name, g, c.in, c.out)
	}
}
