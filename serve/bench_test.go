package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// replayEngine answers every /v1/completions request with the same
// pre-encoded vLLM event stream, one event per token, flushed after each:
// the engine costs the same whoever reads it.
type replayEngine struct {
	events [][]byte
}

func newReplayEngine(text string, stopReason string) *replayEngine {
	e := &replayEngine{}
	tokens := tokenize(text)
	for i, tok := range tokens {
		t, _ := json.Marshal(tok)
		fr, sr := "null", "null"
		if i == len(tokens)-1 {
			fr, sr = `"stop"`, `"`+stopReason+`"`
		}
		e.events = append(e.events, fmt.Appendf(nil,
			"data: {\"id\":\"cmpl-bench\",\"object\":\"text_completion\",\"created\":1,\"model\":\"beam\",\"choices\":[{\"index\":0,\"text\":%s,\"logprobs\":null,\"finish_reason\":%s,\"stop_reason\":%s}],\"usage\":null}\n\n",
			t, fr, sr))
	}
	e.events = append(e.events, fmt.Appendf(nil,
		"data: {\"id\":\"cmpl-bench\",\"object\":\"text_completion\",\"created\":1,\"model\":\"beam\",\"choices\":[],\"usage\":{\"prompt_tokens\":30,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n",
		30+len(tokens), len(tokens)))
	e.events = append(e.events, []byte("data: [DONE]\n\n"))
	return e
}

func (e *replayEngine) tokens() int { return len(e.events) - 2 }

func (e *replayEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	for _, ev := range e.events {
		if _, err := w.Write(ev); err != nil {
			return
		}
		f.Flush()
	}
}

// relay is the baseline: a proxy that forwards the engine's stream event
// by event with no rendering, parsing or re-encoding, flushing after each
// event unless the next one is already read, as the gateway does.
type relay struct {
	backend string
	client  *http.Client
}

func (p *relay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	resp, err := p.client.Post(p.backend+"/v1/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", "text/event-stream")
	f := w.(http.Flusher)
	br := bufio.NewReaderSize(resp.Body, 32<<10)
	batched := 0
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if _, werr := w.Write(line); werr != nil {
				return
			}
			// After the blank line that ends an event, unless the next
			// event is already read (the gateway's rule).
			if len(line) == 1 {
				if batched++; batched >= maxBatch || !eventBuffered(br) {
					f.Flush()
					batched = 0
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// streamCase is a generation the gateway benchmarks stream: the engine's
// text and the stop string it ends on.
type streamCase struct{ name, text, stop string }

// streamCases are BenchmarkGatewayStream's generations: a reasoning and an
// answer, and a reasoning and a tool call with 2.7 KB of code.
func streamCases() []streamCase {
	reasoning := strings.Repeat("Let me think about the question step by step. ", 25)
	content := strings.Repeat("The answer has several parts, each explained in turn. ", 60)
	args := strings.Repeat("for i in range(10):\n    print(i * 2)  # loop\n", 60)
	return []streamCase{
		{"answer", answerText(reasoning, content), "<|return|>"},
		{"tool_call", callsText(reasoning, scriptCall{"write_file", [][2]string{{"path", "a.py"}, {"text", args}}}), "<|call|>"},
	}
}

// BenchmarkGatewayStream measures the gateway's own cost per streamed
// token: the same engine stream is read through the gateway (render,
// parse, re-encode as chat chunks) and through a plain relay; the
// difference of their cpu-ns/token is the gateway's cost. Both flush
// after an event unless the next one is already read. Wall time per token
// (ns/token) is dominated by the flushes and hand-offs of the three-hop
// pipeline and varies more from run to run.
func BenchmarkGatewayStream(b *testing.B) {
	cases := streamCases()
	body := `{"model":"beam","stream":true,"messages":[{"role":"user","content":"Explain."}]}`
	for _, tc := range cases {
		eng := newReplayEngine(tc.text, tc.stop)
		engineSrv := httptest.NewServer(eng)
		engineClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
		gw, err := New(Config{Backend: engineSrv.URL, Client: engineClient})
		if err != nil {
			b.Fatal(err)
		}
		for _, target := range []struct {
			name string
			h    http.Handler
		}{
			{"relay", &relay{backend: engineSrv.URL, client: engineClient}},
			{"gateway", gw},
		} {
			b.Run(tc.name+"/"+target.name, func(b *testing.B) {
				srv := httptest.NewServer(target.h)
				defer srv.Close()
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
				defer client.CloseIdleConnections()
				b.ReportAllocs()
				b.ResetTimer()
				start, startCPU := time.Now(), processCPU()
				for b.Loop() {
					resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
					if err != nil {
						b.Fatal(err)
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || n == 0 {
						b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
					}
				}
				elapsed, cpu := time.Since(start), processCPU()-startCPU
				tokens := float64(b.N * eng.tokens())
				b.ReportMetric(float64(elapsed.Nanoseconds())/tokens, "ns/token")
				// CPU of the whole process (engine, proxy and client): the
				// engine's and the client's share is the same for both
				// targets, so the difference is the proxy's own cost.
				b.ReportMetric(float64(cpu.Nanoseconds())/tokens, "cpu-ns/token")
				b.ReportMetric(float64(eng.tokens()), "tokens/op")
			})
		}
		engineClient.CloseIdleConnections()
		engineSrv.Close()
	}
}

// readRealistic decodes the realistic request (testdata/bench) into req.
func readRealistic(b *testing.B, req any) {
	b.Helper()
	data, err := os.ReadFile("../testdata/bench/realistic_request.json")
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(data, req); err != nil {
		b.Fatal(err)
	}
}

// realisticChatBody is the realistic request (testdata/bench) as a client
// sends it to /v1/chat/completions: compact JSON, each call's arguments a
// JSON string, the template arguments in chat_template_kwargs.
func realisticChatBody(b *testing.B) []byte {
	b.Helper()
	var req struct {
		Messages             []map[string]any `json:"messages"`
		Tools                json.RawMessage  `json:"tools"`
		BuiltinTools         json.RawMessage  `json:"builtin_tools"`
		ReasoningEffort      json.RawMessage  `json:"reasoning_effort"`
		AllowMissingThinking json.RawMessage  `json:"allow_missing_thinking"`
	}
	readRealistic(b, &req)
	for _, m := range req.Messages {
		calls, _ := m["tool_calls"].([]any)
		for _, c := range calls {
			f := c.(map[string]any)["function"].(map[string]any)
			if _, ok := f["arguments"].(string); !ok {
				text, _ := json.Marshal(f["arguments"])
				f["arguments"] = string(text)
			}
		}
	}
	body, err := json.Marshal(map[string]any{
		"model":            "beam",
		"messages":         req.Messages,
		"tools":            req.Tools,
		"reasoning_effort": req.ReasoningEffort,
		"chat_template_kwargs": map[string]json.RawMessage{
			"builtin_tools": req.BuiltinTools, "allow_missing_thinking": req.AllowMissingThinking,
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkChatRequestDecode decodes the realistic request's chat body
// (102 messages, six tools, 30 KB) as the gateway does before rendering:
// the body split into its fields, each message and tool decoded and
// checked, markers looked for.
func BenchmarkChatRequestDecode(b *testing.B) {
	body := realisticChatBody(b)
	var cfg Config
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, aerr := decodeChatRequest(body, &cfg); aerr != nil {
			b.Fatal(aerr.msg)
		}
	}
}

// realisticMessagesBody is the realistic request (testdata/bench) as a
// client of the Anthropic Messages API sends it: the system message apart,
// calls as tool_use blocks, results as tool_result blocks, tools with
// input_schema. Reasoning is left out (it would need the server's
// signatures), so the server must allow missing thinking.
func realisticMessagesBody(b *testing.B) []byte {
	b.Helper()
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    string `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	readRealistic(b, &req)
	var system string
	var msgs []map[string]any
	for _, m := range req.Messages {
		switch {
		case m.Role == "system" || m.Role == "developer":
			system += m.Content
		case m.Role == "tool":
			block := map[string]any{"type": "tool_result", "tool_use_id": m.ToolCallID, "content": m.Content}
			if n := len(msgs); n > 0 && msgs[n-1]["role"] == "user" {
				if blocks, ok := msgs[n-1]["content"].([]any); ok {
					msgs[n-1]["content"] = append(blocks, block)
					continue
				}
			}
			msgs = append(msgs, map[string]any{"role": "user", "content": []any{block}})
		case m.Role == "assistant":
			var blocks []any
			if m.Content != "" {
				blocks = append(blocks, map[string]any{"type": "text", "text": m.Content})
			}
			for _, c := range m.ToolCalls {
				blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Function.Name, "input": c.Function.Arguments})
			}
			msgs = append(msgs, map[string]any{"role": "assistant", "content": blocks})
		default:
			msgs = append(msgs, map[string]any{"role": m.Role, "content": m.Content})
		}
	}
	var tools []any
	for _, t := range req.Tools {
		tools = append(tools, map[string]any{"name": t.Function.Name, "description": t.Function.Description, "input_schema": t.Function.Parameters})
	}
	body, err := json.Marshal(map[string]any{"model": "beam", "max_tokens": 1024, "system": system, "messages": msgs, "tools": tools})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkMessagesRequestDecode is BenchmarkChatRequestDecode for the
// Anthropic Messages API: the realistic request (without its reasoning)
// as a Messages body, decoded and checked as the gateway does before
// rendering.
func BenchmarkMessagesRequestDecode(b *testing.B) {
	body := realisticMessagesBody(b)
	s, err := New(Config{Backend: "http://127.0.0.1:1", AllowMissingThinking: true})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, aerr := decodeMessagesRequest(body, s, false, ""); aerr != nil {
			b.Fatal(aerr.msg)
		}
	}
}

// BenchmarkEventDecode decodes the engine events of BenchmarkGatewayStream's
// cases, as the gateway's stream reads them: the per-token work of
// reading an event (ns/op is per event).
func BenchmarkEventDecode(b *testing.B) {
	for _, tc := range streamCases() {
		var events [][]byte
		for _, ev := range newReplayEngine(tc.text, tc.stop).events {
			data, ok := bytes.CutPrefix(bytes.TrimSuffix(ev, []byte("\n\n")), []byte("data: "))
			if ok && string(data) != "[DONE]" {
				events = append(events, data)
			}
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var d eventDecoder
			var c completion
			i := 0
			for b.Loop() {
				if err := d.decode(events[i], &c); err != nil {
					b.Fatal(err)
				}
				if i++; i == len(events) {
					i = 0
				}
			}
		})
	}
}
