package tokenizer

import (
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestNormalizeHFTables checks texts on which Go's normalization tables
// (Unicode 15.0) and Hugging Face's (the unicode-normalization-alignments
// crate, Unicode 9.0) disagree: the normalizers give what Hugging Face's
// do (the expected strings are what tokenizers 0.23.2, npm, gave), not
// what x/text does (checked too, so that every case is one where the two
// differ). Gap decision 51.
func TestNormalizeHFTables(t *testing.T) {
	for _, c := range []struct {
		form       string
		text, want string
	}{
		// Decompositions of characters assigned after 9.0.
		{"NFKC", "\u32ff", "\u32ff"},                            // SQUARE ERA NAME REIWA (12.1): 令和 in Go
		{"NFKD", "x\ua7f2y", "x\ua7f2y"},                        // MODIFIER LETTER CAPITAL C (14.0): C in Go
		{"NFD", "\U00011938", "\U00011938"},                     // DIVES AKURU VOWEL SIGN O (13.0)
		{"NFC", "\U00011935\U00011930", "\U00011935\U00011930"}, // its parts, which Go composes
		// A combining mark of 14.0 is a starter to Hugging Face's tables: it
		// is not reordered after SHADDA (class 33), which follows it.
		{"NFC", "e\u0301\u0898\u0651", "\u00e9\u0898\u0651"},
		{"NFD", "e\u0301\u0898\u0651", "e\u0301\u0898\u0651"},
		{"NFKC", "\U0001e944\u0898\u0334a", "\U0001e944\u0898\u0334a"},
	} {
		f := normForms[c.form]
		if f.String(c.text) == c.want {
			t.Errorf("%s(%+q): x/text gives Hugging Face's answer too; not a case of this test", c.form, c.text)
		}
		var got []byte
		for _, e := range normStream(f, c.text) {
			got = utf8.AppendRune(got, e.c)
		}
		if string(got) != c.want {
			t.Errorf("%s(%+q) = %+q, want %+q", c.form, c.text, got, c.want)
		}
		tk := &Tokenizer{norms: []norm.Form{f}}
		if got := tk.normalizeString(c.text); got != c.want {
			t.Errorf("normalizeString %s(%+q) = %+q, want %+q", c.form, c.text, got, c.want)
		}
		if got, _ := tk.normalize(c.text, 0); got != c.want {
			t.Errorf("normalize %s(%+q) = %+q, want %+q", c.form, c.text, got, c.want)
		}
	}
}
