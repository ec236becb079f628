package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
)

// gen is one scripted generation of the fake engine.
type gen struct {
	text       string   // the generated text
	tokens     []string // the streamed pieces; nil means tokenize(text)
	finish     string   // finish_reason; "" means stop
	stopReason any      // stop_reason: nil (null), a stop string, or an int
	sglang     bool     // name it matched_stop, as SGLang does
	delay      time.Duration
	cutAfter   int    // > 0: stream that many tokens, then drop the connection
	status     int    // not 0 or 200: answer this status with body
	body       string // a raw reply body (with status, or nonsense with 200)
	hang       bool   // answer nothing until the request is cancelled
	noUsage    bool
	cached     int    // > 0: usage.prompt_tokens_details.cached_tokens
	noDone     bool   // end the stream without [DONE]
	noFinish   bool   // never send a finish_reason
	errorEvent string // when set, sent as an event after errorAfter tokens, ending the stream
	errorAfter int
	splitEnd   bool // send finish_reason in an event of its own, with empty text
	// events, when set, are the raw data of a streamed reply's events,
	// sent as they are and followed by [DONE].
	events []string
}

// engineReq is a request the fake engine received.
type engineReq struct {
	raw       map[string]json.RawMessage
	Model     string   `json:"model"`
	Prompt    string   `json:"-"` // the prompt's text, when it came as text
	PromptIDs []int    `json:"-"` // the prompt's token ids, when it came as ids
	MaxTokens int64    `json:"max_tokens"`
	Stop      []string `json:"stop"`
	Stream    bool     `json:"stream"`
	header    http.Header
}

// fakeEngine speaks vLLM's /v1/completions wire format, streaming and not,
// replaying the generations its script returns.
type fakeEngine struct {
	srv    *httptest.Server
	script func(r *engineReq) gen

	mu   sync.Mutex
	reqs []*engineReq

	// cancelled counts requests whose context ended before the fake
	// finished answering; cancelledCh gets one value per such request.
	cancelled   atomic.Int64
	cancelledCh chan struct{}
	health      atomic.Int32 // status of GET /health; 0 means 200
	// kind is the EngineKind whose detection endpoint the fake answers
	// (none by default); probes counts the detection requests.
	kind   atomic.Int32
	probes atomic.Int64
	// loading makes the detection endpoints answer 503, as llama-server
	// does while it loads the model.
	loading atomic.Bool
}

// newFakeEngineOf is newFakeEngine answering kind's detection endpoint.
func newFakeEngineOf(t testing.TB, kind EngineKind, script func(r *engineReq) gen) *fakeEngine {
	fe := newFakeEngine(t, script)
	fe.kind.Store(int32(kind))
	return fe
}

func newFakeEngine(t testing.TB, script func(r *engineReq) gen) *fakeEngine {
	fe := &fakeEngine{script: script, cancelledCh: make(chan struct{}, 1024)}
	fe.srv = httptest.NewServer(fe)
	t.Cleanup(fe.srv.Close)
	return fe
}

// fixed is a script that always answers g.
func fixed(g gen) func(*engineReq) gen { return func(*engineReq) gen { return g } }

func (fe *fakeEngine) requests() []*engineReq {
	fe.mu.Lock()
	defer fe.mu.Unlock()
	return append([]*engineReq(nil), fe.reqs...)
}

func (fe *fakeEngine) lastRequest(t testing.TB) *engineReq {
	t.Helper()
	reqs := fe.requests()
	if len(reqs) == 0 {
		t.Fatal("the engine got no request")
	}
	return reqs[len(reqs)-1]
}

func (fe *fakeEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/health":
		if st := fe.health.Load(); st != 0 {
			w.WriteHeader(int(st))
		}
		return
	case "/v1/models":
		io.WriteString(w, `{"object":"list","data":[{"id":"beam-fake","object":"model","created":1,"owned_by":"fake"}]}`)
		return
	case "/props", "/version", "/get_server_info", "/server_info":
		fe.probes.Add(1)
		if fe.loading.Load() {
			http.Error(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`, http.StatusServiceUnavailable)
			return
		}
		answers := map[EngineKind][2]string{
			EngineLlamaCpp: {"/props", `{"default_generation_settings":{"n_ctx":4096},"total_slots":1,"build_info":"b1-fake"}`},
			EngineVLLM:     {"/version", `{"version":"0.11.0"}`},
			EngineSGLang:   {"/get_server_info", `{"model_path":"beam","version":"0.5.0"}`},
		}
		if a, ok := answers[EngineKind(fe.kind.Load())]; ok && a[0] == r.URL.Path {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, a[1])
			return
		}
		http.NotFound(w, r)
		return
	case "/v1/completions":
	default:
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	req := &engineReq{header: r.Header.Clone()}
	if err := json.Unmarshal(body, &req.raw); err != nil {
		http.Error(w, `{"error":{"message":"fake engine: bad JSON","type":"BadRequestError","code":400}}`, 400)
		return
	}
	_ = json.Unmarshal(body, req)
	if p := req.raw["prompt"]; len(p) > 0 && p[0] == '[' {
		_ = json.Unmarshal(p, &req.PromptIDs)
	} else {
		_ = json.Unmarshal(p, &req.Prompt)
	}
	fe.mu.Lock()
	fe.reqs = append(fe.reqs, req)
	fe.mu.Unlock()
	g := fe.script(req)
	ctx := r.Context()
	cancelled := func() {
		fe.cancelled.Add(1)
		select {
		case fe.cancelledCh <- struct{}{}:
		default:
		}
	}
	if g.hang {
		<-ctx.Done()
		cancelled()
		return
	}
	if g.status != 0 && g.status != 200 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(g.status)
		io.WriteString(w, g.body)
		return
	}
	if g.body != "" && !(req.Stream && g.events != nil) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, g.body)
		return
	}
	finish := g.finish
	if finish == "" {
		finish = "stop"
	}
	stop, _ := json.Marshal(g.stopReason)
	stopField := "stop_reason"
	if g.sglang {
		stopField = "matched_stop"
	}
	tokens := g.tokens
	if tokens == nil {
		tokens = tokenize(g.text)
	}
	usage := fmt.Sprintf(`{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d}`,
		len(req.Prompt)/4, len(req.Prompt)/4+len(tokens), len(tokens))
	if g.cached > 0 {
		usage = fmt.Sprintf(`{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}}`,
			len(req.Prompt)/4, len(req.Prompt)/4+len(tokens), len(tokens), g.cached)
	}
	if !req.Stream {
		if !sleep(ctx, g.delay) {
			cancelled()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		text, _ := json.Marshal(g.text)
		fmt.Fprintf(w, `{"id":"cmpl-fake","object":"text_completion","created":1,"model":%q,"choices":[{"index":0,"text":%s,"logprobs":null,"finish_reason":%q,%q:%s,"prompt_logprobs":null}]`,
			req.Model, text, finish, stopField, stop)
		if !g.noUsage {
			fmt.Fprintf(w, `,"usage":%s`, usage)
		}
		io.WriteString(w, "}")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(200)
	flusher := w.(http.Flusher)
	flusher.Flush() // the headers go out at once, as vLLM's do
	bw := bufio.NewWriter(w)
	if g.events != nil {
		for _, e := range g.events {
			fmt.Fprintf(bw, "data: %s\n\n", e)
		}
		io.WriteString(bw, "data: [DONE]\n\n")
		bw.Flush()
		return
	}
	event := func(text string, finish string) {
		t, _ := json.Marshal(text)
		fr, sr := "null", "null"
		if finish != "" {
			fr, sr = `"`+finish+`"`, string(stop)
		}
		fmt.Fprintf(bw, "data: {\"id\":\"cmpl-fake\",\"object\":\"text_completion\",\"created\":1,\"model\":%q,\"choices\":[{\"index\":0,\"text\":%s,\"logprobs\":null,\"finish_reason\":%s,%q:%s}],\"usage\":null}\n\n",
			req.Model, t, fr, stopField, sr)
		bw.Flush()
		flusher.Flush()
	}
	for i, tok := range tokens {
		if g.errorEvent != "" && i == g.errorAfter {
			fmt.Fprintf(bw, "data: %s\n\n", g.errorEvent)
			bw.Flush()
			return
		}
		if g.cutAfter > 0 && i == g.cutAfter {
			// Drop the connection in the middle of the stream.
			panic(http.ErrAbortHandler)
		}
		if !sleep(ctx, g.delay) || ctx.Err() != nil {
			cancelled()
			return
		}
		last := i == len(tokens)-1 && !g.splitEnd && !g.noFinish
		if last {
			event(tok, finish)
		} else {
			event(tok, "")
		}
	}
	if (len(tokens) == 0 || g.splitEnd) && !g.noFinish {
		event("", finish)
	}
	if !g.noUsage {
		fmt.Fprintf(bw, "data: {\"id\":\"cmpl-fake\",\"object\":\"text_completion\",\"created\":1,\"model\":%q,\"choices\":[],\"usage\":%s}\n\n", req.Model, usage)
	}
	if !g.noDone {
		io.WriteString(bw, "data: [DONE]\n\n")
	}
	bw.Flush()
	flusher.Flush()
}

func sleep(ctx interface{ Done() <-chan struct{} }, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// tokenize cuts text roughly as a tokenizer would: each marker is one
// token, other text goes in pieces of at most 5 bytes, cut at rune
// boundaries and after spaces.
func tokenize(text string) []string {
	var out []string
	for len(text) > 0 {
		if mk := markerAt(text); mk != "" {
			out = append(out, mk)
			text = text[len(mk):]
			continue
		}
		n := 0
		for n < len(text) && n < 5 {
			if n > 0 && markerAt(text[n:]) != "" {
				break
			}
			_, size := utf8.DecodeRuneInString(text[n:])
			n += size
			if text[n-1] == ' ' {
				break
			}
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

func markerAt(s string) string {
	for _, mk := range harmony.Markers() {
		if strings.HasPrefix(s, mk) {
			return mk
		}
	}
	return ""
}

// Scripted generations in Beam Harmony, as the engine returns them with
// the marker-keeping flags (markers and the stop string in the text).

func answerText(reasoning, content string) string {
	return "<|channel|>analysis<|message|>" + reasoning + "<|end|>" +
		"<|start|>assistant<|channel|>final<|message|>" + content + "<|return|>"
}

// answer is a generation that reasons, then answers.
func answer(reasoning, content string) gen {
	return gen{text: answerText(reasoning, content), stopReason: harmony.MarkerReturn}
}

// scriptCall is one scripted tool call: a tool name and its parameters in
// order.
type scriptCall struct {
	name   string
	params [][2]string
}

func callsText(reasoning string, calls ...scriptCall) string {
	var b strings.Builder
	b.WriteString("<|channel|>analysis<|message|>" + reasoning + "<|end|>")
	for i, c := range calls {
		b.WriteString("<|start|>assistant to=" + c.name + "<|channel|>analysis <|constrain|>xml<|message|>")
		for j, p := range c.params {
			if j > 0 {
				b.WriteString("\n")
			}
			b.WriteString(`<rfl:parameter name="` + p[0] + "\">\n" + p[1] + "\n</rfl:parameter>")
		}
		if i == len(calls)-1 {
			b.WriteString("<|call|>")
		} else {
			b.WriteString("<|end|>")
		}
	}
	return b.String()
}

// callGen is a generation that reasons, then calls tools.
func callGen(reasoning string, cs ...scriptCall) gen {
	return gen{text: callsText(reasoning, cs...), stopReason: harmony.MarkerCall}
}

// withoutEnd is g as an engine returns it that leaves the stop string out
// of the text: stop_reason still names it (vLLM without
// include_stop_str_in_output).
func withoutEnd(g gen) gen {
	for _, mk := range engineStops {
		g.text = strings.TrimSuffix(g.text, mk)
	}
	return g
}

// sglangEnd is g as SGLang returns it by default: the stop string cut
// from the text and named by matched_stop.
func sglangEnd(g gen) gen {
	g = withoutEnd(g)
	g.sglang = true
	return g
}

// eosEnd is g as an engine returns it that stopped on the end-of-sequence
// token and stripped it: no end marker and no stop_reason (llama.cpp,
// or vLLM stopping on <|return|> as EOS).
func eosEnd(g gen) gen {
	g = withoutEnd(g)
	g.stopReason = nil
	return g
}
