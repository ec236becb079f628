package serve

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/grammar"
)

// The pipeline every generating endpoint shares: read and decode the body,
// render the prompt, send it to the engine's /v1/completions, parse what
// comes back, and hand the result (whole, or as parser events) to the
// endpoint's writer. Only decoding and the reply's wire shape differ
// between the Chat Completions, Messages and Responses APIs: each API's
// request in chat.go, messages.go and responses.go, its replies in the
// _reply.go file beside it. This file holds the exchange and its log;
// prepare.go reads, decodes and renders, complete.go and stream.go run
// the generation whole or streamed.

// endpoint is one generating API.
type endpoint struct {
	// name labels the endpoint in logs.
	name string
	// path labels the endpoint in metrics.
	path string
	// idPrefix starts the ids of its replies.
	idPrefix string
	// decode reads a request body into the generation request and the
	// reply writer for it.
	decode func(s *Server, body []byte, owner string) (reply, *apiError)
	// writeError writes an HTTP error in the API's shape.
	writeError func(w http.ResponseWriter, e *apiError)
}

// reply writes one request's answer in its API's shape.
type reply interface {
	// request is the generation to run.
	request() *request
	// complete writes a non-streamed reply for the parsed generation.
	complete(w http.ResponseWriter, c *exchange, p *harmony.Parsed, end genEnd)
	// stream returns the writer of a streamed reply.
	stream(w http.ResponseWriter, c *exchange) streamSink
}

// pathMapper is a reply whose rendered messages are not the request's
// own: it rewrites a render error's path to the request field.
type pathMapper interface {
	mapPath(e *apiError) *apiError
}

// genEnd is how a generation ended.
type genEnd struct {
	// finish is the engine's finish reason: stop or length.
	finish string
	// stop is the client's stop string that ended the generation, or "".
	stop string
	// calls counts the tool calls the reply carries.
	calls int
}

// streamSink writes a streamed reply. Its methods are called from one
// goroutine at a time (the keep-alive timer takes the call's lock).
type streamSink interface {
	// start sends the headers and the reply's opening events; it is
	// called at the engine's first event and again before every write,
	// and does nothing once started.
	start()
	// started reports whether the reply has begun.
	started() bool
	// emit writes what a batch of parser events adds.
	emit(events []harmony.Event)
	// end writes the close of a finished generation.
	end(e genEnd)
	// fail writes a failure after the reply has begun.
	fail(e *apiError)
	// flush sends what is buffered and returns the first write error.
	flush() error
}

// keepAliver is a streamSink with a keep-alive: something the client
// ignores, written while the engine is silent so that clients and proxies
// keep the stream open. A silent engine (a long prompt, a full queue)
// starts such a reply before its first token.
type keepAliver interface {
	keepAlive()
}

// exchange is one request the gateway serves, in progress (named so as not
// to be confused with a tool call): the decoded request, the
// contexts it runs under, and what its log record reports.
type exchange struct {
	s     *Server
	ep    *endpoint
	id    string // request id, for logs and the engine
	start time.Time

	// clientCtx ends when the client goes away; ctx also ends at the
	// server's timeout. The engine request runs under ctx.
	clientCtx context.Context
	ctx       context.Context

	req    *request
	prompt string
	// promptIDs is the prompt as token ids, when the server has a
	// tokenizer; the engine then receives these instead of the text.
	promptIDs []int
	model     string // the engine's model name
	chatID    string
	created   int64

	// What the log record and the metrics report.
	status    int
	kind      errorKind
	errMsg    string
	errDetail string // what the client is not told (the engine's words)
	errCode   string
	finish    string
	usage     *usage
	firstByte time.Duration
	warnings  []string

	// grammar constrains the generation (nil: free), sent in engine's
	// dialect; unenforced lists the schema keywords it left out.
	grammar    *grammar.Grammar
	engine     EngineKind
	unenforced []string
	// forXGrammar: grammar was compiled for xgrammar (grammar.Spec.XGrammar).
	forXGrammar bool

	// replica is the engine replica that got the request (index in
	// Server.engines), route how the router chose it ("" before).
	replica int
	route   string
	convKey uint64 // the conversation's routing key

	// lateInstructions counts the system and developer messages placed
	// after a message of another role (agents.go).
	lateInstructions int

	// insp is the request inspector's record (inspect.go); nil when off.
	insp *inspectRec

	// owner is whose remembered turns the request may recall, and
	// callIDs the ids of the calls its reply handed out (recall.go).
	owner   string
	callIDs []string
}

// generate serves a POST to a generating endpoint.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, id string, ep *endpoint, fam apiFamily) {
	c := &exchange{s: s, ep: ep, id: id, start: time.Now(), clientCtx: r.Context(), status: http.StatusOK,
		owner: s.requestOwner(r, fam)}
	c.created = c.start.Unix()
	c.chatID = newID(ep.idPrefix)
	defer c.finishLog()
	c.inspectStart(r)
	defer c.inspectFinish()
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		c.httpError(w, aerr)
		return
	}
	c.inspectBody(body)
	rep, aerr := c.prepare(body)
	if aerr != nil {
		c.httpError(w, aerr)
		return
	}
	c.req.reportQuery(r.URL.Query(), fam)
	c.inspectPrepared()
	if aerr := c.checkEngine(w); aerr != nil {
		c.httpError(w, aerr)
		return
	}
	c.reportUnhonoured(w)
	req := rep.request()
	if len(req.restored) > 0 {
		w.Header().Set(RestoredHeader, headerList(req.restored))
		s.metrics.restored.With(ep.path).Add(float64(len(req.restored)))
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.timeout())
	defer cancel()
	c.ctx = ctx
	if req.stream {
		s.metrics.streamsOpen.Inc()
		defer s.metrics.streamsOpen.Dec()
		c.stream(w, rep.stream(w, c))
		return
	}
	p, end, aerr := c.completeRounds()
	if aerr != nil {
		c.httpError(w, aerr)
		return
	}
	rep.complete(w, c, p, end)
	c.rememberTurn(&p.Message)
}

// httpError records e and sends it as the HTTP reply in the endpoint's
// error shape, unless the client is gone.
func (c *exchange) httpError(w http.ResponseWriter, e *apiError) {
	c.record(e)
	if e.kind == kindClientClosed {
		return
	}
	if c.ep != nil && c.ep.writeError != nil {
		c.ep.writeError(w, e)
		return
	}
	writeError(w, e)
}

func (c *exchange) record(e *apiError) {
	c.status, c.kind, c.errMsg, c.errDetail, c.errCode = e.status, e.kind, e.msg, e.detail, e.code
}

// transportError classifies a failure to talk to the engine: the client
// went away, the server's timeout passed, or the engine failed (code and
// what word that).
func (c *exchange) transportError(err error, code, what string) *apiError {
	switch {
	case errors.Is(context.Cause(c.clientCtx), errShutdown):
		return shutdownError()
	case c.clientCtx.Err() != nil:
		return &apiError{status: statusClientClosed, kind: kindClientClosed, code: "client_closed", msg: "client closed the request"}
	case errors.Is(c.ctx.Err(), context.DeadlineExceeded):
		return timeoutError(c.s.cfg.timeout().String())
	}
	return engineError(code, what).withDetail(redactError(err))
}

func quoteText(s string) string { return string(appendString(nil, s)) }

// finishLog writes the request's log record and metrics.
func (c *exchange) finishLog() {
	d := time.Since(c.start)
	stream := c.req != nil && c.req.stream
	c.s.metrics.observe(c.ep.path, stream, c.status, c.kind, c.errCode, d, c.usage)
	attrs := make([]slog.Attr, 0, 14)
	attrs = append(attrs,
		slog.String("request_id", c.id),
		slog.String("endpoint", c.ep.name),
		slog.Int("status", c.status),
		slog.Bool("stream", stream),
		slog.String("model", c.model),
		slog.Float64("duration", d.Seconds()),
	)
	if c.firstByte > 0 {
		attrs = append(attrs, slog.Float64("first_byte", c.firstByte.Seconds()))
	}
	if c.finish != "" {
		attrs = append(attrs, slog.String("finish_reason", c.finish))
	}
	if c.usage != nil {
		attrs = append(attrs, slog.Int64("prompt_tokens", c.usage.PromptTokens),
			slog.Int64("completion_tokens", c.usage.CompletionTokens))
	}
	level := slog.LevelInfo
	if c.kind != kindNone {
		attrs = append(attrs, slog.String("error_kind", c.kind.String()), slog.String("error", c.errMsg))
		if c.errDetail != "" {
			attrs = append(attrs, slog.String("error_detail", c.errDetail))
		}
		level = errorLevel(c.status, c.kind)
	}
	if c.grammar != nil {
		attrs = append(attrs, slog.String("grammar", c.engine.String()))
	}
	if c.route != "" {
		c.s.metrics.replicaUsage(c.replica, c.usage)
		if len(c.s.engines) > 1 {
			attrs = append(attrs, slog.String("replica", c.s.metrics.replicas.names[c.replica]), slog.String("route", c.route))
		}
	}
	if c.usage != nil && c.usage.CachedTokens > 0 {
		attrs = append(attrs, slog.Int64("cached_tokens", c.usage.CachedTokens))
	}
	if len(c.unenforced) > 0 {
		attrs = append(attrs, slog.Any("unenforced", c.unenforced))
	}
	if u := c.unhonouredLog(); len(u) > 0 {
		attrs = append(attrs, slog.Any("not_honoured", u))
	}
	if c.lateInstructions > 0 {
		attrs = append(attrs, slog.Int("late_instructions", c.lateInstructions))
	}
	if c.req != nil && len(c.req.restored) > 0 {
		attrs = append(attrs, slog.Any("reasoning_restored", c.req.restored))
	}
	if len(c.warnings) > 0 {
		attrs = append(attrs, slog.Any("warnings", c.warnings))
	}
	c.s.log.LogAttrs(context.Background(), level, c.ep.name, attrs...)
}
