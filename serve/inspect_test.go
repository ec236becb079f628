package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/console"
)

// inspectGateway is a gateway with an API key and an inspector of n
// requests in front of fe.
func inspectGateway(t *testing.T, fe *fakeEngine, n int, redact bool) *httptest.Server {
	t.Helper()
	s, err := New(Config{Backend: fe.srv.URL, APIKeys: []string{"sk-test"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Inspect(n, 0, redact)
	gw := httptest.NewServer(s)
	t.Cleanup(gw.Close)
	return gw
}

// get GETs path with the key (or none) and decodes the JSON reply into v.
func get(t *testing.T, gw *httptest.Server, path, key string, v any) int {
	t.Helper()
	req, _ := http.NewRequest("GET", gw.URL+path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if v != nil {
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("GET %s: %d %q: %v", path, resp.StatusCode, data, err)
		}
	}
	return resp.StatusCode
}

func chat(t *testing.T, gw *httptest.Server, body string) {
	t.Helper()
	req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("chat: %d %s", resp.StatusCode, data)
	}
}

const inspectChat = `{"model": "beam", "messages": [
  {"role": "user", "content": "What is 2 + 2?"},
  {"role": "assistant", "reasoning_content": "Simple arithmetic.", "content": "4"},
  {"role": "user", "content": "And 3 + 3?"}]}`

// The inspector keeps each request with its body, the prompt the engine
// got and its spans, the engine request, the raw generation and the parsed
// reply; its calls need the key, the console's page does not; it keeps the
// last N.
func TestInspectRecords(t *testing.T) {
	gen := answerText("Add them.", "6")
	fe := newFakeEngine(t, fixed(answer("Add them.", "6")))
	gw := inspectGateway(t, fe, 2, false)
	chat(t, gw, inspectChat)

	if code := get(t, gw, "/console/api/requests", "", nil); code != http.StatusUnauthorized {
		t.Errorf("the inspector without a key: %d, want 401", code)
	}
	if code := get(t, gw, "/console/", "", nil); code != http.StatusOK {
		t.Errorf("the console's page without a key: %d, want 200", code)
	}
	if code := get(t, gw, "/console", "", nil); code != http.StatusMovedPermanently {
		t.Errorf("/console: %d, want a redirect to /console/", code)
	}
	var list struct{ Requests []console.Summary }
	if code := get(t, gw, "/console/api/requests", "sk-test", &list); code != 200 || len(list.Requests) != 1 {
		t.Fatalf("list: %d %+v", code, list)
	}
	var rec console.Record
	get(t, gw, "/console/api/requests/1", "sk-test", &rec)
	req, err := harmony.ParseRequest([]byte(inspectChat))
	if err != nil {
		t.Fatal(err)
	}
	req.RequireReasoning = true
	p, err := harmony.RenderPrompt(req.Messages, &req.Options)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Prompt != p.Text || rec.Prompt != fe.lastRequest(t).Prompt {
		t.Errorf("prompt kept %q\nthe engine got %q", rec.Prompt, fe.lastRequest(t).Prompt)
	}
	if len(rec.Spans) != 1 || rec.Spans[0] != [2]int{p.CharSpans()[0].Start, p.CharSpans()[0].End} {
		t.Errorf("spans %v, want %v", rec.Spans, p.CharSpans())
	}
	if rec.Body != inspectChat || rec.API != "chat completion" || rec.Status != 200 || rec.Model != "beam" {
		t.Errorf("body %q api %q status %d model %q", rec.Body, rec.API, rec.Status, rec.Model)
	}
	if rec.Generation != gen || !strings.Contains(rec.Reply, `"content": "6"`) || !strings.Contains(rec.EngineRequest, `"prompt":`) {
		t.Errorf("generation %q reply %q engine request %.100q", rec.Generation, rec.Reply, rec.EngineRequest)
	}
	chat(t, gw, inspectChat)
	chat(t, gw, inspectChat)
	get(t, gw, "/console/api/requests", "sk-test", &list)
	if len(list.Requests) != 2 || list.Requests[0].Seq != 3 {
		t.Errorf("after three requests with --inspect 2: %+v", list.Requests)
	}
}

// --inspect-redact keeps the shape and replaces the message text: in the
// body, the prompt, the engine request, the generation and the reply.
func TestInspectRedact(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("Secret reasoning.", "Secret answer.")))
	gw := inspectGateway(t, fe, 5, true)
	chat(t, gw, `{"model": "beam", "messages": [{"role": "user", "content": "Secret question?"}]}`)
	var rec console.Record
	get(t, gw, "/console/api/requests/1", "sk-test", &rec)
	all := rec.Body + rec.Prompt + rec.EngineRequest + rec.Generation + rec.Reply
	if strings.Contains(all, "Secret") {
		t.Errorf("redacted record holds message text: %s", all)
	}
	if !rec.Redacted || !strings.Contains(rec.Prompt, "<|start|>user<|message|>[redacted: 16 bytes]<|end|>") ||
		!strings.Contains(rec.Generation, "<|channel|>final<|message|>[redacted: 14 bytes]<|return|>") || !strings.Contains(rec.Body, `"role":"user"`) {
		t.Errorf("redacted record: prompt %q generation %q body %q", rec.Prompt, rec.Generation, rec.Body)
	}
}
