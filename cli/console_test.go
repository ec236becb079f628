package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/console"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// The console's render call answers each of the page's examples with the
// bytes render writes, the spans render --spans writes, and, for an
// example that does not render, render's error line.
func TestConsoleMatchesRender(t *testing.T) {
	h := console.New(console.Config{})
	for _, ex := range console.Examples() {
		t.Run(ex.Name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"request": ex.Request})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/render", bytes.NewReader(body)))
			var got struct {
				Prompt string   `json:"prompt"`
				Spans  [][2]int `json:"assistant_spans"`
				Error  string   `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runCLI(t, ex.Request, "render", "-q")
			if code != 0 {
				if rec.Code != http.StatusUnprocessableEntity || "beamharmony render: "+got.Error+"\n" != stderr {
					t.Errorf("console: %d %q; render: exit %d %q", rec.Code, got.Error, code, stderr)
				}
				return
			}
			if rec.Code != http.StatusOK || got.Prompt != stdout {
				t.Errorf("console: %d prompt %q\nrender writes %q", rec.Code, got.Prompt, stdout)
			}
			spansOut, _, _ := runCLI(t, ex.Request, "render", "-q", "--spans")
			want := []byte(`{"prompt": `)
			want = pyjson.AppendQuoted(want, got.Prompt)
			want = append(want, `, "assistant_spans": [`...)
			for i, s := range got.Spans {
				if i > 0 {
					want = append(want, ", "...)
				}
				want = fmt.Appendf(want, "[%d, %d]", s[0], s[1])
			}
			want = append(want, "]}\n"...)
			if string(want) != spansOut {
				t.Errorf("console spans %v; render --spans writes %s", got.Spans, spansOut)
			}
		})
	}
}

// The console has no keys: it refuses to listen beyond loopback, and
// answers only requests for a loopback host name (a rebound DNS name is
// refused).
func TestConsoleLoopbackOnly(t *testing.T) {
	_, stderr, code := runCLI(t, "", "console", "--listen", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "listens on a loopback address only") {
		t.Errorf("--listen 0.0.0.0:0: exit %d, %q", code, stderr)
	}
	h := consoleHandler(console.New(console.Config{}))
	for host, want := range map[string]int{"127.0.0.1:8090": 200, "localhost:8090": 200, "[::1]:8090": 200, "evil.example:8090": 421} {
		req := httptest.NewRequest("GET", "/api/info", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %s: %d, want %d", host, rec.Code, want)
		}
	}
}

// --dataset names local files the page may open: each is checked at
// start, a missing file, a directory or one over --max-upload-bytes
// refused with a usage error.
func TestConsoleDatasetFlag(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(big, bytes.Repeat([]byte("{}\n"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{"--dataset", filepath.Join(dir, "missing.jsonl")}, "no such file"},
		{"a directory", []string{"--dataset", dir}, "not a regular file"},
		{"over the cap", []string{"--dataset", big, "--max-upload-bytes", "1024"}, "larger than the console's limit of 1 KiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, "", append([]string{"console", "--listen", "127.0.0.1:0"}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, "--dataset ") || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}
