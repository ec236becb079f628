// Package benchdata makes the input of the dataset benchmarks.
package benchdata

import (
	"bytes"
	"encoding/json"
	"os"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/corpus"
)

// Lines returns JSONL rows for a training-set benchmark: the realistic
// request at path (compacted to one line) between every 64 rows of the
// generated corpus's requests that render for training. Rows that do not
// render are left out, so that every byte measured is rendered.
func Lines(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var realistic bytes.Buffer
	if err := json.Compact(&realistic, data); err != nil {
		return nil, err
	}
	var lines [][]byte
	for i, c := range corpus.Generate(1, 4096) {
		req, err := harmony.ParseRequest(bytes.Clone(c.JSON))
		if err != nil {
			continue
		}
		req.AddGenerationPrompt = false
		if _, err := req.Render(); err != nil {
			continue
		}
		if i%64 == 0 {
			lines = append(lines, realistic.Bytes())
		}
		lines = append(lines, c.JSON)
	}
	return lines, nil
}

// WithMarkers returns a tokenizer.json with the format's markers added as
// added tokens after its largest id: <|return|> special (the EOS), the
// others not, as Beam's tokenizer has them. Tests and benchmarks use it to
// make a small fixture (such as tokenizer/testdata/gpt2) a Beam tokenizer.
func WithMarkers(tokenizerJSON []byte) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(tokenizerJSON, &doc); err != nil {
		return nil, err
	}
	var model struct {
		Vocab map[string]int `json:"vocab"`
	}
	if err := json.Unmarshal(doc["model"], &model); err != nil {
		return nil, err
	}
	var added []map[string]any
	if err := json.Unmarshal(doc["added_tokens"], &added); err != nil {
		return nil, err
	}
	next := 0
	for _, id := range model.Vocab {
		next = max(next, id+1)
	}
	for _, a := range added {
		if id, ok := a["id"].(float64); ok {
			next = max(next, int(id)+1)
		}
	}
	for _, mk := range harmony.Markers() {
		added = append(added, map[string]any{"id": next, "content": mk, "single_word": false, "lstrip": false,
			"rstrip": false, "normalized": false, "special": mk == harmony.MarkerReturn})
		next++
	}
	raw, err := json.Marshal(added)
	if err != nil {
		return nil, err
	}
	doc["added_tokens"] = raw
	return json.Marshal(doc)
}
