package console_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/beamharmony/harmony/dataset"
)

// parquetMessage and parquetRequest are a dataset command input row as
// Hugging Face's datasets writes one: messages as a list of structs.
type parquetMessage struct {
	Role             string  `parquet:"role"`
	Content          string  `parquet:"content"`
	ReasoningContent *string `parquet:"reasoning_content,optional"`
}

type parquetRequest struct {
	Messages []parquetMessage `parquet:"messages,list"`
}

// parquetFiles writes a Parquet input of the dataset command (two good
// rows and one it rejects, in two row groups) and the command's Parquet
// output of it, and returns their paths.
func parquetFiles(t *testing.T) (input, output string) {
	t.Helper()
	dir := t.TempDir()
	why := "Greet back."
	rows := []parquetRequest{
		{Messages: []parquetMessage{{Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello!", ReasoningContent: &why}}},
		{Messages: []parquetMessage{{Role: "wizard", Content: "x"}}},
		{Messages: []parquetMessage{{Role: "user", Content: "Again"}, {Role: "assistant", Content: "Hello again!", ReasoningContent: &why}}},
	}
	input = filepath.Join(dir, "train.parquet")
	f, err := os.Create(input)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := parquet.NewGenericWriter[parquetRequest](f, parquet.MaxRowsPerRowGroup(2))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	output = filepath.Join(dir, "out.parquet")
	if _, err := dataset.Run(context.Background(), dataset.Config{Inputs: []string{input}, Output: output}); err != nil {
		t.Fatal(err)
	}
	return input, output
}
