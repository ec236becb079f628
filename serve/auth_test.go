package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const (
	chatBody = `{"model":"beam","messages":[{"role":"user","content":"Hi"}]}`
	msgsBody = `{"model":"beam","max_tokens":50,"messages":[{"role":"user","content":"Hi"}]}`
	respBody = `{"model":"beam","input":"Hi"}`
)

// do sends one request to the gateway with the given headers.
func do(t testing.TB, gw *httptest.Server, method, path, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, gw.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

func bearer(k string) map[string]string  { return map[string]string{"Authorization": "Bearer " + k} }
func xAPIKey(k string) map[string]string { return map[string]string{"X-Api-Key": k} }

// anthropicErrorJSON is an Anthropic error object.
type anthropicErrorJSON struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// With keys, each route takes the key in the headers its API's SDKs send
// it in, and answers without one, or with a wrong one, a 401 in its API's
// error shape, without asking the engine. Before, the gateway had no keys
// at all: Config.APIKeys did not exist.
func TestAPIKeys(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) { c.APIKeys = []string{"key-one", "key-two"}; c.Model = "beam" })
	tests := []struct {
		name       string
		method     string
		path, body string
		header     map[string]string
		status     int
		anthropic  bool   // the 401 is in Anthropic's shape
		code       string // the OpenAI error code of a 401
	}{
		{"chat: bearer", "POST", "/v1/chat/completions", chatBody, bearer("key-one"), 200, false, ""},
		{"chat: second key", "POST", "/v1/chat/completions", chatBody, bearer("key-two"), 200, false, ""},
		{"chat: no key", "POST", "/v1/chat/completions", chatBody, nil, 401, false, "missing_api_key"},
		{"chat: wrong key", "POST", "/v1/chat/completions", chatBody, bearer("key-three"), 401, false, "invalid_api_key"},
		{"chat: a key's prefix", "POST", "/v1/chat/completions", chatBody, bearer("key-on"), 401, false, "invalid_api_key"},
		{"chat: a key and more", "POST", "/v1/chat/completions", chatBody, bearer("key-one1"), 401, false, "invalid_api_key"},
		{"chat: not bearer", "POST", "/v1/chat/completions", chatBody, map[string]string{"Authorization": "Basic a2V5LW9uZQ=="}, 401, false, "invalid_api_key"},
		// A valid key under another scheme is not a bearer token: accepting
		// any scheme is a mutation these cases catch (issue 35 item 5).
		{"chat: a valid key under another scheme", "POST", "/v1/chat/completions", chatBody, map[string]string{"Authorization": "Token key-one"}, 401, false, "invalid_api_key"},
		{"chat: a valid key without a scheme", "POST", "/v1/chat/completions", chatBody, map[string]string{"Authorization": "key-one"}, 401, false, "invalid_api_key"},
		{"messages: a valid key under another scheme", "POST", "/v1/messages", msgsBody, map[string]string{"Authorization": "Basic key-two"}, 401, true, ""},
		{"models: a valid key under another scheme", "GET", "/v1/models", "", map[string]string{"Authorization": "Key key-one"}, 401, false, "invalid_api_key"},
		{"chat: x-api-key is not read", "POST", "/v1/chat/completions", chatBody, xAPIKey("key-one"), 401, false, "missing_api_key"},
		{"chat without /v1", "POST", "/chat/completions", chatBody, nil, 401, false, "missing_api_key"},
		{"responses: bearer", "POST", "/v1/responses", respBody, bearer("key-two"), 200, false, ""},
		{"responses: no key", "POST", "/v1/responses", respBody, nil, 401, false, "missing_api_key"},
		{"messages: x-api-key", "POST", "/v1/messages", msgsBody, xAPIKey("key-one"), 200, true, ""},
		{"messages: bearer", "POST", "/v1/messages", msgsBody, bearer("key-two"), 200, true, ""},
		{"messages: no key", "POST", "/v1/messages", msgsBody, nil, 401, true, ""},
		{"messages: wrong x-api-key", "POST", "/v1/messages", msgsBody, xAPIKey("nope"), 401, true, ""},
		{"messages: wrong bearer", "POST", "/v1/messages", msgsBody, bearer("nope"), 401, true, ""},
		{"count_tokens: no key", "POST", "/v1/messages/count_tokens", msgsBody, nil, 401, true, ""},
		{"count_tokens: x-api-key", "POST", "/v1/messages/count_tokens", msgsBody, xAPIKey("key-one"), 501, true, ""},
		{"models: bearer", "GET", "/v1/models", "", bearer("key-one"), 200, false, ""},
		{"models: x-api-key", "GET", "/v1/models", "", xAPIKey("key-one"), 200, false, ""},
		{"models: no key", "GET", "/v1/models", "", nil, 401, false, "missing_api_key"},
		{"models: an Anthropic client's wrong key", "GET", "/v1/models", "", map[string]string{"X-Api-Key": "nope", "Anthropic-Version": "2023-06-01"}, 401, true, ""},
		{"metrics: no key", "GET", "/metrics", "", nil, 401, false, "missing_api_key"},
		{"metrics: bearer", "GET", "/metrics", "", bearer("key-two"), 200, false, ""},
		{"a wrong method needs the key first", "GET", "/v1/chat/completions", "", nil, 401, false, "missing_api_key"},
		{"a wrong method with the key", "GET", "/v1/chat/completions", "", bearer("key-one"), 405, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fe.requests())
			resp, data := do(t, gw, tt.method, tt.path, tt.body, tt.header)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, data)
			}
			if tt.status != 401 {
				return
			}
			if len(fe.requests()) != before {
				t.Errorf("the engine was asked")
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("WWW-Authenticate %q", got)
			}
			if tt.anthropic {
				var e anthropicErrorJSON
				if err := json.Unmarshal(data, &e); err != nil || e.Type != "error" || e.Error.Type != "authentication_error" || e.Error.Message == "" {
					t.Errorf("not Anthropic's authentication_error: %s", data)
				}
				return
			}
			e := decodeError(t, data)
			if e.Error.Code == nil || *e.Error.Code != tt.code || e.Error.Type != "invalid_request_error" {
				t.Errorf("error %s, want code %s", data, tt.code)
			}
			if strings.Contains(string(data), "key-one") || strings.Contains(string(data), "key-two") {
				t.Errorf("the reply shows a key: %s", data)
			}
		})
	}
}

// Without keys everything is open, as before the keys existed.
func TestNoAPIKeys(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) { c.Model = "beam" })
	for _, path := range []string{"/v1/chat/completions", "/v1/responses", "/v1/messages"} {
		body := map[string]string{"/v1/chat/completions": chatBody, "/v1/responses": respBody, "/v1/messages": msgsBody}[path]
		if resp, data := do(t, gw, "POST", path, body, nil); resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", path, resp.StatusCode, data)
		}
	}
	resp, data := do(t, gw, "GET", "/health", "", nil)
	if resp.StatusCode != 200 || !strings.Contains(string(data), fe.srv.URL) {
		t.Errorf("/health without keys: %d %s, want the engine's details", resp.StatusCode, data)
	}
}

// /health stays open with keys, but names the engine only to a request
// with a valid key (before, it showed the engine's URL to anyone).
func TestHealthDetailsNeedKey(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) { c.APIKeys = []string{"sekrit"} })
	for _, engineStatus := range []int32{0, 503} {
		fe.health.Store(engineStatus)
		want := 200
		if engineStatus == 503 {
			want = 503
		}
		for _, h := range []map[string]string{nil, bearer("wrong"), xAPIKey("wrong")} {
			resp, data := do(t, gw, "GET", "/health", "", h)
			if resp.StatusCode != want {
				t.Fatalf("engine %d, headers %v: %d %s", engineStatus, h, resp.StatusCode, data)
			}
			var body map[string]any
			if err := json.Unmarshal(data, &body); err != nil {
				t.Fatal(err)
			}
			if len(body) != 1 || (body["status"] != "ok" && body["status"] != "unavailable") {
				t.Errorf("engine %d, headers %v: %s, want only the status", engineStatus, h, data)
			}
			if strings.Contains(string(data), strings.TrimPrefix(fe.srv.URL, "http://")) {
				t.Errorf("the engine's address shown without a key: %s", data)
			}
		}
		for _, h := range []map[string]string{bearer("sekrit"), xAPIKey("sekrit")} {
			resp, data := do(t, gw, "GET", "/health", "", h)
			if resp.StatusCode != want || !strings.Contains(string(data), fe.srv.URL) || !strings.Contains(string(data), `"engine"`) {
				t.Errorf("engine %d with the key: %d %s, want the engine's details", engineStatus, resp.StatusCode, data)
			}
		}
	}
}

// SetAPIKeys swaps the keys of a running server; an empty or invalid list
// keeps the current keys, and a server started without keys stays open.
func TestSetAPIKeys(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	s, err := New(Config{Backend: fe.srv.URL, APIKeys: []string{"old"}})
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(s)
	defer gw.Close()
	status := func(key string) int {
		resp, _ := do(t, gw, "GET", "/metrics", "", bearer(key))
		return resp.StatusCode
	}
	if status("old") != 200 || status("new") != 401 {
		t.Fatal("before the swap")
	}
	if err := s.SetAPIKeys([]string{"new", "newer"}); err != nil {
		t.Fatal(err)
	}
	if status("old") != 401 || status("new") != 200 || status("newer") != 200 {
		t.Error("after the swap: old must be refused, new ones accepted")
	}
	for _, bad := range [][]string{nil, {}, {""}, {"has space"}, {"ok", "tab\there"}, {strings.Repeat("k", maxKeyLen+1)}} {
		if err := s.SetAPIKeys(bad); err == nil {
			t.Errorf("SetAPIKeys(%q) succeeded", bad)
		} else if len(bad) == 2 && strings.Contains(err.Error(), "tab") {
			t.Errorf("the error shows the key: %v", err)
		}
	}
	if status("new") != 200 {
		t.Error("a refused list replaced the keys")
	}
	open, err := New(Config{Backend: fe.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := open.SetAPIKeys([]string{"k"}); err == nil || open.AuthEnabled() {
		t.Error("a server started without keys took keys")
	}
	if _, err := New(Config{Backend: fe.srv.URL, APIKeys: []string{"bad key"}}); err == nil {
		t.Error("New accepted a key with a space")
	}
}

// The key comparison: every key of the set matches, nothing else does,
// prefixes and extensions included.
func TestKeySetMatch(t *testing.T) {
	ks, err := newKeySet([]string{"abc", "abcdef", strings.Repeat("z", maxKeyLen)})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{
		"abc": true, "abcdef": true, strings.Repeat("z", maxKeyLen): true,
		"": false, "ab": false, "abcd": false, "abcdefg": false, "ABC": false, strings.Repeat("z", maxKeyLen+1): false,
	} {
		if got := ks.match(key); got != want {
			t.Errorf("match(%.10q) = %v, want %v", key, got, want)
		}
	}
}

// With SeparateMetrics, /metrics leaves the API's port and MetricsHandler
// serves it without a key.
func TestSeparateMetrics(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	s, err := New(Config{Backend: fe.srv.URL, APIKeys: []string{"k"}, SeparateMetrics: true})
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(s)
	defer gw.Close()
	if resp, data := do(t, gw, "GET", "/metrics", "", bearer("k")); resp.StatusCode != 404 || !strings.Contains(string(data), "--metrics-listen") {
		t.Errorf("/metrics on the API port: %d %s", resp.StatusCode, data)
	}
	ms := httptest.NewServer(s.MetricsHandler())
	defer ms.Close()
	if resp, data := do(t, ms, "GET", "/metrics", "", nil); resp.StatusCode != 200 || !strings.Contains(string(data), "beamharmony_requests_total") {
		t.Errorf("the metrics listener: %d %.200s", resp.StatusCode, data)
	}
	if resp, _ := do(t, ms, "GET", "/v1/models", "", nil); resp.StatusCode != 404 {
		t.Errorf("the metrics listener serves /v1/models: %d", resp.StatusCode)
	}
	if resp, _ := do(t, ms, "POST", "/metrics", "{}", nil); resp.StatusCode != 405 {
		t.Errorf("POST /metrics: %d", resp.StatusCode)
	}
}
