package console_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/console"
)

// The standalone console opens the local files its operator named, by
// index only; a FIFO is refused before it is opened (nothing waits for a
// writer), a file over the upload cap is refused, and a console without
// local files (the gateway's) opens none.
func TestOpenLocalFile(t *testing.T) {
	dir := t.TempDir()
	rows := filepath.Join(dir, "train.jsonl")
	writeFile(t, rows, `{"text": "abcdef", "assistant_spans": [[2, 4]]}`+"\n")
	big := filepath.Join(dir, "big.jsonl")
	writeFile(t, big, strings.Repeat(`{"text": "abcdef", "assistant_spans": [[2, 4]]}`+"\n", 100))
	files := []string{rows, big, dir}
	if fifo := filepath.Join(dir, "fifo.jsonl"); mkfifo(fifo) == nil {
		files = append(files, fifo)
	}
	h := console.New(console.Config{LocalFiles: files, MaxUploadBytes: 1 << 10})
	status, v := call(t, h, "GET", "/api/info", "")
	if names, _ := v["local_files"].([]any); status != 200 || len(names) != len(files) || names[0] != "train.jsonl" {
		t.Errorf("info: %d %v, want the files' base names", status, v)
	}
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"a named file", `{"file": 0}`, 200, ""},
		{"over the cap", `{"file": 1}`, 422, "larger than the console's limit of 1 KiB"},
		{"a directory", `{"file": 2}`, 422, "not a regular file"},
		{"a FIFO, refused unopened", `{"file": 3}`, 422, "not a regular file (p"},
		{"no such index", `{"file": 9}`, 404, "no local file 9"},
		{"a path is not an index", `{"file": "/etc/passwd"}`, 400, "console call body"},
		{"a path field is unknown", `{"path": "/etc/passwd"}`, 400, "console call body: json: unknown field"},
	}
	for _, tt := range tests {
		if tt.name == "a FIFO, refused unopened" && len(files) < 4 {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			status, v := call(t, h, "POST", "/api/open", tt.body)
			msg, _ := v["error"].(string)
			if status != tt.status || !strings.Contains(msg, tt.want) {
				t.Errorf("%d %q, want %d %q", status, msg, tt.status, tt.want)
			}
			if tt.status == 200 && (v["kind"] != "text" || v["rows_read"] != 1.0) {
				t.Errorf("preview %v", v)
			}
		})
	}
	status, v = call(t, console.New(console.Config{}), "POST", "/api/open", `{"file": 0}`)
	if status != 404 {
		t.Errorf("a console without local files opened one: %d %v", status, v)
	}
	if _, err := console.ReadLocalFile(filepath.Join(dir, "missing.jsonl"), 1<<10); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
