package tokenizer_test

import (
	"testing"
)

// TestDecodeRules checks decoding rules that the JavaScript oracle does not
// share with Hugging Face's Rust library, by hand from its source:
// unknown ids are skipped (decode's filter_map over id_to_token), and
// ByteFallback turns <0xHH> tokens that do not form valid UTF-8 into one
// U+FFFD per token.
func TestDecodeRules(t *testing.T) {
	fb := load(t, "fallback")
	id := func(s string) int {
		i, ok := fb.TokenToID(s)
		if !ok {
			t.Fatalf("no token %q", s)
		}
		return i
	}
	for _, c := range []struct {
		name string
		ids  []int
		want string
	}{
		{"valid bytes", []int{id("a"), id("<0xF0>"), id("<0x9F>"), id("<0x99>"), id("<0x82>"), id("b")}, "a🙂b"},
		{"truncated character", []int{id("a"), id("<0xF0>"), id("<0x9F>"), id("<0x99>"), id("b")}, "a\uFFFD\uFFFD\uFFFDb"},
		{"unknown ids skipped", []int{id("a"), 100000, -1, id("b")}, "ab"},
		// Strip(" ", start 1) after Fuse drops one leading space of the text.
		{"strip", []int{id(" "), id(" "), id("a")}, " a"},
	} {
		if got := fb.Decode(c.ids, false); got != c.want {
			t.Errorf("%s: Decode = %q, want %q", c.name, got, c.want)
		}
	}

	// Byte-level decoding: invalid UTF-8 becomes one U+FFFD per maximal
	// invalid sequence (Rust's from_utf8_lossy).
	tk := beam(t)
	e := tk.Encode("🧬")
	if len(e.IDs) < 2 {
		t.Fatalf("ids = %v", e.IDs)
	}
	if got := tk.Decode(e.IDs[:1], false); got != "\uFFFD" {
		t.Errorf("Decode(first half of 🧬) = %q, want one U+FFFD", got)
	}

	// clean_up_tokenization_spaces (the GPT-2 fixture's configuration sets it).
	g := load(t, "gpt2")
	ids := g.Encode("Hello , world ! it 's")
	if got, want := g.Decode(ids.IDs, false), " Hello, world! it's"; got != want {
		t.Errorf("GPT-2 Decode with clean-up = %q, want %q", got, want)
	}
}
