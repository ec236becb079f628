package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// rootRefs is an object schema of n properties, each a reference to the
// root beside sibling(i): the shape of real-world configuration schemas
// (renovate's: 300 managers, each {"$ref": "#", "type": "object",
// "description": ..., "default": ...}).
func rootRefs(n int, sibling func(i int) string) string {
	var b strings.Builder
	b.WriteString(`{"type": "object", "properties": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"p%d": {"$ref": "#", "description": "manager %d"%s}`, i, i, sibling(i))
	}
	b.WriteString(`}}`)
	return b.String()
}

// A reference to the root beside keywords the root implies (its own type;
// keywords of other types) is the root's rule, a recursion. Before, each
// such property made a new copy of the root inside the last one: renovate's
// schema was refused, 64 levels deep, after 150 ms and 75 MB.
func TestRefBesideImpliedKeywords(t *testing.T) {
	for _, sibling := range []string{
		`, "type": "object"`,
		`, "type": "object", "default": {"x": [1]}`,
		`, "type": ["object", "null"]`,
		`, "type": "object", "items": {"type": "string"}, "maxLength": 3`,
	} {
		schema := rootRefs(300, func(int) string { return sibling })
		var g *Grammar
		var err error
		bytes := allocated(func() { g, err = compileFormat(schema, false) })
		if err != nil {
			t.Errorf("%s: %v", sibling, err)
			continue
		}
		// The root and one rule per member's place in the chain, not a
		// copy of the root per property.
		if n := g.numRules(); n > 1000 {
			t.Errorf("%s: %d rules", sibling, n)
		}
		if bytes > 8<<20 {
			t.Errorf("%s: %d bytes allocated", sibling, bytes)
		}
		// A number is no value for the root.
		checkContents(t, sibling, g, []string{`{}`, `{"p0": {"p1": {}}}`, `{"p7": {}, "p299": {"p3": {"p299": {}}}}`}, []string{`{"p0": 1}`})
	}
	// A sibling that narrows the root is a view of its own: not the root.
	g, err := compileFormat(rootRefs(3, func(i int) string {
		if i == 1 {
			return `, "type": "object", "required": ["p2"]`
		}
		return ""
	}), false)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Matches(suiteText(`{"p0": {"p0": {}}, "p1": {"p2": {}}}`)) || g.Matches(suiteText(`{"p1": {}}`)) {
		t.Error("required beside the $ref is not enforced")
	}
}

// Large schemas are refused, or compiled, within maxCompileBytes, however
// dense: a request body of a few megabytes of properties (16 MiB is the
// gateway's default limit) is counted before it is parsed, and a schema
// under that count stops at the first cap passed instead of preparing
// every member first (a 9.5 MB schema took 354 MB before).
func TestLargeSchemasAreBounded(t *testing.T) {
	for _, c := range []struct {
		name   string
		schema func(n int) string
	}{
		{"integers", func(n int) string { return manyProperties(n, `{"type": "integer"}`) }},
		{"required-objects", func(n int) string {
			return manyProperties(n, `{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}`)
		}},
		{"root-refs", func(n int) string { return rootRefs(n, func(int) string { return `, "type": "object"` }) }},
		{"distinct-root-refs", func(n int) string {
			return rootRefs(n, func(i int) string { return fmt.Sprintf(`, "maxProperties": %d`, 1000+i) })
		}},
		{"array", func(n int) string {
			return `{"type": "array", "prefixItems": [` + strings.TrimSuffix(strings.Repeat(`{"type": "integer"}, `, n), ", ") + `]}`
		}},
		// Long lists of names and values, which were read pair by pair
		// (gap decision 217).
		{"required-names", func(n int) string { return `{"required": ` + nameList(n) + `}` }},
		{"oneOf-required-names", func(n int) string {
			return `{"oneOf": [{"required": ` + nameList(n) + `, "not": {"required": ["a"]}}, {"required": ["a"], "not": {"required": ["b"]}}]}`
		}},
		{"dependentRequired-names", func(n int) string {
			return `{"type": "object", "properties": {"a": {}}, "dependentRequired": {"a": ` + nameList(n) + `}}`
		}},
		{"propertyNames-enum", func(n int) string { return `{"type": "object", "propertyNames": {"enum": ` + nameList(n) + `}}` }},
		{"const-object", func(n int) string {
			var members []string
			for i := range n / 2 {
				members = append(members, `"k`+strconv.Itoa(i)+`": `+strconv.Itoa(i))
			}
			return `{"const": {` + strings.Join(members, ", ") + `}, "properties": {"k1": {"type": "integer"}}, "required": ["k5"], "minProperties": 3}`
		}},
		{"two-enums", func(n int) string {
			var a, b []string
			for i := range n / 2 {
				a, b = append(a, strconv.Itoa(i)), append(b, strconv.Itoa(i)+".0")
			}
			return `{"allOf": [{"enum": [` + strings.Join(a, ", ") + `]}, {"enum": [` + strings.Join(b, ", ") + `]}]}`
		}},
		// Names times schemas (gap decision 218): each declared name
		// beside as many patterns, and an allOf of objects.
		{"patterns-beside-properties", func(n int) string {
			var props, patterns []string
			for i := range n / 4 {
				props = append(props, fmt.Sprintf(`"k%d": {"type": "integer"}`, i))
				patterns = append(patterns, fmt.Sprintf(`"^k%d": {"type": "integer", "minimum": %d}`, i, i))
			}
			return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "patternProperties": {` + strings.Join(patterns, ", ") + `}, "additionalProperties": false}`
		}},
		{"allOf-patterns", func(n int) string {
			var members []string
			for i := range n / 4 {
				members = append(members, fmt.Sprintf(`{"patternProperties": {"^k%d_": {"type": "integer"}}, "properties": {"j%d": {}}}`, i, i))
			}
			return `{"type": "object", "unevaluatedProperties": false, "allOf": [` + strings.Join(members, ", ") + `]}`
		}},
		// An allOf of anyOfs and oneOfs, each variant a copy of the
		// view (decision 218).
		{"allOf-anyOfs", func(n int) string {
			var members []string
			for i := range n {
				members = append(members, fmt.Sprintf(`{"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": %d}]}`, i+1))
			}
			return `{"allOf": [` + strings.Join(members, ", ") + `]}`
		}},
		{"allOf-oneOfs", func(n int) string {
			var members []string
			for i := range n {
				members = append(members, fmt.Sprintf(`{"oneOf": [{"type": "integer"}, {"type": "string", "maxLength": %d}]}`, i+1))
			}
			return `{"allOf": [` + strings.Join(members, ", ") + `]}`
		}},
		{"allOf-objects", func(n int) string {
			var members []string
			for i := range n / 4 {
				members = append(members, fmt.Sprintf(`{"type": "object", "properties": {"k%d": {"type": "integer"}}, "required": ["k%d"]}`, i, i))
			}
			return `{"allOf": [` + strings.Join(members, ", ") + `]}`
		}},
		// Patterns (gap decision 317): thousands of a few bytes each,
		// beside as many names of a closed object (85 MB before) or
		// each a string's; long runs of literal characters (joined one
		// at a time, quadratic: 80 MB for 32 KB of schema); thousands
		// of dots (each one's set and its encoding built anew: 169 MB
		// for 33 KB).
		{"many-short-patternProperties", func(n int) string {
			var props, patterns []string
			for i := range n / 2 {
				props = append(props, fmt.Sprintf(`"p%d": {"type": "integer"}`, i))
				patterns = append(patterns, fmt.Sprintf(`"^q%dx": {"type": "string"}`, i))
			}
			return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "patternProperties": {` + strings.Join(patterns, ", ") + `}, "additionalProperties": false}`
		}},
		{"many-short-patterns", func(n int) string {
			var props []string
			for i := range n / 2 {
				props = append(props, fmt.Sprintf(`"p%d": {"type": "string", "pattern": "^q%dx$"}`, i, i))
			}
			return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}}`
		}},
		{"literal-patterns", func(n int) string { return longPatterns(n, "abcdefghij") }},
		{"dot-patterns", func(n int) string { return longPatterns(n, ".") }},
	} {
		for _, n := range []int{300, 3000, 8000, 16000, 30000, 300000} {
			schema := c.schema(n)
			// For xgrammar too, whose chains of members in blocks may
			// take a second compile (gap decision 270).
			for _, xg := range []bool{false, true} {
				var err error
				bytes := allocated(func() {
					_, err = Compile(context.Background(), &Spec{Format: &Format{Schema: json.RawMessage(schema)}, XGrammar: xg})
				})
				var ge *Error
				if err != nil && !errors.As(err, &ge) {
					t.Errorf("%s n=%d xgrammar=%v: %v, not *Error", c.name, n, xg, err)
				}
				if bytes > maxCompileBytes {
					t.Errorf("%s n=%d xgrammar=%v (%d bytes of schema): %d bytes allocated, %.100v", c.name, n, xg, len(schema), bytes, err)
				}
			}
		}
	}
}

// longPatterns is an object of n/1000+1 string properties, each with a
// pattern of unit repeated to 4,000 bytes or so, anchored, distinct.
func longPatterns(n int, unit string) string {
	var props []string
	for i := range n/1000 + 1 {
		p := "^" + strings.Repeat(unit, 4000/len(unit)) + strconv.Itoa(i) + "$"
		props = append(props, fmt.Sprintf(`"p%d": {"type": "string", "pattern": %q}`, i, p))
	}
	return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}}`
}

// The count of JSON values holds for the request's schemas together.
func TestSchemaValuesCountTogether(t *testing.T) {
	// About 60,000 values, nearly all of them an annotation.
	half := `{"type": "object", "properties": {"a": {"type": "integer"}}, "examples": [` + strings.TrimSuffix(strings.Repeat("0, ", 60000), ", ") + `]}`
	if n := countValues([]byte(half)); n < 60000 || n > maxSchemaValues {
		t.Fatalf("countValues: %d", n)
	}
	if _, err := compileFormat(half, false); err != nil {
		t.Fatalf("one schema: %v", err)
	}
	tools := []Tool{{Name: "a", Parameters: json.RawMessage(half)}, {Name: "b", Parameters: json.RawMessage(half)}}
	_, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required})
	if err == nil || !strings.HasPrefix(err.Error(), "tools[1].function.parameters: the schemas are too large to compile (about") {
		t.Errorf("two tools: %v", err)
	}
}

// countValues skips strings, escapes included, and counts what the parse
// would: from above, within one and a half times.
func TestCountValues(t *testing.T) {
	for _, c := range []struct {
		src      string
		min, max int
	}{
		{`1`, 1, 1},
		{`{}`, 1, 2},
		{`{"a": 1}`, 3, 4},
		{`{"a": "x,y:[{", "b": [1, 2, 3]}`, 8, 12},
		{`["\"", "\\", "a\",b"]`, 4, 5},
		{`{"a": {"b": {"c": [[], {}]}}}`, 9, 14},
	} {
		if n := countValues([]byte(c.src)); n < c.min || n > c.max {
			t.Errorf("%s: %d, want %d to %d", c.src, n, c.min, c.max)
		}
	}
}

// nameList is a JSON array of n distinct names.
func nameList(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = `"n` + strconv.Itoa(i) + `"`
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// A prefix of more elements than any grammar can hold is refused while
// it is built, naming prefixItems, and the elements past one that can't
// be written are not built at all (gap decision 217: prefixItems of
// 45,000 elements took 2.5 s, each element looked up by position).
func TestLongPrefixItems(t *testing.T) {
	items := func(n int) string { return strings.TrimSuffix(strings.Repeat(`{}, `, n), ", ") }
	_, err := compileFormat(`{"type": "array", "prefixItems": [`+items(maxExpanded/3+1)+`]}`, false)
	var ge *Error
	if !errors.As(err, &ge) || ge.Path != "response_format.json_schema.schema.prefixItems" || !strings.Contains(ge.Msg, commas(maxExpanded)+" elements") && !strings.Contains(ge.Msg, strconv.Itoa(maxExpanded)+" elements") {
		t.Errorf("a long prefix: %v", err)
	}
	// Past a false element nothing is written: 30,000 elements after it
	// (one of them a keyword strict can't enforce) compile to an array
	// of at most two elements.
	schema := `{"type": "array", "prefixItems": [{"type": "integer"}, {}, false, ` + items(30000) + `, {"uniqueItems": true, "type": "array", "items": {"type": "object"}}]}`
	for _, strict := range []bool{false, true} {
		g, err := compileFormat(schema, strict)
		if err != nil {
			t.Fatalf("strict %v: %v", strict, err)
		}
		checkContents(t, "past false", g, []string{`[]`, `[1]`, `[1, "x"]`}, []string{`[1, "x", 3]`, `["x"]`})
	}
}

// A propertyNames enum whose names alone pass the engine's cap is refused
// while its keys are read, naming it (gap decision 217).
func TestLongPropertyNamesEnum(t *testing.T) {
	_, err := compileFormat(`{"type": "object", "propertyNames": {"enum": `+nameList(maxExpanded/4)+`}}`, false)
	var ge *Error
	if !errors.As(err, &ge) || ge.Path != "response_format.json_schema.schema.propertyNames" || !strings.Contains(ge.Msg, strconv.Itoa(maxExpanded)+" elements") {
		t.Errorf("%v", err)
	}
	// Under the cap, the names are the keys.
	g, err := compileFormat(`{"type": "object", "propertyNames": {"enum": `+nameList(50)+`}, "additionalProperties": {"type": "integer"}}`, false)
	if err != nil {
		t.Fatal(err)
	}
	checkContents(t, "fifty names", g, []string{`{"n0": 1, "n49": 2}`, `{}`}, []string{`{"n50": 1}`, `{"x": 1}`})
}

// Past maxSchemaBytes, the request's schemas together, a schema is
// refused before it is read, naming it: a schema of long descriptions or
// long $ref pointers at the gateway's 16 MiB body limit took 70 to 150 ms
// and up to 100 MB to read (gap decision 246).
func TestSchemaBytesCap(t *testing.T) {
	long := func(n int) string {
		return `{"type": "object", "description": "` + strings.Repeat("d", n) + `"}`
	}
	for _, c := range []struct {
		name  string
		tools []string
		want  string // the error's start; "" for none
	}{
		{"at the cap", []string{long(maxSchemaBytes - len(long(0)))}, ""},
		{"past the cap", []string{long(maxSchemaBytes)}, "tools[0].function.parameters: the schemas are too large to compile (" + itoa(len(long(maxSchemaBytes))) + " bytes of JSON together"},
		{"together", []string{long(maxSchemaBytes / 2), long(maxSchemaBytes / 2)}, "tools[1].function.parameters: the schemas are too large to compile"},
	} {
		var tools []Tool
		for i, p := range c.tools {
			tools = append(tools, Tool{Name: "t" + itoa(i), Parameters: json.RawMessage(p)})
		}
		var err error
		n := allocated(func() { _, err = Compile(context.Background(), &Spec{Tools: tools, Choice: Required}) })
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%s: %v, want %s...", c.name, err, c.want)
		case c.want != "" && len(c.tools) == 1 && n > 1<<20:
			t.Errorf("%s: %d bytes allocated to refuse it unread", c.name, n)
		}
	}
}
