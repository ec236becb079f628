package pyjson

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// checkSkip requires SkipValue to accept what ParseValue accepts, to end
// where it ends and to report the depth of its tape; and HoldsNothingText
// to agree with HoldsNothing.
func checkSkip(t *testing.T, src []byte) {
	t.Helper()
	if !utf8.Valid(src) {
		return
	}
	var d Doc
	want, wantErr := d.ParseValue(src)
	got, depth, err := SkipValue(src)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%.200q: SkipValue %d %v, ParseValue %d %v", src, got, err, want, wantErr)
	}
	if err != nil {
		return
	}
	if got != want || depth != tapeDepthOf(&d) {
		t.Fatalf("%.200q: SkipValue ends at %d, depth %d; ParseValue at %d, depth %d", src, got, depth, want, tapeDepthOf(&d))
	}
	if HoldsNothingText(src[:got]) != d.HoldsNothing(0) {
		t.Fatalf("%.200q: HoldsNothingText %v, HoldsNothing %v", src[:got], !d.HoldsNothing(0), d.HoldsNothing(0))
	}
}

func tapeDepthOf(d *Doc) int {
	var ends []int32
	deepest := 0
	for i := range d.Nodes {
		for len(ends) > 0 && int32(i) >= ends[len(ends)-1] {
			ends = ends[:len(ends)-1]
		}
		if k := d.Nodes[i].Kind; k == Array || k == Object {
			ends = append(ends, d.Nodes[i].Next)
			deepest = max(deepest, len(ends))
		}
	}
	return deepest
}

var skipCases = []string{
	`null`, `true`, `false`, `0`, `-1.5e3`, `"a"`, `"a\"b\\c\u00e9"`, `[]`, `{}`, `[ ]`, `{ }`, "[\n]",
	`{"a":1,"b":[1,2,{"c":null}],"d":{}}`, ` 1`, `1 `, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[1 2]`,
	`"\x"`, `"\u12"`, "\"a\x01\"", `nul`, `tru`, `fals`, `-`, `01`, `1.`, `.5`, `[`, `{"a":`, `"abc`,
	`[[[]]]`, `{"a":{"b":{"c":[]}}}`, `[{}, [], "x", 1, true]`, `{"a":[]} trailing`, `[] , 1`,
	`NaN`, `Infinity`, `[1,2,3]]`, `{"a":1}}`, `"a"x`,
	strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
	strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth),
	strings.Repeat("[", MaxDepth) + "[]" + strings.Repeat("]", MaxDepth),
}

func TestSkipValue(t *testing.T) {
	for _, c := range skipCases {
		checkSkip(t, []byte(c))
	}
}

func FuzzSkipValue(f *testing.F) {
	for _, c := range skipCases {
		if len(c) < 200 {
			f.Add([]byte(c))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkSkip(t, src) })
}
