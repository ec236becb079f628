package tokenizer_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

const oracleDir = "testdata/oracle"

// tiktokenMaxLen is the longest text compared with js-tiktoken.
const tiktokenMaxLen = 4096

// requireOracle skips the test when node or the oracle's npm packages are
// missing, and fails it instead under CI=1, where CI installs them.
func requireOracle(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	missing := ""
	switch {
	case err != nil:
		missing = "node is not on PATH"
	default:
		for _, pkg := range []string{"@huggingface/tokenizers", "js-tiktoken", "tiktoken"} {
			if _, err := os.Stat(filepath.Join(oracleDir, "node_modules", pkg, "package.json")); err != nil {
				missing = "npm package " + pkg + " is not installed (run npm ci in tokenizer/testdata/oracle)"
				break
			}
		}
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("the JavaScript oracle is required under CI: %s", missing)
		}
		t.Skipf("JavaScript oracle unavailable: %s", missing)
	}
	return node
}

type oracleRequest struct {
	Dir      string   `json:"dir"`
	Texts    []string `json:"texts"`
	Decode   [][]int  `json:"decode"`
	Tiktoken []string `json:"tiktoken"`
}

type oracleDecoded struct {
	Text     string `json:"text"`
	TextSkip string `json:"text_skip"`
}

type oracleResponse struct {
	Encode []struct {
		IDs []int `json:"ids"`
		oracleDecoded
	} `json:"encode"`
	Decode   []oracleDecoded `json:"decode"`
	Tiktoken [][]int         `json:"tiktoken"`
}

func runOracle(t *testing.T, node string, req oracleRequest) oracleResponse {
	t.Helper()
	f := filepath.Join(t.TempDir(), "request.json")
	data, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "oracle.mjs", f)
	cmd.Dir = oracleDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node oracle.mjs: %v\n%s", err, stderr.String())
	}
	var resp oracleResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("oracle output: %v", err)
	}
	if len(resp.Encode) != len(req.Texts) || len(resp.Decode) != len(req.Decode) || len(resp.Tiktoken) != len(req.Tiktoken) {
		t.Fatalf("oracle answered %d, %d and %d results for %d, %d and %d requests",
			len(resp.Encode), len(resp.Decode), len(resp.Tiktoken), len(req.Texts), len(req.Decode), len(req.Tiktoken))
	}
	return resp
}

// fixtureDirs are the tokenizers the differential tests compare: Beam's
// (generated) and the small ones of the other families (committed).
func fixtureDirs(t *testing.T) map[string]string {
	t.Helper()
	beam, err := tokgen.BeamDir()
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{"beam": beam}
	for name := range tokgen.Small {
		dirs[name] = filepath.Join("testdata", name)
	}
	// The JavaScript port does not run the "unk" fixture as Hugging Face's
	// Rust library does: it ignores continuing_subword_prefix and
	// end_of_word_suffix and drops characters that Rust turns into <unk>.
	// bpe_test.go checks that fixture against the Rust rules by hand.
	delete(dirs, "unk")
	return dirs
}

// decodeCases are id sequences to decode: every single id of a range, ids
// that split multi-byte characters, unknown ids and special tokens.
//
// Ids outside the vocabulary are left out when unknownIDs is false: the
// JavaScript port decodes them as unk_token where Rust skips them
// (decode_test.go checks Rust's rule).
func decodeCases(tk *tokenizer.Tokenizer, texts []string, unknownIDs bool) [][]int {
	var cases [][]int
	n := tk.VocabSize()
	for id := 0; id < n && id < 600; id++ {
		cases = append(cases, []int{id})
	}
	for id := n - 20; id < n+3; id++ {
		if id < n || unknownIDs {
			cases = append(cases, []int{id, 0, id})
		}
	}
	for _, text := range texts {
		ids := tk.Encode(text).IDs
		if len(ids) > 1 && len(ids) < 200 {
			cases = append(cases, ids[1:], ids[:len(ids)-1], append(slices.Clone(ids), ids[0]))
		}
	}
	return cases
}

// TestOracle compares ids and decoded text with Hugging Face's JavaScript
// port on the corpus, for every fixture, and Beam's ids of ordinary text
// with js-tiktoken's o200k_base.
func TestOracle(t *testing.T) {
	node := requireOracle(t)
	var texts []string
	for _, s := range tokgen.Texts() {
		if !strings.ContainsAny(s, jsDifferent) && !strings.Contains(s, jsIgnoresSingleWord) {
			texts = append(texts, s)
		}
	}
	for name, dir := range fixtureDirs(t) {
		t.Run(name, func(t *testing.T) {
			tk, err := tokenizer.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			req := oracleRequest{Dir: dir, Texts: texts, Decode: decodeCases(tk, texts, name != "fallback")}
			var tiktokenIndex []int // index in texts of each text of req.Tiktoken
			if name == "beam" {
				for i, text := range texts {
					// js-tiktoken merges in time quadratic in a word's length
					// (about 10 s for 10,000 letters), so the longest texts
					// are compared with Hugging Face's port only.
					if len(text) <= tiktokenMaxLen {
						req.Tiktoken = append(req.Tiktoken, text)
						tiktokenIndex = append(tiktokenIndex, i)
					}
				}
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			req.Dir = abs
			resp := runOracle(t, node, req)
			diffs := 0
			for i, text := range texts {
				got := tk.Encode(text).IDs
				want := resp.Encode[i]
				if !slices.Equal(got, want.IDs) {
					diffs++
					t.Errorf("Encode(%q):\n got %v\nwant %v", clip(text), clipIDs(got), clipIDs(want.IDs))
					continue
				}
				if s := tk.Decode(got, false); s != want.Text {
					diffs++
					t.Errorf("Decode(Encode(%q)) = %q, want %q", clip(text), clip(s), clip(want.Text))
				}
				if s := tk.Decode(got, true); s != want.TextSkip {
					diffs++
					t.Errorf("Decode(Encode(%q), skip) = %q, want %q", clip(text), clip(s), clip(want.TextSkip))
				}
			}
			for k, i := range tiktokenIndex {
				text := texts[i]
				if ord := tk.EncodeOrdinary(text).IDs; !slices.Equal(ord, resp.Tiktoken[k]) {
					diffs++
					t.Errorf("EncodeOrdinary(%q) = %v, js-tiktoken %v", clip(text), clipIDs(ord), clipIDs(resp.Tiktoken[k]))
				}
			}
			known := 0
			for i, ids := range req.Decode {
				want := resp.Decode[i]
				if name == "fallback" && strings.Contains(tk.Decode(ids, false), "\uFFFD") {
					// Known difference: for <0xHH> tokens that do not make
					// valid UTF-8, Rust's ByteFallback decoder writes one
					// U+FFFD per token, the JavaScript port one per maximal
					// invalid sequence (decode_test.go checks Rust's rule).
					known++
					continue
				}
				if s := tk.Decode(ids, false); s != want.Text {
					diffs++
					t.Errorf("Decode(%v) = %q, want %q", clipIDs(ids), clip(s), clip(want.Text))
				}
				if s := tk.Decode(ids, true); s != want.TextSkip {
					diffs++
					t.Errorf("Decode(%v, skip) = %q, want %q", clipIDs(ids), clip(s), clip(want.TextSkip))
				}
			}
			t.Logf("%s: %d texts encoded and decoded, %d id sequences decoded (%d skipped as a known JavaScript difference), %d texts checked against js-tiktoken: %d differences",
				name, len(texts), len(req.Decode), known, len(req.Tiktoken), diffs)
		})
	}
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

func clipIDs(ids []int) []int {
	if len(ids) > 40 {
		return ids[:40]
	}
	return ids
}
