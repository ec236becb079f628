package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// newGateway starts a gateway in front of fe. mods adjust its Config.
func newGateway(t testing.TB, fe *fakeEngine, mods ...func(*Config)) *httptest.Server {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}}
	cfg := Config{Backend: fe.srv.URL, Client: client}
	for _, m := range mods {
		m(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(s)
	t.Cleanup(func() {
		gw.Close()
		client.CloseIdleConnections()
	})
	return gw
}

// syncBuffer is a log sink safe for concurrent handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func withLog(buf *syncBuffer) func(*Config) {
	return func(c *Config) { c.Logger = newJSONLogger(buf) }
}

func newJSONLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

// post sends body to the gateway's chat endpoint and returns the reply.
func post(t testing.TB, gw *httptest.Server, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(gw.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
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

// completionJSON is a non-streamed reply as a client reads it.
type completionJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Role             string  `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
			ToolCalls        []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

// errorJSON is an OpenAI error object.
type errorJSON struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func decodeError(t testing.TB, data []byte) errorJSON {
	t.Helper()
	var e errorJSON
	if err := json.Unmarshal(data, &e); err != nil || e.Error.Message == "" {
		t.Fatalf("not an OpenAI error object: %s", data)
	}
	return e
}

// chunkJSON is one streamed chunk as a client reads it.
type chunkJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role             *string `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
			ToolCalls        []struct {
				Index    int     `json:"index"`
				ID       *string `json:"id"`
				Type     *string `json:"type"`
				Function struct {
					Name      *string `json:"name"`
					Arguments *string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    string `json:"code"`
	} `json:"error"`
}

// streamCall is a tool call put together from stream deltas.
type streamCall struct {
	id, name, args string
}

// streamResult is a stream put together as a client does.
type streamResult struct {
	status    int
	chunks    []chunkJSON
	done      bool // saw [DONE]
	errEvent  *errorJSON
	role      string
	reasoning string // from reasoning_content
	reasonAlt string // from reasoning
	content   string
	calls     []streamCall
	finish    string
	usage     *usage
}

// readStream reads an SSE reply and checks the OpenAI chunk rules: the
// first chunk carries the role; a call's first delta carries index, id,
// type, name and empty arguments, later ones only arguments.
func readStream(t testing.TB, status int, body io.Reader) *streamResult {
	t.Helper()
	res := &streamResult{status: status}
	var args []*strings.Builder // per call, joined at the end
	var reasoning, reasonAlt, content strings.Builder
	defer func() {
		for i := range res.calls {
			res.calls[i].args = args[i].String()
		}
		res.reasoning, res.reasonAlt, res.content = reasoning.String(), reasonAlt.String(), content.String()
	}()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, ":") { // a comment: a keep-alive
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line is not an SSE data line: %q", line)
		}
		if res.done {
			t.Fatalf("data after [DONE]: %q", line)
		}
		if data == "[DONE]" {
			res.done = true
			continue
		}
		if res.errEvent != nil {
			t.Fatalf("data after the error event: %q", line)
		}
		var ch chunkJSON
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("chunk is not JSON: %v: %q", err, data)
		}
		if ch.Error != nil {
			res.errEvent = &errorJSON{}
			_ = json.Unmarshal([]byte(data), res.errEvent)
			continue
		}
		if ch.Object != "chat.completion.chunk" {
			t.Fatalf("object %q in %s", ch.Object, data)
		}
		if len(res.chunks) == 0 && (len(ch.Choices) == 0 || ch.Choices[0].Delta.Role == nil || *ch.Choices[0].Delta.Role != "assistant") {
			t.Fatalf("first chunk has no role: %s", data)
		}
		res.chunks = append(res.chunks, ch)
		if ch.Usage != nil {
			res.usage = ch.Usage
		}
		for _, c := range ch.Choices {
			d := c.Delta
			if d.Role != nil {
				res.role = *d.Role
			}
			if d.ReasoningContent != nil {
				reasoning.WriteString(*d.ReasoningContent)
			}
			if d.Reasoning != nil {
				reasonAlt.WriteString(*d.Reasoning)
			}
			if d.Content != nil {
				content.WriteString(*d.Content)
			}
			for _, tc := range d.ToolCalls {
				switch {
				case tc.Index == len(res.calls):
					if tc.ID == nil || !strings.HasPrefix(*tc.ID, "call_") || tc.Type == nil || *tc.Type != "function" ||
						tc.Function.Name == nil || tc.Function.Arguments == nil || *tc.Function.Arguments != "" {
						t.Fatalf("first delta of call %d lacks id, type, name or empty arguments: %s", tc.Index, data)
					}
					res.calls = append(res.calls, streamCall{id: *tc.ID, name: *tc.Function.Name})
					args = append(args, new(strings.Builder))
				case tc.Index < len(res.calls):
					if tc.ID != nil || tc.Function.Name != nil || tc.Function.Arguments == nil {
						t.Fatalf("later delta of call %d: %s", tc.Index, data)
					}
					args[tc.Index].WriteString(*tc.Function.Arguments)
				default:
					t.Fatalf("call index %d skips ahead: %s", tc.Index, data)
				}
			}
			if c.FinishReason != nil {
				if res.finish != "" {
					t.Fatalf("second finish_reason: %s", data)
				}
				res.finish = *c.FinishReason
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	return res
}

// postStream sends a streamed request and reads the reply.
func postStream(t testing.TB, gw *httptest.Server, body string) *streamResult {
	t.Helper()
	resp, err := http.Post(gw.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		data, _ := io.ReadAll(resp.Body)
		res := &streamResult{status: resp.StatusCode}
		e := decodeError(t, data)
		res.errEvent = &e
		return res
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	return readStream(t, resp.StatusCode, resp.Body)
}

// withStream returns a request body with "stream": true added.
func withStream(body string, usage bool) string {
	extra := `"stream":true,`
	if usage {
		extra += `"stream_options":{"include_usage":true},`
	}
	return "{" + extra + strings.TrimPrefix(body, "{")
}

// hello is the page's one-message conversation.
const hello = `{"model":"beam","messages":[{"role":"user","content":"Hello!"}]}`

// weatherTool is the page's get_weather tool as an OpenAI client sends it.
const weatherTool = `{"type":"function","function":{"name":"get_weather","description":"Get the current weather for a city.",` +
	`"parameters":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","description":"Forecast length in days"}},"required":["city"]}}}`
