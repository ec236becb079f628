package tokenizer_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/tokenizer"
)

// nested returns a component of type Sequence nested depth times around
// leaf, under key (normalizers, pretokenizers, processors, decoders).
func nested(key string, depth int, leaf map[string]any) map[string]any {
	c := leaf
	for range depth {
		c = map[string]any{"type": "Sequence", key: []any{c}}
	}
	return c
}

// TestLoadHostile: small hostile files are refused at load with an error
// naming what is wrong, before they can allocate, recurse or run without
// bound (issue 17). Each case loaded, or crashed the process, before.
func TestLoadHostile(t *testing.T) {
	doubling := map[string]any{"type": "Replace", "pattern": map[string]any{"String": "a"}, "content": "aa"}
	var doublings []any
	for range 40 {
		doublings = append(doublings, doubling)
	}
	many := make([]any, tokenizer.MaxComponents+1)
	for i := range many {
		many[i] = map[string]any{"type": "NFC"}
	}
	added := func(content string) []any {
		return []any{map[string]any{"id": 4, "content": content, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}}
	}
	for _, c := range []struct {
		name  string
		parts map[string]any
		want  string
	}{
		{"a vocabulary id far past the vocabulary", map[string]any{"model": model(map[string]any{"vocab": map[string]int{"a": 0, "b": 1, "ab": 2, "Ġ": 2147483646}})},
			"tokenizer.json: model.vocab: id 2147483646 is far past the vocabulary's 4 entries (at most 65544)"},
		{"40 doubling Replace decoders", map[string]any{"decoder": map[string]any{"type": "Sequence", "decoders": doublings}},
			"tokenizer.json: decoder.decoders[6]: the Replace decoders could multiply a text's length by more than 64"},
		{"a regex Replace counts as growth by its content", map[string]any{"decoder": map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": "."}, "content": strings.Repeat("x", 64)}},
			"tokenizer.json: decoder: the Replace decoders could multiply a text's length by more than 64"},
		{"Sequences nested too deep", map[string]any{"normalizer": nested("normalizers", tokenizer.MaxComponentDepth+1, map[string]any{"type": "NFC"})},
			"tokenizer.json: normalizer" + strings.Repeat(".normalizers[0]", tokenizer.MaxComponentDepth+1) + ": Sequences nested more than 16 deep"},
		{"too many components", map[string]any{"normalizer": map[string]any{"type": "Sequence", "normalizers": many}},
			"tokenizer.json: normalizer.normalizers[255]: more than 256 components"},
		{"a 100 KB added token", map[string]any{"added_tokens": added(strings.Repeat("a", 100_000))},
			"tokenizer.json: added_tokens[0].content: 100000 bytes; an added token may hold at most 256"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := tokenizer.New(tiny(t, c.parts), nil)
			if err == nil || err.Error() != c.want {
				t.Errorf("error = %v\n want %s", err, c.want)
			}
		})
	}
	// Within the caps, the same components load.
	for _, parts := range []map[string]any{
		{"decoder": map[string]any{"type": "Sequence", "decoders": doublings[:6]}},
		{"decoder": map[string]any{"type": "Replace", "pattern": map[string]any{"String": "▁"}, "content": " "}},
		{"normalizer": nested("normalizers", tokenizer.MaxComponentDepth, map[string]any{"type": "NFC"})},
		{"added_tokens": added(strings.Repeat("a", tokenizer.MaxAddedTokenBytes))},
	} {
		if _, err := tokenizer.New(tiny(t, parts), nil); err != nil {
			t.Errorf("%v: %v", parts, err)
		}
	}
}

// TestLoadDeepJSON: arrays nested past MaxJSONDepth are refused, also in a
// key the loader ignores (40 MB of "[" there overflowed the stack) and in
// tokenizer_config.json.
func TestLoadDeepJSON(t *testing.T) {
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(tiny(t, nil), &doc); err != nil {
		t.Fatal(err)
	}
	// encoding/json would refuse to write the deep value: splice it in.
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	src := `{"truncation": ` + deep + `, ` + string(data[1:])
	_, err = tokenizer.New([]byte(src), nil)
	if err == nil || !strings.Contains(err.Error(), "nested more than 128 deep") {
		t.Errorf("tokenizer.json: error = %v", err)
	}
	_, err = tokenizer.New(tiny(t, nil), []byte(`{"chat_template": `+deep+`}`))
	if err == nil || !strings.Contains(err.Error(), "tokenizer_config.json: not a JSON object: ") || !strings.Contains(err.Error(), "nested more than 128 deep") {
		t.Errorf("tokenizer_config.json: error = %v", err)
	}
	// The depth of a real file loads.
	ok := strings.Repeat("[", tokenizer.MaxJSONDepth-1) + strings.Repeat("]", tokenizer.MaxJSONDepth-1)
	if _, err := tokenizer.New([]byte(`{"truncation": `+ok+`, `+string(data[1:])), nil); err != nil {
		t.Errorf("depth %d: %v", tokenizer.MaxJSONDepth, err)
	}
}
