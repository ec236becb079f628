package grammar

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Under strict, minLength and maxLength beside a pattern that
// lengthBounded can't count are the length automaton's (gap decision 197):
// exact, and nothing reported.
func TestLengthAutomaton(t *testing.T) {
	cases := []contentCase{
		{"a DNS label", `{"type": "string", "pattern": "^[a-z]([a-z0-9-]*[a-z0-9])?$", "maxLength": 5}`,
			[]string{`"a"`, `"ab-c"`, `"a-b-c"`}, []string{`"a-b-cd"`, `"ab-"`, `""`, `"-a"`}},
		{"an unanchored pattern", `{"type": "string", "pattern": "x", "minLength": 3, "maxLength": 4}`,
			[]string{`"axb"`, `"xxxx"`, `"aaax"`}, []string{`"xa"`, `"aaaax"`, `"aaa"`}},
		{"no maximum", `{"type": "string", "pattern": "^(ab|c)*$", "minLength": 3}`,
			[]string{`"abc"`, `"ccc"`, `"ababab"`}, []string{`"ab"`, `"abca"`, `""`}},
		{"a format", `{"type": "string", "format": "email", "maxLength": 7}`,
			[]string{`"a@b.co"`}, []string{`"ab@cd.com"`, `"abc"`}},
		{"ipv4 of at least 9 characters", `{"type": "string", "format": "ipv4", "minLength": 9}`,
			[]string{`"10.0.0.10"`, `"192.168.1.1"`}, []string{`"1.2.3.4"`, `"10.0.0.1"`, `"10.0.0.256"`}},
		{"escaped characters count as one", `{"type": "string", "pattern": "^[\"<]+[a-z]*$", "maxLength": 2}`,
			[]string{`"\"a"`, `"\u003c\""`}, []string{`"\"ab"`, `"a"`}},
		{"no value of such a length", `{"type": "object", "properties": {"s": {"type": "string", "pattern": "^(aaa)+$", "maxLength": 2}}}`,
			[]string{`{}`}, []string{`{"s": "aaa"}`, `{"s": ""}`}},
		// A long minimum: the pairs from which a string can end are
		// found backwards, in one pass (before, a sweep per character:
		// 58 ms for this one, 80 ms to refuse a json-pointer's).
		{"a long minimum", `{"type": "string", "pattern": "^(/[a-z~]*)*$", "minLength": 1000}`,
			[]string{`"/` + strings.Repeat("a", 999) + `"`, `"/` + strings.Repeat("a/", 600) + `"`},
			[]string{`"/` + strings.Repeat("a", 998) + `"`, `"/` + strings.Repeat("a", 998) + `A"`, `""`}},
	}
	checkStrictExact(t, cases)
	// In a raw argument too.
	tools := []Tool{{Name: "f", Strict: true, Parameters: json.RawMessage(`{"type": "object", "properties": {"id": {"type": "string", "pattern": "^[a-z]([a-z0-9-]*[a-z0-9])?$", "maxLength": 4}}, "required": ["id"], "additionalProperties": false}`)}}
	g, err := Compile(t.Context(), &Spec{Tools: tools, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	call := analysisPrefix + "<|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"id\">\n"
	for text, want := range map[string]bool{"ab-c": true, "a": true, "ab-cd": false, "ab-": false} {
		if g.Matches(call+text+"\n</rfl:parameter>") != want {
			t.Errorf("raw argument %q: in the grammar %v", text, !want)
		}
	}
}

// The length automaton agrees with a JSON Schema validator: random
// patterns and lengths, strict, against random strings.
func TestLengthAutomatonAgainstValidator(t *testing.T) {
	patterns := []string{`^[a-z]([a-z-]*[a-z])?$`, `a`, `^a|b$`, `^(ab)*c?$`, `[0-9]{2}`, `^-?[a-z]+(-[a-z]+)*$`, `^.{2,}b`}
	rng := rand.New(rand.NewPCG(7, 197))
	checked := 0
	for range 200 {
		p := patterns[rng.IntN(len(patterns))]
		lo, hi := rng.IntN(4), -1
		if rng.IntN(4) > 0 {
			hi = lo + rng.IntN(5)
		}
		schema := `{"type": "string", "pattern": ` + strconv.Quote(p) + `, "minLength": ` + itoa(lo)
		if hi >= 0 {
			schema += `, "maxLength": ` + itoa(hi)
		}
		schema += `}`
		g, err := compileFormat(schema, true)
		if err != nil && !strings.Contains(err.Error(), "no value satisfies this schema") {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		validator := validatorFor(t, schema)
		for range 20 {
			var b strings.Builder
			for range rng.IntN(9) {
				b.WriteByte("ab-1c0z"[rng.IntN(7)])
			}
			content := strconv.Quote(b.String())
			agreeWithValidator(t, schema, g, validator, content)
			checked++
		}
	}
	if checked < 4000 {
		t.Errorf("only %d strings checked", checked)
	}
}

// Lengths that every value of a pattern or format has already hold by
// themselves: not reported, strict or not (gap decision 197).
func TestImpliedLengths(t *testing.T) {
	for _, c := range []struct {
		schema  string
		in, out []string
	}{
		{`{"type": "string", "format": "date-time", "minLength": 1}`, []string{`"2024-02-29T13:45:00Z"`}, []string{`""`, `"x"`}},
		{`{"type": "string", "format": "uuid", "minLength": 36, "maxLength": 36}`, []string{`"123e4567-e89b-12d3-a456-426614174000"`}, []string{`"123e4567"`}},
		{`{"type": "string", "pattern": "^[a-z]{2,5}(-[0-9]{1,3})?$", "minLength": 2, "maxLength": 9}`, []string{`"ab"`, `"abcde-123"`}, []string{`"a"`, `"abcdef"`}},
	} {
		for _, strict := range []bool{false, true} {
			g, err := compileFormat(c.schema, strict)
			if err != nil || len(g.Dropped) != 0 {
				t.Errorf("%s (strict %v): %v %v", c.schema, strict, g, err)
				continue
			}
			checkContents(t, c.schema, g, c.in, c.out)
		}
	}
	for _, c := range []struct {
		pattern string
		lo, hi  int
	}{{"^a$", 1, 1}, {"^a*$", 0, -1}, {"^(ab){2,3}c?$", 4, 7}, {"^(|x{0,2})$", 0, 2}, {"^()*$", 0, 0}} {
		e, err := patternExpr(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if lo, hi := lengthRange(e); lo != c.lo || hi != c.hi {
			t.Errorf("lengthRange(%s) = %d, %d, want %d, %d", c.pattern, lo, hi, c.lo, c.hi)
		}
	}
}

// A pattern of several runs of classes beside a long maxLength (the
// AWS-style ARN of 42 MaskBench schemas) fits the length automaton's
// budget: each class of more than one range is a rule its moves refer to
// (moveChars), where it was written out in each of about 1,000 pairs.
// Strict, against a validator, at the bounds.
func TestLengthAutomatonSharesClasses(t *testing.T) {
	schema := `{"type": "string", "pattern": "^([a-z0-9-]+):([a-z0-9\\.-]+):([a-z0-9-]+)?:([a-z0-9-]+)$", "maxLength": 146}`
	g, err := compileFormat(schema, true)
	if err != nil {
		t.Fatal(err)
	}
	validator := validatorFor(t, schema)
	for _, s := range []string{"a:b::c", "aws:s3.x:eu-1:b", "a:b:c", "A:b::c", "a:b::" + strings.Repeat("c", 141), "a:b::" + strings.Repeat("c", 142), strings.Repeat("a", 140) + ":b.c:d:e", strings.Repeat("a", 141) + ":b.c:d:e"} {
		agreeWithValidator(t, schema, g, validator, strconv.Quote(s))
	}
}

// A length the automaton can't count within its limits (an email of up to
// 1,024 characters: states times counts past maxLengthStates) is reported
// not strict and an error under strict, saying so; a minLength of 0 beside
// it binds nothing and is not reported.
func TestLengthPastAutomatonReported(t *testing.T) {
	schema := `{"type": "string", "format": "email", "minLength": 0, "maxLength": 1024}`
	g, err := compileFormat(schema, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "response_format.json_schema.schema.maxLength"
	if len(g.Dropped) != 1 || g.Dropped[0].Path != want {
		t.Errorf("not strict: Dropped %v, want [%s]", g.Dropped, want)
	}
	_, err = compileFormat(schema, true)
	if err == nil || !strings.Contains(err.Error(), want+":") || !strings.Contains(err.Error(), "past its limits") {
		t.Errorf("strict: %v, want an error naming %s past the automaton's limits", err, want)
	}
}

// liveBackwards marks what a fixpoint of forward sweeps marks, on random
// graphs (self-loops, cycles, nodes without edges).
func TestLiveBackwards(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 197))
	for range 500 {
		n := 1 + rng.IntN(30)
		first, to := []int32{0}, []int32(nil)
		for range n {
			for range rng.IntN(4) {
				to = append(to, int32(rng.IntN(n)))
			}
			first = append(first, int32(len(to)))
		}
		live, want := make([]bool, n), make([]bool, n)
		for i := range n {
			live[i] = rng.IntN(6) == 0
			want[i] = live[i]
		}
		for changed := true; changed; {
			changed = false
			for i := range n {
				for _, j := range to[first[i]:first[i+1]] {
					if !want[i] && want[j] {
						want[i], changed = true, true
					}
				}
			}
		}
		liveBackwards(live, first, to)
		for i := range n {
			if live[i] != want[i] {
				t.Fatalf("graph %v %v: node %d live %v, want %v", first, to, i, live[i], want[i])
			}
		}
	}
}
