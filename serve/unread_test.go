package serve

import (
	"encoding/json"
	"github.com/beamharmony/harmony/internal/jsontest"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestUnreadMembersReported: a top-level member no API reads is accepted
// and reported in X-Beam-Unenforced (and the log), on each API, in the
// order it came, after what the API itself reports; a member
// encoding/json matches to a field by case is read, not reported; on Chat
// Completions store false is what the gateway does, store true is
// reported; a body of more unread members than maxUnread lists that many
// and says there are more.
func TestUnreadMembersReported(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe)
	for _, c := range []struct {
		path, body, want string
	}{
		{"/v1/chat/completions", `{"model":"beam","user":"u1","messages":[{"role":"user","content":"Hi"}],"search_parameters":{"mode":"off"},"foo":1}`, "user, search_parameters, foo"},
		{"/v1/chat/completions", `{"Model":"beam","MESSAGES":[{"role":"user","content":"Hi"}]}`, ""},
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"store":false}`, ""},
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"store":true}`, "store"},
		// An empty web_search_options asks for a search; null does not.
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"web_search_options":{},"metadata":{}}`, "web_search_options"},
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"Web_Search_Options":{ }}`, "Web_Search_Options"},
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"web_search_options":null}`, ""},
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"web_s\u0065arch_options":{}}`, "web_search_options"},
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"f\u006fo":1,"foo":2}`, "foo"},
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"a b":1}`, `["a b"]`},
		{"/v1/messages", `{"model":"beam","max_tokens":10,"mcp_servers":[{"type":"url","url":"https://example.com/mcp","name":"m"}],"messages":[{"role":"user","content":"Hi"}],"container":"c"}`, "mcp_servers, container"},
		{"/v1/responses", `{"model":"beam","input":"Hi","truncation":"auto","reasoning":{"summary":"auto"},"user":"u"}`, "reasoning.summary, truncation, user"},
	} {
		checkUnenforced(t, gw, c.path, c.body, c.want)
	}
	// Many unread members: maxUnread listed, and the last says more.
	var b strings.Builder
	b.WriteString(`{"model":"beam","messages":[{"role":"user","content":"Hi"}]`)
	for i := range 100 {
		b.WriteString(`,"k` + strings.Repeat("x", i) + `":0`)
	}
	b.WriteString(`}`)
	r, aerr := decodeChatRequest([]byte(b.String()), &Config{})
	if aerr != nil {
		t.Fatal(aerr)
	}
	if len(r.unhonoured) != maxUnread || !strings.Contains(r.unhonoured[maxUnread-1].why, "more such members") {
		t.Errorf("100 unread members: %d reported, the last %+v", len(r.unhonoured), r.unhonoured[len(r.unhonoured)-1])
	}
}

// TestNestedMembersReported: a member of a nested object that the gateway
// does not read (of a message, a content block or part, a tool call, a
// tool, a function, tool_choice, a format, thinking, reasoning, text,
// stream_options, chat_template_kwargs) is reported at its path, after the
// top-level ones, in the order the API reads them; a member holding nothing (null, [] or {}) is not, nor
// cache_control, an accepted no-op, nor the identifiers and flags the
// gateway reads (a format's name, an input item's id and status, a tool
// result's is_error, eager_input_streaming); a query parameter is
// reported as ?name, but Anthropic's beta=true; a request lists at most
// maxUnread such members, the last saying there are more.
func TestNestedMembersReported(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) { c.Engine, c.AllowMissingThinking = EngineLlamaCpp, true })
	for _, c := range []struct {
		path, body, want string
	}{
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi","foo":1,"refusal":null,"annotations":[],"audio":{}}]}`, "messages[0].foo"},
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral"},"bar":2}]}]}`, "messages[0].content[0].bar"},
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"q"},{"role":"assistant","reasoning_content":"r","tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}","x":1}}]},{"role":"tool","tool_call_id":"c","content":"ok"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}`,
			"messages[1].tool_calls[0].function.x"},
		{"/v1/chat/completions", `{"model":"beam","user":"u","messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"},"baz":1},"qux":2}],"tool_choice":{"type":"function","function":{"name":"f","w":1},"v":2}}`,
			"user, tool_choice.v, tool_choice.function.w, tools[0].qux, tools[0].function.baz"},
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"stream_options":{"include_obfuscation":false},"chat_template_kwargs":{"enable_thinking":false},"response_format":{"type":"json_schema","json_schema":{"name":"n","description":"d","schema":{"type":"object"}},"schema":{}}}`,
			"stream_options.include_obfuscation, response_format.json_schema.description, chat_template_kwargs.enable_thinking"},
		{"/v1/messages", `{"model":"beam","max_tokens":10,"system":[{"type":"text","text":"S","zz":1,"cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"Hi","bar":2}],"foo":1}],"tools":[{"name":"f","input_schema":{"type":"object"},"baz":1,"eager_input_streaming":true,"cache_control":{"type":"ephemeral"}}],"thinking":{"type":"adaptive","q":1},"tool_choice":{"type":"auto","p":1}}`,
			"thinking.q, tool_choice.p, tools[0].baz, system[0].zz, messages[0].foo, messages[0].content[0].bar"},
		{"/v1/messages", `{"model":"beam","max_tokens":10,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"failed","citations":[{"x":1}]}]}]}],"tools":[{"name":"f","input_schema":{"type":"object"}}]}`,
			"messages[2].content[0].content[0].citations"},
		// Query parameters: none is read; Anthropic's beta=true is a no-op.
		{"/v1/chat/completions?api-version=2024-10-21&b=1", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"user":"u"}`, "user, ?api-version, ?b"},
		{"/v1/messages?beta=true", `{"model":"beam","max_tokens":10,"messages":[{"role":"user","content":"Hi"}]}`, ""},
		{"/v1/responses?beta=true", `{"model":"beam","input":"Hi"}`, "?beta"},
		// A member of another block or item type than the one it is on.
		{"/v1/messages", `{"model":"beam","max_tokens":10,"system":[{"type":"text","text":"S","id":"x"}],"messages":[{"role":"user","content":[{"type":"text","text":"q","input":{"a":1}}]},{"role":"assistant","content":[{"type":"redacted_thinking","data":"x"},{"type":"tool_use","id":"t1","name":"f","input":{},"text":"t"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","name":"f","content":[{"type":"text","text":"ok","tool_use_id":"t1"}]}]}],"tools":[{"name":"f","input_schema":{"type":"object"}}]}`,
			"messages[1].content[0], system[0].id, messages[0].content[0].input, messages[1].content[0].data, messages[1].content[1].text, messages[2].content[0].name, messages[2].content[0].content[0].tool_use_id"},
		{"/v1/responses", `{"model":"beam","input":[{"role":"user","content":"q","call_id":"c0"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}","role":"assistant"},{"type":"function_call_output","call_id":"c1","output":"ok","name":"f"}],"tools":[{"type":"function","name":"f","parameters":{"type":"object"}}]}`,
			"input[0].call_id, input[1].role, input[2].name"},
		{"/v1/messages", `{"model":"beam","max_tokens":10,"system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=1"},{"type":"text","text":"S"},{"type":"text","text":"T","zz":1}],"messages":[{"role":"user","content":"Hi"}]}`,
			"system[0], system[2].zz"},
		{"/v1/responses", `{"model":"beam","input":[{"role":"user","content":[{"type":"input_text","text":"Hi","bar":1}],"foo":1,"id":"i1","status":"completed"}],"tools":[{"type":"function","name":"f","parameters":{"type":"object"},"baz":1}],"text":{"verbosity":"low","format":{"type":"json_object","q":1}},"reasoning":{"effort":"low","generate_summary":"auto"}}`,
			"reasoning.generate_summary, tools[0].baz, text.verbosity, text.format.q, input[0].foo, input[0].content[0].bar"},
	} {
		checkUnenforced(t, gw, c.path, c.body, c.want)
	}
	// After a billing header left out, a block's error names its place
	// in the request.
	resp, data := do(t, gw, "POST", "/v1/messages", `{"model":"beam","max_tokens":10,"system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=1"},{"type":"text","text":"S"},{"type":"image"}],"messages":[{"role":"user","content":"Hi"}]}`, nil)
	if resp.StatusCode != 400 || !strings.Contains(string(data), "system[2].type") {
		t.Errorf("an image block after the billing header: %d %s", resp.StatusCode, data)
	}
	// Many: maxUnread in all, top-level ones first, the last saying more.
	var b strings.Builder
	b.WriteString(`{"model":"beam","a":1,"messages":[`)
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"role":"user","content":"x","k":1}`)
	}
	b.WriteString(`]}`)
	r, aerr := decodeChatRequest([]byte(b.String()), &Config{})
	if aerr != nil {
		t.Fatal(aerr)
	}
	if len(r.unhonoured) != maxUnread || r.unhonoured[0].path != "a" || r.unhonoured[1].path != "messages[0].k" ||
		!strings.Contains(r.unhonoured[maxUnread-1].why, "more such members") || strings.Contains(r.unhonoured[maxUnread-2].why, "more") {
		t.Errorf("101 unread members: %d reported: %+v", len(r.unhonoured), r.unhonoured)
	}
}

// checkUnenforced posts body to path and requires a 200 whose
// X-Beam-Unenforced is want.
func checkUnenforced(t *testing.T, gw *httptest.Server, path, body, want string) {
	t.Helper()
	resp, data := do(t, gw, "POST", path, body, nil)
	if resp.StatusCode != 200 {
		t.Errorf("%s: %d %s", body, resp.StatusCode, data)
		return
	}
	if got := resp.Header.Get(UnenforcedHeader); got != want {
		t.Errorf("%s:\n%s %q\nwant %q", body, UnenforcedHeader, got, want)
	}
}

// checkUnread: decodeRequestBody decodes as decodeBody does, and its
// unread members are the body's top-level keys that neither name a field
// of chatRequest nor match one by encoding/json's case folding, each once,
// at most maxUnread.
func checkUnread(t *testing.T, body []byte) {
	t.Helper()
	var got, want chatRequest
	unread, more, err := decodeRequestBody(body, &got)
	wantErr := json.Unmarshal(body, &want)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() || err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%.80q: decodeRequestBody %v, json.Unmarshal %v", body, err, wantErr)
	}
	if err != nil {
		return
	}
	fs := bodyFieldsOf(reflect.TypeFor[chatRequest]())
	var all []string
	for _, m := range jsontest.Members(t, body) {
		if _, found := fs.byName[m.Key]; !found && !fs.foldsToField([]byte(m.Key)) && !jsontest.HoldsNothing(m.Value) && !strings.EqualFold(m.Key, acceptedNoOp) && !slices.Contains(all, m.Key) {
			all = append(all, m.Key)
		}
	}
	for _, k := range unread {
		if !slices.Contains(all, k) {
			t.Fatalf("%q: %q listed as unread", body, k)
		}
	}
	if len(unread) != min(len(all), maxUnread) || more != (len(all) > maxUnread) {
		t.Fatalf("%q: unread %q (more %v), want %d of %q", body, unread, more, min(len(all), maxUnread), all)
	}
}

// TestRepliesReadBackUnreported: what the gateway writes, sent back as
// it came (a Chat Completions message, a Messages reply's content blocks,
// a Responses reply's output items), is read whole: a conversation that
// carries its own replies gets no X-Beam-Unenforced.
func TestRepliesReadBackUnreported(t *testing.T) {
	fe := newFakeEngine(t, nil)
	gw := newGateway(t, fe, func(c *Config) { c.SigningKey = "k" })
	call := callGen("r1", scriptCall{"f", [][2]string{{"a", "1"}}})
	done := answer("r2", "done")
	post := func(path, body string) []byte {
		t.Helper()
		resp, data := do(t, gw, "POST", path, body, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", body, resp.StatusCode, data)
		}
		if h := resp.Header.Get(UnenforcedHeader); h != "" {
			t.Errorf("%s:\n%s %q", body, UnenforcedHeader, h)
		}
		return data
	}
	var reply struct {
		Choices []struct {
			Message json.RawMessage `json:"message"`
		} `json:"choices"`
		Content json.RawMessage   `json:"content"`
		Output  []json.RawMessage `json:"output"`
	}
	callID := func(raw []byte, key string) string {
		i := strings.Index(string(raw), `"`+key+`":"`)
		if i < 0 {
			t.Fatalf("no %s in %s", key, raw)
		}
		rest := string(raw[i+len(key)+4:])
		return rest[:strings.IndexByte(rest, '"')]
	}

	const chatTools = `"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"integer"}}}}}]`
	fe.script = fixed(call)
	_ = json.Unmarshal(post("/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"q"}],`+chatTools+`}`), &reply)
	msg := reply.Choices[0].Message
	fe.script = fixed(done)
	history := `[{"role":"user","content":"q"},` + string(msg) + `,{"role":"tool","tool_call_id":"` + callID(msg, "id") + `","content":"ok"}`
	_ = json.Unmarshal(post("/v1/chat/completions", `{"model":"beam","messages":`+history+`],`+chatTools+`}`), &reply)
	post("/v1/chat/completions", `{"model":"beam","messages":`+history+`,`+string(reply.Choices[0].Message)+`,{"role":"user","content":"again"}],`+chatTools+`}`)

	const messagesTools = `"tools":[{"name":"f","input_schema":{"type":"object","properties":{"a":{"type":"integer"}}}}]`
	fe.script = fixed(call)
	reply.Content = nil
	_ = json.Unmarshal(post("/v1/messages", `{"model":"beam","max_tokens":100,"messages":[{"role":"user","content":"q"}],`+messagesTools+`}`), &reply)
	blocks := reply.Content
	fe.script = fixed(done)
	history = `[{"role":"user","content":"q"},{"role":"assistant","content":` + string(blocks) + `},{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + callID(blocks, "id") + `","content":"ok"}]}`
	_ = json.Unmarshal(post("/v1/messages", `{"model":"beam","max_tokens":100,"messages":`+history+`],`+messagesTools+`}`), &reply)
	post("/v1/messages", `{"model":"beam","max_tokens":100,"messages":`+history+`,{"role":"assistant","content":`+string(reply.Content)+`},{"role":"user","content":"again"}],`+messagesTools+`}`)

	const responsesTools = `"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"a":{"type":"integer"}}}}]`
	fe.script = fixed(call)
	_ = json.Unmarshal(post("/v1/responses", `{"model":"beam","input":[{"role":"user","content":"q"}],`+responsesTools+`}`), &reply)
	items := `{"role":"user","content":"q"}`
	for _, it := range reply.Output {
		items += "," + string(it)
	}
	items += `,{"type":"function_call_output","call_id":"` + callID([]byte(items), "call_id") + `","output":"ok"}`
	fe.script = fixed(done)
	reply.Output = nil
	_ = json.Unmarshal(post("/v1/responses", `{"model":"beam","input":[`+items+`],`+responsesTools+`}`), &reply)
	for _, it := range reply.Output {
		items += "," + string(it)
	}
	post("/v1/responses", `{"model":"beam","input":[`+items+`,{"role":"user","content":"again"}],`+responsesTools+`}`)
}
