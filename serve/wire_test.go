package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
)

// marshal is json.Marshal with HTML characters left as they are, as
// writeJSON encodes.
func marshal(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestAppendString checks the hand-written string encoder of the
// streamed chunks against encoding/json, byte for byte.
func TestAppendString(t *testing.T) {
	var all []string
	for c := range 0x80 {
		all = append(all, string(rune(c)), "a"+string(rune(c))+"b")
	}
	all = append(all, "<|call|> & <b>", "\u2028\u2029", "é😀", "\xff", "a\xc3", "\xed\xa0\x80", "\ufffd", "")
	for _, s := range all {
		if got, want := appendString(nil, s), marshal(t, s); !bytes.Equal(got, want) {
			t.Errorf("appendString(%q) = %s, encoding/json: %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\b\f\n\x00\u2028<>&\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendString(nil, s), marshal(t, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, encoding/json: %s", s, got, want)
		}
	})
}

// sameJSON fails t unless got and want hold the same JSON value with the
// same member order.
func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w bytes.Buffer
	if err := json.Compact(&g, got); err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	if err := json.Compact(&w, want); err != nil {
		t.Fatalf("%s: %v in %s", what, err, want)
	}
	if !bytes.Equal(g.Bytes(), w.Bytes()) {
		t.Errorf("%s:\nwritten %s\ntyped   %s", what, g.Bytes(), w.Bytes())
	}
}

// sseData returns the data of each event in a stream.
func sseData(t *testing.T, stream []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, ev := range bytes.Split(bytes.TrimSuffix(stream, []byte("\n\n")), []byte("\n\n")) {
		for _, line := range bytes.Split(ev, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// TestChatChunksAreTyped checks each kind of chunk the chat stream writes
// by hand against json.Marshal of its chatChunk.
func TestChatChunksAreTyped(t *testing.T) {
	for _, wantUsage := range []bool{false, true} {
		for _, fields := range []ReasoningFields{ReasoningBoth, ReasoningContentOnly, ReasoningOnly} {
			c := &exchange{s: &Server{cfg: Config{ReasoningFields: fields}}, req: &request{wantUsage: wantUsage},
				chatID: "chatcmpl-1", created: 1700000000, model: "beam <&>"}
			o := newChunkWriter(nil, c)
			o.begun = true // no headers: the writer is not used
			chunk := func(d *chatDelta, finish *string) chatChunk {
				ch := chatChunk{ID: c.chatID, Object: "chat.completion.chunk", Created: c.created, Model: c.model,
					Choices: []chatChoice{{Delta: d, FinishReason: finish}}}
				if wantUsage {
					ch.Usage = json.RawMessage("null")
				}
				return ch
			}
			text := "a \"quoted\"\n<|call|>\b\x01\u2028é"
			empty, zero, one := "", 0, 1
			name := "get_weather"
			stop := "tool_calls"
			rc, r := reasoningText(fields, text)
			u := &usage{PromptTokens: 30, CompletionTokens: 5, CachedTokens: 10, CachedKnown: true}
			usageChunk := chatChunk{ID: c.chatID, Object: "chat.completion.chunk", Created: c.created, Model: c.model,
				Choices: []chatChoice{}, Usage: marshal(t, newChatUsage(u))}
			for _, tt := range []struct {
				kind  string
				write func()
				want  chatChunk
			}{
				{"role", func() {
					o.buf = append(o.buf, o.head...)
					o.buf = append(o.buf, `{"role":"assistant","content":""}`...)
					o.closeDelta()
				},
					chunk(&chatDelta{Role: "assistant", Content: &empty}, nil)},
				{"reasoning", func() { o.reasoning(text) }, chunk(&chatDelta{ReasoningContent: rc, Reasoning: r}, nil)},
				{"content", func() { o.content(text) }, chunk(&chatDelta{Content: &text}, nil)},
				{"call open", func() { o.callOpen(1, "call_1", name) }, chunk(&chatDelta{ToolCalls: []chatToolCall{{Index: &one,
					ID: "call_1", Type: "function", Function: chatFunction{Name: &name, Arguments: ""}}}}, nil)},
				{"call arguments", func() { o.callArguments(0, text) }, chunk(&chatDelta{ToolCalls: []chatToolCall{{Index: &zero,
					Function: chatFunction{Arguments: text}}}}, nil)},
				{"final", func() { o.final(stop) }, chunk(&chatDelta{}, &stop)},
				{"usage", func() { o.usage(u) }, usageChunk},
			} {
				o.buf = o.buf[:0]
				tt.write()
				data := sseData(t, o.buf)
				if len(data) != 1 || !bytes.HasSuffix(o.buf, []byte("\n\n")) || !bytes.HasPrefix(o.buf, []byte("data: ")) {
					t.Fatalf("%s: not one event: %q", tt.kind, o.buf)
				}
				want := marshal(t, tt.want)
				if !bytes.Equal(data[0], want) {
					t.Errorf("%s (usage %v, %v):\nwritten %s\ntyped   %s", tt.kind, wantUsage, fields, data[0], want)
				}
			}
		}
	}
}

// TestChatCompletionTyped checks the non-streamed reply's shape: a
// decoded reply has every member of chatCompletion and no other.
func TestChatCompletionTyped(t *testing.T) {
	fe := newFakeEngine(t, fixed(gen{text: callsText("Think.", scriptCall{"get_weather", [][2]string{{"city", "Paris <&>"}}})}))
	gw := newGateway(t, fe)
	_, raw := post(t, gw, `{"model":"beam","messages":[{"role":"user","content":"Weather?"}],
		"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}`)
	body := string(raw)
	var cc chatCompletion
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cc); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	sameJSON(t, "completion", []byte(body), marshal(t, &cc))
	if len(cc.Choices) != 1 || cc.Choices[0].Message == nil || len(cc.Choices[0].Message.ToolCalls) != 1 ||
		cc.Choices[0].Message.Content != nil || !utf8.ValidString(body) {
		t.Errorf("reply %s", body)
	}
	if !reflect.DeepEqual(*cc.Choices[0].FinishReason, "tool_calls") {
		t.Errorf("finish_reason %v", *cc.Choices[0].FinishReason)
	}
}

// strictRoundTrip decodes data into v refusing unknown members, and
// checks that json.Marshal of v gives data back byte for byte: the same
// members, in the same order, with the same values, escaped alike.
func strictRoundTrip(t *testing.T, what string, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v: %s", what, err, data)
	}
	if want := marshal(t, v); !bytes.Equal(data, want) {
		t.Errorf("%s:\nwritten %s\ntyped   %s", what, data, want)
	}
}

// typeOf returns the "type" member of a JSON object.
func typeOf(t *testing.T, data []byte) string {
	t.Helper()
	var v struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	return v.Type
}

// wireCase is an engine answer the wire tests run, with the request's
// extra members; streamOnly when the answer fails the stream after it
// has begun.
type wireCase struct {
	name       string
	g          gen
	extra      map[string]string // by API: "messages", "responses"
	streamOnly bool
}

// wireCases reach every kind of reply and event: reasoning and text (with
// cached tokens in the usage), a tool call with arguments that need
// escaping, a generation cut by max_tokens, a stop sequence, and an
// engine error after the stream began.
func wireCases() []wireCase {
	text := answer("Think <about> it.", "The answer: \"yes\" & more\n\b\x01\u2028.")
	text.cached = 5
	failing := answer("Thinking for a while.", "c")
	failing.errorEvent, failing.errorAfter = `{"error":{"message":"engine overloaded","type":"ServiceUnavailableError","code":503}}`, 5
	return []wireCase{
		{name: "text", g: text},
		{name: "call", g: gen{text: callsText("Check the weather.", scriptCall{"get_weather", [][2]string{{"city", "Paris <&> \"x\""}}})}},
		{name: "length", g: gen{text: "<|channel|>analysis<|message|>Think <about>", finish: "length"}},
		{name: "stop sequence", g: gen{text: "<|channel|>analysis<|message|>Count.<|end|><|start|>assistant<|channel|>final<|message|>1 2 3 STOP",
			stopReason: "STOP"}, extra: map[string]string{"messages": `"stop_sequences":["STOP"],`}},
		{name: "failed", g: failing, streamOnly: true},
	}
}

const wireTools = `"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]`

func postTo(t *testing.T, url, body string) []byte {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v: %s", resp.StatusCode, err, data)
	}
	return data
}

// missingKinds fails t for each kind in want that seen lacks.
func missingKinds(t *testing.T, seen map[string]bool, want []string) {
	t.Helper()
	for _, k := range want {
		if !seen[k] {
			t.Errorf("no %s event in any case", k)
		}
	}
}

// TestMessagesWireTyped checks the Messages message object and every
// kind of event of its stream against json.Marshal of its typed struct,
// byte for byte.
func TestMessagesWireTyped(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range wireCases() {
		fe := newFakeEngine(t, fixed(tc.g))
		gw := newGateway(t, fe)
		for _, stream := range []bool{false, true} {
			if !stream && tc.streamOnly {
				continue
			}
			body := `{"model":"beam","max_tokens":100,"stream":` + strconv.FormatBool(stream) + `,` + wireTools + `,` +
				tc.extra["messages"] + `"messages":[{"role":"user","content":"Weather?"}]}`
			data := postTo(t, gw.URL+"/v1/messages", body)
			if !stream {
				var m anthropicReply
				strictRoundTrip(t, tc.name+": message", bytes.TrimSuffix(data, []byte("\n")), &m)
				seen["message/"+*m.StopReason] = true
				continue
			}
			for _, ev := range sseData(t, data) {
				var probe struct {
					Type         string `json:"type"`
					ContentBlock *struct {
						Type string `json:"type"`
					} `json:"content_block"`
					Delta *struct {
						Type       string `json:"type"`
						StopReason string `json:"stop_reason"`
					} `json:"delta"`
				}
				if err := json.Unmarshal(ev, &probe); err != nil {
					t.Fatalf("%v: %s", err, ev)
				}
				kind := probe.Type
				var v any
				switch e := new(anthropicEvent); probe.Type {
				case "error":
					v = new(anthropicError)
				case "message_delta":
					e.Delta = new(anthropicMessageDelta)
					kind += "/" + probe.Delta.StopReason
					v = e
				case "content_block_delta":
					e.Delta = new(anthropicBlockDelta)
					kind += "/" + probe.Delta.Type
					v = e
				case "content_block_start":
					kind += "/" + probe.ContentBlock.Type
					v = e
				default:
					v = e
				}
				seen[kind] = true
				strictRoundTrip(t, tc.name+": "+kind, ev, v)
			}
		}
	}
	// The Messages stream's keep-alive.
	s := &messagesStream{sseWriter: newSSEWriter(httptest.NewRecorder())}
	s.keepAlive()
	for _, ev := range sseData(t, s.buf) {
		seen[typeOf(t, ev)] = true
		strictRoundTrip(t, "ping", ev, new(anthropicEvent))
	}
	missingKinds(t, seen, []string{"message/end_turn", "message/tool_use", "message/max_tokens", "message/stop_sequence",
		"message_start", "content_block_start/thinking", "content_block_start/text", "content_block_start/tool_use",
		"content_block_delta/thinking_delta", "content_block_delta/text_delta", "content_block_delta/input_json_delta",
		"content_block_delta/signature_delta", "content_block_stop", "message_delta/end_turn", "message_delta/tool_use",
		"message_delta/max_tokens", "message_delta/stop_sequence", "message_stop", "error", "ping"})
}

// responseItems returns typed values for the output items in raw, for
// strictRoundTrip to decode into.
func responseItems(t *testing.T, raw []json.RawMessage) []any {
	t.Helper()
	var out []any
	for _, it := range raw {
		out = append(out, responseItem(t, it))
	}
	return out
}

func responseItem(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	switch typ := typeOf(t, raw); typ {
	case "reasoning":
		return new(responseReasoningItem)
	case "message":
		return new(responseMessageItem)
	case "function_call":
		return new(responseCallItem)
	case "reasoning_text":
		return new(responseText)
	case "output_text":
		return new(responseOutputText)
	default:
		t.Fatalf("unknown item type %q", typ)
	}
	return nil
}

// TestResponsesWireTyped checks the response object and every kind of
// event of its stream against json.Marshal of its typed struct, byte for
// byte.
func TestResponsesWireTyped(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range wireCases() {
		fe := newFakeEngine(t, fixed(tc.g))
		gw := newGateway(t, fe)
		for _, stream := range []bool{false, true} {
			if !stream && tc.streamOnly {
				continue
			}
			body := `{"model":"beam","stream":` + strconv.FormatBool(stream) + `,"instructions":"Be brief.","temperature":0.5,` +
				`"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}],` +
				tc.extra["responses"] + `"input":"Weather?"}`
			data := postTo(t, gw.URL+"/v1/responses", body)
			if !stream {
				var probe struct {
					Status string            `json:"status"`
					Output []json.RawMessage `json:"output"`
				}
				if err := json.Unmarshal(data, &probe); err != nil {
					t.Fatal(err)
				}
				seen["response/"+probe.Status] = true
				strictRoundTrip(t, tc.name+": response", bytes.TrimSuffix(data, []byte("\n")), &responseReply{Output: responseItems(t, probe.Output)})
				continue
			}
			for _, ev := range sseData(t, data) {
				var probe struct {
					Type     string `json:"type"`
					Response *struct {
						Output []json.RawMessage `json:"output"`
					} `json:"response"`
					Item json.RawMessage `json:"item"`
					Part json.RawMessage `json:"part"`
				}
				if err := json.Unmarshal(ev, &probe); err != nil {
					t.Fatal(err)
				}
				kind := probe.Type
				var e responseEvent
				if probe.Response != nil {
					e.Response = &responseReply{Output: responseItems(t, probe.Response.Output)}
				}
				if probe.Item != nil {
					e.Item = responseItem(t, probe.Item)
					kind += "/" + typeOf(t, probe.Item)
				}
				if probe.Part != nil {
					e.Part = responseItem(t, probe.Part)
					kind += "/" + typeOf(t, probe.Part)
				}
				seen[kind] = true
				strictRoundTrip(t, tc.name+": "+kind, ev, &e)
			}
		}
	}
	missingKinds(t, seen, []string{"response/completed", "response/incomplete",
		"response.created", "response.in_progress",
		"response.output_item.added/reasoning", "response.output_item.added/message", "response.output_item.added/function_call",
		"response.content_part.added/reasoning_text", "response.content_part.added/output_text",
		"response.reasoning_text.delta", "response.output_text.delta", "response.function_call_arguments.delta",
		"response.reasoning_text.done", "response.output_text.done", "response.function_call_arguments.done",
		"response.content_part.done/reasoning_text", "response.content_part.done/output_text",
		"response.output_item.done/reasoning", "response.output_item.done/message", "response.output_item.done/function_call",
		"response.completed", "response.incomplete", "response.failed"})
}

// TestErrorBodies checks the error objects' bytes: the members in the
// order the APIs document, null for a missing param or code, and the
// message escaped as in every reply.
func TestErrorBodies(t *testing.T) {
	e := paramError("tools[0].name", "invalid_tool", `a "<|call|>" & more`)
	if got, want := string(e.appendJSON(nil)), `{"error":{"message":"tools[0].name: a \"<|call|>\" & more","type":"invalid_request_error","param":"tools[0].name","code":"invalid_tool"}}`; got != want {
		t.Errorf("OpenAI error\n%s\nwant\n%s", got, want)
	}
	e = engineError("", "the engine failed\b")
	if got, want := string(e.appendJSON(nil)), `{"error":{"message":"the engine failed\b","type":"server_error","param":null,"code":null}}`; got != want {
		t.Errorf("OpenAI error\n%s\nwant\n%s", got, want)
	}
	if got, want := string(appendAnthropicError(nil, e)), `{"type":"error","error":{"type":"api_error","message":"the engine failed\b"}}`; got != want {
		t.Errorf("Anthropic error\n%s\nwant\n%s", got, want)
	}
}

// TestToolInputNotJSON checks that a call whose arguments are not JSON,
// which the parser does not write, is a 502 rather than a reply that is
// not JSON or a panic in the encoder.
func TestToolInputNotJSON(t *testing.T) {
	c := &exchange{chatID: "msg_1", model: "beam"}
	for _, args := range []string{`{"city": "Paris"`, `{"n": NaN}`, `nonsense`} {
		msg := &harmony.Message{Role: "assistant", ToolCalls: []harmony.ToolCall{{Type: "function",
			Function: harmony.FunctionCall{Name: "get_weather", Arguments: json.RawMessage(args)}}}}
		reply, aerr := c.newAnthropicReply(msg, genEnd{calls: 1})
		if aerr == nil || aerr.status != http.StatusBadGateway || aerr.code != "invalid_model_output" ||
			!strings.Contains(aerr.msg, "tool call 0 (get_weather)") {
			t.Errorf("arguments %s: reply %+v, error %+v", args, reply, aerr)
		}
	}
	msg := &harmony.Message{Role: "assistant", ToolCalls: []harmony.ToolCall{{Type: "function",
		Function: harmony.FunctionCall{Name: "get_weather", Arguments: json.RawMessage(`{"city": "<&>` + "\u2028" + `"}`)}}}}
	reply, aerr := c.newAnthropicReply(msg, genEnd{calls: 1})
	if aerr != nil {
		t.Fatal(aerr)
	}
	if got := string(appendJSON(nil, reply.Content[0])); got != `{"type":"tool_use","id":"`+reply.Content[0].ID+`","name":"get_weather","input":{"city":"<&>`+"\u2028"+`"}}` {
		t.Errorf("tool_use block %s: want the input compacted, every other byte as the parser wrote it", got)
	}
}

// TestResponsesEchoRaw checks that a response echoes tools, tool_choice
// and text.format as the client sent them but for whitespace (gap
// decision 94): HTML characters, escapes and U+2028 as sent, members in
// the client's order, streamed and not.
func TestResponsesEchoRaw(t *testing.T) {
	tools := `[ {"type": "function", "name": "get_weather", "description": "a <b> & c \u003c ` + "\u2028" + ` é",
		"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}} ]`
	for _, tt := range []struct{ member, sent string }{
		{"tool_choice", `{ "type": "function", "name": "get_weather" }`},
		{"text", `{ "format": { "type": "json_object" } }`},
	} {
		for _, stream := range []bool{false, true} {
			fe := newFakeEngineOf(t, EngineSGLang, constrainedGen)
			gw := newGateway(t, fe)
			body := `{"model":"beam","stream":` + strconv.FormatBool(stream) + `,"input":"Weather in Paris?","tools": ` + tools +
				`, "` + tt.member + `": ` + tt.sent + `}`
			data := postTo(t, gw.URL+"/v1/responses", body)
			if stream {
				events := sseData(t, data)
				data = events[len(events)-1]
			}
			var r struct {
				Response map[string]json.RawMessage `json:"response"`
			}
			if stream {
				if err := json.Unmarshal(data, &r); err != nil {
					t.Fatal(err)
				}
			} else if err := json.Unmarshal(data, &r.Response); err != nil {
				t.Fatal(err)
			}
			for member, sent := range map[string]string{"tools": tools, tt.member: tt.sent} {
				var want bytes.Buffer
				if err := json.Compact(&want, []byte(sent)); err != nil {
					t.Fatal(err)
				}
				if got := r.Response[member]; !bytes.Equal(got, want.Bytes()) {
					t.Errorf("stream %v: %s\n%s\nwant\n%s", stream, member, got, want.Bytes())
				}
			}
		}
	}
}

// getBody returns the status and body of GET url.
func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// TestSmallReplies checks the bytes of the gateway's small replies, now
// typed structs encoded with encoding/json: GET /v1/models with --model,
// GET /health with one engine and with replicas, up and down, and
// count_tokens.
func TestSmallReplies(t *testing.T) {
	q := func(s string) string { return string(appendString(nil, s)) }
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	gw := newGateway(t, fe, func(c *Config) { c.Model = "beam <&>" })
	if st, body := getBody(t, gw.URL+"/v1/models"); st != 200 ||
		body != `{"object":"list","data":[{"id":"beam <&>","object":"model","created":0,"owned_by":"beamharmony"}]}`+"\n" {
		t.Errorf("models: %d %s", st, body)
	}
	if st, body := getBody(t, gw.URL+"/health"); st != 200 ||
		body != `{"status":"ok","engine":{"url":`+q(fe.srv.URL)+`,"reachable":true}}`+"\n" {
		t.Errorf("health: %d %s", st, body)
	}

	fe2 := newFakeEngine(t, fixed(answer("r", "c")))
	gw2 := newGateway(t, fe, func(c *Config) {
		c.Backend = ""
		c.Backends = []Backend{{URL: fe.srv.URL}, {URL: fe2.srv.URL}}
	})
	if st, body := getBody(t, gw2.URL+"/health"); st != 200 ||
		body != `{"status":"ok","engines":[{"url":`+q(fe.srv.URL)+`,"reachable":true,"healthy":true,"open_requests":0},`+
			`{"url":`+q(fe2.srv.URL)+`,"reachable":true,"healthy":true,"open_requests":0}]}`+"\n" {
		t.Errorf("health of replicas: %d %s", st, body)
	}
	fe2.srv.Close()
	st, body := getBody(t, gw2.URL+"/health")
	var r struct {
		Engines []struct {
			Healthy bool   `json:"healthy"`
			Error   string `json:"error"`
		} `json:"engines"`
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || len(r.Engines) != 2 || r.Engines[1].Error == "" {
		t.Fatalf("health of replicas, one down: %v: %s", err, body)
	}
	if want := `{"status":"ok","engines":[{"url":` + q(fe.srv.URL) + `,"reachable":true,"healthy":true,"open_requests":0},` +
		`{"url":` + q(fe2.srv.URL) + `,"reachable":false,"healthy":` + strconv.FormatBool(r.Engines[1].Healthy) +
		`,"open_requests":0,"error":` + q(r.Engines[1].Error) + `}]}` + "\n"; st != 200 || body != want {
		t.Errorf("health of replicas, one down: %d\n%s\nwant\n%s", st, body, want)
	}
	fe.srv.Close()
	st, body = getBody(t, gw.URL+"/health")
	var one struct {
		Engine struct {
			Error string `json:"error"`
		} `json:"engine"`
	}
	if err := json.Unmarshal([]byte(body), &one); err != nil || one.Engine.Error == "" {
		t.Fatalf("health, engine down: %v: %s", err, body)
	}
	if want := `{"status":"unavailable","engine":{"url":` + q(fe.srv.URL) + `,"reachable":false,"error":` + q(one.Engine.Error) + `}}` + "\n"; st != 503 || body != want {
		t.Errorf("health, engine down: %d\n%s\nwant\n%s", st, body, want)
	}
	if st, body := getBody(t, gw2.URL+"/health"); st != 503 || !strings.HasPrefix(body, `{"status":"unavailable","engines":[{"url":`) {
		t.Errorf("health of replicas, all down: %d %s", st, body)
	}

	gw3 := newGateway(t, newFakeEngine(t, fixed(answer("r", "c"))), func(c *Config) { c.Tokenizer = beamTokenizer(t) })
	data := postTo(t, gw3.URL+"/v1/messages/count_tokens", `{"model":"beam","messages":[{"role":"user","content":"Hello!"}]}`)
	var n struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.Unmarshal(data, &n); err != nil || n.InputTokens == 0 || string(data) != `{"input_tokens":`+strconv.Itoa(n.InputTokens)+"}\n" {
		t.Errorf("count_tokens: %v: %q", err, data)
	}
}
