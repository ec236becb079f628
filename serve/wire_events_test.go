package serve

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// The streamed events of the Messages and Responses APIs are appended by
// hand. These tests write each kind with the streams' own methods and
// compare it, byte for byte, with json.Marshal of the typed struct built
// here from what the event must say, as TestChatChunksAreTyped does for
// the chat chunks: a member missing, added, reordered or escaped
// differently fails them.

// wireText needs escaping of every sort: quotes, a newline, a marker,
// control characters, U+2028, HTML characters and a non-ASCII letter.
const wireText = "a \"quoted\"\n<|call|>\b\x01\u2028 <&> é"

// eventOut returns the one event a write appended to buf (emptied
// after), failing t unless there is exactly one, with its name.
func eventOut(t *testing.T, o *sseWriter, kind string) (name string, data []byte) {
	t.Helper()
	evs := bytes.Split(bytes.TrimSuffix(o.buf, []byte("\n\n")), []byte("\n\n"))
	if len(evs) != 1 || !bytes.HasSuffix(o.buf, []byte("\n\n")) {
		t.Fatalf("%s: not one event: %q", kind, o.buf)
	}
	n, d, ok := bytes.Cut(evs[0], []byte("\ndata: "))
	name, found := strings.CutPrefix(string(n), "event: ")
	if !ok || !found || bytes.Contains(d, []byte("\n")) {
		t.Fatalf("%s: not an event: %q", kind, o.buf)
	}
	o.buf = o.buf[:0]
	return name, d
}

// sameEvent fails t unless the event named name with data is want
// encoded by json.Marshal, its name being want's type.
func sameEvent(t *testing.T, kind, name string, data []byte, wantName string, want any) {
	t.Helper()
	if name != wantName {
		t.Errorf("%s: event %q, want %q", kind, name, wantName)
	}
	if w := marshal(t, want); !bytes.Equal(data, w) {
		t.Errorf("%s:\nwritten %s\ntyped   %s", kind, data, w)
	}
}

// idOf returns the string at a path of members of a JSON object.
func idOf(t *testing.T, data []byte, path ...string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

func wireExchange() *exchange {
	return &exchange{s: &Server{signer: newSigner("k")}, chatID: "msg_1", created: 1700000000, model: "beam <&>"}
}

func TestMessagesEventsAreTyped(t *testing.T) {
	c := wireExchange()
	s := &messagesStream{sseWriter: newSSEWriter(httptest.NewRecorder()), c: c, regionBlocks: regionBlocks{index: -1}}
	s.begun = true // no headers: the writer is not used
	text, empty, two := wireText, "", 2
	sig := c.s.signer.sign(text)
	block := func(typ string, d *anthropicBlockDelta) *anthropicEvent {
		d.Type = typ
		return &anthropicEvent{Type: "content_block_delta", Index: &two, Delta: d}
	}
	s.index = 2
	for _, tt := range []struct {
		kind  string
		field harmony.Field
		want  replyBlock
	}{
		{"start thinking", harmony.FieldThinking, replyBlock{Type: "thinking", Thinking: &empty, Signature: &empty}},
		{"start text", harmony.FieldContent, replyBlock{Type: "text", Text: &empty}},
		{"start tool_use", harmony.FieldToolCalls, replyBlock{Type: "tool_use", Name: "get_weather <&>", Input: json.RawMessage("{}")}},
	} {
		s.startBlock(&harmony.Event{Type: harmony.EventRegionOpen, Field: tt.field, Name: "get_weather <&>"})
		name, data := eventOut(t, &s.sseWriter, tt.kind)
		if tt.field == harmony.FieldToolCalls {
			tt.want.ID = idOf(t, data, "content_block", "id")
			if !strings.HasPrefix(tt.want.ID, "toolu_") {
				t.Errorf("%s: id %q", tt.kind, tt.want.ID)
			}
		}
		sameEvent(t, tt.kind, name, data, "content_block_start", &anthropicEvent{Type: "content_block_start", Index: &two, ContentBlock: &tt.want})
	}
	for _, tt := range []struct {
		kind  string
		field harmony.Field
		want  *anthropicEvent
	}{
		{"thinking_delta", harmony.FieldThinking, block("thinking_delta", &anthropicBlockDelta{Thinking: &text})},
		{"text_delta", harmony.FieldContent, block("text_delta", &anthropicBlockDelta{Text: &text})},
		{"input_json_delta", harmony.FieldToolCalls, block("input_json_delta", &anthropicBlockDelta{PartialJSON: &text})},
	} {
		s.kind = tt.field
		s.pending.WriteString(text)
		s.writePending()
		name, data := eventOut(t, &s.sseWriter, tt.kind)
		sameEvent(t, tt.kind, name, data, "content_block_delta", tt.want)
	}
	// A thinking block ends with its signature, then content_block_stop.
	s.kind = harmony.FieldThinking
	s.text.Reset()
	s.text.WriteString(text)
	s.finishBlock()
	evs := bytes.SplitAfter(s.buf, []byte("\n\n"))
	if len(evs) != 3 {
		t.Fatalf("end of a thinking block: %q", s.buf)
	}
	s.buf = evs[0]
	name, data := eventOut(t, &s.sseWriter, "signature_delta")
	sameEvent(t, "signature_delta", name, data, "content_block_delta", block("signature_delta", &anthropicBlockDelta{Signature: &sig}))
	s.buf = evs[1]
	name, data = eventOut(t, &s.sseWriter, "content_block_stop")
	sameEvent(t, "content_block_stop", name, data, "content_block_stop", &anthropicEvent{Type: "content_block_stop", Index: &two})

	stop := "STOP <&>"
	cached := int64(10)
	for _, tt := range []struct {
		kind string
		end  genEnd
		u    *usage
		want anthropicEvent
	}{
		{"message_delta end_turn", genEnd{}, nil, anthropicEvent{Delta: &anthropicMessageDelta{StopReason: "end_turn"}, Usage: &anthropicUsage{}}},
		{"message_delta stop_sequence", genEnd{stop: stop}, &usage{PromptTokens: 30, CompletionTokens: 5, CachedTokens: 10, CachedKnown: true},
			anthropicEvent{Delta: &anthropicMessageDelta{StopReason: "stop_sequence", StopSequence: &stop},
				Usage: &anthropicUsage{InputTokens: 20, CacheReadInputTokens: &cached, OutputTokens: 5}}},
		{"message_delta max_tokens", genEnd{finish: "length"}, &usage{PromptTokens: 30, CompletionTokens: 5},
			anthropicEvent{Delta: &anthropicMessageDelta{StopReason: "max_tokens"}, Usage: &anthropicUsage{InputTokens: 30, OutputTokens: 5}}},
		{"message_delta tool_use", genEnd{calls: 1}, nil, anthropicEvent{Delta: &anthropicMessageDelta{StopReason: "tool_use"}, Usage: &anthropicUsage{}}},
	} {
		s.kind = ""
		c.usage = tt.u
		s.end(tt.end)
		evs := bytes.SplitAfter(s.buf, []byte("\n\n"))
		if len(evs) != 3 {
			t.Fatalf("%s: %q", tt.kind, s.buf)
		}
		s.buf = evs[0]
		name, data := eventOut(t, &s.sseWriter, tt.kind)
		tt.want.Type = "message_delta"
		sameEvent(t, tt.kind, name, data, "message_delta", &tt.want)
		s.buf = evs[1]
		name, data = eventOut(t, &s.sseWriter, "message_stop")
		sameEvent(t, "message_stop", name, data, "message_stop", &anthropicEvent{Type: "message_stop"})
	}
	c.usage = nil
	s.start()
	s.begun = false
	s.start()
	name, data = eventOut(t, &s.sseWriter, "message_start")
	sameEvent(t, "message_start", name, data, "message_start", &anthropicEvent{Type: "message_start",
		Message: &anthropicReply{ID: c.chatID, Type: "message", Role: "assistant", Model: c.model, Content: []replyBlock{}}})
	s.keepAlive()
	name, data = eventOut(t, &s.sseWriter, "ping")
	sameEvent(t, "ping", name, data, "ping", &anthropicEvent{Type: "ping"})
	s.fail(engineError("", text))
	name, data = eventOut(t, &s.sseWriter, "error")
	sameEvent(t, "error", name, data, "error", &anthropicError{Type: "error", Error: anthropicErrorBody{Type: "api_error", Message: text}})
}

func TestResponsesEventsAreTyped(t *testing.T) {
	c := wireExchange()
	c.chatID = "resp_1"
	temp := json.RawMessage("0.5")
	rr := &responsesReply{req: &request{temperature: temp}, instructions: "Be <brief>.", effort: "low", parallel: true,
		tools: json.RawMessage(`[{"type":"function","name":"f"}]`), maxOutputTokens: json.RawMessage("100")}
	s := &responsesStream{sseWriter: newSSEWriter(httptest.NewRecorder()), c: c, rr: rr, regionBlocks: regionBlocks{index: -1}}
	text, zero, three := wireText, 0, 3
	noLogprobs := &[]json.RawMessage{}
	// next returns the events a write appended, checking their number.
	next := func(kind string, n int) [][]byte {
		t.Helper()
		evs := bytes.SplitAfter(s.buf, []byte("\n\n"))
		if len(evs) != n+1 || len(evs[n]) != 0 {
			t.Fatalf("%s: want %d events: %q", kind, n, s.buf)
		}
		s.buf = s.buf[:0]
		return evs[:n]
	}
	check := func(kind string, ev []byte, want *responseEvent) {
		t.Helper()
		o := sseWriter{buf: ev}
		name, data := eventOut(t, &o, kind)
		sameEvent(t, kind, name, data, want.Type, want)
	}
	effort := "low"
	instructions := "Be <brief>."
	response := func(status string, output []any) *responseReply {
		return &responseReply{ID: "resp_1", Object: "response", CreatedAt: c.created, Status: status, Instructions: &instructions,
			MaxOutputTokens: json.RawMessage("100"), Model: c.model, Output: output, ParallelToolCalls: true,
			Reasoning: responseReasoning{Effort: &effort}, Temperature: temp, Text: responseTextConfig{Format: json.RawMessage(`{"type":"text"}`)},
			ToolChoice: json.RawMessage(`"auto"`), Tools: json.RawMessage(`[{"type":"function","name":"f"}]`), Truncation: "disabled"}
	}

	s.start()
	for i, ev := range next("start", 2) {
		typ := [...]string{"response.created", "response.in_progress"}[i]
		check(typ, ev, &responseEvent{Type: typ, SequenceNumber: i, Response: response("in_progress", []any{})})
	}

	s.index = 3
	var done []any
	for _, tt := range []struct {
		field                           harmony.Field
		delta, textDone                 string
		added, part, partDone, itemDone any
		withContent                     bool
		logprobs                        *[]json.RawMessage
	}{
		{field: harmony.FieldThinking, delta: "response.reasoning_text.delta", textDone: "response.reasoning_text.done", withContent: true,
			added: &responseReasoningItem{Type: "reasoning", Summary: []responseText{}, Content: []responseText{}, Status: "in_progress"},
			part:  &responseText{Type: "reasoning_text", Text: ""}, partDone: &responseText{Type: "reasoning_text", Text: text},
			itemDone: &responseReasoningItem{Type: "reasoning", Summary: []responseText{}, Content: []responseText{{Type: "reasoning_text", Text: text}},
				Status: "completed"}},
		{field: harmony.FieldContent, delta: "response.output_text.delta", textDone: "response.output_text.done", withContent: true, logprobs: noLogprobs,
			added:    &responseMessageItem{Type: "message", Status: "in_progress", Role: "assistant", Content: []responseOutputText{}},
			part:     &responseOutputText{Type: "output_text", Text: "", Annotations: []json.RawMessage{}, Logprobs: []json.RawMessage{}},
			partDone: &responseOutputText{Type: "output_text", Text: text, Annotations: []json.RawMessage{}, Logprobs: []json.RawMessage{}},
			itemDone: &responseMessageItem{Type: "message", Status: "completed", Role: "assistant",
				Content: []responseOutputText{{Type: "output_text", Text: text, Annotations: []json.RawMessage{}, Logprobs: []json.RawMessage{}}}}},
		{field: harmony.FieldToolCalls, delta: "response.function_call_arguments.delta", textDone: "response.function_call_arguments.done",
			added:    &responseCallItem{Type: "function_call", Status: "in_progress", Name: "get_weather <&>"},
			itemDone: &responseCallItem{Type: "function_call", Status: "completed", Name: "get_weather <&>", Arguments: text}},
	} {
		kind := string(tt.field)
		seq := s.events
		s.kind = tt.field
		s.startBlock(&harmony.Event{Type: harmony.EventRegionOpen, Field: tt.field, Name: "get_weather <&>"})
		evs := next(kind+" start", map[bool]int{true: 2, false: 1}[tt.part != nil])
		id := idOf(t, evs[0][bytes.Index(evs[0], []byte("data: "))+6:], "item", "id")
		callID := ""
		switch it := tt.added.(type) {
		case *responseReasoningItem:
			it.ID = id
			tt.itemDone.(*responseReasoningItem).ID = id
			sealed := c.s.signer.seal(text)
			tt.itemDone.(*responseReasoningItem).EncryptedContent = &sealed
		case *responseMessageItem:
			it.ID = id
			tt.itemDone.(*responseMessageItem).ID = id
		case *responseCallItem:
			callID = idOf(t, evs[0][bytes.Index(evs[0], []byte("data: "))+6:], "item", "call_id")
			it.ID, it.CallID = id, callID
			tt.itemDone.(*responseCallItem).ID, tt.itemDone.(*responseCallItem).CallID = id, callID
			if !strings.HasPrefix(callID, "call_") {
				t.Errorf("call_id %q", callID)
			}
		}
		if id == "" {
			t.Fatalf("%s: no item id in %q", kind, evs[0])
		}
		check(kind+" output_item.added", evs[0], &responseEvent{Type: "response.output_item.added", SequenceNumber: seq, OutputIndex: &three, Item: tt.added})
		var content *int
		if tt.withContent {
			content = &zero
		}
		if tt.part != nil {
			check(kind+" content_part.added", evs[1], &responseEvent{Type: "response.content_part.added", SequenceNumber: seq + 1,
				ItemID: id, OutputIndex: &three, ContentIndex: content, Part: tt.part})
		}

		seq = s.events
		s.pending.WriteString(text)
		s.text.WriteString(text)
		s.writePending()
		check(kind+" delta", next(kind+" delta", 1)[0], &responseEvent{Type: tt.delta, SequenceNumber: seq, ItemID: id, OutputIndex: &three,
			ContentIndex: content, Delta: &text, Logprobs: tt.logprobs})

		seq = s.events
		s.finishBlock()
		s.kind = ""
		if tt.part != nil {
			evs = next(kind+" done", 3)
			check(kind+" text done", evs[0], &responseEvent{Type: tt.textDone, SequenceNumber: seq, ItemID: id, OutputIndex: &three,
				ContentIndex: content, Text: &text, Logprobs: tt.logprobs})
			check(kind+" content_part.done", evs[1], &responseEvent{Type: "response.content_part.done", SequenceNumber: seq + 1,
				ItemID: id, OutputIndex: &three, ContentIndex: content, Part: tt.partDone})
		} else {
			evs = next(kind+" done", 2)
			name := "get_weather <&>"
			check(kind+" arguments done", evs[0], &responseEvent{Type: tt.textDone, SequenceNumber: seq, ItemID: id, OutputIndex: &three,
				Name: name, Arguments: &text})
		}
		check(kind+" output_item.done", evs[len(evs)-1], &responseEvent{Type: "response.output_item.done", SequenceNumber: s.events - 1,
			OutputIndex: &three, Item: tt.itemDone})
		done = append(done, tt.itemDone)
		s.text.Reset()
	}

	c.usage = &usage{PromptTokens: 30, CompletionTokens: 5, CachedTokens: 10, CachedKnown: true}
	for _, tt := range []struct {
		status string
		end    func()
		edit   func(r *responseReply)
	}{
		{"completed", func() { s.end(genEnd{}) }, func(r *responseReply) {
			r.Usage = &responseUsage{InputTokens: 30, InputTokensDetails: &responseInputDetails{CachedTokens: 10}, OutputTokens: 5, TotalTokens: 35}
		}},
		{"incomplete", func() { s.end(genEnd{finish: "length"}) }, func(r *responseReply) {
			r.IncompleteDetails = &responseIncomplete{Reason: "max_output_tokens"}
			r.Usage = &responseUsage{InputTokens: 30, InputTokensDetails: &responseInputDetails{CachedTokens: 10}, OutputTokens: 5, TotalTokens: 35}
		}},
		{"failed", func() { s.fail(timeoutError("1s")) }, func(r *responseReply) {
			r.Error = &responseError{Code: "timeout", Message: timeoutError("1s").msg}
			r.Usage = &responseUsage{InputTokens: 30, InputTokensDetails: &responseInputDetails{CachedTokens: 10}, OutputTokens: 5, TotalTokens: 35}
		}},
		{"failed", func() { c.usage = nil; s.fail(engineError("", text)) }, func(r *responseReply) {
			r.Error = &responseError{Code: "server_error", Message: text}
		}},
	} {
		seq := s.events
		tt.end()
		want := response(tt.status, done)
		tt.edit(want)
		check("response."+tt.status, next(tt.status, 1)[0], &responseEvent{Type: "response." + tt.status, SequenceNumber: seq, Response: want})
	}
	if s.keepAlive(); string(s.buf) != ": keep-alive\n\n" {
		t.Errorf("keep-alive %q", s.buf)
	}
}
