package serve

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// lengthEngine answers GET /props and GET /v1/models with the bodies it is
// given ("" is a 404), the first `loading` requests of each with a 503 (as
// llama-server while it loads the model), and completions with a fixed
// answer, recording the max_tokens it was sent.
type lengthEngine struct {
	props, models string
	loading       atomic.Int32
	maxTokens     atomic.Int64
}

func newLengthEngine(t *testing.T, props, models string) (*lengthEngine, *httptest.Server) {
	t.Helper()
	e := &lengthEngine{props: props, models: models}
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body string
		switch r.URL.Path {
		case "/props":
			body = e.props
		case "/v1/models":
			body = e.models
		default:
			fe.ServeHTTP(w, r)
			if reqs := fe.requests(); r.URL.Path == "/v1/completions" && len(reqs) > 0 {
				e.maxTokens.Store(reqs[len(reqs)-1].MaxTokens)
			}
			return
		}
		if e.loading.Add(-1) >= 0 {
			http.Error(w, `{"error":{"code":503,"message":"Loading model"}}`, http.StatusServiceUnavailable)
			return
		}
		if body == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return e, srv
}

const (
	llamaProps    = `{"default_generation_settings":{"params":{"n_predict":-1},"n_ctx":4096},"total_slots":4,"model_path":"/m/beam.gguf","build_info":"b6000-x"}`
	llamaPropsTop = `{"default_generation_settings":{"params":{"n_predict":-1}},"total_slots":1,"n_ctx":8192}`
	llamaModels   = `{"object":"list","data":[{"id":"beam.gguf","object":"model","created":1,"owned_by":"llamacpp","meta":{"n_ctx_train":131072}}]}`
	vllmModels    = `{"object":"list","data":[{"id":"beam","object":"model","created":1,"owned_by":"vllm","root":"/models/beam","parent":null,"max_model_len":32768,"permission":[]}]}`
	sglangModels  = `{"object":"list","data":[{"id":"beam","object":"model","created":1,"owned_by":"sglang","root":"beam","max_model_len":65536}]}`
	twoModels     = `{"object":"list","data":[{"id":"big","max_model_len":131072},{"id":"beam","max_model_len":16384},{"id":"small","max_model_len":2048}]}`
)

// TestContextLengthFromEngine: without --max-model-len the context length
// is read from the engine (llama.cpp's /props, where the slot's context is
// default_generation_settings.n_ctx or, in some releases, n_ctx at the
// top; vLLM's and SGLang's /v1/models max_model_len), logged with its
// source, and then bounds max_tokens as --max-model-len does (issue 34
// item 7).
func TestContextLengthFromEngine(t *testing.T) {
	old := detectRetry
	detectRetry = 0
	t.Cleanup(func() { detectRetry = old })
	for _, c := range []struct {
		name, props, models, model string
		loading                    int32
		want                       int64
		source                     string
	}{
		{"llama.cpp", llamaProps, llamaModels, "", 0, 4096, "GET /props default_generation_settings.n_ctx"},
		{"llama.cpp, n_ctx at the top", llamaPropsTop, llamaModels, "", 0, 8192, "GET /props n_ctx"},
		{"llama.cpp loading the model", llamaProps, llamaModels, "", 3, 4096, "GET /props default_generation_settings.n_ctx"},
		{"vLLM", "", vllmModels, "", 0, 32768, "GET /v1/models max_model_len"},
		{"SGLang", "", sglangModels, "", 0, 65536, "GET /v1/models max_model_len"},
		{"several models, --model names one", "", twoModels, "beam", 0, 16384, `GET /v1/models max_model_len of "beam"`},
		{"several models, the smallest", "", twoModels, "", 0, 2048, "GET /v1/models max_model_len"},
		{"none told", "", llamaModels, "", 0, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, srv := newLengthEngine(t, c.props, c.models)
			e.loading.Store(c.loading)
			var logs syncBuffer
			s, err := New(Config{Backend: srv.URL, Model: c.model, Logger: newJSONLogger(&logs)})
			if err != nil {
				t.Fatal(err)
			}
			n, err := s.DetectContextLength(context.Background())
			if int64(n) != c.want || (err != nil) != (c.want == 0) {
				t.Fatalf("DetectContextLength: %d, %v; want %d", n, err, c.want)
			}
			if c.want == 0 {
				if !strings.Contains(logs.String(), "does not tell its context length") {
					t.Errorf("no warning in the log:\n%s", logs.String())
				}
				return
			}
			want := `"msg":"context length from the engine","max_model_len":` + strconv.FormatInt(c.want, 10) + `,"source":` + strconv.Quote(c.source)
			if !strings.Contains(logs.String(), want) {
				t.Errorf("the log lacks %s:\n%s", want, logs.String())
			}
			gw := httptest.NewServer(s)
			defer gw.Close()
			// The default is capped at the length, and a client's value
			// above it is refused, as with --max-model-len.
			if resp, data := post(t, gw, `{"model":"beam","messages":[{"role":"user","content":"Hi"}]}`); resp.StatusCode != 200 ||
				e.maxTokens.Load() != min(c.want, DefaultMaxTokens) {
				t.Errorf("default: %d %s, the engine got max_tokens %d", resp.StatusCode, data, e.maxTokens.Load())
			}
			over := strconv.FormatInt(c.want+1, 10)
			resp, data := post(t, gw, `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"max_tokens":`+over+`}`)
			if resp.StatusCode != 400 || !strings.Contains(string(data), "max_tokens: "+over+" is more than the model's context length of "+
				strconv.FormatInt(c.want, 10)+" tokens (as the engine reports it)") {
				t.Errorf("max_tokens %s: %d %s", over, resp.StatusCode, data)
			}
		})
	}
}

// With several replicas the smallest context length is used, and
// --max-model-len, when given, is not asked for.
func TestContextLengthReplicas(t *testing.T) {
	_, a := newLengthEngine(t, llamaProps, "")
	_, b := newLengthEngine(t, `{"default_generation_settings":{"n_ctx":2048}}`, "")
	_, c := newLengthEngine(t, "", vllmModels)
	var logs syncBuffer
	s, err := New(Config{Backends: []Backend{{URL: a.URL}, {URL: b.URL}, {URL: c.URL}}, Logger: newJSONLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.DetectContextLength(context.Background()); n != 2048 || err != nil {
		t.Errorf("three replicas of 4096, 2048 and 32768: %d, %v; want 2048", n, err)
	}
	if !strings.Contains(logs.String(), `"max_model_len":2048,"source":"GET /props default_generation_settings.n_ctx","backend":"`+b.URL+`"`) {
		t.Errorf("the log does not name the replica of the smallest length:\n%s", logs.String())
	}
	s, err = New(Config{Backend: a.URL, MaxModelLen: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := s.DetectContextLength(context.Background()); n != 1000 {
		t.Errorf("with MaxModelLen 1000: %d", n)
	}
	if n, source := s.modelLen.get(); n != 1000 || source != "--max-model-len" {
		t.Errorf("with MaxModelLen 1000: %d from %s", n, source)
	}
}

// Without any context length, a client's max tokens above MaxTokensCeiling
// (2^31 and more included) is lowered to it and reported in
// X-Beam-Unenforced, on every API and field; below it, it goes as written.
// With a context length, a value above 2^31 is a 400: never forwarded.
func TestMaxTokensCeiling(t *testing.T) {
	e, srv := newLengthEngine(t, "", "")
	s, err := New(Config{Backend: srv.URL, Model: "beam"})
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(s)
	defer gw.Close()
	huge := strconv.FormatInt(1<<31+5, 10)
	for _, api := range []struct{ path, field, body string }{
		{"/v1/chat/completions", "max_tokens", `{"messages":[{"role":"user","content":"Hi"}],"max_tokens":%s}`},
		{"/v1/chat/completions", "max_completion_tokens", `{"messages":[{"role":"user","content":"Hi"}],"max_completion_tokens":%s}`},
		{"/v1/messages", "max_tokens", `{"messages":[{"role":"user","content":"Hi"}],"max_tokens":%s}`},
		{"/v1/responses", "max_output_tokens", `{"input":"Hi","max_output_tokens":%s}`},
	} {
		for _, stream := range []bool{false, true} {
			body := api.body
			if stream {
				body = `{"stream":true,` + strings.TrimPrefix(body, "{")
			}
			for _, v := range []string{huge, strconv.Itoa(MaxTokensCeiling + 1), "9223372036854775807"} {
				resp, data := do(t, gw, "POST", api.path, strings.Replace(body, "%s", v, 1), nil)
				if resp.StatusCode != 200 || e.maxTokens.Load() != MaxTokensCeiling {
					t.Errorf("%s %s=%s (stream %v): %d %.200s, the engine got max_tokens %d, want %d",
						api.path, api.field, v, stream, resp.StatusCode, data, e.maxTokens.Load(), MaxTokensCeiling)
				}
				if h := resp.Header.Get(UnenforcedHeader); !strings.Contains(h, api.field) {
					t.Errorf("%s %s=%s: %s is %q, want it to name %s", api.path, api.field, v, UnenforcedHeader, h, api.field)
				}
			}
			resp, data := do(t, gw, "POST", api.path, strings.Replace(body, "%s", strconv.Itoa(MaxTokensCeiling), 1), nil)
			if resp.StatusCode != 200 || e.maxTokens.Load() != MaxTokensCeiling || resp.Header.Get(UnenforcedHeader) != "" {
				t.Errorf("%s %s at the ceiling: %d %.200s, max_tokens %d, %s %q", api.path, api.field, resp.StatusCode, data,
					e.maxTokens.Load(), UnenforcedHeader, resp.Header.Get(UnenforcedHeader))
			}
		}
	}

	_, srv = newLengthEngine(t, llamaProps, "")
	s, err = New(Config{Backend: srv.URL, Model: "beam"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DetectContextLength(context.Background()); err != nil {
		t.Fatal(err)
	}
	gw2 := httptest.NewServer(s)
	defer gw2.Close()
	if resp, data := post(t, gw2, `{"messages":[{"role":"user","content":"Hi"}],"max_tokens":`+huge+`}`); resp.StatusCode != 400 ||
		!strings.Contains(string(data), "max_tokens: "+huge+" is more than") {
		t.Errorf("max_tokens %s with a context of 4096: %d %s", huge, resp.StatusCode, data)
	}
}

// GET /v1/models without --model passes the engine's models on with their
// context length, and without the engine's own fields (vLLM's root is a
// path on the engine's host).
func TestModelsListFromEngine(t *testing.T) {
	_, srv := newLengthEngine(t, "", vllmModels)
	s, err := New(Config{Backend: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(s)
	defer gw.Close()
	resp, data := do(t, gw, "GET", "/v1/models", "", nil)
	want := `{"object":"list","data":[{"id":"beam","object":"model","created":1,"owned_by":"vllm","max_model_len":32768}]}`
	if resp.StatusCode != 200 || strings.TrimSpace(string(data)) != want {
		t.Errorf("%d %s\nwant %s", resp.StatusCode, data, want)
	}
}
