package tokenizer_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/beamharmony/harmony/internal/split"
	"github.com/beamharmony/harmony/tokenizer"
)

// FuzzEncode: Encode never panics; offsets stay inside the text, in
// characters and bytes; Beam's and Llama 3's tokenizers decode the text
// back (Llama 3's in NFC); AppendEncode gives Encode's ids.
func FuzzEncode(f *testing.F) {
	// The seeds are in testdata/fuzz/FuzzEncode.
	tks := []struct {
		name      string
		tk        *tokenizer.Tokenizer
		roundTrip func(string) (string, bool) // the decoded text, if known (GPT-2 adds prefix spaces)
	}{
		{"beam", beam(f), func(s string) (string, bool) { return s, true }},
		// Go's NFC is Hugging Face's where the text holds no character its
		// Unicode 9.0 tables lack (gap decision 51; TestNormalizeHFTables
		// and TestRustDifferential check those).
		{"llama3", load(f, "llama3"), func(s string) (string, bool) {
			if strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(split.NormUnknown, r) }) {
				return "", false
			}
			return norm.NFC.String(s), true
		}},
		{"gpt2", load(f, "gpt2"), func(string) (string, bool) { return "", false }},
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		n := utf8.RuneCountInString(s)
		for _, c := range tks {
			e := c.tk.Encode(s)
			if len(e.Offsets) != len(e.IDs) || len(e.ByteOffsets) != len(e.IDs) {
				t.Fatalf("%s: %d ids, %d offsets, %d byte offsets", c.name, len(e.IDs), len(e.Offsets), len(e.ByteOffsets))
			}
			for i, o := range e.Offsets {
				b := e.ByteOffsets[i]
				if o[0] < 0 || o[0] > o[1] || o[1] > n || b[0] < 0 || b[0] > b[1] || b[1] > len(s) {
					t.Fatalf("%s: token %d: offsets %v, bytes %v, text of %d characters", c.name, i, o, b, n)
				}
			}
			if ids := c.tk.AppendEncode(nil, s); !slices.Equal(ids, e.IDs) {
				t.Fatalf("%s: AppendEncode(%q) = %v, Encode %v", c.name, s, ids, e.IDs)
			}
			if want, ok := c.roundTrip(s); ok {
				if got := c.tk.Decode(e.IDs, false); got != want {
					t.Fatalf("%s: Decode(Encode(%q)) = %q, want %q", c.name, s, got, want)
				}
			}
		}
	})
}
