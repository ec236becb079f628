package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/beamharmony/harmony"
)

// End to end with Anthropic's official Go client: what Claude-Code-style
// agents see through /v1/messages.

func newAnthropicClient(gw *httptest.Server) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(gw.URL), option.WithAPIKey("unused"), option.WithMaxRetries(0))
}

var anthropicWeather = anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
	Name:        "get_weather",
	Description: anthropic.String("Get the current weather for a city."),
	InputSchema: anthropic.ToolInputSchemaParam{
		Properties: map[string]any{
			"city": map[string]any{"type": "string"},
			"days": map[string]any{"type": "integer", "description": "Forecast length in days"},
		},
		Required: []string{"city"},
	},
}}

// anthropicTurn sends params, streamed or not, and returns the message as
// the client puts it together.
func anthropicTurn(t *testing.T, client anthropic.Client, params anthropic.MessageNewParams, streamed bool) (*anthropic.Message, error) {
	t.Helper()
	ctx := context.Background()
	if !streamed {
		return client.Messages.New(ctx, params)
	}
	stream := client.Messages.NewStreaming(ctx, params)
	msg := &anthropic.Message{}
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatalf("accumulate: %v", err)
		}
	}
	return msg, stream.Err()
}

func TestAnthropicClientToolLoop(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		name := "non-streamed"
		if streamed {
			name = "streamed"
		}
		t.Run(name, func(t *testing.T) {
			fe := newFakeEngine(t, toolLoopScript)
			client := newAnthropicClient(newGateway(t, fe))
			params := anthropic.MessageNewParams{
				Model:     "beam",
				MaxTokens: 4096,
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in London?"))},
				Tools:     []anthropic.ToolUnionParam{anthropicWeather},
			}
			msg, err := anthropicTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if msg.StopReason != anthropic.StopReasonToolUse || len(msg.Content) != 2 {
				t.Fatalf("stop %q, %d blocks: %s", msg.StopReason, len(msg.Content), msg.RawJSON())
			}
			th, tu := msg.Content[0], msg.Content[1]
			if th.Type != "thinking" || th.Thinking != "I should check the weather tool." || th.Signature == "" {
				t.Errorf("thinking block %s", th.RawJSON())
			}
			if tu.Type != "tool_use" || tu.Name != "get_weather" || !strings.HasPrefix(tu.ID, "toolu_") || !jsonEq(tu.Input, `{"city": "London"}`) {
				t.Errorf("tool_use block %s (input %s)", tu.RawJSON(), tu.Input)
			}
			if msg.Usage.OutputTokens == 0 || msg.Usage.InputTokens == 0 {
				t.Errorf("usage %+v", msg.Usage)
			}

			params.Messages = append(params.Messages, msg.ToParam(),
				anthropic.NewUserMessage(anthropic.NewToolResultBlock(tu.ID, "14 C, cloudy", false)))
			msg2, err := anthropicTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if msg2.StopReason != anthropic.StopReasonEndTurn || len(msg2.Content) != 2 || msg2.Content[1].Text != "It is 14 C and cloudy in London." {
				t.Errorf("second answer: %s", msg2.RawJSON())
			}
			if p := fe.lastRequest(t).Prompt; !strings.HasSuffix(p, wantSecondPrompt) {
				t.Errorf("second prompt ends\n%q\nwant\n%q", p[max(0, len(p)-len(wantSecondPrompt)):], wantSecondPrompt)
			}
		})
	}
}

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

// wantParallelPrompt is the end of the second prompt of the parallel loop:
// both calls, then both results in the order of the calls.
const wantParallelPrompt = "<|start|>assistant<|channel|>analysis<|message|>Two cities: call the tool twice.<|end|>" +
	"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"city\">\nLondon\n</rfl:parameter><|end|>" +
	"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"city\">\nParis\n</rfl:parameter>\n<rfl:parameter name=\"days\">\n2\n</rfl:parameter><|call|>" +
	"<|start|>get_weather to=assistant<|channel|>analysis<|message|>14 C, cloudy<|end|>" +
	"<|start|>get_weather to=assistant<|channel|>analysis<|message|>9 C, rain<|end|><|start|>assistant"

func TestAnthropicClientParallelCalls(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-streamed", true: "streamed"}[streamed], func(t *testing.T) {
			fe := newFakeEngine(t, parallelScript)
			client := newAnthropicClient(newGateway(t, fe))
			params := anthropic.MessageNewParams{
				Model:     "beam",
				MaxTokens: 4096,
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in London and Paris?"))},
				Tools:     []anthropic.ToolUnionParam{anthropicWeather},
			}
			msg, err := anthropicTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if msg.StopReason != anthropic.StopReasonToolUse || len(msg.Content) != 3 {
				t.Fatalf("stop %q: %s", msg.StopReason, msg.RawJSON())
			}
			a, b := msg.Content[1], msg.Content[2]
			if !jsonEq(a.Input, `{"city": "London"}`) || !jsonEq(b.Input, `{"city": "Paris", "days": 2}`) || a.ID == b.ID {
				t.Fatalf("calls %s %s", a.RawJSON(), b.RawJSON())
			}
			params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(
				anthropic.NewToolResultBlock(a.ID, "14 C, cloudy", false),
				anthropic.NewToolResultBlock(b.ID, "9 C, rain", false)))
			msg2, err := anthropicTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if msg2.Content[len(msg2.Content)-1].Text != "London 14 C, Paris 9 C." {
				t.Errorf("second answer: %s", msg2.RawJSON())
			}
			if p := fe.lastRequest(t).Prompt; !strings.HasSuffix(p, wantParallelPrompt) {
				t.Errorf("second prompt ends\n%q\nwant\n%q", p[max(0, len(p)-len(wantParallelPrompt)):], wantParallelPrompt)
			}
		})
	}
}

// TestAnthropicClientTampersWithThinking is the client that drops or edits
// the thinking: a 400 in Anthropic's shape, and no engine request.
func TestAnthropicClientTampersWithThinking(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(blocks []anthropic.ContentBlockParamUnion) []anthropic.ContentBlockParamUnion
		want   string
	}{
		{"drops the thinking block", func(b []anthropic.ContentBlockParamUnion) []anthropic.ContentBlockParamUnion { return b[1:] },
			"messages[1]: the assistant turn has no thinking block"},
		{"edits the thinking", func(b []anthropic.ContentBlockParamUnion) []anthropic.ContentBlockParamUnion {
			b[0].OfThinking.Thinking = "I should call the tool, and lie about it."
			return b
		}, "messages[1].content[0].signature: missing or not this server's signature"},
		{"drops the signature", func(b []anthropic.ContentBlockParamUnion) []anthropic.ContentBlockParamUnion {
			b[0].OfThinking.Signature = ""
			return b
		}, "messages[1].content[0].signature: missing or not this server's signature"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fe := newFakeEngine(t, toolLoopScript)
			client := newAnthropicClient(newGateway(t, fe))
			params := anthropic.MessageNewParams{
				Model:     "beam",
				MaxTokens: 4096,
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in London?"))},
				Tools:     []anthropic.ToolUnionParam{anthropicWeather},
			}
			msg, err := client.Messages.New(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			asst := msg.ToParam()
			asst.OfAssistant.Content = tt.change(asst.OfAssistant.Content)
			params.Messages = append(params.Messages, asst,
				anthropic.NewUserMessage(anthropic.NewToolResultBlock(msg.Content[1].ID, "14 C, cloudy", false)))
			_, err = client.Messages.New(context.Background(), params)
			var apiErr *anthropic.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v, want an API error", err)
			}
			if apiErr.StatusCode != 400 || apiErr.Type() != "invalid_request_error" || !strings.HasPrefix(apiErr.Message, tt.want) {
				t.Errorf("status %d, type %q, message %q", apiErr.StatusCode, apiErr.Type(), apiErr.Message)
			}
			if n := len(fe.requests()); n != 1 {
				t.Errorf("the engine got %d requests, want 1", n)
			}
		})
	}
}

// TestSignaturesAcrossReplicas checks that replicas sharing --signing-key
// accept each other's thinking, and that without it they do not.
func TestSignaturesAcrossReplicas(t *testing.T) {
	for _, tt := range []struct {
		name       string
		keyA, keyB string
		wantStatus int
	}{
		{"same key", "s3cret", "s3cret", 200},
		{"random keys", "", "", 400},
		{"different keys", "s3cret", "other", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fe := newFakeEngine(t, toolLoopScript)
			a := newAnthropicClient(newGateway(t, fe, func(c *Config) { c.SigningKey = tt.keyA }))
			b := newAnthropicClient(newGateway(t, fe, func(c *Config) { c.SigningKey = tt.keyB }))
			params := anthropic.MessageNewParams{
				Model:     "beam",
				MaxTokens: 4096,
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in London?"))},
				Tools:     []anthropic.ToolUnionParam{anthropicWeather},
			}
			msg, err := a.Messages.New(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			params.Messages = append(params.Messages, msg.ToParam(),
				anthropic.NewUserMessage(anthropic.NewToolResultBlock(msg.Content[1].ID, "14 C, cloudy", false)))
			_, err = b.Messages.New(context.Background(), params)
			status := 200
			var apiErr *anthropic.Error
			if errors.As(err, &apiErr) {
				status = apiErr.StatusCode
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tt.wantStatus {
				t.Errorf("status %d, want %d (%v)", status, tt.wantStatus, err)
			}
		})
	}
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

// TestMessagesStopSequence checks stop_reason stop_sequence and the
// matched string, streamed and not.
func TestMessagesStopSequence(t *testing.T) {
	g := gen{text: "<|channel|>analysis<|message|>Count.<|end|><|start|>assistant<|channel|>final<|message|>1 2 3 STOP", stopReason: "STOP"}
	fe := newFakeEngine(t, fixed(g))
	client := newAnthropicClient(newGateway(t, fe))
	for _, streamed := range []bool{false, true} {
		msg, err := anthropicTurn(t, client, anthropic.MessageNewParams{
			Model: "beam", MaxTokens: 100, StopSequences: []string{"STOP"},
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Count"))},
		}, streamed)
		if err != nil {
			t.Fatal(err)
		}
		if msg.StopReason != anthropic.StopReasonStopSequence || msg.StopSequence != "STOP" || msg.Content[1].Text != "1 2 3 " {
			t.Errorf("streamed %v: %s", streamed, msg.RawJSON())
		}
	}
	if got := fe.lastRequest(t).Stop; strings.Join(got, " ") != "STOP <|call|> <|return|>" {
		t.Errorf("engine stop %q", got)
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

// TestMessagesParallelOff checks disable_parallel_tool_use: the reply
// keeps the first call, streamed and not.
func TestMessagesParallelOff(t *testing.T) {
	fe := newFakeEngine(t, parallelScript)
	client := newAnthropicClient(newGateway(t, fe))
	for _, streamed := range []bool{false, true} {
		msg, err := anthropicTurn(t, client, anthropic.MessageNewParams{
			Model: "beam", MaxTokens: 100,
			Messages:   []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in London and Paris?"))},
			Tools:      []anthropic.ToolUnionParam{anthropicWeather},
			ToolChoice: anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: anthropic.Bool(true)}},
		}, streamed)
		if err != nil {
			t.Fatal(err)
		}
		if msg.StopReason != anthropic.StopReasonToolUse || len(msg.Content) != 2 || !jsonEq(msg.Content[1].Input, `{"city": "London"}`) {
			t.Errorf("streamed %v: %s", streamed, msg.RawJSON())
		}
	}
}

func TestCountTokens(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	body := `{"model":"beam","messages":[{"role":"user","content":"Hello!"}]}`
	t.Run("without a tokenizer", func(t *testing.T) {
		resp, err := http.Post(newGateway(t, fe).URL+"/v1/messages/count_tokens", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 501 || !strings.Contains(string(data), "no tokenizer") || !strings.Contains(string(data), `"type":"error"`) {
			t.Errorf("%d %s", resp.StatusCode, data)
		}
	})
	t.Run("with a tokenizer", func(t *testing.T) {
		tk := beamTokenizer(t)
		gw := newGateway(t, fe, func(c *Config) { c.Tokenizer = tk })
		client := newAnthropicClient(gw)
		got, err := client.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{
			Model:    "beam",
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello!"))},
		})
		if err != nil {
			t.Fatal(err)
		}
		// The prompt of the page's hello example, as Beam's tokenizer encodes it.
		prompt, err := harmony.Render([]harmony.Message{{Role: "user", Content: "Hello!"}}, &harmony.Options{AddGenerationPrompt: true})
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(len(tk.Encode(prompt).IDs)); got.InputTokens != want {
			t.Errorf("input_tokens %d, want %d", got.InputTokens, want)
		}
	})
	if n := len(fe.requests()); n != 0 {
		t.Errorf("the engine got %d requests", n)
	}
}
