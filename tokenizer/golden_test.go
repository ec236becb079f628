package tokenizer_test

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

var writeCorpus = flag.String("write-corpus", "", "write the golden tests' texts and the fixtures' directories as JSON to this file, for testdata/golden/gen.js")

// goldenFile is what testdata/golden/gen.js writes for one fixture: for
// each text of the corpus, Hugging Face's (Rust) ids and character offsets.
type goldenFile struct {
	IDs     [][]int    `json:"ids"`
	Offsets [][][2]int `json:"offsets"`
}

// TestGoldenEncodings compares ids and offsets with Hugging Face's Rust
// library (npm package tokenizers) on the corpus, for every fixture,
// Beam's included, through Encode and AppendEncode. The expected encodings were generated once
// (testdata/golden/gen.js) and are committed, so the test runs without
// Node, and a change in the encoder fails it.
func TestGoldenEncodings(t *testing.T) {
	texts := goldenCorpus()
	dirs := fixtureDirs(t)
	if *writeCorpus != "" {
		data, err := json.Marshal(map[string]any{"texts": texts, "dirs": dirs})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*writeCorpus, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, dir := range dirs {
		t.Run(name, func(t *testing.T) {
			golden := readGolden(t, name)
			if len(golden.IDs) != len(texts) || len(golden.Offsets) != len(texts) {
				t.Fatalf("golden file has %d encodings for %d texts: regenerate it (testdata/golden/gen.js)", len(golden.IDs), len(texts))
			}
			tk, err := tokenizer.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			diffs := 0
			for i, text := range texts {
				// The ids-only path (a fast path of its own) gives the
				// same ids.
				if ids := tk.AppendEncode(nil, text); !slices.Equal(ids, golden.IDs[i]) {
					if diffs++; diffs <= 5 {
						t.Errorf("AppendEncode(%q):\n got %v\nwant %v", clip(text), clipIDs(ids), clipIDs(golden.IDs[i]))
					}
					continue
				}
				enc := tk.Encode(text)
				if !slices.Equal(enc.IDs, golden.IDs[i]) {
					if diffs++; diffs <= 5 {
						t.Errorf("Encode(%q).IDs:\n got %v\nwant %v", clip(text), clipIDs(enc.IDs), clipIDs(golden.IDs[i]))
					}
					continue
				}
				if !slices.Equal(enc.Offsets, golden.Offsets[i]) {
					if diffs++; diffs <= 5 {
						t.Errorf("Encode(%q).Offsets:\n got %v\nwant %v", clip(text), clipOffsets(enc.Offsets), clipOffsets(golden.Offsets[i]))
					}
				}
			}
			if diffs > 0 {
				t.Errorf("%s: %d of %d texts differ from Hugging Face", name, diffs, len(texts))
			}
		})
	}
}

// goldenCorpus is the oracle corpus less its longest texts (which the
// oracle test and the tiktoken-go comparison cover), so that the
// committed encodings stay small.
func goldenCorpus() []string {
	var texts []string
	for _, s := range tokgen.Texts() {
		if len(s) <= 2048 {
			texts = append(texts, s)
		}
	}
	return texts
}

func readGolden(t *testing.T, name string) goldenFile {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "golden", name+".json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.NewDecoder(zr).Decode(&g); err != nil {
		t.Fatal(fmt.Errorf("%s: %w", name, err))
	}
	return g
}

func clipOffsets(o [][2]int) [][2]int {
	if len(o) > 20 {
		return o[:20]
	}
	return o
}
