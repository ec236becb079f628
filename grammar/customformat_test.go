package grammar

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// A format JSON Schema does not define, beside a pattern in the same
// schema, is the pattern's name: the pattern is enforced and the format
// reported, under strict too (gap decision 275). Alone, or when it is a
// format JSON Schema defines that the grammar does not enforce, or a
// defined one spelt otherwise, strict still refuses it.
func TestCustomFormatBesidePattern(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		strictErr    string // "" when strict compiles it
		in, out      []string
	}{
		{"custom beside pattern", `{"type": "string", "format": "cuid", "pattern": "^[cC][0-9a-z]{6,}$"}`, "",
			[]string{`"c123abcd"`, `"Cabcdefg"`}, []string{`"x123abcd"`, `"c12"`, `"cABCDEFG"`}},
		{"pattern after the format in the schema", `{"type": "string", "pattern": "^\\+[1-9]\\d{6,14}$", "format": "e164"}`, "",
			[]string{`"+441234567"`}, []string{`"441234567"`, `"+0123456"`}},
		{"custom alone", `{"type": "string", "format": "jwt"}`,
			`format: the keyword format can't be enforced exactly in constrained generation: the format "jwt" is not one the grammar knows; change it or turn strict off`, nil, nil},
		{"custom beside a pattern of another schema", `{"type": "string", "allOf": [{"pattern": "^[a-z]+$"}, {"format": "slug"}]}`,
			`allOf[1].format: the keyword format can't be enforced exactly in constrained generation: the format "slug" is not one the grammar knows; change it or turn strict off`, nil, nil},
		{"defined, not enforced, beside pattern", `{"type": "string", "format": "idn-email", "pattern": "@"}`,
			`format: the keyword format can't be enforced exactly in constrained generation: the format "idn-email" is not one the grammar knows; change it or turn strict off`, nil, nil},
		{"defined, spelt otherwise, beside pattern", `{"type": "string", "format": "DateTime", "pattern": "^2"}`,
			`format: the keyword format can't be enforced exactly in constrained generation: the format "DateTime" is not one the grammar knows (did you mean "date-time"?); change it or turn strict off`, nil, nil},
		{"defined spelt otherwise, alone", `{"type": "string", "format": "ip_v4"}`,
			`format: the keyword format can't be enforced exactly in constrained generation: the format "ip_v4" is not one the grammar knows (did you mean "ipv4"?); change it or turn strict off`, nil, nil},
		{"OpenAPI's byte alone: a custom format as JSON Schema's validators read it (decision 290)", `{"type": "string", "format": "byte"}`,
			`format: the keyword format can't be enforced exactly in constrained generation: the format "byte" is not one the grammar knows; change it or turn strict off`,
			[]string{`"QQ=="`, `"-----BEGIN CERTIFICATE-----\nMIID"`}, nil},
		{"custom beside a pattern of emoji properties", `{"type": "string", "format": "emoji", "pattern": "^\\p{Emoji}+$"}`, "",
			[]string{`"😀"`, `"1#"`}, []string{`"a"`, `""`}},
		{"custom beside a pattern strict refuses", `{"type": "string", "format": "emoji", "pattern": "^\\p{RGI_Emoji}+$"}`,
			"pattern: ", nil, nil},
	} {
		for _, strict := range []bool{true, false} {
			name := fmt.Sprintf("%s (strict %v)", c.name, strict)
			g, err := compileFormat(c.schema, strict)
			if strict && c.strictErr != "" {
				want := "response_format.json_schema.schema." + c.strictErr
				if err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("%s: got %v, want an error starting %q", name, err, want)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if got := fmt.Sprint(g.Dropped); !strings.Contains(got, "format") {
				t.Errorf("%s: the format is not reported: %s", name, got)
			}
			checkContents(t, name, g, c.in, c.out)
		}
	}
}

// definedFormat finds the format JSON Schema defines that a name spells,
// case and separators apart, and no other.
func TestDefinedFormat(t *testing.T) {
	for name, want := range map[string]string{
		"date-time": "date-time", "datetime": "date-time", "Date_Time": "date-time", "UUID": "uuid",
		"e-mail": "email", "ip_v6": "ipv6", "uri reference": "uri-reference", "idn-email": "idn-email",
		"uuid4": "", "cuid": "", "password": "", "date-times": "", "": "",
	} {
		if got := definedFormat(name); got != want {
			t.Errorf("definedFormat(%q) = %q, want %q", name, got, want)
		}
	}
}

// The schemas the official openai package's zodResponseFormat writes for
// zod's string kinds (testdata/zod, made by gen.mjs: a pattern beside
// most formats, custom formats among them, draft-07): the contact object
// compiles under strict, every format either enforced with its pattern or
// reported as the pattern's name, and its grammar holds a valid contact
// and none of its invalid variants; the other object is refused under
// strict, naming its first field.
func TestZodSchemas(t *testing.T) {
	schema, err := os.ReadFile("testdata/zod/contact.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := compileFormat(string(schema), true)
	if err != nil {
		t.Fatal(err)
	}
	var reported []string
	for _, d := range g.Dropped {
		reported = append(reported, strings.TrimPrefix(d.Path, "response_format.json_schema.schema.properties."))
	}
	if got, want := strings.Join(reported, " "), "cuid.format e164.format nanoid.format ulid.format cidr.format emoji.format"; got != want {
		t.Errorf("reported %s, want %s", got, want)
	}
	good, bad := zodContacts()
	checkContents(t, "contact", g, []string{good}, nil)
	for i, b := range bad {
		checkContents(t, fmt.Sprintf("contact %d with an invalid field", i), g, nil, []string{b})
	}

	refused, err := os.ReadFile("testdata/zod/refused.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := compileFormat(string(refused), true); err == nil || !strings.HasPrefix(err.Error(), "response_format.json_schema.schema.properties.jwt.format: ") {
		t.Errorf("refused.json under strict: %v", err)
	}
	if g, err := compileFormat(string(refused), false); err != nil || len(g.Dropped) == 0 {
		t.Errorf("refused.json not strict: %v, reported %v", err, g)
	}
}

// zodContacts is a valid instance of testdata/zod/contact.json, written as
// the grammar writes JSON (its members in the schema's order), and 27
// instances each with one field invalid.
func zodContacts() (valid string, invalid []string) {
	values := map[string]string{
		"name": `"Ada"`, "email": `"ada.l@example.org"`, "id": `"123e4567-e89b-42d3-a456-426614174000"`,
		"website": `"https://example.org/a"`, "born": `"1815-12-10"`, "seen": `"2026-12-06T16:30:00Z"`,
		"at": `"16:30"`, "age": `36`, "score": `0.5`, "role": `"admin"`, "tags": `["a", "b"]`,
		"nick": `null`, "ip": `"192.168.0.1"`, "ip6": `"2001:db8::1"`, "slug": `"ada-l"`,
		"nested": `{"a": true, "b": "x"}`, "union": `7`, "disc": `{"kind": "b", "y": "z"}`,
		"def": `"d"`, "cuid": `"cjld2cjxh0000qzrmn831i7rn"`, "e164": `"+441234567890"`,
		"nanoid": `"V1StGXR8_Z5jdHi6B-myT"`, "ulid": `"01ARZ3NDEKTSV4RRFFQ69G5FAV"`, "cidr": `"10.0.0.0/8"`,
		"dur": `"P1Y2M3DT4H5M6S"`, "emoji": `"👍🏽🇫🇷"`,
	}
	order := []string{"name", "email", "id", "website", "born", "seen", "at", "age", "score", "role", "tags",
		"nick", "ip", "ip6", "slug", "nested", "union", "disc", "def", "cuid", "e164", "nanoid", "ulid", "cidr", "dur", "emoji"}
	object := func(field, value string) string {
		var b strings.Builder
		b.WriteString("{")
		for i, k := range order {
			if i > 0 {
				b.WriteString(", ")
			}
			v := values[k]
			if k == field {
				v = value
			}
			fmt.Fprintf(&b, "%q: %s", k, v)
		}
		return b.String() + "}"
	}
	for _, f := range [][2]string{
		{"name", `""`}, {"email", `"ada@localhost"`}, {"id", `"123e4567-e89b-92d3-a456-426614174000"`},
		{"born", `"1815-02-30"`}, {"seen", `"2026-12-06 16:30:00Z"`}, {"at", `"24:00"`}, {"age", `151`},
		{"score", `1.5`}, {"role", `"root"`}, {"tags", `["a", "b", "c", "d", "e", "f"]`}, {"ip", `"256.0.0.1"`},
		{"ip6", `"2001:db8::g"`}, {"slug", `"Ada"`}, {"nested", `{"a": true, "b": "y"}`},
		{"disc", `{"kind": "a", "y": "z"}`}, {"cuid", `"xjld2cjxh"`}, {"e164", `"441234567890"`},
		{"nanoid", `"V1StGXR8_Z5jdHi6B-my"`}, {"ulid", `"81ARZ3NDEKTSV4RRFFQ69G5FAV"`}, {"cidr", `"10.0.0.0/33"`},
		// zod's duration pattern asserts, after its start, that weeks stand
		// alone and that a T is followed by a digit (decision 286).
		{"dur", `"P1W2D"`}, {"dur", `"PT"`}, {"dur", `"P1DT"`},
		// zod's emoji pattern: emoji properties (decision 287), a leading
		// lookahead for one pictograph at least.
		{"emoji", `"a"`}, {"emoji", `"#"`}, {"emoji", `"😀a"`}, {"emoji", `""`},
	} {
		invalid = append(invalid, object(f[0], f[1]))
	}
	return object("", ""), invalid
}
