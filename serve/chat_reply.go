package serve

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/beamharmony/harmony"
)

// Chat Completions replies: the chat.completion object (newChatCompletion,
// encoded with encoding/json) and the stream of chat.completion.chunk
// events, appended by hand on the per-token path (chunkWriter, fed by
// streamer) and checked against the structs by wire_test.go.

// chatReply writes chat.completion objects and chunks.
type chatReply struct{ req *request }

func (r chatReply) request() *request { return r.req }

func (r chatReply) complete(w http.ResponseWriter, c *exchange, p *harmony.Parsed, end genEnd) {
	c.finish = finishReason(end.finish, end.calls)
	writeJSON(w, c.newChatCompletion(&p.Message, c.finish))
}

func (r chatReply) stream(w http.ResponseWriter, c *exchange) streamSink {
	out := newChunkWriter(w, c)
	return &chatStream{c: c, out: out, st: streamer{out: out}}
}

// chatStream writes a streamed chat completion: a chunk per delta, the
// finish chunk, the usage chunk when asked for, and [DONE].
type chatStream struct {
	c   *exchange
	out *chunkWriter
	st  streamer
}

func (s *chatStream) start()                      { s.out.start() }
func (s *chatStream) started() bool               { return s.out.begun }
func (s *chatStream) emit(events []harmony.Event) { s.st.emit(events) }
func (s *chatStream) fail(e *apiError)            { s.out.errorEvent(e) }
func (s *chatStream) flush() error                { return s.out.flush() }

// keepAlive writes an SSE comment, which OpenAI clients skip.
func (s *chatStream) keepAlive() { s.out.comment("keep-alive") }

func (s *chatStream) end(e genEnd) {
	s.c.finish = finishReason(e.finish, e.calls)
	s.out.final(s.c.finish)
	if s.c.req.wantUsage && s.c.usage != nil {
		s.out.usage(s.c.usage)
	}
	s.out.done()
}

// finishReason maps the engine's finish reason and what was parsed to the
// OpenAI one: length when the engine ran out of tokens, tool_calls when
// the turn made calls, else stop.
func finishReason(engineFinish string, calls int) string {
	switch {
	case engineFinish == "length":
		return "length"
	case calls > 0:
		return "tool_calls"
	}
	return "stop"
}

// appendReasoning appends the reasoning fields the server writes; lead
// is written before the first ('{' to open a delta, ',' after other fields).
func appendReasoning(dst []byte, f ReasoningFields, text string, lead byte) []byte {
	if f != ReasoningOnly {
		dst = append(dst, lead)
		dst = append(dst, `"reasoning_content":`...)
		dst = appendString(dst, text)
		lead = ','
	}
	if f != ReasoningContentOnly {
		dst = append(dst, lead)
		dst = append(dst, `"reasoning":`...)
		dst = appendString(dst, text)
	}
	return dst
}

func appendUsage(dst []byte, u *usage) []byte {
	dst = append(dst, `{"prompt_tokens":`...)
	dst = appendInt(dst, u.PromptTokens)
	dst = append(dst, `,"completion_tokens":`...)
	dst = appendInt(dst, u.CompletionTokens)
	dst = append(dst, `,"total_tokens":`...)
	total := u.TotalTokens
	if total == 0 {
		total = u.PromptTokens + u.CompletionTokens
	}
	dst = appendInt(dst, total)
	if u.CachedKnown {
		dst = append(dst, `,"prompt_tokens_details":{"cached_tokens":`...)
		dst = appendInt(dst, u.CachedTokens)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// chunkWriter writes a streamed reply: chat.completion.chunk events in
// server-sent events, collected in a buffer and sent at each flush.
type chunkWriter struct {
	sseWriter
	c    *exchange
	head []byte // `data: {"id":...,"choices":[{"index":0,"delta":`
	tail []byte // `,"logprobs":null,"finish_reason":null}]...}` and the blank line
}

func newChunkWriter(w http.ResponseWriter, c *exchange) *chunkWriter {
	o := &chunkWriter{sseWriter: newSSEWriter(w), c: c}
	o.head = o.appendEnvelope(nil)
	o.head = append(o.head, `"choices":[{"index":0,"delta":`...)
	o.tail = append(o.tail, `,"logprobs":null,"finish_reason":null}]`...)
	if c.req.wantUsage {
		o.tail = append(o.tail, `,"usage":null`...)
	}
	o.tail = append(o.tail, "}\n\n"...)
	return o
}

// appendEnvelope appends `data: {"id":...,"model":...,` shared by every chunk.
func (o *chunkWriter) appendEnvelope(dst []byte) []byte {
	dst = append(dst, `data: {"id":`...)
	dst = appendString(dst, o.c.chatID)
	dst = append(dst, `,"object":"chat.completion.chunk","created":`...)
	dst = appendInt(dst, o.c.created)
	dst = append(dst, `,"model":`...)
	dst = appendString(dst, o.c.model)
	return append(dst, ',')
}

// start sends the headers and the first chunk, which carries the role.
func (o *chunkWriter) start() {
	if o.begun {
		return
	}
	o.begin()
	o.buf = append(o.buf, o.head...)
	o.buf = append(o.buf, `{"role":"assistant","content":""}`...)
	o.buf = append(o.buf, o.tail...)
}

// openDelta begins a chunk whose delta the caller appends.
func (o *chunkWriter) openDelta() {
	o.start()
	o.buf = append(o.buf, o.head...)
}

func (o *chunkWriter) closeDelta() { o.buf = append(o.buf, o.tail...) }

// reasoning writes a reasoning delta.
func (o *chunkWriter) reasoning(text string) {
	o.openDelta()
	o.buf = appendReasoning(o.buf, o.c.s.cfg.ReasoningFields, text, '{')
	o.buf = append(o.buf, '}')
	o.closeDelta()
}

// content writes a content delta.
func (o *chunkWriter) content(text string) {
	o.openDelta()
	o.buf = append(o.buf, `{"content":`...)
	o.buf = appendString(o.buf, text)
	o.buf = append(o.buf, '}')
	o.closeDelta()
}

// callOpen writes a tool call's first delta: index, id, type, name and
// empty arguments.
func (o *chunkWriter) callOpen(index int, id, name string) {
	o.openDelta()
	o.buf = append(o.buf, `{"tool_calls":[{"index":`...)
	o.buf = strconv.AppendInt(o.buf, int64(index), 10)
	o.buf = append(o.buf, `,"id":`...)
	o.buf = appendString(o.buf, id)
	o.buf = append(o.buf, `,"type":"function","function":{"name":`...)
	o.buf = appendString(o.buf, name)
	o.buf = append(o.buf, `,"arguments":""}}]}`...)
	o.closeDelta()
}

// callArguments writes a fragment of a tool call's arguments.
func (o *chunkWriter) callArguments(index int, text string) {
	o.openDelta()
	o.buf = append(o.buf, `{"tool_calls":[{"index":`...)
	o.buf = strconv.AppendInt(o.buf, int64(index), 10)
	o.buf = append(o.buf, `,"function":{"arguments":`...)
	o.buf = appendString(o.buf, text)
	o.buf = append(o.buf, `}}]}`...)
	o.closeDelta()
}

// final writes the last chunk, with the finish reason.
func (o *chunkWriter) final(finish string) {
	o.start()
	o.buf = append(o.buf, o.head...)
	o.buf = append(o.buf, `{},"logprobs":null,"finish_reason":`...)
	o.buf = appendString(o.buf, finish)
	o.buf = append(o.buf, "}]"...)
	if o.c.req.wantUsage {
		o.buf = append(o.buf, `,"usage":null`...)
	}
	o.buf = append(o.buf, "}\n\n"...)
}

// usage writes the usage chunk (stream_options.include_usage).
func (o *chunkWriter) usage(u *usage) {
	o.buf = o.appendEnvelope(o.buf)
	o.buf = append(o.buf, `"choices":[],"usage":`...)
	o.buf = appendUsage(o.buf, u)
	o.buf = append(o.buf, "}\n\n"...)
}

// done writes the stream's last line.
func (o *chunkWriter) done() { o.buf = append(o.buf, "data: [DONE]\n\n"...) }

// errorEvent writes a mid-stream failure: one error event, after which
// the stream ends without [DONE] (DECISIONS.md, Serving).
func (o *chunkWriter) errorEvent(e *apiError) {
	o.buf = append(o.buf, "data: "...)
	o.buf = e.appendJSON(o.buf)
	o.buf = append(o.buf, "\n\n"...)
}

// streamer turns parser events into deltas. Chunks of one region that
// arrive in one batch are joined into one delta; a second reasoning or
// content region starts with "\n\n", as the parsed message joins them.
type streamer struct {
	out      *chunkWriter
	opened   [2]int // regions opened so far: thinking, content
	calls    int
	pendKind harmony.Field // field of the pending text, "" for none
	pendIdx  int
	pendText string
}

func fieldSlot(field harmony.Field) int {
	if field == harmony.FieldContent {
		return 1
	}
	return 0
}

// emit writes the deltas of a batch of events.
func (s *streamer) emit(events []harmony.Event) {
	for i := range events {
		e := &events[i]
		switch e.Type {
		case harmony.EventRegionOpen:
			switch e.Field {
			case harmony.FieldThinking, harmony.FieldContent:
				slot := fieldSlot(e.Field)
				if s.opened[slot] > 0 {
					s.text(e.Field, 0, "\n\n")
				}
				s.opened[slot]++
			case harmony.FieldToolCalls:
				s.flushPending()
				s.calls++
				s.out.callOpen(e.Index, s.out.c.newCallID("call_"), e.Name)
			}
		case harmony.EventRegionChunk:
			if e.Text != "" {
				s.text(e.Field, e.Index, e.Text)
			}
		}
	}
	s.flushPending()
}

func (s *streamer) text(field harmony.Field, index int, text string) {
	if s.pendKind == field && s.pendIdx == index {
		s.pendText += text
		return
	}
	s.flushPending()
	s.pendKind, s.pendIdx, s.pendText = field, index, text
}

func (s *streamer) flushPending() {
	switch s.pendKind {
	case "":
		return
	case harmony.FieldThinking:
		s.out.reasoning(s.pendText)
	case harmony.FieldContent:
		s.out.content(s.pendText)
	case harmony.FieldToolCalls:
		s.out.callArguments(s.pendIdx, s.pendText)
	}
	s.pendKind, s.pendText = "", ""
}

// chatCompletion is a chat.completion object, or a chat.completion.chunk
// (chatChunk).
type chatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage,omitempty"`
}

// chatChoice is a choice of a completion (Message) or of a chunk (Delta).
type chatChoice struct {
	Index   int          `json:"index"`
	Message *chatMessage `json:"message,omitempty"`
	Delta   *chatDelta   `json:"delta,omitempty"`
	// Logprobs is always null.
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
}

// chatMessage is the assistant message of a completion. Content is null
// when the message only makes tool calls.
type chatMessage struct {
	Role             string         `json:"role"`
	Content          *string        `json:"content"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	Reasoning        *string        `json:"reasoning,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
}

// chatDelta is what a chunk adds to the message.
type chatDelta struct {
	Role             string         `json:"role,omitempty"`
	Content          *string        `json:"content,omitempty"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	Reasoning        *string        `json:"reasoning,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
}

// chatToolCall is a tool call of a message, or a piece of one in a delta
// (Index set; ID, Type and Name only in its first piece).
type chatToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      *string `json:"name,omitempty"`
	Arguments string  `json:"arguments"`
}

// chatUsage is a reply's token counts.
type chatUsage struct {
	PromptTokens        int64              `json:"prompt_tokens"`
	CompletionTokens    int64              `json:"completion_tokens"`
	TotalTokens         int64              `json:"total_tokens"`
	PromptTokensDetails *chatPromptDetails `json:"prompt_tokens_details,omitempty"`
}

type chatPromptDetails struct {
	CachedTokens int64 `json:"cached_tokens"`
}

// chatChunk is a chat.completion.chunk. Usage is null in every chunk of
// a stream that asked for usage but its last, and absent when it did not
// ask.
type chatChunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []chatChoice    `json:"choices"`
	Usage   json.RawMessage `json:"usage,omitempty"`
}

// newChatUsage is the usage object of u.
func newChatUsage(u *usage) *chatUsage {
	cu := &chatUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if cu.TotalTokens == 0 {
		cu.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	if u.CachedKnown {
		cu.PromptTokensDetails = &chatPromptDetails{CachedTokens: u.CachedTokens}
	}
	return cu
}

// reasoningText returns the reasoning fields the server writes for text.
func reasoningText(f ReasoningFields, text string) (reasoningContent, reasoning *string) {
	if f != ReasoningOnly {
		reasoningContent = &text
	}
	if f != ReasoningContentOnly {
		reasoning = &text
	}
	return reasoningContent, reasoning
}

// newChatCompletion is the chat.completion object for the parsed message.
func (c *exchange) newChatCompletion(m *harmony.Message, finish string) *chatCompletion {
	msg := &chatMessage{Role: "assistant", Content: &m.Content}
	if m.Content == "" && len(m.ToolCalls) > 0 {
		msg.Content = nil
	}
	if m.Reasoning != "" {
		msg.ReasoningContent, msg.Reasoning = reasoningText(c.s.cfg.ReasoningFields, m.Reasoning)
	}
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		args := string(tc.Function.Arguments)
		if args == "" {
			args = "{}"
		}
		msg.ToolCalls = append(msg.ToolCalls, chatToolCall{ID: c.newCallID("call_"), Type: "function",
			Function: chatFunction{Name: &tc.Function.Name, Arguments: args}})
	}
	cc := &chatCompletion{ID: c.chatID, Object: "chat.completion", Created: c.created, Model: c.model,
		Choices: []chatChoice{{Message: msg, FinishReason: &finish}}}
	if c.usage != nil {
		cc.Usage = newChatUsage(c.usage)
	}
	return cc
}
