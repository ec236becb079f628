package harmony

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

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
		`{"k": "a<</rfl:parameter>"}`, `{"k": "<b>x</b> <", "l": "x</rfl:parameter", "m": "</rfl:parameter"}`, `{"k": "0123456<</rfl:parameter>"}`,
		`{"ad": 1, "ba": 2, "ad": 3}`, `{"k": "<\n</rfl:parameter>"}`,
		`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17}`,
	}
	for _, s := range seeds {
		directMatchesTape(t, []byte(s))
	}
	// Invalid UTF-8 never takes the direct path, wherever it stands, and
	// valid text of any script does: every place a byte can stand, with
	// valid and invalid encodings (a lone continuation byte, a
	// truncated sequence, an overlong form, a surrogate, past U+10FFFF,
	// U+FFFD itself, valid two- to four-byte runes).
	encodings := []string{"\x80", "\xc3", "\xe2\x82", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff",
		"\xef\xbf\xbd", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"}
	shapes := []string{`{"%s": 1}`, `{"k%sk": 1}`, `{"k": "%s"}`, `{"k": "abcdefgh%s"}`, `{"k": "a<%s"}`,
		`{"k": "\n%s"}`, `{"k": ["%s"]}`, `{"k": {"%s": 1}}`, `{"k": [1, {"a": "x%s"}]}`, `{"k": 1%s}`, `{%s"k": 1}`, `{"k": 1}%s`}
	for i, shape := range shapes {
		for _, enc := range encodings {
			raw := []byte(strings.Replace(shape, "%s", enc, 1))
			directMatchesTape(t, raw)
			r := renderer{s: getScratch()}
			_, ok := r.argumentsDirect(nil, raw)
			r.release()
			// The first five shapes are plain keys and strings: valid
			// text of any script stays on the direct path.
			if valid := utf8.Valid(raw); ok && !valid || i < 5 && valid && !ok {
				t.Errorf("%q (valid UTF-8: %v): written directly %v", raw, valid, ok)
			}
		}
	}
	// Keys that share a keyBit but differ are written directly; the same
	// key twice is left to the tape, which words the error.
	for _, pair := range [][2]string{{"ad", "ba"}, {"ab", "bc"}, {"a", "a"}, {"city", "city"}} {
		a, b := []byte(pair[0]), []byte(pair[1])
		if keyBit(a) != keyBit(b) {
			t.Fatalf("keyBit(%q) != keyBit(%q): not a collision", a, b)
		}
		raw := []byte(`{"` + pair[0] + `": 1, "x": 2, "` + pair[1] + `": 3}`)
		r := renderer{s: getScratch()}
		_, ok := r.argumentsDirect(nil, raw)
		r.release()
		if want := pair[0] != pair[1]; ok != want {
			t.Errorf("%s: written directly %v, want %v", raw, ok, want)
		}
		directMatchesTape(t, raw)
	}
	// Random objects built from pieces that the direct path takes and
	// pieces that it must hand over.
	keys := []string{`"a"`, `"b"`, `"city"`, `"a\"b"`, `"x\u0041"`, `""`, `"<"`, `"a"`, "\"\xc3\xa9\"", "\"a\xc3\"", "\"\xed\xa0\x80\""}
	values := []string{`1`, `-0.5`, `1e9`, `12`, `120.5`, `7E2`, `10e`, `123abc`, `10.`, `2000`, `99e+2`, `true`, `false`, `null`, `"s"`, `"t\tu"`, `[1, [2]]`, `{"k": "v"}`, `"</rfl:parameter>"`, `"é"`, `[]`, `{}`, `01`, `"\u003c/rfl:parameter>"`,
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
		{`[12, 120.5, 7E2, 2000, 3]`, true}, {`[10.]`, false}, {`[10e]`, false}, {`[12a]`, false},
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

// keyStop lets through, as a whole key, exactly the keys that
// checkArgumentKey accepts among the runs of string content that
// ScanString lets through (keys without escapes): argumentsDirect writes
// those keys itself and leaves every other one to the tape.
func TestKeyStop(t *testing.T) {
	check := func(key []byte) {
		t.Helper()
		direct := len(key) > 0
		for _, c := range key {
			direct = direct && !keyStop[c]
		}
		plain := pyjson.ScanString(key, 0) == len(key)
		if want := plain && checkArgumentKey(key) == nil; direct != want {
			t.Errorf("key %q: written directly %v, want %v", key, direct, want)
		}
	}
	check(nil)
	for c := range 256 {
		for _, key := range [][]byte{{byte(c)}, {'a', byte(c)}, {byte(c), 'b', 'c'}, []byte("city_" + string(rune(c)))} {
			check(key)
		}
	}
}

// BenchmarkArgumentsDirect writes the arguments of every call of the
// realistic request, as Render does: as the request has them (indented),
// and compact.
func BenchmarkArgumentsDirect(b *testing.B) {
	data, err := os.ReadFile("testdata/bench/realistic_request.json")
	if err != nil {
		b.Fatal(err)
	}
	req, err := ParseRequest(data)
	if err != nil {
		b.Fatal(err)
	}
	var indented, compact [][]byte
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			var buf bytes.Buffer
			if err := json.Compact(&buf, c.Function.Arguments); err != nil {
				b.Fatal(err)
			}
			indented = append(indented, c.Function.Arguments)
			compact = append(compact, buf.Bytes())
		}
	}
	for _, bb := range []struct {
		name string
		args [][]byte
	}{{"indented", indented}, {"compact", compact}} {
		b.Run(bb.name, func(b *testing.B) {
			r := renderer{s: getScratch()}
			defer r.release()
			buf := make([]byte, 0, 64<<10)
			for b.Loop() {
				buf = buf[:0]
				for _, a := range bb.args {
					var ok bool
					if buf, ok = r.argumentsDirect(buf, a); !ok {
						b.Fatalf("%s: not written directly", a)
					}
				}
			}
		})
	}
}

// argsValidUTF8 agrees with utf8.Valid at every length and position of a
// non-ASCII byte, valid or not.
func TestArgsValidUTF8(t *testing.T) {
	for n := range 40 {
		ascii := []byte(strings.Repeat("a", n))
		if !argsValidUTF8(ascii) {
			t.Fatalf("%q: invalid", ascii)
		}
		for at := range n {
			for _, ins := range []string{"\xff", "\xc3", "é", "€", "\xe2\x82", "\U0001F600", "\x80"} {
				b := append(append(append([]byte{}, ascii[:at]...), ins...), ascii[at:]...)
				if got, want := argsValidUTF8(b), utf8.Valid(b); got != want {
					t.Errorf("%q: %v, utf8.Valid %v", b, got, want)
				}
			}
		}
	}
}
