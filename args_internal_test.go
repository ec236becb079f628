package harmony

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// directMatchesTape fails when argumentsDirect writes raw differently from
// the tape path, or accepts what the tape path refuses.
func directMatchesTape(t testing.TB, raw []byte) {
	r := renderer{s: getScratch()}
	defer r.release()
	const prefix = "PREFIX"
	direct, ok := r.argumentsDirect([]byte(prefix), raw)
	if !ok {
		if string(direct) != prefix {
			t.Fatalf("%q: refused, but left %q", raw, direct)
		}
		return
	}
	tape, err := r.argumentsTape([]byte(prefix), raw, argumentsPath{0, 0})
	if err != nil {
		t.Fatalf("%q: written directly as %q, but the tape path refuses it: %v", raw, direct, err)
	}
	if string(direct) != string(tape) {
		t.Fatalf("%q: written directly as\n%q\nthrough the tape as\n%q", raw, direct, tape)
	}
}

// The direct writer takes the common shape of arguments and writes it as
// the tape path does, byte for byte; everything else it leaves to the tape.
func TestArgumentsDirectMatchesTape(t *testing.T) {
	seeds := []string{
		`{}`, ` { } `, `{"a": 1}`, `{"a":"x","b":-1.5e3,"c":true,"d":false,"e":null}`,
		`{"a": "x\ny"}`, `{"a": "caf\u00e9 \"q\""}`, `{"a": [1, "b", {"c": null}]}`, `{"a": {"b": [], "c": {}}}`,
		`{"a": 1, "a": 2}`, `{"a\"b": 1}`, `{"a<b": 1}`, `{"": 1}`, `{"k": "</rfl:parameter>"}`, `{"k": ["</rfl:parameter>"]}`,
		`{"a": 1,}`, `{"a" 1}`, `{"a": 01}`, `{"a": tru}`, `{"a": truex}`, `[1]`, `"{}"`, ``, `  `, `{"a": 1} x`, `{"a": "\ud800"}`,
		`{"a": "x\u0000"}`, "{\"a\": \"\xff\"}", `{"é": "ü"}`, `{"a": "<|end|>"}`,
		`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17}`,
	}
	for _, s := range seeds {
		directMatchesTape(t, []byte(s))
	}
	// Random objects built from pieces that the direct path takes and
	// pieces that it must hand over.
	keys := []string{`"a"`, `"b"`, `"city"`, `"a\"b"`, `"x\u0041"`, `""`, `"<"`, `"a"`}
	values := []string{`1`, `-0.5`, `1e9`, `true`, `false`, `null`, `"s"`, `"t\tu"`, `[1, [2]]`, `{"k": "v"}`, `"</rfl:parameter>"`, `"é"`, `[]`, `{}`, `01`, `"\u003c/rfl:parameter>"`,
		"[\n  \"LH\",\n  \"BA\"\n]", "{\n    \"max_price\": 2000,\n    \"currency\": \"EUR\"\n  }", `[ [ ] , { } ]`, `[1,]`, `{"a" 1}`, `[tru]`, `{"a": "x\ny"}`,
		`[[[[[[[[[1]]]]]]]]]`, `{1: 2}`, `[1 2]`, `[01]`, `{"a": [true, false, null, -0.5e-3]}`, `[`, `{"a": {"b": [1, "</rfl:parameter>"]}}`}
	spaces := []string{"", " ", "\n  ", "\t"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		sp := func() { b.WriteString(spaces[r.IntN(len(spaces))]) }
		sp()
		b.WriteByte('{')
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			sp()
			b.WriteString(keys[r.IntN(len(keys))])
			sp()
			b.WriteByte(':')
			sp()
			b.WriteString(values[r.IntN(len(values))])
			sp()
		}
		b.WriteByte('}')
		sp()
		directMatchesTape(t, []byte(b.String()))
	}
}

func FuzzArgumentsDirect(f *testing.F) {
	for _, s := range []string{`{"a": 1, "b": "x", "c": [1, {"d": null}]}`, `{"a": "x\ny"}`, `{"a": 1, "a": 2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { directMatchesTape(t, raw) })
}

// appendNestedDirect writes the lists and objects it takes as
// ParseValue+AppendPython does, takes the common shapes (so that they skip
// the tape), and refuses what the tape refuses.
func TestAppendNestedDirect(t *testing.T) {
	tests := []struct {
		raw  string
		take bool // must be written directly
	}{
		{`[]`, true}, {`{}`, true}, {`[ ]`, true},
		{"[\n  \"LH\",\n  \"BA\",\n  \"AF\"\n]", true},
		{"{\n      \"max_price\": 2000,\n      \"currency\": \"EUR\"\n    }", true},
		{`[1, -2.5e+3, true, false, null, "é", [], {}]`, true},
		{`{"a": {"b": [1, {"c": [null]}]}}`, true},
		{`[[[[[[[[1]]]]]]]]`, true},
		{`[[[[[[[[[1]]]]]]]]]`, false}, // deeper than maxNestedDirect
		{`["a\nb"]`, false}, {`{"a\"b": 1}`, false},
		{`[1,]`, false}, {`[1 2]`, false}, {`{"a" 1}`, false}, {`{1: 2}`, false}, {`[01]`, false},
		{`[tru]`, false}, {`[`, false}, {`{"a":`, false}, {`[1`, false}, {`["a`, false}, {"[\"\x01\"]", false},
	}
	for _, tt := range tests {
		raw := []byte(tt.raw + " trailing")
		got, end, ok := appendNestedDirect([]byte("P"), raw, 0, 1)
		var d pyjson.Doc
		n, err := d.ParseValue(raw)
		if ok != tt.take {
			t.Errorf("%q: direct %v, want %v", tt.raw, ok, tt.take)
		}
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("%q: written directly as %q, but ParseValue refuses it: %v", tt.raw, got, err)
			continue
		}
		if want := "P" + string(d.AppendPython(nil, 0)); string(got) != want || end != n {
			t.Errorf("%q: direct %q (end %d), tape %q (end %d)", tt.raw, got, end, want, n)
		}
	}
}

// directKey agrees with checkArgumentKey on every key that argumentsDirect
// hands it: runs of string content that ScanString lets through.
func TestDirectKey(t *testing.T) {
	check := func(key []byte) {
		t.Helper()
		if pyjson.ScanString(key, 0) != len(key) {
			return // argumentsDirect never asks
		}
		if got, want := directKey(key), checkArgumentKey(key) == nil; got != want {
			t.Errorf("directKey(%q) = %v, checkArgumentKey accepts: %v", key, got, want)
		}
	}
	check(nil)
	for c := range 256 {
		for _, key := range [][]byte{{byte(c)}, {'a', byte(c)}, {byte(c), 'b', 'c'}, []byte("city_" + string(rune(c)))} {
			check(key)
		}
	}
}
