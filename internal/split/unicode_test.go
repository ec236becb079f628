package split

import (
	"strings"
	"testing"
	"unicode"
)

// TestUnicodeTables checks that unicode_added.go still extends the tables
// Go has: generated against Go's Unicode 15.0.0, it would class characters
// wrongly over a Go whose tables are another version (regenerate it then:
// testdata/unicode/ranges.mjs).
func TestUnicodeTables(t *testing.T) {
	if unicode.Version != addedBase {
		t.Fatalf("Go's Unicode tables are %s, unicode_added.go extends %s to %s: regenerate it (testdata/unicode/ranges.mjs)", unicode.Version, addedBase, addedVersion)
	}
	for name, tab := range added {
		goTab := unicode.Categories[name]
		if goTab == nil {
			goTab = unicode.Scripts[name]
		}
		property := goTab == nil
		if property {
			goTab = unicode.Properties[name]
		}
		if goTab == nil {
			t.Errorf("%s: neither a category, a script nor a property of Go's", name)
			continue
		}
		check := func(c rune) {
			if unicode.Is(goTab, c) {
				t.Errorf("%s: added %U is in Go's table already", name, c)
			}
			// An assigned code point may only move out of a category the
			// translation refuses (U+1171E: Mn in 15.0, Mc in 16.0).
			if !property && !unicode.Is(unicode.Cn, c) && !changed[goCategory(c)] {
				t.Errorf("%s: added %U is assigned in Go's tables (%s), which a pattern may still name", name, c, goCategory(c))
			}
		}
		for lo, hi := range rangesOf(tab) {
			for c := lo; c <= hi; c++ {
				check(c)
			}
		}
	}
}

// goCategory returns the two-letter general category of c in Go's tables.
func goCategory(c rune) string {
	for name, tab := range unicode.Categories {
		if len(name) == 2 && name != "LC" && unicode.Is(tab, c) {
			return name
		}
	}
	return ""
}

// TestTranslateUnicode16 checks that a translated pattern classes the
// characters Unicode 16.0 adds as Oniguruma does, and refuses what Go's
// tables can't express.
func TestTranslateUnicode16(t *testing.T) {
	for _, c := range []struct {
		pattern, text string
		want          []string
	}{
		// U+1C89 and U+1C8A (Cyrillic, 16.0), U+2EBF0 (CJK Extension I, 15.1).
		{`\p{L}+`, "a\u1c89\u1c8a\U0002ebf0 b", []string{"a\u1c89\u1c8a\U0002ebf0", "b"}},
		{`\p{Lu}`, "\u1c89\u1c8a", []string{"\u1c89"}},
		{`\p{Cyrillic}+`, "\u1c89\u1c8a", []string{"\u1c89\u1c8a"}},
		{`\P{L}+`, "\u1c89 ! \u1c8a", []string{" ! "}},
		{`[^\s\p{L}\p{N}]+`, "\u1c89\U00010d40!?", []string{"!?"}},
		// Garay digits U+10D40 and U+10D41 (16.0).
		{`\d+`, "1\U00010d40\U00010d41x", []string{"1\U00010d40\U00010d41"}},
		{`\D+`, "1\U00010d40x", []string{"x"}},
		{`[\d]+`, "\U00010d40", []string{"\U00010d40"}},
		{`\w+`, "\u1c89_\U00010d40\u0897 x", []string{"\u1c89_\U00010d40\u0897", "x"}},
		// Oniguruma's \w as Hugging Face's tokenizers 0.23.2 match it (every
		// code point measured): Alphabetic (U+1F166 and U+24B6 are symbols
		// with Other_Alphabetic), marks, decimal digits, connector
		// punctuation, and ²³¹¼½¾; not other numbers (①) nor ZWJ.
		{`\w+`, "a\U0001f166\u24b6\u00b2\u00bd\u216b\u2460b\u200dc", []string{"a\U0001f166\u24b6\u00b2\u00bd\u216b", "b", "c"}},
		{`\W+`, "a\u2460\u200d\u00b2", []string{"\u2460\u200d"}},
		{`\W+`, "\u1c89 x", []string{" "}},
		{`[\w]+`, "\u1c89", []string{"\u1c89"}},
	} {
		m, err := Backtrack(c.pattern)
		if err != nil {
			t.Errorf("%s: %v", c.pattern, err)
			continue
		}
		var got []string
		for start, end := range All(m, c.text) {
			got = append(got, c.text[start:end])
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s on %+q: %+q, want %+q", c.pattern, c.text, got, c.want)
		}
	}
	for _, p := range []string{`\p{Mn}`, `[\P{L}x]`, `[\p{^L}x]`, `[\Dx]`} {
		if _, err := Backtrack(p); err == nil {
			t.Errorf("%s: compiled; Go's tables can't express it at Unicode %s", p, addedVersion)
		}
	}
}

// TestIsWordIsNumber checks the predicates of Rust's regex \w (Unicode
// 16.0) and char::is_numeric (Unicode 17.0) on characters of each kind.
func TestIsWordIsNumber(t *testing.T) {
	for _, c := range []struct {
		r            rune
		word, number bool
	}{
		{'a', true, false}, {'_', true, false}, {'7', true, true}, {' ', false, false}, {'!', false, false},
		{'é', true, false}, {'\u0301', true, false}, {'\u200d', true, false}, {'Ⅻ', true, true}, {'½', false, true},
		{'\u24b6', true, false},                                                       // CIRCLED LATIN CAPITAL LETTER A: Other_Alphabetic
		{'\u1c89', true, false}, {'\U0001395e', true, false}, {'\u0897', true, false}, // letters and a mark of 16.0
		{'\U00010d40', true, true}, {'\U0001ccf0', true, true}, // digits of 16.0
		{'\U00011db0', false, false}, {'\U00011de0', false, true}, // a letter and a digit of 17.0 (numbers follow Rust's standard library)
		{'\u2427', false, false}, {'\U000113d4', false, false}, // a symbol and punctuation of 16.0
	} {
		if got := IsWord(c.r); got != c.word {
			t.Errorf("IsWord(%U) = %v", c.r, got)
		}
		if got := IsNumber(c.r); got != c.number {
			t.Errorf("IsNumber(%U) = %v", c.r, got)
		}
	}
}

// TestNormUnknownFloor checks what tokenizer's unknownToHF assumes: no code
// point below U+0378 is in NormUnknown.
func TestNormUnknownFloor(t *testing.T) {
	for r := rune(0); r < 0x0378; r++ {
		if unicode.Is(NormUnknown, r) {
			t.Errorf("%U is in NormUnknown", r)
		}
	}
}
