package grammar

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// propertyNames constrains free members' keys as a string schema, checks
// declared names when the grammar is built, and is enforced beside other
// key languages (other members of a strict open object, a map keyed by a
// pattern) only when an enum or const lists the names; otherwise it is
// reported (an error under strict).
func TestPropertyNames(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		strict       bool
		in, out      []string
		reported     string // the keywords reported, space-separated
	}{
		{"maxLength of free keys", `{"type": "object", "propertyNames": {"maxLength": 3}}`, true,
			[]string{`{}`, `{"f": 1}`, `{"foo": {}, "bar": 2}`}, []string{`{"fooo": 1}`, `{"foo": 1, "quux": 2}`}, ""},
		{"pattern of free keys", `{"type": "object", "propertyNames": {"pattern": "^a+$"}, "additionalProperties": {"type": "integer"}}`, true,
			[]string{`{"a": 1, "aaa": 2}`, `{}`}, []string{`{"ab": 1}`, `{"a": "x"}`, `{"": 1}`}, ""},
		{"format of free keys", `{"type": "object", "propertyNames": {"format": "date"}}`, false,
			[]string{`{"2024-01-31": 1}`}, []string{`{"tomorrow": 1}`}, ""},
		{"enum of free keys", `{"propertyNames": {"enum": ["foo", "bar", 3]}}`, true,
			[]string{`{"foo": 1}`, `{"bar": 1, "foo": 2}`, `7`}, []string{`{"baz": 1}`, `{"3": 1}`}, ""},
		{"false", `{"propertyNames": false}`, true,
			[]string{`{}`, `[]`}, []string{`{"a": 1}`}, ""},
		{"not strings", `{"type": "object", "propertyNames": {"type": "integer"}}`, true,
			[]string{`{}`}, []string{`{"1": 1}`}, ""},
		{"declared names checked", `{"type": "object", "properties": {"id": {}, "identifier": {}}, "propertyNames": {"maxLength": 5}, "additionalProperties": false}`, true,
			[]string{`{"id": 1}`, `{}`}, []string{`{"identifier": 1}`, `{"id": 1, "identifier": 2}`}, ""},
		{"declared names by pattern", `{"type": "object", "properties": {"abc": {}, "Abc": {}}, "propertyNames": {"pattern": "^[a-z]+$"}}`, false,
			[]string{`{"abc": 1}`}, []string{`{"Abc": 1}`}, "additionalProperties"},
		{"declared names by format", `{"type": "object", "properties": {"2024-01-31": {}, "x": {}, "2024-13-01": {}}, "propertyNames": {"format": "date"}, "additionalProperties": false}`, true,
			[]string{`{"2024-01-31": 1}`}, []string{`{"x": 1}`, `{"2024-13-01": 1}`}, ""},
		{"other members of an enum", `{"type": "object", "properties": {"a": {"type": "integer"}}, "propertyNames": {"enum": ["a", "b", "c"]}}`, true,
			[]string{`{"a": 1, "b": 2}`, `{"c": 3}`, `{"a": 1, "c": true, "b": null}`}, []string{`{"d": 1}`, `{"a": 1, "a": 2}`, `{"a": "x"}`}, ""},
		{"other members of a pattern", `{"type": "object", "properties": {"a": {}}, "propertyNames": {"pattern": "^[a-z]$"}}`, false,
			[]string{`{"a": 1}`}, nil, "additionalProperties"},
		{"a map keyed by a pattern, names listed", `{"type": "object", "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": false, "propertyNames": {"enum": ["x1", "x2", "y"]}}`, true,
			[]string{`{"x1": 1, "x2": 2}`}, []string{`{"y": 1}`, `{"x3": 1}`}, ""},
		{"a map keyed by a pattern, names by length", `{"type": "object", "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": false, "propertyNames": {"maxLength": 2}}`, false,
			[]string{`{"x1": 1}`}, nil, "propertyNames"},
		{"a not of a listed name (decision 314; reported before)", `{"type": "object", "propertyNames": {"not": {"const": "a"}}}`, false,
			[]string{`{"b": 1}`, `{}`, `{"ab": 1, "": 2}`}, []string{`{"a": 1}`, `{"b": 1, "a": 2}`}, ""},
		{"a not of a pattern, not strict", `{"type": "object", "propertyNames": {"not": {"pattern": "^x-"}}}`, false,
			[]string{`{"b": 1}`}, nil, "not"},
		{"beside an enum (each listed value checked, decision 207)", `{"enum": [{"a": 1}, {"abcd": 1}], "propertyNames": {"maxLength": 3}}`, true,
			[]string{`{"a": 1}`}, []string{`{"abcd": 1}`}, ""},
	} {
		g, err := compileFormat(c.schema, c.strict)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		checkContents(t, c.name, g, c.in, c.out)
		var got []string
		for _, d := range g.Dropped {
			got = append(got, d.Keyword)
		}
		if strings.Join(got, " ") != c.reported {
			t.Errorf("%s: reported %v, want %q", c.name, got, c.reported)
		}
		if c.reported == "propertyNames" {
			if _, err := compileFormat(c.schema, true); err == nil || !strings.Contains(err.Error(), ".propertyNames") {
				t.Errorf("%s: under strict: %v", c.name, err)
			}
		}
	}
	// Under strict, other members beside declared ones need the names
	// listed.
	if _, err := compileFormat(`{"type": "object", "properties": {"a": {}}, "propertyNames": {"pattern": "^[a-z]$"}}`, true); err == nil || !strings.Contains(err.Error(), "propertyNames") {
		t.Errorf("other members of a pattern under strict: %v", err)
	}
	// A required name propertyNames rules out: nothing can be written.
	if _, err := compileFormat(`{"type": "object", "properties": {"long": {}}, "required": ["long"], "propertyNames": {"maxLength": 3}}`, false); err == nil || !strings.Contains(err.Error(), "propertyNames") {
		t.Errorf("a required name ruled out: %v", err)
	}
}

// A tool's free arguments are named as propertyNames lists.
func TestPropertyNamesArguments(t *testing.T) {
	tools := []Tool{{Name: "f", Parameters: json.RawMessage(`{"type": "object", "propertyNames": {"enum": ["x", "y"]}, "additionalProperties": {"type": "integer"}}`), Strict: true}}
	g, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	checkArgs(t, g, []argCase{
		{"", true},
		{xmlArg("x", "1"), true},
		{xmlArg("x", "1") + "\n" + xmlArg("y", "2"), true},
		{xmlArg("z", "1"), false},
	})
	tools[0].Parameters = json.RawMessage(`{"type": "object", "propertyNames": {"maxLength": 2}}`)
	if _, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required}); err == nil || !strings.Contains(err.Error(), "propertyNames") {
		t.Errorf("free arguments named by length under strict: %v", err)
	}
}

// Declared names are checked against a pattern within a bounded work:
// past it the names left are not checked, and the pattern is reported (an
// error under strict).
func TestPropertyNamesMatchWork(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {`)
	for i := 0; i < 100; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + strings.Repeat("a", 100) + itoa(i) + `": {}`)
	}
	b.WriteString(`}, "propertyNames": {"pattern": "^((a?){30}){30}[0-9]*$"}, "additionalProperties": false}`)
	var g *Grammar
	var err error
	used := allocated(func() { g, err = compileFormat(b.String(), false) })
	if err != nil {
		t.Fatal(err)
	}
	if used > maxCompileBytes {
		t.Errorf("%d bytes allocated", used)
	}
	if len(g.Dropped) != 1 || g.Dropped[0].Path != "response_format.json_schema.schema.propertyNames.pattern" {
		t.Errorf("reported %v", g.Dropped)
	}
	if _, err := compileFormat(b.String(), true); err == nil || !strings.Contains(err.Error(), "propertyNames.pattern") {
		t.Errorf("under strict: %v", err)
	}
}

// A not of propertyNames that rules names out by their text (gap decision
// 314): one of listed names (an enum or a const) where nothing else
// constrains the keys' text, in both modes, by the trie that keeps other
// members from the declared names; any such not under strict, by the
// string automaton, where no declared name has to be kept out besides.
func TestPropertyNamesNot(t *testing.T) {
	checkExact(t, []contentCase{
		{"free members, an enum", `{"type": "object", "propertyNames": {"not": {"enum": ["a", "bc"]}}, "additionalProperties": {"type": "integer"}}`,
			[]string{`{}`, `{"b": 1, "abc": 2, "bcd": 3, "": 4}`}, []string{`{"a": 1}`, `{"b": 1, "bc": 2}`, `{"b": "x"}`}},
		{"names with characters a key writes escaped", `{"type": "object", "propertyNames": {"not": {"enum": ["<a>", "q\"", "t\t"]}}}`,
			[]string{`{"\u003ca": 1, "q": 2, "t\n": 3}`}, []string{`{"\u003ca>": 1}`, `{"q\"": 1}`, `{"t\t": 1}`, `{"t\u0009": 1}`}},
		{"through a $ref and allOf, with a type", `{"$defs": {"n": {"type": "string", "not": {"const": "id"}}}, "type": "object", "propertyNames": {"allOf": [{"$ref": "#/$defs/n"}, {"not": {"type": "string", "enum": ["x"]}}]}}`,
			[]string{`{"y": 1, "idx": 2}`}, []string{`{"id": 1}`, `{"x": 1}`}},
		{"a declared name it rules out is left out", `{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "propertyNames": {"not": {"const": "a"}}, "additionalProperties": false}`,
			[]string{`{}`, `{"b": 1}`}, []string{`{"a": 1}`, `{"a": 1, "b": 2}`}},
		{"lint-staged's configurations (JSON Schema Store)", `{"anyOf": [{"type": "object", "properties": {"concurrent": {"type": "boolean"}}, "additionalProperties": false}, {"type": "object", "propertyNames": {"not": {"enum": ["concurrent", "ignore"]}}, "additionalProperties": {"type": ["string", "array"]}}]}`,
			[]string{`{"concurrent": true}`, `{"*.js": "eslint"}`, `{}`}, []string{`{"ignore": "x"}`, `{"concurrent": "x"}`}},
	})
	// Under strict, other members beside declared ones: any key but the
	// declared names and the listed ones.
	checkStrictExact(t, []contentCase{
		{"other members beside declared ones", `{"type": "object", "properties": {"a": {"type": "string"}}, "propertyNames": {"not": {"enum": ["x", "y"]}}, "additionalProperties": {"type": "integer"}}`,
			[]string{`{"a": "s", "z": 1}`, `{"xy": 1, "": 2}`}, []string{`{"x": 1}`, `{"a": "s", "y": 2}`, `{"a": 1}`, `{"a": "s", "a": 2}`}},
		{"a not of a pattern, free members", `{"type": "object", "propertyNames": {"not": {"pattern": "^x-"}}, "additionalProperties": {"type": "integer"}}`,
			[]string{`{"a": 1, "y-x-": 2, "x": 3}`}, []string{`{"x-a": 1}`, `{"a": 1, "x-": 2}`}},
		{"a not of a listed name beside a pattern", `{"type": "object", "propertyNames": {"pattern": "^[a-z]+$", "not": {"enum": ["id", "key"]}}}`,
			[]string{`{"a": 1, "ids": 2}`}, []string{`{"id": 1}`, `{"A": 1}`, `{"key": 1}`}},
		{"a not of a pattern and listed keys", `{"type": "object", "properties": {"x-a": {}, "b": {}}, "propertyNames": {"not": {"pattern": "^x-"}}, "additionalProperties": false}`,
			[]string{`{"b": 1}`}, []string{`{"x-a": 1}`}},
	})
	// What the grammar can't keep to stays an error under strict: a not
	// of a pattern beside declared names of an open object.
	if _, err := compileFormat(`{"type": "object", "properties": {"a": {}}, "propertyNames": {"not": {"pattern": "^x-"}}, "additionalProperties": {"type": "integer"}}`, true); err == nil || !strings.Contains(err.Error(), "schema.propertyNames:") {
		t.Errorf("a not of a pattern beside declared names: %v", err)
	}
	// A required name it rules out: nothing can be written.
	if _, err := compileFormat(`{"type": "object", "properties": {"a": {}}, "required": ["a"], "propertyNames": {"not": {"const": "a"}}}`, false); err == nil || !strings.Contains(err.Error(), "propertyNames") {
		t.Errorf("a required name ruled out: %v", err)
	}
}

// A tool's other arguments are named like none of the names a not of its
// propertyNames lists (gap decision 314), beside declared ones or alone.
func TestPropertyNamesNotArguments(t *testing.T) {
	for _, c := range []struct {
		params   string
		declared []string
		others   map[string]bool
	}{
		{`{"type": "object", "propertyNames": {"not": {"enum": ["a", "b\\c"]}}, "additionalProperties": {"type": "string"}}`, nil,
			map[string]bool{"a": false, `b\c`: false, "ab": true, `b\`: true, "c": true}},
		{`{"type": "object", "properties": {"city": {"type": "string"}}, "propertyNames": {"not": {"const": "unit"}}, "additionalProperties": {"type": "string"}}`, []string{"city"},
			map[string]bool{"unit": false, "city": false, "units": true, "c": true}},
	} {
		g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Strict: true, Parameters: json.RawMessage(c.params)}}, Choice: Required})
		if err != nil {
			t.Errorf("%s: %v", c.params, err)
			continue
		}
		call := analysisPrefix + "<|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|>"
		for _, n := range c.declared {
			call += xmlArg(n, "v") + "\n"
		}
		for other, want := range c.others {
			if got := g.Matches(call + xmlArg(other, "w")); got != want {
				t.Errorf("%s: the other argument %q: %v, want %v", c.params, other, got, want)
			}
		}
	}
}

// TestPropertyNamesNotAgainstValidator checks random objects against a
// JSON Schema validator, in both modes, for random schemas of an object
// whose propertyNames holds nots of listed names or of patterns (beside a
// pattern or a length at times), with declared properties or without,
// open or closed: where a grammar compiles with nothing reported, it
// accepts exactly the valid objects (gap decision 314).
func TestPropertyNamesNotAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 314))
	pieces := []string{"a", "b", "x-", "id", "<", `"`, "\t"}
	word := func() string {
		w := ""
		for range 1 + rng.IntN(2) {
			w += pieces[rng.IntN(len(pieces))]
		}
		return w
	}
	quote := func(s string) string { return string(pyjson.AppendQuoted(nil, s)) }
	exact, checked := 0, 0
	for range 500 {
		var declared []string
		var props []string
		for range rng.IntN(3) {
			if w := word(); !slices.Contains(declared, w) {
				declared = append(declared, w)
				props = append(props, quote(w)+`: {"type": "integer"}`)
			}
		}
		var nots []string
		for range 1 + rng.IntN(2) {
			switch rng.IntN(3) {
			case 0:
				nots = append(nots, `{"not": {"const": `+quote(word())+`}}`)
			case 1:
				nots = append(nots, `{"not": {"enum": [`+quote(word())+`, `+quote(word())+`]}}`)
			default:
				nots = append(nots, `{"not": {"pattern": "^`+[]string{"a", "x-", "b$", "id"}[rng.IntN(4)]+`"}}`)
			}
		}
		switch rng.IntN(4) {
		case 0:
			nots = append(nots, `{"pattern": "^[a-z]"}`)
		case 1:
			nots = append(nots, `{"maxLength": 3}`)
		}
		members := []string{`"type": "object"`, `"propertyNames": {"allOf": [` + strings.Join(nots, ", ") + `]}`}
		if len(props) > 0 {
			members = append(members, `"properties": {`+strings.Join(props, ", ")+`}`)
		}
		if rng.IntN(3) > 0 {
			members = append(members, `"additionalProperties": {"type": "string"}`)
		} else if len(props) > 0 {
			members = append(members, `"additionalProperties": false`)
		}
		schema := `{` + strings.Join(members, ", ") + `}`
		validator := validatorFor(t, schema)
		var pool []string
		for range 6 {
			pool = append(pool, word())
		}
		pool = append(pool, declared...)
		for _, strict := range []bool{false, true} {
			g, err := compileFormat(schema, strict)
			if err != nil || len(g.Dropped) > 0 {
				continue
			}
			exact++
			for range 30 {
				var ms []string
				for _, n := range declared {
					if rng.IntN(2) == 0 {
						ms = append(ms, quote(n)+": 1")
					}
				}
				for range rng.IntN(3) {
					ms = append(ms, keyText(pool[rng.IntN(len(pool))])+`: "s"`)
				}
				content := `{` + strings.Join(ms, ", ") + `}`
				matched, valid := verdicts(t, g, validator, content)
				if matched != valid && !(valid && duplicateKeys(content)) {
					t.Errorf("%s (strict %v): %s: the grammar says %v, the validator %v", schema, strict, content, matched, valid)
				}
				checked++
			}
		}
	}
	if exact < 350 || checked < 10000 {
		t.Errorf("%d grammars compiled exact, %d objects checked; want 350 and 10,000", exact, checked)
	}
	t.Logf("%d grammars compiled exact, %d objects checked", exact, checked)
}

// Checking names against propertyNames is linear: every declared name is
// checked against a propertyNames of as many schemas, whose lengths and
// keywords are read once (stringChecksOf); read again for each name, a
// 247 KB schema took 11 s (gap decision 314's review). Four times the
// names and schemas, about four times the allocations, where it was
// sixteen.
func TestPropertyNamesCheckIsLinear(t *testing.T) {
	checkLinearAllocs(t, "names and schemas", 250, true, func(n int) string {
		var props, members []string
		for i := range n {
			props = append(props, `"p`+itoa(i)+`": {}`)
			members = append(members, `{"minLength": `+itoa(i%3)+`}`)
		}
		return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "propertyNames": {"allOf": [` + strings.Join(members, ", ") + `], "not": {"enum": ["q", "r"]}}, "additionalProperties": false}`
	})
}
