package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/grammar"
	"github.com/beamharmony/harmony/internal/metrics"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// The pipeline every generating endpoint shares: read and decode the body,
// render the prompt, send it to the engine's /v1/completions, parse what
// comes back, and hand the result (whole, or as parser events) to the
// endpoint's writer. Only decoding and the reply's wire shape differ
// between the Chat Completions, Messages and Responses APIs.

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
	decode func(s *Server, body []byte) (reply, *apiError)
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
}

// generate serves a POST to a generating endpoint.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, id string, ep *endpoint) {
	c := &exchange{s: s, ep: ep, id: id, start: time.Now(), clientCtx: r.Context(), status: http.StatusOK}
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
	c.inspectPrepared()
	if aerr := c.checkEngine(w); aerr != nil {
		c.httpError(w, aerr)
		return
	}
	c.reportUnhonoured(w)
	req := rep.request()
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
}

// completeRounds runs a non-streamed generation and, for a request with a
// hosted web search, the generations that follow its built-in calls
// (websearch.go).
func (c *exchange) completeRounds() (*harmony.Parsed, genEnd, *apiError) {
	for {
		p, end, aerr := c.complete()
		if aerr != nil || c.req.search == nil {
			return p, end, aerr
		}
		step, aerr := c.afterGeneration(&p.Message, &end, nil, nil)
		if aerr != nil {
			return nil, end, aerr
		}
		if step != searchAgain {
			c.totalUsage()
			return p, end, nil
		}
	}
}

// readBody reads the request body up to the server's limit (413 beyond)
// and within its body timeout (408 past it). When the body cannot be read
// to its end, the connection is closed after the reply, with the read
// deadline left in place: nothing waits on the rest of a body that may
// never come.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apiError) {
	limit := s.cfg.maxBodyBytes()
	if r.ContentLength > limit {
		w.Header().Set("Connection", "close")
		return nil, tooLarge(limit)
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.bodyTimeout()))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		w.Header().Set("Connection", "close")
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return nil, tooLarge(limit)
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, &apiError{status: http.StatusRequestTimeout, kind: kindBadRequest, code: "body_timeout",
				msg: "request body: not received within " + s.cfg.bodyTimeout().String() + " (--body-timeout)"}
		}
		return nil, bodyError("body_read", err.Error())
	}
	// Lift the deadline, so that it cannot end a long stream.
	_ = rc.SetReadDeadline(time.Time{})
	return body, nil
}

func tooLarge(limit int64) *apiError {
	return &apiError{status: http.StatusRequestEntityTooLarge, kind: kindTooLarge, code: "request_too_large",
		msg: "request body: larger than the server's limit of " + byteSize(limit) + " (--max-body-bytes)"}
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return itoa(n>>10) + " KiB"
	}
	return itoa(n) + " bytes"
}

func itoa(n int64) string { return string(appendInt(nil, n)) }

// renderError is the 400 for a request the renderer refuses; its message
// is the renderer's (the page's own text where the page words it).
func renderError(err error) *apiError {
	code := "template_error"
	switch {
	case errors.Is(err, harmony.ErrMissingReasoning):
		code = "missing_reasoning"
	case errors.Is(err, harmony.ErrInvalidEffort):
		code = "invalid_reasoning_effort"
	}
	param := ""
	var re *harmony.RenderError
	if errors.As(err, &re) {
		param = re.Path
	}
	msg := err.Error()
	switch code {
	case "invalid_reasoning_effort":
		param = "reasoning_effort"
	case "missing_reasoning":
		// The page's text says what to set, not where: here.
		msg += " On this server: chat_template_kwargs.allow_missing_thinking in the request, or --allow-missing-thinking for every request."
	}
	return badRequest(param, code, msg)
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

func (c *exchange) parseOptions() *harmony.ParseOptions {
	return &harmony.ParseOptions{Prefix: c.prompt, Tools: c.req.parseTools}
}

// checkFinish refuses an engine finish reason other than stop and length.
func checkFinish(finish string) *apiError {
	switch finish {
	case "stop", "length":
		return nil
	}
	return engineError("engine_finish", "engine stopped the generation with finish_reason "+quoteText(string(truncate([]byte(finish), 40))))
}

func quoteText(s string) string { return string(appendString(nil, s)) }

// modelOutputError is the 502 for a generation that is not Beam Harmony.
func modelOutputError(err error) *apiError {
	return &apiError{status: http.StatusBadGateway, kind: kindModelOutput, code: "invalid_model_output",
		msg: "the model's output is not valid Beam Harmony: " + err.Error()}
}

// complete runs a non-streamed generation: one engine completion, parsed
// whole.
func (c *exchange) complete() (*harmony.Parsed, genEnd, *apiError) {
	var end genEnd
	resp, aerr := c.s.send(c, c.completionRequest())
	if aerr != nil {
		return nil, end, aerr
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxEngineBody+1))
	if err != nil {
		return nil, end, c.transportError(err, "engine_read", "reading the engine's reply")
	}
	if len(data) > maxEngineBody {
		return nil, end, engineError("engine_bad_reply", "engine reply larger than 64 MiB")
	}
	var comp completion
	if err := decodeCompletion(new(pyjson.Doc), data, &comp); err != nil {
		return nil, end, engineError("engine_bad_reply", "the engine answered something that is not a completion").
			withDetail(err.Error() + ": " + string(truncate(data, 200)))
	}
	if f := comp.engineFailure(); f != nil {
		return nil, end, f
	}
	ch := comp.choice()
	switch {
	case len(comp.Choices) == 0:
		return nil, end, engineError("engine_bad_reply", "engine answered a completion without choices")
	case ch == nil:
		return nil, end, engineError("engine_bad_reply", "engine answered a completion without a choice of index 0")
	}
	c.noteUsage(&comp)
	c.inspectGenerated(ch.Text)
	end.finish = ch.FinishReason
	if end.finish == "" {
		end.finish = "stop"
	}
	if f := checkFinish(end.finish); f != nil {
		return nil, end, f
	}
	hold := stopHold{stops: c.req.stop}
	text := hold.push(ch.Text) + hold.finish(end.finish, ch.StopReason)
	end.stop = hold.matched
	text += missingEnd(text, end.finish, ch.StopReason)
	parsed, perr := harmony.Parse(text, c.parseOptions())
	if parsed == nil && perr == nil {
		perr = errors.New("the parser returned nothing")
	}
	if perr != nil {
		if end.finish != "length" || parsed == nil {
			return nil, end, modelOutputError(perr)
		}
		// Cut off by max_tokens: what was parsed goes out, an unfinished
		// call left out (DECISIONS.md, Serving).
		c.warnings = append(c.warnings, "cut by length: "+perr.Error())
	}
	c.noteParsed(parsed)
	if lim := c.req.maxCalls; lim > 0 && len(parsed.Message.ToolCalls) > lim {
		c.warnings = append(c.warnings, "kept the first of "+itoa(int64(len(parsed.Message.ToolCalls)))+
			" tool calls (parallel tool calls are off)")
		parsed.Message.ToolCalls = parsed.Message.ToolCalls[:lim]
		end.finish, end.stop = "stop", ""
	}
	end.calls = len(parsed.Message.ToolCalls)
	return parsed, end, nil
}

// noteUsage keeps the engine's usage, when comp has one; one the decoder
// dropped is a warning in the log, and the client gets no usage.
func (c *exchange) noteUsage(comp *completion) {
	switch {
	case comp.Usage != nil:
		c.usage = comp.Usage
	case comp.BadUsage != "":
		c.usage = nil
		c.warnings = append(c.warnings, "dropped the engine's usage: "+comp.BadUsage)
	}
}

// noteParsed keeps the parser's warnings and any text after the end
// marker for the log.
func (c *exchange) noteParsed(p *harmony.Parsed) {
	c.inspectParsed(p)
	if p == nil {
		return
	}
	for _, w := range p.Warnings {
		c.warnings = append(c.warnings, w.String())
	}
	if p.Rest != "" {
		c.warnings = append(c.warnings, "text after "+p.End+" was not parsed: "+string(truncate([]byte(p.Rest), 80)))
	}
}

// stream runs a streamed generation: engine events are parsed as they
// arrive and the parser's events handed to out.
func (c *exchange) stream(w http.ResponseWriter, out streamSink) {
	var held *heldCalls
	if c.req.search != nil {
		held = &heldCalls{streamSink: out}
		out = held
	}
	g := &streamGen{c: c, w: w, out: out, events: make([]harmony.Event, 0, 16),
		ttft: c.s.metrics.ttft.With(c.ep.path), itl: c.s.metrics.itl.With(c.ep.path).Batch()}
	if ka, ok := out.(keepAliver); ok {
		if iv := c.s.cfg.keepAlive(); iv > 0 {
			stop := g.keepAlive(iv, ka)
			defer stop()
		}
	}
	for g.round() && held != nil {
		step, aerr := held.after(g)
		if aerr != nil {
			g.fail(aerr)
			break
		}
		if step != searchAgain {
			c.totalUsage()
			g.finishReply(held.final)
			break
		}
	}
	if held == nil && g.parsed != nil {
		g.finishReply(g.end)
	}
	g.mu.Lock()
	g.itl.Flush()
	g.mu.Unlock()
}

// round runs one engine generation of a stream, and reports whether it
// finished (g.parsed and g.end say how); a failure has been written.
func (g *streamGen) round() bool {
	c := g.c
	g.parsed = nil
	resp, aerr := c.s.send(c, c.completionRequest())
	if aerr != nil {
		g.fail(aerr)
		return false
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		g.fail(engineError("engine_bad_reply", "engine answered a streamed request with Content-Type "+
			quoteText(ct)+", not text/event-stream"))
		return false
	}
	g.parser = harmony.NewStreamParser(c.parseOptions())
	g.hold = stopHold{stops: c.req.stop}
	g.tail = textTail{}
	g.calls, g.cut = 0, false
	if g.sent {
		// A later round: the time the search took is no token's.
		g.lastToken, g.lastRead = time.Since(c.start), ^uint64(0)
	}
	g.run(resp.Body)
	return g.parsed != nil
}

// finishReply writes the close of the stream's reply.
func (g *streamGen) finishReply(end genEnd) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.start()
	g.out.end(end)
	g.over = true
	_ = g.flushLocked()
}

// streamGen is the state of one streamed generation.
type streamGen struct {
	// lastToken is when the engine last sent text, counted from the
	// exchange's start on the monotonic clock, and sent whether it has
	// sent any: the time-to-first-token and inter-token metrics.
	// lastRead is the engine stream's read count at that time: a token
	// taken from bytes read together with the previous one arrived with
	// it, 0 after it, and costs no clock reading.
	lastToken time.Duration
	lastRead  uint64
	sent      bool
	ttft      *metrics.Histogram
	// itl collects the inter-token intervals, added to the histogram
	// with each write (and at the end).
	itl *metrics.Batch

	c      *exchange
	w      http.ResponseWriter
	out    streamSink
	parser *harmony.StreamParser
	events []harmony.Event
	hold   stopHold
	// tail keeps the last bytes given to the parser, enough to tell
	// whether the text ended with an end marker.
	tail  textTail
	calls int
	// cut is set when the call limit ended the generation early.
	cut bool
	// parsed and end are the finished generation's message and how it
	// ended; parsed is nil while it runs and after a failure.
	parsed *harmony.Parsed
	end    genEnd

	// mu serialises writes to out between the stream and the keep-alive
	// timer; wrote is set whenever out sends something, and the timer
	// clears it (no clock reading or timer reset per token).
	mu    sync.Mutex
	wrote bool
	// over is set once the reply is finished or failed.
	over bool
}

// tailLen is how many of the last bytes of a text textTail keeps: more
// than the longest end marker.
const tailLen = 16

// textTail keeps the last tailLen bytes of a text given in pieces. It
// copies them to the start of its buffer only when the buffer is full,
// not at every piece.
type textTail struct {
	buf [16 * tailLen]byte
	n   int
}

// add appends s to the text.
func (t *textTail) add(s string) {
	if len(s) >= tailLen {
		t.n = copy(t.buf[:], s[len(s)-tailLen:])
		return
	}
	if t.n+len(s) > len(t.buf) {
		t.n = copy(t.buf[:], t.buf[t.n-tailLen:t.n])
	}
	t.n += copy(t.buf[t.n:], s)
}

// last returns the text's last tailLen bytes, or all of it when shorter.
func (t *textTail) last() string {
	return string(t.buf[max(0, t.n-tailLen):t.n])
}

// token notes an engine event with generated text in the latency
// metrics; reads is the engine stream's read count once the event is read.
// The event arrived when the last of those reads returned: if that was
// the previous token's read, both came in the same bytes and the
// interval is 0.
func (g *streamGen) token(reads uint64) {
	if g.sent && reads == g.lastRead {
		g.itl.Observe(0)
		return
	}
	now := time.Since(g.c.start)
	if !g.sent {
		g.sent = true
		g.ttft.Observe(now.Seconds())
	} else {
		g.itl.Observe((now - g.lastToken).Seconds())
	}
	g.lastToken, g.lastRead = now, reads
}

// feed gives text to the parser and the events it makes certain to out.
func (g *streamGen) feed(text string) *apiError {
	if text == "" || g.cut {
		return nil
	}
	g.tail.add(text)
	var err error
	g.events, err = g.parser.Feed(text, g.events[:0])
	g.emit()
	if err != nil && !g.cut {
		return modelOutputError(err)
	}
	return nil
}

// emit hands the pending events to out, stopping at a call past the
// request's limit.
func (g *streamGen) emit() {
	events := g.events
	for i := range events {
		e := &events[i]
		if e.Type != harmony.EventRegionOpen || e.Field != harmony.FieldToolCalls {
			continue
		}
		if lim := g.c.req.maxCalls; lim > 0 && g.calls >= lim {
			events = events[:i]
			g.cut = true
			g.c.warnings = append(g.c.warnings, "stopped the generation at a second tool call (parallel tool calls are off)")
			break
		}
		g.calls++
	}
	g.out.emit(events)
}

// maxBatch bounds how many engine events a stream writes together when
// the engine is ahead of it (and so the size of the write).
const maxBatch = 16

// run reads the engine's stream to its end and writes the reply.
func (g *streamGen) run(body io.Reader) {
	c := g.c
	sse := newSSEReader(body)
	finish := ""
	var stopReason json.RawMessage
	var dec eventDecoder
	var comp completion
	batched := 0
	for !g.cut {
		data, err := sse.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			g.fail(c.transportError(err, "engine_stream", "reading the engine's stream"))
			return
		}
		if string(data) == "[DONE]" {
			break
		}
		if err := dec.decode(data, &comp); err != nil {
			g.fail(engineError("engine_bad_reply", "the engine sent an event that is not a completion chunk").
				withDetail(err.Error() + ": " + string(truncate(data, 200))))
			return
		}
		if f := comp.engineFailure(); f != nil {
			g.fail(f)
			return
		}
		c.noteUsage(&comp)
		// One lock an event: the keep-alive timer waits for the write.
		g.mu.Lock()
		if ch := comp.choice(); ch != nil {
			g.start()
			if ch.Text != "" {
				g.token(sse.reads())
				c.inspectGenerated(ch.Text)
			}
			if aerr := g.feed(g.hold.push(ch.Text)); aerr != nil {
				g.failLocked(aerr)
				g.mu.Unlock()
				return
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
				stopReason = append(stopReason[:0], ch.StopReason...)
			}
		}
		// While the engine is ahead, the events it has sent go out
		// together, up to maxBatch of them.
		if batched++; batched >= maxBatch || !sse.ready() {
			err, batched = g.flushLocked(), 0
			g.itl.Flush()
		}
		g.mu.Unlock()
		if err != nil {
			return
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	end := genEnd{finish: finish, calls: g.calls}
	if g.cut {
		end.finish = "stop"
	} else {
		if finish == "" {
			g.failLocked(engineError("engine_cut", "the engine's stream ended before the generation finished"))
			return
		}
		if aerr := checkFinish(finish); aerr != nil {
			g.failLocked(aerr)
			return
		}
		if aerr := g.feed(g.hold.finish(finish, stopReason)); aerr != nil {
			g.failLocked(aerr)
			return
		}
		end.stop = g.hold.matched
		if aerr := g.feed(missingEnd(g.tail.last(), finish, stopReason)); aerr != nil {
			g.failLocked(aerr)
			return
		}
		events, parsed, err := g.parser.Finish(g.events[:0])
		g.events = events
		g.emit()
		if err != nil && !g.cut {
			if finish != "length" {
				g.failLocked(modelOutputError(err))
				return
			}
			c.warnings = append(c.warnings, "cut by length: "+err.Error())
		}
		c.noteParsed(parsed)
		end.calls = g.calls
		if g.cut {
			end.finish, end.stop = "stop", ""
		}
		g.parsed = parsed
	}
	if g.parsed == nil {
		// Cut at the call limit: the events written are the message.
		g.parsed = &harmony.Parsed{}
	}
	g.end = end
}

// start begins the reply and notes the time to its first byte.
func (g *streamGen) start() {
	if g.out.started() {
		return
	}
	g.out.start()
	g.c.firstByte = time.Since(g.c.start)
}

// flushLocked sends what out holds; on a write error the client is gone.
func (g *streamGen) flushLocked() error {
	err := g.out.flush()
	if err != nil {
		g.over = true
		g.c.record(&apiError{status: statusClientClosed, kind: kindClientClosed, msg: "client closed the stream"})
		return err
	}
	g.wrote = true
	return nil
}

// fail ends the stream with e: an HTTP error before the reply has
// started, else the API's error event.
func (g *streamGen) fail(e *apiError) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.failLocked(e)
}

func (g *streamGen) failLocked(e *apiError) {
	g.over = true
	if !g.out.started() {
		g.c.httpError(g.w, e)
		return
	}
	g.c.record(e)
	if e.kind == kindClientClosed {
		return
	}
	g.out.fail(e)
	_ = g.out.flush()
}

// keepAlive starts a timer that writes ka's keep-alive whenever the
// stream has been silent for iv, starting the reply if need be; the
// returned func stops it. The timer ticks every iv/2 and writes after
// two ticks without a write, so the stream is silent at least iv and
// less than 1.5 iv before a keep-alive, as when each write noted its
// time, but the stream's writes only set a flag.
func (g *streamGen) keepAlive(iv time.Duration, ka keepAliver) (stop func()) {
	g.wrote = false
	quiet := 0
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(iv / 2)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-g.c.ctx.Done():
				return
			case <-t.C:
				g.mu.Lock()
				if g.wrote {
					g.wrote, quiet = false, 0
				} else if quiet++; quiet >= 2 && !g.over {
					g.start()
					ka.keepAlive()
					_ = g.flushLocked()
					// The keep-alive is not the stream's: the next one
					// follows iv after it.
					g.wrote, quiet = false, 0
				}
				g.mu.Unlock()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

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
	if len(c.warnings) > 0 {
		attrs = append(attrs, slog.Any("warnings", c.warnings))
	}
	c.s.log.LogAttrs(context.Background(), level, c.ep.name, attrs...)
}

// prepare decodes the body with the endpoint's decoder and renders the
// prompt, in one of the server's prepare slots: the work whose memory
// grows with the body (decoding, rendering, tokenizing) runs for at most
// Config.PrepareConcurrency requests at once.
func (c *exchange) prepare(body []byte) (reply, *apiError) {
	release, aerr := c.s.acquirePrepare(c.clientCtx)
	if aerr != nil {
		return nil, aerr
	}
	defer release()
	c.inspectQueued()
	rep, aerr := c.ep.decode(c.s, body)
	if aerr != nil {
		if aerr.code == lateInstructionsCode {
			c.s.metrics.lateInstructions.With(c.ep.path, "refused").Inc()
		}
		return nil, aerr
	}
	c.req = rep.request()
	c.noteLateInstructions()
	c.model = c.s.cfg.Model
	if c.model == "" {
		c.model = c.req.model
	}
	if aerr := c.render(); aerr != nil {
		if pm, ok := rep.(pathMapper); ok {
			aerr = pm.mapPath(aerr)
		}
		return nil, aerr
	}
	if aerr := c.compileGrammar(); aerr != nil {
		return nil, aerr
	}
	return rep, nil
}

// acquirePrepare waits for a prepare slot, for as long as the client stays
// and the server's timeout allows, and returns the func that gives it
// back.
func (s *Server) acquirePrepare(ctx context.Context) (release func(), aerr *apiError) {
	release = func() { <-s.prepare }
	select {
	case s.prepare <- struct{}{}:
		return release, nil
	default:
	}
	s.metrics.prepareWaiting.Inc()
	defer s.metrics.prepareWaiting.Dec()
	t := time.NewTimer(s.cfg.timeout())
	defer t.Stop()
	select {
	case s.prepare <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		if errors.Is(context.Cause(ctx), errShutdown) {
			return nil, shutdownError()
		}
		return nil, &apiError{status: statusClientClosed, kind: kindClientClosed, code: "client_closed", msg: "client closed the request"}
	case <-t.C:
		return nil, &apiError{status: http.StatusServiceUnavailable, kind: kindBusy, code: "server_busy",
			msg: "the server had no free slot to prepare the request within " + s.cfg.timeout().String() + " (--timeout); retry it"}
	}
}

// render renders the call's request: as text, or with the server's
// tokenizer as token ids too, checked against the model's context length,
// which then also sets or bounds the tokens to generate.
func (c *exchange) render() *apiError {
	tk := c.s.cfg.Tokenizer
	if tk == nil {
		prompt, err := harmony.Render(c.req.messages, &c.req.opts)
		if err != nil {
			return renderError(err)
		}
		c.prompt = prompt
		return c.fitMaxTokens(-1)
	}
	toks, aerr := c.renderTokens(c.req)
	if aerr != nil {
		return aerr
	}
	c.prompt, c.promptIDs = toks.Text, toks.InputIDs
	return c.fitMaxTokens(len(toks.InputIDs))
}

// fitMaxTokens checks the prompt of n tokens (-1: not counted) against the
// model's context length, when the server knows it (--max-model-len, or
// read from the engine), and the tokens to generate against what the
// context leaves: a client's max tokens above it is a 400 that states both
// numbers; without one, the engine is asked for all that is left
// (DECISIONS.md, Serving). Without a token count, only a client's value
// above the whole context is refused, and the server's default is capped at
// it. Without a context length, a client's value above MaxTokensCeiling is
// lowered to it and reported (gap decision 142).
func (c *exchange) fitMaxTokens(n int) *apiError {
	r := c.req
	max, source := c.s.modelLen.get()
	if max <= 0 {
		if r.maxTokensParam != "" && r.maxTokens > MaxTokensCeiling {
			r.report(r.maxTokensParam, unhonouredField, itoa(r.maxTokens)+" lowered to "+itoa(MaxTokensCeiling)+
				", the most the gateway asks for while the model's context length is not known (--max-model-len)")
			r.maxTokens = MaxTokensCeiling
		}
		return nil
	}
	whose := "the model's context length of " + itoa(max) + " tokens (--max-model-len)"
	if source != "--max-model-len" {
		whose = "the model's context length of " + itoa(max) + " tokens (as the engine reports it)"
	}
	if n < 0 {
		switch {
		case r.maxTokensParam == "":
			r.maxTokens = min(r.maxTokens, max)
		case r.maxTokens > max:
			return paramError(r.maxTokensParam, "context_length_exceeded", itoa(r.maxTokens)+" is more than "+whose)
		}
		return nil
	}
	if int64(n) >= max {
		return badRequest("messages", "context_length_exceeded", "the prompt is "+strconv.Itoa(n)+" tokens, which leaves no room to generate in "+
			whose+"; shorten the conversation")
	}
	room := max - int64(n)
	switch {
	case r.maxTokensParam == "":
		r.maxTokens = room
	case r.maxTokens > room:
		return paramError(r.maxTokensParam, "context_length_exceeded", itoa(r.maxTokens)+
			" is more than the "+itoa(room)+" tokens "+whose+" leaves after the "+
			strconv.Itoa(n)+"-token prompt; ask for at most "+itoa(room))
	}
	return nil
}

// cappedEncoder is the server's tokenizer with a budget of bytes: once the
// text asked for would pass it, nothing more is encoded and over is set,
// so that no request has more than Config.MaxPromptBytes tokenized.
type cappedEncoder struct {
	enc  harmony.TokenEncoder
	left int64
	over bool
}

func (e *cappedEncoder) TokenToID(token string) (int, bool) { return e.enc.TokenToID(token) }

func (e *cappedEncoder) AppendEncodeOrdinary(dst []int, text string) []int {
	if !e.take(text) {
		return dst
	}
	return e.enc.AppendEncodeOrdinary(dst, text)
}

// AppendEncodeOrdinaryContext keeps the bound of a tokenizer that has one
// (a harmony.ContextTokenEncoder).
func (e *cappedEncoder) AppendEncodeOrdinaryContext(ctx context.Context, dst []int, text string) ([]int, error) {
	if !e.take(text) {
		return dst, nil
	}
	if ce, ok := e.enc.(harmony.ContextTokenEncoder); ok {
		return ce.AppendEncodeOrdinaryContext(ctx, dst, text)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return e.enc.AppendEncodeOrdinary(dst, text), nil
}

// take reports whether text fits in the budget, and takes it from it.
func (e *cappedEncoder) take(text string) bool {
	if e.over || int64(len(text)) > e.left {
		e.over = true
		return false
	}
	e.left -= int64(len(text))
	return true
}

// promptTooLarge is the 413 of a prompt longer than the server tokenizes.
func promptTooLarge(n int, limit int64) *apiError {
	return &apiError{status: http.StatusRequestEntityTooLarge, kind: kindTooLarge, code: "prompt_too_large",
		msg: "the rendered prompt (" + byteSize(int64(n)) + ") holds more text than the " + byteSize(limit) +
			" this server tokenizes (--max-prompt-bytes); shorten the conversation"}
}

// enginePrompt is the prompt as the engine receives it: token ids when the
// server has a tokenizer, otherwise the text.
func (c *exchange) enginePrompt() any {
	if c.promptIDs != nil {
		return c.promptIDs
	}
	return c.prompt
}
