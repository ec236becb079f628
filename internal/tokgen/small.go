package tokgen

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/split"
	"github.com/dlclark/regexp2/v2"
)

// corpus is the training text of the small tokenizers: English, code,
// numbers, a little CJK, accents and emoji.
const corpus = `The quick brown fox jumps over the lazy dog. The dog didn't care; it's the fox's problem, isn't it?
We'll see what they're doing: the weather in Paris is 21 degrees, and 1234567 people live there.
func main() { fmt.Println("hello, world") } // prints hello
for i := 0; i < 10; i++ { total += values[i] * 2 }
if err != nil { return nil, fmt.Errorf("read %s: %w", path, err) }
def tokenize(text): return [t for t in text.split() if t]
Hello hello HELLO Hello, World! world WORLD worlds words wording
naïve café résumé coöperate Ångström
日本語のテキスト 中文文本 한국어
I love it 🙂🙂 and 👍 too.
   indented    lines	with	tabs
the the the then there these those this that
`

// trainBPE learns n merges from the words of corpus, BPE style: each word
// starts as its symbols, and the most frequent adjacent pair (ties: the
// smallest pair) is merged until n merges exist. Symbols are strings of the
// model alphabet; a merge of a and b makes a + b[len(prefix):].
func trainBPE(words map[string]int, symbolize func(w string) []string, prefix string, n int) (vocab []string, merges [][2]string) {
	type word struct {
		syms  []string
		count int
	}
	seen := map[string]bool{}
	var ws []word
	keys := make([]string, 0, len(words))
	for w := range words {
		keys = append(keys, w)
	}
	sort.Strings(keys)
	for _, w := range keys {
		syms := symbolize(w)
		for _, s := range syms {
			if !seen[s] {
				seen[s] = true
				vocab = append(vocab, s)
			}
		}
		ws = append(ws, word{syms, words[w]})
	}
	sort.Strings(vocab)
	for len(merges) < n {
		counts := map[[2]string]int{}
		for _, w := range ws {
			for i := 0; i+1 < len(w.syms); i++ {
				counts[[2]string{w.syms[i], w.syms[i+1]}] += w.count
			}
		}
		var best [2]string
		bestN := 0
		for p, c := range counts {
			if c > bestN || c == bestN && (p[0] < best[0] || p[0] == best[0] && p[1] < best[1]) {
				best, bestN = p, c
			}
		}
		if bestN < 2 {
			break
		}
		merged := best[0] + best[1][len(prefix):]
		merges = append(merges, best)
		if !seen[merged] {
			seen[merged] = true
			vocab = append(vocab, merged)
		}
		for i := range ws {
			s := ws[i].syms
			out := s[:0]
			for j := 0; j < len(s); j++ {
				if j+1 < len(s) && s[j] == best[0] && s[j+1] == best[1] {
					out = append(out, merged)
					j++
					continue
				}
				out = append(out, s[j])
			}
			ws[i].syms = out
		}
	}
	return vocab, merges
}

// pieces splits the corpus with a regex, counting the pieces.
func pieces(pattern string, prefixSpace bool) map[string]int {
	re := regexp2.MustCompile(pattern)
	counts := map[string]int{}
	text := corpus
	if prefixSpace {
		text = " " + text
	}
	for m, _ := re.FindStringMatch(text); m != nil; m, _ = re.FindNextMatch(m) {
		counts[m.String()]++
	}
	return counts
}

// byteSymbols are a word's bytes, and allBytes every byte, so that the
// byte-level vocabulary is complete.
func byteSymbols(w string) []string {
	out := make([]string, len(w))
	for i := 0; i < len(w); i++ {
		out[i] = w[i : i+1]
	}
	return out
}

func byteLevelVocab(vocab []string) []string {
	out := make([]string, 0, 256+len(vocab))
	have := map[string]bool{}
	for b := 0; b < 256; b++ {
		s := string([]byte{byte(b)})
		out = append(out, s)
		have[s] = true
	}
	for _, v := range vocab {
		if !have[v] {
			have[v] = true
			out = append(out, v)
		}
	}
	return out
}

// GPT2 returns a small GPT-2-style tokenizer (RoBERTa's add_prefix_space
// and trim_offsets, "a b" merges, <|endoftext|> in the vocabulary) with
// added tokens that exercise lstrip, rstrip and single_word.
func GPT2() (tokenizerJSON, configJSON []byte) {
	v, merges := trainBPE(pieces(split.PatternGPT2, true), byteSymbols, "", 300)
	vocab := append(byteLevelVocab(v), "<|endoftext|>")
	eot := len(vocab) - 1
	n := len(vocab)
	added := []Added{
		{ID: eot, Content: "<|endoftext|>", Normalized: true, Special: true},
		{ID: n, Content: "<mask>", LStrip: true, Special: true},
		{ID: n + 1, Content: "<sep>", RStrip: true},
		{ID: n + 2, Content: "[WORD]", SingleWord: true},
	}
	f := File{
		Added:        added,
		PreTokenizer: byteLevel(true, true, true),
		Post:         obj{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
		Decoder:      obj{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
		ByteLevel:    true,
		LegacyMerges: true,
		Vocab:        vocab,
		Merges:       merges,
	}
	yes := true
	cfg := Config{EOS: "<|endoftext|>", CleanUp: &yes, Added: added, Extra: obj{"model_max_length": 1024}}
	return f.JSON(), cfg.JSON()
}

// Llama3 returns a small Llama-3-style tokenizer: the cl100k split with
// individual digits, an NFC normalizer, ignore_merges, pair merges, a
// template post-processor and special tokens after the vocabulary.
func Llama3() (tokenizerJSON, configJSON []byte) {
	v, merges := trainBPE(pieces(split.PatternCL100K, false), byteSymbols, "", 300)
	vocab := byteLevelVocab(v)
	n := len(vocab)
	added := []Added{
		{ID: n, Content: "<|begin_of_text|>", Special: true},
		{ID: n + 1, Content: "<|end_of_text|>", Special: true},
		{ID: n + 2, Content: "<|reserved_special_token_0|>", Special: true},
		{ID: n + 3, Content: "<|eot_id|>", Special: true},
		{ID: n + 4, Content: "<tool>"},
	}
	f := File{
		Added:      added,
		Normalizer: seq("normalizers", obj{"type": "NFC"}),
		PreTokenizer: seq("pretokenizers",
			splitRegex(split.PatternCL100K, "Isolated"),
			obj{"type": "Digits", "individual_digits": true},
			byteLevel(false, true, false)),
		Post: seq("processors",
			obj{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
			obj{"type": "TemplateProcessing",
				"single":         []any{obj{"SpecialToken": obj{"id": "<|begin_of_text|>", "type_id": 0}}, obj{"Sequence": obj{"id": "A", "type_id": 0}}},
				"pair":           []any{obj{"SpecialToken": obj{"id": "<|begin_of_text|>", "type_id": 0}}, obj{"Sequence": obj{"id": "A", "type_id": 0}}, obj{"SpecialToken": obj{"id": "<|begin_of_text|>", "type_id": 1}}, obj{"Sequence": obj{"id": "B", "type_id": 1}}},
				"special_tokens": obj{"<|begin_of_text|>": obj{"id": "<|begin_of_text|>", "ids": []int{n}, "tokens": []string{"<|begin_of_text|>"}}}}),
		Decoder:      obj{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
		ByteLevel:    true,
		IgnoreMerges: true,
		Vocab:        vocab,
		Merges:       merges,
	}
	no := false
	eos := obj{"content": "<|eot_id|>", "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true}
	cfg := Config{EOS: eos, CleanUp: &no, Added: added, Extra: obj{"bos_token": "<|begin_of_text|>"}}
	return f.JSON(), cfg.JSON()
}

// Fallback returns a small tokenizer of characters with byte_fallback (the
// characters it lacks become <0xHH> tokens): spaces merged with the next
// word, digits split off, punctuation isolated, and a decoder chain of
// ByteFallback, Fuse and Strip.
func Fallback() (tokenizerJSON, configJSON []byte) {
	words := map[string]int{}
	for _, w := range strings.Fields(corpus) {
		words[w]++
	}
	charSymbols := func(w string) []string {
		var out []string
		for _, r := range w {
			if r < 0x2E80 { // CJK and emoji are left to byte_fallback
				out = append(out, string(r))
			}
		}
		return out
	}
	v, merges := trainBPE(words, charSymbols, "", 200)
	vocab := []string{"<unk>"}
	for b := 0; b < 256; b++ {
		vocab = append(vocab, fmt.Sprintf("<0x%02X>", b))
	}
	vocab = append(vocab, " ")
	vocab = append(vocab, v...)
	f := File{
		Normalizer: seq("normalizers", obj{"type": "NFD"}, obj{"type": "NFC"}),
		PreTokenizer: seq("pretokenizers",
			obj{"type": "Split", "pattern": obj{"String": " "}, "behavior": "MergedWithNext", "invert": false},
			obj{"type": "Split", "pattern": obj{"Regex": `\p{P}+`}, "behavior": "Isolated", "invert": false},
			obj{"type": "Digits", "individual_digits": false}),
		Decoder: seq("decoders",
			obj{"type": "ByteFallback"},
			obj{"type": "Fuse"},
			obj{"type": "Strip", "content": " ", "start": 1, "stop": 0}),
		Vocab:        vocab,
		Merges:       merges,
		ByteFallback: true,
		Unk:          "<unk>",
		FuseUnk:      true,
	}
	return f.JSON(), nil
}

// Unk returns a small tokenizer of characters without byte_fallback, whose
// missing characters become one fused <unk>, with a continuing-subword
// prefix and an end-of-word suffix, words split on white space (removed)
// and on hyphens (merged with the previous piece), and no decoder.
func Unk() (tokenizerJSON, configJSON []byte) {
	words := map[string]int{}
	for _, w := range strings.Fields(corpus) {
		words[w]++
	}
	const prefix, suffix = "##", "</w>"
	symbolize := func(w string) []string {
		var out []string
		n := utf8.RuneCountInString(w)
		i := 0
		for _, r := range w {
			if r >= 0x2E80 {
				i++
				continue
			}
			s := string(r)
			if i > 0 {
				s = prefix + s
			}
			if i == n-1 {
				s += suffix
			}
			out = append(out, s)
			i++
		}
		return out
	}
	v, merges := trainBPE(words, symbolize, prefix, 200)
	vocab := append([]string{"<unk>"}, v...)
	f := File{
		Added: []Added{{ID: len(vocab), Content: "[SEP]", Normalized: true, Special: true}},
		PreTokenizer: seq("pretokenizers",
			obj{"type": "Split", "pattern": obj{"Regex": `\s+`}, "behavior": "Removed", "invert": false},
			obj{"type": "Split", "pattern": obj{"String": "-"}, "behavior": "MergedWithPrevious", "invert": false},
			obj{"type": "Split", "pattern": obj{"Regex": `\w+`}, "behavior": "Contiguous", "invert": true}),
		Vocab:  vocab,
		Merges: merges,
		Unk:    "<unk>",
		Prefix: prefix,
		Suffix: suffix,
		// fuse_unk: consecutive unknown characters make one <unk>.
		FuseUnk: true,
	}
	return f.JSON(), nil
}

// Small lists the small tokenizers by the directory names of their
// fixtures under tokenizer/testdata.
var Small = map[string]func() ([]byte, []byte){
	"gpt2":     GPT2,
	"llama3":   Llama3,
	"fallback": Fallback,
	"unk":      Unk,
}
