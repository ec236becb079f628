// Package tiktoken checks Beam's tokenizer against
// github.com/tiktoken-go/tokenizer's o200k_base, an independent encoder of
// the same vocabulary in Go, and against the o200k_base vocabulary as
// github.com/pkoukk/tiktoken-go-loader distributes it; its benchmark adds
// tiktoken-go beside the tokenizer package's BenchmarkEncode.
package tiktoken

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
	tiktoken "github.com/tiktoken-go/tokenizer"
)

// TestTiktokenGo compares Beam's ids for ordinary text with
// github.com/tiktoken-go/tokenizer's o200k_base, an independent encoder of
// the same vocabulary, in Go: runs of repeated characters, where the
// order of equal-rank merges decides the ids, and the corpus. It needs no
// Node.
func TestTiktokenGo(t *testing.T) {
	tk := beam(t)
	codec, err := tiktoken.Get(tiktoken.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range []string{"=", "-", "*", "#", "a", " ", "\n", "0", "9", "!", ".", "_", "~", "日", "🙂", "ab", "==-"} {
		for n := 1; n <= 40; n++ {
			texts = append(texts, strings.Repeat(c, n))
		}
	}
	for _, s := range tokgen.Texts() {
		// tiktoken-go's Encode gives <|endoftext|> its special id.
		if !strings.Contains(s, "<|endoftext|>") && !strings.Contains(s, "<|endofprompt|>") {
			texts = append(texts, s)
		}
	}
	diffs := 0
	for _, text := range texts {
		if tiktokenGoDiffers[text] || unassignedInGo(text) {
			continue
		}
		want, _, err := codec.Encode(text)
		if err != nil {
			t.Fatal(err)
		}
		same := func(a int, b uint) bool { return uint(a) == b }
		if got := tk.EncodeOrdinary(text).IDs; !slices.EqualFunc(got, want, same) {
			if diffs++; diffs <= 5 {
				t.Errorf("EncodeOrdinary(%q) = %v, tiktoken-go %v", clip(text), clipIDs(got), want[:min(len(want), 40)])
			}
		} else if got := tk.AppendEncodeOrdinary(nil, text); !slices.EqualFunc(got, want, same) {
			if diffs++; diffs <= 5 {
				t.Errorf("AppendEncodeOrdinary(%q) = %v, tiktoken-go %v", clip(text), clipIDs(got), want[:min(len(want), 40)])
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d texts differ from tiktoken-go", diffs, len(texts))
	}
}

// unassignedInGo reports whether text holds a code point that Go's Unicode
// tables (unicode.Version, 15.0.0) do not assign. Later versions assign
// some as letters or numbers, and OpenAI's tiktoken and Hugging Face's
// tokenizers class them so (Beam's tokenizer too, from Unicode 16.0:
// internal/split/unicode_added.go), while tiktoken-go's regexp2 reads Go's
// tables: "\u1c89's" is one piece for them, three for tiktoken-go.
// TestGoldenEncodings checks those texts against Hugging Face's library.
func unassignedInGo(text string) bool {
	return strings.ContainsFunc(text, func(r rune) bool { return unicode.Is(unicode.Cn, r) })
}

// tiktokenGoDiffers are texts where tiktoken-go's pre-tokenizer differs
// from OpenAI's (Go's regexp has no look-ahead, which o200k's \s+(?!\S)
// needs): for "    \n    \n" it gives [1944 1944] where tiktoken, js-tiktoken
// and Hugging Face give [20198] (TestGoldenEncodings and TestOracle check
// that).
var tiktokenGoDiffers = map[string]bool{"    \n    \n": true}

// beam loads Beam's tokenizer, generated from the vocabulary the
// repository holds (tokgen).
func beam(t testing.TB) *tokenizer.Tokenizer {
	t.Helper()
	dir, err := tokgen.BeamDir()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

func clipIDs(ids []int) []int {
	return ids[:min(len(ids), 40)]
}
