package serve

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/beamharmony/harmony"
)

// Before the engine: a generating request's body read, decoded by its
// API, rendered and tokenized, within the server's limits.

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
	rep, aerr := c.ep.decode(c.s, body, c.owner)
	if aerr != nil {
		if aerr.code == lateInstructionsCode {
			c.s.metrics.lateInstructions.With(c.ep.path, "refused").Inc()
		}
		return nil, c.s.memoryHint(aerr)
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
		return nil, c.s.memoryHint(aerr)
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
