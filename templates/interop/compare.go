package interop

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/beamharmony/harmony/internal/corpus"
)

// Mismatch is a case on which the template and the Go renderer disagree.
type Mismatch struct {
	// Name is the case's name.
	Name string
	// Diff is the short description from Diff.
	Diff string
	// Explained says why the engine cannot agree on this request: it holds
	// some of its number literals as other numbers (a JavaScript number),
	// and the Go renderer agrees when given those numbers. Empty for a
	// difference the template must not have.
	Explained string
}

// Compare renders every case with the Go renderer and with the chat
// template at templatePath in engine e, and returns the cases that differ,
// in order.
func Compare(ctx context.Context, e Engine, templatePath string, cases []corpus.Case) ([]Mismatch, error) {
	requests := make([][]byte, len(cases))
	for i, c := range cases {
		requests[i] = c.JSON
	}
	results, err := e.RenderTemplate(ctx, templatePath, requests)
	if err != nil {
		return nil, err
	}
	var out []Mismatch
	for i, c := range cases {
		res := results[i]
		d := Diff(RenderGo(c.JSON), res)
		if d == "" {
			continue
		}
		m := Mismatch{Name: c.Name, Diff: d}
		if len(res.LossyNumbers) > 0 {
			lossy := strings.Join(res.LossyNumbers, ", ")
			switch {
			case res.Unrepresentable:
				m.Explained = e.Name() + " cannot hold the integers among " + lossy
			case Diff(RenderGo([]byte(res.JSRequest)), res) == "":
				m.Explained = e.Name() + " holds the number literals " + lossy + " as other numbers; the Go renderer agrees given those"
			default:
				m.Diff = Diff(RenderGo([]byte(res.JSRequest)), res) + "\n(against the request with the numbers " + e.Name() + " holds for " + lossy + ")"
			}
		}
		out = append(out, m)
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
