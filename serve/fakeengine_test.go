package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamharmony/harmony/internal/enginetest"
)

// The gateway's tests script the engine with internal/enginetest (shared
// with the conformance module's SDK tests); this file keeps the short
// names the tests in this package use.

// gen is one scripted generation of the fake engine (enginetest.Gen).
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

func (g gen) engine() enginetest.Gen {
	return enginetest.Gen{
		Text: g.text, Tokens: g.tokens, Finish: g.finish, StopReason: g.stopReason, SGLang: g.sglang,
		Delay: g.delay, CutAfter: g.cutAfter, Status: g.status, Body: g.body, Hang: g.hang,
		NoUsage: g.noUsage, Cached: g.cached, NoDone: g.noDone, NoFinish: g.noFinish,
		ErrorEvent: g.errorEvent, ErrorAfter: g.errorAfter, SplitEnd: g.splitEnd, Events: g.events,
	}
}

// engineReq is a request the fake engine received (enginetest.Request).
type engineReq struct {
	raw       map[string]json.RawMessage
	Model     string
	Prompt    string // the prompt's text, when it came as text
	PromptIDs []int  // the prompt's token ids, when it came as ids
	MaxTokens int64
	Stop      []string
	Stream    bool
	header    http.Header
}

func engineRequest(r *enginetest.Request) *engineReq {
	return &engineReq{raw: r.Raw, Model: r.Model, Prompt: r.Prompt, PromptIDs: r.PromptIDs,
		MaxTokens: r.MaxTokens, Stop: r.Stop, Stream: r.Stream, header: r.Header}
}

// fakeEngine is an enginetest.Engine whose script a test may replace
// between requests.
type fakeEngine struct {
	e      *enginetest.Engine
	srv    *httptest.Server
	script func(r *engineReq) gen

	cancelled   *atomic.Int64
	cancelledCh chan struct{}
	health      *atomic.Int32
	kind        *atomic.Int32 // an EngineKind: enginetest's kinds are numbered as they are
	probes      *atomic.Int64
	loading     *atomic.Bool
}

// newFakeEngineOf is newFakeEngine answering kind's detection endpoint.
func newFakeEngineOf(t testing.TB, kind EngineKind, script func(r *engineReq) gen) *fakeEngine {
	fe := newFakeEngine(t, script)
	fe.kind.Store(int32(kind))
	return fe
}

func newFakeEngine(t testing.TB, script func(r *engineReq) gen) *fakeEngine {
	fe := &fakeEngine{script: script}
	fe.e = enginetest.New(t, func(r *enginetest.Request) enginetest.Gen { return fe.script(engineRequest(r)).engine() })
	fe.srv, fe.cancelled, fe.cancelledCh = fe.e.Server, &fe.e.Cancelled, fe.e.CancelledCh
	fe.health, fe.kind, fe.probes, fe.loading = &fe.e.Health, &fe.e.Kind, &fe.e.Probes, &fe.e.Loading
	return fe
}

// The kinds of enginetest are numbered as EngineKind is, so that a test
// sets either with the other's value.
func TestEngineTestKinds(t *testing.T) {
	for _, k := range []struct {
		serve EngineKind
		fake  enginetest.Kind
	}{{EngineAuto, enginetest.None}, {EngineLlamaCpp, enginetest.LlamaCpp}, {EngineVLLM, enginetest.VLLM}, {EngineSGLang, enginetest.SGLang}} {
		if int(k.serve) != int(k.fake) {
			t.Errorf("EngineKind %v is %d, enginetest's %d", k.serve, k.serve, k.fake)
		}
	}
}

// ServeHTTP answers as the engine does (enginetest.Engine.ServeHTTP), for
// a test that puts its own answers in front of it.
func (fe *fakeEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) { fe.e.ServeHTTP(w, r) }

// fixed is a script that always answers g.
func fixed(g gen) func(*engineReq) gen { return func(*engineReq) gen { return g } }

func (fe *fakeEngine) requests() []*engineReq {
	var out []*engineReq
	for _, r := range fe.e.Requests() {
		out = append(out, engineRequest(r))
	}
	return out
}

func (fe *fakeEngine) lastRequest(t testing.TB) *engineReq {
	t.Helper()
	return engineRequest(fe.e.LastRequest(t))
}

// tokenize cuts text as the fake engine streams it (enginetest.Tokenize).
func tokenize(text string) []string { return enginetest.Tokenize(text) }

// Scripted generations in Beam Harmony, as the engine returns them with
// the marker-keeping flags (markers and the stop string in the text).

func answerText(reasoning, content string) string { return enginetest.AnswerText(reasoning, content) }

// answer is a generation that reasons, then answers.
func answer(reasoning, content string) gen {
	return genOf(enginetest.Answer(reasoning, content))
}

// scriptCall is one scripted tool call: a tool name and its parameters in
// order.
type scriptCall struct {
	name   string
	params [][2]string
}

func engineCalls(calls []scriptCall) []enginetest.Call {
	out := make([]enginetest.Call, len(calls))
	for i, c := range calls {
		out[i] = enginetest.Call{Name: c.name, Params: c.params}
	}
	return out
}

func callsText(reasoning string, calls ...scriptCall) string {
	return enginetest.CallsText(reasoning, engineCalls(calls)...)
}

// callGen is a generation that reasons, then calls tools.
func callGen(reasoning string, cs ...scriptCall) gen {
	return genOf(enginetest.CallGen(reasoning, engineCalls(cs)...))
}

// genOf is the text and stop reason of an enginetest.Gen.
func genOf(g enginetest.Gen) gen { return gen{text: g.Text, stopReason: g.StopReason} }

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
