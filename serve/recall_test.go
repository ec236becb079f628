package serve

import (
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// recallAPI is how one API's client sends back a session of two turns
// (a tool call, then an answer) without their reasoning, as Continue and
// Factory droid do on Chat Completions and Copilot's resumed sessions on
// Responses.
type recallAPI struct {
	name, path string
	// idPattern finds the ids of the calls a reply hands out.
	idPattern *regexp.Regexp
	// first is the request that asks for the call; second sends back the
	// call (id) without reasoning and its result; third also the answer
	// (text) without reasoning and a new question.
	first, second, third func(stream bool, id, text string) string
	// turns are the request paths of the turns without reasoning in the
	// second and third requests.
	turns [2]string
}

const recallTools = `"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}}]`

var recallAPIs = []recallAPI{
	{
		name: "chat", path: "/v1/chat/completions",
		idPattern: regexp.MustCompile(`"id":"(call_[0-9a-f]+)"`),
		first: func(stream bool, _, _ string) string {
			return `{"model":"beam","stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"Run ls"}],` + recallTools + `}`
		},
		second: func(stream bool, id, _ string) string {
			return `{"model":"beam","stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"Run ls"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},` +
				`{"role":"tool","tool_call_id":"` + id + `","content":"a.txt"}],` + recallTools + `}`
		},
		third: func(stream bool, id, text string) string {
			return `{"model":"beam","stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"Run ls"},` +
				`{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},` +
				`{"role":"tool","tool_call_id":"` + id + `","content":"a.txt"},` +
				`{"role":"assistant","content":` + quoteJSON(text) + `},{"role":"user","content":"Thanks"}],` + recallTools + `}`
		},
		turns: [2]string{"messages[1]", "messages[3]"},
	},
	{
		name: "messages", path: "/v1/messages",
		idPattern: regexp.MustCompile(`"id":"(toolu_[0-9a-f]+)"`),
		first: func(stream bool, _, _ string) string {
			return `{"model":"beam","max_tokens":100,"stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"Run ls"}],` + messagesRecallTools + `}`
		},
		second: func(stream bool, id, _ string) string {
			return `{"model":"beam","max_tokens":100,"stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"Run ls"},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"bash","input":{"command":"ls"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"a.txt"}]}],` + messagesRecallTools + `}`
		},
		third: func(stream bool, id, text string) string {
			return `{"model":"beam","max_tokens":100,"stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"Run ls"},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"bash","input":{"command":"ls"}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"a.txt"}]},` +
				`{"role":"assistant","content":[{"type":"text","text":` + quoteJSON(text) + `}]},{"role":"user","content":"Thanks"}],` + messagesRecallTools + `}`
		},
		turns: [2]string{"messages[1]", "messages[3]"},
	},
	{
		name: "responses", path: "/v1/responses",
		idPattern: regexp.MustCompile(`"call_id":"(call_[0-9a-f]+)"`),
		first: func(stream bool, _, _ string) string {
			return `{"model":"beam","store":false,"stream":` + strconv.FormatBool(stream) + `,"input":[{"role":"user","content":"Run ls"}],` + responsesRecallTools + `}`
		},
		second: func(stream bool, id, _ string) string {
			return `{"model":"beam","store":false,"stream":` + strconv.FormatBool(stream) + `,"input":[{"role":"user","content":"Run ls"},` +
				`{"type":"function_call","call_id":"` + id + `","name":"bash","arguments":"{\"command\":\"ls\"}"},` +
				`{"type":"function_call_output","call_id":"` + id + `","output":"a.txt"}],` + responsesRecallTools + `}`
		},
		third: func(stream bool, id, text string) string {
			return `{"model":"beam","store":false,"stream":` + strconv.FormatBool(stream) + `,"input":[{"role":"user","content":"Run ls"},` +
				`{"type":"function_call","call_id":"` + id + `","name":"bash","arguments":"{\"command\":\"ls\"}"},` +
				`{"type":"function_call_output","call_id":"` + id + `","output":"a.txt"},` +
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":` + quoteJSON(text) + `}]},` +
				`{"role":"user","content":"Thanks"}],` + responsesRecallTools + `}`
		},
		turns: [2]string{"input[1]", "input[3]"},
	},
}

const (
	messagesRecallTools  = `"tools":[{"name":"bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}]`
	responsesRecallTools = `"tools":[{"type":"function","name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}]`
)

// recallScript calls bash when the prompt holds no call yet, and answers
// once it holds the call's result.
func recallScript(r *engineReq) gen {
	if strings.Contains(r.Prompt, "<|start|>bash to=assistant") {
		return answer("The listing is back.", "There is one file: a.txt.")
	}
	return callGen("I should list the files.", scriptCall{"bash", [][2]string{{"command", "ls"}}})
}

// TestReasoningMemory: with Config.ReasoningMemoryBytes, a turn the
// gateway wrote that comes back without its reasoning (its tool calls
// found by their ids, its answer by its text) gets it again, on each API,
// streamed or not; the prompt is the one with the reasoning sent back,
// and the header names the turns. Without the memory, for another API
// key, or for ids the gateway did not hand out, it is the usual 400.
func TestReasoningMemory(t *testing.T) {
	fe := newFakeEngine(t, recallScript)
	gw := newGateway(t, fe, func(c *Config) { c.ReasoningMemoryBytes = 1 << 20; c.APIKeys = []string{"key-one", "key-two"} })
	off := newGateway(t, fe)
	auth := func(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }
	const callAnalysis = "<|channel|>analysis<|message|>I should list the files.<|end|>"
	for _, api := range recallAPIs {
		for _, stream := range []bool{false, true} {
			t.Run(api.name+"/stream="+strconv.FormatBool(stream), func(t *testing.T) {
				resp, data := do(t, gw, "POST", api.path, api.first(stream, "", ""), auth("key-one"))
				m := api.idPattern.FindSubmatch(data)
				if resp.StatusCode != 200 || m == nil {
					t.Fatalf("first: %d %s", resp.StatusCode, data)
				}
				id := string(m[1])
				resp, data = do(t, gw, "POST", api.path, api.second(stream, id, ""), auth("key-one"))
				if resp.StatusCode != 200 {
					t.Fatalf("second: %d %s", resp.StatusCode, data)
				}
				if got := resp.Header.Get(RestoredHeader); got != api.turns[0] {
					t.Errorf("second: %s %q, want %q", RestoredHeader, got, api.turns[0])
				}
				if p := fe.lastRequest(t).Prompt; !strings.Contains(p, callAnalysis+"<|start|>assistant to=bash") {
					t.Errorf("second: the call's reasoning is not in the prompt:\n%s", p)
				}
				const text = "There is one file: a.txt."
				resp, data = do(t, gw, "POST", api.path, api.third(stream, id, text), auth("key-one"))
				if resp.StatusCode != 200 {
					t.Fatalf("third: %d %s", resp.StatusCode, data)
				}
				if got, want := resp.Header.Get(RestoredHeader), api.turns[0]+", "+api.turns[1]; got != want {
					t.Errorf("third: %s %q, want %q", RestoredHeader, got, want)
				}
				const answerTurn = "<|channel|>analysis<|message|>The listing is back.<|end|><|start|>assistant<|channel|>final<|message|>" + text
				if p := fe.lastRequest(t).Prompt; !strings.Contains(p, callAnalysis) || !strings.Contains(p, answerTurn) {
					t.Errorf("third: the turns' reasoning is not in the prompt:\n%s", p)
				}
				// Each refusal: another key, ids and text this gateway
				// did not hand out, and no memory.
				for _, c := range []struct {
					name string
					gw   *httptest.Server
					key  string
					body string
				}{
					{"another key", gw, "key-two", api.second(stream, id, "")},
					{"unknown id", gw, "key-one", api.second(stream, "call_0123456789abcdef01234567", "")},
					{"unknown text", gw, "key-one", api.third(stream, id, "Something else.")},
					{"memory off", off, "", api.second(stream, id, "")},
				} {
					resp, data := do(t, c.gw, "POST", api.path, c.body, auth(c.key))
					missing := strings.Contains(string(data), "missing_reasoning") || strings.Contains(string(data), "has no thinking block")
					if resp.StatusCode != 400 || !missing || resp.Header.Get(RestoredHeader) != "" {
						t.Errorf("%s: %d %q %s", c.name, resp.StatusCode, resp.Header.Get(RestoredHeader), data)
					}
					// With the memory, the error says it does not hold the
					// turn; without, it is worded as before the memory.
					hint, want := "but not this turn's", c.gw != off
					if got := strings.Contains(string(data), hint); got != want {
						t.Errorf("%s: the error says %q: %v, want %v: %s", c.name, hint, got, want, data)
					}
				}
			})
		}
	}
}

// TestReasoningMemoryBound: the memory holds at most its bytes, the least
// recently used turns going first; a turn is recalled only whole (all its
// calls, of one turn) and for its owner; a turn above an eighth of the
// memory is not kept.
func TestReasoningMemoryBound(t *testing.T) {
	const max = 64 << 10
	m := newReasoningMemory(max)
	call := func(ids ...string) *harmony.Message {
		msg := &harmony.Message{Role: harmony.RoleAssistant}
		for _, id := range ids {
			msg.ToolCalls = append(msg.ToolCalls, harmony.ToolCall{ID: id})
		}
		return msg
	}
	reasoning := strings.Repeat("r", 1000)
	for i := range 1000 {
		m.remember("o", reasoning+strconv.Itoa(i), []string{"a" + strconv.Itoa(i), "b" + strconv.Itoa(i)}, nil, "")
		if m.used > max {
			t.Fatalf("after %d turns: %d bytes used, more than %d", i+1, m.used, max)
		}
		if i == 10 {
			// Used, so kept past the turns remembered before it.
			if _, ok := m.recall("o", call("a3", "b3"), nil); !ok {
				t.Fatal("turn 3 not recalled")
			}
		}
	}
	if got, ok := m.recall("o", call("a999", "b999"), nil); !ok || got != reasoning+"999" {
		t.Errorf("the last turn: %q %v", got, ok)
	}
	if _, ok := m.recall("o", call("a0"), nil); ok {
		t.Error("the first turn is still held after the memory filled")
	}
	for _, c := range []struct {
		name  string
		owner string
		msg   *harmony.Message
	}{
		{"another owner", "p", call("a999", "b999")},
		{"calls of two turns", "o", call("a999", "b998")},
		{"a call without id", "o", call("a999", "")},
		{"an unknown call", "o", call("a999", "c")},
	} {
		if _, ok := m.recall(c.owner, c.msg, nil); ok {
			t.Errorf("%s: recalled", c.name)
		}
	}
	m.remember("o", strings.Repeat("x", max/8), []string{"big"}, nil, "")
	if _, ok := m.recall("o", call("big"), nil); ok {
		t.Error("a turn of an eighth of the memory was kept")
	}
	question := &harmony.Message{Role: harmony.RoleUser, Content: "the question"}
	m.remember("o", "thought", nil, question, "the answer")
	answer := &harmony.Message{Role: harmony.RoleAssistant, Content: "the answer"}
	if got, ok := m.recall("o", answer, question); !ok || got != "thought" {
		t.Errorf("by its answer: %q %v", got, ok)
	}
	if _, ok := m.recall("o", answer, &harmony.Message{Role: harmony.RoleUser, Content: "another question"}); ok {
		t.Error("the same answer to another question: recalled")
	}
	if newReasoningMemory(0) != nil {
		t.Error("a memory of 0 bytes is not off")
	}
	var none *reasoningMemory
	none.remember("o", "r", []string{"x"}, nil, "")
	if _, ok := none.recall("o", call("x"), nil); ok {
		t.Error("the memory that is off recalled")
	}
}

// TestReasoningMemoryCopilotResume: a session GitHub Copilot's CLI
// resumes sends, on the Responses API, each turn's reasoning as an
// assistant message before its calls and no reasoning item (gap decision
// 241). With the memory, the turn's reasoning is restored by its call
// ids, the message is then its echo, left out and reported, and the
// prompt is the live session's.
func TestReasoningMemoryCopilotResume(t *testing.T) {
	fe := newFakeEngine(t, recallScript)
	gw := newGateway(t, fe, func(c *Config) { c.ReasoningMemoryBytes = 1 << 20 })
	api := recallAPIs[2]
	resp, data := do(t, gw, "POST", api.path, api.first(false, "", ""), nil)
	m := api.idPattern.FindSubmatch(data)
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("first: %d %s", resp.StatusCode, data)
	}
	id := string(m[1])
	resp, data = do(t, gw, "POST", api.path, api.second(false, id, ""), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("second: %d %s", resp.StatusCode, data)
	}
	live := fe.lastRequest(t).Prompt
	echo := `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"I should list the files."}]},`
	body := strings.Replace(api.second(false, id, ""), `{"type":"function_call"`, echo+`{"type":"function_call"`, 1)
	resp, data = do(t, gw, "POST", api.path, body, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("resumed: %d %s", resp.StatusCode, data)
	}
	if got := resp.Header.Get(RestoredHeader); got != "input[1]" {
		t.Errorf("resumed: %s %q, want input[1]", RestoredHeader, got)
	}
	if got := resp.Header.Get(UnenforcedHeader); got != "input[1]" {
		t.Errorf("resumed: %s %q, want input[1] (the echo)", UnenforcedHeader, got)
	}
	if p := fe.lastRequest(t).Prompt; p != live {
		t.Errorf("resumed: prompt\n%q\nwant the live session's\n%q", p, live)
	}
}

// TestItemReferences: with Config.ReasoningMemoryBytes, an item_reference
// input item that names an output item this gateway handed out (reasoning,
// function call, message) is read as that item, as the AI SDK's OpenAI
// provider sends a tool loop's earlier turns by default (store left on;
// gap decision 276), streamed or not: the prompt is the one with the items
// sent whole. Another API key, an id never handed out, and no memory are
// the stateless 400, which says why.
func TestItemReferences(t *testing.T) {
	fe := newFakeEngine(t, recallScript)
	gw := newGateway(t, fe, func(c *Config) { c.ReasoningMemoryBytes = 1 << 20; c.APIKeys = []string{"key-one", "key-two"} })
	off := newGateway(t, fe)
	auth := func(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }
	ids := regexp.MustCompile(`"id":"((?:rs|fc|msg)_[0-9a-f]+)"`)
	// refs is the item_reference items of the output items in a reply, in
	// order, once each.
	refs := func(data []byte) string {
		var out []string
		seen := map[string]bool{}
		for _, m := range ids.FindAllSubmatch(data, -1) {
			if id := string(m[1]); !seen[id] {
				seen[id] = true
				out = append(out, `{"type":"item_reference","id":"`+id+`"}`)
			}
		}
		return strings.Join(out, ",")
	}
	body := func(stream bool, items string) string {
		return `{"model":"beam","stream":` + strconv.FormatBool(stream) + `,"input":[{"role":"user","content":"Run ls"}` + items + `],` + responsesRecallTools + `}`
	}
	callID := regexp.MustCompile(`"call_id":"(call_[0-9a-f]+)"`)
	for _, stream := range []bool{false, true} {
		t.Run("stream="+strconv.FormatBool(stream), func(t *testing.T) {
			resp, data := do(t, gw, "POST", "/v1/responses", body(stream, ""), auth("key-one"))
			m := callID.FindSubmatch(data)
			if resp.StatusCode != 200 || m == nil {
				t.Fatalf("first: %d %s", resp.StatusCode, data)
			}
			turn1 := "," + refs(data) + `,{"type":"function_call_output","call_id":"` + string(m[1]) + `","output":"a.txt"}`
			if strings.Count(turn1, "item_reference") != 2 {
				t.Fatalf("first: want a reasoning and a function_call item: %s", data)
			}
			resp, data = do(t, gw, "POST", "/v1/responses", body(stream, turn1), auth("key-one"))
			if resp.StatusCode != 200 {
				t.Fatalf("second: %d %s", resp.StatusCode, data)
			}
			const callTurn = "<|channel|>analysis<|message|>I should list the files.<|end|><|start|>assistant to=bash"
			if p := fe.lastRequest(t).Prompt; !strings.Contains(p, callTurn) || !strings.Contains(p, "<|start|>bash to=assistant") {
				t.Errorf("second: the referenced call is not in the prompt:\n%s", p)
			}
			turn2 := turn1 + "," + refs(data) + `,{"role":"user","content":"Thanks"}`
			if resp, data = do(t, gw, "POST", "/v1/responses", body(stream, turn2), auth("key-one")); resp.StatusCode != 200 {
				t.Fatalf("third: %d %s", resp.StatusCode, data)
			}
			// The members of the items the gateway wrote that it does not
			// read (a message part's annotations) are not the client's.
			if u := resp.Header.Get(UnenforcedHeader); u != "" {
				t.Errorf("third: %s: %s", UnenforcedHeader, u)
			}
			const answerTurn = "<|channel|>analysis<|message|>The listing is back.<|end|><|start|>assistant<|channel|>final<|message|>There is one file: a.txt."
			if p := fe.lastRequest(t).Prompt; !strings.Contains(p, callTurn) || !strings.Contains(p, answerTurn) {
				t.Errorf("third: the referenced turns are not in the prompt:\n%s", p)
			}
			for _, c := range []struct {
				name, key, body, want string
				gw                    *httptest.Server
			}{
				{"another key", "key-two", body(stream, turn1), "does not hold", gw},
				{"unknown id", "key-one", body(stream, `,{"type":"item_reference","id":"rs_0123456789abcdef"}`), "does not hold", gw},
				{"memory off", "", body(stream, turn1), "set store: false in the client", off},
			} {
				resp, data := do(t, c.gw, "POST", "/v1/responses", c.body, auth(c.key))
				if resp.StatusCode != 400 || !strings.Contains(string(data), `"stateless"`) || !strings.Contains(string(data), c.want) {
					t.Errorf("%s: %d %s", c.name, resp.StatusCode, data)
				}
			}
		})
	}
}
