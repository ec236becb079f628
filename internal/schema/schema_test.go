package schema_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

func parse(t *testing.T, src string) *pyjson.Doc {
	t.Helper()
	d, err := pyjson.ParseBytes([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The renderer's rule order: the first present of $ref, enum, const,
// anyOf, oneOf, type and properties (an object) decides.
func TestRule(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   schema.Rule
	}{
		{`{"$ref": "#", "enum": [1], "type": "string"}`, schema.RuleRef},
		{`{"enum": [1], "const": 2, "anyOf": []}`, schema.RuleEnum},
		{`{"enum": 5}`, schema.RuleEnum},
		{`{"const": null, "anyOf": [], "type": "string"}`, schema.RuleConst},
		{`{"anyOf": [], "oneOf": [], "type": "string"}`, schema.RuleAnyOf},
		{`{"oneOf": [{}], "type": "string"}`, schema.RuleOneOf},
		{`{"type": "mystery", "properties": {}}`, schema.RuleType},
		{`{"properties": {"a": {}}}`, schema.RuleProperties},
		{`{"properties": [1]}`, schema.RuleAny},
		{`{"description": "x", "items": {}}`, schema.RuleAny},
		{`true`, schema.RuleAny},
		{`"string"`, schema.RuleAny},
		{`{"type": "string", "type": null, "$ref": 1}`, schema.RuleRef},
	} {
		d := parse(t, c.schema)
		ks := schema.KeysOf(d, 0)
		if got := ks.Rule(d); got != c.want {
			t.Errorf("%s: rule %d, want %d", c.schema, got, c.want)
		}
	}
}

// KeysOf reads every keyword it knows, escaped keys included, the last of a
// repeated key winning.
func TestKeysOf(t *testing.T) {
	d := parse(t, `{"minLength": 1, "max\u004cength": 2, "minLength": 3, "x-other": 4, "additionalProperties": false, "$defs": {}}`)
	ks := schema.KeysOf(d, 0)
	if d.Str(ks.MinLength-1) != "minLength" || string(d.Raw(ks.MinLength)) != "3" {
		t.Errorf("minLength at node %d", ks.MinLength)
	}
	if string(d.Raw(ks.MaxLength)) != "2" || d.Kind(ks.AdditionalProperties) != pyjson.False || ks.Defs < 0 {
		t.Errorf("keys %+v", ks)
	}
	if ks.Ref != -1 || ks.Pattern != -1 || ks.Title != -1 {
		t.Errorf("absent keywords: %+v", ks)
	}
}

func TestTypes(t *testing.T) {
	for _, c := range []struct {
		typ  string
		want string
	}{
		{`"string"`, "[1]"},
		{`["integer", "number", "boolean", "null", "array", "object"]`, "[2 3 4 5 6 7]"},
		{`["str\u0069ng", 5, "mystery"]`, "[1 0 0]"},
		{`[]`, "[0]"},
		{`7`, "[0]"},
	} {
		d := parse(t, c.typ)
		var got []schema.Type
		schema.Types(d, 0, func(ty schema.Type) bool { got = append(got, ty); return true })
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s: %v, want %s", c.typ, got, c.want)
		}
	}
}

func TestTokens(t *testing.T) {
	for _, c := range []struct {
		ptr   string
		local bool
		want  string
	}{
		{"#", true, ""},
		{"#/$defs/A", true, "$defs|A"},
		{"#/a~1b/c~0d/~01", true, "a/b|c~d|~1"},
		{"#/", true, ""},
		{"other.json#/A", false, ""},
		{"#A", false, ""},
	} {
		var toks []string
		local := schema.Tokens(c.ptr, func(tok string) bool { toks = append(toks, tok); return true })
		if local != c.local || strings.Join(toks, "|") != c.want {
			t.Errorf("%q: %v %q, want %v %q", c.ptr, local, strings.Join(toks, "|"), c.local, c.want)
		}
	}
}

// Pointers resolves the same way into narrow and wide (indexed) objects and
// arrays; what names nothing is -1.
func TestPointers(t *testing.T) {
	var wideObj, wideArr []string
	for i := range 40 {
		wideObj = append(wideObj, fmt.Sprintf(`"k%d": %d`, i, i))
		wideArr = append(wideArr, fmt.Sprint(100+i))
	}
	src := `{"$defs": {"A": {"type": "string"}, "a/b": 1, "dup": 1, "dup": 2}, "arr": [10, 11, 12], ` +
		`"wide": {` + strings.Join(wideObj, ", ") + `}, "warr": [` + strings.Join(wideArr, ", ") + `], ` +
		`"refs": ["#", "#/$defs/A/type", "#/$defs/a~1b", "#/$defs/dup", "#/arr/2", "#/arr/3", "#/arr/-1", "#/arr/x", ` +
		`"#/wide/k39", "#/wide/nope", "#/warr/39", "#/warr/40", "#/$defs/A/type/0", "x#/a", 5]}`
	d := parse(t, src)
	want := []string{src, `"string"`, "1", "2", "12", "", "", "", "39", "", "139", "", "", "", ""}
	var p schema.Pointers
	refs := d.Lookup(0, "refs")
	for round := range 2 { // the second round reads the index built by the first
		d.Elements(refs, func(e, pos int) bool {
			got := ""
			if n := p.Resolve(d, 0, e); n >= 0 {
				got = string(d.Raw(n))
			}
			if got != want[pos] {
				t.Errorf("round %d: %s: %q, want %q", round, d.Raw(e), got, want[pos])
			}
			return true
		})
	}
	if p.Size() == 0 {
		t.Error("wide containers were not indexed")
	}
	p.Reset()
	if p.Size() != 0 {
		t.Error("Reset kept the index")
	}
}

// Refs finds a cycle on the path and tells a target whose walk met no
// recurrence above it (reusable) from one that did.
func TestRefs(t *testing.T) {
	var r schema.Refs
	r.Reset()
	a := r.Push(1) // A
	b := r.Push(2) // A -> B
	if !r.Recurs(1) {
		t.Fatal("A on the path does not recur")
	}
	if r.Recurs(3) {
		t.Fatal("C recurs")
	}
	c := r.Push(3) // A -> B -> C, independent of the path
	if !r.Pop(c) {
		t.Error("C met no recurrence but is not reusable")
	}
	if r.Pop(b) {
		t.Error("B met A recurring above it but is reusable")
	}
	if r.Pop(a) {
		t.Error("A's walk met A itself: it depends on its own path, not reusable")
	}
	if r.Len() != 0 {
		t.Errorf("%d targets left on the path", r.Len())
	}
	d := r.Push(4)
	if !r.Pop(d) {
		t.Error("a fresh target is not reusable after an earlier recurrence")
	}
}

// A token decodes as the two replacements of RFC 6901 do (~1 first, then
// ~0), for every string of ~, 0, 1 and a up to six long.
func TestTokenUnescaping(t *testing.T) {
	var each func(prefix string)
	each = func(prefix string) {
		want := strings.ReplaceAll(strings.ReplaceAll(prefix, "~1", "/"), "~0", "~")
		var got string
		schema.Tokens("#/"+prefix, func(tok string) bool { got = tok; return false })
		if got != want {
			t.Errorf("%q: %q, want %q", prefix, got, want)
		}
		if len(prefix) < 6 {
			for _, c := range []string{"~", "0", "1", "a"} {
				each(prefix + c)
			}
		}
	}
	each("")
}

// TestUnescapeFragment checks the percent-decoding of a $ref's fragment
// against the chat template's way of doing it (split on %, then look the
// first two characters of each part up in a table of printable ASCII), on
// every string of up to five characters from an alphabet that makes
// escapes, half escapes and escapes of other bytes.
func TestUnescapeFragment(t *testing.T) {
	table := map[string]string{}
	for c := 0x20; c <= 0x7E; c++ {
		table[fmt.Sprintf("%02X", c)] = string(rune(c))
		table[fmt.Sprintf("%02x", c)] = string(rune(c))
	}
	template := func(s string) string {
		parts := strings.Split(s, "%")
		out := parts[0]
		for _, p := range parts[1:] {
			if c, ok := table[p[:min(2, len(p))]]; ok {
				out += c + p[2:]
			} else {
				out += "%" + p
			}
		}
		return out
	}
	var each func(s string)
	each = func(s string) {
		if got, want := schema.UnescapeFragment(s), template(s); got != want {
			t.Errorf("%q: %q, want %q", s, got, want)
		}
		if len(s) < 5 {
			for _, c := range []string{"%", "2", "5", "7", "e", "F", "1", "0", "x", "+", "_"} {
				each(s + c)
			}
		}
	}
	each("")
	for _, c := range []struct{ in, want string }{
		{"/$defs/a%20b", "/$defs/a b"},
		{"/a%2Fb", "/a/b"},
		{"/100%25", "/100%"},
		{"/%2541", "/%41"},         // decoded once
		{"/per%cent", "/per%cent"}, // %ce is not printable ASCII
		{"/%C3%A9", "/%C3%A9"},     // a byte of a multi-byte character stays
		{"/%7f%1F", "/%7f%1F"},     // control characters stay
		{"/a%3cb%3E", "/a<b>"},
		{"/%", "/%"},
		{"/%2", "/%2"},
	} {
		if got := schema.UnescapeFragment(c.in); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

// TestTokensOfFragments checks that a pointer's fragment is decoded before
// it is split and before ~1 and ~0 are read, and which fragments are
// pointers at all.
func TestTokensOfFragments(t *testing.T) {
	for _, c := range []struct {
		ptr   string
		local bool
		want  []string
	}{
		{"#", true, nil},
		{"#/", true, []string{""}},
		{"#/a%2Fb", true, []string{"a", "b"}},
		{"#%2Fa", true, []string{"a"}},
		{"#/a%7E1b", true, []string{"a/b"}},
		{"#/a~01", true, []string{"a~1"}},
		{"#/with%20space/x", true, []string{"with space", "x"}},
		{"#%41", false, nil},
		{"#a", false, nil},
		{"a#/b", false, nil},
		{"", false, nil},
	} {
		var got []string
		local := schema.Tokens(c.ptr, func(tok string) bool { got = append(got, tok); return true })
		if local != c.local || !slices.Equal(got, c.want) {
			t.Errorf("%q: %v %q, want %v %q", c.ptr, local, got, c.local, c.want)
		}
	}
}

// Extension: keys no draft knows and no keyword misspelt can be.
func TestExtension(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"_format", true}, {"x-order", true}, {"@type", true}, {"ui", true},
		{"markdownEnumDescriptions", true}, // longer than any keyword and two edits
		{"format", false}, {"minLength", false}, {"description", false},
		{"minLenght", false}, {"emum", false}, {"additonalProperties", false}, // may be misspelt: Misspelt's
		{"nullable", false}, {"example", false}, // OpenAPI's, which the compiler reads or names
	} {
		if got := schema.Extension(c.name); got != c.want {
			t.Errorf("Extension(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}
