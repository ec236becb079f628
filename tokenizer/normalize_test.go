package tokenizer_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/tokenizer"
)

// byteLevelTokenizer is a byte-level BPE without merges and with the
// normalizer form: each byte is a token, so the offsets show the
// normalizer's alignment character by character.
func byteLevelTokenizer(t *testing.T, form string) *tokenizer.Tokenizer {
	t.Helper()
	vocab := map[string]int{}
	for b, r := range byteLevelRunes() {
		vocab[string(r)] = b
	}
	doc := map[string]any{
		"version": "1.0", "added_tokens": []any{}, "normalizer": map[string]any{"type": form},
		"pre_tokenizer":  map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		"post_processor": nil, "decoder": map[string]any{"type": "ByteLevel"},
		"model": map[string]any{"type": "BPE", "vocab": vocab, "merges": []string{}},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tokenizer.New(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// byteLevelRunes is GPT-2's byte-to-character table.
func byteLevelRunes() [256]rune {
	var m [256]rune
	var bs []int
	for i := 33; i <= 126; i++ {
		bs = append(bs, i)
	}
	for i := 161; i <= 172; i++ {
		bs = append(bs, i)
	}
	for i := 174; i <= 255; i++ {
		bs = append(bs, i)
	}
	in := map[int]bool{}
	for _, b := range bs {
		in[b] = true
		m[b] = rune(b)
	}
	n := 0
	for b := range 256 {
		if !in[b] {
			m[b] = rune(256 + n)
			n++
		}
	}
	return m
}

// Offsets after NFC, NFD, NFKC and NFKD equal Hugging Face's for every
// sequence of up to three characters drawn from starters, Hangul jamo and
// syllables, combining marks of many combining classes (some that
// decompose, such as U+0344 and U+0F73) and compatibility characters. The
// golden offsets were generated once with Hugging Face's Rust library
// (the npm package tokenizers, testdata/normalize/gen.js), so the test
// needs no Node.
func TestNormalizerOffsetsGolden(t *testing.T) {
	var chars []string
	data, err := os.ReadFile("testdata/normalize/chars.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &chars); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/normalize/offsets.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var golden map[string][]string
	if err := json.NewDecoder(zr).Decode(&golden); err != nil {
		t.Fatal(err)
	}
	var seqs []string
	for _, a := range chars {
		seqs = append(seqs, a)
		for _, b := range chars {
			seqs = append(seqs, a+b)
			for _, c := range chars {
				seqs = append(seqs, a+b+c)
			}
		}
	}
	for _, form := range []string{"NFC", "NFD", "NFKC", "NFKD"} {
		tk := byteLevelTokenizer(t, form)
		want := golden[form]
		if len(want) != len(seqs) {
			t.Fatalf("%s: %d golden rows for %d sequences", form, len(want), len(seqs))
		}
		bad := 0
		for i, s := range seqs {
			enc := tk.Encode(s)
			parts := make([]string, len(enc.Offsets))
			for j, o := range enc.Offsets {
				parts[j] = fmt.Sprintf("%d,%d", o[0], o[1])
			}
			if got := strings.Join(parts, " "); got != want[i] {
				if bad++; bad <= 5 {
					t.Errorf("%s %+q: offsets %s, Hugging Face %s", form, s, got, want[i])
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d sequences differ", form, bad, len(seqs))
		}
	}
}
