package split

import (
	"iter"
	"slices"
	"unicode"
	"unicode/utf8"
)

// The predicates Hugging Face's tokenizers ask of a character outside its
// Split patterns, each at the Unicode version of the code that asks it
// (gap decision 51; unicode_added.go holds what those versions add to Go's
// tables).

// wordAdded is what Unicode 16.0 adds to the tables IsWord reads.
var wordAdded = nonNil(added["L"], added["Nl"], added["Other_Alphabetic"], added["M"], added["Nd"], added["Pc"], added["Join_Control"])

func nonNil(tabs ...*unicode.RangeTable) []*unicode.RangeTable {
	return slices.DeleteFunc(tabs, func(t *unicode.RangeTable) bool { return t == nil })
}

// IsWord reports whether r is a word character of Rust regex's Unicode \w
// (Alphabetic, marks, decimal digits, connector punctuation and
// Join_Control) at Unicode 16.0, the version of the regex crate in Hugging
// Face's tokenizers, which tells an added token's single_word by it.
func IsWord(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.In(r, unicode.L, unicode.Nl, unicode.Other_Alphabetic, unicode.M, unicode.Nd, unicode.Pc, unicode.Join_Control) ||
		unicode.In(r, wordAdded...)
}

// IsNumber reports whether r is of the categories Nd, Nl or No (Rust's
// char::is_numeric, which Hugging Face's Digits pre-tokenizer reads) at
// Unicode 17.0, the version of the Rust standard library that builds
// Hugging Face's tokenizers (numberVersion).
func IsNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r) || unicode.Is(numbersAdded, r)
}

// rangesOf yields the code points of tab as inclusive ranges [lo, hi]: a
// range of tab with a stride of 1 as it is, each code point of one with a
// larger stride alone, R16 before R32.
func rangesOf(tab *unicode.RangeTable) iter.Seq2[rune, rune] {
	return func(yield func(lo, hi rune) bool) {
		each := func(lo, hi, stride rune) bool {
			if stride == 1 {
				return yield(lo, hi)
			}
			for c := lo; c <= hi; c += stride {
				if !yield(c, c) {
					return false
				}
			}
			return true
		}
		for _, r := range tab.R16 {
			if !each(rune(r.Lo), rune(r.Hi), rune(r.Stride)) {
				return
			}
		}
		for _, r := range tab.R32 {
			if !each(rune(r.Lo), rune(r.Hi), rune(r.Stride)) {
				return
			}
		}
	}
}
