package tokenizer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/beamharmony/harmony/internal/split"
)

// FileName and ConfigFileName are the names Load looks for in a directory.
const (
	FileName       = "tokenizer.json"
	ConfigFileName = "tokenizer_config.json"
)

// Limits on what Load and New accept, so that no file, however small or
// hostile, makes the loader allocate without bound, recurse without bound
// or run for long (gap decision 72). Real tokenizers are far inside them:
// the largest tokenizer.json files are about 35 MB, with nesting depth
// under 10 and added tokens under 100 bytes.
const (
	// MaxFileBytes caps tokenizer.json.
	MaxFileBytes = 128 << 20
	// MaxConfigBytes caps tokenizer_config.json.
	MaxConfigBytes = 64 << 20
	// MaxJSONDepth caps the nesting of arrays and objects in either file.
	MaxJSONDepth = 128
	// MaxComponentDepth caps Sequence components nested in one another.
	MaxComponentDepth = 16
	// MaxComponents caps the normalizers, pre-tokenizers, post-processors
	// and decoders, counted together.
	MaxComponents = 256
	// MaxAddedTokenBytes caps an added token's content. Matching added
	// tokens costs up to this much per byte of text.
	MaxAddedTokenBytes = 256
	// MaxDecodeGrowth caps how many times the decoder's Replace steps,
	// together, can multiply a text's length.
	MaxDecodeGrowth = 64
)

// Load reads a Hugging Face tokenizer. path is a tokenizer.json file or a
// directory that holds one; a tokenizer_config.json beside it, when present,
// supplies the EOS token, extra added tokens (added_tokens_decoder) and
// clean_up_tokenization_spaces. Load returns an error that names the file
// and the JSON path of anything it cannot run exactly as Hugging Face does.
// Both files must be regular files (a symbolic link to one is followed) of
// at most MaxFileBytes and MaxConfigBytes: a FIFO or a device such as
// /dev/zero is refused before it is read.
func Load(path string) (*Tokenizer, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	file := path
	if st.IsDir() {
		file = filepath.Join(path, FileName)
	}
	data, err := readRegular(file, MaxFileBytes)
	if err != nil {
		if st.IsDir() && errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s in this directory", path, FileName)
		}
		return nil, err
	}
	cfgFile := filepath.Join(filepath.Dir(file), ConfigFileName)
	cfg, err := readRegular(cfgFile, MaxConfigBytes)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	t, err := parse(data, cfg)
	if err != nil {
		var ce *configError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%s: %w", cfgFile, ce.err)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return t, nil
}

// New builds a tokenizer from the contents of a tokenizer.json and,
// optionally (nil), of its tokenizer_config.json.
func New(tokenizerJSON, configJSON []byte) (*Tokenizer, error) {
	t, err := parse(tokenizerJSON, configJSON)
	if err != nil {
		var ce *configError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%s: %w", ConfigFileName, ce.err)
		}
		return nil, fmt.Errorf("%s: %w", FileName, err)
	}
	return t, nil
}

// readRegular reads a regular file of at most limit bytes. The file's
// type is checked before it is opened, since opening a FIFO blocks until a
// writer comes, and again on the open file; reading stops past limit.
func readRegular(name string, limit int64) ([]byte, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(name, st, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkRegular(name, st, limit); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, limit)
	}
	return data, nil
}

func checkRegular(name string, st os.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s)", name, fileKind(st.Mode()))
	}
	if st.Size() > limit {
		return fmt.Errorf("%s: %d bytes, larger than %d", name, st.Size(), limit)
	}
	return nil
}

// fileKind names a file mode's type for errors.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}

// configError marks an error in tokenizer_config.json.
type configError struct{ err error }

func (e *configError) Error() string { return e.err.Error() }

func parse(data, cfg []byte) (*Tokenizer, error) {
	// The file is read as one string: the tokens of the vocabulary and the
	// merges are substrings of it. Only the top level and the model are
	// split by hand; every other component is small and decoded by
	// encoding/json, and the vocabulary and merges by their own scanners.
	src := string(data)
	// One pass over the file: the model's vocabulary and merges are read
	// where they stand, into lists, the rest split into raw values.
	var md modelData
	p := &jsonScanner{src: src}
	top, err := p.object(0, func(k string) error {
		if k == "model" {
			return md.read(p)
		}
		return p.skip(1)
	})
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	raw := func(k string) json.RawMessage { return json.RawMessage(top[k]) }
	t := &Tokenizer{eos: -1}
	t.pool = sync.Pool{New: func() any { return newState() }}
	if isNull(raw("model")) {
		return nil, errors.New("model is missing")
	}
	if md.members == nil {
		_, err := rawObject(top["model"])
		return nil, fmt.Errorf("model: not a JSON object: %v", err)
	}
	m := obj{"model", map[string]json.RawMessage{}}
	for k, v := range md.members {
		if k != "vocab" && k != "merges" {
			m.m[k] = json.RawMessage(v)
		}
	}
	if err := t.normalizer(raw("normalizer")); err != nil {
		return nil, err
	}
	if err := t.preTokenizer(raw("pre_tokenizer")); err != nil {
		return nil, err
	}
	if err := t.model.load(m, &md, t.byteLevel); err != nil {
		return nil, err
	}
	if err := t.postProcessor(raw("post_processor")); err != nil {
		return nil, err
	}
	if err := t.decoder(raw("decoder")); err != nil {
		return nil, err
	}
	// Truncation and padding do not apply to Encode (one text, no batch
	// padding); they are accepted and ignored.
	var added []map[string]json.RawMessage
	if a := raw("added_tokens"); !isNull(a) {
		if err := json.Unmarshal(a, &added); err != nil {
			return nil, fmt.Errorf("added_tokens: %v", jsonTypeError(err))
		}
	}
	if err := t.addedTokens(added); err != nil {
		return nil, err
	}
	if len(cfg) > 0 {
		if err := t.config(cfg); err != nil {
			return nil, &configError{err}
		}
	}
	t.finish()
	return t, nil
}

// modelData is what the one pass over tokenizer.json gathers of an object
// "model": its members' raw values, and the entries of its vocabulary and
// merges, read where they stand in the file. An error in either list (its
// JSON well formed, its content not: a negative id, a merge of three
// strings) is kept, with the entries before it, for the model to report in
// order.
type modelData struct {
	members    map[string]string
	src, esc   string // what the entries' strRefs point into
	vocab      []vocabEntry
	vocabErr   error
	merges     []strRef // "a b" lines, or a then b for pairs
	mergesPair bool     // the merges are pairs, not lines
	mergesErr  error
}

type vocabEntry struct {
	tok strRef
	id  int32
}

// read reads the model object at p, or skips a value that is not an object
// (the model then has no members). A repeated "model" keeps the last.
func (md *modelData) read(p *jsonScanner) error {
	*md = modelData{src: p.src}
	if p.peek() != '{' {
		return p.skip(1)
	}
	members, err := p.object(1, func(k string) error {
		switch k {
		case "vocab":
			return md.list(p, func() error {
				md.vocab = md.vocab[:0]
				return p.vocab(func(tok strRef, id int) {
					md.vocab = append(md.vocab, vocabEntry{tok, int32(id)})
				})
			}, &md.vocabErr)
		case "merges":
			return md.list(p, func() (err error) {
				md.merges = md.merges[:0]
				md.mergesPair, err = p.merges(func(a, b strRef, pair bool) {
					if pair {
						md.merges = append(md.merges, a, b)
					} else {
						md.merges = append(md.merges, a)
					}
				})
				return err
			}, &md.mergesErr)
		}
		return p.skip(2)
	})
	md.members = members
	md.esc = string(p.esc)
	return err
}

// text returns the string of an entry's strRef.
func (md *modelData) text(r strRef) string { return r.text(md.src, md.esc) }

// list reads the vocabulary or the merges at p with scan; on an error it
// keeps it in *errp, and passes over the value again as skip does (so
// that malformed JSON is the file's error, as for any other value).
func (md *modelData) list(p *jsonScanner, scan func() error, errp *error) error {
	start := p.i
	p.base = start
	err := scan()
	p.base = 0
	*errp = err
	if err != nil {
		p.i = start
		return p.skip(2)
	}
	return nil
}

// isNull reports a missing or null JSON value.
func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// obj is a JSON object being read, with its JSON path for errors.
type obj struct {
	path string
	m    map[string]json.RawMessage
}

func object(path string, raw json.RawMessage) (obj, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return obj{}, fmt.Errorf("%s: want a JSON object", path)
	}
	return obj{path, m}, nil
}

func (o obj) has(key string) bool { _, ok := o.m[key]; return ok }

// typ returns the "type" field.
func (o obj) typ() (string, error) {
	raw, ok := o.m["type"]
	if !ok {
		return "", fmt.Errorf("%s.type is missing", o.path)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s.type: want a string", o.path)
	}
	return s, nil
}

// unsupported is the error for a component type the loader cannot run.
func (o obj) unsupported(typ string) error {
	return fmt.Errorf("%s.type %q is not supported", o.path, typ)
}

// get decodes key into v. A missing key is an error when required, else
// leaves v alone; null always leaves v alone.
func (o obj) get(key string, v any, required bool) error {
	raw, ok := o.m[key]
	if !ok {
		if required {
			return fmt.Errorf("%s.%s is missing", o.path, key)
		}
		return nil
	}
	if isNull(raw) {
		if required {
			return fmt.Errorf("%s.%s is null", o.path, key)
		}
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s.%s: %v", o.path, key, jsonTypeError(err))
	}
	return nil
}

// jsonTypeError shortens encoding/json's messages to what is wrong.
func jsonTypeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("want %s, found a JSON %s", te.Type, te.Value)
	}
	return err.Error()
}

// list decodes key as an array of objects.
func (o obj) list(key string) ([]obj, error) {
	var raws []json.RawMessage
	if err := o.get(key, &raws, true); err != nil {
		return nil, err
	}
	out := make([]obj, len(raws))
	for i, r := range raws {
		p := fmt.Sprintf("%s.%s[%d]", o.path, key, i)
		c, err := object(p, r)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// component counts one more component at Sequence depth depth and checks
// both against their caps (MaxComponentDepth, MaxComponents).
func (t *Tokenizer) component(o obj, depth int) error {
	if depth > MaxComponentDepth {
		return fmt.Errorf("%s: Sequences nested more than %d deep", o.path, MaxComponentDepth)
	}
	t.components++
	if t.components > MaxComponents {
		return fmt.Errorf("%s: more than %d components", o.path, MaxComponents)
	}
	return nil
}

// normalizer reads "normalizer": null, a Unicode normal form, or a
// Sequence of those (nested sequences flatten).
func (t *Tokenizer) normalizer(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	o, err := object("normalizer", raw)
	if err != nil {
		return err
	}
	return t.addNormalizer(o, 0)
}

func (t *Tokenizer) addNormalizer(o obj, depth int) error {
	if err := t.component(o, depth); err != nil {
		return err
	}
	typ, err := o.typ()
	if err != nil {
		return err
	}
	switch typ {
	case "Sequence":
		items, err := o.list("normalizers")
		if err != nil {
			return err
		}
		for _, it := range items {
			if err := t.addNormalizer(it, depth+1); err != nil {
				return err
			}
		}
		return nil
	case "NFC", "NFD", "NFKC", "NFKD":
		t.norms = append(t.norms, normForms[typ])
		return nil
	}
	return o.unsupported(typ)
}

// preTokenizer reads "pre_tokenizer": null, Split, Digits, ByteLevel or a
// Sequence of them. ByteLevel must come last: this package runs the model on
// raw bytes and applies the byte-level alphabet only at the vocabulary, so a
// step that would read byte-level text is refused rather than guessed.
func (t *Tokenizer) preTokenizer(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	o, err := object("pre_tokenizer", raw)
	if err != nil {
		return err
	}
	if err := t.addPreTokenizer(o, 0); err != nil {
		return err
	}
	for i, s := range t.steps {
		if s.kind == stepByteLevel && i != len(t.steps)-1 {
			return fmt.Errorf("%s: a pre-tokenizer after ByteLevel is not supported", s.path)
		}
	}
	if n := len(t.steps); n > 0 && t.steps[n-1].kind == stepByteLevel {
		t.byteLevel = true
	}
	return nil
}

func (t *Tokenizer) addPreTokenizer(o obj, depth int) error {
	if err := t.component(o, depth); err != nil {
		return err
	}
	typ, err := o.typ()
	if err != nil {
		return err
	}
	switch typ {
	case "Sequence":
		items, err := o.list("pretokenizers")
		if err != nil {
			return err
		}
		for _, it := range items {
			if err := t.addPreTokenizer(it, depth+1); err != nil {
				return err
			}
		}
		return nil
	case "Split":
		var pat map[string]string
		if err := o.get("pattern", &pat, true); err != nil {
			return err
		}
		var behavior string
		if err := o.get("behavior", &behavior, true); err != nil {
			return err
		}
		s := step{kind: stepSplit, path: o.path}
		if err := o.get("invert", &s.invert, true); err != nil {
			return err
		}
		b, ok := behaviors[behavior]
		if !ok {
			return fmt.Errorf("%s.behavior %q is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous", o.path, behavior)
		}
		s.behavior = b
		m, err := patternMatcher(o.path+".pattern", pat)
		if err != nil {
			return err
		}
		s.matcher = m
		t.steps = append(t.steps, s)
		return nil
	case "Digits":
		s := step{kind: stepDigits, path: o.path, behavior: contiguous}
		var individual bool
		if err := o.get("individual_digits", &individual, true); err != nil {
			return err
		}
		if individual {
			s.behavior = isolated
		}
		t.steps = append(t.steps, s)
		return nil
	case "ByteLevel":
		s := step{kind: stepByteLevel, path: o.path, useRegex: true}
		if err := o.get("add_prefix_space", &s.prefixSpace, true); err != nil {
			return err
		}
		var trim bool
		if err := o.get("trim_offsets", &trim, true); err != nil {
			return err
		}
		if err := o.get("use_regex", &s.useRegex, false); err != nil {
			return err
		}
		if s.useRegex {
			s.matcher = split.GPT2
		}
		t.steps = append(t.steps, s)
		return nil
	}
	return o.unsupported(typ)
}

var behaviors = map[string]behavior{
	"Removed":            removed,
	"Isolated":           isolated,
	"MergedWithPrevious": mergedWithPrevious,
	"MergedWithNext":     mergedWithNext,
	"Contiguous":         contiguous,
}

// patternMatcher builds the matcher of {"Regex": s} or {"String": s}.
func patternMatcher(path string, pat map[string]string) (split.Matcher, error) {
	if len(pat) != 1 {
		return nil, fmt.Errorf(`%s: want {"Regex": ...} or {"String": ...}`, path)
	}
	if s, ok := pat["String"]; ok {
		return split.Literal(s), nil
	}
	if s, ok := pat["Regex"]; ok {
		m, err := split.Regex(s)
		if err != nil {
			return nil, fmt.Errorf("%s.Regex: %v", path, err)
		}
		return m, nil
	}
	return nil, fmt.Errorf(`%s: want {"Regex": ...} or {"String": ...}`, path)
}

// postProcessor reads "post_processor": null, ByteLevel, TemplateProcessing
// or a Sequence of them. Encode works as add_special_tokens=False, so a
// template adds nothing; ByteLevel's trim_offsets applies all the same.
func (t *Tokenizer) postProcessor(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	o, err := object("post_processor", raw)
	if err != nil {
		return err
	}
	return t.addPostProcessor(o, 0)
}

func (t *Tokenizer) addPostProcessor(o obj, depth int) error {
	if err := t.component(o, depth); err != nil {
		return err
	}
	typ, err := o.typ()
	if err != nil {
		return err
	}
	switch typ {
	case "Sequence":
		items, err := o.list("processors")
		if err != nil {
			return err
		}
		for _, it := range items {
			if err := t.addPostProcessor(it, depth+1); err != nil {
				return err
			}
		}
		return nil
	case "ByteLevel":
		var trim, prefix bool
		if err := o.get("trim_offsets", &trim, true); err != nil {
			return err
		}
		if err := o.get("add_prefix_space", &prefix, true); err != nil {
			return err
		}
		if trim {
			t.trims = append(t.trims, prefix)
		}
		return nil
	case "TemplateProcessing":
		for _, k := range []string{"single", "pair", "special_tokens"} {
			if !o.has(k) {
				return fmt.Errorf("%s.%s is missing", o.path, k)
			}
		}
		return nil
	}
	return o.unsupported(typ)
}

// decoder reads "decoder": null, ByteLevel, ByteFallback, Fuse, Strip,
// Replace or a Sequence of them.
func (t *Tokenizer) decoder(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	o, err := object("decoder", raw)
	if err != nil {
		return err
	}
	t.hasDecoder = true
	return t.addDecoder(o, 0)
}

func (t *Tokenizer) addDecoder(o obj, depth int) error {
	if err := t.component(o, depth); err != nil {
		return err
	}
	typ, err := o.typ()
	if err != nil {
		return err
	}
	switch typ {
	case "Sequence":
		items, err := o.list("decoders")
		if err != nil {
			return err
		}
		for _, it := range items {
			if err := t.addDecoder(it, depth+1); err != nil {
				return err
			}
		}
		return nil
	case "ByteLevel":
		t.decoders = append(t.decoders, decoderStep{kind: decByteLevel})
		return nil
	case "ByteFallback":
		t.decoders = append(t.decoders, decoderStep{kind: decByteFallback})
		return nil
	case "Fuse":
		t.decoders = append(t.decoders, decoderStep{kind: decFuse})
		return nil
	case "Strip":
		d := decoderStep{kind: decStrip}
		var content string
		if err := o.get("content", &content, true); err != nil {
			return err
		}
		if n := len([]rune(content)); n != 1 {
			return fmt.Errorf("%s.content: want one character, found %d", o.path, n)
		}
		d.content = []rune(content)[0]
		if err := o.get("start", &d.start, true); err != nil {
			return err
		}
		if err := o.get("stop", &d.stop, true); err != nil {
			return err
		}
		if d.start < 0 || d.stop < 0 {
			return fmt.Errorf("%s: start and stop must not be negative", o.path)
		}
		t.decoders = append(t.decoders, d)
		return nil
	case "Replace":
		d := decoderStep{kind: decReplace}
		var pat map[string]string
		if err := o.get("pattern", &pat, true); err != nil {
			return err
		}
		if err := o.get("content", &d.replacement, true); err != nil {
			return err
		}
		m, err := patternMatcher(o.path+".pattern", pat)
		if err != nil {
			return err
		}
		d.matcher = m
		// Each match becomes the replacement: a literal of n bytes grows
		// by at most len(content)/n; a regex may match one byte, or the
		// empty string between two.
		g := len(d.replacement) + 1
		if lit, ok := pat["String"]; ok && lit != "" {
			g = max(1, (len(d.replacement)+len(lit)-1)/len(lit))
		}
		if t.growth == 0 {
			t.growth = 1
		}
		if t.growth > MaxDecodeGrowth/g {
			return fmt.Errorf("%s: the Replace decoders could multiply a text's length by more than %d", o.path, MaxDecodeGrowth)
		}
		t.growth *= g
		t.decoders = append(t.decoders, d)
		return nil
	}
	return o.unsupported(typ)
}

// addedToken is one entry of added_tokens.
type addedToken struct {
	id                                              int
	content                                         string
	singleWord, lstrip, rstrip, normalized, special bool
	norm                                            string // content after the normalizer, for normalized tokens
}

// addedTokens reads added_tokens and assigns ids as Hugging Face's Rust
// library does (AddedVocabulary::add_tokens): a token whose content is
// already in the model vocabulary or among earlier added tokens takes that
// id; any other takes the next free id from the vocabulary size (or past the
// largest added id) upward, whatever id the JSON gives. A JSON id that
// differs from the assigned one is reported by Warnings.
func (t *Tokenizer) addedTokens(raws []map[string]json.RawMessage) error {
	toks := make([]addedToken, 0, len(raws))
	jsonIDs := make([]int, 0, len(raws))
	for i, raw := range raws {
		o := obj{fmt.Sprintf("added_tokens[%d]", i), raw}
		var a addedToken
		if err := o.get("id", &a.id, true); err != nil {
			return err
		}
		if a.id < 0 {
			return fmt.Errorf("%s.id: must not be negative", o.path)
		}
		if err := o.get("content", &a.content, true); err != nil {
			return err
		}
		if err := checkAddedContent(o.path, a.content); err != nil {
			return err
		}
		for _, f := range []struct {
			key string
			v   *bool
		}{{"single_word", &a.singleWord}, {"lstrip", &a.lstrip}, {"rstrip", &a.rstrip}, {"normalized", &a.normalized}, {"special", &a.special}} {
			if err := o.get(f.key, f.v, true); err != nil {
				return err
			}
		}
		toks = append(toks, a)
		jsonIDs = append(jsonIDs, a.id)
	}
	t.addTokens(toks, jsonIDs, FileName+" added_tokens")
	return nil
}

// checkAddedContent caps an added token's length (MaxAddedTokenBytes):
// matching added tokens in a text costs up to the longest one's length per
// byte of text.
func checkAddedContent(path, content string) error {
	if len(content) > MaxAddedTokenBytes {
		return fmt.Errorf("%s.content: %d bytes; an added token may hold at most %d", path, len(content), MaxAddedTokenBytes)
	}
	return nil
}

// addTokens adds tokens by Hugging Face's id rule; jsonIDs are the ids the
// source file claims, for warnings.
func (t *Tokenizer) addTokens(toks []addedToken, jsonIDs []int, source string) {
	next := t.model.vocab.size()
	for _, a := range t.added {
		if a.id >= next || next == 0 {
			next = max(next, a.id+1)
		}
	}
	for i, a := range toks {
		if a.content == "" {
			continue
		}
		id, ok := t.tokenToID(a.content)
		if !ok {
			id = next
			next++
		}
		if id != jsonIDs[i] {
			t.warnings = append(t.warnings, fmt.Sprintf("%s: token %q was expected to have id %d but was given id %d", source, a.content, jsonIDs[i], id))
		}
		a.id = id
		a.norm = a.content
		if a.normalized {
			a.norm = t.normalizeString(a.content)
		}
		if j, ok := t.addedByContent[a.content]; ok {
			t.added[j] = a
		} else {
			if t.addedByContent == nil {
				t.addedByContent = map[string]int{}
			}
			t.addedByContent[a.content] = len(t.added)
			t.added = append(t.added, a)
		}
	}
}

// config reads tokenizer_config.json: added_tokens_decoder (tokens not yet
// in the tokenizer are added by the same id rule), eos_token and
// clean_up_tokenization_spaces (false when absent, as in Transformers 4.45
// and later).
func (t *Tokenizer) config(data []byte) error {
	members, err := rawObject(string(data))
	if err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	raw := make(map[string]json.RawMessage, len(members))
	for k, v := range members {
		raw[k] = json.RawMessage(v)
	}
	o := obj{"", raw}
	var decoder map[string]map[string]json.RawMessage
	if err := o.get("added_tokens_decoder", &decoder, false); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "."))
	}
	keys := make([]string, 0, len(decoder))
	for k := range decoder {
		keys = append(keys, k)
	}
	ids := make(map[string]int, len(keys))
	for _, k := range keys {
		var id int
		if _, err := fmt.Sscanf(k, "%d", &id); err != nil || fmt.Sprint(id) != k || id < 0 {
			return fmt.Errorf("added_tokens_decoder: key %q is not a token id", k)
		}
		ids[k] = id
	}
	sort.Slice(keys, func(i, j int) bool { return ids[keys[i]] < ids[keys[j]] })
	var toks []addedToken
	var jsonIDs []int
	for _, k := range keys {
		e := obj{"added_tokens_decoder." + k, decoder[k]}
		var a addedToken
		if err := e.get("content", &a.content, true); err != nil {
			return err
		}
		if err := checkAddedContent(e.path, a.content); err != nil {
			return err
		}
		for _, f := range []struct {
			key string
			v   *bool
		}{{"single_word", &a.singleWord}, {"lstrip", &a.lstrip}, {"rstrip", &a.rstrip}, {"normalized", &a.normalized}, {"special", &a.special}} {
			if err := e.get(f.key, f.v, false); err != nil {
				return err
			}
		}
		if _, ok := t.addedByContent[a.content]; ok {
			// Already an added token: only check the id.
			if id, _ := t.tokenToID(a.content); id != ids[k] {
				t.warnings = append(t.warnings, fmt.Sprintf("%s added_tokens_decoder: token %q has id %d in %s, not %d", ConfigFileName, a.content, id, FileName, ids[k]))
			}
			continue
		}
		toks = append(toks, a)
		jsonIDs = append(jsonIDs, ids[k])
	}
	t.addTokens(toks, jsonIDs, ConfigFileName+" added_tokens_decoder")

	var eos json.RawMessage
	if err := o.get("eos_token", &eos, false); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "."))
	}
	if !isNull(eos) {
		var name string
		if err := json.Unmarshal(eos, &name); err != nil {
			var tok struct {
				Content *string `json:"content"`
			}
			if err := json.Unmarshal(eos, &tok); err != nil || tok.Content == nil {
				return errors.New(`eos_token: want a string or {"content": ...}`)
			}
			name = *tok.Content
		}
		id, ok := t.tokenToID(name)
		if !ok {
			return fmt.Errorf("eos_token %q is not in the vocabulary", name)
		}
		t.eos = id
	}
	if err := o.get("clean_up_tokenization_spaces", &t.cleanUp, false); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "."))
	}
	return nil
}

// Fingerprint returns the sha256, in hex, of the tokenizer files Load
// reads at path (tokenizer.json, then tokenizer_config.json when present),
// read under the same rules as Load: regular files within the size caps.
// A manifest that records it tells one tokenizer from another.
func Fingerprint(path string) (string, error) {
	file := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file = filepath.Join(path, FileName)
	}
	data, err := readRegular(file, MaxFileBytes)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(data)
	cfg, err := readRegular(filepath.Join(filepath.Dir(file), ConfigFileName), MaxConfigBytes)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	h.Write(cfg)
	return hex.EncodeToString(h.Sum(nil)), nil
}
