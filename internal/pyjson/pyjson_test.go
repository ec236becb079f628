package pyjson

import (
	"strings"
	"testing"
)

// The want column was produced by Python 3.11's
// json.dumps(json.loads(in), ensure_ascii=False); the last row is the one
// deliberate difference: number literals are kept.
func TestPython(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"plain"`, `"plain"`},
		{`"tab\there"`, `"tab\there"`},
		{`"quote\" back\\slash"`, `"quote\" back\\slash"`},
		{`"\u00e9\u4e2d"`, `"é中"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`"ctl\u0001\u001f"`, `"ctl\u0001\u001f"`},
		{`"\/slash"`, `"/slash"`},
		{`"<html>&amp;"`, `"<html>&amp;"`},
		{`"\b\f\n\r"`, `"\b\f\n\r"`},
		{"\"del\x7f\"", "\"del\x7f\""},
		{`[1,2, 3]`, `[1, 2, 3]`},
		{`{"a":1,"b":[true,false,null]}`, `{"a": 1, "b": [true, false, null]}`},
		{`{}`, `{}`},
		{`[]`, `[]`},
		{`{"nested":{"k":{"x":[{}]}}}`, `{"nested": {"k": {"x": [{}]}}}`},
		{`"é raw"`, `"é raw"`},
		{` 0 `, `0`},
		{`-1`, `-1`},
		{`12.5`, `12.5`},
		{`3.0`, `3.0`},
		{`1e5`, `1e5`}, // Python: 100000.0
	}
	for _, tt := range tests {
		got, err := Python([]byte(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestAppendQuoted(t *testing.T) {
	got := string(AppendQuoted(nil, "a\"b\\c\n\x01é<"))
	if want := `"a\"b\\c\n\u0001é<"`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, in := range []string{``, ` `, `{`, `[1,]`, `{"a" 1}`, `{"a":1,}`, `01`, `1.`, `.5`, `1e`, `-`, `+1`, `NaN`, `Infinity`,
		`tru`, `"abc`, `"\x"`, `"\u12"`, "\"a\nb\"", "\"\xff\"", `{"a":1} x`, `[1 2]`, `{1: 2}`, `nul`} {
		var d Doc
		if err := d.Parse([]byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		} else if !strings.HasPrefix(err.Error(), "invalid JSON at byte ") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	var d Doc
	if err := d.Parse([]byte(deep)); err == nil {
		t.Error("no error past MaxDepth")
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if err := d.Parse([]byte(ok)); err != nil {
		t.Errorf("at MaxDepth: %v", err)
	}
}

func TestAccessors(t *testing.T) {
	d, err := ParseBytes([]byte(`{"a": 1, "b\u0041": "x\ny", "a": [true, {"k": null}], "e": ""}`))
	if err != nil {
		t.Fatal(err)
	}
	if v := d.Lookup(0, "a"); d.Kind(v) != Array || d.Nodes[v].Len != 2 {
		t.Errorf("Lookup a: last key should win, got %s", d.Kind(v))
	}
	if v := d.Lookup(0, "bA"); v < 0 || d.Str(v) != "x\ny" {
		t.Errorf("escaped key lookup failed")
	}
	if d.Lookup(0, "missing") != -1 {
		t.Error("missing key found")
	}
	if k := d.DuplicateKey(0); k < 0 || d.Str(k) != "a" {
		t.Errorf("DuplicateKey = %d", k)
	}
	if v := d.Lookup(0, "e"); !d.IsEmptyString(v) {
		t.Error("IsEmptyString")
	}
	var keys []string
	d.Members(0, func(k, _ int) bool { keys = append(keys, d.Str(k)); return true })
	if strings.Join(keys, ",") != "a,bA,a,e" {
		t.Errorf("Members order %v", keys)
	}
	big := `{` + strings.Repeat(`"k": 1, `, 0)
	for i := 0; i < 40; i++ {
		big += `"k` + strings.Repeat("x", i) + `": 1, `
	}
	big += `"k": 2}`
	d2, err := ParseBytes([]byte(big))
	if err != nil {
		t.Fatal(err)
	}
	if k := d2.DuplicateKey(0); k < 0 || d2.Str(k) != "k" {
		t.Errorf("DuplicateKey over 16 members = %d", k)
	}
}

func TestIsIntegerLiteral(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "-0": true, "12": true, "-12": true, "01": false, "1.0": false, "1e3": false, "": false, "-": false, "+1": false} {
		if got := IsIntegerLiteral(s); got != want {
			t.Errorf("IsIntegerLiteral(%q) = %v", s, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5e3, "x\u00e9"], "b": {"c": null}}`, `"\ud800"`, `[[[]]]`, `-0.0e-0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseBytes(data)
		if err != nil {
			return
		}
		// Writing Python style and reading it back gives the same text.
		out := d.AppendPython(nil, 0)
		d2, err := ParseBytes(out)
		if err != nil {
			t.Fatalf("re-parse of %q: %v", out, err)
		}
		if again := d2.AppendPython(nil, 0); string(again) != string(out) {
			t.Fatalf("not stable: %q vs %q", out, again)
		}
	})
}
