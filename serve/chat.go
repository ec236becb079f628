package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// call is one chat completion request in progress: the decoded request,
// the contexts it runs under, and what its log record reports.
type call struct {
	s     *Server
	id    string // request id, for logs and the engine
	start time.Time

	// clientCtx ends when the client goes away; ctx also ends at the
	// server's timeout. The engine request runs under ctx.
	clientCtx context.Context
	ctx       context.Context

	req     *request
	prompt  string
	model   string // the engine's model name
	chatID  string
	created int64

	// What the log record and the metrics report.
	status    int
	kind      errorKind
	errMsg    string
	finish    string
	usage     *usage
	firstByte time.Duration
	warnings  []string
}

// chat serves POST /v1/chat/completions.
func (s *Server) chat(w http.ResponseWriter, r *http.Request, id string) {
	c := &call{s: s, id: id, start: time.Now(), clientCtx: r.Context(), status: http.StatusOK}
	c.created = c.start.Unix()
	c.chatID = newID("chatcmpl-")
	defer c.finishLog()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		c.httpError(w, &apiError{status: http.StatusMethodNotAllowed, kind: kindNotFound, code: "method_not_allowed",
			msg: r.Method + " " + r.URL.Path + ": use POST"})
		return
	}
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		c.httpError(w, aerr)
		return
	}
	req, aerr := decodeRequest(body, &s.cfg)
	if aerr != nil {
		c.httpError(w, aerr)
		return
	}
	c.req = req
	c.model = s.cfg.Model
	if c.model == "" {
		c.model = req.model
	}
	prompt, err := harmony.Render(req.messages, &req.opts)
	if err != nil {
		c.httpError(w, renderError(err))
		return
	}
	c.prompt = prompt
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.timeout())
	defer cancel()
	c.ctx = ctx
	if req.stream {
		s.metrics.streamsOpen.Add(1)
		defer s.metrics.streamsOpen.Add(-1)
		c.stream(w)
	} else {
		c.complete(w)
	}
}

// readBody reads the request body up to the server's limit (413 beyond).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apiError) {
	limit := s.cfg.maxBodyBytes()
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	// Bound the time a client may take to send its body, then lift the
	// deadline so that it cannot end a long stream.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(limit)
		}
		return nil, badRequest("", "body_read", "request body: "+err.Error())
	}
	return body, nil
}

// bodyReadTimeout bounds reading one request body.
const bodyReadTimeout = time.Minute

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
	if code == "invalid_reasoning_effort" {
		param = "reasoning_effort"
	}
	return badRequest(param, code, err.Error())
}

// httpError records e and sends it as the HTTP reply, unless the client is
// gone.
func (c *call) httpError(w http.ResponseWriter, e *apiError) {
	c.record(e)
	if e.kind != kindClientClosed {
		writeError(w, e)
	}
}

func (c *call) record(e *apiError) {
	c.status, c.kind, c.errMsg = e.status, e.kind, e.msg
}

// transportError classifies a failure to talk to the engine: the client
// went away, the server's timeout passed, or the engine failed (code and
// what word that).
func (c *call) transportError(err error, code, what string) *apiError {
	switch {
	case c.clientCtx.Err() != nil:
		return &apiError{status: statusClientClosed, kind: kindClientClosed, code: "client_closed", msg: "client closed the request"}
	case errors.Is(c.ctx.Err(), context.DeadlineExceeded):
		return timeoutError(c.s.cfg.timeout().String())
	}
	return engineError(code, what+": "+err.Error())
}

func (c *call) parseOptions() *harmony.ParseOptions {
	return &harmony.ParseOptions{Prefix: c.prompt, Tools: c.req.parseTools}
}

// checkFinish refuses an engine finish reason other than stop and length.
func checkFinish(finish string) *apiError {
	switch finish {
	case "stop", "length":
		return nil
	}
	return engineError("engine_finish", "engine stopped the generation with finish_reason "+quoteText(finish))
}

func quoteText(s string) string { return string(appendString(nil, s)) }

// modelOutputError is the 502 for a generation that is not Beam Harmony.
func modelOutputError(err error) *apiError {
	return &apiError{status: http.StatusBadGateway, kind: kindModelOutput, code: "invalid_model_output",
		msg: "the model's output is not valid Beam Harmony: " + err.Error()}
}

// complete serves a non-streamed request: one engine completion, parsed
// whole.
func (c *call) complete(w http.ResponseWriter) {
	resp, aerr := c.s.engine.complete(c, newCompletionRequest(c.req, c.model, c.prompt))
	if aerr != nil {
		c.httpError(w, aerr)
		return
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxEngineBody+1))
	if err != nil {
		c.httpError(w, c.transportError(err, "engine_read", "reading the engine's reply"))
		return
	}
	if len(data) > maxEngineBody {
		c.httpError(w, engineError("engine_bad_reply", "engine reply larger than 64 MiB"))
		return
	}
	var comp completion
	if err := decodeCompletion(new(pyjson.Doc), data, &comp); err != nil {
		c.httpError(w, engineError("engine_bad_reply", "engine answered something that is not a completion: "+
			err.Error()+": "+string(truncate(data, 200))))
		return
	}
	if f := comp.engineFailure(); f != nil {
		c.httpError(w, f)
		return
	}
	if len(comp.Choices) == 0 {
		c.httpError(w, engineError("engine_bad_reply", "engine answered a completion without choices"))
		return
	}
	ch := &comp.Choices[0]
	c.usage = comp.Usage
	finish := ch.FinishReason
	if finish == "" {
		finish = "stop"
	}
	if f := checkFinish(finish); f != nil {
		c.httpError(w, f)
		return
	}
	hold := stopHold{stops: c.req.stop}
	text := hold.push(ch.Text) + hold.finish(finish, ch.StopReason)
	text += missingEnd(text, finish, ch.StopReason)
	parsed, perr := harmony.Parse(text, c.parseOptions())
	if parsed == nil && perr == nil {
		perr = errors.New("the parser returned nothing")
	}
	if perr != nil {
		if finish != "length" || parsed == nil {
			c.httpError(w, modelOutputError(perr))
			return
		}
		// Cut off by max_tokens: what was parsed goes out, an unfinished
		// call left out (DECISIONS.md, Serving).
		c.warnings = append(c.warnings, "cut by length: "+perr.Error())
	}
	c.noteParsed(parsed)
	c.finish = finishReason(finish, len(parsed.Message.ToolCalls))
	body := c.appendCompletion(make([]byte, 0, 512+2*len(text)), &parsed.Message, c.finish)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// noteParsed keeps the parser's warnings and any text after the end
// marker for the log.
func (c *call) noteParsed(p *harmony.Parsed) {
	if p == nil {
		return
	}
	c.warnings = append(c.warnings, p.Warnings...)
	if p.Rest != "" {
		c.warnings = append(c.warnings, "text after "+p.End+" was not parsed: "+string(truncate([]byte(p.Rest), 80)))
	}
}

// stream serves a streamed request: engine events are parsed as they
// arrive and their regions forwarded as deltas.
func (c *call) stream(w http.ResponseWriter) {
	resp, aerr := c.s.engine.complete(c, newCompletionRequest(c.req, c.model, c.prompt))
	if aerr != nil {
		c.httpError(w, aerr)
		return
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		c.httpError(w, engineError("engine_bad_reply", "engine answered a streamed request with Content-Type "+
			quoteText(ct)+", not text/event-stream"))
		return
	}
	out := newChunkWriter(w, c)
	st := &streamer{out: out}
	parser := harmony.NewStreamParser(c.parseOptions())
	events := make([]harmony.Event, 0, 16)
	hold := stopHold{stops: c.req.stop}
	// tail keeps the last bytes given to the parser, enough to tell
	// whether the text ended with an end marker.
	const tailLen = 16
	var tailBuf [2 * tailLen]byte
	tail := tailBuf[:0]
	feed := func(text string) *apiError {
		if text == "" {
			return nil
		}
		if len(text) >= tailLen {
			tail = append(tail[:0], text[len(text)-tailLen:]...)
		} else {
			tail = append(tail, text...)
			if len(tail) > tailLen {
				tail = tail[:copy(tail, tail[len(tail)-tailLen:])]
			}
		}
		var err error
		events, err = parser.Feed(text, events[:0])
		st.emit(events)
		if err != nil {
			return modelOutputError(err)
		}
		return nil
	}

	sse := newSSEReader(resp.Body)
	finish := ""
	var stopReason json.RawMessage
	var doc pyjson.Doc
	var comp completion
	for {
		data, err := sse.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			c.streamError(w, out, c.transportError(err, "engine_stream", "reading the engine's stream"))
			return
		}
		if string(data) == "[DONE]" {
			break
		}
		if err := decodeCompletion(&doc, data, &comp); err != nil {
			c.streamError(w, out, engineError("engine_bad_reply", "engine sent an event that is not a completion chunk: "+
				err.Error()+": "+string(truncate(data, 200))))
			return
		}
		if f := comp.engineFailure(); f != nil {
			c.streamError(w, out, f)
			return
		}
		if comp.Usage != nil {
			c.usage = comp.Usage
		}
		for i := range comp.Choices {
			ch := &comp.Choices[i]
			if ch.Index != 0 {
				continue
			}
			out.start()
			if aerr := feed(hold.push(ch.Text)); aerr != nil {
				c.streamError(w, out, aerr)
				return
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
				stopReason = append(stopReason[:0], ch.StopReason...)
			}
		}
		if out.flush() != nil {
			c.record(&apiError{status: statusClientClosed, kind: kindClientClosed, msg: "client closed the stream"})
			return
		}
	}
	if finish == "" {
		c.streamError(w, out, engineError("engine_cut", "the engine's stream ended before the generation finished"))
		return
	}
	if aerr := checkFinish(finish); aerr != nil {
		c.streamError(w, out, aerr)
		return
	}
	if aerr := feed(hold.finish(finish, stopReason)); aerr != nil {
		c.streamError(w, out, aerr)
		return
	}
	if aerr := feed(missingEnd(string(tail), finish, stopReason)); aerr != nil {
		c.streamError(w, out, aerr)
		return
	}
	events, parsed, err := parser.Finish(events[:0])
	st.emit(events)
	if err != nil {
		if finish != "length" {
			c.streamError(w, out, modelOutputError(err))
			return
		}
		c.warnings = append(c.warnings, "cut by length: "+err.Error())
	}
	c.noteParsed(parsed)
	c.finish = finishReason(finish, st.calls)
	out.final(c.finish)
	if c.req.wantUsage && c.usage != nil {
		out.usage(c.usage)
	}
	out.done()
	if out.flush() != nil {
		c.record(&apiError{status: statusClientClosed, kind: kindClientClosed, msg: "client closed the stream"})
	}
}

// streamError ends a stream with e: an HTTP error before the reply has
// started, else one error event and no [DONE].
func (c *call) streamError(w http.ResponseWriter, out *chunkWriter, e *apiError) {
	if !out.started {
		c.httpError(w, e)
		return
	}
	c.record(e)
	if e.kind == kindClientClosed {
		return
	}
	out.errorEvent(e)
	_ = out.flush()
}

// finishLog writes the request's log record and metrics.
func (c *call) finishLog() {
	d := time.Since(c.start)
	stream := c.req != nil && c.req.stream
	c.s.metrics.observe(stream, c.kind, d, c.usage)
	attrs := make([]slog.Attr, 0, 14)
	attrs = append(attrs,
		slog.String("request_id", c.id),
		slog.Int("status", c.status),
		slog.Bool("stream", stream),
		slog.String("model", c.model),
		slog.Duration("duration", d),
	)
	if c.firstByte > 0 {
		attrs = append(attrs, slog.Duration("first_byte", c.firstByte))
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
		if c.status >= 500 {
			level = slog.LevelError
		} else {
			level = slog.LevelWarn
		}
	}
	if len(c.warnings) > 0 {
		attrs = append(attrs, slog.Any("warnings", c.warnings))
	}
	c.s.log.LogAttrs(context.Background(), level, "chat completion", attrs...)
}
