package grammar

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The key automaton (gap decision 196): under strict, several
// patternProperties, and patterns beside other members, are enforced as
// JSON Schema applies them (each member takes the schemas of the patterns
// its key matches, or additionalProperties when none does), and nothing
// is reported.
func TestKeyAutomaton(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		strict       bool
		in, out      []string
		dropped      string // a keyword reported dropped, or ""
	}{
		{"a pattern beside open members", `{"type": "object", "patternProperties": {"^x-": {"type": "integer"}}}`, true,
			[]string{`{}`, `{"x-a": 1}`, `{"a": "s"}`, `{"x": [1]}`, `{"x-": 2, "b": null}`, `{"": 1}`},
			[]string{`{"x-a": "s"}`, `{"x-": null}`, `{"a": 1, "x-b": 1.5}`}, ""},
		{"an unanchored pattern beside open members", `{"patternProperties": {"\\w": {"type": "string"}}}`, true,
			[]string{`{"a": "s"}`, `{"-": 1}`, `{"": [], "--": {}}`, `{"-a-": "t"}`, `7`},
			[]string{`{"a": 1}`, `{"-a-": 2}`, `{"": 1, "_": false}`}, ""},
		{"two patterns, overlapping, closed", `{"patternProperties": {"^a": {"type": "integer"}, "b$": {"minimum": 10}}, "additionalProperties": false}`, true,
			[]string{`{"a": 1}`, `{"b": 10}`, `{"ab": 12}`, `{"b": "x"}`, `{"xb": 11}`},
			[]string{`{"ab": 5}`, `{"ab": "x"}`, `{"c": 1}`, `{"a": "x"}`, `{"b": 9}`}, ""},
		{"two patterns and an additionalProperties schema", `{"type": "object", "patternProperties": {"^a": {"type": "integer"}, "^b": {"type": "boolean"}}, "additionalProperties": {"type": "string"}}`, true,
			[]string{`{"a1": 1, "b1": true, "c": "s"}`, `{"": "e"}`},
			[]string{`{"a1": true}`, `{"b": 1}`, `{"c": 1}`, `{"": null}`}, ""},
		{"a pattern beside declared properties, open", `{"type": "object", "properties": {"id": {"type": "string"}}, "patternProperties": {"^i": {"type": "integer"}}}`, true,
			[]string{`{"ix": 1, "z": "any"}`, `{"i": 2}`, `{"z": null}`},
			// "id" matches the pattern too: its value must be a string and an integer.
			[]string{`{"id": "s"}`, `{"id": 1}`, `{"ix": "s"}`, `{"id": "s", "id": "t"}`}, ""},
		{"a pattern that matches a declared name", `{"properties": {"a1": {"type": "integer"}}, "patternProperties": {"^a": {"minimum": 0}}, "additionalProperties": false}`, true,
			[]string{`{"a1": 3}`, `{"a1": 3, "a2": 0}`, `{"a2": 5.5}`},
			[]string{`{"a1": -1}`, `{"a2": -1}`, `{"b": 1}`, `{"a1": 3, "a1": 4}`}, ""},
		{"patterns in two schemas of allOf", `{"allOf": [{"patternProperties": {"^a": {"type": "integer"}}}, {"patternProperties": {"^.b": {"minimum": 5}}, "additionalProperties": false}]}`, true,
			[]string{`{"ab": 5}`, `{"xb": 7.5}`},
			[]string{`{"ab": 4}`, `{"a": 1}`, `{"xb": 4}`, `{"ab": 6.5}`}, ""},
		{"a required name a pattern matches, and other members the patterns name", `{"type": "object", "properties": {"n": {"type": "integer"}},
				"patternProperties": {"^b_(start|end)$": {"type": "string", "maxLength": 2}, "^b_": {"minLength": 1}},
				"required": ["b_start", "n"], "additionalProperties": false}`, true,
			[]string{`{"n": 1, "b_start": "ab"}`, `{"n": 1, "b_start": "ab", "b_x": "long"}`, `{"n": 1, "b_start": "a", "b_end": "z", "b_": "w"}`},
			[]string{`{"n": 1, "b_start": "ab", "b_x": ""}`, `{"n": 1, "b_start": "ab", "b_end": "abc"}`, `{"n": 1, "b_start": "ab", "c": 1}`, `{"n": 1, "b_start": "ab", "b_start": "a"}`}, ""},
		// Not strict, there is no automaton: the patterns are reported,
		// as before (their members may hold any value).
		{"several patterns, not strict", `{"patternProperties": {"^a": {"type": "integer"}, "^b": {"type": "string"}}}`, false,
			[]string{`{"a": 1, "b": "s"}`, `{}`, `{"a": "s"}`},
			nil, "patternProperties"},
		// Keys are written as JSON writes them: a quote or a "<" in a key
		// is matched as its escape.
		{"keys with escapes", `{"patternProperties": {"^<": {"type": "integer"}, "\"": {"type": "string"}}, "additionalProperties": false}`, true,
			[]string{`{"\u003ca": 1}`, `{"x\"": "s"}`},
			[]string{`{"<a": 1}`, `{"\u003ca": "s"}`, `{"x\"": 1}`}, ""},
		// Declared names with such characters are read by the automaton
		// as any other: a key spells a character one way, so no other
		// member names them (gap decision 313; an error before).
		{"declared names with escapes", `{"properties": {"x<y": {"type": "integer"}, "t\n": {"type": "integer"}, "b\\": {"type": "integer"}}, "patternProperties": {"^<": {"type": "string"}, "\"": {"type": "boolean"}}, "additionalProperties": {"type": "null"}}`, true,
			[]string{`{"x<y": 1, "t\n": 2, "b\\": 3, "\u003ca": "s", "q\"": true, "x": null, "x\u003cz": null, "t": null}`, `{}`},
			[]string{`{"x\u003cy": null}`, `{"t\n": null}`, `{"t\u000a": null}`, `{"b\\": null}`, `{"x<z": null}`, `{"x": 1}`}, ""},
	} {
		g, err := compileFormat(c.schema, c.strict)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkContents(t, c.name, g, c.in, c.out)
		for _, d := range g.Dropped {
			if d.Keyword != c.dropped {
				t.Errorf("%s: %s reported dropped", c.name, d.Path)
			}
		}
		if c.dropped != "" && len(g.Dropped) == 0 {
			t.Errorf("%s: %s not reported", c.name, c.dropped)
		}
	}
}

// Past its limits the key automaton is not built, and the patterns are
// reported as before: an error under strict.
func TestKeyAutomatonLimits(t *testing.T) {
	var many []string
	for i := range maxKeyPatterns + 1 {
		many = append(many, `"^p`+itoa(i)+`": {"type": "integer"}`)
	}
	for _, c := range []struct{ name, schema string }{
		{"too many patterns", `{"patternProperties": {` + strings.Join(many, ", ") + `}}`},
		// Each {0,40} multiplies the states a key can be in.
		{"too many states", `{"patternProperties": {"a.{40}$": {"type": "integer"}, "b.{40}$": {"type": "string"}}}`},
		{"a pattern the translator refuses", `{"patternProperties": {"^(?<=a)": {"type": "integer"}}}`},
	} {
		if _, err := compileFormat(c.schema, true); err == nil || !strings.Contains(err.Error(), "patternProperties") {
			t.Errorf("%s: strict: %v", c.name, err)
		}
	}
}

// Many objects with heavy patterns: the key automata share one budget of
// work and of engine elements per grammar, so that such a schema takes no
// more memory than the cap (not strict, there are none: the patterns are
// reported and the schema compiles).
func TestKeyAutomataAreBounded(t *testing.T) {
	for _, pat := range []string{`^a[a-z]{0,300}$`, `^a[a-z]{0,600}$`, `a.{8}$`, `(a|b)[ab]{9}$`} {
		var props []string
		for i := range 100 {
			props = append(props, `"p`+itoa(i)+`": {"type": "object", "properties": {"x`+itoa(i)+`": {}}, "patternProperties": {`+strconv.Quote(pat)+`: {"type": "integer"}, "^b": {"type": "string"}}}`)
		}
		schema := `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}}`
		for _, strict := range []bool{false, true} {
			var err error
			if n := allocated(func() { _, err = compileFormat(schema, strict) }); n > maxCompileBytes {
				t.Errorf("%s (strict %v): %d bytes allocated", pat, strict, n)
			}
			if !strict && err != nil {
				t.Errorf("%s: %v", pat, err)
			}
		}
	}
}

// The key automaton agrees with a JSON Schema validator: random objects of
// patternProperties (anchored and not, overlapping), declared properties
// and additionalProperties, strict, against random instances (members in
// the declared order, as the grammar writes them). A strict grammar that
// compiles accepts exactly the valid instances.
func TestKeyAutomatonAgainstValidator(t *testing.T) {
	patterns := []string{`^a`, `b$`, `\d`, `^x-`, `^[a-z]+$`, `^.{2}$`, `a|b`, `^$`}
	values := []string{`{"type": "integer"}`, `{"type": "string"}`, `{"minimum": 0}`, `{"type": ["boolean", "null"]}`, `{}`, `false`}
	keys := []string{"a", "b", "ab", "ba", "x-1", "x-", "1", "", "zz", "a1", "Ab"}
	members := []string{`1`, `-1`, `"s"`, `true`, `null`, `2.5`}
	rng := rand.New(rand.NewPCG(7, 196))
	checked := 0
	for range 300 {
		var pp []string
		for _, i := range rng.Perm(len(patterns))[:1+rng.IntN(3)] {
			pp = append(pp, strconv.Quote(patterns[i])+": "+values[rng.IntN(len(values))])
		}
		var declared []string
		var props []string
		deps := rng.IntN(4) == 0
		for _, k := range keys {
			if rng.IntN(6) == 0 && !(deps && k == "ab") {
				declared = append(declared, k)
				props = append(props, strconv.Quote(k)+": "+values[rng.IntN(len(values)-1)])
			}
		}
		schema := `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "patternProperties": {` + strings.Join(pp, ", ") + `}`
		switch rng.IntN(3) {
		case 0:
			schema += `, "additionalProperties": false`
		case 1:
			schema += `, "additionalProperties": {"type": "null"}`
		}
		if deps {
			// A trigger kept out of the keys when absent (freeMember's
			// except); present, it and the name it requires are written
			// after the declared names.
			schema += `, "dependentSchemas": {"ab": {"required": ["q"]}}`
		}
		schema += `}`
		g, err := compileFormat(schema, true)
		if err != nil {
			continue // reported, as the limits allow
		}
		validator := validatorFor(t, schema)
		for range 20 {
			// The declared names first, in order, then the others.
			var names []string
			for _, k := range declared {
				if rng.IntN(2) == 0 {
					names = append(names, k)
				}
			}
			if deps && rng.IntN(2) == 0 {
				names = append(names, "q", "ab") // the order the case writes them in
			}
			for _, k := range keys {
				if !slices.Contains(declared, k) && !(deps && k == "ab") && rng.IntN(4) == 0 {
					names = append(names, k)
				}
			}
			var parts []string
			for _, k := range names {
				parts = append(parts, strconv.Quote(k)+": "+members[rng.IntN(len(members))])
			}
			content := "{" + strings.Join(parts, ", ") + "}"
			agreeWithValidator(t, schema, g, validator, content)
			checked++
		}
	}
	if checked < 2000 {
		t.Errorf("only %d instances checked", checked)
	}
}

// validatorFor is a JSON Schema validator of schema (draft 2020-12).
func validatorFor(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	return validatorWith(t, schema, nil)
}

// validatorWith is validatorFor with the patterns read by engine (nil:
// the validator's own, Go's regexp).
func validatorWith(t *testing.T, schema string, engine jsonschema.RegexpEngine) *jsonschema.Schema {
	t.Helper()
	var doc any
	if err := json.Unmarshal([]byte(schema), &doc); err != nil {
		t.Fatal(err)
	}
	vc := jsonschema.NewCompiler()
	if engine != nil {
		vc.UseRegexpEngine(engine)
	}
	if err := vc.AddResource("mem://s.json", doc); err != nil {
		t.Fatal(err)
	}
	validator, err := vc.Compile("mem://s.json")
	if err != nil {
		t.Fatal(err)
	}
	return validator
}

// exactGrammar compiles schema as a response format and returns its
// grammar when the grammar holds every keyword: nil when the compiler
// refuses it (an *Error) or, not strict, reports a keyword left out. Any
// other error fails t.
func exactGrammar(t *testing.T, schema string, strict bool) *Grammar {
	t.Helper()
	g, err := compileFormat(schema, strict)
	if err != nil {
		var ge *Error
		if !errors.As(err, &ge) {
			t.Fatalf("%s: %v", schema, err)
		}
		return nil
	}
	if !strict && len(g.Dropped) > 0 {
		return nil
	}
	return g
}

// verdicts reports whether g holds content as the final message, and
// whether validator, validatorFor's, finds it valid.
func verdicts(t *testing.T, g *Grammar, validator *jsonschema.Schema, content string) (matched, valid bool) {
	t.Helper()
	instance, err := unmarshalInstance(content)
	if err != nil {
		t.Fatal(err)
	}
	return g.Matches(analysisPrefix + finalHeader + content), validator.Validate(instance) == nil
}

// agreeWithValidator checks that g, compiled from schema (nil: refused),
// accepts content exactly when validator, validatorFor's, finds it valid.
func agreeWithValidator(t *testing.T, schema string, g *Grammar, validator *jsonschema.Schema, content string) {
	t.Helper()
	instance, err := unmarshalInstance(content)
	if err != nil {
		t.Fatal(err)
	}
	valid := validator.Validate(instance) == nil
	switch {
	case g == nil:
		if valid {
			t.Errorf("%s: refused, but %s is valid", schema, content)
		}
	case g.Matches(analysisPrefix+finalHeader+content) != valid:
		t.Errorf("%s: %s: the grammar says %v, the validator %v", schema, content, !valid, valid)
	}
}

// randomObject is an object holding each of keys, in their order, with
// even odds, its value 0, 1 or 2.
func randomObject(rng *rand.Rand, keys []string) string {
	return "{" + strings.Join(randomMembers(rng, keys, 3), ", ") + "}"
}

// randomMembers is each of keys, in their order, with even odds, as an
// object's member whose value is a number below values.
func randomMembers(rng *rand.Rand, keys []string, values int) []string {
	var members []string
	for _, k := range keys {
		if rng.IntN(2) == 0 {
			members = append(members, strconv.Quote(k)+": "+strconv.Itoa(rng.IntN(values)))
		}
	}
	return members
}

// unmarshalInstance reads a JSON instance for validatorFor's validators.
func unmarshalInstance(text string) (any, error) {
	return jsonschema.UnmarshalJSON(strings.NewReader(text))
}
