package tokenizer_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

var beamOnce struct {
	sync.Once
	tk  *tokenizer.Tokenizer
	err error
}

// beam loads Beam's generated tokenizer once per test binary.
func beam(t testing.TB) *tokenizer.Tokenizer {
	t.Helper()
	beamOnce.Do(func() {
		dir, err := tokgen.BeamDir()
		if err != nil {
			beamOnce.err = err
			return
		}
		beamOnce.tk, beamOnce.err = tokenizer.Load(dir)
	})
	if beamOnce.err != nil {
		t.Fatal(beamOnce.err)
	}
	return beamOnce.tk
}

func load(t testing.TB, name string) *tokenizer.Tokenizer {
	t.Helper()
	tk, err := tokenizer.Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

type encodeCase struct {
	name    string
	text    string
	ids     []int
	offsets [][2]int // characters
	bytes   [][2]int // nil: equal to offsets (ASCII text)
}

func checkEncode(t *testing.T, tk *tokenizer.Tokenizer, cases []encodeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := tk.Encode(c.text)
			if !slices.Equal(e.IDs, c.ids) {
				t.Errorf("ids = %v, want %v", e.IDs, c.ids)
			}
			if !slices.Equal(e.Offsets, c.offsets) {
				t.Errorf("offsets = %v, want %v", e.Offsets, c.offsets)
			}
			want := c.bytes
			if want == nil {
				want = c.offsets
			}
			if !slices.Equal(e.ByteOffsets, want) {
				t.Errorf("byte offsets = %v, want %v", e.ByteOffsets, want)
			}
		})
	}
}

// TestEncodeBeam checks ids (tiktoken's o200k ids, as the research notes
// and js-tiktoken give them) and offsets worked out by hand from Hugging
// Face's rules: no trimming (TikTokenConverter's trim_offsets=false), and a
// multi-byte character split across tokens gives each of them its span.
func TestEncodeBeam(t *testing.T) {
	checkEncode(t, beam(t), []encodeCase{
		{"ascii", "Hello, world!", []int{13225, 11, 2375, 0}, [][2]int{{0, 5}, {5, 6}, {6, 12}, {12, 13}}, nil},
		{"cjk", "日本語のテキスト", []int{9048, 40909, 3385, 16056, 18368, 38236},
			[][2]int{{0, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 8}}, [][2]int{{0, 6}, {6, 9}, {9, 12}, {12, 15}, {15, 18}, {18, 24}}},
		{"emoji one token", "a🙂b", []int{64, 37459, 65}, [][2]int{{0, 1}, {1, 2}, {2, 3}}, [][2]int{{0, 1}, {1, 5}, {5, 6}}},
		{"spaces belong to tokens", "  two  spaces ", []int{220, 1920, 220, 18608, 220},
			[][2]int{{0, 1}, {1, 5}, {5, 6}, {6, 13}, {13, 14}}, nil},
		{"markers are single tokens", "<|start|>user<|message|>Hi<|end|>x<|return|>", []int{199998, 1428, 200001, 12194, 200002, 87, 200004},
			[][2]int{{0, 9}, {9, 13}, {13, 24}, {24, 26}, {26, 33}, {33, 34}, {34, 44}}, nil},
		{"marker after space", "one <|start|> two", []int{690, 220, 199998, 1920}, [][2]int{{0, 3}, {3, 4}, {4, 13}, {13, 17}}, nil},
		{"empty", "", []int{}, [][2]int{}, nil},
	})
}

// TestSplitCharacter: a character whose bytes go to several tokens gives
// each of them the character's whole span (Hugging Face's alignments), so
// spans overlap; CharToToken finds the first.
func TestSplitCharacter(t *testing.T) {
	tk := beam(t)
	// U+1F9EC (🧬) is not one o200k token: its four bytes split in two.
	e := tk.Encode("x🧬y")
	if len(e.IDs) < 4 {
		t.Fatalf("ids = %v: want the emoji in at least two tokens", e.IDs)
	}
	for i := 1; i < len(e.IDs)-1; i++ {
		if e.Offsets[i] != [2]int{1, 2} || e.ByteOffsets[i] != [2]int{1, 5} {
			t.Errorf("token %d: offsets %v / bytes %v, want [1 2] / [1 5]", i, e.Offsets[i], e.ByteOffsets[i])
		}
	}
	if got := e.CharToToken(1); got != 1 {
		t.Errorf("CharToToken(1) = %d, want 1 (the first token of the emoji)", got)
	}
	if got := e.CharToToken(2); got != len(e.IDs)-1 {
		t.Errorf("CharToToken(2) = %d, want %d", got, len(e.IDs)-1)
	}
	if got := e.CharToToken(3); got != -1 {
		t.Errorf("CharToToken(3) = %d, want -1", got)
	}
	if s := tk.Decode(e.IDs, false); s != "x🧬y" {
		t.Errorf("Decode = %q", s)
	}
}

// TestEncodeGPT2 checks the RoBERTa-style rules of the small GPT-2 fixture
// (add_prefix_space, trim_offsets) and its added tokens (lstrip, rstrip,
// single_word), each worked out by hand:
//   - the ByteLevel pre-tokenizer puts a space before every piece of text
//     between added tokens that does not start with one; that space takes
//     the span of the character it precedes;
//   - trim_offsets cuts leading and trailing spaces ('Ġ' or white space) of
//     each token's string from its span, except a single leading one of
//     the first token; a token made only of a space ends up empty;
//   - an lstrip/rstrip token's string holds the white space it absorbed,
//     so trimming cuts it again.
func TestEncodeGPT2(t *testing.T) {
	tk := load(t, "gpt2")
	id := func(s string) int {
		i, ok := tk.TokenToID(s)
		if !ok {
			t.Fatalf("no token %q", s)
		}
		return i
	}
	checkEncode(t, tk, []encodeCase{
		// " hello" " world": the first keeps its added space, the second loses its own.
		{"prefix space", "hello world", []int{id("Ġhello"), id("Ġworld")}, [][2]int{{0, 5}, {6, 11}}, nil},
		// "  two": pieces " " and " two"; the lone space token trims to nothing.
		{"leading spaces", "  two", []int{id("Ġ"), id("Ġt"), id("w"), id("o")}, [][2]int{{0, 0}, {2, 3}, {3, 4}, {4, 5}}, nil},
		// "<mask>" takes the space before it (lstrip): its string " <mask>" spans
		// [1, 8), trimmed to [2, 8); " b" is "Ġ" (trimmed empty) and "b".
		{"lstrip", "a <mask> b", []int{id("Ġa"), id("<mask>"), id("Ġ"), id("b")}, [][2]int{{0, 1}, {2, 8}, {9, 9}, {9, 10}}, nil},
		// "<sep>" takes the spaces after it (rstrip): "<sep>  " spans [0, 7),
		// trimmed to [0, 5); "x" gets a prefix space aligned with it, which is
		// not the first token, so it is trimmed: [8, 8).
		{"rstrip", "<sep>  x", []int{id("<sep>"), id("Ġ"), id("x")}, [][2]int{{0, 5}, {8, 8}, {7, 8}}, nil},
		// single_word: "x[WORD]" has a word character before it, so it is text.
		{"single word", "x[WORD] [WORD] y", []int{id("Ġ"), id("x"), id("["), id("W"), id("O"), id("R"), id("D"), id("]"), id("Ġ"), id("[WORD]"), id("Ġ"), id("y")},
			[][2]int{{0, 0}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {8, 8}, {8, 14}, {15, 15}, {15, 16}}, nil},
		// A two-byte character split in two tokens after the prefix space.
		{"split character", "ŋ", []int{id("Ġ"), id("Å"), id("ĭ")}, [][2]int{{0, 0}, {0, 1}, {0, 1}}, [][2]int{{0, 0}, {0, 2}, {0, 2}}},
		// <|endoftext|> is in the vocabulary: the added token has its id.
		{"added token in vocabulary", "<|endoftext|>", []int{id("<|endoftext|>")}, [][2]int{{0, 13}}, nil},
	})
	if e := tk.Encode("a <mask> b"); e.CharToToken(1) != -1 || e.CharToToken(2) != 1 || e.CharToToken(8) != -1 {
		t.Errorf("CharToToken around <mask>: %d %d %d, want -1 1 -1", e.CharToToken(1), e.CharToToken(2), e.CharToToken(8))
	}
}

// TestEncodeLlama3: NFC normalization (a decomposed é becomes the composed
// token, aligned with the e it replaces), digits one by one, and the special
// tokens.
func TestEncodeLlama3(t *testing.T) {
	tk := load(t, "llama3")
	id := func(s string) int {
		i, ok := tk.TokenToID(s)
		if !ok {
			t.Fatalf("no token %q", s)
		}
		return i
	}
	checkEncode(t, tk, []encodeCase{
		{"nfc", "e\u0301x", []int{id("Ã©"), id("x")}, [][2]int{{0, 1}, {2, 3}}, [][2]int{{0, 1}, {3, 4}}},
		{"digits", "2024", []int{id("2"), id("0"), id("2"), id("4")}, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}}, nil},
		{"special", "<|begin_of_text|>hello<|eot_id|>", []int{id("<|begin_of_text|>"), id("hello"), id("<|eot_id|>")}, [][2]int{{0, 17}, {17, 22}, {22, 32}}, nil},
	})
	if eos, ok := tk.EOS(); !ok || eos != id("<|eot_id|>") {
		t.Errorf("EOS() = %d, %v", eos, ok)
	}
}

// TestEncodeUnk: continuing_subword_prefix, end_of_word_suffix, unk_token
// with fuse_unk, and a Split that removes white space, by Hugging Face's
// merge_word: "##" before every character but a word's first, "</w>" after
// its last, characters missing from the vocabulary become one <unk> per run.
func TestEncodeUnk(t *testing.T) {
	tk := load(t, "unk")
	id := func(s string) int {
		i, ok := tk.TokenToID(s)
		if !ok {
			t.Fatalf("no token %q", s)
		}
		return i
	}
	unk := id("<unk>")
	checkEncode(t, tk, []encodeCase{
		{"words", "hello world", []int{id("hello</w>"), id("wor"), id("##l"), id("##d</w>")}, [][2]int{{0, 5}, {6, 9}, {9, 10}, {10, 11}}, nil},
		{"fused unk", "日本語", []int{unk}, [][2]int{{0, 3}}, [][2]int{{0, 9}}},
		// The inverted \w+ split isolates "🙂" between "a" and "b"; "a</w>" is
		// not in the vocabulary either, so each piece is one <unk>.
		{"unk per piece", "a🙂b", []int{unk, unk, unk}, [][2]int{{0, 1}, {1, 2}, {2, 3}}, [][2]int{{0, 1}, {1, 5}, {5, 6}}},
	})
}

// TestEncodeOrdinary: marker text is encoded as ordinary text.
func TestEncodeOrdinary(t *testing.T) {
	tk := beam(t)
	text := "<|start|>user<|message|>Hi"
	e := tk.EncodeOrdinary(text)
	for _, id := range e.IDs {
		if id >= tokgen.O200kVocabSize {
			t.Fatalf("EncodeOrdinary gave marker id %d: %v", id, e.IDs)
		}
	}
	if s := tk.Decode(e.IDs, false); s != text {
		t.Errorf("Decode = %q", s)
	}
	if got := tk.AppendEncodeOrdinary([]int{7}, text); !slices.Equal(got, append([]int{7}, e.IDs...)) {
		t.Errorf("AppendEncodeOrdinary = %v, want 7 then %v", got, e.IDs)
	}
	if got, want := tk.AppendEncode(nil, text), tk.Encode(text).IDs; !slices.Equal(got, want) {
		t.Errorf("AppendEncode = %v, Encode %v", got, want)
	}
}

// TestMarkers: Beam's markers have contiguous ids after the vocabulary;
// only <|return|>, the EOS, is special.
func TestMarkers(t *testing.T) {
	tk := beam(t)
	for i, m := range tokgen.Markers {
		id, ok := tk.TokenToID(m)
		if !ok || id != tokgen.O200kVocabSize+i {
			t.Errorf("TokenToID(%q) = %d, %v, want %d", m, id, ok, tokgen.O200kVocabSize+i)
		}
		if tok, _ := tk.IDToToken(id); tok != m {
			t.Errorf("IDToToken(%d) = %q", id, tok)
		}
		if got := tk.IsSpecial(id); got != (m == "<|return|>") {
			t.Errorf("IsSpecial(%q) = %v", m, got)
		}
	}
	if eos, ok := tk.EOS(); !ok || eos != tokgen.O200kVocabSize+6 {
		t.Errorf("EOS() = %d, %v", eos, ok)
	}
	if n := tk.VocabSize(); n != tokgen.O200kVocabSize+len(tokgen.Markers) {
		t.Errorf("VocabSize() = %d", n)
	}
	if w := tk.Warnings(); len(w) != 0 {
		t.Errorf("Warnings() = %q", w)
	}
	ids := tk.Encode("<|start|>assistant<|channel|>final<|message|>4<|return|>").IDs
	if s := tk.Decode(ids, true); s != "<|start|>assistant<|channel|>final<|message|>4" {
		t.Errorf("Decode(skip special) = %q: markers other than <|return|> must stay", s)
	}
}

// TestLongWord: one 1 MB word (no split point) encodes, through the heap
// merge, and decodes back.
func TestLongWord(t *testing.T) {
	tk := beam(t)
	for _, unit := range []string{"a", "ab", "日", "🧬"} {
		text := strings.Repeat(unit, 1<<20/len(unit))
		e := tk.Encode(text)
		if len(e.IDs) == 0 || len(e.IDs) >= len(text) && unit != "🧬" {
			t.Errorf("%q x %d: %d tokens", unit, len(text)/len(unit), len(e.IDs))
		}
		if s := tk.Decode(e.IDs, false); s != text {
			t.Errorf("%q x %d: decoding differs", unit, len(text)/len(unit))
		}
		if last := e.Offsets[len(e.Offsets)-1]; last[1] != len([]rune(text)) {
			t.Errorf("%q: last offset %v", unit, last)
		}
	}
}

// TestConcurrent: one tokenizer used from many goroutines gives each the
// same result (run with -race).
func TestConcurrent(t *testing.T) {
	tk := beam(t)
	texts := tokgen.Texts()[:200]
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = tk.Encode(s).IDs
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := range texts {
				i := (k + g*25) % len(texts)
				if got := tk.AppendEncode(nil, texts[i]); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("goroutine %d, text %d: %v, want %v", g, i, got, want[i])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestEncodeBatch: EncodeBatch and EncodeOrdinaryBatch give, text by
// text and in order, AppendEncode's and AppendEncodeOrdinary's ids, on one
// goroutine and on several (run with -race).
func TestEncodeBatch(t *testing.T) {
	tk := beam(t)
	texts := tokgen.Texts()
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			got, ord := tk.EncodeBatch(texts), tk.EncodeOrdinaryBatch(texts)
			if len(got) != len(texts) || len(ord) != len(texts) {
				t.Fatalf("%d and %d results for %d texts", len(got), len(ord), len(texts))
			}
			for i, s := range texts {
				if want := tk.AppendEncode(nil, s); !slices.Equal(got[i], want) {
					t.Errorf("EncodeBatch: text %d (%q): %v, want %v", i, clip(s), clipIDs(got[i]), clipIDs(want))
				}
				if want := tk.AppendEncodeOrdinary(nil, s); !slices.Equal(ord[i], want) {
					t.Errorf("EncodeOrdinaryBatch: text %d (%q): %v, want %v", i, clip(s), clipIDs(ord[i]), clipIDs(want))
				}
			}
		})
	}
	if got := tk.EncodeBatch(nil); len(got) != 0 {
		t.Errorf("EncodeBatch(nil) = %v", got)
	}
}

// TestEncodeBatchConcurrent: batches called from several goroutines at
// once, on two tokenizers, give each text's ids: the goroutines a batch
// leaves lingering take jobs of whichever batch comes next, with a state
// of its own tokenizer, and never reuse a state whose spans an earlier
// batch has still to join (run with -race). Once the calls stop, the
// lingering goroutines exit.
func TestEncodeBatchConcurrent(t *testing.T) {
	beamTok := beam(t)
	gpt2, err := tokenizer.Load("testdata/gpt2/tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	corpus := tokgen.Texts()
	long := strings.Join(corpus, "\n")[:24<<10]
	texts := []string{long, long[len(long)/3:], "short", long[:len(long)/2]}
	toks := []*tokenizer.Tokenizer{beamTok, gpt2}
	want := make([][][]int, len(toks))
	for k, tk := range toks {
		for _, s := range texts {
			want[k] = append(want[k], tk.AppendEncodeOrdinary(nil, s))
		}
	}
	before := runtime.NumGoroutine()
	for _, procs := range []int{2, 4} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			var wg sync.WaitGroup
			for c := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := range 8 {
						k := (c + n) % len(toks)
						got := toks[k].EncodeOrdinaryBatch(texts[n%2:])
						for i, ids := range got {
							if !slices.Equal(ids, want[k][n%2+i]) {
								t.Errorf("caller %d, batch %d, tokenizer %d: text %d: %v, want %v",
									c, n, k, n%2+i, clipIDs(ids), clipIDs(want[k][n%2+i]))
								return
							}
						}
					}
				}()
			}
			wg.Wait()
		})
	}
	// Lingering goroutines poll for a fraction of a millisecond; allow
	// them far longer on a loaded machine.
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left after the batches, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLoadPaths: a directory or the file itself; errors name the path.
func TestLoadPaths(t *testing.T) {
	if _, err := tokenizer.Load("testdata/gpt2/tokenizer.json"); err != nil {
		t.Errorf("Load(file): %v", err)
	}
	dir := t.TempDir()
	if _, err := tokenizer.Load(dir); err == nil || !strings.Contains(err.Error(), "no tokenizer.json") {
		t.Errorf("Load(empty dir) = %v", err)
	}
	if _, err := tokenizer.Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("Load(missing file) succeeded")
	}
	bad := filepath.Join(dir, "bad")
	os.Mkdir(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "tokenizer.json"), []byte(`{"model": {"type": "WordPiece"}}`), 0o644)
	_, err := tokenizer.Load(bad)
	if want := filepath.Join(bad, "tokenizer.json") + `: model.type "WordPiece" is not supported`; err == nil || err.Error() != want {
		t.Errorf("Load(WordPiece) = %v, want %s", err, want)
	}
}
