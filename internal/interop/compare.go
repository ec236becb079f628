package interop

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/beamharmony/harmony/internal/corpus"
)

// Mismatch is a case on which the template and the Go renderer disagree.
type Mismatch struct {
	// Name is the case's name.
	Name string
	// Diff is the short description from Diff.
	Diff string
}

// Compare renders every case with the Go renderer and with the chat
// template at templatePath, and returns the cases that differ, in order.
func (py *Python) Compare(ctx context.Context, templatePath string, cases []corpus.Case) ([]Mismatch, error) {
	requests := make([][]byte, len(cases))
	for i, c := range cases {
		requests[i] = c.JSON
	}
	results, err := py.RenderTemplate(ctx, templatePath, requests)
	if err != nil {
		return nil, err
	}
	var out []Mismatch
	for i, c := range cases {
		if d := Diff(RenderGo(c.JSON), results[i]); d != "" {
			out = append(out, Mismatch{c.Name, d})
		}
	}
	return out, nil
}

// RequestFiles returns the requests among the .json files under dirs: JSON
// objects with a "messages" list, named by their path. Missing directories
// are skipped.
func RequestFiles(dirs ...string) ([]corpus.Case, error) {
	var cases []corpus.Case
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) && path == dir {
					return filepath.SkipDir
				}
				return err
			}
			if d.IsDir() || filepath.Ext(path) != ".json" {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if isRequest(data) {
				cases = append(cases, corpus.Case{Name: filepath.ToSlash(path), JSON: data})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases, nil
}

// isRequest reports whether data is a JSON object with a "messages" list.
func isRequest(data []byte) bool {
	var probe struct {
		Messages json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	return len(probe.Messages) > 0 && probe.Messages[0] == '['
}
