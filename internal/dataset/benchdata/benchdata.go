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
