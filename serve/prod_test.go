package serve

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamharmony/harmony"
)

// Sampling values that are not finite numbers in range are a 400 naming
// the field, on every API, and the engine is not asked. Before, 1e400 and
// the rest were forwarded as written.
func TestSamplingValues(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) { c.Model = "beam" })
	apis := []struct {
		path, body string // body has %s where the field goes
		fields     []string
	}{
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"}]%s}`,
			[]string{"temperature", "top_p", "top_k", "min_p", "presence_penalty", "frequency_penalty", "repetition_penalty", "seed"}},
		{"/v1/messages", `{"max_tokens":10,"messages":[{"role":"user","content":"Hi"}]%s}`, []string{"temperature", "top_p", "top_k"}},
		{"/v1/responses", `{"input":"Hi"%s}`, []string{"temperature", "top_p"}},
	}
	bad := map[string][]string{
		"temperature":        {"1e400", "-1e400", "-0.5", "2.5", "1e309"},
		"top_p":              {"1e400", "0", "-0.1", "1.5"},
		"top_k":              {"1e400", "1.5", "-2", "3e9"},
		"min_p":              {"1e400", "-0.1", "1.1"},
		"presence_penalty":   {"1e400", "-2.5", "3"},
		"frequency_penalty":  {"-1e400", "2.01"},
		"repetition_penalty": {"1e400", "0", "-1"},
		"seed":               {"1e400", "1.5", "99999999999999999999"},
	}
	for _, api := range apis {
		for _, field := range api.fields {
			for _, v := range bad[field] {
				if api.path == "/v1/messages" && field == "temperature" && v == "2.5" {
					continue // out of Anthropic's range too; covered below
				}
				body := strings.Replace(api.body, "%s", `,"`+field+`":`+v, 1)
				before := len(fe.requests())
				resp, data := do(t, gw, "POST", api.path, body, nil)
				if resp.StatusCode != 400 || !strings.Contains(string(data), field+": must be") {
					t.Errorf("%s %s=%s: %d %s, want a 400 naming %s", api.path, field, v, resp.StatusCode, data, field)
				}
				if len(fe.requests()) != before {
					t.Errorf("%s %s=%s: the engine was asked", api.path, field, v)
				}
			}
		}
	}
	// Anthropic's temperature stops at 1.
	if resp, data := do(t, gw, "POST", "/v1/messages", `{"max_tokens":10,"temperature":1.5,"messages":[{"role":"user","content":"Hi"}]}`, nil); resp.StatusCode != 400 {
		t.Errorf("messages temperature 1.5: %d %s", resp.StatusCode, data)
	}
	// Valid values reach the engine, in their shortest form.
	resp, data := do(t, gw, "POST", "/v1/chat/completions",
		`{"messages":[{"role":"user","content":"Hi"}],"temperature":0.70,"top_p":1,"top_k":-1,"min_p":0,"presence_penalty":-2,"frequency_penalty":2e0,"repetition_penalty":1.10,"seed":-3}`, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("valid values: %d %s", resp.StatusCode, data)
	}
	raw := fe.lastRequest(t).raw
	for field, want := range map[string]string{"temperature": "0.7", "top_p": "1", "top_k": "-1", "min_p": "0",
		"presence_penalty": "-2", "frequency_penalty": "2", "repetition_penalty": "1.1", "seed": "-3"} {
		if got := string(raw[field]); got != want {
			t.Errorf("engine %s = %s, want %s", field, got, want)
		}
	}
}

// With a tokenizer and the model length, the engine is asked for what the
// context leaves when the client sets no limit, and a client's limit above
// that is a 400 stating both numbers, on all three APIs. Before, the
// engine got --max-tokens (8192) whatever the context left.
func TestMaxTokensFitContext(t *testing.T) {
	tk := beamTokenizer(t)
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	const maxLen = 100
	gw := newGateway(t, fe, func(c *Config) { c.Tokenizer = tk; c.MaxModelLen = maxLen; c.Model = "beam" })
	count := func(msgs []harmony.Message, opts harmony.Options) int {
		opts.AddGenerationPrompt = true
		toks, err := harmony.RenderTokens(context.Background(), msgs, &opts, tk)
		if err != nil {
			t.Fatal(err)
		}
		return len(toks.InputIDs)
	}
	user := []harmony.Message{{Role: "user", Content: "Hi"}}
	chatN := count(user, harmony.Options{})
	msgN := count(user, harmony.Options{})
	apis := []struct {
		path, field, body string // body has %s where the field goes
		prompt            int
	}{
		{"/v1/chat/completions", "max_tokens", `{"messages":[{"role":"user","content":"Hi"}]%s}`, chatN},
		{"/v1/chat/completions", "max_completion_tokens", `{"messages":[{"role":"user","content":"Hi"}]%s}`, chatN},
		{"/v1/messages", "max_tokens", `{"messages":[{"role":"user","content":"Hi"}]%s}`, msgN},
		{"/v1/responses", "max_output_tokens", `{"input":"Hi"%s}`, chatN},
	}
	for _, api := range apis {
		room := maxLen - api.prompt
		// No client value: all that is left.
		if resp, data := do(t, gw, "POST", api.path, strings.Replace(api.body, "%s", "", 1), nil); resp.StatusCode != 200 {
			t.Fatalf("%s without %s: %d %s", api.path, api.field, resp.StatusCode, data)
		}
		if got := fe.lastRequest(t).MaxTokens; got != int64(room) {
			t.Errorf("%s without %s: the engine got max_tokens %d, want %d (%d - %d)", api.path, api.field, got, room, maxLen, api.prompt)
		}
		// Within: as asked.
		if resp, data := do(t, gw, "POST", api.path, strings.Replace(api.body, "%s", `,"`+api.field+`":`+strconv.Itoa(room), 1), nil); resp.StatusCode != 200 {
			t.Fatalf("%s %s=%d: %d %s", api.path, api.field, room, resp.StatusCode, data)
		}
		if got := fe.lastRequest(t).MaxTokens; got != int64(room) {
			t.Errorf("%s %s=%d: the engine got %d", api.path, api.field, room, got)
		}
		// Above: a 400 with both numbers.
		before := len(fe.requests())
		resp, data := do(t, gw, "POST", api.path, strings.Replace(api.body, "%s", `,"`+api.field+`":`+strconv.Itoa(room+1), 1), nil)
		if resp.StatusCode != 400 || !strings.Contains(string(data), api.field+": "+strconv.Itoa(room+1)) ||
			!strings.Contains(string(data), "the "+strconv.Itoa(room)+" tokens") {
			t.Errorf("%s %s=%d: %d %s, want a 400 stating %d and %d", api.path, api.field, room+1, resp.StatusCode, data, room+1, room)
		}
		if len(fe.requests()) != before {
			t.Errorf("%s: the engine was asked", api.path)
		}
	}
}

// Without a tokenizer the prompt is not counted: the server's default is
// capped at the model length, and a client's value above the whole
// context is a 400.
func TestMaxTokensWithoutTokenizer(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) { c.MaxModelLen = 100; c.Model = "beam" })
	if resp, data := post(t, gw, chatBody); resp.StatusCode != 200 || fe.lastRequest(t).MaxTokens != 100 {
		t.Errorf("default: %d %s, engine max_tokens %d, want 100", resp.StatusCode, data, fe.lastRequest(t).MaxTokens)
	}
	if resp, data := post(t, gw, `{"messages":[{"role":"user","content":"Hi"}],"max_tokens":101}`); resp.StatusCode != 400 || !strings.Contains(string(data), "101") || !strings.Contains(string(data), "100") {
		t.Errorf("max_tokens 101: %d %s", resp.StatusCode, data)
	}
}

// countingEncoder wraps a tokenizer: it records the most text given in one
// call and in total, and the most calls in progress at once; while hold is
// open, a call with no other in progress waits on it.
type countingEncoder struct {
	harmony.TokenEncoder
	mu             sync.Mutex
	maxText, total int
	inFlight, peak atomic.Int64
	entered        chan struct{}
	hold           chan struct{}
}

func (e *countingEncoder) AppendEncodeOrdinary(dst []int, text string) []int {
	n := e.inFlight.Add(1)
	defer e.inFlight.Add(-1)
	for {
		p := e.peak.Load()
		if n <= p || e.peak.CompareAndSwap(p, n) {
			break
		}
	}
	e.mu.Lock()
	e.maxText = max(e.maxText, len(text))
	e.total += len(text)
	e.mu.Unlock()
	if e.entered != nil {
		select {
		case e.entered <- struct{}{}:
		default:
		}
	}
	if e.hold != nil && n == 1 {
		// Only a call alone holds: one beside it (a limit not kept)
		// goes on, so that the test fails rather than hangs.
		<-e.hold
	}
	return e.TokenEncoder.AppendEncodeOrdinary(dst, text)
}

// A prompt longer than MaxPromptBytes is a 413 before the tokenizer sees
// more than the limit, on count_tokens and the generating endpoints.
// Before, a 15 MiB count_tokens request was tokenized whole, which took
// about 2 GB (the tokenizer's working memory grows with the longest word).
func TestMaxPromptBytes(t *testing.T) {
	enc := &countingEncoder{TokenEncoder: beamTokenizer(t)}
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	const limit = 4 << 10
	gw := newGateway(t, fe, func(c *Config) { c.Tokenizer = enc; c.MaxPromptBytes = limit; c.Model = "beam" })
	long := strings.Repeat("a", 3*limit)
	for _, tt := range []struct{ path, body string }{
		{"/v1/messages/count_tokens", `{"messages":[{"role":"user","content":"` + long + `"}]}`},
		{"/v1/messages", `{"max_tokens":10,"messages":[{"role":"user","content":"` + long + `"}]}`},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"` + long + `"}]}`},
		{"/v1/responses", `{"input":"` + long + `"}`},
	} {
		resp, data := do(t, gw, "POST", tt.path, tt.body, nil)
		if resp.StatusCode != 413 || !strings.Contains(string(data), "--max-prompt-bytes") {
			t.Errorf("%s: %d %s, want a 413", tt.path, resp.StatusCode, data)
		}
	}
	enc.mu.Lock()
	if enc.maxText > limit || enc.total > 4*limit {
		t.Errorf("the tokenizer was given %d bytes at once, %d in all; the limit is %d a request", enc.maxText, enc.total, limit)
	}
	enc.mu.Unlock()
	// Under the limit, counted as before.
	resp, data := do(t, gw, "POST", "/v1/messages/count_tokens", `{"messages":[{"role":"user","content":"`+long[:limit/2]+`"}]}`, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(data), "input_tokens") {
		t.Errorf("under the limit: %d %s", resp.StatusCode, data)
	}
}

// No more than PrepareConcurrency requests tokenize at once: with one
// slot held, another request waits, and past its timeout is a 503. Before,
// every request tokenized at once.
func TestPrepareConcurrency(t *testing.T) {
	enc := &countingEncoder{TokenEncoder: beamTokenizer(t), entered: make(chan struct{}, 1), hold: make(chan struct{})}
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	buf := &syncBuffer{}
	gw := newGateway(t, fe, withLog(buf), func(c *Config) {
		c.Tokenizer, c.PrepareConcurrency, c.Model = enc, 1, "beam"
		// How long the second request waits for the slot. It bounds the
		// first request's preparation too, so it must leave the first
		// time to reach the tokenizer on a loaded machine under -race (1 ms
		// did not, and the test waited for it forever).
		c.Timeout = 300 * time.Millisecond
	})
	first := make(chan int, 1)
	go func() {
		resp, _ := do(t, gw, "POST", "/v1/messages/count_tokens", msgsBody, nil)
		first <- resp.StatusCode
	}()
	select {
	case <-enc.entered: // the first request holds the only slot, in the tokenizer
	case st := <-first:
		t.Fatalf("the first request ended (%d) without reaching the tokenizer", st)
	}
	// The second waits, then gives up with a 503; without the limit it
	// would tokenize beside the first.
	resp, data := do(t, gw, "POST", "/v1/messages/count_tokens", msgsBody, nil)
	close(enc.hold)
	if resp.StatusCode != 503 || !strings.Contains(string(data), "overloaded_error") {
		t.Errorf("second request: %d %s, want a 503", resp.StatusCode, data)
	}
	// The first had the slot; the timeout, passed while it was held, ends
	// its tokenizing (a 400).
	if st := <-first; st == 503 {
		t.Errorf("first request: %d", st)
	}
	if p := enc.peak.Load(); p != 1 {
		t.Errorf("%d tokenizer calls ran at once, want 1", p)
	}
	if !strings.Contains(buf.String(), `"error_kind":"busy"`) {
		t.Errorf("the 503 is not logged as busy:\n%s", buf.String())
	}
}

// A request waiting for a slot ends when its client goes away.
func TestPrepareWaitEndsWithClient(t *testing.T) {
	enc := &countingEncoder{TokenEncoder: beamTokenizer(t), entered: make(chan struct{}, 1), hold: make(chan struct{})}
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	buf := &syncBuffer{}
	s, err := New(Config{Backend: fe.srv.URL, Tokenizer: enc, PrepareConcurrency: 1, Model: "beam", Logger: newJSONLogger(buf)})
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(s)
	defer gw.Close()
	defer close(enc.hold)
	go func() {
		resp, err := http.Post(gw.URL+"/v1/messages/count_tokens", "application/json", strings.NewReader(msgsBody))
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-enc.entered
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", gw.URL+"/v1/messages/count_tokens", strings.NewReader(msgsBody))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	// Wait for the server to have the second request before leaving.
	waitFor(t, func() bool { return s.metrics.prepareWaiting.Value() == 1 })
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the cancelled request succeeded")
	}
	waitFor(t, func() bool { return strings.Contains(buf.String(), `"status":499`) })
	if s.metrics.prepareWaiting.Value() != 0 {
		t.Error("the request still waits")
	}
	if p := enc.peak.Load(); p != 1 {
		t.Errorf("%d tokenizer calls ran at once, want 1", p)
	}
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("condition never held")
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// logRecords decodes the JSON log records.
func logRecords(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// Logs: durations in seconds, a 405 with its own kind, 404s logged, and a
// count_tokens 501 at WARN. Before: nanoseconds, not_found for a 405, no
// record for a 404, a 501 at ERROR.
func TestLogRecords(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	buf := &syncBuffer{}
	gw := newGateway(t, fe, withLog(buf), func(c *Config) { c.Model = "beam" })
	find := func(pred func(map[string]any) bool) map[string]any {
		for _, r := range logRecords(t, buf.String()) {
			if pred(r) {
				return r
			}
		}
		t.Fatalf("no such record in\n%s", buf.String())
		return nil
	}
	do(t, gw, "POST", "/v1/chat/completions", chatBody, nil)
	r := find(func(r map[string]any) bool { return r["endpoint"] == "chat completion" && r["status"] == 200.0 })
	if d, ok := r["duration"].(float64); !ok || d <= 0 || d > 60 {
		t.Errorf("duration %v, want seconds", r["duration"])
	}
	do(t, gw, "GET", "/v1/chat/completions", "", nil)
	r = find(func(r map[string]any) bool { return r["status"] == 405.0 })
	if r["error_kind"] != "method_not_allowed" || r["level"] != "WARN" {
		t.Errorf("405 record %v", r)
	}
	do(t, gw, "GET", "/v1/nothing", "", nil)
	r = find(func(r map[string]any) bool { return r["status"] == 404.0 })
	if r["error_kind"] != "not_found" || r["path"] != "/v1/nothing" || r["level"] != "WARN" {
		t.Errorf("404 record %v", r)
	}
	// And counted, as the README's metrics table says.
	if _, data := do(t, gw, "GET", "/metrics", "", nil); !strings.Contains(string(data), `beamharmony_errors_total{kind="not_found"} 1`) {
		t.Errorf("the 404 is not counted:\n%s", data)
	}
	do(t, gw, "POST", "/v1/messages/count_tokens", msgsBody, nil)
	r = find(func(r map[string]any) bool { return r["status"] == 501.0 })
	if r["level"] != "WARN" || r["error_kind"] != "not_implemented" {
		t.Errorf("501 record %v", r)
	}
	do(t, gw, "GET", "/metrics", "", nil)
	if strings.Contains(buf.String(), `"duration":`) && strings.Contains(buf.String(), `000000,`) {
		t.Errorf("a duration in nanoseconds:\n%s", buf.String())
	}
}

// The package documentation and the Server's list every endpoint (go doc
// ./serve shows them); before, neither named /v1/responses.
func TestDocListsEndpoints(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/beamharmony/harmony/serve")
	if err != nil {
		t.Fatal(err)
	}
	var serverDoc string
	for _, typ := range p.Types {
		if typ.Name == "Server" {
			serverDoc = typ.Doc
		}
	}
	for path := range routes {
		if !strings.HasPrefix(path, "/v1/") && path != "/health" && path != "/metrics" {
			continue
		}
		for name, text := range map[string]string{"package": p.Doc, "Server": serverDoc} {
			if !strings.Contains(text, path+" ") {
				t.Errorf("the %s doc does not list %s", name, path)
			}
		}
	}
}

// A gzip body is read as the bytes it is (SECURITY.md): a 400, never
// inflated.
func TestCompressedBodyNotInflated(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) { c.Model = "beam" })
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(chatBody)); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	req, _ := http.NewRequest("POST", gw.URL+"/v1/chat/completions", &b)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 || len(fe.requests()) != 0 {
		t.Errorf("a gzip body: %d, engine asked %d times", resp.StatusCode, len(fe.requests()))
	}
}
