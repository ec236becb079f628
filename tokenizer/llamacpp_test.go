package tokenizer_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

var (
	llamaServer    = flag.String("llama-server", "", "compare with llama.cpp's tokenizer: the `URL` of an llama-server loaded with a GGUF of -llama-tokenizer's vocabulary (templates/llamacpp/tokenizer.sh)")
	llamaTokenizer = flag.String("llama-tokenizer", "", "the tokenizer.json (or its `DIR`) the -llama-server GGUF was written from")
	llamaTexts     = flag.Int("llama-texts", 5000, "TestLlamaCppTokenizer's random texts")
)

// TestLlamaCppTokenizer compares the tokenizer with llama.cpp's own (the
// /tokenize endpoint of an llama-server that loaded a GGUF written from the
// same tokenizer.json by templates/llamacpp/make_tokenizer_gguf.py): what
// the engine makes of the prompt text the gateway sends when it runs
// without --tokenizer. The texts are of two kinds, counted apart: natural
// ones (the lines of the benchmark texts and sentences in scripts written
// with combining marks), and TestRustDifferential's random texts of edge
// pieces. The tokenizer itself is Hugging Face's (TestRustDifferential), so
// a difference is llama.cpp's. llama.cpp is known to differ in two ways
// (docs/llama-cpp.md, "The engine's tokenizer"): its o200k rule leaves
// marks (\p{M}) out of letter runs, and its Unicode tables may be older
// than the tokenizer's. The test fails on any difference in a text that
// holds neither a mark nor a code point Go's tables leave unassigned, and
// logs the others with their counts. It runs only with -llama-server (not
// in CI: it needs a llama.cpp build).
func TestLlamaCppTokenizer(t *testing.T) {
	if *llamaServer == "" {
		t.Skip("compares with llama.cpp's tokenizer only with -llama-server URL (templates/llamacpp/tokenizer.sh)")
	}
	if *llamaTokenizer == "" {
		t.Fatal("-llama-server needs -llama-tokenizer: the tokenizer.json its GGUF was written from")
	}
	tk, err := tokenizer.Load(*llamaTokenizer)
	if err != nil {
		t.Fatal(err)
	}
	texts, err := tokgen.BenchTexts("..")
	if err != nil {
		t.Fatal(err)
	}
	var natural []string
	for _, name := range []string{"prose", "code", "prompt", "multilingual"} {
		for _, line := range strings.SplitAfter(texts[name], "\n") {
			if strings.TrimSpace(line) != "" && !slices.Contains(natural, line) {
				natural = append(natural, line)
			}
		}
	}
	natural = append(natural, markedSentences...)
	r := rand.New(rand.NewPCG(*rustSeed, 7))
	random := make([]string, *llamaTexts)
	for i := range random {
		random[i] = rustText(r)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	for _, set := range []struct {
		name  string
		texts []string
	}{{"natural", natural}, {"random", random}} {
		t.Run(set.name, func(t *testing.T) {
			// Differences by cause: [mark][recent character].
			var causes [2][2]int
			differ, shown := 0, 0
			for _, text := range set.texts {
				got, err := llamaTokenize(client, text)
				if err != nil {
					t.Fatal(err)
				}
				want := tk.Encode(text).IDs
				if slices.Equal(got, want) {
					continue
				}
				differ++
				mark, recent := strings.ContainsFunc(text, isMark), strings.ContainsFunc(text, unassignedInGo)
				if !mark && !recent {
					t.Errorf("llama.cpp tokenizes %+q, which holds neither a mark nor a recent character, otherwise:\n llama.cpp %s\n     Go    %s", text, pieces(tk, got), pieces(tk, want))
					continue
				}
				causes[b2i(mark)][b2i(recent)]++
				if shown++; shown <= 12 {
					t.Logf("differs: %+q\n llama.cpp %s\n     Go    %s", text, pieces(tk, got), pieces(tk, want))
				}
			}
			t.Logf("%d texts: %d tokenized differently by llama.cpp: %d holding a mark and no code point Go's Unicode %s tables leave unassigned, %d such a code point and no mark, %d both",
				len(set.texts), differ, causes[1][0], unicode.Version, causes[0][1], causes[1][1])
		})
	}
}

// markedSentences are sentences in scripts written with combining marks
// (Devanagari, Bengali, Tamil, Thai, Arabic and Hebrew with their vowel
// signs, Vietnamese, Latin with decomposed accents), where a tokenizer's
// letter classes meet \p{M}.
var markedSentences = []string{
	"नमस्ते, आज मौसम बहुत अच्छा है और हम पार्क में टहलने जाएंगे।\n",
	"আমি আজ সকালে বাজারে গিয়েছিলাম এবং কিছু ফল কিনেছি।\n",
	"இன்று காலை நான் சந்தைக்குச் சென்று சில பழங்களை வாங்கினேன்.\n",
	"วันนี้อากาศดีมาก เราจะไปเดินเล่นที่สวนสาธารณะ\n",
	"بِسْمِ اللَّهِ الرَّحْمَٰنِ الرَّحِيمِ\n",
	"Hôm nay trời đẹp, chúng tôi sẽ đi dạo trong công viên.\n",
	"בְּרֵאשִׁית בָּרָא אֱלֹהִים אֵת הַשָּׁמַיִם וְאֵת הָאָרֶץ\n",
	"The cafe\u0301 served cre\u0300me bru\u0302le\u0301e to the nai\u0308ve critic.\n",
}

// llamaTokenize asks the server for text's token ids, as llama-server
// tokenizes a prompt: markers parsed as tokens, no BOS added.
func llamaTokenize(client *http.Client, text string) ([]int, error) {
	body, err := json.Marshal(map[string]any{"content": text, "add_special": false, "parse_special": true})
	if err != nil {
		return nil, err
	}
	resp, err := client.Post(strings.TrimRight(*llamaServer, "/")+"/tokenize", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Tokens []int `json:"tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("POST /tokenize %+q: HTTP %d, %v", text, resp.StatusCode, err)
	}
	return out.Tokens, nil
}

// pieces writes ids as their decoded texts, for the log.
func pieces(tk *tokenizer.Tokenizer, ids []int) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%+q", tk.Decode([]int{id}, false))
	}
	return b.String()
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isMark reports whether r is a mark (\p{M}).
func isMark(r rune) bool { return unicode.Is(unicode.M, r) }

// assignedInGo are the general categories of Go's tables but Cn: what they
// assign.
var assignedInGo = []*unicode.RangeTable{unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs}

// unassignedInGo reports whether Go's Unicode tables (15.0) leave r
// unassigned: it is unassigned, or assigned by a later version, which the
// tokenizer's classes follow (16.0, gap decision 51) and llama.cpp's
// tables may not.
func unassignedInGo(r rune) bool { return !unicode.In(r, assignedInGo...) }
