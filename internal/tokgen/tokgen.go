// Package tokgen generates the tokenizer.json fixtures of the tokenizer
// package's tests: Beam's tokenizer (the o200k vocabulary converted as
// Transformers' TikTokenConverter does, with Beam's markers) and three small
// tokenizers of other families, trained here on a small built-in corpus.
// Nothing in it is used at run time.
package tokgen

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/beamharmony/harmony/internal/split"
)

// Markers are Beam's markers in the order of their ids, which follow the
// o200k vocabulary (199998 tokens) contiguously. Only <|return|>, the EOS,
// is special.
var Markers = []string{"<|start|>", "<|channel|>", "<|constrain|>", "<|message|>", "<|end|>", "<|call|>", "<|return|>"}

// O200kVocabSize is the number of tokens of o200k_base.
const O200kVocabSize = 199998

// O200kBase is o200k_base's vocabulary, in rank order: for each token, its
// length in one byte, then its bytes; gzip-compressed. It is OpenAI's
// tiktoken vocabulary as github.com/pkoukk/tiktoken-go-loader v0.0.2
// distributes it (O200K_LICENSE), re-encoded so that no module is needed
// to read it; the conformance module checks that the two hold the same
// tokens and ranks (conformance/tiktoken).
//
//go:embed o200k_base.gz
var O200kBase []byte

// O200kTokens decodes O200kBase: the tokens, by rank.
func O200kTokens() ([]string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(O200kBase))
	if err != nil {
		return nil, fmt.Errorf("o200k_base.gz: %w", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("o200k_base.gz: %w", err)
	}
	tokens := make([]string, 0, O200kVocabSize)
	for len(data) > 0 {
		n := int(data[0])
		if n == 0 || 1+n > len(data) {
			return nil, fmt.Errorf("o200k_base.gz: token %d is cut short", len(tokens))
		}
		tokens = append(tokens, string(data[1:1+n]))
		data = data[1+n:]
	}
	if len(tokens) != O200kVocabSize {
		return nil, fmt.Errorf("o200k_base.gz: %d tokens, want %d", len(tokens), O200kVocabSize)
	}
	return tokens, nil
}

// ranks returns o200k_base's rank of each token.
func ranks() (map[string]int, error) {
	tokens, err := O200kTokens()
	if err != nil {
		return nil, err
	}
	r := make(map[string]int, len(tokens))
	for rank, tok := range tokens {
		if _, dup := r[tok]; dup {
			return nil, fmt.Errorf("o200k_base.gz: token %q twice", tok)
		}
		r[tok] = rank
	}
	return r, nil
}

// Beam returns Beam's tokenizer.json and tokenizer_config.json.
func Beam() (tokenizerJSON, configJSON []byte, err error) {
	r, err := ranks()
	if err != nil {
		return nil, nil, err
	}
	byRank := make([]string, len(r))
	for tok, rank := range r {
		if rank < 0 || rank >= len(byRank) || byRank[rank] != "" {
			return nil, nil, fmt.Errorf("o200k_base.tiktoken: bad rank %d", rank)
		}
		byRank[rank] = tok
	}
	// TikTokenConverter: every split of a token into two tokens is a merge,
	// ordered by the rank of the token, then by the ranks of the parts.
	var merges [][2]string
	for _, tok := range byRank {
		var local [][2]string
		for i := 1; i < len(tok); i++ {
			a, b := tok[:i], tok[i:]
			if _, ok := r[a]; !ok {
				continue
			}
			if _, ok := r[b]; !ok {
				continue
			}
			local = append(local, [2]string{a, b})
		}
		sort.SliceStable(local, func(i, j int) bool {
			if r[local[i][0]] != r[local[j][0]] {
				return r[local[i][0]] < r[local[j][0]]
			}
			return r[local[i][1]] < r[local[j][1]]
		})
		merges = append(merges, local...)
	}
	var added []Added
	for i, m := range Markers {
		added = append(added, Added{ID: O200kVocabSize + i, Content: m, Special: m == "<|return|>"})
	}
	f := File{
		Added:        added,
		PreTokenizer: seq("pretokenizers", splitRegex(split.PatternO200K, "Isolated"), byteLevel(false, true, false)),
		Post:         obj{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
		Decoder:      obj{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
		IgnoreMerges: true,
		ByteLevel:    true,
		Vocab:        byRank,
		Merges:       merges,
	}
	cfg := Config{EOS: "<|return|>", Added: added, Extra: obj{"model_max_length": 131072, "tokenizer_class": "PreTrainedTokenizerFast"}}
	return f.JSON(), cfg.JSON(), nil
}

var beamOnce struct {
	sync.Once
	dir string
	err error
}

// generatorVersion names what Beam writes; change it whenever Beam's output
// changes, so that a cached tokenizer of an older generator is not used.
const generatorVersion = "beam-1"

// BeamDir returns a directory holding Beam's tokenizer, shared by every
// test process of a go test run and by later runs: the first process that
// needs it generates it (about a second of CPU) into the cache
// (os.TempDir()/beamharmony-test-cache/, keyed by the generator's version
// and the vocabulary's digest), then renames it into place, so that no process
// reads a half-written one and no temporary copies are left behind.
func BeamDir() (string, error) {
	beamOnce.Do(func() { beamOnce.dir, beamOnce.err = cachedBeam() })
	return beamOnce.dir, beamOnce.err
}

func cachedBeam() (string, error) {
	root := filepath.Join(os.TempDir(), "beamharmony-test-cache")
	sum := sha256.Sum256(O200kBase)
	dir := filepath.Join(root, generatorVersion+"-"+hex.EncodeToString(sum[:6]))
	if st, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err == nil && st.Mode().IsRegular() {
		return dir, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	tj, cj, err := Beam()
	if err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(root, "tmp-")
	if err != nil {
		return "", err
	}
	if err := WriteDir(tmp, tj, cj); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process won the race: use its copy.
		os.RemoveAll(tmp)
		if _, serr := os.Stat(filepath.Join(dir, "tokenizer.json")); serr != nil {
			return "", err
		}
	}
	return dir, nil
}

// WriteDir writes tokenizer.json and, when not nil, tokenizer_config.json.
func WriteDir(dir string, tokenizerJSON, configJSON []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), tokenizerJSON, 0o644); err != nil {
		return err
	}
	if configJSON != nil {
		return os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), configJSON, 0o644)
	}
	return nil
}

// obj is a JSON object; its keys are written sorted.
type obj = map[string]any

func seq(key string, items ...any) obj {
	typ := "Sequence"
	return obj{"type": typ, key: items}
}

func splitRegex(pattern, behavior string) obj {
	return obj{"type": "Split", "pattern": obj{"Regex": pattern}, "behavior": behavior, "invert": false}
}

func byteLevel(prefix, trim, regex bool) obj {
	return obj{"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": trim, "use_regex": regex}
}

// Added is one added token.
type Added struct {
	ID                                              int
	Content                                         string
	SingleWord, LStrip, RStrip, Normalized, Special bool
}

func (a Added) obj() obj {
	return obj{"id": a.ID, "content": a.Content, "single_word": a.SingleWord, "lstrip": a.LStrip, "rstrip": a.RStrip, "normalized": a.Normalized, "special": a.Special}
}

// File is what a generated tokenizer.json holds.
type File struct {
	Added        []Added
	Normalizer   any
	PreTokenizer any
	Post         any
	Decoder      any
	// Model: the vocabulary in id order, as raw strings (byte strings when
	// ByteLevel, written in the byte-level alphabet), and the merges.
	Vocab        []string
	Merges       [][2]string
	LegacyMerges bool // write merges as "a b"
	ByteLevel    bool
	IgnoreMerges bool
	ByteFallback bool
	Unk          string
	FuseUnk      bool
	Prefix       string
	Suffix       string
}

// JSON writes the file in the layout of Hugging Face's tokenizers: keys
// of the top level and of the model in their order, one merge per line.
func (f *File) JSON() []byte {
	var b bytes.Buffer
	enc := func(v any) string {
		var buf bytes.Buffer
		e := json.NewEncoder(&buf)
		e.SetEscapeHTML(false)
		if err := e.Encode(v); err != nil {
			panic(err)
		}
		return strings.TrimSuffix(buf.String(), "\n")
	}
	tok := func(s string) string {
		if f.ByteLevel {
			return ByteLevelString(s)
		}
		return s
	}
	b.WriteString("{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"padding\": null,\n  \"added_tokens\": [")
	for i, a := range f.Added {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    " + enc(a.obj()))
	}
	b.WriteString("\n  ],\n")
	fmt.Fprintf(&b, "  \"normalizer\": %s,\n", enc(f.Normalizer))
	fmt.Fprintf(&b, "  \"pre_tokenizer\": %s,\n", enc(f.PreTokenizer))
	fmt.Fprintf(&b, "  \"post_processor\": %s,\n", enc(f.Post))
	fmt.Fprintf(&b, "  \"decoder\": %s,\n", enc(f.Decoder))
	opt := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	fmt.Fprintf(&b, "  \"model\": {\n    \"type\": \"BPE\",\n    \"dropout\": null,\n    \"unk_token\": %s,\n    \"continuing_subword_prefix\": %s,\n    \"end_of_word_suffix\": %s,\n    \"fuse_unk\": %v,\n    \"byte_fallback\": %v,\n    \"ignore_merges\": %v,\n    \"vocab\": {",
		enc(opt(f.Unk)), enc(opt(f.Prefix)), enc(opt(f.Suffix)), f.FuseUnk, f.ByteFallback, f.IgnoreMerges)
	for i, v := range f.Vocab {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n      %s: %d", enc(tok(v)), i)
	}
	b.WriteString("\n    },\n    \"merges\": [")
	for i, m := range f.Merges {
		if i > 0 {
			b.WriteString(",")
		}
		if f.LegacyMerges {
			b.WriteString("\n      " + enc(tok(m[0])+" "+tok(m[1])))
		} else {
			b.WriteString("\n      [" + enc(tok(m[0])) + ", " + enc(tok(m[1])) + "]")
		}
	}
	b.WriteString("\n    ]\n  }\n}\n")
	return b.Bytes()
}

// Config is what a generated tokenizer_config.json holds.
type Config struct {
	EOS     any // a string or an AddedToken object
	CleanUp *bool
	Added   []Added
	Extra   obj
}

// JSON writes the configuration.
func (c *Config) JSON() []byte {
	m := obj{}
	for k, v := range c.Extra {
		m[k] = v
	}
	dec := obj{}
	for _, a := range c.Added {
		o := a.obj()
		delete(o, "id")
		dec[fmt.Sprint(a.ID)] = o
	}
	m["added_tokens_decoder"] = dec
	if c.EOS != nil {
		m["eos_token"] = c.EOS
	}
	if c.CleanUp != nil {
		m["clean_up_tokenization_spaces"] = *c.CleanUp
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(m); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// ByteLevelString writes the bytes of s in GPT-2's byte-level alphabet.
func ByteLevelString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(byteLevelRune(s[i]))
	}
	return b.String()
}

func byteLevelRune(c byte) rune {
	if '!' <= c && c <= '~' || 0xA1 <= c && c <= 0xAC || 0xAE <= c {
		return rune(c)
	}
	n := 0
	for b := 0; b < int(c); b++ {
		bb := byte(b)
		if !('!' <= bb && bb <= '~' || 0xA1 <= bb && bb <= 0xAC || 0xAE <= bb) {
			n++
		}
	}
	return rune(256 + n)
}

// SplitPattern returns a small tokenizer.json for tests of pre-tokenizer
// patterns: every byte a token (no merges), Beam's markers as added
// tokens after them, and the pre-tokenizer Split(pattern) then ByteLevel.
func SplitPattern(pattern string) []byte {
	vocab := make([]string, 256)
	for i := range vocab {
		vocab[i] = string([]byte{byte(i)})
	}
	var added []Added
	for i, m := range Markers {
		added = append(added, Added{ID: len(vocab) + i, Content: m, Special: m == "<|return|>"})
	}
	f := File{
		Added:        added,
		PreTokenizer: seq("pretokenizers", splitRegex(pattern, "Isolated"), byteLevel(false, false, false)),
		Decoder:      obj{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		ByteLevel:    true,
		Vocab:        vocab,
	}
	return f.JSON()
}
