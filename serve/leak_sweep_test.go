package serve

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The leak sweep (issue 34 item 2): every error path of every API, in
// front of an engine that is down, hangs, or misbehaves, answers the
// client in short words of its own. The engine's address, the dial errors
// and whatever the engine wrote in a failing reply go to the log only
// (SECURITY.md, Errors and logs).

// engineSecret marks what a misbehaving engine writes: it must never reach
// a client.
const engineSecret = "SECRET-b7e4c1"

// sweepEngine is a misbehaving engine: it answers every path (completions,
// detection probes, /v1/models, /health) as its mode says, and quotes its
// own address and engineSecret wherever it writes a body.
type sweepEngine struct {
	mode string
	addr string // host:port, once listening
}

// The misbehaving modes.
var sweepModes = []string{
	"500 json",        // a 5xx whose JSON error message holds the secret and the address
	"500 text",        // a 5xx with a plain-text body
	"400 json",        // a 4xx whose message passes through, once the engine's address is taken out
	"400 html",        // a 4xx with an HTML page, replaced by the status text
	"200 html",        // 200 with an HTML page where JSON was expected
	"malformed json",  // 200 application/json that is not JSON; the stream's events likewise
	"error event",     // a stream that answers with an error event; a body with an error object
	"truncated sse",   // a stream cut inside an event, after one good event
	"wrong type",      // a stream answered with a JSON object of the wrong content type
	"stall mid-reply", // a completion's headers and one event, then nothing until the gateway gives up
}

func (e *sweepEngine) body() string {
	if e.mode == "400 json" {
		// The engine's words about the request reach the client (the
		// context length, say), but not where the engine is.
		return "This model's maximum context length is 4096 tokens (engine http://" + e.addr + "/v1)"
	}
	return engineSecret + " at " + e.addr + ": dial tcp " + e.addr + ": connect: connection refused"
}

func (e *sweepEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	stream := strings.Contains(r.Header.Get("Accept"), "text/event-stream")
	quoted := `"` + e.body() + `"`
	switch e.mode {
	case "500 json":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		io.WriteString(w, `{"error":{"message":`+quoted+`,"type":"InternalServerError","code":500}}`)
	case "400 json":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		io.WriteString(w, `{"error":{"message":`+quoted+`,"type":"BadRequestError","code":400}}`)
	case "400 html":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(400)
		io.WriteString(w, "<html><body>"+e.body()+"</body></html>")
	case "500 text":
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(500)
		io.WriteString(w, e.body())
	case "200 html":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>"+e.body()+"</body></html>")
	case "malformed json":
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"choices":[{"index":0,"text":`+quoted+"\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"index":0,"text":`+quoted)
	case "error event":
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"error":{"message":`+quoted+`,"type":"InternalServerError","code":500}}`+"\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"error","message":`+quoted+`,"type":"InternalServerError","code":500}`)
	case "truncated sse":
		if r.URL.Path != "/v1/completions" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"detail":`+quoted+`}`)
			return
		}
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("no hijacker")
		}
		conn, bw, err := hj.Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		ct := "text/event-stream"
		if !stream {
			ct = "application/json"
		}
		// A body longer than it is: the connection closes inside it.
		bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: " + ct + "\r\nContent-Length: 100000\r\n\r\n")
		if stream {
			bw.WriteString(`data: {"choices":[{"index":0,"text":"<|channel|>analysis<|message|>ok","finish_reason":null}]}` + "\n\n")
		}
		bw.WriteString(`data: {"choices":[{"index":0,"text":` + quoted)
		bw.Flush()
	case "wrong type":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"message":`+quoted+`}`)
	case "stall mid-reply":
		if r.URL.Path != "/v1/completions" {
			// Detection, /v1/models and /health are bounded by their own
			// timeouts (5 s): here they fail at once.
			w.WriteHeader(503)
			io.WriteString(w, e.body())
			return
		}
		ct := "application/json"
		if stream {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(200)
		if stream {
			io.WriteString(w, `data: {"choices":[{"index":0,"text":"<|channel|>analysis<|message|>thinking","finish_reason":null}]}`+"\n\n")
		} else {
			io.WriteString(w, `{"choices":[{"index":0,"text":`+quoted)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// hangingListener accepts connections and reads them, never answering,
// until the test ends.
func hangingListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, bufio.NewReader(c)) }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return ln.Addr().String()
}

// closedAddr returns an address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// sweepRequest is one request of the sweep.
type sweepRequest struct {
	name, method, path, body string
	key                      bool // send the API key (the gateway under test has one)
}

// sweepRequests are every endpoint's requests: the three generating APIs,
// free and constrained (tools and response formats), streamed and not,
// then count_tokens, the models list and /health, with and without the key.
func sweepRequests() []sweepRequest {
	var out []sweepRequest
	free := map[string]string{
		"chat":      `{"model":"beam","messages":[{"role":"user","content":"Hi"}]}`,
		"messages":  `{"model":"beam","max_tokens":100,"messages":[{"role":"user","content":"Hi"}]}`,
		"responses": `{"model":"beam","input":"Hi"}`,
	}
	for _, api := range apiCases {
		bodies := [][2]string{{"free", free[api.name]}}
		for _, cc := range constraintCases {
			bodies = append(bodies, [2]string{cc.name, constrainedBody(api.name, weatherParams, cc.extra[api.name])})
		}
		for _, b := range bodies {
			for _, stream := range []bool{false, true} {
				body, name := b[1], api.name+" "+b[0]
				if stream {
					body, name = `{"stream":true,`+strings.TrimPrefix(body, "{"), name+" streamed"
				}
				out = append(out, sweepRequest{name, "POST", api.path, body, true})
			}
		}
	}
	return append(out,
		sweepRequest{"count_tokens", "POST", "/v1/messages/count_tokens", free["messages"], true},
		sweepRequest{"models", "GET", "/v1/models", "", true},
		sweepRequest{"models without /v1", "GET", "/models", "", true},
		sweepRequest{"health", "GET", "/health", "", false},
		sweepRequest{"health with the key", "GET", "/health", "", true},
	)
}

// sweepKey is the API key of the gateways under test, so that /health
// shows its details only to a request with it.
const sweepKey = "sweep-key-0123456789"

// sweep sends every request to a gateway in front of the engines at addrs
// and fails on any trace of an engine in a reply: its address, a dial
// error, or engineSecret, in the body, the headers or the stream; and on
// a reply that is not an error, as each request of the sweep must fail.
// It returns the log.
func sweep(t *testing.T, addrs []string, mods ...func(*Config)) string {
	t.Helper()
	var logs syncBuffer
	cfg := Config{Logger: newJSONLogger(&logs), APIKeys: []string{sweepKey}, Timeout: 300 * time.Millisecond, PingInterval: -1}
	leaks := []string{"dial tcp", "connection refused", "connect:", engineSecret, "i/o timeout", "awaiting"}
	for _, addr := range addrs {
		cfg.Backends = append(cfg.Backends, Backend{URL: "http://" + addr})
		host, port, _ := net.SplitHostPort(addr)
		leaks = append(leaks, addr, host+":", ":"+port)
	}
	for _, m := range mods {
		m(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(s)
	defer gw.Close()
	client := &http.Client{Timeout: time.Minute}
	for _, rq := range sweepRequests() {
		var body io.Reader
		if rq.body != "" {
			body = strings.NewReader(rq.body)
		}
		req, err := http.NewRequest(rq.method, gw.URL+rq.path, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if rq.key {
			req.Header.Set("Authorization", "Bearer "+sweepKey)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", rq.name, err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var head strings.Builder
		_ = resp.Header.Write(&head)
		reply := head.String() + "\n" + string(data)
		if testing.Verbose() {
			t.Logf("%s: %d %.200s", rq.name, resp.StatusCode, strings.ReplaceAll(string(data), "\n", " "))
		}
		if rq.name == "health with the key" {
			// The details name the engine to a request with the key
			// (README, Securing the gateway): its URL, no more.
			for _, addr := range addrs {
				reply = strings.ReplaceAll(reply, `"url":"http://`+addr+`"`, `"url":"(the backend)"`)
			}
		}
		failed := resp.StatusCode >= 400 || strings.Contains(string(data), `"error":{`) ||
			strings.Contains(string(data), "event: error") || strings.Contains(string(data), `"status":"failed"`)
		if !failed && !strings.HasPrefix(rq.name, "health") {
			t.Errorf("%s: %d: not an error, so the sweep does not test an error path:\n%s", rq.name, resp.StatusCode, reply)
		}
		for _, leak := range leaks {
			if strings.Contains(reply, leak) {
				t.Errorf("%s: %d: the reply holds %q:\n%s", rq.name, resp.StatusCode, leak, reply)
				break
			}
		}
	}
	return logs.String()
}

// TestErrorsKeepTheEngineToTheLog sweeps every error path of every API
// against an engine that is down, hangs, or misbehaves.
func TestErrorsKeepTheEngineToTheLog(t *testing.T) {
	old := detectRetry
	detectRetry = 0
	t.Cleanup(func() { detectRetry = old })
	for _, engine := range []EngineKind{EngineAuto, EngineVLLM} {
		setEngine := func(c *Config) { c.Engine = engine }
		t.Run("down/"+engine.String(), func(t *testing.T) {
			log := sweep(t, []string{closedAddr(t)}, setEngine)
			if !strings.Contains(log, "connection refused") {
				t.Errorf("the log lacks the dial error:\n%s", log)
			}
		})
		t.Run("hanging/"+engine.String(), func(t *testing.T) {
			// The client's own header timeout bounds the detection
			// probes, /v1/models and /health; the server's --timeout the
			// completions.
			client := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: 100 * time.Millisecond}}
			sweep(t, []string{hangingListener(t)}, setEngine, func(c *Config) { c.Client = client })
		})
		for _, mode := range sweepModes {
			t.Run(mode+"/"+engine.String(), func(t *testing.T) {
				e := &sweepEngine{mode: mode}
				srv := httptest.NewServer(e)
				defer srv.Close()
				e.addr = srv.Listener.Addr().String()
				log := sweep(t, []string{e.addr}, setEngine)
				if mode == "500 json" && !strings.Contains(log, engineSecret) {
					t.Errorf("the log lacks the engine's words:\n%s", log)
				}
			})
		}
		// Replicas: every one fails, each its own way, and the request
		// is retried on the others first.
		t.Run("replicas/"+engine.String(), func(t *testing.T) {
			var addrs []string
			for _, mode := range []string{"500 json", "500 text"} {
				e := &sweepEngine{mode: mode}
				srv := httptest.NewServer(e)
				defer srv.Close()
				e.addr = srv.Listener.Addr().String()
				addrs = append(addrs, e.addr)
			}
			// The closed address is taken while the servers listen: the
			// kernel may give a port just closed to the next listener,
			// which made it one of theirs ("given twice").
			closed := closedAddr(t)
			for slices.Contains(addrs, closed) {
				closed = closedAddr(t)
			}
			sweep(t, append([]string{closed}, addrs...), setEngine)
		})
	}
}
