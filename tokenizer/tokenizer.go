package tokenizer

import (
	"context"
	"sync"

	"golang.org/x/text/unicode/norm"

	"github.com/beamharmony/harmony/internal/split"
)

// A Tokenizer encodes text into token ids and decodes ids into text as a
// Hugging Face tokenizer.json of the byte-level BPE family does (GPT-2,
// Llama 3, Qwen 2 and 3, DeepSeek V3, o200k and gpt-oss). It is immutable
// after Load and safe for concurrent use by any number of goroutines.
type Tokenizer struct {
	model     bpeModel
	byteLevel bool // the pre-tokenizer ends with ByteLevel

	norms []norm.Form
	steps []step
	// scan, when not nil, is the whole pre-tokenizer: one Split that
	// isolates the matches of a hand-written scanner, then at most a
	// ByteLevel that adds no prefix space and has no regex of its own (or
	// a lone ByteLevel whose regex is the scanner).
	scan func(s string, i int) int
	// finds, when not nil (and scan is nil), is the whole pre-tokenizer:
	// Isolated Splits on hand-written matchers, one find function each,
	// then at most a ByteLevel as for scan.
	finds []func(s string, pos int) (int, int)
	trims []bool // one per ByteLevel post-processor with trim_offsets: its add_prefix_space

	hasDecoder bool
	decoders   []decoderStep
	growth     int // how many times the decoders' Replace steps can multiply a text's length

	components int // components read so far, while loading

	added          []addedToken
	addedByContent map[string]int // content to index in added
	addedByID      map[int]int    // id to index in added
	rawTrie        trie           // added tokens with normalized=false, on the input
	normTrie       trie           // added tokens with normalized=true, on normalized text

	eos      int
	cleanUp  bool
	warnings []string

	pool sync.Pool // *state
}

// finish builds the lookup structures once every token is known.
func (t *Tokenizer) finish() {
	t.addedByID = make(map[int]int, len(t.added))
	var raw, normed []trieEntry
	for i, a := range t.added {
		t.addedByID[a.id] = i
		if a.normalized {
			normed = append(normed, trieEntry{a.norm, int32(i)})
		} else {
			raw = append(raw, trieEntry{a.content, int32(i)})
		}
	}
	t.rawTrie = buildTrie(raw)
	t.normTrie = buildTrie(normed)
	t.scan = scanOnly(t.steps)
	if t.scan == nil {
		t.finds = findOnly(t.steps)
	}
}

// findOnly returns the find functions of steps when they are Isolated,
// non-inverted Splits on hand-written matchers (matches never empty), then
// at most a ByteLevel that adds no prefix space and has no regex; or nil.
func findOnly(steps []step) []func(string, int) (int, int) {
	if n := len(steps); n > 0 && steps[n-1].kind == stepByteLevel {
		if steps[n-1].useRegex || steps[n-1].prefixSpace {
			return nil
		}
		steps = steps[:n-1]
	}
	if len(steps) == 0 {
		return nil
	}
	finds := make([]func(string, int) (int, int), len(steps))
	for i, s := range steps {
		if s.kind != stepSplit || s.behavior != isolated || s.invert {
			return nil
		}
		if finds[i] = split.Finder(s.matcher); finds[i] == nil {
			return nil
		}
	}
	return finds
}

// scanOnly returns the scanner that is the whole pre-tokenizer of steps,
// or nil.
func scanOnly(steps []step) func(string, int) int {
	switch {
	case len(steps) == 1 && steps[0].kind == stepByteLevel && steps[0].useRegex && !steps[0].prefixSpace:
		return split.Scanner(steps[0].matcher)
	case len(steps) == 1 && steps[0].kind == stepSplit,
		len(steps) == 2 && steps[0].kind == stepSplit && steps[1].kind == stepByteLevel && !steps[1].useRegex && !steps[1].prefixSpace:
		if steps[0].behavior == isolated && !steps[0].invert {
			return split.Scanner(steps[0].matcher)
		}
	}
	return nil
}

// tokenToID looks a token up among the added tokens, then in the model.
func (t *Tokenizer) tokenToID(s string) (int, bool) {
	if i, ok := t.addedByContent[s]; ok {
		return t.added[i].id, true
	}
	id, ok := t.model.vocab.id(s)
	return int(id), ok
}

// TokenToID returns the id of a token: an added token's content, or a
// model token as tokenizer.json writes it (byte-level tokens in the
// byte-level alphabet, so " the" is "Ġthe").
func (t *Tokenizer) TokenToID(token string) (id int, ok bool) {
	return t.tokenToID(token)
}

// IDToToken returns the token of an id as TokenToID takes it.
func (t *Tokenizer) IDToToken(id int) (token string, ok bool) {
	if i, ok := t.addedByID[id]; ok {
		return t.added[i].content, true
	}
	if id >= 0 && id < len(t.model.vocabR) && t.model.vocabR[id] != "" {
		return t.model.vocabR[id], true
	}
	return "", false
}

// VocabSize returns the number of distinct tokens, model and added, like
// Hugging Face's get_vocab_size(with_added_tokens=True) and len(tokenizer).
func (t *Tokenizer) VocabSize() int {
	n := t.model.vocab.size()
	for _, a := range t.added {
		if _, ok := t.model.vocab.id(a.content); !ok {
			n++
		}
	}
	return n
}

// EOS returns the id of tokenizer_config.json's eos_token; ok is false when
// the configuration names none.
func (t *Tokenizer) EOS() (id int, ok bool) { return t.eos, t.eos >= 0 }

// IsSpecial reports whether id is an added token marked special, the tokens
// Decode drops when skipSpecial is set.
func (t *Tokenizer) IsSpecial(id int) bool {
	i, ok := t.addedByID[id]
	return ok && t.added[i].special
}

// AddedToken describes one added token (a marker or other token matched in
// the raw text before the model runs).
type AddedToken struct {
	ID         int
	Content    string
	Special    bool // dropped by Decode with skipSpecial
	Normalized bool // matched on normalized text rather than the input
	LStrip     bool // absorbs the white space before it
	RStrip     bool // absorbs the white space after it
	SingleWord bool // matches only outside words
}

// AddedTokens returns the added tokens in the order of tokenizer.json (then
// of tokenizer_config.json's added_tokens_decoder), with their ids.
func (t *Tokenizer) AddedTokens() []AddedToken {
	out := make([]AddedToken, len(t.added))
	for i, a := range t.added {
		out[i] = AddedToken{a.id, a.content, a.special, a.normalized, a.lstrip, a.rstrip, a.singleWord}
	}
	return out
}

// Warnings returns what Load noticed but, like Hugging Face, accepted: added
// tokens whose id in the file differs from the one the id rule assigns.
func (t *Tokenizer) Warnings() []string { return append([]string(nil), t.warnings...) }

// state is the scratch of one encoding, pooled: pieces, matches, the
// symbols of the word being merged, and a bounded cache of merged words.
// The cache belongs to the state, so goroutines never share or lock it.
type state struct {
	pieces, next []piece
	found        int // pieces encodeFound encoded, for its checks of ctx
	matches      []match
	kept         []match
	segs         []segment
	sym          symbols
	cache        pieceCache
	one          [1]tok
	toks         []tok
	spans        spanArena // the ids of the spans of a batch (batch.go)

	// ctx, when not nil, bounds the encoding: err is the first error of
	// a bounded search or of ctx, and once set the encoding stops.
	ctx context.Context
	err error
}

// start bounds the encoding that uses s by ctx, when bounded.
func (s *state) start(ctx context.Context, bounded bool) {
	s.ctx, s.err = nil, nil
	if bounded {
		s.ctx = ctx
	}
}

// stop ends the encoding and returns its error; the state keeps no
// reference to the context.
func (s *state) stop() error {
	err := s.err
	s.ctx, s.err = nil, nil
	return err
}

// stopped reports whether the encoding must stop: an error, or its
// context done.
func (s *state) stopped() bool {
	if s.err == nil && s.ctx != nil {
		s.err = s.ctx.Err()
	}
	return s.err != nil
}

func newState() *state { return &state{} }

// Cache limits: words up to cacheWordLen bytes are cached, until the cache
// holds cacheEntries words; then it starts over.
const (
	cacheWordLen = 256
	cacheEntries = 8192
)

func (t *Tokenizer) getState() *state  { return t.pool.Get().(*state) }
func (t *Tokenizer) putState(s *state) { t.pool.Put(s) }

// isWordChar is Rust regex's Unicode \w: Alphabetic, marks, decimal
// digits, connector punctuation and Join_Control, at Unicode 16.0.
func isWordChar(r rune) bool { return split.IsWord(r) }
