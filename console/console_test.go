package console_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/beamharmony/harmony/console"
)

func call(t *testing.T, h http.Handler, method, path, body string) (int, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
	var v map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("%s %s: reply %q is not a JSON object: %v", method, path, rec.Body.String(), err)
	}
	return rec.Code, v
}

func request(req string) string {
	b, _ := json.Marshal(map[string]any{"request": req})
	return string(b)
}

// Bad input gets a clear error, never a panic: each call's body is capped,
// must be the call's JSON, and a request that does not render is a 422
// with render's text and where the error is.
func TestAPIBadInput(t *testing.T) {
	h := console.New(console.Config{MaxBodyBytes: 1 << 10, MaxUploadBytes: 1 << 10})
	tests := []struct {
		name, method, path, body string
		status                   int
		errPrefix                string
	}{
		{"body over the cap", "POST", "/api/render", request(strings.Repeat(" ", 2<<10)), 413, "the body is larger than the console's limit of 1 KiB"},
		{"not JSON", "POST", "/api/render", "{", 400, "console call body: "},
		{"unknown field", "POST", "/api/render", `{"reqest": "{}"}`, 400, "console call body: json: unknown field"},
		{"invalid request JSON", "POST", "/api/render", request(`{"messages": [`), 422, "request: invalid JSON at byte 14"},
		{"missing reasoning, with render's hint", "POST", "/api/render", request(`{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}], "allow_missing_thinking": false}`), 422, "The assistant turn at messages[1] is missing its reasoning."},
		{"both late-instruction flags", "POST", "/api/render", `{"request": "{\"messages\": []}", "strict": true, "drop_late_instructions": true}`, 422, "--strict and --drop-late-instructions can't be combined"},
		{"tokens without a tokenizer", "POST", "/api/tokens", request(`{"messages": []}`), 404, "no tokenizer: start the console with --tokenizer PATH"},
		{"GET a POST call", "GET", "/api/render", "", 405, "GET /api/render: use POST"},
		{"unknown call", "GET", "/api/nothing", "", 404, "no such console call"},
		{"bad constraint", "POST", "/api/grammar", `{"request": "{\"messages\": []}", "constraints": {"tool_choice": "sometimes"}}`, 422, `constraints.tool_choice: "sometimes"`},
		{"named tool not declared", "POST", "/api/grammar", `{"request": "{\"messages\": []}", "constraints": {"tool_choice": {"type": "function", "function": {"name": "f"}}}}`, 422, `constraints.tool_choice.function.name: "f" is not a declared tool`},
		{"upload over the cap", "POST", "/api/dataset", strings.Repeat("x", 2<<10), 413, "the body is larger"},
		{"upload not JSONL", "POST", "/api/dataset", "hello", 422, "line 1: not a JSON object"},
		{"inspector off", "GET", "/api/requests", "", 404, "the inspector is off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, v := call(t, h, tt.method, tt.path, tt.body)
			msg, _ := v["error"].(string)
			if status != tt.status || !strings.HasPrefix(msg, tt.errPrefix) {
				t.Errorf("%d %q, want %d %q...", status, msg, tt.status, tt.errPrefix)
			}
		})
	}
}

// The grammar call compiles what the gateway would send: nothing for free
// generation, a grammar for a required call.
func TestAPIGrammar(t *testing.T) {
	h := console.New(console.Config{})
	req := `{"messages": [{"role": "user", "content": "Weather?"}], "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]}`
	body, _ := json.Marshal(map[string]any{"request": req})
	status, v := call(t, h, "POST", "/api/grammar", string(body))
	if status != 200 || v["constrained"] != false {
		t.Errorf("free generation: %d %v", status, v)
	}
	body, _ = json.Marshal(map[string]any{"request": req, "constraints": map[string]any{"tool_choice": "required"}})
	status, v = call(t, h, "POST", "/api/grammar", string(body))
	if g, _ := v["gbnf"].(string); status != 200 || !strings.Contains(g, "get_weather") {
		t.Errorf("required: %d %v", status, v)
	}
	// A string's maxLength: enforced in the GBNF, left out of the EBNF
	// (compiled for xgrammar, gap decision 266) and listed for it alone.
	body, _ = json.Marshal(map[string]any{"request": `{"messages": [{"role": "user", "content": "Name?"}]}`,
		"constraints": map[string]any{"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"schema": map[string]any{"type": "string", "maxLength": 40}}}}})
	status, v = call(t, h, "POST", "/api/grammar", string(body))
	gbnf, _ := v["gbnf"].(string)
	ebnf, _ := v["ebnf"].(string)
	if status != 200 || !strings.Contains(gbnf, "{0,40}") || strings.Contains(ebnf, "xg-upto") ||
		fmt.Sprint(v["dropped"]) != "[]" || fmt.Sprint(v["ebnf_dropped"]) != "[response_format.json_schema.schema.maxLength]" {
		t.Errorf("maxLength: %d dropped %v, ebnf_dropped %v\n%s\n%s", status, v["dropped"], v["ebnf_dropped"], gbnf, ebnf)
	}
}

// The inspector keeps the last N records within its byte budget, the
// oldest evicted first, and serves the list and each record.
func TestInspectorBounds(t *testing.T) {
	in := console.NewInspector(3, 10<<10, false)
	for i := range 5 {
		in.Add(&console.Record{ID: "r" + string(rune('0'+i)), Time: time.Unix(0, 0), Prompt: "p"})
	}
	list := in.List()
	if len(list) != 3 || list[0].ID != "r4" || list[2].ID != "r2" {
		t.Fatalf("count bound: kept %+v, want r4, r3, r2", list)
	}
	in.Add(&console.Record{ID: "big", Body: strings.Repeat("b", 6<<10)})
	in.Add(&console.Record{ID: "big2", Body: strings.Repeat("b", 6<<10)})
	if list := in.List(); len(list) != 1 || list[0].ID != "big2" || in.Bytes() > 10<<10 {
		t.Fatalf("byte bound: kept %d records, %d bytes: %+v", len(list), in.Bytes(), list)
	}
	in.Add(&console.Record{ID: "huge", Body: strings.Repeat("b", 20<<10), Prompt: "kept"})
	if r := in.Get(in.List()[0].Seq); r.Body != "" || r.Prompt != "kept" || len(r.Cut) != 1 || r.Cut[0] != "body" {
		t.Fatalf("a record over the budget: body %d bytes, cut %v", len(r.Body), r.Cut)
	}
	h := console.New(console.Config{Inspector: in})
	status, v := call(t, h, "GET", "/api/requests", "")
	if status != 200 || len(v["requests"].([]any)) != 2 || v["bytes"].(float64) > 10<<10 {
		t.Errorf("list: %d %v", status, v)
	}
	status, v = call(t, h, "GET", "/api/requests/1", "")
	if status != 404 || !strings.Contains(v["error"].(string), "no longer kept") {
		t.Errorf("an evicted record: %d %v", status, v)
	}
}

// The page and its files are served with a policy that loads nothing from
// elsewhere.
func TestPageServed(t *testing.T) {
	h := console.New(console.Config{})
	for _, p := range []string{"/", "/static/app.js", "/static/style.css"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 200 || rec.Body.Len() == 0 {
			t.Errorf("GET %s: %d", p, rec.Code)
		}
		// The SVG namespace is a name, not an address the page loads.
		body := bytes.ReplaceAll(rec.Body.Bytes(), []byte("http://www.w3.org/2000/svg"), nil)
		if bytes.Contains(body, []byte("https://")) || bytes.Contains(body, []byte("http://")) {
			t.Errorf("GET %s: the page names another site", p)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
}
