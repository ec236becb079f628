package grammar

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// A multipleOf of 10^-k is enforced, with and without bounds, strict or
// not (gap decision 220): numbers of at most k fraction digits that
// matter, without an exponent, as bounded numbers are written.
func TestDecimalMultiples(t *testing.T) {
	for _, c := range []struct {
		schema  string
		in, out []string
	}{
		{`{"type": "number", "multipleOf": 0.01}`,
			[]string{`0`, `12`, `-3`, `1.5`, `1.50`, `1.500`, `-0.07`, `19.99`, `0.10000`},
			[]string{`1.234`, `0.001`, `-0.005`, `1.5e2`, `1.2340`}},
		{`{"type": "number", "multipleOf": 0.1, "minimum": 0}`,
			[]string{`0`, `0.1`, `7.5`, `7.50`, `100`},
			[]string{`-0.1`, `0.05`, `7.55`}},
		{`{"type": "number", "multipleOf": 0.01, "minimum": 0, "maximum": 99999999999.99}`,
			[]string{`0`, `0.01`, `99999999999.99`, `5.5`},
			[]string{`100000000000`, `99999999999.991`, `-0.01`}},
		{`{"type": "number", "multipleOf": 0.01, "exclusiveMinimum": 0.005, "exclusiveMaximum": 1}`,
			[]string{`0.01`, `0.99`, `0.5`},
			[]string{`0`, `1`, `1.00`, `0.005`}},
		{`{"type": "number", "multipleOf": 0.01, "minimum": -1.234, "maximum": -0.001}`,
			[]string{`-1.23`, `-0.01`, `-1`},
			[]string{`-1.24`, `0`, `-0`, `-0.001`}},
		{`{"type": ["number", "null"], "multipleOf": 0.01}`,
			[]string{`null`, `2.25`},
			[]string{`2.255`}},
		{`{"type": "number", "allOf": [{"multipleOf": 0.1}, {"multipleOf": 0.001}]}`,
			[]string{`0.3`, `0.30`},
			[]string{`0.03`, `0.003`}},
	} {
		for _, strict := range []bool{false, true} {
			g, err := compileFormat(c.schema, strict)
			if err != nil {
				t.Fatalf("%s strict %v: %v", c.schema, strict, err)
			}
			if len(g.Dropped) > 0 {
				t.Errorf("%s: reported %v", c.schema, g.Dropped)
			}
			checkContents(t, c.schema, g, c.in, c.out)
		}
	}
	// No multiple within the bounds: nothing to write.
	if _, err := compileFormat(`{"type": "number", "multipleOf": 0.1, "minimum": 0.01, "maximum": 0.09}`, false); err == nil || !strings.Contains(err.Error(), "no multiple of multipleOf") {
		t.Errorf("no multiple: %v", err)
	}
	// A tool's argument, written raw: the same numbers.
	g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(`{"type": "object", "properties": {"p": {"type": "number", "multipleOf": 0.01, "minimum": 0}}, "required": ["p"], "additionalProperties": false}`), Strict: true}}, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	checkArgs(t, g, []argCase{{xmlArg("p", "19.99"), true}, {xmlArg("p", "2.50"), true}, {xmlArg("p", "0"), true}, {xmlArg("p", "1.005"), false}, {xmlArg("p", "-1"), false}})
	// Fractions of more than 64 remainders stay reported, and so do
	// the others beside bounds without strict.
	for _, schema := range []string{`{"type": "number", "multipleOf": 0.875}`, `{"type": "number", "multipleOf": 0.25, "minimum": 1}`} {
		if g, err := compileFormat(schema, false); err != nil || len(g.Dropped) != 1 {
			t.Errorf("%s: %v", schema, err)
		}
	}
}

// Random decimal multipleOf with random bounds, against a JSON Schema
// validator on random decimals: the grammar accepts exactly the valid
// ones (every number drawn is written without an exponent, as the grammar
// writes them).
func TestDecimalMultiplesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(220, 1))
	decimal := func() string {
		s := strconv.Itoa(rng.IntN(200))
		if rng.IntN(3) == 0 {
			s = strconv.Itoa(rng.IntN(3))
		}
		if rng.IntN(3) > 0 {
			f := ""
			for range 1 + rng.IntN(5) {
				f += strconv.Itoa(rng.IntN(10))
			}
			if rng.IntN(4) == 0 {
				f += "00"
			}
			s += "." + f
		}
		if rng.IntN(2) == 0 && s != "0" {
			s = "-" + s
		}
		return s
	}
	schemas, values, accepted := 0, 0, 0
	for range 300 {
		k := 1 + rng.IntN(4)
		parts := []string{`"type": "number"`, fmt.Sprintf(`"multipleOf": 1e-%d`, k)}
		for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if rng.IntN(3) == 0 {
				parts = append(parts, fmt.Sprintf(`%q: %s`, kw, decimal()))
			}
		}
		schema := "{" + strings.Join(parts, ", ") + "}"
		g, err := compileFormat(schema, true)
		if err != nil {
			if !strings.Contains(err.Error(), "no multiple of multipleOf") && !strings.Contains(err.Error(), "no number") && !strings.Contains(err.Error(), "no value") {
				t.Fatalf("%s: %v", schema, err)
			}
			continue
		}
		schemas++
		accepted += judgedByValidator(t, g, schema, 40, func(int) string { return decimal() })
		values += 40
	}
	t.Logf("%d schemas, %d values, %d valid", schemas, values, accepted)
	if schemas < 100 || accepted < values/10 {
		t.Errorf("too few: %d schemas, %d of %d valid", schemas, accepted, values)
	}
}

// A multipleOf of j×10^-k (0.25, 1.5, 0.05, ...), j up to maxMultiple,
// without bounds (strict or not) or under strict beside them: the numbers of at most k fraction digits that matter
// whose digits are a multiple of j, against a JSON Schema validator on
// random decimals and on random multiples (gap decision 220).
func TestDecimalJMultiplesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(220, 2))
	refused := 0
	mults := []string{"0.25", "1.5", "2.5", "0.05", "0.2", "0.35", "0.025", "0.3", "1.2", "6.4", "0.16", "0.003"}
	schemas, values, accepted := 0, 0, 0
	for range 200 {
		m := mults[rng.IntN(len(mults))]
		parts := []string{`"type": "number"`, `"multipleOf": ` + m}
		for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if rng.IntN(4) == 0 {
				parts = append(parts, fmt.Sprintf(`%q: %d.%d`, kw, rng.IntN(40)-20, rng.IntN(100)))
			}
		}
		schema := "{" + strings.Join(parts, ", ") + "}"
		// Without bounds, not strict too (the same rules).
		strict := len(parts) > 2 || rng.IntN(2) == 0
		g, err := compileFormat(schema, strict)
		if err == nil && !strict && len(g.Dropped) > 0 {
			t.Fatalf("%s: reported %v", schema, g.Dropped)
		}
		if err != nil {
			// (6.4's 64 remainders, or 0.025's beside a bound, take the
			// automaton past its limits: refused, as strict must.)
			if !strings.Contains(err.Error(), "no multiple of multipleOf") && !strings.Contains(err.Error(), "past its limits") {
				t.Fatalf("%s: %v", schema, err)
			}
			refused++
			continue
		}
		schemas++
		mr, _ := new(big.Rat).SetString(m)
		accepted += judgedByValidator(t, g, schema, 40, func(i int) string {
			if i%2 == 0 {
				// A multiple, written with 0 to 3 zeros after it.
				x := new(big.Rat).Mul(mr, big.NewRat(int64(rng.IntN(400)-200), 1))
				text := strings.TrimRight(strings.TrimRight(x.FloatString(4), "0"), ".")
				if strings.Contains(text, ".") {
					text += strings.Repeat("0", rng.IntN(3))
				}
				return text
			}
			return strconv.Itoa(rng.IntN(60)-30) + "." + strconv.Itoa(rng.IntN(1000))
		})
		values += 40
	}
	t.Logf("%d schemas (%d refused), %d values, %d valid", schemas, refused, values, accepted)
	if schemas < 100 || accepted < values/5 {
		t.Errorf("too few: %d schemas, %d of %d valid", schemas, accepted, values)
	}
}

// Whole numbers (type integer) of a fractional multipleOf p/q: the
// multiples of p, with and without bounds, against a JSON Schema
// validator (gap decision 220).
func TestWholeMultiplesOfFractionsAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(220, 3))
	mults := []string{"2.5", "0.75", "1.5", "0.4", "3.5", "0.125", "1e-8", "6.4"}
	schemas, values, accepted := 0, 0, 0
	for range 150 {
		parts := []string{`"type": "integer"`, `"multipleOf": ` + mults[rng.IntN(len(mults))]}
		for _, kw := range []string{"minimum", "maximum"} {
			if rng.IntN(3) == 0 {
				parts = append(parts, fmt.Sprintf(`%q: %d`, kw, rng.IntN(200)-100))
			}
		}
		schema := "{" + strings.Join(parts, ", ") + "}"
		g, err := compileFormat(schema, true)
		if err != nil {
			if !strings.Contains(err.Error(), "no multiple of multipleOf") && !strings.Contains(err.Error(), "no integer") && !strings.Contains(err.Error(), "no value") {
				t.Fatalf("%s: %v", schema, err)
			}
			continue
		}
		schemas++
		accepted += judgedByValidator(t, g, schema, 40, func(int) string { return strconv.Itoa(rng.IntN(300) - 150) })
		values += 40
	}
	t.Logf("%d schemas, %d values, %d valid", schemas, values, accepted)
	if schemas < 100 || accepted < values/20 {
		t.Errorf("too few: %d schemas, %d of %d valid", schemas, accepted, values)
	}
}

// judgedByValidator compares g's verdict on n contents drawn by draw (in
// order, i from 0) with a JSON Schema validator's for schema, failing at
// the first that differs, and returns how many were valid.
func judgedByValidator(t *testing.T, g *Grammar, schema string, n int, draw func(i int) string) (valid int) {
	t.Helper()
	validator := validatorFor(t, schema)
	for i := range n {
		text := draw(i)
		v, err := unmarshalInstance(text)
		if err != nil {
			t.Fatal(err)
		}
		ok := validator.Validate(v) == nil
		if got := g.Matches(suiteText(text)); got != ok {
			t.Fatalf("%s: %s: grammar %v, validator %v", schema, text, got, ok)
		}
		if ok {
			valid++
		}
	}
	return valid
}
