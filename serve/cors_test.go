package serve

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// preflight sends a CORS preflight as a browser does.
func preflight(t *testing.T, base, path, origin, method, headers string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodOptions, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", method)
	if headers != "" {
		req.Header.Set("Access-Control-Request-Headers", headers)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// The headers the OpenAI and Anthropic SDKs send from a browser, as a
// preflight lists them.
const (
	openAIBrowserHeaders    = "authorization,content-type,x-stainless-arch,x-stainless-lang,x-stainless-os,x-stainless-package-version,x-stainless-retry-count,x-stainless-runtime,x-stainless-runtime-version,x-stainless-timeout"
	anthropicBrowserHeaders = "anthropic-dangerous-direct-browser-access,anthropic-version,anthropic-beta,content-type,x-api-key,x-stainless-lang,x-stainless-retry-count,x-stainless-helper-method"
)

// With --cors-origins a preflight from an allowed origin is a 204 listing
// the methods and every header the SDKs send, with no key needed; replies
// to that origin carry Access-Control-Allow-Origin, the 401 included, and
// vary by Origin. Other origins get no CORS headers and a 403 preflight.
// Before, a preflight was a 405 and no reply carried CORS headers.
func TestCORS(t *testing.T) {
	const app = "https://app.example.com"
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) {
		c.APIKeys = []string{"k"}
		c.CORSOrigins = []string{app, "http://localhost:3000"}
	})
	u := gw.URL

	for _, tt := range []struct{ path, method, headers string }{
		{"/v1/chat/completions", "POST", openAIBrowserHeaders},
		{"/v1/responses", "POST", openAIBrowserHeaders},
		{"/v1/messages", "POST", anthropicBrowserHeaders},
		{"/v1/messages/count_tokens", "POST", anthropicBrowserHeaders},
		{"/v1/models", "GET", "authorization"},
	} {
		resp := preflight(t, u, tt.path, app, tt.method, tt.headers)
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("preflight %s: %d", tt.path, resp.StatusCode)
		}
		h := resp.Header
		if h.Get("Access-Control-Allow-Origin") != app {
			t.Errorf("%s: Access-Control-Allow-Origin %q", tt.path, h.Get("Access-Control-Allow-Origin"))
		}
		if m := h.Get("Access-Control-Allow-Methods"); !strings.Contains(m, tt.method) {
			t.Errorf("%s: Access-Control-Allow-Methods %q lacks %s", tt.path, m, tt.method)
		}
		allowed := strings.Split(strings.ReplaceAll(h.Get("Access-Control-Allow-Headers"), " ", ""), ",")
		for _, name := range strings.Split(tt.headers, ",") {
			if !slices.Contains(allowed, name) {
				t.Errorf("%s: Access-Control-Allow-Headers %q lacks %s", tt.path, h.Get("Access-Control-Allow-Headers"), name)
			}
		}
		if !slices.Contains(h.Values("Vary"), "Origin") {
			t.Errorf("%s: Vary %q", tt.path, h.Values("Vary"))
		}
		if h.Get("Access-Control-Max-Age") == "" {
			t.Errorf("%s: no Access-Control-Max-Age", tt.path)
		}
	}

	// The request itself: allowed origin, with and without the key.
	for _, tt := range []struct {
		header map[string]string
		status int
	}{{map[string]string{"Authorization": "Bearer k"}, 200}, {nil, 401}} {
		tt.header = mergeHeaders(tt.header, map[string]string{"Origin": app})
		resp, data := do(t, gw, "POST", "/v1/chat/completions", chatBody, tt.header)
		if resp.StatusCode != tt.status {
			t.Fatalf("POST from %s: %d %s", app, resp.StatusCode, data)
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != app || !slices.Contains(resp.Header.Values("Vary"), "Origin") {
			t.Errorf("POST from %s (%d): headers %v", app, tt.status, resp.Header)
		}
		if h := resp.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(h, "X-Request-Id") || !strings.Contains(h, "X-Beam-Unenforced") {
			t.Errorf("X-Request-Id or X-Beam-Unenforced is not exposed: %v", resp.Header)
		}
	}

	// Another origin.
	if resp := preflight(t, u, "/v1/chat/completions", "https://evil.example", "POST", "authorization"); resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ := do(t, gw, "POST", "/v1/chat/completions", chatBody, map[string]string{"Origin": "https://evil.example", "Authorization": "Bearer k"})
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a reply to another origin carries Access-Control-Allow-Origin")
	}
	// A method the endpoint does not take, a header not allowed.
	if resp := preflight(t, u, "/v1/chat/completions", app, "DELETE", ""); resp.StatusCode != 405 {
		t.Errorf("preflight for DELETE: %d", resp.StatusCode)
	}
	if resp := preflight(t, u, "/v1/chat/completions", app, "POST", "authorization,x-evil"); resp.StatusCode != 403 {
		t.Errorf("preflight asking for x-evil: %d", resp.StatusCode)
	}
	// A plain OPTIONS (no preflight) is a wrong method.
	if resp, _ := do(t, gw, "OPTIONS", "/v1/chat/completions", "", map[string]string{"Authorization": "Bearer k"}); resp.StatusCode != 405 {
		t.Errorf("OPTIONS without preflight headers: %d", resp.StatusCode)
	}
}

// With no origins configured (the default), no reply carries CORS headers
// and a preflight is refused; "*" allows any origin.
func TestCORSDefaultAndAny(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	closed := newGateway(t, fe)
	if resp := preflight(t, closed.URL, "/v1/chat/completions", "https://a.example", "POST", "content-type"); resp.StatusCode != 403 ||
		resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Header.Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("default preflight: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ := do(t, closed, "POST", "/v1/chat/completions", chatBody, map[string]string{"Origin": "https://a.example"})
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Header.Get("Vary") != "" {
		t.Errorf("default: %d %v", resp.StatusCode, resp.Header)
	}

	anyOrigin := newGateway(t, fe, func(c *Config) { c.CORSOrigins = []string{"*"} })
	for _, origin := range []string{"https://a.example", "http://localhost:5173"} {
		resp := preflight(t, anyOrigin.URL, "/v1/messages", origin, "POST", anthropicBrowserHeaders)
		if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("* and %s: %d %v", origin, resp.StatusCode, resp.Header)
		}
	}
}

// New refuses an origin that is not scheme://host[:port] or *; the
// command line's --cors-origins list is checked by the same rule
// (internal/access).
func TestCORSOriginsChecked(t *testing.T) {
	for _, bad := range []string{"a.example", "https://a.example/path", "https://a.example?x=1", "https://user@a.example", "mailto:x@y"} {
		if _, err := New(Config{Backend: "http://127.0.0.1:1", CORSOrigins: []string{bad}}); err == nil || !strings.Contains(err.Error(), "cors origin") {
			t.Errorf("New with the origin %q: %v", bad, err)
		}
	}
	if _, err := New(Config{Backend: "http://127.0.0.1:1", CORSOrigins: []string{"https://a.example", "http://localhost:3000", "*"}}); err != nil {
		t.Error(err)
	}
}

func mergeHeaders(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
