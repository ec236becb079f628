package tokenizer_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/tokenizer"
)

// tiny returns a minimal tokenizer.json with its parts replaced.
func tiny(t *testing.T, parts map[string]any) []byte {
	t.Helper()
	doc := map[string]any{
		"version":        "1.0",
		"added_tokens":   []any{},
		"normalizer":     nil,
		"pre_tokenizer":  map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": true},
		"post_processor": nil,
		"decoder":        map[string]any{"type": "ByteLevel"},
		"model": map[string]any{"type": "BPE", "vocab": map[string]int{"a": 0, "b": 1, "ab": 2, "Ġ": 3},
			"merges": []string{"a b"}},
	}
	for k, v := range parts {
		doc[k] = v
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func model(extra map[string]any) map[string]any {
	m := map[string]any{"type": "BPE", "vocab": map[string]int{"a": 0, "b": 1, "ab": 2, "Ġ": 3}, "merges": []string{"a b"}}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// TestLoadErrors: what the loader cannot run exactly is an error naming the
// component and its JSON path, never a guess.
func TestLoadErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		parts map[string]any
		want  string
	}{
		{"model type", map[string]any{"model": map[string]any{"type": "WordPiece"}}, `tokenizer.json: model.type "WordPiece" is not supported`},
		{"unigram", map[string]any{"model": map[string]any{"type": "Unigram"}}, `tokenizer.json: model.type "Unigram" is not supported`},
		{"no model", map[string]any{"model": nil}, `tokenizer.json: model is missing`},
		{"normalizer", map[string]any{"normalizer": map[string]any{"type": "Lowercase"}}, `tokenizer.json: normalizer.type "Lowercase" is not supported`},
		{"nested normalizer", map[string]any{"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{map[string]any{"type": "NFC"}, map[string]any{"type": "Precompiled"}}}},
			`tokenizer.json: normalizer.normalizers[1].type "Precompiled" is not supported`},
		{"metaspace", map[string]any{"pre_tokenizer": map[string]any{"type": "Metaspace"}}, `tokenizer.json: pre_tokenizer.type "Metaspace" is not supported`},
		{"whitespace in sequence", map[string]any{"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{map[string]any{"type": "Whitespace"}}}},
			`tokenizer.json: pre_tokenizer.pretokenizers[0].type "Whitespace" is not supported`},
		{"byte level not last", map[string]any{"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false}, map[string]any{"type": "Digits", "individual_digits": true}}}},
			`tokenizer.json: pre_tokenizer.pretokenizers[0]: a pre-tokenizer after ByteLevel is not supported`},
		{"split behavior", map[string]any{"pre_tokenizer": map[string]any{"type": "Split", "pattern": map[string]any{"String": " "}, "behavior": "Sideways", "invert": false}},
			`tokenizer.json: pre_tokenizer.behavior "Sideways" is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous`},
		{"split invert missing", map[string]any{"pre_tokenizer": map[string]any{"type": "Split", "pattern": map[string]any{"String": " "}, "behavior": "Isolated"}},
			`tokenizer.json: pre_tokenizer.invert is missing`},
		{"split pattern", map[string]any{"pre_tokenizer": map[string]any{"type": "Split", "pattern": map[string]any{"Glob": "*"}, "behavior": "Isolated", "invert": false}},
			`tokenizer.json: pre_tokenizer.pattern: want {"Regex": ...} or {"String": ...}`},
		{"post processor", map[string]any{"post_processor": map[string]any{"type": "BertProcessing"}}, `tokenizer.json: post_processor.type "BertProcessing" is not supported`},
		{"decoder", map[string]any{"decoder": map[string]any{"type": "Metaspace"}}, `tokenizer.json: decoder.type "Metaspace" is not supported`},
		{"decoder in sequence", map[string]any{"decoder": map[string]any{"type": "Sequence", "decoders": []any{map[string]any{"type": "ByteFallback"}, map[string]any{"type": "WordPiece"}}}},
			`tokenizer.json: decoder.decoders[1].type "WordPiece" is not supported`},
		{"merge out of vocabulary", map[string]any{"model": model(map[string]any{"merges": []string{"a c"}})}, `tokenizer.json: model.merges[0]: token "c" is not in model.vocab`},
		{"merged token out of vocabulary", map[string]any{"model": model(map[string]any{"merges": []string{"a b", "b a"}})}, `tokenizer.json: model.merges[1]: merged token "ba" is not in model.vocab`},
		{"bad merge line", map[string]any{"model": model(map[string]any{"merges": []string{"a b c"}})}, `tokenizer.json: model.merges[0]: "a b c" is not two tokens separated by one space`},
		{"mixed merge forms", map[string]any{"model": model(map[string]any{"merges": []any{"a b", []string{"a", "b"}}})}, `tokenizer.json: model.merges[1]: mixes the "a b" and ["a", "b"] forms`},
		{"merge pair of three", map[string]any{"model": model(map[string]any{"merges": []any{[]string{"a", "b", "c"}}})}, `tokenizer.json: model.merges[0]: byte 9: found ',', want ']' (a merge pair has exactly 2 strings)`},
		{"negative id", map[string]any{"model": model(map[string]any{"vocab": map[string]int{"a": -1}})}, `tokenizer.json: model.vocab: byte 5: id "-1" is not an integer from 0 to 2147483647`},
		{"unk not in vocabulary", map[string]any{"model": model(map[string]any{"unk_token": "<unk>"})}, `tokenizer.json: model.unk_token "<unk>" is not in model.vocab`},
		{"dropout", map[string]any{"model": model(map[string]any{"dropout": 0.1})}, `tokenizer.json: model.dropout 0.1 is not supported (BPE dropout is random)`},
		{"added token key missing", map[string]any{"added_tokens": []any{map[string]any{"id": 4, "content": "<x>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false}}},
			`tokenizer.json: added_tokens[0].special is missing`},
		{"added token type", map[string]any{"added_tokens": []any{map[string]any{"id": "4", "content": "<x>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}}},
			`tokenizer.json: added_tokens[0].id: want int, found a JSON string`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := tokenizer.New(tiny(t, c.parts), nil)
			if err == nil || err.Error() != c.want {
				t.Errorf("error = %v\n want %s", err, c.want)
			}
		})
	}
	_, err := tokenizer.New([]byte(`[1, 2]`), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "tokenizer.json: not a JSON object") {
		t.Errorf("array: %v", err)
	}
	_, err = tokenizer.New(tiny(t, nil), []byte(`{"eos_token": "<nope>"}`))
	if err == nil || err.Error() != `tokenizer_config.json: eos_token "<nope>" is not in the vocabulary` {
		t.Errorf("eos: %v", err)
	}
}

// TestAddedTokenIDs: Hugging Face's Rust library assigns an added token the
// id of its content when the vocabulary (or an earlier added token) has it,
// and otherwise the next id from the vocabulary size, whatever the JSON
// says; a differing JSON id is a warning.
func TestAddedTokenIDs(t *testing.T) {
	added := []any{
		map[string]any{"id": 10, "content": "<x>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
		map[string]any{"id": 2, "content": "ab", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": false},
		map[string]any{"id": 12, "content": "<y>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": false},
		map[string]any{"id": 13, "content": "<x>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
	}
	tk, err := tokenizer.New(tiny(t, map[string]any{"added_tokens": added}), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tok string
		id  int
	}{{"<x>", 4}, {"ab", 2}, {"<y>", 5}} {
		if id, _ := tk.TokenToID(c.tok); id != c.id {
			t.Errorf("TokenToID(%q) = %d, want %d", c.tok, id, c.id)
		}
	}
	want := []string{
		`tokenizer.json added_tokens: token "<x>" was expected to have id 10 but was given id 4`,
		`tokenizer.json added_tokens: token "<y>" was expected to have id 12 but was given id 5`,
		`tokenizer.json added_tokens: token "<x>" was expected to have id 13 but was given id 4`,
	}
	if got := tk.Warnings(); !slices.Equal(got, want) {
		t.Errorf("Warnings() =\n%q\nwant\n%q", got, want)
	}
	if got := tk.Encode("a<x>ab").IDs; !slices.Equal(got, []int{0, 4, 2}) {
		t.Errorf("Encode = %v, want [0 4 2]", got)
	}
	// tokenizer_config.json adds what tokenizer.json lacks, by the same rule.
	cfg := `{"added_tokens_decoder": {"4": {"content": "<x>", "special": true}, "9": {"content": "<z>", "special": true}}, "eos_token": {"content": "<z>"}}`
	tk, err = tokenizer.New(tiny(t, map[string]any{"added_tokens": added}), []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := tk.TokenToID("<z>"); id != 6 {
		t.Errorf("<z> = %d, want 6", id)
	}
	if eos, ok := tk.EOS(); !ok || eos != 6 {
		t.Errorf("EOS() = %d, %v", eos, ok)
	}
}

// TestLoadOnePass: the loader reads the model's vocabulary and merges in
// its one pass over the file, wherever they stand: merges before the
// vocabulary, a repeated "model" (the last counts) and a repeated token
// (its last id counts, as a JSON object read into a map), tokens and merges
// written with escapes, a token outside the byte-level alphabet.
func TestLoadOnePass(t *testing.T) {
	doc := `{"model": {"type": "BPE", "vocab": {}, "merges": []},
		"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": true},
		"decoder": {"type": "ByteLevel"},
		"model": {"type": "BPE", "merges": [["\u0061", "b"], ["ab", "c"]],
			"vocab": {"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 9, "abc": 4, "\"": 5, "日": 6, "x\\y": 7}}}`
	tk, err := tokenizer.New([]byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tok string
		id  int
	}{{"a", 0}, {"abc", 4}, {`"`, 5}, {"日", 6}, {`x\y`, 7}} {
		if id, ok := tk.TokenToID(c.tok); !ok || id != c.id {
			t.Errorf("TokenToID(%q) = %d, %v; want %d", c.tok, id, ok, c.id)
		}
	}
	if tok, ok := tk.IDToToken(9); ok {
		t.Errorf("IDToToken(9) = %q: the id the repeated token lost has no token", tok)
	}
	if tok, _ := tk.IDToToken(4); tok != "abc" {
		t.Errorf("IDToToken(4) = %q, want abc", tok)
	}
	if n := tk.VocabSize(); n != 8 {
		t.Errorf("VocabSize() = %d, want 8", n)
	}
	for text, want := range map[string][]int{"abc": {4}, `ab"`: {2, 5}, "ba": {1, 0}} {
		if got := tk.Encode(text).IDs; !slices.Equal(got, want) {
			t.Errorf("Encode(%q) = %v, want %v", text, got, want)
		}
		if got := tk.AppendEncode(nil, text); !slices.Equal(got, want) {
			t.Errorf("AppendEncode(%q) = %v, want %v", text, got, want)
		}
	}
	// A merge that names a missing token is reported before a malformed
	// merge after it, as a reader merging as it goes would.
	_, err = tokenizer.New(tiny(t, map[string]any{"model": model(map[string]any{"merges": []any{"a b", "a c", 5}})}), nil)
	if want := `tokenizer.json: model.merges[1]: token "c" is not in model.vocab`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	_, err = tokenizer.New(tiny(t, map[string]any{"model": model(map[string]any{"merges": []any{"a b", 5}})}), nil)
	if want := `tokenizer.json: model.merges[1]: mixes the "a b" and ["a", "b"] forms`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}
