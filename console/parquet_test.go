package console_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/console"
	"github.com/beamharmony/harmony/dataset"
)

// parquetMessage and parquetRequest are the rows of testdata/train.parquet,
// a dataset command input as Hugging Face's datasets writes one: messages
// as a list of structs.
type parquetMessage struct {
	Role             string  `parquet:"role"`
	Content          string  `parquet:"content"`
	ReasoningContent *string `parquet:"reasoning_content,optional"`
}

type parquetRequest struct {
	Messages []parquetMessage `parquet:"messages,list"`
}

// parquetFiles returns a Parquet input of the dataset command (two good
// rows and one it rejects), the command's Parquet output of it, and the
// good rows' requests.
func parquetFiles(t *testing.T) (input, output string, good []*harmony.Request) {
	t.Helper()
	dir := t.TempDir()
	why := "Greet back."
	rows := []parquetRequest{
		{Messages: []parquetMessage{{Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello!", ReasoningContent: &why}}},
		{Messages: []parquetMessage{{Role: "wizard", Content: "x"}}},
		{Messages: []parquetMessage{{Role: "user", Content: "Again"}, {Role: "assistant", Content: "Hello again!", ReasoningContent: &why}}},
	}
	// The rows, two to a row group, written by parquet-go
	// (conformance/parquetgo).
	input = filepath.Join("testdata", "train.parquet")
	output = filepath.Join(dir, "out.parquet")
	if _, err := dataset.Run(context.Background(), dataset.Config{Inputs: []string{input}, Output: output}); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 2} {
		req := &harmony.Request{}
		for _, m := range rows[i].Messages {
			msg := harmony.Message{Role: m.Role, Content: m.Content}
			if m.ReasoningContent != nil {
				msg.Reasoning = *m.ReasoningContent
			}
			req.Messages = append(req.Messages, msg)
		}
		req.PlaceLateInstructions = true
		good = append(good, req)
	}
	return input, output, good
}

// The dataset preview reads Parquet as the dataset command does: an input
// file's rows rendered for training (a bad row rejected with its reason),
// the command's Parquet output with its spans; every row counts, across
// row groups. Without a Parquet reader (the gateway's console) a Parquet
// file is refused with a clear error.
func TestPreviewParquet(t *testing.T) {
	input, output, good := parquetFiles(t)
	h := console.New(console.Config{ReadParquet: dataset.ParquetRows})
	for _, tt := range []struct{ name, path, kind string }{
		{"input", input, "requests"},
		{"output", output, "text"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := h.Preview(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Kind != tt.kind || rep.Format != "parquet" {
				t.Fatalf("kind %q format %q, want %q parquet", rep.Kind, rep.Format, tt.kind)
			}
			var shown []console.PreviewRow
			for _, r := range rep.Rows {
				if r.Error == "" {
					shown = append(shown, r)
				}
			}
			if len(shown) != len(good) || len(rep.Lengths) != len(good) {
				t.Fatalf("%d rows shown, %d lengths; want %d: %+v", len(shown), len(rep.Lengths), len(good), rep.Rows)
			}
			for i, req := range good {
				p, err := req.RenderPrompt()
				if err != nil {
					t.Fatal(err)
				}
				var text, trained strings.Builder
				for j, piece := range shown[i].Pieces {
					text.WriteString(piece)
					if shown[i].Mask[j] == 1 {
						trained.WriteString(piece)
					}
				}
				var want strings.Builder
				chars := []rune(p.Text)
				for _, s := range p.CharSpans() {
					want.WriteString(string(chars[s.Start:s.End]))
				}
				if text.String() != p.Text || trained.String() != want.String() {
					t.Errorf("row %d: shown %q trained %q, want %q trained %q", i, text.String(), trained.String(), p.Text, want.String())
				}
			}
			if tt.name == "input" {
				if rep.RowsRead != 3 || rep.Rejected != 1 || rep.Rows[1].Line != 2 || !strings.Contains(rep.Rows[1].Error, "wizard") {
					t.Errorf("input: %d read, %d rejected, rows %+v; want row 2 rejected for its role", rep.RowsRead, rep.Rejected, rep.Rows)
				}
			}
		})
	}
	data, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	_, err = console.New(console.Config{}).Preview(context.Background(), data)
	if err == nil || !strings.Contains(err.Error(), "this console reads JSONL only") {
		t.Errorf("without a Parquet reader: %v", err)
	}
	_, err = h.Preview(context.Background(), append([]byte("PAR1"), make([]byte, 64)...))
	if err == nil || !strings.HasPrefix(err.Error(), "a Parquet file: not a readable Parquet file") {
		t.Errorf("a damaged Parquet file: %v", err)
	}
}
