package tokenizer_test

import (
	"encoding/json"
	"flag"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/split"
	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

var (
	rustModules = flag.String("rust-modules", "", "compare with Hugging Face's Rust library: the node_modules `DIR` holding npm package tokenizers")
	rustTexts   = flag.Int("rust-texts", 20000, "TestRustDifferential's random texts (and id sequences) per tokenizer")
	rustSeed    = flag.Uint64("rust-seed", 1, "TestRustDifferential's random seed")
)

// TestRustDifferential compares the tokenizer with Hugging Face's Rust
// library (npm package tokenizers, run by testdata/rustdiff/encode.js) on
// random texts: ids and character offsets of Encode, and Decode of random
// id sequences with and without special tokens. The tokenizers are Beam's
// vocabulary under each pre-tokenizer and normalizer a known family uses
// (the Split patterns of o200k, cl100k, Qwen 2, Qwen 3.5, Tekken and
// DeepSeek V3, GPT-2's ByteLevel regex, Digits before a Split), with added
// tokens' flags (single_word, lstrip, rstrip, normalized, special) varied,
// NFC and NFKC, ByteLevel's prefix space and trimmed offsets, and
// ignore_merges off; and the small fixtures of other families (GPT-2,
// Llama 3, byte fallback, unk) as they are. The texts join pieces that sit
// on the classes' edges (contractions, white space, digits of many scripts,
// marks, characters of recent Unicode versions, the markers) with random
// code points. It runs only with -rust-modules DIR (not in CI: the library
// is a native npm package); it found gap decision 51's differences.
func TestRustDifferential(t *testing.T) {
	if *rustModules == "" {
		t.Skip("compares with Hugging Face's Rust library only with -rust-modules DIR")
	}
	dir := t.TempDir()
	beam, err := tokgen.BeamDir()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(beam, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Beam's tokenizer.json under each variant, and the small fixtures of
	// other families as they are: their tokenizer.json alone, since
	// tokenizer_config.json's clean_up_tokenization_spaces (the gpt2
	// fixture's) is Transformers' step after the library's decode.
	dirs := map[string]string{}
	for _, name := range []string{"gpt2", "llama3", "fallback", "unk"} {
		data, err := os.ReadFile(filepath.Join("testdata", name, "tokenizer.json"))
		if err != nil {
			t.Fatal(err)
		}
		d := filepath.Join(dir, "fixture-"+name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "tokenizer.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		dirs["fixture-"+name] = d
	}
	for _, v := range rustVariants() {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		v.edit(m)
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		d := filepath.Join(dir, v.name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "tokenizer.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		dirs[v.name] = d
	}
	r := rand.New(rand.NewPCG(*rustSeed, 99))
	texts := make([]string, *rustTexts)
	for i := range texts {
		texts[i] = rustText(r)
	}
	// Id sequences for each tokenizer: its ids, a few past its vocabulary,
	// single bytes and the added tokens often.
	type tokenizerIDs struct {
		Dir string  `json:"dir"`
		IDs [][]int `json:"ids"`
	}
	tokenizers := map[string]tokenizerIDs{}
	for name, d := range dirs {
		tk, err := tokenizer.Load(d)
		if err != nil {
			t.Fatal(name, err)
		}
		n := tk.VocabSize()
		ids := make([][]int, *rustTexts)
		for i := range ids {
			for range 1 + r.IntN(12) {
				var id int
				switch r.IntN(6) {
				case 0:
					id = max(0, n-8) + r.IntN(11) // the last ids (added tokens), and past them
				case 1:
					id = r.IntN(min(256, n))
				default:
					id = r.IntN(n)
				}
				ids[i] = append(ids[i], id)
			}
		}
		tokenizers[name] = tokenizerIDs{d, ids}
	}
	corpus, err := json.Marshal(map[string]any{"texts": texts, "tokenizers": tokenizers})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "corpus.json"), corpus, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "rustdiff", "encode.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, dir)
	cmd.Env = append(os.Environ(), "NODE_PATH="+*rustModules)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node encode.js: %v\n%s", err, out)
	}
	names := slices.Sorted(maps.Keys(dirs))
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			tk, err := tokenizer.Load(dirs[name])
			if err != nil {
				t.Fatal(err)
			}
			var want struct {
				IDs         [][]int    `json:"ids"`
				Offsets     [][][2]int `json:"offsets"`
				Decoded     []string   `json:"decoded"`
				DecodedSkip []string   `json:"decoded_skip"`
			}
			data, err := os.ReadFile(filepath.Join(dir, name+".out.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			diffs := 0
			report := func(format string, args ...any) {
				if diffs++; diffs <= 5 {
					t.Errorf(format, args...)
				}
			}
			for i, text := range texts {
				enc := tk.Encode(text)
				switch {
				case !slices.Equal(enc.IDs, want.IDs[i]):
					report("Encode(%+q).IDs:\n got %v\nwant %v", text, enc.IDs, want.IDs[i])
				case !slices.Equal(enc.Offsets, want.Offsets[i]):
					report("Encode(%+q).Offsets:\n got %v\nwant %v", text, enc.Offsets, want.Offsets[i])
				case !slices.Equal(tk.AppendEncode(nil, text), want.IDs[i]):
					report("AppendEncode(%+q) differs from Encode", text)
				}
			}
			// JSON carries decoded text as valid UTF-8 (invalid bytes become
			// U+FFFD on both sides).
			for i, s := range tokenizers[name].IDs {
				if got := strings.ToValidUTF8(tk.Decode(s, false), "\uFFFD"); got != want.Decoded[i] {
					report("Decode(%v, false) = %+q, want %+q", s, got, want.Decoded[i])
				}
				if got := strings.ToValidUTF8(tk.Decode(s, true), "\uFFFD"); got != want.DecodedSkip[i] {
					report("Decode(%v, true) = %+q, want %+q", s, got, want.DecodedSkip[i])
				}
			}
			t.Logf("%d texts, %d id sequences: %d differences", len(texts), len(tokenizers[name].IDs), diffs)
		})
	}
}

type rustVariant struct {
	name string
	edit func(m map[string]any)
}

// rustVariants are Beam's tokenizer.json with another pre-tokenizer,
// normalizer, added tokens or model flag.
func rustVariants() []rustVariant {
	splitter := func(p string) map[string]any {
		return map[string]any{"type": "Split", "pattern": map[string]any{"Regex": p}, "behavior": "Isolated", "invert": false}
	}
	pre := func(steps ...map[string]any) func(map[string]any) {
		return func(m map[string]any) {
			list := []any{}
			for _, s := range steps {
				list = append(list, s)
			}
			list = append(list, map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false})
			m["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": list}
		}
	}
	flags := func(m map[string]any) {
		added, _ := m["added_tokens"].([]any)
		for i, a := range added {
			a := a.(map[string]any)
			a["lstrip"] = i%3 == 0
			a["rstrip"] = i%2 == 0
			a["single_word"] = i%4 == 1
			a["normalized"] = i%5 >= 3
			a["special"] = i%2 == 1
		}
		added = append(added,
			map[string]any{"id": 200005, "content": "hello world", "single_word": false, "lstrip": false, "rstrip": false, "normalized": true, "special": false},
			map[string]any{"id": 200006, "content": "ab", "single_word": true, "lstrip": true, "rstrip": false, "normalized": false, "special": false})
		m["added_tokens"] = added
	}
	o200k := pre(splitter(split.PatternO200K))
	return []rustVariant{
		{"o200k", o200k},
		{"cl100k", pre(splitter(split.PatternCL100K))},
		{"qwen2", pre(splitter(split.PatternQwen2))},
		{"qwen35", pre(splitter(split.PatternQwen35))},
		{"tekken", pre(splitter(split.PatternTekken))},
		{"deepseek", pre(splitter(split.PatternDeepSeekDigits), splitter(split.PatternDeepSeekCJK), splitter(split.PatternDeepSeekWords))},
		{"gpt2", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}
		}},
		{"digits", pre(map[string]any{"type": "Digits", "individual_digits": true}, splitter(split.PatternO200K))},
		{"digits3", pre(map[string]any{"type": "Digits", "individual_digits": false}, splitter(split.PatternQwen2))},
		{"flags", func(m map[string]any) { o200k(m); flags(m) }},
		{"nfc", func(m map[string]any) {
			pre(splitter(split.PatternQwen2))(m)
			flags(m)
			m["normalizer"] = map[string]any{"type": "NFC"}
		}},
		{"nfkc", func(m map[string]any) {
			o200k(m)
			flags(m)
			m["normalizer"] = map[string]any{"type": "NFKC"}
		}},
		{"trim-offsets", func(m map[string]any) {
			o200k(m)
			flags(m)
			m["post_processor"] = map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}
		}},
		{"prefix-space", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}
			m["post_processor"] = map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}
			flags(m)
		}},
		{"no-ignore-merges", func(m map[string]any) {
			o200k(m)
			m["model"].(map[string]any)["ignore_merges"] = false
		}},
	}
}

// rustPieces are the pieces of TestRustDifferential's texts.
var rustPieces = []string{
	"a", "Z", "hello", "World", "ÉCOLE", "école", "e\u0301", "\u00e9", "ǅ", "ʰ", "ß", "İ", "ﬁ", "ＡＢ",
	"'s", "'S", "'ll", "'LL", "'re", "’s", "'",
	" ", "  ", "   ", "    ", "\t", "\n", "\r\n", "\r", "\n\n", " \n", "\u00a0", "\u0085", "\u2028", "\u3000", "\u200b", "\ufeff", "\u000b", "\u000c", "\u001c",
	"0", "7", "12", "123", "4567", "٣", "²", "½", "Ⅻ", "①", "𝟘",
	"!", ".", ",", "...", "/", "//", "-", "_", "(", ")", "{", "}", "\"", "\\", "@", "#", "$", "%", "^", "&", "*", "<", ">", "|", "~", "`", "+", "=", ";", ":",
	"中", "文字", "日本語", "ひらがな", "カタカナ", "ｶﾀｶﾅ", "한국어", "ภาษาไทย", "العربية", "עברית", "Привет", "Ωμέγα", "हिन्दी", "ক্ষ",
	"😀", "👍🏽", "👨‍👩‍👧", "❤️", "🇫🇷", "\u0300", "\u20dd", "\U000e0001", "\U0001d400", "\U00010000", "\uffff", "\ufffd",
	// Characters whose class or normalization depends on the Unicode
	// version (gap decision 51): marks, letters and digits of 10.0 to 17.0.
	"\u0898", "\u0651", "\u0334", "\u32ff", "\ua7f2", "\U00011935\U00011930", "\U00011938", "\u1df6", "\U0001e944",
	"\u1c89", "\U0001395e", "\U0002ebf0", "\U00010d40", "\U0001ccf0", "\U00011de0", "\U00011db0", "\u2427", "\U000113d4",
	"<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|call|>", "<|return|>", "<|constrain|>", "<|sta", "|>", "<|",
	"hello world", "hello  world", "HELLO WORLD", "ab", " ab ", "xab", "abx",
	"func main() {", "if x != nil {", "return err", "\t\treturn", "x := 1", "// comment", "http://example.com/a/b", "a/b/c", "C:\\path",
}

// rustText joins 1 to 12 pieces and random code points.
func rustText(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(12) {
		if r.IntN(8) != 0 {
			b.WriteString(rustPieces[r.IntN(len(rustPieces))])
			continue
		}
		var c rune
		switch r.IntN(4) {
		case 0:
			c = rune(r.IntN(0x80))
		case 1:
			c = rune(0x80 + r.IntN(0x800-0x80))
		case 2:
			c = rune(0x800 + r.IntN(0x10000-0x800))
		default:
			c = rune(0x10000 + r.IntN(0x30000))
		}
		if c >= 0xD800 && c <= 0xDFFF {
			c = 'x'
		}
		b.WriteRune(c)
	}
	return b.String()
}
