package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The hosted web search end to end: a fake SearXNG and a fake web site on
// 127.0.0.1, and an engine that searches, then browses, then answers.

const pageHTML = `<!doctype html><html><head><title>Beam  Harmony &amp; friends</title>
<style>body { color: red }</style><script>var secret = "not text";</script></head>
<body><h1>Beam Harmony</h1><p>The format has two channels:&nbsp;analysis and final.</p>
<!-- a comment --><div>Markers like <code>&lt;|end|&gt;</code> stay text.</div></body></html>`

// webFakes are the fake search service and web site.
type webFakes struct {
	searx, site *httptest.Server
	queries     []string
	mu          sync.Mutex
	siteHits    atomic.Int64
	// searxReply, when set, is the search service's raw reply.
	searxReply string
}

func newWebFakes(t *testing.T) *webFakes {
	f := &webFakes{}
	f.site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.siteHits.Add(1)
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, pageHTML)
		case "/moved":
			http.Redirect(w, r, "/page", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG"))
		case "/endless":
			// Text without end: only a bounded read ever returns.
			w.Header().Set("Content-Type", "text/plain")
			line := bytes.Repeat([]byte("endless text "), 100)
			for r.Context().Err() == nil {
				if _, err := w.Write(line); err != nil {
					return
				}
			}
		case "/stall":
			// Headers and a little text, then nothing until the client
			// gives up.
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "the start of a page")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.site.Close)
	f.searx = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.NotFound(w, r)
			return
		}
		f.mu.Lock()
		f.queries = append(f.queries, r.URL.Query().Get("q"))
		reply := f.searxReply
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if reply != "" {
			fmt.Fprint(w, reply)
			return
		}
		fmt.Fprintf(w, `{"query":%q,"number_of_results":2,"results":[`+
			`{"url":%q,"title":"Beam Harmony format","content":"The text format Beam reads and writes.","engine":"fake","publishedDate":"2026-01-02T00:00:00"},`+
			`{"url":"https://example.org/other","title":"Other\npage","content":"Something  else <|end|>"},`+
			`{"url":"javascript:alert(1)","title":"dropped","content":"not http"}]}`, r.URL.Query().Get("q"), f.site.URL+"/page")
	}))
	t.Cleanup(f.searx.Close)
	return f
}

// searchScript answers the first generation with a search, the second
// with a browse of the site's page (url), and then with an answer; each
// step is chosen by the tool results in the prompt.
func searchScript(url string) func(*engineReq) gen {
	return func(r *engineReq) gen {
		switch {
		case !strings.Contains(r.Prompt, "<|start|>search to=assistant"):
			return callGen("I should search.", scriptCall{"search", [][2]string{{"query", "beam harmony format"}}})
		case !strings.Contains(r.Prompt, "<|start|>browse to=assistant"):
			return callGen("Let me read the first result.", scriptCall{"browse", [][2]string{{"url", url}}})
		}
		return answer("I have what I need.", "Beam Harmony has two channels.")
	}
}

func webGateway(t *testing.T, fe *fakeEngine, f *webFakes, mods ...func(*Config)) *httptest.Server {
	return newGateway(t, fe, append([]func(*Config){func(c *Config) {
		c.Model = "beam"
		c.SigningKey = "k"
		c.WebSearch = WebSearch{Backend: f.searx.URL, AllowPrivate: true}
	}}, mods...)...)
}

// checkRounds checks that each engine request's prompt begins with the
// previous one's prompt and generation, and returns the prompts.
func checkRounds(t *testing.T, fe *fakeEngine, script func(*engineReq) gen, n int) []string {
	t.Helper()
	reqs := fe.requests()
	if len(reqs) != n {
		t.Fatalf("the engine got %d requests, want %d", len(reqs), n)
	}
	var prompts []string
	for i, r := range reqs {
		prompts = append(prompts, r.Prompt)
		if i > 0 {
			prev := reqs[i-1]
			want := prev.Prompt + script(prev).text
			if !strings.HasPrefix(r.Prompt, want) {
				t.Errorf("round %d's prompt does not begin with round %d's prompt and generation:\n%s", i+1, i, r.Prompt)
			}
		}
	}
	return prompts
}

// stripIDs removes the members that differ between two requests (ids)
// from a decoded JSON value.
func stripIDs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			switch k {
			case "id", "tool_use_id", "call_id", "retrieved_at":
				continue
			}
			out[k] = stripIDs(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = stripIDs(x)
		}
		return out
	}
	return v
}

func TestWebSearchResponses(t *testing.T) {
	f := newWebFakes(t)
	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", streamed), func(t *testing.T) {
			script := searchScript(f.site.URL + "/page")
			fe := newFakeEngine(t, script)
			gw := webGateway(t, fe, f)
			body := `{"input":"What channels does Beam Harmony have?","stream":` + fmt.Sprint(streamed) + `,"tools":[{"type":"web_search","external_web_access":true}]}`
			resp, data := postResponses(t, gw, body)
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, data)
			}
			if h := resp.Header.Get(UnenforcedHeader); h != "" {
				t.Errorf("%s: %q; the web search runs, nothing is left out", UnenforcedHeader, h)
			}
			var output []any
			if !streamed {
				var r struct {
					Output []any `json:"output"`
				}
				if err := json.Unmarshal(data, &r); err != nil {
					t.Fatal(err)
				}
				output = r.Output
			} else {
				output = responsesStreamItems(t, data)
			}
			var kinds []string
			for _, it := range output {
				m := it.(map[string]any)
				k := m["type"].(string)
				if a, ok := m["action"].(map[string]any); ok {
					k += ":" + a["type"].(string) + ":" + fmt.Sprint(a["query"], a["url"]) + ":" + m["status"].(string)
				}
				kinds = append(kinds, k)
			}
			want := []string{"reasoning", "web_search_call:search:beam harmony format<nil>:completed", "reasoning",
				"web_search_call:open_page:<nil>" + f.site.URL + "/page:completed", "reasoning", "message"}
			if !reflect.DeepEqual(kinds, want) {
				t.Errorf("output items\n%q\nwant\n%q", kinds, want)
			}
			prompts := checkRounds(t, fe, script, 3)
			if !strings.Contains(prompts[0], "# Tools\n\n// Search for content on the internet") || strings.Contains(prompts[0], "<|start|>developer<|message|># Tools") {
				t.Errorf("search and browse are not declared as built-in tools in the system message:\n%s", prompts[0])
			}
			for _, want := range []string{
				"<|start|>search to=assistant<|channel|>analysis<|message|>Search results for \"beam harmony format\":\n\n[1] Beam Harmony format\nURL: " + f.site.URL + "/page\nPublished: 2026-01-02T00:00:00\nThe text format Beam reads and writes.\n\n[2] Other page\nURL: https://example.org/other\nSomething else <\u200b|end|><|end|>",
			} {
				if !strings.Contains(prompts[1], want) {
					t.Errorf("round 2's prompt lacks the search result %q:\n%s", want, prompts[1])
				}
			}
			wantPage := "<|start|>browse to=assistant<|channel|>analysis<|message|>URL: " + f.site.URL + "/page\nTitle: Beam Harmony & friends\n\n" +
				"Beam Harmony\n\nThe format has two channels: analysis and final.\n\nMarkers like <\u200b|end|> stay text.<|end|><|start|>assistant"
			if !strings.HasSuffix(prompts[2], wantPage) {
				t.Errorf("round 3's prompt does not end with the page:\n%s", prompts[2])
			}
			if strings.Contains(prompts[2], f.searx.URL) {
				t.Errorf("the prompt names the search backend")
			}
			// The items come back in input: accepted, the calls rendered.
			items, _ := json.Marshal(output)
			resp, data = postResponses(t, gw, `{"input":[{"role":"user","content":"What channels does Beam Harmony have?"},`+
				strings.TrimPrefix(string(items), "[")+`,"tools":[{"type":"web_search"}]}`)
			if resp.StatusCode != 200 {
				t.Fatalf("the items sent back: %d %s", resp.StatusCode, data)
			}
			if p := fe.lastRequest(t).Prompt; !strings.Contains(p, "<|start|>assistant to=browse<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"url\">\n"+f.site.URL+"/page\n</rfl:parameter><|call|><|start|>browse to=assistant") {
				t.Errorf("the browse call is not rendered from its item:\n%s", p)
			}
		})
	}
}

// responsesStreamItems reads a streamed Responses reply: the items of
// its output_item.done events, checked against response.completed's
// output and for the web_search_call events between added and done.
func responsesStreamItems(t *testing.T, data []byte) []any {
	t.Helper()
	events := readSSE(t, bytes.NewReader(data))
	var items, final []any
	var searchEvents []string
	for _, e := range events {
		switch e.name {
		case "response.output_item.done":
			items = append(items, e.data["item"])
		case "response.completed":
			final = e.data["response"].(map[string]any)["output"].([]any)
		}
		if strings.Contains(e.name, "web_search_call") || (strings.HasPrefix(e.name, "response.output_item.") && e.data["item"].(map[string]any)["type"] == "web_search_call") {
			searchEvents = append(searchEvents, e.name)
		}
	}
	if !reflect.DeepEqual(items, final) {
		t.Errorf("the done items differ from response.completed's output:\n%v\n%v", items, final)
	}
	one := []string{"response.output_item.added", "response.web_search_call.in_progress", "response.web_search_call.searching",
		"response.web_search_call.completed", "response.output_item.done"}
	if want := append(append([]string{}, one...), one...); len(items) == 6 && !reflect.DeepEqual(searchEvents, want) {
		t.Errorf("web_search_call events %v, want %v", searchEvents, want)
	}
	return items
}

// TestWebSearchStreamEqualsComplete: the streamed items are the
// non-streamed reply's, ids apart, on both APIs.
func TestWebSearchStreamEqualsComplete(t *testing.T) {
	f := newWebFakes(t)
	script := searchScript(f.site.URL + "/page")
	fe := newFakeEngine(t, script)
	gw := webGateway(t, fe, f)
	t.Run("responses", func(t *testing.T) {
		body := `{"input":"Hi","tools":[{"type":"web_search_preview"}]}`
		_, data := postResponses(t, gw, body)
		var r struct {
			Output []any `json:"output"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		_, sdata := postResponses(t, gw, strings.Replace(body, `{"input"`, `{"stream":true,"input"`, 1))
		got := responsesStreamItems(t, sdata)
		if !reflect.DeepEqual(stripIDs(got), stripIDs(r.Output)) {
			t.Errorf("streamed items\n%v\nnot the reply's\n%v", stripIDs(got), stripIDs(r.Output))
		}
	})
	t.Run("messages", func(t *testing.T) {
		body := `{"max_tokens":100,"messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":3}]}`
		resp := postMessages(t, gw, body)
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		resp = postMessages(t, gw, strings.Replace(body, `{"max_tokens"`, `{"stream":true,"max_tokens"`, 1))
		blocks, usage := messagesStreamBlocks(t, readSSE(t, resp.Body))
		if !reflect.DeepEqual(stripIDs(blocks), stripIDs(m["content"])) {
			t.Errorf("streamed blocks\n%v\nnot the reply's\n%v", stripIDs(blocks), stripIDs(m["content"]))
		}
		if !reflect.DeepEqual(usage["server_tool_use"], m["usage"].(map[string]any)["server_tool_use"]) {
			t.Errorf("streamed usage %v, reply's %v", usage, m["usage"])
		}
	})
}

// messagesStreamBlocks rebuilds a Messages stream's content blocks as a
// client does, and returns them with message_delta's usage.
func messagesStreamBlocks(t *testing.T, events []sseEvent) ([]any, map[string]any) {
	t.Helper()
	var blocks []any
	var partial map[int]*strings.Builder = map[int]*strings.Builder{}
	var usage map[string]any
	for _, e := range events {
		switch e.name {
		case "content_block_start":
			blocks = append(blocks, e.data["content_block"])
		case "content_block_delta":
			b := blocks[len(blocks)-1].(map[string]any)
			d := e.data["delta"].(map[string]any)
			switch d["type"] {
			case "thinking_delta":
				b["thinking"] = b["thinking"].(string) + d["thinking"].(string)
			case "signature_delta":
				b["signature"] = d["signature"]
			case "text_delta":
				b["text"] = b["text"].(string) + d["text"].(string)
			case "input_json_delta":
				i := len(blocks) - 1
				if partial[i] == nil {
					partial[i] = new(strings.Builder)
				}
				partial[i].WriteString(d["partial_json"].(string))
			}
		case "message_delta":
			usage = e.data["usage"].(map[string]any)
		}
	}
	for i, p := range partial {
		var v any
		if err := json.Unmarshal([]byte(p.String()), &v); err != nil {
			t.Fatalf("block %d's input_json_delta is not JSON: %q", i, p.String())
		}
		blocks[i].(map[string]any)["input"] = v
	}
	return blocks, usage
}

func TestWebSearchMessages(t *testing.T) {
	f := newWebFakes(t)
	script := searchScript(f.site.URL + "/page")
	fe := newFakeEngine(t, script)
	gw := webGateway(t, fe, f)
	resp := postMessages(t, gw, `{"max_tokens":100,"messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":3,"user_location":{"type":"approximate","country":"US"}}]}`)
	var m struct {
		Content    []map[string]any `json:"content"`
		StopReason string           `json:"stop_reason"`
		Usage      map[string]any   `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	if h := resp.Header.Get(UnenforcedHeader); h != "tools[0].user_location" {
		t.Errorf("%s: %q, want the option not applied", UnenforcedHeader, h)
	}
	var kinds []string
	for _, b := range m.Content {
		kinds = append(kinds, b["type"].(string)+":"+fmt.Sprint(b["name"]))
	}
	want := []string{"thinking:<nil>", "server_tool_use:web_search", "web_search_tool_result:<nil>", "thinking:<nil>",
		"server_tool_use:web_fetch", "web_fetch_tool_result:<nil>", "thinking:<nil>", "text:<nil>"}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("blocks %q\nwant %q", kinds, want)
	}
	if m.Content[1]["input"].(map[string]any)["query"] != "beam harmony format" || m.Content[2]["tool_use_id"] != m.Content[1]["id"] {
		t.Errorf("server_tool_use %v and its result %v", m.Content[1], m.Content[2])
	}
	hits := m.Content[2]["content"].([]any)
	if len(hits) != 2 || hits[0].(map[string]any)["url"] != f.site.URL+"/page" || hits[0].(map[string]any)["page_age"] != "2026-01-02T00:00:00" ||
		!strings.HasPrefix(hits[0].(map[string]any)["encrypted_content"].(string), sealPrefix) {
		t.Errorf("web_search_tool_result content %v", hits)
	}
	doc := m.Content[5]["content"].(map[string]any)
	if doc["type"] != "web_fetch_result" || !strings.Contains(fmt.Sprint(doc["content"]), "two channels: analysis and final") {
		t.Errorf("web_fetch_tool_result content %v", doc)
	}
	if m.StopReason != "end_turn" || fmt.Sprint(m.Usage["server_tool_use"]) != "map[web_fetch_requests:1 web_search_requests:1]" {
		t.Errorf("stop_reason %s, usage %v", m.StopReason, m.Usage)
	}
	checkRounds(t, fe, script, 3)
	// The turn comes back as the client got it: the next prompt begins
	// with the last round's prompt and generation.
	last := fe.lastRequest(t)
	content, _ := json.Marshal(m.Content)
	resp = postMessages(t, gw, `{"max_tokens":100,"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":`+string(content)+
		`},{"role":"user","content":"Thanks"}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":3,"user_location":{"type":"approximate","country":"US"}}]}`)
	if resp.StatusCode != 200 {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		t.Fatalf("the turn sent back: %d %s", resp.StatusCode, b.String())
	}
	if p := fe.lastRequest(t).Prompt; !strings.HasPrefix(p, last.Prompt+script(last).text) {
		t.Errorf("the next turn's prompt does not begin with the last round's prompt and generation:\n%s", p)
	}
}

// TestWebSearchPrivateAddresses: browse refuses a page on a loopback
// address unless the server allows it; the refusal is a tool result, the
// site never asked.
func TestWebSearchPrivateAddresses(t *testing.T) {
	f := newWebFakes(t)
	for _, tt := range []struct {
		name    string
		allow   bool
		want    string
		fetched bool
	}{
		{"refused by default", false, "Error: 127.0.0.1 is a private, loopback or link-local address, which this gateway does not fetch", false},
		{"allowed by the flag", true, "The format has two channels", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			script := searchScript(f.site.URL + "/page")
			fe := newFakeEngine(t, script)
			gw := webGateway(t, fe, f, func(c *Config) { c.WebSearch.AllowPrivate = tt.allow })
			before := f.siteHits.Load()
			_, data := postResponses(t, gw, `{"input":"Hi","tools":[{"type":"web_search"}]}`)
			prompts := checkRounds(t, fe, script, 3)
			if !strings.Contains(prompts[2], tt.want) {
				t.Errorf("round 3's prompt lacks %q:\n%s", tt.want, prompts[2])
			}
			if fetched := f.siteHits.Load() > before; fetched != tt.fetched {
				t.Errorf("the site was asked: %v, want %v", fetched, tt.fetched)
			}
			status := "completed"
			if !tt.fetched {
				status = "failed"
			}
			if !strings.Contains(string(data), `"type":"web_search_call","status":"`+status+`","action":{"type":"open_page"`) {
				t.Errorf("the open_page call is not %s:\n%s", status, data)
			}
		})
	}
}

// TestWebSearchBackendErrors: whatever the search backend answers, the
// model reads a clean tool result and the client a 200, neither seeing
// the backend's address or words; the log has them.
func TestWebSearchBackendErrors(t *testing.T) {
	for _, tt := range []struct {
		name, reply string
		backend     func(f *webFakes) string
		detail      string
	}{
		{"not JSON", "<html>oops</html>", nil, "not SearXNG JSON"},
		{"no results list", `{"query":"x"}`, nil, "no results list"},
		{"results of the wrong type", `{"results":"many"}`, nil, "not SearXNG JSON"},
		{"too large", `{"results":[],"pad":"` + strings.Repeat("x", maxSearchReplyBytes) + `"}`, nil, "larger than 1 MiB"},
		{"unreachable", "", func(f *webFakes) string { return "http://127.0.0.1:1" }, "search backend:"},
		{"404", "", func(f *webFakes) string { return f.searx.URL + "/nothing" }, "HTTP 404"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newWebFakes(t)
			f.searxReply = tt.reply
			backend := f.searx.URL
			if tt.backend != nil {
				backend = tt.backend(f)
			}
			fe := newFakeEngine(t, func(r *engineReq) gen {
				if !strings.Contains(r.Prompt, "<|start|>search to=assistant") {
					return callGen("search", scriptCall{"search", [][2]string{{"query", "q"}}})
				}
				return answer("no luck", "I could not search.")
			})
			var logs syncBuffer
			gw := webGateway(t, fe, f, withLog(&logs), func(c *Config) { c.WebSearch.Backend = backend })
			resp := postMessages(t, gw, `{"max_tokens":100,"messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"web_search_20250305","name":"web_search"}]}`)
			var buf bytes.Buffer
			buf.ReadFrom(resp.Body)
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, buf.String())
			}
			if !strings.Contains(buf.String(), `"type":"web_search_tool_result","tool_use_id":`) ||
				!strings.Contains(buf.String(), `"content":{"type":"web_search_tool_result_error","error_code":"unavailable"}`) {
				t.Errorf("the reply has no web_search_tool_result_error:\n%s", buf.String())
			}
			p := fe.lastRequest(t).Prompt
			if !strings.Contains(p, "<|start|>search to=assistant<|channel|>analysis<|message|>Error: the search service is unavailable; try again later, or answer without searching<|end|>") {
				t.Errorf("the model does not read the failure:\n%s", p)
			}
			host := strings.TrimPrefix(backend, "http://")
			if strings.Contains(p, host) || strings.Contains(buf.String(), host) {
				t.Errorf("the prompt or the reply names the backend %s", host)
			}
			if !strings.Contains(logs.String(), tt.detail) {
				t.Errorf("the log lacks %q:\n%s", tt.detail, logs.String())
			}
			if got := metric(t, gw, `beamharmony_web_tool_calls_total{outcome="unavailable",tool="search"}`); got != 1 {
				t.Errorf("failed searches counted %v, want 1", got)
			}
		})
	}
}

// TestWebSearchRoundLimit: past the limit the calls are refused in the
// prompt, and a model that calls again ends the reply with them.
func TestWebSearchRoundLimit(t *testing.T) {
	f := newWebFakes(t)
	script := fixed(callGen("again", scriptCall{"search", [][2]string{{"query", "q"}}}))
	fe := newFakeEngine(t, script)
	gw := webGateway(t, fe, f, func(c *Config) { c.WebSearch.MaxRounds = 1 })
	_, data := postResponses(t, gw, `{"input":"Hi","tools":[{"type":"web_search"}]}`)
	prompts := checkRounds(t, fe, script, 3)
	if !strings.Contains(prompts[2], "Error: not run: this request's limit of 1 rounds of web search is reached") {
		t.Errorf("round 3's prompt lacks the refusal:\n%s", prompts[2])
	}
	if len(f.queries) != 1 {
		t.Errorf("the backend was asked %d times, want 1", len(f.queries))
	}
	var r struct {
		Status string           `json:"status"`
		Output []map[string]any `json:"output"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, it := range r.Output {
		kinds = append(kinds, fmt.Sprint(it["type"], ":", it["status"]))
	}
	want := []string{"reasoning:completed", "web_search_call:completed", "reasoning:completed", "web_search_call:failed", "reasoning:completed", "web_search_call:failed"}
	if r.Status != "completed" || !reflect.DeepEqual(kinds, want) {
		t.Errorf("status %s, items %v\nwant %v", r.Status, kinds, want)
	}
}

// TestWebSearchMixedCalls: a client tool called beside a search is
// answered "not run" in the prompt and never reaches the client.
func TestWebSearchMixedCalls(t *testing.T) {
	f := newWebFakes(t)
	fe := newFakeEngine(t, func(r *engineReq) gen {
		if !strings.Contains(r.Prompt, "<|start|>search to=assistant") {
			return callGen("both", scriptCall{"search", [][2]string{{"query", "q"}}}, scriptCall{"exec_command", [][2]string{{"cmd", "ls"}}})
		}
		return callGen("now the command", scriptCall{"exec_command", [][2]string{{"cmd", "ls"}}})
	})
	gw := webGateway(t, fe, f)
	tool := `{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}}}`
	for _, stream := range []string{"false", "true"} {
		_, data := postResponses(t, gw, `{"stream":`+stream+`,"input":"Hi","tools":[`+tool+`,{"type":"web_search"}]}`)
		if n := strings.Count(string(data), `"call_id"`); stream == "false" && n != 1 {
			t.Errorf("stream %s: %d function calls reach the client, want 1:\n%s", stream, n, data)
		}
		if !strings.Contains(string(data), `"arguments":"{\"cmd\": \"ls\"}"`) {
			t.Errorf("stream %s: the second round's call is not in the reply:\n%s", stream, data)
		}
		p := fe.lastRequest(t).Prompt
		if !strings.Contains(p, "<|start|>exec_command to=assistant<|channel|>analysis<|message|>Not run: this call came in the same turn as a web search") {
			t.Errorf("the client tool's call is not answered in the prompt:\n%s", p)
		}
	}
}

// TestWebSearchLeftOut: the search is left out and reported when it
// cannot serve the request, and declared to nobody with tool_choice none.
func TestWebSearchLeftOut(t *testing.T) {
	f := newWebFakes(t)
	fe := newFakeEngineOf(t, EngineLlamaCpp, fixed(answer("r", "ok")))
	gw := webGateway(t, fe, f, func(c *Config) { c.Engine = EngineLlamaCpp })
	fn := func(name string) string {
		return `{"type":"function","name":"` + name + `","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}`
	}
	for _, tt := range []struct{ name, body, header string }{
		{"a client tool named search", `{"input":"Hi","tools":[` + fn("search") + `,{"type":"web_search"}]}`, "tools[1]"},
		{"tool choice required", `{"input":"Hi","tool_choice":"required","tools":[` + fn("f") + `,{"type":"web_search"}]}`, "tools[1]"},
		{"tool choice none", `{"input":"Hi","tool_choice":"none","tools":[{"type":"web_search"}]}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := postResponses(t, gw, tt.body)
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, data)
			}
			if h := resp.Header.Get(UnenforcedHeader); !strings.HasSuffix(h, tt.header) || (tt.header == "") != (h == "") {
				t.Errorf("%s: %q, want it to end with %q", UnenforcedHeader, h, tt.header)
			}
			if p := fe.lastRequest(t).Prompt; strings.Contains(p, "// Search for content on the internet") {
				t.Errorf("the built-in search is declared:\n%s", p)
			}
		})
	}
}
