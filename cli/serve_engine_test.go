package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// kindEngine is an engine that answers one kind's detection endpoint and
// a constrained completion, and keeps what it was asked.
type kindEngine struct {
	srv    *httptest.Server
	mu     sync.Mutex
	probes []string
	bodies []map[string]json.RawMessage
}

func newKindEngine(t *testing.T, path, answer string) *kindEngine {
	e := &kindEngine{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		defer e.mu.Unlock()
		switch r.URL.Path {
		case "/props", "/version", "/get_server_info", "/server_info":
			e.probes = append(e.probes, r.URL.Path)
			if r.URL.Path == path {
				io.WriteString(w, answer)
				return
			}
			http.NotFound(w, r)
		case "/v1/completions":
			var body map[string]json.RawMessage
			_ = json.NewDecoder(r.Body).Decode(&body)
			e.bodies = append(e.bodies, body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"choices":[{"index":0,"text":"<|channel|>analysis<|message|>r<|end|><|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|>","finish_reason":"stop"}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(e.srv.Close)
	return e
}

// constrain sends a tool_choice "required" request through the gateway
// at addr and returns the engine request's grammar fields.
func (e *kindEngine) constrain(t *testing.T, addr string) []string {
	t.Helper()
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(
		`{"model":"beam","tool_choice":"required","tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"Hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, data)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	last := e.bodies[len(e.bodies)-1]
	var fields []string
	for _, f := range []string{"grammar", "structured_outputs", "ebnf"} {
		if last[f] != nil {
			fields = append(fields, f)
		}
	}
	return fields
}

func (e *kindEngine) probeCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.probes)
}

// --engine auto asks the engine at start-up and logs the kind; a named
// kind (flag or BEAMHARMONY_ENGINE) asks nothing and decides the grammar
// field; a bad kind is a usage error.
func TestServeEngine(t *testing.T) {
	t.Run("auto detects llama.cpp", func(t *testing.T) {
		e := newKindEngine(t, "/props", `{"default_generation_settings":{},"build_info":"b1"}`)
		rs := startServe(t, "--backend", e.srv.URL, "--listen", "127.0.0.1:0")
		rs.waitLog(t, `"msg":"engine detected"`)
		if rec := rs.record(t, "engine detected"); rec["engine"] != "llama.cpp" || rec["by"] != "GET /props" {
			t.Errorf("record %v", rec)
		}
		if rec := rs.record(t, "listening"); rec["engine"] != "auto" {
			t.Errorf("listening record %v", rec)
		}
		if f := e.constrain(t, rs.addr(t)); strings.Join(f, ",") != "grammar" {
			t.Errorf("grammar fields %v", f)
		}
	})
	t.Run("auto logs an unknown kind", func(t *testing.T) {
		e := newKindEngine(t, "", "")
		rs := startServe(t, "--backend", e.srv.URL, "--listen", "127.0.0.1:0")
		rs.waitLog(t, `"msg":"engine kind unknown`)
		if !strings.Contains(rs.stderr.String(), "GET /version: HTTP 404") {
			t.Errorf("log %s", rs.stderr.String())
		}
	})
	t.Run("flag", func(t *testing.T) {
		e := newKindEngine(t, "/props", `{"build_info":"b1"}`)
		// --max-model-len: the context length is not asked for (at
		// /props, which the probes count).
		rs := startServe(t, "--backend", e.srv.URL, "--listen", "127.0.0.1:0", "--engine", "vllm", "--max-model-len", "100000")
		if f := e.constrain(t, rs.addr(t)); strings.Join(f, ",") != "structured_outputs" || e.probeCount() != 0 {
			t.Errorf("grammar fields %v, %d probes", f, e.probeCount())
		}
		if rec := rs.record(t, "listening"); rec["engine"] != "vllm" {
			t.Errorf("listening record %v", rec)
		}
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv("BEAMHARMONY_ENGINE", "sglang")
		e := newKindEngine(t, "", "")
		rs := startServe(t, "--backend", e.srv.URL, "--listen", "127.0.0.1:0", "--max-model-len", "100000")
		if f := e.constrain(t, rs.addr(t)); strings.Join(f, ",") != "ebnf" || e.probeCount() != 0 {
			t.Errorf("grammar fields %v, %d probes", f, e.probeCount())
		}
	})
	t.Run("bad kind", func(t *testing.T) {
		_, errOut, code := runCLI(t, "", "serve", "--backend", "http://localhost:8000", "--engine", "ollama")
		if code != 2 || !strings.Contains(errOut, "use auto, llama.cpp, vllm or sglang") {
			t.Errorf("code %d, stderr %q", code, errOut)
		}
	})
}
