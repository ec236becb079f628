package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// runGateway serves s with Run on a local port until the test ends (or
// until stop is called) and returns its address; Run's result arrives on
// done.
func runGateway(t *testing.T, h http.Handler, opts RunOptions) (addr string, stop context.CancelFunc, done <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		ch <- Run(ctx, ln, h, opts)
	}()
	t.Cleanup(func() {
		cancel()
		<-finished
	})
	return ln.Addr().String(), cancel, ch
}

// testBound bounds a wait in a test that should end much sooner; it is a
// guard against hanging, never a claim about speed.
const testBound = 10 * time.Second

// A client that sends its headers and then trickles the body gets a 408
// once the body timeout passes, and the server closes the connection
// (issue 12, finding 5).
func TestSlowBodyIsAnsweredAndClosed(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	var logs syncBuffer
	s, err := New(Config{Backend: fe.srv.URL, BodyTimeout: 200 * time.Millisecond, Logger: newJSONLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	addr, _, _ := runGateway(t, s, RunOptions{ShutdownTimeout: time.Second})
	for _, tt := range []struct {
		name, framing string
		piece         string // written every few milliseconds
	}{
		{"content length", "Content-Length: 100000\r\n", "x"},
		{"chunked", "Transfer-Encoding: chunked\r\n", "1\r\nx\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n%s\r\n", tt.framing)
			stopTrickle := make(chan struct{})
			defer close(stopTrickle)
			go func() {
				tick := time.NewTicker(10 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stopTrickle:
						return
					case <-tick.C:
						if _, err := io.WriteString(conn, tt.piece); err != nil {
							return
						}
					}
				}
			}()
			_ = conn.SetReadDeadline(time.Now().Add(testBound))
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no reply to the slow body: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusRequestTimeout {
				t.Errorf("status %d, want 408: %s", resp.StatusCode, body)
			}
			if e := decodeError(t, body); e.Error.Code == nil || *e.Error.Code != "body_timeout" {
				t.Errorf("error %s", body)
			}
			if !resp.Close {
				t.Error("the reply does not say Connection: close")
			}
			// The server closes its end: the read ends (EOF or reset), it
			// does not run into the test's bound.
			_, err = io.Copy(io.Discard, br)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatal("the connection is still open")
			}
		})
	}
	if !strings.Contains(logs.String(), `"status":408`) {
		t.Errorf("the 408 is not logged: %s", logs.String())
	}
}

// Past MaxConns, a connection waits to be accepted until another closes.
func TestMaxConns(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	s, err := New(Config{Backend: fe.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	addr, _, _ := runGateway(t, s, RunOptions{MaxConns: 2, ShutdownTimeout: time.Second})
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	get := func(c net.Conn, wait time.Duration) (*http.Response, error) {
		_ = c.SetReadDeadline(time.Now().Add(wait))
		if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: gateway\r\n\r\n"); err != nil {
			return nil, err
		}
		return http.ReadResponse(bufio.NewReader(c), nil)
	}
	first, second := dial(), dial()
	for _, c := range []net.Conn{first, second} {
		resp, err := get(c, testBound)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	third := dial()
	if resp, err := get(third, 300*time.Millisecond); err == nil {
		resp.Body.Close()
		t.Fatal("a third connection was served while two were open")
	} else if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("third connection: %v", err)
	}
	first.Close()
	_ = third.SetReadDeadline(time.Now().Add(testBound))
	resp, err := http.ReadResponse(bufio.NewReader(third), nil)
	if err != nil {
		t.Fatalf("third connection once the first closed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("status %d", resp.StatusCode)
	}
}

// Both paths read the choice with index 0, whatever its position; a
// choice without an index is index 0; a reply without such a choice is a
// 502 (issue 12, finding 9).
func TestChoiceIndexZero(t *testing.T) {
	good, _ := json.Marshal(answerText("r", "the answer"))
	garbage := `"not Beam Harmony at all"`
	tests := []struct {
		name    string
		choices []string // each choice's members but text and finish_reason
		texts   []string
		status  int
	}{
		{"index 0 first", []string{`"index":0`, `"index":1`}, []string{string(good), garbage}, 200},
		{"index 0 second", []string{`"index":1`, `"index":0`}, []string{garbage, string(good)}, 200},
		{"no index is index 0", []string{`"logprobs":null`}, []string{string(good)}, 200},
		{"only index 1", []string{`"index":1`}, []string{string(good)}, 502},
		{"two of index 0: the first", []string{`"index":0`, `"index":0`}, []string{string(good), garbage}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var whole, event []string
			for i, c := range tt.choices {
				whole = append(whole, `{`+c+`,"text":`+tt.texts[i]+`,"finish_reason":"stop","stop_reason":"<|return|>"}`)
				event = append(event, `{`+c+`,"text":`+tt.texts[i]+`,"finish_reason":"stop","stop_reason":"<|return|>"}`)
			}
			g := gen{
				body:   `{"id":"cmpl-1","object":"text_completion","choices":[` + strings.Join(whole, ",") + `]}`,
				events: []string{`{"id":"cmpl-1","object":"text_completion","choices":[` + strings.Join(event, ",") + `]}`},
			}
			fe := newFakeEngine(t, fixed(g))
			gw := newGateway(t, fe)
			resp, data := post(t, gw, hello)
			if resp.StatusCode != tt.status {
				t.Fatalf("not streamed: status %d, want %d: %s", resp.StatusCode, tt.status, data)
			}
			if tt.status == 200 {
				var c completionJSON
				if err := json.Unmarshal(data, &c); err != nil || len(c.Choices) != 1 || deref(c.Choices[0].Message.Content) != "the answer" {
					t.Errorf("not streamed: %s", data)
				}
			}
			res := postStream(t, gw, withStream(hello, false))
			if res.status != tt.status {
				t.Fatalf("streamed: status %d, want %d", res.status, tt.status)
			}
			if tt.status == 200 && (res.content != "the answer" || !res.done) {
				t.Errorf("streamed: content %q, done %v, error %+v", res.content, res.done, res.errEvent)
			}
		})
	}
}

// What the gateway shows a client (error replies, /health) carries neither
// the backend's credentials nor the engine's internals: its address, its
// error bodies. The log has them, under the request id, credentials
// excepted (issue 12, finding 6).
func TestNoLeaks(t *testing.T) {
	const secret = "s3cr3t-pass"
	const traceback = "Traceback (most recent call last): File /srv/engine/app.py"
	tests := []struct {
		name   string
		gen    gen
		down   bool // the engine is not running
		status int
		msg    string // the client's message, exactly
		logged string // in the log record's error_detail
	}{
		{"engine down", gen{}, true, 502, "engine unreachable", "connect"},
		{"5xx with an HTML traceback", gen{status: 500, body: "<html>" + traceback + "</html>"}, false, 502,
			"the engine answered HTTP 500", traceback},
		{"5xx with a JSON message", gen{status: 503, body: `{"error":{"message":"` + traceback + `","type":"InternalServerError"}}`}, false, 502,
			"the engine answered HTTP 503", traceback},
		{"4xx JSON message passes", gen{status: 400, body: `{"error":{"message":"This model's maximum context length is 8 tokens.","type":"BadRequestError"}}`}, false, 400,
			"This model's maximum context length is 8 tokens.", "maximum context length"},
		{"4xx text body does not", gen{status: 403, body: "denied by proxy at 10.0.0.7: " + traceback}, false, 403,
			"Forbidden", traceback},
		{"nonsense reply", gen{body: "<html>" + traceback + "</html>"}, false, 502,
			"the engine answered something that is not a completion", traceback},
		{"error inside a 200", gen{body: `{"error":{"message":"` + traceback + `"}}`}, false, 502,
			"the engine reported an error", traceback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe := newFakeEngine(t, fixed(tt.gen))
			var logs syncBuffer
			backend := strings.Replace(fe.srv.URL, "http://", "http://admin:"+secret+"@", 1)
			gw := newGateway(t, fe, withLog(&logs), func(c *Config) { c.Backend = backend })
			engineAddr := strings.TrimPrefix(fe.srv.URL, "http://")
			if tt.down {
				fe.srv.Close()
			}
			req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(hello))
			req.Header.Set("X-Request-Id", "leak-"+strings.ReplaceAll(tt.name, " ", "-"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if e := decodeError(t, data); e.Error.Message != tt.msg {
				t.Errorf("message %q, want %q", e.Error.Message, tt.msg)
			}
			for _, leak := range []string{secret, "admin", engineAddr, "Traceback", "/srv/", "10.0.0.7", "dial tcp"} {
				if strings.Contains(string(data), leak) {
					t.Errorf("the reply carries %q: %s", leak, data)
				}
			}
			var rec map[string]any
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				var r map[string]any
				if json.Unmarshal([]byte(line), &r) == nil && r["request_id"] == req.Header.Get("X-Request-Id") {
					rec = r
				}
			}
			if rec == nil {
				t.Fatalf("no log record with the request id: %s", logs.String())
			}
			if d, _ := rec["error_detail"].(string); !strings.Contains(d, tt.logged) {
				t.Errorf("log record's error_detail %q lacks %q", d, tt.logged)
			}
			if strings.Contains(logs.String(), secret) {
				t.Errorf("the log carries the password: %s", logs.String())
			}
		})
	}
	t.Run("health and startup", func(t *testing.T) {
		fe := newFakeEngine(t, fixed(answer("r", "c")))
		backend := strings.Replace(fe.srv.URL, "http://", "http://admin:"+secret+"@", 1)
		var logs syncBuffer
		s, err := New(Config{Backend: backend, Logger: newJSONLogger(&logs)})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Backend(); got != strings.Replace(fe.srv.URL, "http://", "http://xxxxx@", 1) {
			t.Errorf("Backend() = %q", got)
		}
		gw := newTestServer(t, s)
		for _, down := range []bool{false, true} {
			if down {
				fe.srv.Close()
			}
			resp, err := http.Get(gw + "/health")
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(data), secret) || strings.Contains(string(data), "admin") ||
				strings.Contains(string(data), strings.TrimPrefix(fe.srv.URL, "http://")+"/") || strings.Contains(string(data), "dial") {
				t.Errorf("engine down %v: /health leaks: %s", down, data)
			}
			if !strings.Contains(string(data), "xxxxx@") {
				t.Errorf("/health does not show the redacted URL: %s", data)
			}
		}
		if !strings.Contains(logs.String(), "connect") || strings.Contains(logs.String(), secret) {
			t.Errorf("the engine check's log: %s", logs.String())
		}
	})
}

// Streams still open at the shutdown deadline end with a server_shutdown
// error event (no [DONE]), are counted and logged as such, once each, by
// the time Run returns (issue 12, finding 7).
func TestShutdownDeadlineEndsStreams(t *testing.T) {
	const n = 3
	g := answer(strings.Repeat("think ", 500), "never")
	g.delay = 20 * time.Millisecond
	fe := newFakeEngine(t, fixed(g))
	engineClient := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(engineClient.CloseIdleConnections)
	var logs syncBuffer
	s, err := New(Config{Backend: fe.srv.URL, Client: engineClient, Logger: newJSONLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	addr, stop, done := runGateway(t, s, RunOptions{ShutdownTimeout: 100 * time.Millisecond})
	bodies := make([]*bufio.Reader, n)
	for i := range bodies {
		resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(withStream(hello, false)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		bodies[i] = bufio.NewReader(resp.Body)
		if _, err := bodies[i].ReadString('\n'); err != nil { // the first chunk: the stream is open
			t.Fatal(err)
		}
	}
	stop()
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run: %v, want the deadline", err)
	}
	// Every request is logged once, by the time Run returns.
	var records []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if r["msg"] == "chat completion" {
			records = append(records, r)
		}
	}
	if len(records) != n {
		t.Fatalf("%d request records when Run returned, want %d:\n%s", len(records), n, logs.String())
	}
	ids := map[any]bool{}
	for _, r := range records {
		ids[r["request_id"]] = true
		if r["status"] != float64(503) || r["error_kind"] != "server_shutdown" {
			t.Errorf("record %v, want status 503 and error_kind server_shutdown", r)
		}
	}
	if len(ids) != n {
		t.Errorf("request ids %v: a request logged twice", ids)
	}
	for i, br := range bodies {
		rest, _ := io.ReadAll(br) // the connection closes after the event
		res := readStream(t, 200, strings.NewReader(`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"}}]}`+"\n\n"+string(rest)))
		if res.done || res.errEvent == nil || deref(res.errEvent.Error.Code) != "server_shutdown" {
			t.Errorf("stream %d: done %v, error %+v; rest %q", i, res.done, res.errEvent, rest)
		}
	}
	if got := s.metrics.errors.With("server_shutdown").Value(); got != float64(n) {
		t.Errorf("server_shutdown errors counted: %v, want %d", got, n)
	}
	if got := s.metrics.errors.With("client_closed").Value(); got != 0 {
		t.Errorf("client_closed errors counted: %v, want 0", got)
	}
}

// While the engine is silent, before its first token and between tokens,
// the stream carries SSE comments, and the reply is otherwise unchanged
// (issue 12, finding 10).
func TestKeepAliveWhileEngineIsSilent(t *testing.T) {
	g := answer("r", "c")
	g.tokens = []string{"<|channel|>analysis<|message|>r<|end|>", "<|start|>assistant<|channel|>final<|message|>c", "<|return|>"}
	g.delay = 150 * time.Millisecond // before each token
	fe := newFakeEngine(t, fixed(g))
	gw := newGateway(t, fe, func(c *Config) { c.PingInterval = 20 * time.Millisecond })
	resp, err := http.Post(gw.URL+"/v1/chat/completions", "application/json", strings.NewReader(withStream(hello, false)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	first := strings.Index(text, ": keep-alive\n\n")
	reasoning := strings.Index(text, `"reasoning_content":"r"`)
	if first < 0 || reasoning < 0 || first > reasoning {
		t.Fatalf("no keep-alive before the first token: %q", text)
	}
	if between := strings.Index(text[reasoning:], ": keep-alive\n\n"); between < 0 {
		t.Errorf("no keep-alive between tokens: %q", text)
	}
	res := readStream(t, resp.StatusCode, strings.NewReader(text))
	if res.reasoning != "r" || res.content != "c" || !res.done || res.errEvent != nil {
		t.Errorf("stream %+v", res)
	}
	t.Run("off", func(t *testing.T) {
		gw := newGateway(t, fe, func(c *Config) { c.PingInterval = -1 })
		resp, data := post(t, gw, withStream(hello, false))
		if resp.StatusCode != 200 || strings.Contains(string(data), "keep-alive") {
			t.Errorf("keep-alives off: %d %q", resp.StatusCode, data)
		}
	})
}

// Engine usage figures that are negative, fractional or past 2^53-1 are
// dropped with a warning in the log: the client gets no usage, the metrics
// count nothing (issue 12, finding 10).
func TestEngineUsageChecked(t *testing.T) {
	text, _ := json.Marshal(answerText("r", "c"))
	choice := `{"index":0,"text":` + string(text) + `,"finish_reason":"stop","stop_reason":"<|return|>"}`
	tests := []struct {
		name, usage string
		want        *usage // nil: dropped
	}{
		{"valid", `{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}`, &usage{7, 3, 10, 0, false}},
		{"absent figures are 0", `{"completion_tokens":3}`, &usage{0, 3, 0, 0, false}},
		{"cached tokens", `{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10,"prompt_tokens_details":{"cached_tokens":4}}`, &usage{7, 3, 10, 4, true}},
		{"cached tokens beyond the prompt are left out", `{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10,"prompt_tokens_details":{"cached_tokens":8}}`, &usage{7, 3, 10, 0, false}},
		{"negative", `{"prompt_tokens":-5,"completion_tokens":3,"total_tokens":-2}`, nil},
		{"overflows int64", `{"prompt_tokens":99999999999999999999,"completion_tokens":3,"total_tokens":3}`, nil},
		{"past 2^53-1", `{"prompt_tokens":9007199254740992,"completion_tokens":3,"total_tokens":3}`, nil},
		{"sum past 2^53-1", `{"prompt_tokens":9007199254740991,"completion_tokens":1}`, nil},
		{"exponent", `{"prompt_tokens":1e30,"completion_tokens":3}`, nil},
		{"fraction", `{"prompt_tokens":1.5,"completion_tokens":3}`, nil},
		{"string", `{"prompt_tokens":"7","completion_tokens":3}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := gen{
				body: `{"id":"cmpl-1","object":"text_completion","choices":[` + choice + `],"usage":` + tt.usage + `}`,
				events: []string{
					`{"id":"cmpl-1","object":"text_completion","choices":[` + choice + `],"usage":null}`,
					`{"id":"cmpl-1","object":"text_completion","choices":[],"usage":` + tt.usage + `}`,
				},
			}
			fe := newFakeEngine(t, fixed(g))
			var logs syncBuffer
			s, err := New(Config{Backend: fe.srv.URL, Logger: newJSONLogger(&logs)})
			if err != nil {
				t.Fatal(err)
			}
			gw := httptest.NewServer(s)
			defer gw.Close()
			resp, data := post(t, gw, hello)
			var c completionJSON
			if err := json.Unmarshal(data, &c); err != nil || resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, data)
			}
			res := postStream(t, gw, withStream(hello, true))
			if !res.done {
				t.Fatalf("stream did not finish: %+v", res.errEvent)
			}
			for path, got := range map[string]*usage{"not streamed": c.Usage, "streamed": res.usage} {
				switch {
				case tt.want == nil && got != nil:
					t.Errorf("%s: usage %+v passed on", path, *got)
				case tt.want != nil && (got == nil || got.PromptTokens != tt.want.PromptTokens || got.CompletionTokens != tt.want.CompletionTokens):
					t.Errorf("%s: usage %+v, want %+v", path, got, *tt.want)
				}
			}
			if tt.want == nil {
				if s.metrics.promptTokens.Value() != 0 || s.metrics.completionTokens.Value() != 0 {
					t.Errorf("tokens counted: %v, %v", s.metrics.promptTokens.Value(), s.metrics.completionTokens.Value())
				}
				if strings.Count(logs.String(), "dropped the engine's usage") != 2 {
					t.Errorf("no warning in the log: %s", logs.String())
				}
			}
		})
	}
}
