package tokenizer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/beamharmony/harmony/internal/split"
	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

// deepseekPreTokenizer is DeepSeek V3's pre-tokenizer (its tokenizer.json):
// three Isolated Splits, then ByteLevel without regex. With wrap, each
// pattern is written (?:pattern), which means the same but is not a known
// pattern, so it runs on regexp2 instead of a hand-written matcher.
func deepseekPreTokenizer(wrap bool) map[string]any {
	var steps []any
	for _, p := range []string{split.PatternDeepSeekDigits, split.PatternDeepSeekCJK, split.PatternDeepSeekWords} {
		if wrap {
			p = "(?:" + p + ")"
		}
		steps = append(steps, map[string]any{"type": "Split", "pattern": map[string]any{"Regex": p}, "behavior": "Isolated", "invert": false})
	}
	steps = append(steps, map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false})
	return map[string]any{"type": "Sequence", "pretokenizers": steps}
}

var deepseekOnce struct {
	sync.Once
	fast, slow *tokenizer.Tokenizer
	err        error
}

// deepseekLike returns Beam's vocabulary and merges under DeepSeek V3's
// pre-tokenizer: on the hand-written matchers (fast) and on regexp2 (slow).
func deepseekLike(t testing.TB) (fast, slow *tokenizer.Tokenizer) {
	t.Helper()
	deepseekOnce.Do(func() {
		dir, err := tokgen.BeamDir()
		if err != nil {
			deepseekOnce.err = err
			return
		}
		data, err := os.ReadFile(filepath.Join(dir, tokenizer.FileName))
		if err != nil {
			deepseekOnce.err = err
			return
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(data, &doc); err != nil {
			deepseekOnce.err = err
			return
		}
		build := func(wrap bool) *tokenizer.Tokenizer {
			pre, err := json.Marshal(deepseekPreTokenizer(wrap))
			if err != nil {
				deepseekOnce.err = err
				return nil
			}
			doc["pre_tokenizer"] = pre
			out, err := json.Marshal(doc)
			if err != nil {
				deepseekOnce.err = err
				return nil
			}
			tk, err := tokenizer.New(out, nil)
			if err != nil {
				deepseekOnce.err = err
			}
			return tk
		}
		deepseekOnce.fast, deepseekOnce.slow = build(false), build(true)
	})
	if deepseekOnce.err != nil {
		t.Fatal(deepseekOnce.err)
	}
	return deepseekOnce.fast, deepseekOnce.slow
}

// TestDeepSeekPreTokenizer: under DeepSeek V3's pre-tokenizer on the
// hand-written matchers (its Splits run as found), Encode and AppendEncode
// give the ids and offsets of the same patterns on regexp2 (the general
// pre-tokenizer, with lists of matches), on the corpus and on random texts
// of tricky characters.
func TestDeepSeekPreTokenizer(t *testing.T) {
	fast, slow := deepseekLike(t)
	texts := append(tokgen.Texts(), tokgen.RandomTexts(2000, 7)...)
	texts = append(texts, strings.Repeat("日本語のテキスト123456 αβγ 🙂 ", 50))
	diffs := 0
	for _, s := range texts {
		wantEnc := slow.Encode(s)
		want := wantEnc.IDs
		got := fast.Encode(s)
		if !slices.Equal(got.IDs, want) {
			if diffs++; diffs <= 5 {
				t.Errorf("Encode(%q) = %v, on regexp2 %v", clip(s), clipIDs(got.IDs), clipIDs(want))
			}
			continue
		}
		if !slices.Equal(got.Offsets, wantEnc.Offsets) || !slices.Equal(got.ByteOffsets, wantEnc.ByteOffsets) {
			if diffs++; diffs <= 5 {
				t.Errorf("Encode(%q) offsets = %v, on regexp2 %v", clip(s), clipOffsets(got.Offsets), clipOffsets(wantEnc.Offsets))
			}
			continue
		}
		if got := fast.AppendEncode(nil, s); !slices.Equal(got, want) {
			if diffs++; diffs <= 5 {
				t.Errorf("AppendEncode(%q) = %v, on regexp2 %v", clip(s), clipIDs(got), clipIDs(want))
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d texts differ", diffs, len(texts))
	}
	// The pieces are DeepSeek's: digits by three, CJK apart from Latin.
	if got, want := fast.AppendEncode(nil, "12345日本x"), slices.Concat(fast.AppendEncode(nil, "123"), fast.AppendEncode(nil, "45"), fast.AppendEncode(nil, "日本"), fast.AppendEncode(nil, "x")); !slices.Equal(got, want) {
		t.Errorf("12345日本x: %v, want %v", got, want)
	}
}
