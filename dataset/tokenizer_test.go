package dataset

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/dataset/benchdata"
	"github.com/beamharmony/harmony/tokenizer"
)

// beamTokenizer is the GPT-2-style fixture of the tokenizer package with
// the format's markers added.
func beamTokenizer(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	data, err := os.ReadFile("../tokenizer/testdata/gpt2/tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	data, err = benchdata.WithMarkers(data)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.New(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestTokensEqualLibrary: with a real tokenizer, every row's input_ids
// and assistant_masks equal harmony.RenderTokens for that row, in JSONL and
// in Parquet read back by hyparquet.
func TestTokensEqualLibrary(t *testing.T) {
	tok := beamTokenizer(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl.zst")
	lines := corpusLines(t, 13, 300)
	writeInput(t, in, lines)
	type want struct {
		ids, masks []int32
		err        string
	}
	var wants []want
	for _, l := range lines {
		req, err := harmony.ParseRequest(slices.Clone(l))
		if err != nil {
			wants = append(wants, want{err: err.Error()})
			continue
		}
		req.AddGenerationPrompt = false
		req.PlaceLateInstructions = true
		tk, err := req.RenderTokens(context.Background(), tok)
		if err != nil {
			wants = append(wants, want{err: err.Error()})
			continue
		}
		w := want{}
		for i := range tk.InputIDs {
			w.ids = append(w.ids, int32(tk.InputIDs[i]))
			w.masks = append(w.masks, int32(tk.AssistantMasks[i]))
		}
		wants = append(wants, w)
	}
	for _, out := range []string{"out.jsonl", "out.parquet"} {
		t.Run(out, func(t *testing.T) {
			c := Config{Inputs: []string{in}, Output: filepath.Join(t.TempDir(), out), Render: RenderTokens(tok), Tokens: true, AllowMissingThinking: true}
			st, err := Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			got := readTokenRows(t, c.Output)
			rej := readRejects(t, DefaultRejectsPath(c.Output))
			gi, ri := 0, 0
			for i, w := range wants {
				if w.err != "" {
					if ri >= len(rej) || rej[ri].Line != int64(i+1) || rej[ri].Error != w.err {
						t.Fatalf("line %d should be rejected with %q", i+1, w.err)
					}
					ri++
					continue
				}
				g := got[gi]
				if !slices.Equal(g.InputIDs, w.ids) || !slices.Equal(g.AssistantMasks, w.masks) || g.NumTokens != int64(len(w.ids)) {
					t.Fatalf("line %d: tokens differ from RenderTokens", i+1)
				}
				gi++
			}
			if gi != len(got) || ri != len(rej) || gi < 100 || st.RowsRead != st.RowsWritten+st.RowsRejected {
				t.Fatalf("%d rows, %d rejects; checked %d, %d", len(got), len(rej), gi, ri)
			}
			if out == "out.parquet" {
				rows := readWithHyparquet(t, c.Output)
				for i, r := range rows {
					var ids, masks []int32
					if err := json.Unmarshal(r["input_ids"], &ids); err != nil || !slices.Equal(ids, got[i].InputIDs) {
						t.Fatalf("row %d: hyparquet reads other ids", i)
					}
					if err := json.Unmarshal(r["assistant_masks"], &masks); err != nil || !slices.Equal(masks, got[i].AssistantMasks) {
						t.Fatalf("row %d: hyparquet reads other masks", i)
					}
				}
			}
		})
	}
}
