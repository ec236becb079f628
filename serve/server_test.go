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
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"
)

// streamCheck reads a streamed reply without a testing.T (for use from
// many goroutines) and returns its content and reasoning, or an error.
func streamCheck(client *http.Client, url, body string) (content, reasoning string, err error) {
	resp, err := client.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		data, _ := io.ReadAll(resp.Body)
		return "", "", fmt.Errorf("status %d: %s", resp.StatusCode, data)
	}
	sc := bufio.NewScanner(resp.Body)
	done := false
	var c, r strings.Builder
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var ch chunkJSON
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return "", "", err
		}
		if ch.Error != nil {
			return "", "", errors.New(ch.Error.Message)
		}
		for _, choice := range ch.Choices {
			c.WriteString(deref(choice.Delta.Content))
			r.WriteString(deref(choice.Delta.ReasoningContent))
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", err
	}
	if !done {
		return "", "", errors.New("no [DONE]")
	}
	return c.String(), r.String(), nil
}

// settleGoroutines waits for the goroutine count to fall back to before,
// and fails with a dump of the goroutines when it does not.
func settleGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			var b strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestConcurrentStreams runs 200 streams at once and checks that each
// gets its whole answer and that no goroutine is left behind.
func TestConcurrentStreams(t *testing.T) {
	const n = 200
	reasoning := strings.Repeat("Let me think about this. ", 8)
	content := strings.Repeat("Here is the answer. ", 8)
	g := answer(reasoning, content)
	g.delay = 200 * time.Microsecond
	fe := newFakeEngine(t, fixed(g))
	engineClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * n}}
	s, err := New(Config{Backend: fe.srv.URL, Client: engineClient})
	if err != nil {
		t.Fatal(err)
	}
	gw := newTestServer(t, s)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * n}}

	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"model":"beam","stream":true,"messages":[{"role":"user","content":"question %d"}]}`, i)
			c, r, err := streamCheck(client, gw, body)
			switch {
			case err != nil:
				errs <- err
			case c != content || r != reasoning:
				errs <- fmt.Errorf("stream %d: content %q reasoning %q", i, c, r)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := s.metrics.streamsOpen.Value(); got != 0 {
		t.Errorf("streams open after the test: %v", got)
	}
	if got := s.metrics.requests.With("true").Value(); got != float64(n) {
		t.Errorf("streamed requests counted: %v", got)
	}
	client.CloseIdleConnections()
	engineClient.CloseIdleConnections()
	settleGoroutines(t, before)
}

// newTestServer serves h on a local port until the test ends and returns
// its URL.
func newTestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// TestClientDisconnect checks that a client that goes away mid-stream
// cancels the engine request.
func TestClientDisconnect(t *testing.T) {
	g := answer(strings.Repeat("thinking ", 200), "never sent")
	g.delay = 5 * time.Millisecond
	fe := newFakeEngine(t, fixed(g))
	var logs syncBuffer
	engineClient := &http.Client{Transport: &http.Transport{}}
	s, err := New(Config{Backend: fe.srv.URL, Client: engineClient, Logger: newJSONLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	gw := newTestServer(t, s)
	client := &http.Client{Transport: &http.Transport{}}
	before := runtime.NumGoroutine()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", gw+"/v1/chat/completions",
		strings.NewReader(withStream(hello, false)))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	for seen := 0; seen < 3; {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(line, "reasoning_content") {
			seen++
		}
	}
	cancel()
	resp.Body.Close()
	waitCancelled(t, fe, 1)
	deadline := time.Now().Add(5 * time.Second)
	for s.metrics.errors.With("client_closed").Value() != 1 || s.metrics.streamsOpen.Value() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("client_closed %v, streams open %v", s.metrics.errors.With("client_closed").Value(), s.metrics.streamsOpen.Value())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), `"error_kind":"client_closed"`) {
		t.Errorf("log lacks the client_closed record: %s", logs.String())
	}
	client.CloseIdleConnections()
	engineClient.CloseIdleConnections()
	settleGoroutines(t, before)
}

// TestHealth checks GET /health: 200 when the engine answers, 503 when it
// does not, with a body saying which.
func TestHealth(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	gw := newGateway(t, fe)
	get := func() (int, map[string]any) {
		resp, err := http.Get(gw.URL + "/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	if st, body := get(); st != 200 || body["status"] != "ok" {
		t.Errorf("engine up: %d %v", st, body)
	}
	fe.health.Store(404) // an engine without /health: /v1/models answers
	if st, body := get(); st != 200 || body["status"] != "ok" {
		t.Errorf("engine without /health: %d %v", st, body)
	}
	fe.health.Store(503) // llama.cpp while loading its model
	if st, body := get(); st != 503 || body["status"] != "unavailable" {
		t.Errorf("engine loading: %d %v", st, body)
	}
	fe.srv.Close()
	st, body := get()
	engine, _ := body["engine"].(map[string]any)
	if st != 503 || engine["reachable"] != false || !strings.Contains(fmt.Sprint(engine["error"]), "unreachable") {
		t.Errorf("engine down: %d %v", st, body)
	}
}

func TestModels(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	for _, tt := range []struct {
		name, model, want string
	}{
		{"the engine's list", "", "beam-fake"},
		{"the server's model", "beam-served", "beam-served"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gw := newGateway(t, fe, func(c *Config) { c.Model = tt.model })
			resp, err := http.Get(gw.URL + "/v1/models")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var list struct {
				Object string `json:"object"`
				Data   []struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 200 || list.Object != "list" || len(list.Data) != 1 || list.Data[0].ID != tt.want {
				t.Errorf("%d %+v", resp.StatusCode, list)
			}
		})
	}
}

// TestMetrics checks the Prometheus text after a few requests.
func TestMetrics(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	gw := newGateway(t, fe)
	post(t, gw, hello)
	postStream(t, gw, withStream(hello, false))
	post(t, gw, `{"model":"beam","n":3,"messages":[{"role":"user","content":"x"}]}`)
	resp, err := http.Get(gw.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	text := string(data)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	for _, want := range []string{
		`beamharmony_requests_total{stream="false"} 2`,
		`beamharmony_requests_total{stream="true"} 1`,
		`beamharmony_errors_total{kind="bad_request"} 1`,
		`beamharmony_errors_total{kind="timeout"} 0`,
		"# TYPE beamharmony_streams_open gauge\nbeamharmony_streams_open 0\n",
		"beamharmony_request_duration_seconds_count 3\n",
		`beamharmony_request_duration_seconds_bucket{le="+Inf"} 3`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "beamharmony_completion_tokens_total 0\n") {
		t.Errorf("tokens not counted:\n%s", text)
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if !strings.HasPrefix(line, "#") && len(strings.Fields(line)) != 2 {
			t.Errorf("malformed sample line %q", line)
		}
	}
}

// TestRequestID checks that a client's X-Request-Id is echoed and logged,
// and that the engine gets it too.
func TestRequestID(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	var logs syncBuffer
	gw := newGateway(t, fe, withLog(&logs))
	req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", strings.NewReader(hello))
	req.Header.Set("X-Request-Id", "trace-42")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Request-Id"); got != "trace-42" {
		t.Errorf("X-Request-Id %q", got)
	}
	if got := fe.lastRequest(t).header.Get("X-Request-Id"); got != "trace-42" {
		t.Errorf("engine got X-Request-Id %q", got)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(logs.String())), &rec); err != nil {
		t.Fatalf("log %q: %v", logs.String(), err)
	}
	if rec["request_id"] != "trace-42" || rec["msg"] != "chat completion" || rec["status"] != float64(200) || rec["finish_reason"] != "stop" {
		t.Errorf("log record %v", rec)
	}
	resp, _ = post(t, gw, hello)
	if id := resp.Header.Get("X-Request-Id"); !strings.HasPrefix(id, "req_") {
		t.Errorf("generated X-Request-Id %q", id)
	}
}

func TestRoutes(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	gw := newGateway(t, fe)
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/v1/chat/completions", 405},
		{"POST", "/v1/models", 405},
		{"GET", "/v1/embeddings", 404},
	} {
		req, _ := http.NewRequest(tt.method, gw.URL+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s %s: %d, want %d", tt.method, tt.path, resp.StatusCode, tt.status)
		}
		decodeError(t, data)
	}
}

// TestGracefulShutdown checks that Run lets an open stream finish after
// shutdown begins, and cancels streams still open at the deadline.
func TestGracefulShutdown(t *testing.T) {
	start := func(t *testing.T, g gen, deadline time.Duration) (*fakeEngine, string, context.CancelFunc, chan error) {
		fe := newFakeEngine(t, fixed(g))
		engineClient := &http.Client{Transport: &http.Transport{}}
		t.Cleanup(engineClient.CloseIdleConnections)
		s, err := New(Config{Backend: fe.srv.URL, Client: engineClient})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- Run(ctx, ln, s, RunOptions{ShutdownTimeout: deadline}) }()
		return fe, "http://" + ln.Addr().String(), cancel, done
	}
	// openStream starts a stream and returns it once its first chunk
	// has arrived.
	openStream := func(t *testing.T, url string) (*http.Response, *bufio.Reader) {
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(withStream(hello, false)))
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(resp.Body)
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		return resp, br
	}

	for _, deadline := range []time.Duration{10 * time.Second, 0} { // 0: the default, 30 s
		t.Run(fmt.Sprintf("open stream finishes, ShutdownTimeout %v", deadline), func(t *testing.T) {
			openStreamFinishes(t, start, openStream, deadline)
		})
	}
	t.Run("deadline cancels", func(t *testing.T) {
		g := answer(strings.Repeat("think ", 200), "never")
		g.delay = 20 * time.Millisecond
		fe, url, cancel, done := start(t, g, 50*time.Millisecond)
		resp, br := openStream(t, url)
		defer resp.Body.Close()
		cancel()
		_, _ = io.ReadAll(br)
		if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Run: %v, want the deadline", err)
		}
		waitCancelled(t, fe, 1)
	})
	// A negative ShutdownTimeout gives open streams no time (zero would
	// be the default, 30 s, and this stream would finish).
	t.Run("negative cancels at once", func(t *testing.T) {
		g := answer(strings.Repeat("think ", 200), "never")
		g.delay = 20 * time.Millisecond
		fe, url, cancel, done := start(t, g, -1)
		resp, br := openStream(t, url)
		defer resp.Body.Close()
		cancel()
		_, _ = io.ReadAll(br)
		if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Run: %v, want the deadline", err)
		}
		waitCancelled(t, fe, 1)
	})
}

// openStreamFinishes opens a stream, starts the shutdown, and checks that
// the stream runs to its end and Run returns cleanly.
func openStreamFinishes(t *testing.T, start func(*testing.T, gen, time.Duration) (*fakeEngine, string, context.CancelFunc, chan error),
	openStream func(*testing.T, string) (*http.Response, *bufio.Reader), deadline time.Duration) {
	g := answer(strings.Repeat("think ", 20), "The end.")
	g.delay = 5 * time.Millisecond
	_, url, cancel, done := start(t, g, deadline)
	resp, br := openStream(t, url)
	defer resp.Body.Close()
	cancel()
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(rest), "data: [DONE]\n\n") || !strings.Contains(string(rest), `"content":"end."`) {
		t.Errorf("stream cut by shutdown: %q", rest)
	}
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	if _, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(hello)); err == nil {
		t.Error("a request after shutdown was served")
	}
}
