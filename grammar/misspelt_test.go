package grammar

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"
)

// TestMisspeltKeywords: a key close to a keyword that constrains values,
// with a value of a kind that keyword takes, is reported where the schema
// is compiled (not strict) or refused naming the keyword (strict); keys
// that are keywords, annotations, extensions, keywords turned off or of
// another kind of value are not.
func TestMisspeltKeywords(t *testing.T) {
	tests := []struct {
		name, schema string
		path, near   string // "": nothing reported
	}{
		{"enum", `{"type": "string", "emum": ["a", "b"]}`, "emum", "enum"},
		{"swap", `{"type": "string", "minLenght": 2}`, "minLenght", "minLength"},
		{"colon", `{"type:": "string"}`, "type:", "type"},
		{"case", `{"type": "object", "properties": {"a": {"type": "string"}}, "Required": ["a"]}`, "Required", "required"},
		{"two edits", `{"type": "object", "additonalPropertes": false}`, "additonalPropertes", "additionalProperties"},
		{"nested", `{"type": "object", "properties": {"n": {"type": "integer", "maximun": 3}}, "required": ["n"]}`, "properties.n.maximun", "maximum"},
		{"escaped key", `{"type": "string", "patt\u0065rm": "^a"}`, "patterm", "pattern"},
		{"turned off", `{"type": "string", "_format": "date"}`, "", ""},
		{"extension", `{"type": "string", "x-pattern": "^a"}`, "", ""},
		{"prefixed", `{"type": "string", "axPattern": "^a", "$type": "string"}`, "", ""},
		{"annotations", `{"type": "string", "example": "a", "readonly": true, "markdownDescription": "m", "nullable": true}`, "", ""},
		{"other kind", `{"type": "object", "multiple": true, "typeof": "x"}`, "", ""},
		{"short", `{"type": "string", "Id": "x", "note": "n"}`, "", ""},
		{"property names", `{"type": "object", "properties": {"emum": {"type": "string"}}, "required": ["emum"]}`, "", ""},
		{"draft 3", `{"type": "string", "optional": true, "divisibleBy": 2, "extends": {}}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const at = "response_format.json_schema.schema"
			spec := func(strict bool) *Spec {
				return &Spec{Format: &Format{Schema: json.RawMessage(tt.schema), Strict: strict}}
			}
			g, err := Compile(context.Background(), spec(false))
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, d := range g.Dropped {
				paths = append(paths, d.Path)
			}
			reported := tt.path != "" && slices.Contains(paths, at+"."+tt.path)
			if reported != (tt.path != "") || tt.path == "" && slices.ContainsFunc(paths, func(p string) bool { return p != at+".additionalProperties" }) {
				t.Errorf("not strict: dropped %v; want %q reported", paths, tt.path)
			}
			_, err = Compile(context.Background(), spec(true))
			var e *Error
			switch {
			case tt.path == "" && err != nil:
				t.Errorf("strict: %v", err)
			case tt.path != "" && (!asError(err, &e) || e.Path != at+"."+tt.path || e.Msg != "unknown keyword, which constrains nothing: did you mean "+tt.near+"? Correct it, or remove it or turn strict off"):
				t.Errorf("strict: %v; want an error at %s naming %s", err, tt.path, tt.near)
			}
		})
	}
}

func asError(err error, e **Error) bool {
	var ok bool
	*e, ok = err.(*Error)
	return ok
}

// TestMisspeltBudget: a compile compares at most maxMisspeltChecks keys
// with the keywords, so that tens of thousands of unknown keys cost a few
// milliseconds; a misspelling past that many unknown keys goes unchecked,
// one before them is found.
func TestMisspeltBudget(t *testing.T) {
	schemaWith := func(before int, typo string) json.RawMessage {
		var b []byte
		b = append(b, `{"type": "string"`...)
		for i := range before {
			b = append(b, `, "maxPrope`+strconv.Itoa(100000+i)+`": 1`...)
		}
		return json.RawMessage(string(append(b, `, "`+typo+`": ["a"]}`...)))
	}
	for _, tt := range []struct {
		before   int
		reported bool
	}{{0, true}, {maxMisspeltChecks - 1, true}, {maxMisspeltChecks, false}, {3 * maxMisspeltChecks, false}} {
		g, err := Compile(context.Background(), &Spec{Format: &Format{Schema: schemaWith(tt.before, "emum")}})
		if err != nil {
			t.Fatal(err)
		}
		reported := slices.ContainsFunc(g.Dropped, func(d Dropped) bool { return d.Keyword == "emum" })
		if reported != tt.reported {
			t.Errorf("emum after %d unknown keys: reported %v, want %v", tt.before, reported, tt.reported)
		}
	}
}
