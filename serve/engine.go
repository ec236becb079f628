package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// Limits on what the gateway reads from the engine. A generation of
// DefaultMaxTokens tokens is far below either.
const (
	maxEngineBody  = 64 << 20 // a non-streamed completion
	maxEngineEvent = 16 << 20 // one server-sent event
	maxEngineError = 64 << 10 // an error body, of which the message is kept
)

// completionRequest is the body of the engine's /v1/completions request.
// The four marker flags keep the markers visible in the generated text
// where the engine supports them (vLLM and SGLang read them; llama.cpp
// ignores what it does not know).
type completionRequest struct {
	Model string `json:"model"`
	// Prompt is the prompt's text, or its token ids ([]int) when the
	// gateway has a tokenizer; vLLM, SGLang and llama.cpp take either.
	Prompt                     any             `json:"prompt"`
	MaxTokens                  int64           `json:"max_tokens"`
	Temperature                json.RawMessage `json:"temperature,omitempty"`
	TopP                       json.RawMessage `json:"top_p,omitempty"`
	PresencePenalty            json.RawMessage `json:"presence_penalty,omitempty"`
	FrequencyPenalty           json.RawMessage `json:"frequency_penalty,omitempty"`
	TopK                       json.RawMessage `json:"top_k,omitempty"`
	MinP                       json.RawMessage `json:"min_p,omitempty"`
	RepetitionPenalty          json.RawMessage `json:"repetition_penalty,omitempty"`
	Seed                       json.RawMessage `json:"seed,omitempty"`
	Stop                       []string        `json:"stop"`
	Stream                     bool            `json:"stream"`
	StreamOptions              *streamOptions  `json:"stream_options,omitempty"`
	SkipSpecialTokens          bool            `json:"skip_special_tokens"`
	SpacesBetweenSpecialTokens bool            `json:"spaces_between_special_tokens"`
	AddSpecialTokens           bool            `json:"add_special_tokens"`
	IncludeStopStrInOutput     bool            `json:"include_stop_str_in_output"`
	// The grammar of a constrained request, in the engine's dialect:
	// llama.cpp's GBNF, vLLM's structured_outputs, SGLang's EBNF.
	Grammar           string             `json:"grammar,omitempty"`
	StructuredOutputs *structuredOutputs `json:"structured_outputs,omitempty"`
	EBNF              string             `json:"ebnf,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// engineStops are the stop strings the gateway always adds: Beam's turn
// ends at either, and <|call|> is not an end-of-sequence token.
var engineStops = [...]string{harmony.MarkerCall, harmony.MarkerReturn}

// newCompletionRequest builds the engine request for a chat request.
func newCompletionRequest(req *request, model string, prompt any) *completionRequest {
	stop := make([]string, 0, len(req.stop)+len(engineStops))
	stop = append(stop, req.stop...)
	for _, s := range engineStops {
		if !slices.Contains(stop, s) {
			stop = append(stop, s)
		}
	}
	cr := &completionRequest{
		Model:       model,
		Prompt:      prompt,
		MaxTokens:   req.maxTokens,
		Temperature: req.temperature,
		TopP:        req.topP,
		// Beyond the list, the sampling parameters vLLM, SGLang
		// and llama.cpp share are forwarded rather than dropped.
		PresencePenalty:   req.presencePenalty,
		FrequencyPenalty:  req.frequencyPenalty,
		TopK:              req.topK,
		MinP:              req.minP,
		RepetitionPenalty: req.repetitionPenalty,
		Seed:              req.seed,
		Stop:              stop,
		Stream:            req.stream,
		// Always asked for, so that the metrics count tokens; it reaches
		// the client only when the client asked.
		IncludeStopStrInOutput: true,
	}
	if req.stream {
		cr.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	return cr
}

// completion is one /v1/completions reply, or one event of a streamed
// reply. Error and Object/Message catch the error shapes engines put in a
// 200 stream.
type completion struct {
	Choices []completionChoice
	Usage   *usage
	Error   json.RawMessage
	// IsError is "object": "error", the shape of older vLLM errors, whose
	// text is Message.
	IsError bool
	Message string
	// BadUsage says why a usage object was dropped ("" when it was not).
	BadUsage string
}

type completionChoice struct {
	Index int
	Text  string
	// FinishReason is "" while the generation goes on (null on the wire).
	FinishReason string
	// StopReason is the raw stop_reason (SGLang: matched_stop): the stop
	// string, a token id or null. It points into the event's bytes: copy
	// it to keep it.
	StopReason json.RawMessage
}

// usage is the engine's token count, passed on to the client.
type usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	// CachedTokens are the prompt tokens the engine read from its prefix
	// cache (usage.prompt_tokens_details.cached_tokens; vLLM with prefix
	// caching, llama.cpp), and CachedKnown whether the engine said.
	CachedTokens int64 `json:"-"`
	CachedKnown  bool  `json:"-"`
}

// decodeCompletion reads a completion or a stream event into c with the
// tape parser d, which a stream reuses for every event: only the texts
// (and a usage, when present) allocate.
func decodeCompletion(d *pyjson.Doc, data []byte, c *completion) error {
	if err := d.Parse(data); err != nil {
		return err
	}
	if d.Kind(0) != pyjson.Object {
		return errors.New("not a JSON object")
	}
	*c = completion{Choices: c.Choices[:0]}
	var err error
	d.Members(0, func(k, v int) bool {
		switch {
		case d.StringEqual(k, "choices"):
			if d.Kind(v) == pyjson.Null {
				break
			}
			if d.Kind(v) != pyjson.Array {
				err = errors.New("choices: not a list")
				break
			}
			d.Elements(v, func(e, pos int) bool {
				var ch completionChoice
				if err = decodeChoice(d, e, &ch); err != nil {
					err = fmt.Errorf("choices[%d].%w", pos, err)
					return false
				}
				c.Choices = append(c.Choices, ch)
				return true
			})
		case d.StringEqual(k, "usage"):
			if d.Kind(v) == pyjson.Object {
				c.Usage, c.BadUsage = decodeUsage(d, v)
			}
		case d.StringEqual(k, "error"):
			if d.Kind(v) != pyjson.Null {
				c.Error = append(json.RawMessage(nil), d.Raw(v)...)
			}
		case d.StringEqual(k, "object"):
			c.IsError = d.StringEqual(v, "error")
		case d.StringEqual(k, "message"):
			if d.Kind(v) == pyjson.String {
				c.Message = d.Str(v)
			}
		}
		return err == nil
	})
	return err
}

func decodeChoice(d *pyjson.Doc, e int, ch *completionChoice) error {
	if d.Kind(e) != pyjson.Object {
		return errors.New("not an object")
	}
	var err error
	d.Members(e, func(k, v int) bool {
		switch {
		case d.StringEqual(k, "index"):
			n, perr := strconv.Atoi(string(d.Raw(v)))
			if d.Kind(v) != pyjson.Number || perr != nil {
				err = errors.New("index: not an integer")
			}
			ch.Index = n
		case d.StringEqual(k, "text"):
			err = optionalString(d, v, "text", &ch.Text)
		case d.StringEqual(k, "finish_reason"):
			err = optionalString(d, v, "finish_reason", &ch.FinishReason)
		case d.StringEqual(k, "stop_reason"):
			if d.Kind(v) != pyjson.Null || ch.StopReason == nil {
				ch.StopReason = d.Raw(v)
			}
		case d.StringEqual(k, "matched_stop"):
			// SGLang's name for it.
			if ch.StopReason == nil || isNull(ch.StopReason) {
				ch.StopReason = d.Raw(v)
			}
		}
		return err == nil
	})
	return err
}

// optionalString stores the string at node v in dst; null leaves dst
// alone, and any other kind is an error naming field.
func optionalString(d *pyjson.Doc, v int, field string, dst *string) error {
	switch d.Kind(v) {
	case pyjson.String:
		*dst = d.Str(v)
	case pyjson.Null:
	default:
		return errors.New(field + ": not a string")
	}
	return nil
}

// maxUsage bounds each usage figure: 2^53-1, the largest integer every
// JSON client reads exactly, and small enough that adding the figures, or
// a request's figures to the metrics' totals, cannot overflow.
const maxUsage = 1<<53 - 1

// decodeUsage reads the usage object at node obj. A figure that is present
// must be an integer from 0 to maxUsage, and the prompt and completion
// figures must not add up to more than maxUsage; otherwise the whole usage
// is dropped (nil, and why), as if the engine had sent none. An absent or
// null figure is 0.
func decodeUsage(d *pyjson.Doc, obj int) (*usage, string) {
	u := new(usage)
	for _, f := range [...]struct {
		key string
		dst *int64
	}{{"prompt_tokens", &u.PromptTokens}, {"completion_tokens", &u.CompletionTokens}, {"total_tokens", &u.TotalTokens}} {
		v := d.Lookup(obj, f.key)
		if v < 0 || d.Kind(v) == pyjson.Null {
			continue
		}
		raw := string(d.Raw(v))
		n, err := strconv.ParseInt(raw, 10, 64)
		if d.Kind(v) != pyjson.Number || err != nil || n < 0 || n > maxUsage {
			return nil, "usage." + f.key + " " + string(truncate(d.Raw(v), 40)) + " is not a token count from 0 to 2^53-1"
		}
		*f.dst = n
	}
	if u.PromptTokens+u.CompletionTokens > maxUsage {
		return nil, "usage: prompt_tokens + completion_tokens is beyond 2^53-1"
	}
	// The cached share is optional: a figure that is not a count from 0 to
	// the prompt's tokens is left out, not fatal.
	if det := d.Lookup(obj, "prompt_tokens_details"); det >= 0 {
		if v := d.Lookup(det, "cached_tokens"); v >= 0 && d.Kind(v) == pyjson.Number {
			if n, err := strconv.ParseInt(string(d.Raw(v)), 10, 64); err == nil && n >= 0 && n <= u.PromptTokens {
				u.CachedTokens, u.CachedKnown = n, true
			}
		}
	}
	return u, ""
}

// choice returns the choice the gateway reads, on both the streamed and
// the non-streamed path: the first one with index 0, wherever it is in
// the list. A choice without an index is index 0 (the only choice of an
// engine that leaves it out). It returns nil when there is none.
func (c *completion) choice() *completionChoice {
	for i := range c.Choices {
		if c.Choices[i].Index == 0 {
			return &c.Choices[i]
		}
	}
	return nil
}

// engineFailure returns the error a completion carries in its body, or nil.
func (c *completion) engineFailure() *apiError {
	if !isNull(c.Error) {
		msg, _ := errorMessage(c.Error)
		return engineError("engine_error", "the engine reported an error").withDetail(msg)
	}
	if c.IsError {
		return engineError("engine_error", "the engine reported an error").withDetail(c.Message)
	}
	return nil
}

// engine sends requests to the inference server.
type engine struct {
	base   string
	apiKey string
	client *http.Client
}

func (e *engine) newRequest(ctx context.Context, method, path string, body io.Reader, requestID string) (*http.Request, error) {
	hr, err := http.NewRequestWithContext(ctx, method, e.base+path, body)
	if err != nil {
		return nil, err
	}
	if e.apiKey != "" {
		hr.Header.Set("Authorization", "Bearer "+e.apiKey)
	}
	if requestID != "" {
		hr.Header.Set("X-Request-Id", requestID)
	}
	return hr, nil
}

// complete sends a completion request for the call and returns the
// engine's 2xx reply. Failures before a reply are classified: an engine 4xx
// passes through, a timeout is a 504, anything else a 502 (DECISIONS.md,
// Serving).
func (e *engine) complete(c *exchange, cr *completionRequest) (*http.Response, *apiError) {
	var buf bytes.Buffer
	buf.Grow(promptSize(cr.Prompt) + 512)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(cr); err != nil {
		return nil, engineError("engine_request", "the gateway could not build the engine request").withDetail(err.Error())
	}
	hr, err := e.newRequest(c.ctx, http.MethodPost, "/v1/completions", &buf, c.id)
	if err != nil {
		return nil, engineError("engine_request", "the gateway could not build the engine request").withDetail(err.Error())
	}
	hr.Header.Set("Content-Type", "application/json")
	if cr.Stream {
		hr.Header.Set("Accept", "text/event-stream")
	}
	// Replayable: a kept-alive connection the engine closed as the
	// request went out (llama-server closes some after a streamed reply)
	// fails before the engine read the request, and net/http then sends
	// it again on a new connection. A nil value is not sent.
	hr.Header["X-Idempotency-Key"] = nil
	resp, err := e.client.Do(hr)
	if err != nil {
		return nil, c.transportError(err, "engine_unreachable", "engine unreachable")
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, statusError(resp)
	}
	return resp, nil
}

// statusClientClosed is the status logged for a request whose client went
// away (nginx's convention); it is never sent.
const statusClientClosed = 499

// statusError turns an engine reply that is not 2xx into the client's
// error. A 4xx passes through with its status and, when the body is a
// JSON error object, its message and type (the engine's words about the
// request, such as a context length; at most maxPassedMessage bytes); a
// body that is not JSON (an HTML page, a proxy's text) is replaced by the
// status text. Anything else is a 502 saying only the status. The whole
// body goes to the log.
func statusError(resp *http.Response) *apiError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxEngineError))
	msg, typ := errorMessage(body)
	detail := msg
	code := "engine_" + strconv.Itoa(resp.StatusCode)
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' || msg == "" {
			msg, typ = http.StatusText(resp.StatusCode), ""
		}
		if msg == "" {
			msg = "HTTP " + strconv.Itoa(resp.StatusCode)
		}
		if len(msg) > maxPassedMessage {
			msg = strings.ToValidUTF8(msg[:maxPassedMessage], "") + "..."
		}
		return &apiError{status: resp.StatusCode, kind: kindEngine4xx, msg: withoutEngineAddress(msg, resp.Request), typ: typ, code: code, detail: detail}
	}
	return engineError(code, "the engine answered HTTP "+strconv.Itoa(resp.StatusCode)).withDetail(detail)
}

// maxPassedMessage caps the engine message a passed-through 4xx carries.
const maxPassedMessage = 1000

// withoutEngineAddress returns an engine message passed to a client with
// the engine's address (host:port, and the host alone) written as "the
// engine": the client may read the engine's words about its request, not
// where the engine is (SECURITY.md).
func withoutEngineAddress(msg string, req *http.Request) string {
	if req == nil || req.URL == nil {
		return msg
	}
	if host := req.URL.Host; host != "" {
		msg = strings.ReplaceAll(msg, req.URL.Scheme+"://"+host, "the engine")
		msg = strings.ReplaceAll(msg, host, "the engine")
	}
	if name := req.URL.Hostname(); name != "" {
		msg = strings.ReplaceAll(msg, name, "the engine")
	}
	return msg
}

// errorMessage finds the message in an engine's error body, whichever
// shape it has: {"error": {"message", "type"}}, {"error": "text"},
// {"message": ..., "type": ...} (older vLLM), {"detail": ...} (FastAPI), or
// plain text.
func errorMessage(body []byte) (msg, typ string) {
	body = bytes.TrimSpace(body)
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Detail  json.RawMessage `json:"detail"`
	}
	if len(body) > 0 && body[0] == '{' && json.Unmarshal(body, &shape) == nil {
		if !isNull(shape.Error) {
			if shape.Error[0] == '"' {
				var s string
				_ = json.Unmarshal(shape.Error, &s)
				return s, ""
			}
			return errorMessage(shape.Error)
		}
		if shape.Message != "" {
			return shape.Message, shape.Type
		}
		if !isNull(shape.Detail) {
			var s string
			if json.Unmarshal(shape.Detail, &s) == nil {
				return s, ""
			}
			return string(truncate(shape.Detail, 500)), ""
		}
	}
	if len(body) == 0 {
		return "", ""
	}
	text := strings.ToValidUTF8(string(truncate(body, 500)), "\uFFFD")
	return text, ""
}

// sseReader reads the data of server-sent events (the engine's stream).
// Each event's data lines are joined by "\n"; comments and other fields
// are skipped.
type sseReader struct {
	r    *bufio.Reader
	src  countingReader
	data []byte
	line []byte
}

// countingReader counts the reads of the engine's stream: events taken
// between two reads arrived together.
type countingReader struct {
	r     io.Reader
	reads uint64
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

func newSSEReader(r io.Reader) *sseReader {
	s := &sseReader{src: countingReader{r: r}}
	s.r = bufio.NewReaderSize(&s.src, 32<<10)
	return s
}

// reads returns how many times the reader has read the engine's stream.
func (s *sseReader) reads() uint64 { return s.src.reads }

// next returns the data of the next event, valid until the following
// call, or io.EOF at the end of the stream.
func (s *sseReader) next() ([]byte, error) {
	s.data = s.data[:0]
	hasData := false
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && hasData {
				return s.data, nil
			}
			return nil, err
		}
		if len(line) == 0 {
			if hasData {
				return s.data, nil
			}
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			v = bytes.TrimPrefix(v, []byte(" "))
			if !hasData && s.blankNext() {
				// A one-line event, its blank line already read: its data
				// stays valid in the reader's buffer until the next read.
				return v, nil
			}
			if hasData {
				s.data = append(s.data, '\n')
			}
			if len(s.data)+len(v) > maxEngineEvent {
				return nil, errEventTooLarge
			}
			s.data = append(s.data, v...)
			hasData = true
		}
	}
}

var errEventTooLarge = errors.New("engine sent an event larger than 16 MiB")

// blankNext consumes the blank line that follows when the reader already
// holds it, and reports whether it did.
func (s *sseReader) blankNext() bool {
	b, _ := s.r.Peek(min(s.r.Buffered(), 2))
	n := 0
	switch {
	case len(b) > 0 && b[0] == '\n':
		n = 1
	case len(b) > 1 && b[0] == '\r' && b[1] == '\n':
		n = 2
	default:
		return false
	}
	_, _ = s.r.Discard(n)
	return true
}

// ready reports whether the reader already holds the whole next event,
// which next returns without waiting for the engine: a stream writes
// what it has when it is not, rather than after every event.
func (s *sseReader) ready() bool {
	return eventBuffered(s.r)
}

// eventBuffered reports whether r's buffer holds a blank line, the end of
// a server-sent event.
func eventBuffered(r *bufio.Reader) bool {
	b, _ := r.Peek(r.Buffered())
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return false
		}
		b = b[i+1:]
		if len(b) > 0 && b[0] == '\n' || len(b) > 1 && b[0] == '\r' && b[1] == '\n' {
			return true
		}
	}
}

// readLine returns the next line without its line ending.
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.line = append(s.line[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(s.line) > maxEngineEvent {
				return nil, errEventTooLarge
			}
			line, err = s.r.ReadSlice('\n')
			s.line = append(s.line, line...)
		}
		line = s.line
	}
	if err != nil && (err != io.EOF || len(line) == 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, nil
}

// stopHold holds back generated text that may be the start of one of the
// client's stop strings. The engine includes the stop string it stopped on
// (include_stop_str_in_output keeps the markers), but an OpenAI client
// expects it left out; since the engine stops right after it, it can only
// be at the very end.
type stopHold struct {
	stops []string
	held  string
	// matched is the stop string finish cut, or "".
	matched string
}

// push adds generated text and returns what is certain not to be part of
// a stop string.
func (h *stopHold) push(text string) string {
	if len(h.stops) == 0 {
		return text
	}
	all := h.held + text
	keep := 0
	for _, s := range h.stops {
		for k := min(len(s), len(all)); k > keep; k-- {
			if strings.HasSuffix(all, s[:k]) {
				keep = k
				break
			}
		}
	}
	h.held = all[len(all)-keep:]
	return all[:len(all)-keep]
}

// finish returns the held text, less the stop string the engine stopped
// on: the one stop_reason names, or with no stop_reason (llama.cpp) any
// stop string the text ends with.
func (h *stopHold) finish(finish string, stopReason json.RawMessage) string {
	held := h.held
	h.held = ""
	if finish != "stop" || held == "" {
		return held
	}
	var reason string
	named := !isNull(stopReason) && json.Unmarshal(stopReason, &reason) == nil
	for _, s := range h.stops {
		if (!named || s == reason) && strings.HasSuffix(held, s) {
			h.matched = s
			return held[:len(held)-len(s)]
		}
	}
	if named && slices.Contains(h.stops, reason) {
		// An engine that cut the stop string from the text.
		h.matched = reason
	}
	return held
}

// missingEnd returns the end marker the engine stopped on but left out of
// the text (an engine without include_stop_str_in_output), so that the
// parser sees the turn end as the model wrote it; or "".
func missingEnd(tail, finish string, stopReason json.RawMessage) string {
	if finish != "stop" || isNull(stopReason) || stopReason[0] != '"' {
		return ""
	}
	var reason string
	if json.Unmarshal(stopReason, &reason) != nil {
		return ""
	}
	for _, mk := range engineStops {
		if reason == mk && !strings.HasSuffix(tail, mk) {
			return mk
		}
	}
	return ""
}

// promptSize estimates the JSON size of a prompt, text or ids.
func promptSize(p any) int {
	switch p := p.(type) {
	case string:
		return len(p)
	case []int:
		return 7 * len(p)
	}
	return 0
}
