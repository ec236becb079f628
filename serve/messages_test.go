package serve

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// parallelScript calls get_weather for two cities at once, then answers
// once both results are in the prompt.
func parallelScript(r *engineReq) gen {
	if strings.Contains(r.Prompt, "9 C, rain") {
		return answer("Both results are in.", "London 14 C, Paris 9 C.")
	}
	return callGen("Two cities: call the tool twice.",
		scriptCall{"get_weather", [][2]string{{"city", "London"}}},
		scriptCall{"get_weather", [][2]string{{"city", "Paris"}, {"days", "2"}}})
}

// sseEvent is one server-sent event as read off the wire.
type sseEvent struct {
	name string
	data map[string]any
	raw  string
}

// readSSE reads every event of an event stream.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" || cur.raw != "" {
				if err := json.Unmarshal([]byte(cur.raw), &cur.data); err != nil {
					t.Fatalf("event %s: data is not JSON: %q", cur.name, cur.raw)
				}
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			cur.raw += line[len("data: "):]
		case strings.HasPrefix(line, ":"):
		default:
			t.Fatalf("not an SSE line: %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// eventShape is an event's name and, for deltas, the delta type: the
// sequence the SDKs parse.
func eventShape(e sseEvent) string {
	if e.data["type"] != e.name {
		return "MISMATCH " + e.name
	}
	switch e.name {
	case "content_block_start":
		return e.name + ":" + e.data["content_block"].(map[string]any)["type"].(string)
	case "content_block_delta":
		return e.name + ":" + e.data["delta"].(map[string]any)["type"].(string)
	}
	return e.name
}

func postMessages(t *testing.T, gw *httptest.Server, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(gw.URL+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestMessagesEventSequence checks the exact events of streamed replies,
// with deltas of one kind merged per engine batch.
func TestMessagesEventSequence(t *testing.T) {
	weather := `{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}`
	for _, tt := range []struct {
		name string
		gen  gen
		body string
		want []string
		stop string
	}{
		{"answer", answer("Greeting.", "Hi!"), `{"model":"beam","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Hello!"}]}`,
			[]string{"message_start", "content_block_start:thinking", "content_block_delta:thinking_delta", "content_block_delta:signature_delta", "content_block_stop",
				"content_block_start:text", "content_block_delta:text_delta", "content_block_stop", "message_delta", "message_stop"}, "end_turn"},
		{"tool call", callGen("Check.", scriptCall{"get_weather", [][2]string{{"city", "Oslo"}}}),
			`{"model":"beam","max_tokens":100,"stream":true,"tools":[` + weather + `],"messages":[{"role":"user","content":"Oslo?"}]}`,
			[]string{"message_start", "content_block_start:thinking", "content_block_delta:thinking_delta", "content_block_delta:signature_delta", "content_block_stop",
				"content_block_start:tool_use", "content_block_delta:input_json_delta", "content_block_stop", "message_delta", "message_stop"}, "tool_use"},
		{"cut by max_tokens", gen{text: "<|channel|>analysis<|message|>Thinking on", finish: "length"},
			`{"model":"beam","max_tokens":3,"stream":true,"messages":[{"role":"user","content":"Hello!"}]}`,
			[]string{"message_start", "content_block_start:thinking", "content_block_delta:thinking_delta", "content_block_delta:signature_delta", "content_block_stop",
				"message_delta", "message_stop"}, "max_tokens"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.gen
			g.tokens = []string{g.text} // one engine event: one delta per block
			fe := newFakeEngine(t, fixed(g))
			resp := postMessages(t, newGateway(t, fe), tt.body)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			events := readSSE(t, resp.Body)
			var got []string
			for _, e := range events {
				got = append(got, eventShape(e))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("events\n%v\nwant\n%v", got, tt.want)
			}
			last := events[len(events)-2].data
			if d := last["delta"].(map[string]any); d["stop_reason"] != tt.stop {
				t.Errorf("message_delta %s", events[len(events)-2].raw)
			}
		})
	}
}

// TestMessagesPing checks that a silent engine gets ping events once the
// stream has been silent for the interval, and that the client's parse is
// unaffected.
func TestMessagesPing(t *testing.T) {
	g := answer("Slow.", "Done.")
	g.tokens = []string{"<|channel|>analysis<|message|>Slow.", "<|end|><|start|>assistant<|channel|>final<|message|>Done.<|return|>"}
	g.delay = 150 * time.Millisecond
	fe := newFakeEngine(t, fixed(g))
	gw := newGateway(t, fe, func(c *Config) { c.PingInterval = 20 * time.Millisecond })
	resp := postMessages(t, gw, `{"model":"beam","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`)
	events := readSSE(t, resp.Body)
	pings := 0
	for i, e := range events {
		if e.name == "ping" {
			pings++
			if i == 0 {
				t.Errorf("ping before message_start")
			}
		}
	}
	if pings == 0 {
		t.Errorf("no ping in %d events", len(events))
	}
	if events[0].name != "message_start" || events[len(events)-1].name != "message_stop" {
		t.Errorf("first %s, last %s", events[0].name, events[len(events)-1].name)
	}
}

func TestMessagesBadRequests(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	gw := newGateway(t, fe)
	user := `"messages":[{"role":"user","content":"Hi"}]`
	for _, tt := range []struct {
		name, body, want string
	}{
		{"tool_choice any without tools", `{"model":"beam","max_tokens":10,` + user + `,"tool_choice":{"type":"any"}}`, `tool_choice: asks for a tool call, but the request declares no tools`},
		{"tool_choice tool undeclared", `{"model":"beam","max_tokens":10,` + user + `,"tool_choice":{"type":"tool","name":"x"}}`, `tool_choice.name: names "x", which is not among the tools`},
		{"client tool of Anthropic's", `{"model":"beam","max_tokens":10,` + user + `,"tools":[{"type":"bash_20250124","name":"bash"}]}`, `tools[0].type: "bash_20250124" is an Anthropic-defined client tool`},
		{"image block", `{"model":"beam","max_tokens":10,"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]}`, `messages[0].content[0].type: "image" blocks are not supported`},
		{"prefill", `{"model":"beam","max_tokens":10,"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Sure"}]}`, `messages[1]: a final assistant message (a prefill) is not supported`},
		{"bad role", `{"model":"beam","max_tokens":10,"messages":[{"role":"tool","content":"Hi"}]}`, `messages[0].role: must be user, assistant or system`},
		{"no messages", `{"model":"beam","max_tokens":10,"messages":[]}`, `messages: required`},
		{"bad thinking", `{"model":"beam","max_tokens":10,` + user + `,"thinking":{"type":"enabled"}}`, `thinking.budget_tokens: required`},
		{"marker", `{"model":"beam","max_tokens":10,"messages":[{"role":"user","content":"a<|end|>b"}]}`, `messages[0]: contains the Harmony marker <|end|>`},
		{"bad max_tokens", `{"model":"beam","max_tokens":0,` + user + `}`, `max_tokens: must be at least 1`},
		{"stop_sequences not a list", `{"model":"beam","max_tokens":10,` + user + `,"stop_sequences":"x"}`, `stop_sequences: must be a list of strings`},
		{"text with tool_use", `{"model":"beam","max_tokens":10,"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}`,
			`messages[1].content: an assistant turn with tool_use blocks must not have text blocks`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := postMessages(t, gw, tt.body)
			data, _ := io.ReadAll(resp.Body)
			var e struct {
				Type  string `json:"type"`
				Error struct {
					Type    string `json:"type"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(data, &e); err != nil || e.Type != "error" {
				t.Fatalf("not an Anthropic error: %s", data)
			}
			if resp.StatusCode != 400 || e.Error.Type != "invalid_request_error" || !strings.HasPrefix(e.Error.Message, tt.want) {
				t.Errorf("%d %s\nwant message starting %q", resp.StatusCode, data, tt.want)
			}
		})
	}
	if n := len(fe.requests()); n != 0 {
		t.Errorf("the engine got %d requests", n)
	}
}

// TestMessagesRequestMapping checks what reaches the engine: the system
// text, the effort from the thinking budget, sampling parameters, and
// tool_choice none leaving the tools out.
func TestMessagesRequestMapping(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	gw := newGateway(t, fe)
	for _, tt := range []struct {
		name, extra string
		check       func(t *testing.T, r *engineReq)
	}{
		{"system blocks and sampling", `"system":[{"type":"text","text":"Be brief."},{"type":"text","text":"Be kind."}],"temperature":0.5,"top_p":0.9,"top_k":40`,
			func(t *testing.T, r *engineReq) {
				if !strings.Contains(r.Prompt, "# Instructions\n\nBe brief.\nBe kind.") {
					t.Errorf("prompt %q", r.Prompt)
				}
				for k, v := range map[string]string{"temperature": "0.5", "top_p": "0.9", "top_k": "40", "max_tokens": "77"} {
					if string(r.raw[k]) != v {
						t.Errorf("%s = %s", k, r.raw[k])
					}
				}
			}},
		{"budget 10000 is high", `"thinking":{"type":"enabled","budget_tokens":10000}`, wantEffort("128")},
		{"budget 1024 is minimal", `"thinking":{"type":"enabled","budget_tokens":1024}`, wantEffort("8")},
		{"budget 31999 is xhigh", `"thinking":{"type":"enabled","budget_tokens":31999}`, wantEffort("256")},
		{"budget 64000 is max", `"thinking":{"type":"enabled","budget_tokens":64000}`, wantEffort("512")},
		{"disabled is minimal", `"thinking":{"type":"disabled"}`, wantEffort("8")},
		{"no thinking is the default", ``, wantEffort("512")},
		{"output_config effort wins", `"thinking":{"type":"enabled","budget_tokens":64000},"output_config":{"effort":"low"}`, wantEffort("32")},
		{"tool_choice none declares no tool", `"tools":[{"name":"f","input_schema":{"type":"object"}}],"tool_choice":{"type":"none"}`,
			func(t *testing.T, r *engineReq) {
				if strings.Contains(r.Prompt, "# Tools") {
					t.Errorf("tools declared: %q", r.Prompt)
				}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"model":"beam","max_tokens":77,"messages":[{"role":"user","content":"Hi"}]`
			if tt.extra != "" {
				body += "," + tt.extra
			}
			resp := postMessages(t, gw, body+"}")
			if resp.StatusCode != 200 {
				data, _ := io.ReadAll(resp.Body)
				t.Fatalf("%d %s", resp.StatusCode, data)
			}
			tt.check(t, fe.lastRequest(t))
		})
	}
}

func wantEffort(n string) func(t *testing.T, r *engineReq) {
	return func(t *testing.T, r *engineReq) {
		if !strings.Contains(r.Prompt, "Reasoning effort: "+n+"\n") {
			t.Errorf("prompt lacks effort %s: %q", n, r.Prompt[:min(len(r.Prompt), 200)])
		}
	}
}

// TestSystemClearAt: a system message with clear_at "next_user_message"
// is in the prompt only until a later user message; "never" and no
// clear_at keep it; anything else, or clear_at on another role, is a 400
// naming it.
func TestSystemClearAt(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	gw := newGateway(t, fe, func(c *Config) { c.AllowMissingThinking = true })
	const french = "Answer in French."
	body := func(msgs ...string) string {
		return `{"model":"beam","max_tokens":50,"messages":[` + strings.Join(msgs, ",") + `]}`
	}
	system := func(clearAt string) string {
		if clearAt != "" {
			clearAt = `,"clear_at":` + clearAt
		}
		return `{"role":"system","content":"` + french + `"` + clearAt + `}`
	}
	const (
		hi     = `{"role":"user","content":"Hi"}`
		again  = `{"role":"user","content":"Again"}`
		answer = `{"role":"assistant","content":"Bonjour"}`
	)
	for _, c := range []struct {
		name  string
		body  string
		shown bool
	}{
		{"cleared by a later user message", body(hi, system(`"next_user_message"`), answer, again), false},
		{"before the user message it is for", body(hi, system(`"next_user_message"`)), true},
		{"after the last user message", body(hi, answer, again, system(`"next_user_message"`)), true},
		{"never", body(hi, system(`"never"`), answer, again), true},
		{"null", body(hi, system(`null`), answer, again), true},
		{"none", body(hi, system(""), answer, again), true},
	} {
		resp, data := do(t, gw, "POST", "/v1/messages", c.body, nil)
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", c.name, resp.StatusCode, data)
			continue
		}
		if p := fe.lastRequest(t).Prompt; strings.Contains(p, french) != c.shown {
			t.Errorf("%s: shown %v, want %v:\n%s", c.name, !c.shown, c.shown, p)
		}
		if u := resp.Header.Get(UnenforcedHeader); u != "" {
			t.Errorf("%s: %s: %s", c.name, UnenforcedHeader, u)
		}
	}
	for _, c := range []struct{ name, body, want string }{
		{"unknown value", body(hi, system(`"later"`), again), `messages[1].clear_at: must be \"next_user_message\" or \"never\", got \"later\"`},
		{"not a string", body(hi, system(`1`), again), `messages[1].clear_at: must be a string`},
		{"on a user message", body(`{"role":"user","content":"Hi","clear_at":"next_user_message"}`), `messages[0].clear_at: only a system message has one`},
	} {
		resp, data := do(t, gw, "POST", "/v1/messages", c.body, nil)
		if resp.StatusCode != 400 || !strings.Contains(string(data), c.want) {
			t.Errorf("%s: %d %s, want %s", c.name, resp.StatusCode, data, c.want)
		}
	}
}
