package grammar

import (
	"strings"
	"testing"
)

// The key automaton (gap decision 196): several patternProperties, and
// patterns beside other members, are enforced as JSON Schema applies them
// (each member takes the schemas of the patterns its key matches, or
// additionalProperties when none does), not strict and strict, and the
// grammar holds no report of patternProperties.
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
		// Not strict, other members stay closed by default (reported), and
		// the patterns are enforced.
		{"several patterns, not strict", `{"patternProperties": {"^a": {"type": "integer"}, "^b": {"type": "string"}}}`, false,
			[]string{`{"a": 1, "b": "s"}`, `{}`},
			[]string{`{"a": "s"}`, `{"b": 1}`, `{"c": 1}`}, "additionalProperties"},
		// Keys are written as JSON writes them: a quote or a "<" in a key
		// is matched as its escape.
		{"keys with escapes", `{"patternProperties": {"^<": {"type": "integer"}, "\"": {"type": "string"}}, "additionalProperties": false}`, true,
			[]string{`{"\u003ca": 1}`, `{"x\"": "s"}`},
			[]string{`{"<a": 1}`, `{"\u003ca": "s"}`, `{"x\"": 1}`}, ""},
	} {
		g, err := compileFormat(c.schema, c.strict)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkContents(t, c.name, g, c.in, c.out)
		for _, d := range g.Dropped {
			if d.Keyword == "patternProperties" || d.Keyword != c.dropped {
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
		{"a pattern the translator refuses", `{"patternProperties": {"^(?=a)": {"type": "integer"}}}`},
	} {
		if _, err := compileFormat(c.schema, true); err == nil || !strings.Contains(err.Error(), "patternProperties") {
			t.Errorf("%s: strict: %v", c.name, err)
		}
	}
}
