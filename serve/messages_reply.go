package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/beamharmony/harmony"
)

// Replies of the Messages API: the message object, its stream of events,
// and errors in Anthropic's shape.

// anthropicErrorType is Anthropic's error type for an HTTP status.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusMethodNotAllowed, http.StatusUnprocessableEntity:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusPaymentRequired:
		return "billing_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusGatewayTimeout:
		return "timeout_error"
	case http.StatusServiceUnavailable, 529:
		return "overloaded_error"
	}
	if status < 500 {
		return "invalid_request_error"
	}
	return "api_error"
}

// appendAnthropicError appends {"type": "error", "error": {"type", "message"}}.
func appendAnthropicError(dst []byte, e *apiError) []byte {
	return appendJSON(dst, &anthropicError{Type: "error", Error: anthropicErrorBody{Type: anthropicErrorType(e.status), Message: e.msg, Details: e.details}})
}

// writeAnthropicError writes e as an HTTP error reply in Anthropic's shape.
func writeAnthropicError(w http.ResponseWriter, e *apiError) {
	body := append(appendAnthropicError(nil, e), '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.status)
	_, _ = w.Write(body)
}

// mapPath rewrites the path of a render error, which names the rendered
// message, to the request path the message came from.
func (m *messagesReply) mapPath(e *apiError) *apiError {
	return mapMessagePath(e, m.origin, "thinking")
}

// mapMessagePath rewrites "messages[k]" at the start of e's param and
// message to origin[k], and the effort's param to effortParam.
func mapMessagePath(e *apiError, origin []string, effortParam string) *apiError {
	if e.code == "invalid_reasoning_effort" {
		e.param = effortParam
		return e
	}
	rest, ok := strings.CutPrefix(e.param, "messages[")
	if !ok {
		return e
	}
	n, tail, ok := strings.Cut(rest, "]")
	k, err := strconv.Atoi(n)
	if !ok || err != nil || k < 0 || k >= len(origin) {
		return e
	}
	old := e.param
	e.param = origin[k] + tail
	if strings.HasPrefix(e.msg, old) {
		e.msg = e.param + e.msg[len(old):]
	}
	return e
}

// stopReason is the Messages API's stop_reason for how the generation
// ended.
func (end genEnd) stopReason() string {
	switch {
	case end.finish == "length":
		return "max_tokens"
	case end.stop != "":
		return "stop_sequence"
	case end.calls > 0:
		return "tool_use"
	}
	return "end_turn"
}

// newAnthropicUsage is the usage object of u: input and output tokens,
// and when the engine said how many prompt tokens came from its prefix
// cache, cache_read_input_tokens with them, input_tokens then being the
// rest (as the Messages API counts them).
func newAnthropicUsage(u *usage) anthropicUsage {
	var au anthropicUsage
	if u == nil {
		return au
	}
	au.InputTokens, au.OutputTokens = u.PromptTokens, u.CompletionTokens
	if u.CachedKnown {
		au.InputTokens -= u.CachedTokens
		cached := u.CachedTokens
		au.CacheReadInputTokens = &cached
	}
	return au
}

// newAnthropicReply is the message object for the parsed message:
// thinking first, with its signature, then the text or the tool_use
// blocks. A tool_use block's input is the call's arguments; encoding/json
// writes them compacted (gap decision 94), so they must be JSON, which
// the parser guarantees: a call whose arguments are not is a 502 rather
// than a reply that is not JSON.
func (c *exchange) newAnthropicReply(msg *harmony.Message, end genEnd) (*anthropicReply, *apiError) {
	content := append(make([]replyBlock, 0, 2+len(msg.ToolCalls)), c.searchBlocks()...)
	content, aerr := c.messageBlocks(content, msg, func(int) string { return c.newCallID("toolu_") })
	if aerr != nil {
		return nil, aerr
	}
	stopReason := end.stopReason()
	u := newAnthropicUsage(c.usage)
	u.ServerToolUse = c.serverToolUse()
	return &anthropicReply{ID: c.chatID, Type: "message", Role: "assistant", Model: c.model, Content: content,
		StopReason: &stopReason, StopSequence: optString(end.stop), Usage: u}, nil
}

// messageBlocks appends to content the blocks of the parsed message:
// thinking first, with its signature, then the text or the tool_use
// blocks, call i with the id callID(i).
func (c *exchange) messageBlocks(content []replyBlock, msg *harmony.Message, callID func(i int) string) ([]replyBlock, *apiError) {
	if msg.Reasoning != "" {
		content = append(content, c.thinkingBlock(msg.Reasoning))
	}
	if msg.Content != "" || len(msg.ToolCalls) == 0 && !c.searchStopped() {
		content = append(content, replyBlock{Type: "text", Text: &msg.Content})
	}
	for i := range msg.ToolCalls {
		tc := &msg.ToolCalls[i]
		input := tc.Function.Arguments
		if len(input) == 0 {
			input = json.RawMessage("{}")
		} else if !json.Valid(input) {
			return nil, modelOutputError(fmt.Errorf("tool call %d (%s): its arguments are not JSON", i, tc.Function.Name))
		}
		content = append(content, replyBlock{Type: "tool_use", ID: callID(i), Name: tc.Function.Name, Input: input})
	}
	return content, nil
}

// threadReply is the assistant message a thread keeps of the reply
// (threads.go): the blocks newAnthropicReply or the stream handed out,
// with the ids the calls were given. The reply was written, so its
// arguments are JSON.
func (c *exchange) threadReply(msg *harmony.Message) *replyMessage {
	content, _ := c.messageBlocks(make([]replyBlock, 0, 2+len(msg.ToolCalls)), msg, func(i int) string {
		if i < len(c.callIDs) {
			return c.callIDs[i]
		}
		return ""
	})
	return &replyMessage{Role: "assistant", Content: content}
}

// complete writes the message object.
func (m *messagesReply) complete(w http.ResponseWriter, c *exchange, p *harmony.Parsed, end genEnd) {
	reply, aerr := c.newAnthropicReply(&p.Message, end)
	if aerr != nil {
		c.httpError(w, aerr)
		return
	}
	c.finish = *reply.StopReason
	writeJSON(w, reply)
}

func (m *messagesReply) stream(w http.ResponseWriter, c *exchange) streamSink {
	return &messagesStream{sseWriter: newSSEWriter(w), c: c, regionBlocks: regionBlocks{index: -1}}
}

// messagesStream writes the Messages API's events: message_start, each
// content block as content_block_start, deltas and content_block_stop,
// then message_delta and message_stop. Parser regions of one kind that
// follow each other share a block, joined by "\n\n" as the parsed message
// joins them; a thinking block ends with its signature_delta.
type messagesStream struct {
	sseWriter
	regionBlocks
	c     *exchange
	calls int
}

func (s *messagesStream) started() bool { return s.begun }

func (s *messagesStream) start() {
	if s.begun {
		return
	}
	s.begin()
	s.open("message_start")
	s.buf = appendJSON(s.buf, &anthropicEvent{Type: "message_start", Message: &anthropicReply{ID: s.c.chatID,
		Type: "message", Role: "assistant", Model: s.c.model, Content: []replyBlock{}}})
	s.close()
}

func (s *messagesStream) keepAlive() {
	s.open("ping")
	s.buf = append(s.buf, `{"type":"ping"}`...)
	s.close()
}

func (s *messagesStream) emit(events []harmony.Event) { s.regionBlocks.emit(s, events) }

// writePending writes the open block's pending text as one delta.
func (s *messagesStream) writePending() {
	if s.pending.Len() == 0 {
		return
	}
	if s.kind == harmony.FieldThinking && s.c.omitsThinking() {
		// thinking.display "omitted": the text is sealed in the
		// block's signature at its end, and not shown.
		s.pending.Reset()
		return
	}
	s.open("content_block_delta")
	s.buf = append(s.buf, `{"type":"content_block_delta","index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
	switch s.kind {
	case harmony.FieldThinking:
		s.buf = append(s.buf, `,"delta":{"type":"thinking_delta","thinking":`...)
	case harmony.FieldContent:
		s.buf = append(s.buf, `,"delta":{"type":"text_delta","text":`...)
	default:
		s.buf = append(s.buf, `,"delta":{"type":"input_json_delta","partial_json":`...)
	}
	s.buf = appendString(s.buf, s.pending.String())
	s.buf = append(s.buf, "}}"...)
	s.close()
	s.pending.Reset()
}

func (s *messagesStream) startBlock(e *harmony.Event) {
	s.open("content_block_start")
	s.buf = append(s.buf, `{"type":"content_block_start","index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
	switch e.Field {
	case harmony.FieldThinking:
		s.buf = append(s.buf, `,"content_block":{"type":"thinking","thinking":"","signature":""}}`...)
	case harmony.FieldContent:
		s.buf = append(s.buf, `,"content_block":{"type":"text","text":""}}`...)
	default:
		s.calls++
		s.buf = append(s.buf, `,"content_block":{"type":"tool_use","id":`...)
		s.buf = appendString(s.buf, s.c.newCallID("toolu_"))
		s.buf = append(s.buf, `,"name":`...)
		s.buf = appendString(s.buf, e.Name)
		s.buf = append(s.buf, `,"input":{}}}`...)
	}
	s.close()
}

// finishBlock ends the open block; a thinking block gets its signature
// first.
func (s *messagesStream) finishBlock() {
	if s.kind == harmony.FieldThinking {
		s.open("content_block_delta")
		s.buf = append(s.buf, `{"type":"content_block_delta","index":`...)
		s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
		s.buf = append(s.buf, `,"delta":{"type":"signature_delta","signature":`...)
		s.buf = appendString(s.buf, s.c.thinkingSignature(s.text.String()))
		s.buf = append(s.buf, "}}"...)
		s.close()
	}
	s.open("content_block_stop")
	s.buf = append(s.buf, `{"type":"content_block_stop","index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
	s.buf = append(s.buf, '}')
	s.close()
}

func (s *messagesStream) end(e genEnd) {
	s.finish(s)
	s.c.finish = e.stopReason()
	s.open("message_delta")
	s.buf = append(s.buf, `{"type":"message_delta","delta":{"stop_reason":`...)
	s.buf = appendString(s.buf, s.c.finish)
	s.buf = append(s.buf, `,"stop_sequence":`...)
	s.buf = appendOptString(s.buf, e.stop)
	s.buf = append(s.buf, `},"usage":`...)
	u := newAnthropicUsage(s.c.usage)
	u.ServerToolUse = s.c.serverToolUse()
	s.buf = appendJSON(s.buf, &u)
	s.buf = append(s.buf, '}')
	s.close()
	s.open("message_stop")
	s.buf = append(s.buf, `{"type":"message_stop"}`...)
	s.close()
}

func (s *messagesStream) fail(e *apiError) {
	s.open("error")
	s.buf = appendAnthropicError(s.buf, e)
	s.close()
}

// countTokens serves POST /v1/messages/count_tokens: the request is
// decoded and rendered as /v1/messages would, and the prompt's tokens
// counted by the server's tokenizer. Without one the count cannot be
// exact, and the answer is a 501 that says so.
func (s *Server) countTokens(w http.ResponseWriter, r *http.Request, id string) {
	c := &exchange{s: s, ep: countTokensEndpoint, id: id, clientCtx: r.Context(), status: http.StatusOK}
	c.start = time.Now()
	defer c.finishLog()
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		c.httpError(w, aerr)
		return
	}
	release, aerr := s.acquirePrepare(r.Context())
	if aerr != nil {
		c.httpError(w, aerr)
		return
	}
	defer release()
	m, aerr := decodeMessagesRequest(body, s, true, "")
	if aerr != nil {
		c.httpError(w, aerr)
		return
	}
	c.req = m.req
	if s.cfg.Tokenizer == nil {
		prompt, err := harmony.Render(m.req.messages, &m.req.opts)
		if err != nil {
			c.httpError(w, m.mapPath(renderError(err)))
			return
		}
		c.httpError(w, &apiError{status: http.StatusNotImplemented, kind: kindNotImplemented, code: "no_tokenizer",
			msg: "count_tokens: this server has no tokenizer for the model, so it cannot count tokens exactly; " +
				"the request is valid and renders (" + itoa(int64(len(prompt))) + " bytes of prompt)"})
		return
	}
	// Counted as the engine would receive the prompt: as RenderTokens's ids.
	toks, aerr := c.renderTokens(m.req)
	if aerr != nil {
		c.httpError(w, m.mapPath(aerr))
		return
	}
	writeJSON(w, &countTokensReply{InputTokens: len(toks.InputIDs)})
}

// countTokensEndpoint labels /v1/messages/count_tokens in logs and
// metrics; its errors have Anthropic's shape.
var countTokensEndpoint = &endpoint{name: "count_tokens", path: "/v1/messages/count_tokens", writeError: writeAnthropicError}

// Anthropic Messages. The message object (newAnthropicReply), the
// message_start event and the usage are encoded with encoding/json; the
// other events are appended by hand, and wire_events_test.go checks each kind
// against these structs.

// anthropicReply is the Messages API's message object.
type anthropicReply struct {
	ID           string         `json:"id"`
	Type         string         `json:"type"`
	Role         string         `json:"role"`
	Model        string         `json:"model"`
	Content      []replyBlock   `json:"content"`
	StopReason   *string        `json:"stop_reason"`
	StopSequence *string        `json:"stop_sequence"`
	Usage        anthropicUsage `json:"usage"`
}

// replyBlock is a content block of a reply: thinking (Thinking, Signature), text
// (Text) or tool_use (ID, Name, Input).
type replyBlock struct {
	Type      string          `json:"type"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	Text      *string         `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	// ToolUseID and Content are a server tool's result block's
	// (web_search_tool_result, web_fetch_tool_result: websearch_reply.go).
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

// anthropicUsage counts input tokens apart from those read from the
// engine's prefix cache.
type anthropicUsage struct {
	InputTokens          int64  `json:"input_tokens"`
	CacheReadInputTokens *int64 `json:"cache_read_input_tokens,omitempty"`
	OutputTokens         int64  `json:"output_tokens"`
	// ServerToolUse counts the hosted web search's calls, when the
	// request has one (websearch.go).
	ServerToolUse *serverToolUsage `json:"server_tool_use,omitempty"`
}

// anthropicEvent is the data of a Messages stream event.
type anthropicEvent struct {
	Type         string          `json:"type"`
	Message      *anthropicReply `json:"message,omitempty"`
	Index        *int            `json:"index,omitempty"`
	ContentBlock *replyBlock     `json:"content_block,omitempty"`
	// Delta is an anthropicBlockDelta or an anthropicMessageDelta.
	Delta any             `json:"delta,omitempty"`
	Usage *anthropicUsage `json:"usage,omitempty"`
}

// anthropicBlockDelta is a content_block_delta's delta.
type anthropicBlockDelta struct {
	Type        string  `json:"type"`
	Thinking    *string `json:"thinking,omitempty"`
	Text        *string `json:"text,omitempty"`
	PartialJSON *string `json:"partial_json,omitempty"`
	Signature   *string `json:"signature,omitempty"`
}

// anthropicMessageDelta is a message_delta's delta.
type anthropicMessageDelta struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

// thinkingBlock is a reply's thinking block of text: the text and its
// signature, or with thinking.display "omitted" an empty text and the
// text sealed in the signature.
func (c *exchange) thinkingBlock(text string) replyBlock {
	sig := c.thinkingSignature(text)
	shown := text
	if c.omitsThinking() {
		shown = ""
	}
	return replyBlock{Type: "thinking", Thinking: &shown, Signature: &sig}
}

// thinkingSignature is the signature of a thinking block of text: its MAC,
// or with thinking.display "omitted" the text itself sealed (signer.seal),
// which the next turn opens (messagesReply.assistantMessage).
func (c *exchange) thinkingSignature(text string) string {
	if c.omitsThinking() {
		return c.s.signer.seal(text)
	}
	return c.s.signer.sign(text)
}

// omitsThinking reports whether the request asked for thinking.display
// "omitted".
func (c *exchange) omitsThinking() bool { return c.req != nil && c.req.omitThinking }
