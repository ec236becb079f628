package harmony

import (
	"strings"
	"testing"
)

// callName finds the call whose ID is the result's, also among IDs of the
// same length that end alike, and none for an ID that only ends alike.
func TestCallNameSameLengthIDs(t *testing.T) {
	calls := []ToolCall{
		{ID: "call_1x", Function: FunctionCall{Name: "one"}},
		{ID: "call_2x", Function: FunctionCall{Name: "two"}},
		{ID: "call_3y", Function: FunctionCall{Name: "three"}},
	}
	messages := []Message{{Role: RoleAssistant, ToolCalls: calls}, {Role: RoleTool}}
	for id, want := range map[string]string{"call_1x": "one", "call_2x": "two", "call_3y": "three", "call_4x": "", "call_1": "", "all_1x": ""} {
		r := renderer{}
		if got := r.callName(messages, 1, id); got != want {
			t.Errorf("callName(%q) = %q, want %q", id, got, want)
		}
	}
}

// fixedPadded writes the text alone, and records its markers, whether or
// not the buffer has room for the whole padded array.
func TestFixedPadded(t *testing.T) {
	for _, text := range []*paddedText{&userHeader, &analysisHeader, &finalHeader, &callHeaderStart, &callHeaderRest, &resultHeaderRest} {
		for _, room := range []int{0, 1, len(text.s), len(text.b) - 1, len(text.b), 200} {
			buf := make([]byte, 3, 3+room)
			copy(buf, "abc")
			padded := renderer{wantMarks: true}
			got := padded.fixedPadded(buf, text)
			plain := renderer{wantMarks: true}
			want := plain.fixed([]byte("abc"), text.s)
			if string(got) != string(want) {
				t.Errorf("%q, room %d: wrote %q", text.s, room, got)
			}
			if len(padded.marks) != strings.Count(text.s, "<|") || len(padded.marks) != len(plain.marks) {
				t.Errorf("%q, room %d: marks %v, want %v", text.s, room, padded.marks, plain.marks)
			}
		}
	}
}
