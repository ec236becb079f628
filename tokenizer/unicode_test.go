package tokenizer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/beamharmony/harmony/internal/split"
	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

// TestUnicodeVersions checks, on Beam's vocabulary, the three Unicode
// versions Hugging Face's library reads (gap decision 51): a Digits
// pre-tokenizer before o200k's Split counts a number of Unicode 17.0 (the
// Rust standard library's), the Split classes a letter of 16.0
// (Oniguruma's) as a letter and one of 17.0 as neither, and an added
// token's single_word sees a letter of 16.0 as a word character (the regex
// crate's \w). The expected ids are what tokenizers 0.23.2 (npm) gave for
// the same tokenizer.json; a number before 's splits the contraction off
// (885 is "'s"), any other character keeps ' with it.
func TestUnicodeVersions(t *testing.T) {
	dir, err := tokgen.BeamDir()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
		map[string]any{"type": "Digits", "individual_digits": true},
		map[string]any{"type": "Split", "pattern": map[string]any{"Regex": split.PatternO200K}, "behavior": "Isolated", "invert": false},
		map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false},
	}}
	for _, a := range m["added_tokens"].([]any) {
		if a := a.(map[string]any); a["content"] == "<|end|>" {
			a["single_word"] = true
		}
	}
	tj, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tokenizer.New(tj, nil)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := tk.TokenToID("<|end|>")
	for _, c := range []struct {
		text string
		want []int
	}{
		{"\U00011de0's", []int{172, 239, 115, 254, 885}},                     // a Tolong Siki digit (17.0)
		{"\U00010d40's", []int{172, 238, 113, 222, 885}},                     // a Garay digit (16.0)
		{"7's", []int{22, 885}},                                              //
		{"\U00011db0's", []int{172, 239, 114, 108, 6, 82}},                   // a Tolong Siki letter (17.0)
		{"\u1c89's", []int{157, 110, 231, 885}},                              // a Cyrillic letter (16.0)
		{"\U0001395e<|end|>", []int{172, 241, 98, 252, 27, 91, 419, 91, 29}}, // a hieroglyph (16.0) before a single_word token
		{"\U00011db0<|end|>", []int{172, 239, 114, 108, end}},                // a letter of 17.0 before it
	} {
		if got := tk.Encode(c.text).IDs; !slices.Equal(got, c.want) {
			t.Errorf("Encode(%+q) = %v, want %v", c.text, got, c.want)
		}
	}
}
