package serve

import (
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

// appendResponse appends the response object with the given status and
// output items (a JSON list's members, comma-separated); failure, when
// set, is its error.
func (rr *responsesReply) appendResponse(dst []byte, c *exchange, status, incomplete string, output []byte, failure *apiError) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, c.chatID)
	dst = append(dst, `,"object":"response","created_at":`...)
	dst = appendInt(dst, c.created)
	dst = append(dst, `,"status":`...)
	dst = appendString(dst, status)
	dst = append(dst, `,"error":`...)
	if failure != nil {
		dst = append(dst, `{"code":`...)
		code := "server_error"
		if failure.status == http.StatusGatewayTimeout {
			code = "timeout"
		}
		dst = appendString(dst, code)
		dst = append(dst, `,"message":`...)
		dst = appendString(dst, failure.msg)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"incomplete_details":`...)
	if incomplete != "" {
		dst = append(dst, `{"reason":`...)
		dst = appendString(dst, incomplete)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"instructions":`...)
	dst = appendOptString(dst, rr.instructions)
	dst = append(dst, `,"max_output_tokens":`...)
	dst = appendRaw(dst, rr.maxOutputTokens)
	dst = append(dst, `,"model":`...)
	dst = appendString(dst, c.model)
	dst = append(dst, `,"output":[`...)
	dst = append(dst, output...)
	dst = append(dst, `],"parallel_tool_calls":`...)
	dst = strconv.AppendBool(dst, rr.parallel)
	dst = append(dst, `,"previous_response_id":null,"reasoning":{"effort":`...)
	dst = appendOptString(dst, rr.effort)
	dst = append(dst, `,"summary":null},"store":false,"temperature":`...)
	dst = appendRaw(dst, rr.req.temperature)
	dst = append(dst, `,"text":{"format":`...)
	if isNull(rr.textFormat) {
		dst = append(dst, `{"type":"text"}`...)
	} else {
		dst = append(dst, rr.textFormat...)
	}
	dst = append(dst, `},"tool_choice":`...)
	if isNull(rr.toolChoice) {
		dst = append(dst, `"auto"`...)
	} else {
		dst = append(dst, rr.toolChoice...)
	}
	dst = append(dst, `,"tools":`...)
	if isNull(rr.tools) {
		dst = append(dst, "[]"...)
	} else {
		dst = append(dst, rr.tools...)
	}
	dst = append(dst, `,"top_p":`...)
	dst = appendRaw(dst, rr.req.topP)
	dst = append(dst, `,"truncation":"disabled","usage":`...)
	if c.usage != nil {
		u := c.usage
		dst = append(dst, `{"input_tokens":`...)
		dst = appendInt(dst, u.PromptTokens)
		if u.CachedKnown {
			dst = append(dst, `,"input_tokens_details":{"cached_tokens":`...)
			dst = appendInt(dst, u.CachedTokens)
			dst = append(dst, '}')
		}
		dst = append(dst, `,"output_tokens":`...)
		dst = appendInt(dst, u.CompletionTokens)
		dst = append(dst, `,"total_tokens":`...)
		dst = appendInt(dst, u.PromptTokens+u.CompletionTokens)
		dst = append(dst, '}')
	} else {
		dst = append(dst, "null"...)
	}
	return append(dst, `,"metadata":{}}`...)
}

// appendRaw appends a raw JSON value, or null when it is absent.
func appendRaw(dst []byte, raw []byte) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, raw...)
}

// appendReasoningItem appends a reasoning output item: the text as
// reasoning_text content, and sealed in encrypted_content, which is what
// clients that send back only encrypted_content (Codex) return.
func appendReasoningItem(dst []byte, sg *signer, id, text, status string) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, id)
	dst = append(dst, `,"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":`...)
	dst = appendString(dst, text)
	dst = append(dst, `}],"encrypted_content":`...)
	dst = appendString(dst, sg.seal(text))
	dst = append(dst, `,"status":`...)
	dst = appendString(dst, status)
	return append(dst, '}')
}

// appendOutputText appends an output_text part.
func appendOutputText(dst []byte, text string) []byte {
	dst = append(dst, `{"type":"output_text","text":`...)
	dst = appendString(dst, text)
	return append(dst, `,"annotations":[],"logprobs":[]}`...)
}

// appendMessageItem appends an assistant message item; a nil text means
// no content part yet.
func appendMessageItem(dst []byte, id string, text *string, status string) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, id)
	dst = append(dst, `,"type":"message","status":`...)
	dst = appendString(dst, status)
	dst = append(dst, `,"role":"assistant","content":[`...)
	if text != nil {
		dst = appendOutputText(dst, *text)
	}
	return append(dst, "]}"...)
}

// appendCallItem appends a function_call item.
func appendCallItem(dst []byte, id, callID, name, args, status string) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, id)
	dst = append(dst, `,"type":"function_call","status":`...)
	dst = appendString(dst, status)
	dst = append(dst, `,"call_id":`...)
	dst = appendString(dst, callID)
	dst = append(dst, `,"name":`...)
	dst = appendString(dst, name)
	dst = append(dst, `,"arguments":`...)
	dst = appendString(dst, args)
	return append(dst, '}')
}

// complete writes the response object: a reasoning item, then a message
// or one function_call item per call.
func (rr *responsesReply) complete(w http.ResponseWriter, c *exchange, p *harmony.Parsed, end genEnd) {
	msg := &p.Message
	status, incomplete := end.responseStatus()
	c.finish = status
	out := make([]byte, 0, 256+2*(len(msg.Content)+len(msg.Reasoning)))
	if msg.Reasoning != "" {
		out = appendReasoningItem(out, c.s.signer, newID("rs_"), msg.Reasoning, "completed")
	}
	if msg.Content != "" || len(msg.ToolCalls) == 0 {
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = appendMessageItem(out, newID("msg_"), &msg.Content, "completed")
	}
	for i := range msg.ToolCalls {
		tc := &msg.ToolCalls[i]
		if len(out) > 0 {
			out = append(out, ',')
		}
		args := string(tc.Function.Arguments)
		if args == "" {
			args = "{}"
		}
		out = appendCallItem(out, newID("fc_"), newID("call_"), tc.Function.Name, args, "completed")
	}
	b := rr.appendResponse(make([]byte, 0, len(out)+1024), c, status, incomplete, out, nil)
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func (rr *responsesReply) stream(w http.ResponseWriter, c *exchange) streamSink {
	return &responsesStream{sseOut: newSSEOut(w), c: c, rr: rr, regionBlocks: regionBlocks{index: -1}}
}

// responsesStream writes the Responses API's events: response.created
// and response.in_progress, then per output item output_item.added, its
// content part and deltas, their done events and output_item.done, and
// last response.completed (or .incomplete, or .failed). Parser regions of
// one kind that follow each other share an item, joined by "\n\n".
type responsesStream struct {
	sseOut
	regionBlocks
	c  *exchange
	rr *responsesReply
	// The open item's ids and, for a call, its name.
	id     string
	callID string
	name   string
	// done holds the finished items, for the final response object.
	done []byte
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
		s.buf = s.rr.appendResponse(s.buf, s.c, "in_progress", "", nil, nil)
		s.buf = append(s.buf, '}')
		s.close()
	}
}

// keepAlive writes an SSE comment, which clients skip: the Responses API
// has no ping event.
func (s *responsesStream) keepAlive() { s.buf = append(s.buf, ": keep-alive\n\n"...) }

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

// appendItem appends the open item as it stands.
func (s *responsesStream) appendItem(dst []byte, status string) []byte {
	switch s.kind {
	case harmony.FieldThinking:
		if status == "in_progress" {
			dst = append(dst, `{"id":`...)
			dst = appendString(dst, s.id)
			return append(dst, `,"type":"reasoning","summary":[],"content":[],"status":"in_progress"}`...)
		}
		return appendReasoningItem(dst, s.c.s.signer, s.id, s.text.String(), status)
	case harmony.FieldContent:
		if status == "in_progress" {
			return appendMessageItem(dst, s.id, nil, status)
		}
		text := s.text.String()
		return appendMessageItem(dst, s.id, &text, status)
	}
	return appendCallItem(dst, s.id, s.callID, s.name, s.text.String(), status)
}

// appendPart appends the open item's content part.
func (s *responsesStream) appendPart(dst []byte, text string) []byte {
	if s.kind == harmony.FieldThinking {
		dst = append(dst, `{"type":"reasoning_text","text":`...)
		dst = appendString(dst, text)
		return append(dst, '}')
	}
	return appendOutputText(dst, text)
}

func (s *responsesStream) startBlock(e *harmony.Event) {
	switch e.Field {
	case harmony.FieldThinking:
		s.id = newID("rs_")
	case harmony.FieldContent:
		s.id = newID("msg_")
	default:
		s.id, s.callID, s.name = newID("fc_"), newID("call_"), e.Name
	}
	s.event("response.output_item.added")
	s.buf = append(s.buf, `,"output_index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
	s.buf = append(s.buf, `,"item":`...)
	s.buf = s.appendItem(s.buf, "in_progress")
	s.buf = append(s.buf, '}')
	s.close()
	if e.Field != harmony.FieldToolCalls {
		s.event("response.content_part.added")
		s.itemRef(true)
		s.buf = append(s.buf, `,"part":`...)
		s.buf = s.appendPart(s.buf, "")
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
		s.buf = s.appendPart(s.buf, text)
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
	if len(s.done) > 0 {
		s.done = append(s.done, ',')
	}
	s.done = s.appendItem(s.done, "completed")
	s.event("response.output_item.done")
	s.buf = append(s.buf, `,"output_index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
	s.buf = append(s.buf, `,"item":`...)
	s.buf = s.appendItem(s.buf, "completed")
	s.buf = append(s.buf, '}')
	s.close()
}

func (s *responsesStream) end(e genEnd) {
	s.finish(s)
	status, incomplete := e.responseStatus()
	s.c.finish = status
	s.event("response." + status)
	s.buf = append(s.buf, `,"response":`...)
	s.buf = s.rr.appendResponse(s.buf, s.c, status, incomplete, s.done, nil)
	s.buf = append(s.buf, '}')
	s.close()
}

func (s *responsesStream) fail(e *apiError) {
	s.event("response.failed")
	s.buf = append(s.buf, `,"response":`...)
	s.buf = s.rr.appendResponse(s.buf, s.c, "failed", "", s.done, e)
	s.buf = append(s.buf, '}')
	s.close()
}
