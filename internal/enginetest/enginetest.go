// Package enginetest is a scripted inference engine for tests: an HTTP
// server that speaks vLLM's /v1/completions wire format (streaming and
// not, with llama.cpp's, vLLM's or SGLang's detection endpoint) and
// replays the generations a script returns, counting requests and
// cancellations. The gateway's tests in package serve and the conformance
// module's (the OpenAI and Anthropic SDKs against the gateway) share it.
package enginetest

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

// Gen is one scripted generation.
type Gen struct {
	Text       string   // the generated text
	Tokens     []string // the streamed pieces; nil means Tokenize(Text)
	Finish     string   // finish_reason; "" means stop
	StopReason any      // stop_reason: nil (null), a stop string, or an int
	SGLang     bool     // name it matched_stop, as SGLang does
	Delay      time.Duration
	CutAfter   int    // > 0: stream that many tokens, then drop the connection
	Status     int    // not 0 or 200: answer this status with Body
	Body       string // a raw reply body (with Status, or nonsense with 200)
	Hang       bool   // answer nothing until the request is cancelled
	NoUsage    bool
	Cached     int    // > 0: usage.prompt_tokens_details.cached_tokens
	NoDone     bool   // end the stream without [DONE]
	NoFinish   bool   // never send a finish_reason
	ErrorEvent string // when set, sent as an event after ErrorAfter tokens, ending the stream
	ErrorAfter int
	SplitEnd   bool // send finish_reason in an event of its own, with empty text
	// Events, when set, are the raw data of a streamed reply's events,
	// sent as they are and followed by [DONE].
	Events []string
}

// Request is a request the engine received.
type Request struct {
	Raw       map[string]json.RawMessage // the body's fields
	Model     string                     `json:"model"`
	Prompt    string                     `json:"-"` // the prompt's text, when it came as text
	PromptIDs []int                      `json:"-"` // the prompt's token ids, when it came as ids
	MaxTokens int64                      `json:"max_tokens"`
	Stop      []string                   `json:"stop"`
	Stream    bool                       `json:"stream"`
	Header    http.Header                `json:"-"`
}

// Kind is the engine whose detection endpoint it answers.
type Kind int32

// The kinds: None answers no detection endpoint.
const (
	None Kind = iota
	LlamaCpp
	VLLM
	SGLang
)

// detectionAnswers are each kind's detection endpoint and its answer.
var detectionAnswers = map[Kind][2]string{
	LlamaCpp: {"/props", `{"default_generation_settings":{"n_ctx":4096},"total_slots":1,"build_info":"b1-fake"}`},
	VLLM:     {"/version", `{"version":"0.11.0"}`},
	SGLang:   {"/get_server_info", `{"model_path":"beam","version":"0.5.0"}`},
}

// Engine is the scripted engine, serving at Server.URL.
type Engine struct {
	Server *httptest.Server
	script func(r *Request) Gen

	mu   sync.Mutex
	reqs []*Request

	// Cancelled counts requests whose context ended before the engine
	// finished answering; CancelledCh gets one value per such request.
	Cancelled   atomic.Int64
	CancelledCh chan struct{}
	Health      atomic.Int32 // status of GET /health; 0 means 200
	// Kind is the Kind whose detection endpoint the engine answers (None
	// by default); Probes counts the detection requests.
	Kind   atomic.Int32
	Probes atomic.Int64
	// Loading makes the detection endpoints answer 503, as llama-server
	// does while it loads the model.
	Loading atomic.Bool
}

// New starts an engine answering script, closed when t ends.
func New(t testing.TB, script func(r *Request) Gen) *Engine {
	e := &Engine{script: script, CancelledCh: make(chan struct{}, 1024)}
	e.Server = httptest.NewServer(e)
	t.Cleanup(e.Server.Close)
	return e
}

// Fixed is a script that always answers g.
func Fixed(g Gen) func(*Request) Gen { return func(*Request) Gen { return g } }

// Requests returns the requests received so far, in order.
func (e *Engine) Requests() []*Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*Request(nil), e.reqs...)
}

// LastRequest returns the last request received; none fails t.
func (e *Engine) LastRequest(t testing.TB) *Request {
	t.Helper()
	reqs := e.Requests()
	if len(reqs) == 0 {
		t.Fatal("the engine got no request")
	}
	return reqs[len(reqs)-1]
}

// ServeHTTP answers the engine's endpoints: /health, /v1/models, the
// detection endpoint of its Kind, and /v1/completions from the script.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/health":
		if st := e.Health.Load(); st != 0 {
			w.WriteHeader(int(st))
		}
		return
	case "/v1/models":
		io.WriteString(w, `{"object":"list","data":[{"id":"beam-fake","object":"model","created":1,"owned_by":"fake"}]}`)
		return
	case "/props", "/version", "/get_server_info", "/server_info":
		e.Probes.Add(1)
		if e.Loading.Load() {
			http.Error(w, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`, http.StatusServiceUnavailable)
			return
		}
		if a, ok := detectionAnswers[Kind(e.Kind.Load())]; ok && a[0] == r.URL.Path {
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
	req := &Request{Header: r.Header.Clone()}
	if err := json.Unmarshal(body, &req.Raw); err != nil {
		http.Error(w, `{"error":{"message":"fake engine: bad JSON","type":"BadRequestError","code":400}}`, 400)
		return
	}
	_ = json.Unmarshal(body, req)
	if p := req.Raw["prompt"]; len(p) > 0 && p[0] == '[' {
		_ = json.Unmarshal(p, &req.PromptIDs)
	} else {
		_ = json.Unmarshal(p, &req.Prompt)
	}
	e.mu.Lock()
	e.reqs = append(e.reqs, req)
	e.mu.Unlock()
	g := e.script(req)
	ctx := r.Context()
	cancelled := func() {
		e.Cancelled.Add(1)
		select {
		case e.CancelledCh <- struct{}{}:
		default:
		}
	}
	if g.Hang {
		<-ctx.Done()
		cancelled()
		return
	}
	if g.Status != 0 && g.Status != 200 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(g.Status)
		io.WriteString(w, g.Body)
		return
	}
	if g.Body != "" && !(req.Stream && g.Events != nil) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, g.Body)
		return
	}
	finish := g.Finish
	if finish == "" {
		finish = "stop"
	}
	stop, _ := json.Marshal(g.StopReason)
	stopField := "stop_reason"
	if g.SGLang {
		stopField = "matched_stop"
	}
	tokens := g.Tokens
	if tokens == nil {
		tokens = Tokenize(g.Text)
	}
	usage := fmt.Sprintf(`{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d}`,
		len(req.Prompt)/4, len(req.Prompt)/4+len(tokens), len(tokens))
	if g.Cached > 0 {
		usage = fmt.Sprintf(`{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}}`,
			len(req.Prompt)/4, len(req.Prompt)/4+len(tokens), len(tokens), g.Cached)
	}
	if !req.Stream {
		if !sleep(ctx, g.Delay) {
			cancelled()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		text, _ := json.Marshal(g.Text)
		fmt.Fprintf(w, `{"id":"cmpl-fake","object":"text_completion","created":1,"model":%q,"choices":[{"index":0,"text":%s,"logprobs":null,"finish_reason":%q,%q:%s,"prompt_logprobs":null}]`,
			req.Model, text, finish, stopField, stop)
		if !g.NoUsage {
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
	if g.Events != nil {
		for _, e := range g.Events {
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
		if g.ErrorEvent != "" && i == g.ErrorAfter {
			fmt.Fprintf(bw, "data: %s\n\n", g.ErrorEvent)
			bw.Flush()
			return
		}
		if g.CutAfter > 0 && i == g.CutAfter {
			// Drop the connection in the middle of the stream.
			panic(http.ErrAbortHandler)
		}
		if !sleep(ctx, g.Delay) || ctx.Err() != nil {
			cancelled()
			return
		}
		last := i == len(tokens)-1 && !g.SplitEnd && !g.NoFinish
		if last {
			event(tok, finish)
		} else {
			event(tok, "")
		}
	}
	if (len(tokens) == 0 || g.SplitEnd) && !g.NoFinish {
		event("", finish)
	}
	if !g.NoUsage {
		fmt.Fprintf(bw, "data: {\"id\":\"cmpl-fake\",\"object\":\"text_completion\",\"created\":1,\"model\":%q,\"choices\":[],\"usage\":%s}\n\n", req.Model, usage)
	}
	if !g.NoDone {
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

// Tokenize cuts text roughly as a tokenizer would: each marker is one
// token, other text goes in pieces of at most 5 bytes, cut at rune
// boundaries and after spaces.
func Tokenize(text string) []string {
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

// AnswerText is the text of a generation that reasons, then answers.
func AnswerText(reasoning, content string) string {
	return "<|channel|>analysis<|message|>" + reasoning + "<|end|>" +
		"<|start|>assistant<|channel|>final<|message|>" + content + "<|return|>"
}

// Answer is a generation that reasons, then answers.
func Answer(reasoning, content string) Gen {
	return Gen{Text: AnswerText(reasoning, content), StopReason: harmony.MarkerReturn}
}

// Call is one scripted tool call: a tool name and its parameters in order.
type Call struct {
	Name   string
	Params [][2]string
}

// CallsText is the text of a generation that reasons, then calls tools.
func CallsText(reasoning string, calls ...Call) string {
	var b strings.Builder
	b.WriteString("<|channel|>analysis<|message|>" + reasoning + "<|end|>")
	for i, c := range calls {
		b.WriteString("<|start|>assistant to=" + c.Name + "<|channel|>analysis <|constrain|>xml<|message|>")
		for j, p := range c.Params {
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

// CallGen is a generation that reasons, then calls tools.
func CallGen(reasoning string, cs ...Call) Gen {
	return Gen{Text: CallsText(reasoning, cs...), StopReason: harmony.MarkerCall}
}
