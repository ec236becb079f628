package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/dataset"
)

// The gateway's console previews a Parquet dataset as beamharmony
// console does: serve hands the console the dataset command's reader,
// which the serve package does not link (issue 36: the dataset preview
// reads JSONL or Parquet).
func TestServeConsoleParquet(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "reasoning_content": "Greet.", "content": "Hello!"}]}`+"\n"), 0o644)
	out := filepath.Join(dir, "out.parquet")
	if _, err := dataset.Run(context.Background(), dataset.Config{Inputs: []string{in}, Output: out}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rs := startServe(t, "--listen", "127.0.0.1:0", "--api-key", "k")
	req, _ := http.NewRequest("POST", "http://"+rs.addr(t)+"/console/api/dataset", strings.NewReader(string(data)))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var rep struct {
		Format string `json:"format"`
		Kind   string `json:"kind"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, &rep) != nil || rep.Format != "parquet" {
		t.Errorf("status %d: %s", resp.StatusCode, body)
	}
}
