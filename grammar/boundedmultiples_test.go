package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// multipleOf beside minimum or maximum: the whole numbers in the range for
// 1, and under strict the multiples in the range by an automaton (gap
// decision 204).
func TestBoundedMultiples(t *testing.T) {
	checkStrictExact(t, []contentCase{
		{"from a minimum", `{"type": "number", "multipleOf": 11, "minimum": 100}`,
			[]string{`110`, `121`, `1100`}, []string{`99`, `100`, `0`, `-11`, `110.0`}},
		{"within both", `{"type": "integer", "minimum": -2032, "maximum": 2031, "multipleOf": 16}`,
			[]string{`-2032`, `0`, `16`, `2016`}, []string{`-2048`, `2032`, `17`, `-0`}},
		{"untyped", `{"multipleOf": 10, "maximum": 20}`,
			[]string{`20`, `-10`, `0`, `"x"`, `null`}, []string{`30`, `15`}},
		{"two multipleOf", `{"multipleOf": 4, "allOf": [{"multipleOf": 6}], "exclusiveMinimum": 0, "exclusiveMaximum": 50}`,
			[]string{`12`, `24`, `36`, `48`}, []string{`0`, `6`, `8`, `60`}},
		{"one: whole numbers", `{"type": "number", "multipleOf": 1, "minimum": 0}`,
			[]string{`0`, `1`, `100`}, []string{`-1`, `1.5`}},
	})
	if g, err := compileFormat(`{"type": "number", "multipleOf": 1.0, "minimum": 0.5, "maximum": 3}`, false); err != nil || len(g.Dropped) != 0 {
		t.Errorf("not strict, multipleOf 1 beside bounds: %v %v", g, err)
	}
	if g, err := compileFormat(`{"type": "integer", "multipleOf": 3, "minimum": 5}`, false); err != nil || droppedPaths(g) != "response_format.json_schema.schema.multipleOf" {
		t.Errorf("not strict, a multiple beside bounds is reported: %v %v", g, err)
	}
	if _, err := compileFormat(`{"type": "integer", "multipleOf": 7, "minimum": 1, "maximum": 6}`, true); err == nil || !strings.Contains(err.Error(), "no multiple") {
		t.Errorf("no multiple of 7 from 1 to 6: %v", err)
	}
}

// Against a JSON Schema validator, on random bounds, multiples and numbers.
func TestBoundedMultiplesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 204))
	checked := 0
	for range 150 {
		k := 2 + rng.IntN(15)
		schema := `{"type": "` + []string{"integer", "number"}[rng.IntN(2)] + `", "multipleOf": ` + strconv.Itoa(k)
		lo := rng.IntN(200) - 100
		if rng.IntN(3) != 0 {
			schema += `, "` + []string{"minimum", "exclusiveMinimum"}[rng.IntN(2)] + `": ` + strconv.Itoa(lo)
		}
		if rng.IntN(3) != 0 || !strings.Contains(schema, "imum") {
			schema += `, "` + []string{"maximum", "exclusiveMaximum"}[rng.IntN(2)] + `": ` + strconv.Itoa(lo+rng.IntN(300))
		}
		schema += `}`
		g, err := compileFormat(schema, true)
		if err != nil && !strings.Contains(err.Error(), "no multiple") {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		validator := validatorFor(t, schema)
		for range 30 {
			content := strconv.Itoa(rng.IntN(500) - 250)
			agreeWithValidator(t, schema, g, validator, content)
			checked++
		}
	}
	if checked < 4000 {
		t.Errorf("only %d instances checked", checked)
	}
}
