package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// manyProperties is an object schema of n properties, each of schema item.
func manyProperties(n int, item string) string {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"p` + itoa(i) + `": ` + item)
	}
	b.WriteString(`}}`)
	return b.String()
}

// closed adds "additionalProperties": false to an object schema.
func closed(schema string) string {
	return strings.TrimSuffix(schema, "}") + `, "additionalProperties": false}`
}

// compileFormat compiles schema as a response format.
func compileFormat(schema string, strict bool) (*Grammar, error) {
	return Compile(context.Background(), &Spec{Format: &Format{Schema: json.RawMessage(schema), Strict: strict}})
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// grammarCost is a grammar's cost to an engine, as the caps count it.
func grammarCost(g *Grammar) int {
	n := 0
	for i := range g.numRules() {
		n += expandedCost(g.ruleAt(i).body) + ruleCost
	}
	return n
}

// maxCompileBytes is the most memory any schema may take to compile or
// to be refused.
const maxCompileBytes = 64 << 20

// Numeric bounds of any size compile small: the bounds an int64 holds
// exactly, others loosened and reported (an error under strict), never a
// grammar spelled out digit by digit.
func TestNumericBoundsAreBounded(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		in, out      []string // contents in and out of the grammar
		loosened     string   // the keywords reported, space-separated
	}{
		{"int64", `{"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}`,
			[]string{"0", "-9223372036854775808", "9223372036854775807", "1234567890123456789"},
			[]string{"9223372036854775808", "-9223372036854775809", "10000000000000000000"}, ""},
		{"uint64", `{"type": "integer", "minimum": 0, "maximum": 18446744073709551615}`,
			[]string{"0", "18446744073709551615"}, []string{"18446744073709551616", "-1"}, ""},
		{"1e23", `{"type": "number", "minimum": 0, "maximum": 1e23}`,
			[]string{"0", "100000000000000000000000", "99999999999999999999999.5"},
			[]string{"100000000000000000000001", "100000000000000000000000.1", "-1"}, ""},
		{"1e24", `{"type": "number", "minimum": 0, "maximum": 1e24}`,
			[]string{"0", "1000000000000000000000000", "1000000000000000000000001"}, []string{"-1"}, "maximum"},
		{"1e300", `{"type": "number", "minimum": -1.5e300, "maximum": 1e300}`,
			[]string{"0", "-5", "123456789012345678901234567890"}, nil, "minimum maximum"},
		{"tiny", `{"type": "number", "exclusiveMinimum": 1e-300, "maximum": 1}`,
			[]string{"0.5", "1", "0"}, []string{"-0.1", "1.1"}, "exclusiveMinimum"},
		{"huge exponent", `{"type": "integer", "maximum": 1e999999999, "minimum": -1E+999999999}`,
			[]string{"5", "-5"}, nil, "minimum maximum"},
		{"long fraction", `{"type": "number", "minimum": 0.1234567890123456789012345678901, "maximum": 0.2}`,
			[]string{"0.15", "0.123456789012345678901234", "0.2"}, []string{"0.12345678901234567890123", "0.3"}, "minimum"},
		{"negative long fraction", `{"type": "number", "minimum": -1, "maximum": -0.1234567890123456789012345678901}`,
			[]string{"-0.5", "-0.123456789012345678901234"}, []string{"-0.12345678901234567890123", "0"}, "maximum"},
	} {
		var g *Grammar
		var err error
		if n := allocated(func() { g, err = compileFormat(c.schema, false) }); n > 1<<20 {
			t.Errorf("%s: %d bytes allocated", c.name, n)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(g.text) > 32<<10 {
			t.Errorf("%s: a grammar of %d bytes", c.name, len(g.text))
		}
		checkContents(t, c.name, g, c.in, c.out)
		var got []string
		for _, d := range g.Dropped {
			got = append(got, d.Keyword)
		}
		if strings.Join(got, " ") != c.loosened {
			t.Errorf("%s: reported %v, want %s", c.name, got, c.loosened)
		}
		_, err = compileFormat(c.schema, true)
		if (err != nil) != (c.loosened != "") {
			t.Errorf("%s: under strict: %v", c.name, err)
		} else if err != nil && !strings.Contains(err.Error(), "can't be enforced exactly") {
			t.Errorf("%s: under strict: %v", c.name, err)
		}
	}
}

const analysisPrefix = "<|channel|>analysis<|message|>r<|end|>"

// checkContents checks that the final message's contents in are in g's
// language and those out are not.
func checkContents(t *testing.T, name string, g *Grammar, in, out []string) {
	t.Helper()
	for _, s := range in {
		if !g.Matches(analysisPrefix + finalHeader + s) {
			t.Errorf("%s: %s is not in the grammar", name, s)
		}
	}
	for _, s := range out {
		if g.Matches(analysisPrefix + finalHeader + s) {
			t.Errorf("%s: %s is in the grammar", name, s)
		}
	}
}

// contentCase is a schema, and contents its grammar must accept (in) and
// reject (out).
type contentCase struct {
	name, schema string
	in, out      []string
}

// checkExact is checkStrictExact in both modes: not strict too, each
// case's schema compiles with nothing reported, and its contents.
func checkExact(t *testing.T, cases []contentCase) {
	t.Helper()
	checkStrictExact(t, cases)
	for _, c := range cases {
		g, err := compileFormat(c.schema, false)
		if err != nil {
			t.Errorf("%s (not strict): %v", c.name, err)
			continue
		}
		if len(g.Dropped) != 0 {
			t.Errorf("%s (not strict): reported %v", c.name, g.Dropped)
		}
		checkContents(t, c.name+" (not strict)", g, c.in, c.out)
	}
}

// checkStrictExact checks that each case's schema compiles under strict
// with nothing reported, and its contents.
func checkStrictExact(t *testing.T, cases []contentCase) {
	t.Helper()
	for _, c := range cases {
		g, err := compileFormat(c.schema, true)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(g.Dropped) != 0 {
			t.Errorf("%s: reported %v", c.name, g.Dropped)
		}
		checkContents(t, c.name, g, c.in, c.out)
	}
}

// checkReportedAt checks that schema, not strict, compiles with a keyword
// reported at path, and that under strict it is an error naming path.
func checkReportedAt(t *testing.T, schema, path string) {
	t.Helper()
	g, err := compileFormat(schema, false)
	if err != nil || !slices.ContainsFunc(g.Dropped, func(d Dropped) bool { return d.Path == path }) {
		t.Errorf("%s: %v %v", schema, g, err)
	}
	var ge *Error
	if _, err := compileFormat(schema, true); !errors.As(err, &ge) || ge.Path != path {
		t.Errorf("%s: strict: %v", schema, err)
	}
}

// parseBound reads any JSON number exactly or says why it can't.
func TestParseBound(t *testing.T) {
	for _, c := range []struct {
		lit            string
		isLo           bool
		want           string // the rational, or "huge"
		rounded, huged bool
	}{
		{"0", true, "0/1", false, false},
		{"-0", true, "0/1", false, false},
		{"0.0e5", true, "0/1", false, false},
		{"12.50", true, "25/2", false, false},
		{"1E3", true, "1000/1", false, false},
		{"-2.5e-1", false, "-1/4", false, false},
		{"1e23", true, "100000000000000000000000/1", false, false},
		{"1e24", true, "", false, true},
		{"123456789012345678901234", true, "123456789012345678901234/1", false, false},
		{"1234567890123456789012345", true, "", false, true},
		{"1e-24", true, "1/1000000000000000000000000", false, false},
		{"1e-25", true, "0/1", true, false},
		{"1e-25", false, "1/1000000000000000000000000", true, false},
		{"-1e-25", true, "-1/1000000000000000000000000", true, false},
		{"-1e-25", false, "0/1", true, false},
		{"1e-99999999999999999999", true, "0/1", true, false},
		{"1e+99999999999999999999", true, "", false, true},
	} {
		v, rounded, huge := parseBound(c.lit, c.isLo)
		got := ""
		if v != nil {
			got = v.String()
		}
		if got != c.want || rounded != c.rounded || huge != c.huged {
			t.Errorf("parseBound(%s, lo=%v) = %s %v %v, want %s %v %v", c.lit, c.isLo, got, rounded, huge, c.want, c.rounded, c.huged)
		}
	}
}

// A schema nothing satisfies is an error naming it, never a grammar no
// generation can complete.
func TestUnsatisfiableSchemas(t *testing.T) {
	for _, c := range []struct{ schema, path, msg string }{
		{`false`, "response_format.json_schema.schema", ""},
		{`{"anyOf": []}`, "response_format.json_schema.schema", ""},
		{`{"oneOf": [false, false]}`, "response_format.json_schema.schema.oneOf[0]", ""},
		{`{"allOf": [false]}`, "response_format.json_schema.schema", ""},
		{`{"type": "object", "properties": {"a": false}, "required": ["a"]}`, "response_format.json_schema.schema.properties.a", ""},
		{`{"type": "object", "properties": {"a": {"type": "array", "items": false, "minItems": 1}}, "required": ["a"]}`, "response_format.json_schema.schema.properties.a",
			"no array can be written: minItems asks for more elements than the schema allows"},
		// An object that must hold itself.
		{`{"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}, "required": ["next"]}}, "$ref": "#/$defs/n"}`, "response_format.json_schema.schema", ""},
	} {
		_, err := compileFormat(c.schema, false)
		var ge *Error
		if c.msg == "" {
			c.msg = "no value satisfies this schema"
		}
		if !errors.As(err, &ge) || ge.Path != c.path || !strings.Contains(ge.Msg, c.msg) {
			t.Errorf("%s: %v, want an error at %s", c.schema, err, c.path)
		}
	}
	// A tool's arguments alike, under tool choice auto with a strict tool.
	tools := []Tool{{Name: "f", Parameters: json.RawMessage(`{"type": "object", "properties": {"x": false}, "required": ["x"], "additionalProperties": false}`), Strict: true}}
	_, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Auto})
	if err == nil || !strings.HasPrefix(err.Error(), "tools[0].function.parameters.properties.x: no value satisfies") {
		t.Errorf("a tool nothing satisfies: %v", err)
	}
	// An optional property that can't be present is no error.
	if _, err := compileFormat(`{"type": "object", "properties": {"a": false, "b": {"type": "integer"}}}`, false); err != nil {
		t.Errorf("an optional false property: %v", err)
	}
}

// A $ref cycle that writes nothing before it recurs is an error naming
// it: every engine refuses a left-recursive grammar.
func TestLeftRecursion(t *testing.T) {
	for _, c := range []struct{ schema, path string }{
		// The path names the $ref that closes the cycle.
		{`{"$defs": {"A": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}`, "response_format.json_schema.schema.$ref.$ref"},
		{`{"$defs": {"A": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}, "$ref": "#/$defs/A"}`, "response_format.json_schema.schema.$ref.anyOf[0].$ref"},
		{`{"anyOf": [{"type": "integer"}, {"$ref": "#"}]}`, "response_format.json_schema.schema.anyOf[1].$ref"},
		{`{"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/A"}]}}, "$ref": "#/$defs/A"}`, "response_format.json_schema.schema.$ref.$ref.anyOf[1].$ref"},
		// a schema with keywords of its own beside the variant that
		// leads back to it, and one a variant of a variant leads back to
		{`{"$defs": {"A": {"minLength": 1, "anyOf": [{"$ref": "#/$defs/A"}, {"type": "string"}]}}, "$ref": "#/$defs/A"}`, "response_format.json_schema.schema.$ref.anyOf[0].$ref"},
		{`{"$defs": {"A": {"type": "string", "allOf": [{"anyOf": [{"maxLength": 3, "anyOf": [{"$ref": "#/$defs/A"}, {"minLength": 2}]}, {"type": "string"}]}]}}, "$ref": "#/$defs/A"}`, "response_format.json_schema.schema.$ref.allOf[0].anyOf[0].anyOf[0].$ref"},
	} {
		_, err := compileFormat(c.schema, false)
		var ge *Error
		if !errors.As(err, &ge) || ge.Path != c.path || !strings.Contains(ge.Msg, "refers to itself before anything is written") {
			t.Errorf("%s: %v, want a left recursion at %s", c.schema, err, c.path)
		}
	}
	// Recursion through an object or an array is fine.
	for _, s := range []string{
		`{"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"}`,
		`{"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#"}}]}`,
	} {
		if _, err := compileFormat(s, false); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// Two variants (of two anyOf of one value) that lead to the same schema
// meet it twice, which is no cycle. Both were refused as a schema that
// contains itself: a real-world schema writes a property and the pattern
// that matches its name alike, each an array of anyOf of the same
// definitions.
func TestVariantsMeetingOneSchema(t *testing.T) {
	a := `"$defs": {"a": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"], "additionalProperties": false}}`
	items := `{"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}}`
	for _, c := range []struct {
		schema   string
		accepted []string
		rejected []string
	}{
		{`{"allOf": [{"anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}, {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}], ` + a + `}`,
			[]string{`{"x": 1}`, `"s"`}, []string{`{}`, `1`}},
		{`{"type": "object", "properties": {"b": ` + items + `}, "patternProperties": {"^b": ` + items + `}, ` + a + `}`,
			[]string{`{"b": [{"x": 1}, "s"]}`, `{}`}, []string{`{"b": [{}]}`, `{"b": [1]}`}},
	} {
		for _, strict := range []bool{false, true} {
			g, err := compileFormat(c.schema, strict)
			if strict && strings.Contains(c.schema, "patternProperties") {
				continue // reported: the object is open
			}
			if err != nil {
				t.Errorf("%s (strict %v): %v", c.schema, strict, err)
				continue
			}
			checkContents(t, c.schema, g, c.accepted, c.rejected)
		}
	}
}

// ladder is n levels of $defs, each anyOf of its own variants, each of
// which refers to every variant of the next level.
func ladder(n int, distinct bool) string {
	var b strings.Builder
	b.WriteString(`{"$defs": {`)
	for i := 0; i < n; i++ {
		next := `{"type": "null"}`
		if i+1 < n {
			next = `{"$ref": "#/$defs/L` + itoa(i+1) + `a"}, {"$ref": "#/$defs/L` + itoa(i+1) + `b"}`
			if !distinct {
				next = `{"$ref": "#/$defs/L` + itoa(i+1) + `a"}, {"$ref": "#/$defs/L` + itoa(i+1) + `a"}`
			}
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"L` + itoa(i) + `a": {"anyOf": [` + next + `]}, `)
		b.WriteString(`"L` + itoa(i) + `b": {"anyOf": [` + next + `, {"type": "boolean"}]}`)
	}
	b.WriteString(`}, "$ref": "#/$defs/L0a"}`)
	return b.String()
}

// Alternatives that share rules below them: repeated references are
// merged, and what would still multiply an engine's walk is refused, fast.
func TestLeftmostWalk(t *testing.T) {
	g, err := compileFormat(ladder(30, false), false)
	if err != nil {
		t.Fatalf("a ladder of repeated references: %v", err)
	}
	if len(g.text) > 64<<10 {
		t.Errorf("a ladder of repeated references: %d bytes", len(g.text))
	}
	n := allocated(func() { _, err = compileFormat(ladder(30, true), false) })
	if err == nil || !strings.Contains(err.Error(), "nest so that an engine would scan more than") {
		t.Errorf("a ladder of 2^30 paths: %v", err)
	}
	if n > maxCompileBytes {
		t.Errorf("a ladder of 2^30 paths took %d bytes to refuse", n)
	}
	// A ladder whose levels are large: each rule the walk enters costs its
	// size, every time (16 levels with 40 values each took llama.cpp 98 ms
	// to load when only the rules entered were counted).
	n = allocated(func() { _, err = compileFormat(fatLadder(16, 40), false) })
	if err == nil || !strings.Contains(err.Error(), "nest so that an engine would scan more than") {
		t.Errorf("a ladder of 2^16 paths through 40 values each: %v", err)
	}
	if n > maxCompileBytes {
		t.Errorf("a ladder of 2^16 paths through 40 values each took %d bytes to refuse", n)
	}
	if _, err := compileFormat(fatLadder(8, 40), false); err != nil {
		t.Errorf("a ladder of 2^8 paths through 40 values each: %v", err)
	}
	// An object of many optional properties: each first property is a
	// walk down the rest, which the order the rules are written in makes
	// one walk for them all (writeOrder).
	if _, err := compileFormat(manyProperties(1000, `{"type": "boolean"}`), false); err != nil {
		t.Errorf("1000 optional properties: %v", err)
	}
	if _, err := compileFormat(manyProperties(1500, `{"type": "boolean"}`), false); err == nil {
		t.Error("1500 optional properties compiled")
	}
}

// fatLadder is ladder(n, true) with an enum of k strings beside the
// references of each level.
func fatLadder(n, k int) string {
	var b strings.Builder
	b.WriteString(`{"$defs": {`)
	for i := range n {
		var enum strings.Builder
		enum.WriteString(`{"enum": [`)
		for j := range k {
			if j > 0 {
				enum.WriteString(", ")
			}
			enum.WriteString(`"value-` + itoa(i) + "-" + itoa(j) + `-xxxxxxxxxxxxxxxx"`)
		}
		enum.WriteString("]}")
		next := `{"type": "null"}`
		if i+1 < n {
			next = `{"$ref": "#/$defs/L` + itoa(i+1) + `a"}, {"$ref": "#/$defs/L` + itoa(i+1) + `b"}`
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"L` + itoa(i) + `a": {"anyOf": [` + next + `, ` + enum.String() + `]}, `)
		b.WriteString(`"L` + itoa(i) + `b": {"anyOf": [` + next + `, {"type": "boolean"}, ` + enum.String() + `]}`)
	}
	b.WriteString(`}, "$ref": "#/$defs/L0a"}`)
	return b.String()
}

// The sum of the repetition counts is capped, not each alone: past the
// budget a count is loosened and reported (an error under strict). A
// length pair is one rule however many strings share it, and spends the
// budget once; a length past chunkFrom spends what its chunks cost
// (repetitionCost).
func TestRepetitionBudget(t *testing.T) {
	// Strings of one length pair: one rule, nothing loosened.
	for _, item := range []string{`{"type": "string", "maxLength": 1024}`, `{"type": "string", "minLength": 1, "maxLength": 64}`} {
		g, err := compileFormat(closed(manyProperties(200, item)), true)
		if err != nil {
			t.Fatalf("%s: %v", item, err)
		}
		if n := strings.Count(g.GBNF(), "\nlong") + strings.Count(g.GBNF(), "\nbounded"); n != 1 {
			t.Errorf("%s: %d rules for one length pair:\n%s", item, n, g.GBNF())
		}
	}

	// Arrays of up to 1,000 elements are written in chunks and spend 76
	// each (they were 1,000 each, so the third was loosened).
	if g, err := compileFormat(closed(manyProperties(20, `{"type": "array", "items": {"type": "string"}, "maxItems": 1000}`)), true); err != nil {
		t.Errorf("arrays: %v", err)
	} else if c := grammarCost(g); c > maxExpanded {
		t.Errorf("arrays: cost %d, more than %d", c, maxExpanded)
	}

	// Strings of 200 lengths: the budget runs out.
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {`)
	spent, first := 0, -1
	for i := range 200 {
		if i > 0 {
			b.WriteString(", ")
		}
		n := 1000 + i
		b.WriteString(`"p` + itoa(i) + `": {"type": "string", "maxLength": ` + itoa(n) + `}`)
		if spent += repetitionCost(0, n); spent > maxRepetitions && first < 0 {
			first = i
		}
	}
	b.WriteString(`}}`)
	schema := closed(b.String())
	g, err := compileFormat(schema, false)
	if err != nil {
		t.Fatal(err)
	}
	if c := grammarCost(g); c > maxExpanded {
		t.Errorf("cost %d, more than %d", c, maxExpanded)
	}
	at := "response_format.json_schema.schema.properties.p" + itoa(first) + ".maxLength"
	if len(g.Dropped) != 200-first || g.Dropped[0].Path != at {
		t.Errorf("%d reported, the first %v; want %d from %s", len(g.Dropped), g.Dropped, 200-first, at)
	}
	_, err = compileFormat(schema, true)
	if err == nil || !strings.HasPrefix(err.Error(), at+": the keyword maxLength can't be enforced exactly") {
		t.Errorf("strict: %v", err)
	}
}

// Past a cap, compiling stops where the schema is, and says so with its
// path: never "tools" for a response format.
func TestCapErrorsNameTheSchema(t *testing.T) {
	for _, c := range []struct{ schema, prefix string }{
		{manyProperties(8000, `{"type": "integer"}`), "response_format.json_schema.schema"},
		{`{"type": "object", "properties": {"x": ` + manyProperties(8000, `{"type": "integer"}`) + `}}`, "response_format.json_schema.schema.properties.x"},
		{`{"enum": [` + strings.Repeat(`"`+strings.Repeat("v", 1000)+`", `, 2000) + `1]}`, "response_format.json_schema.schema.enum"},
		// Past maxSchemaBytes the schema itself is named, before it is read.
		{`{"enum": [` + strings.Repeat(`"`+strings.Repeat("v", 1000)+`", `, 10000) + `1]}`, "response_format.json_schema.schema: the schemas are too large to compile (10040013 bytes of JSON together"},
	} {
		var err error
		n := allocated(func() { _, err = compileFormat(c.schema, false) })
		if err == nil || !strings.HasPrefix(err.Error(), c.prefix) {
			t.Errorf("%.60s: %v, want an error at %s", c.schema, err, c.prefix)
		}
		if n > maxCompileBytes {
			t.Errorf("%.60s: %d bytes allocated", c.schema, n)
		}
	}
}

// Compiling is linear in the schema: four times the properties, about four
// times the allocations.
func TestCompileIsLinear(t *testing.T) {
	checkLinearAllocs(t, "properties", 50, false, func(n int) string {
		return manyProperties(n, `{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a", "b"]}`)
	})
}

// checkLinearAllocs checks that compiling schema(4*n) as a response
// format allocates at most five times as often as schema(n): growth
// linear in what n counts (what), with room.
func checkLinearAllocs(t *testing.T, what string, n int, strict bool, schema func(n int) string) {
	t.Helper()
	count := func(n int) float64 {
		s := schema(n)
		return testing.AllocsPerRun(2, func() {
			if _, err := compileFormat(s, strict); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := count(n), count(4*n)
	if large > 5*small {
		t.Errorf("%d %s: %.0f allocations, %d: %.0f", n, what, small, 4*n, large)
	}
}

// A compile whose context has ended stops with the context's error,
// however few schemas it holds: the context is polled before a compile
// starts, after each schema is parsed, before each pattern is translated
// and every pollEvery bytes of expressions, not only every 64 schemas.
// A schema of one name of 300,000 characters ran to its end (55 to 95
// ms) and answered with the engine's cap.
func TestCompileStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	long := strings.Repeat(`abc\"é`, 100000) // a JSON string's text
	patterns := func(unit string) string {
		var props []string
		for i := range 8 {
			props = append(props, fmt.Sprintf(`"p%d": {"type": "string", "pattern": %q}`, i, strconv.Itoa(i)+strings.Repeat(unit, 4000/len(unit))))
		}
		return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}}`
	}
	for name, schema := range map[string]string{
		"many properties": manyProperties(500, `{"type": "integer"}`),
		"one long name":   `{"type": "object", "properties": {"` + long + `": {"type": "integer"}}, "required": ["` + long + `"]}`,
		"one long const":  `{"const": "` + long + `"}`,
		"long patterns":   patterns("x?"),
	} {
		for _, spec := range []*Spec{
			{Format: &Format{Schema: json.RawMessage(schema)}},
			{Format: &Format{Schema: json.RawMessage(schema), Strict: true}},
			{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(schema), Strict: true}}, Choice: Required},
		} {
			if _, err := Compile(ctx, spec); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: %.200v, want context.Canceled", name, err)
			}
		}
	}
}

// A grammar that its counts would take past maxExpanded is compiled once
// more without them, each reported (an error under strict naming the
// first), rather than refused whole (gap decision 210).
func TestCountsPastExpandedCap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {`)
	for i := range 5 {
		fmt.Fprintf(&b, `"s%d": {"type": "string", "maxLength": %d}, `, i, 32767+i)
	}
	for i := range 1100 { // with the strings' counts past maxExpanded (81,920), without them under it
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"b%d": {"type": "boolean"}`, i)
	}
	b.WriteString(`}, "additionalProperties": false}`)
	schema := b.String()
	spec := &Spec{Format: &Format{Schema: json.RawMessage(schema)}}
	if _, over, err := compile(context.Background(), spec, maxRepetitions, false, 0, nil); !over.counts || err == nil {
		t.Fatalf("the counts should take the grammar past the cap: %v %v", over, err)
	}
	g, err := Compile(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if c := grammarCost(g); c > maxExpanded {
		t.Errorf("cost %d", c)
	}
	var reported []string
	for _, d := range g.Dropped {
		reported = append(reported, d.Path)
	}
	for i := range 5 {
		if p := "response_format.json_schema.schema.properties.s" + itoa(i) + ".maxLength"; !slices.Contains(reported, p) {
			t.Errorf("%s not reported: %v", p, reported)
		}
	}
	_, err = compileFormat(schema, true)
	if err == nil || !strings.HasPrefix(err.Error(), "response_format.json_schema.schema.properties.s0.maxLength: the keyword maxLength can't be enforced exactly in constrained generation: with its counts, the grammar takes more than "+itoa(maxExpanded)+" elements") {
		t.Errorf("strict: %v", err)
	}
}

// A tool that fails stops the compile: the tools after it are not
// compiled (100,000 tools of which the 235th passed the engine's cap took
// 70 ms and 55 MB, each of them compiled).
func TestFailedToolStopsTheCompile(t *testing.T) {
	tools := make([]Tool, 100000)
	for i := range tools {
		tools[i] = Tool{Name: "t" + itoa(i), Parameters: json.RawMessage(`{"type": "object", "properties": {"a": {"type": "string"}, "b` + itoa(i) + `": {"type": "integer"}}, "required": ["a"]}`)}
	}
	var err error
	b := allocated(func() { _, err = Compile(context.Background(), &Spec{Tools: tools, Choice: Required, Parallel: true}) })
	var ge *Error
	if !errors.As(err, &ge) || !strings.HasPrefix(ge.Path, "tools[") || ge.Path == "tools[99999].function.parameters" {
		t.Fatalf("%v", err)
	}
	if b > 16<<20 {
		t.Errorf("%d bytes allocated after %s failed", b, ge.Path)
	}
}

// A tool's string argument of a length near MaxLength compiles, as a
// response format's does: the leftmost walk counts a class as the elements
// llama.cpp makes of it (scanCost), so that Claude Code's Workflow tool,
// whose script is a string of at most 524,288 characters, no longer fails
// the whole request's grammar under a required tool choice or strict (gap
// decision 309; llama.cpp checks its grammar in 0.7 ms of CPU). That the
// chunks hold exactly the lengths allowed is TestChunkedCounts's (a text
// near the bound takes the test's matcher seconds).
func TestLongRawStrings(t *testing.T) {
	for _, n := range []int{524288, MaxLength} {
		params := `{"type": "object", "properties": {"script": {"type": "string", "maxLength": ` + itoa(n) + `}, "name": {"type": "string"}}, "required": ["script"], "additionalProperties": false}`
		for _, strict := range []bool{true, false} {
			g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(params), Strict: strict}}, Choice: Required})
			if err != nil {
				t.Errorf("maxLength %d, strict %v: %v", n, strict, err)
				continue
			}
			if len(g.Dropped) > 0 {
				t.Errorf("maxLength %d, strict %v: reported %v", n, strict, g.Dropped)
			}
			script := strings.Repeat("let x = 1;\n", 200)
			checkArgs(t, g, []argCase{{xmlArg("script", script), true}, {xmlArg("script", "ab"), true}, {xmlArg("script", "a</rfl:parameter>"), false}})
		}
	}
}

// A grammar past the leftmost walk's cap because of a long string's
// chunks names that string, or the tool whose arguments hold it: before,
// the error named the rule whose own walk was longest, another tool's
// property or the ladder beside it (decision 309).
func TestLeftmostWalkNamesTheRepetition(t *testing.T) {
	defs := strings.TrimSuffix(strings.TrimPrefix(ladder(16, true), "{"), `, "$ref": "#/$defs/L0a"}`)
	schema := `{` + defs + `, "type": "object", "properties": {"x": {"$ref": "#/$defs/L0a"}, "big": {"type": "string", "maxLength": ` + itoa(MaxLength) + `}}, "required": ["big", "x"]}`
	var ge *Error
	if _, err := compileFormat(schema, false); !errors.As(err, &ge) || ge.Path != "response_format.json_schema.schema.properties.big" || !strings.Contains(ge.Msg, "nest so that an engine would scan more than") {
		t.Errorf("response format: %v", err)
	}
	tools := []Tool{{Name: "g", Parameters: json.RawMessage(`{"type": "object", "properties": {"q": {"type": "integer", "minimum": 0, "maximum": 99999}}}`)}, {Name: "f", Parameters: json.RawMessage(schema)}}
	if _, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required}); !errors.As(err, &ge) || ge.Path != "tools[1].function.parameters" {
		t.Errorf("tools: %v", err)
	}
}

// An object whose chain of members takes the grammar past maxExpanded is
// refused at the member that takes it there (gap decision 322): the
// members after it are not compiled, and the compile is not done once
// more with loosened values when the names alone are past the cap. So
// the refusal of 8,000 members costs about what that of 2,000 does (the
// schema read aside); it was three times as much, each member's value
// compiled twice.
func TestChainPastCapStopsEarly(t *testing.T) {
	formats := []string{"date-time", "email", "uri", "ipv6", "hostname", "uuid", "duration", "time"}
	object := func(n int) string {
		props := make([]string, n)
		for i := range props {
			props[i] = fmt.Sprintf(`"f%d": {"type": "string", "format": %q}`, i, formats[i%len(formats)])
		}
		return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}}`
	}
	refusal := func(n int) uint64 {
		s := object(n)
		var err error
		b := allocated(func() { _, err = compileFormat(s, false) })
		if err == nil || !strings.Contains(err.Error(), overExpandedText) || !strings.HasPrefix(err.Error(), "response_format.json_schema.schema: ") {
			t.Fatalf("%d members: %v, want the engine's cap at the object", n, err)
		}
		return b
	}
	if small, large := refusal(2000), refusal(8000); large > 2*small {
		t.Errorf("refusing 2,000 members allocates %d bytes, 8,000: %d", small, large)
	}
}
