package serve

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/beamharmony/harmony"
)

// Replies of the Responses API: the response object and its stream of
// events, each with its sequence_number.

// responseStatus is the response's status and incomplete_details for how
// the generation ended.
func (end genEnd) responseStatus() (status, incomplete string) {
	if end.finish == "length" {
		return "incomplete", "max_output_tokens"
	}
	return "completed", ""
}

// newResponse is the response object with the given status and output
// items (responseReasoningItem, responseMessageItem and responseCallItem
// values); failure, when set, is its error. It echoes the client's
// tools, tool_choice and text.format (encoding/json compacts them: gap
// decision 94).
func (rr *responsesReply) newResponse(c *exchange, status, incomplete string, output []any, failure *apiError) *responseReply {
	r := &responseReply{ID: c.chatID, Object: "response", CreatedAt: c.created, Status: status,
		Instructions: optString(rr.instructions), MaxOutputTokens: rr.maxOutputTokens, Model: c.model,
		Output: output, ParallelToolCalls: rr.parallel, Reasoning: responseReasoning{Effort: optString(rr.effort)},
		Temperature: rr.req.temperature, Text: responseTextConfig{Format: rr.textFormat},
		ToolChoice: rr.toolChoice, Tools: rr.tools, TopP: rr.req.topP, Truncation: "disabled",
		Store: rr.store, PreviousResponseID: optString(rr.previous)}
	if r.Output == nil {
		r.Output = []any{}
	}
	if failure != nil {
		code := "server_error"
		if failure.status == http.StatusGatewayTimeout {
			code = "timeout"
		}
		r.Error = &responseError{Code: code, Message: failure.msg}
	}
	if incomplete != "" {
		r.IncompleteDetails = &responseIncomplete{Reason: incomplete}
	}
	if isNull(r.Text.Format) {
		r.Text.Format = json.RawMessage(`{"type":"text"}`)
	}
	if isNull(r.ToolChoice) {
		r.ToolChoice = json.RawMessage(`"auto"`)
	}
	if isNull(r.Tools) {
		r.Tools = json.RawMessage("[]")
	}
	if u := c.usage; u != nil {
		r.Usage = &responseUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens,
			TotalTokens: u.PromptTokens + u.CompletionTokens}
		if u.CachedKnown {
			r.Usage.InputTokensDetails = &responseInputDetails{CachedTokens: u.CachedTokens}
		}
	}
	return r
}

// newReasoningItem is a reasoning output item: the text as
// reasoning_text content, and sealed in encrypted_content, which is what
// clients that send back only encrypted_content (Codex) return.
func newReasoningItem(sg *signer, id, text, status string) *responseReasoningItem {
	sealed := sg.seal(text)
	return &responseReasoningItem{ID: id, Type: "reasoning", Summary: []responseText{},
		Content: []responseText{{Type: "reasoning_text", Text: text}}, EncryptedContent: &sealed, Status: status}
}

// newOutputText is an output_text part.
func newOutputText(text string) responseOutputText {
	return responseOutputText{Type: "output_text", Text: text, Annotations: []json.RawMessage{}, Logprobs: []json.RawMessage{}}
}

// newMessageItem is an assistant message item; a nil text means no
// content part yet.
func newMessageItem(id string, text *string, status string) *responseMessageItem {
	m := &responseMessageItem{ID: id, Type: "message", Status: status, Role: "assistant", Content: []responseOutputText{}}
	if text != nil {
		m.Content = append(m.Content, newOutputText(*text))
	}
	return m
}

// newCallItem is a function_call item; namespace is the namespace tool
// the function came from, or "".
func newCallItem(id, callID, name, namespace, args, status string) *responseCallItem {
	return &responseCallItem{ID: id, Type: "function_call", Status: status, CallID: callID, Name: name, Namespace: namespace, Arguments: args}
}

// complete writes the response object: a reasoning item, then a message
// or one function_call item per call.
func (rr *responsesReply) complete(w http.ResponseWriter, c *exchange, p *harmony.Parsed, end genEnd) {
	msg := &p.Message
	status, incomplete := end.responseStatus()
	c.finish = status
	out := make([]any, 0, 2+len(msg.ToolCalls))
	out = append(out, rr.searchItems(c)...)
	if msg.Reasoning != "" {
		out = append(out, newReasoningItem(c.s.signer, newID("rs_"), msg.Reasoning, "completed"))
	}
	if msg.Content != "" || len(msg.ToolCalls) == 0 && !c.searchStopped() {
		out = append(out, newMessageItem(newID("msg_"), &msg.Content, "completed"))
	}
	for i := range msg.ToolCalls {
		tc := &msg.ToolCalls[i]
		args := string(tc.Function.Arguments)
		if args == "" {
			args = "{}"
		}
		out = append(out, newCallItem(newID("fc_"), c.newCallID("call_"), tc.Function.Name, rr.namespaceOf(tc.Function.Name), args, "completed"))
	}
	writeJSON(w, rr.newResponse(c, status, incomplete, out, nil))
	c.rememberItems(out)
}

func (rr *responsesReply) stream(w http.ResponseWriter, c *exchange) streamSink {
	return &responsesStream{sseWriter: newSSEWriter(w), c: c, rr: rr, regionBlocks: regionBlocks{index: -1}}
}

// responsesStream writes the Responses API's events: response.created
// and response.in_progress, then per output item output_item.added, its
// content part and deltas, their done events and output_item.done, and
// last response.completed (or .incomplete, or .failed). Parser regions of
// one kind that follow each other share an item, joined by "\n\n".
type responsesStream struct {
	sseWriter
	regionBlocks
	c  *exchange
	rr *responsesReply
	// The open item's ids and, for a call, its name.
	id     string
	callID string
	name   string
	// done holds the finished items, for the final response object.
	done []any
}

func (s *responsesStream) started() bool { return s.begun }

// event opens an event: its name, and the data's type and sequence
// number; the caller appends the other members and the closing brace.
func (s *responsesStream) event(name string) {
	seq := s.events
	s.open(name)
	s.buf = append(s.buf, `{"type":`...)
	s.buf = appendString(s.buf, name)
	s.buf = append(s.buf, `,"sequence_number":`...)
	s.buf = strconv.AppendInt(s.buf, int64(seq), 10)
}

func (s *responsesStream) start() {
	if s.begun {
		return
	}
	s.begin()
	for _, name := range [...]string{"response.created", "response.in_progress"} {
		s.event(name)
		s.buf = append(s.buf, `,"response":`...)
		s.buf = appendJSON(s.buf, s.rr.newResponse(s.c, "in_progress", "", nil, nil))
		s.buf = append(s.buf, '}')
		s.close()
	}
}

// keepAlive writes an SSE comment, which clients skip: the Responses API
// has no ping event.
func (s *responsesStream) keepAlive() { s.comment("keep-alive") }

func (s *responsesStream) emit(events []harmony.Event) { s.regionBlocks.emit(s, events) }

// itemRef appends the members naming the open item.
func (s *responsesStream) itemRef(withContent bool) {
	s.buf = append(s.buf, `,"item_id":`...)
	s.buf = appendString(s.buf, s.id)
	s.buf = append(s.buf, `,"output_index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
	if withContent {
		s.buf = append(s.buf, `,"content_index":0`...)
	}
}

func (s *responsesStream) writePending() {
	if s.pending.Len() == 0 {
		return
	}
	switch s.kind {
	case harmony.FieldThinking:
		s.event("response.reasoning_text.delta")
		s.itemRef(true)
	case harmony.FieldContent:
		s.event("response.output_text.delta")
		s.itemRef(true)
	default:
		s.event("response.function_call_arguments.delta")
		s.itemRef(false)
	}
	s.buf = append(s.buf, `,"delta":`...)
	s.buf = appendString(s.buf, s.pending.String())
	if s.kind == harmony.FieldContent {
		s.buf = append(s.buf, `,"logprobs":[]`...)
	}
	s.buf = append(s.buf, '}')
	s.close()
	s.pending.Reset()
}

// item is the open item as it stands.
func (s *responsesStream) item(status string) any {
	switch s.kind {
	case harmony.FieldThinking:
		if status == "in_progress" {
			return &responseReasoningItem{ID: s.id, Type: "reasoning", Summary: []responseText{}, Content: []responseText{}, Status: status}
		}
		return newReasoningItem(s.c.s.signer, s.id, s.text.String(), status)
	case harmony.FieldContent:
		if status == "in_progress" {
			return newMessageItem(s.id, nil, status)
		}
		text := s.text.String()
		return newMessageItem(s.id, &text, status)
	}
	return newCallItem(s.id, s.callID, s.name, s.rr.namespaceOf(s.name), s.text.String(), status)
}

// part is the open item's content part.
func (s *responsesStream) part(text string) any {
	if s.kind == harmony.FieldThinking {
		return &responseText{Type: "reasoning_text", Text: text}
	}
	p := newOutputText(text)
	return &p
}

func (s *responsesStream) startBlock(e *harmony.Event) {
	switch e.Field {
	case harmony.FieldThinking:
		s.id = newID("rs_")
	case harmony.FieldContent:
		s.id = newID("msg_")
	default:
		s.id, s.callID, s.name = newID("fc_"), s.c.newCallID("call_"), e.Name
	}
	s.event("response.output_item.added")
	s.buf = append(s.buf, `,"output_index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
	s.buf = append(s.buf, `,"item":`...)
	s.buf = appendJSON(s.buf, s.item("in_progress"))
	s.buf = append(s.buf, '}')
	s.close()
	if e.Field != harmony.FieldToolCalls {
		s.event("response.content_part.added")
		s.itemRef(true)
		s.buf = append(s.buf, `,"part":`...)
		s.buf = appendJSON(s.buf, s.part(""))
		s.buf = append(s.buf, '}')
		s.close()
	}
}

// finishBlock writes the open item's done events.
func (s *responsesStream) finishBlock() {
	text := s.text.String()
	switch s.kind {
	case harmony.FieldThinking, harmony.FieldContent:
		if s.kind == harmony.FieldThinking {
			s.event("response.reasoning_text.done")
		} else {
			s.event("response.output_text.done")
		}
		s.itemRef(true)
		s.buf = append(s.buf, `,"text":`...)
		s.buf = appendString(s.buf, text)
		if s.kind == harmony.FieldContent {
			s.buf = append(s.buf, `,"logprobs":[]`...)
		}
		s.buf = append(s.buf, '}')
		s.close()
		s.event("response.content_part.done")
		s.itemRef(true)
		s.buf = append(s.buf, `,"part":`...)
		s.buf = appendJSON(s.buf, s.part(text))
		s.buf = append(s.buf, '}')
		s.close()
	default:
		if text == "" {
			s.text.WriteString("{}")
			text = "{}"
		}
		s.event("response.function_call_arguments.done")
		s.itemRef(false)
		s.buf = append(s.buf, `,"name":`...)
		s.buf = appendString(s.buf, s.name)
		s.buf = append(s.buf, `,"arguments":`...)
		s.buf = appendString(s.buf, text)
		s.buf = append(s.buf, '}')
		s.close()
	}
	item := s.item("completed")
	s.done = append(s.done, item)
	s.event("response.output_item.done")
	s.buf = append(s.buf, `,"output_index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
	s.buf = append(s.buf, `,"item":`...)
	s.buf = appendJSON(s.buf, item)
	s.buf = append(s.buf, '}')
	s.close()
}

func (s *responsesStream) end(e genEnd) {
	s.finish(s)
	status, incomplete := e.responseStatus()
	s.c.finish = status
	s.event("response." + status)
	s.buf = append(s.buf, `,"response":`...)
	s.buf = appendJSON(s.buf, s.rr.newResponse(s.c, status, incomplete, s.done, nil))
	s.buf = append(s.buf, '}')
	s.close()
	s.c.rememberItems(s.done)
}

func (s *responsesStream) fail(e *apiError) {
	s.event("response.failed")
	s.buf = append(s.buf, `,"response":`...)
	s.buf = appendJSON(s.buf, s.rr.newResponse(s.c, "failed", "", s.done, e))
	s.buf = append(s.buf, '}')
	s.close()
}

// OpenAI Responses. The response object (newResponse), its output
// items and content parts are encoded with encoding/json, in the
// non-streamed reply and in the stream's events alike; the events
// themselves are appended by hand, and wire_events_test.go checks each kind
// against these structs.

// responseReply is a response object.
type responseReply struct {
	ID                string              `json:"id"`
	Object            string              `json:"object"`
	CreatedAt         int64               `json:"created_at"`
	Status            string              `json:"status"`
	Error             *responseError      `json:"error"`
	IncompleteDetails *responseIncomplete `json:"incomplete_details"`
	Instructions      *string             `json:"instructions"`
	MaxOutputTokens   json.RawMessage     `json:"max_output_tokens"`
	Model             string              `json:"model"`
	// Output holds responseReasoningItem, responseMessageItem and
	// responseCallItem values.
	Output             []any              `json:"output"`
	ParallelToolCalls  bool               `json:"parallel_tool_calls"`
	PreviousResponseID *string            `json:"previous_response_id"`
	Reasoning          responseReasoning  `json:"reasoning"`
	Store              bool               `json:"store"`
	Temperature        json.RawMessage    `json:"temperature"`
	Text               responseTextConfig `json:"text"`
	ToolChoice         json.RawMessage    `json:"tool_choice"`
	Tools              json.RawMessage    `json:"tools"`
	TopP               json.RawMessage    `json:"top_p"`
	Truncation         string             `json:"truncation"`
	Usage              *responseUsage     `json:"usage"`
	Metadata           struct{}           `json:"metadata"`
}

type responseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type responseIncomplete struct {
	Reason string `json:"reason"`
}

type responseReasoning struct {
	Effort  *string `json:"effort"`
	Summary *string `json:"summary"`
}

type responseTextConfig struct {
	Format json.RawMessage `json:"format"`
}

type responseUsage struct {
	InputTokens        int64                 `json:"input_tokens"`
	InputTokensDetails *responseInputDetails `json:"input_tokens_details,omitempty"`
	OutputTokens       int64                 `json:"output_tokens"`
	TotalTokens        int64                 `json:"total_tokens"`
}

type responseInputDetails struct {
	CachedTokens int64 `json:"cached_tokens"`
}

// responseReasoningItem is a reasoning output item; EncryptedContent is
// absent while it is in progress.
type responseReasoningItem struct {
	ID               string         `json:"id"`
	Type             string         `json:"type"`
	Summary          []responseText `json:"summary"`
	Content          []responseText `json:"content"`
	EncryptedContent *string        `json:"encrypted_content,omitempty"`
	Status           string         `json:"status"`
}

// responseText is a reasoning_text part.
type responseText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// responseMessageItem is an assistant message output item.
type responseMessageItem struct {
	ID      string               `json:"id"`
	Type    string               `json:"type"`
	Status  string               `json:"status"`
	Role    string               `json:"role"`
	Content []responseOutputText `json:"content"`
}

// responseOutputText is an output_text part.
type responseOutputText struct {
	Type        string            `json:"type"`
	Text        string            `json:"text"`
	Annotations []json.RawMessage `json:"annotations"`
	Logprobs    []json.RawMessage `json:"logprobs"`
}

// responseCallItem is a function_call output item.
type responseCallItem struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Status string `json:"status"`
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	// Namespace names the namespace tool the function belongs to, as
	// OpenAI's Responses API writes a call to a namespaced function.
	Namespace string `json:"namespace,omitempty"`
	Arguments string `json:"arguments"`
}

// responseEvent is the data of a Responses stream event.
type responseEvent struct {
	Type           string         `json:"type"`
	SequenceNumber int            `json:"sequence_number"`
	Response       *responseReply `json:"response,omitempty"`
	ItemID         string         `json:"item_id,omitempty"`
	OutputIndex    *int           `json:"output_index,omitempty"`
	ContentIndex   *int           `json:"content_index,omitempty"`
	// Item is an output item; Part a responseText or responseOutputText.
	Item      any                `json:"item,omitempty"`
	Part      any                `json:"part,omitempty"`
	Delta     *string            `json:"delta,omitempty"`
	Text      *string            `json:"text,omitempty"`
	Name      string             `json:"name,omitempty"`
	Arguments *string            `json:"arguments,omitempty"`
	Logprobs  *[]json.RawMessage `json:"logprobs,omitempty"`
}
