package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestServeContextLengthFromEngine: without --max-model-len, serve reads
// the context length from the engine at start-up and logs it with its
// source (issue 34 item 7).
func TestServeContextLengthFromEngine(t *testing.T) {
	engine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/props":
			io.WriteString(w, `{"default_generation_settings":{"n_ctx":4096},"total_slots":1,"build_info":"b1"}`)
		case "/v1/models":
			io.WriteString(w, `{"object":"list","data":[{"id":"beam","object":"model"}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer engine.Close()
	rs := startServe(t, "--backend", engine.URL, "--engine", "llama.cpp", "--listen", "127.0.0.1:0")
	rs.waitLog(t, `"msg":"context length from the engine"`)
	rec := rs.record(t, "context length from the engine")
	if rec["max_model_len"] != 4096.0 || rec["source"] != "GET /props default_generation_settings.n_ctx" || rec["backend"] != engine.URL {
		t.Errorf("record %v", rec)
	}
}
