package serve

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMessageThreads: with the memory on, a thread created on the
// Messages API and continued with only the new messages, streamed or not,
// renders the prompt of the same conversation sent whole; a continue from
// a turn already continued, from another API key or from an id the
// gateway never wrote is a 404 thread_not_found, on which Anthropic's SDK
// sends the conversation whole. Without the memory a thread is refused
// with thread_unsupported_request, on which the SDK's tool runner does the
// same (gap decision 277).
func TestMessageThreads(t *testing.T) {
	fe := newFakeEngine(t, recallScript)
	gw := newGateway(t, fe, func(c *Config) { c.ReasoningMemoryBytes = 1 << 20; c.APIKeys = []string{"key-one", "key-two"} })
	auth := func(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }
	const (
		system   = `"system":"Be brief."`
		question = `{"role":"user","content":"Run ls"}`
	)
	body := func(stream bool, fields ...string) string {
		return `{"model":"beam","max_tokens":100,"stream":` + strconv.FormatBool(stream) + `,` + strings.Join(fields, ",") + `}`
	}
	result := func(id string) string {
		return `{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"a.txt"}]}`
	}
	thread := func(prev string) string {
		if prev == "" {
			return `"thread":{"type":"create"}`
		}
		return `"thread":{"type":"continue","previous_message_id":"` + prev + `"}`
	}
	msgs := func(m ...string) string { return `"messages":[` + strings.Join(m, ",") + `]` }
	var reply struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
	}
	post := func(t *testing.T, name, b, key string) []byte {
		t.Helper()
		resp, data := do(t, gw, "POST", "/v1/messages", b, auth(key))
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", name, resp.StatusCode, data)
		}
		return data
	}

	// The conversation sent whole: its second and third prompts.
	data := post(t, "whole, first", body(false, system, messagesRecallTools, msgs(question)), "key-one")
	if err := json.Unmarshal(data, &reply); err != nil {
		t.Fatal(err)
	}
	callID := regexp.MustCompile(`"id":"(toolu_[0-9a-f]+)"`)
	id := string(callID.FindSubmatch(data)[1])
	turn1 := question + `,{"role":"assistant","content":` + string(reply.Content) + `},` + result(id)
	data = post(t, "whole, second", body(false, system, messagesRecallTools, msgs(turn1)), "key-one")
	wantSecond := fe.lastRequest(t).Prompt
	if err := json.Unmarshal(data, &reply); err != nil {
		t.Fatal(err)
	}
	post(t, "whole, third", body(false, system, messagesRecallTools,
		msgs(turn1, `{"role":"assistant","content":`+string(reply.Content)+`}`, `{"role":"user","content":"Thanks"}`)), "key-one")
	wantThird := fe.lastRequest(t).Prompt
	if !strings.Contains(wantThird, "There is one file: a.txt.") || !strings.Contains(wantThird, "Be brief.") {
		t.Fatalf("the whole conversation's third prompt:\n%s", wantThird)
	}

	msgID := regexp.MustCompile(`"id":"(msg_[0-9a-f]+)"`)
	for _, stream := range []bool{false, true} {
		t.Run("stream="+strconv.FormatBool(stream), func(t *testing.T) {
			data := post(t, "create", body(stream, system, messagesRecallTools, msgs(question), thread("")), "key-one")
			first, call := string(msgID.FindSubmatch(data)[1]), string(callID.FindSubmatch(data)[1])
			data = post(t, "continue with the result", body(stream, msgs(result(call)), thread(first)), "key-one")
			if p := fe.lastRequest(t).Prompt; p != wantSecond {
				t.Errorf("continue: the prompt is not the whole conversation's:\n%s\nwant:\n%s", p, wantSecond)
			}
			second := string(msgID.FindSubmatch(data)[1])
			// The thread's system and tools may be sent again as they were.
			post(t, "continue with a question", body(stream, system, msgs(`{"role":"user","content":"Thanks"}`), thread(second)), "key-one")
			if p := fe.lastRequest(t).Prompt; p != wantThird {
				t.Errorf("second continue: the prompt is not the whole conversation's:\n%s\nwant:\n%s", p, wantThird)
			}
			for _, c := range []struct{ name, key, prev string }{
				{"continued already", "key-one", first},
				{"another key", "key-two", second},
				{"never written", "key-one", "msg_0123456789abcdef01234567"},
			} {
				resp, data := do(t, gw, "POST", "/v1/messages", body(stream, msgs(`{"role":"user","content":"Again"}`), thread(c.prev)), auth(c.key))
				if resp.StatusCode != 404 || !strings.Contains(string(data), `"details":{"error_code":"thread_not_found"}`) ||
					!strings.Contains(string(data), `"type":"not_found_error"`) {
					t.Errorf("%s: %d %s", c.name, resp.StatusCode, data)
				}
			}
		})
	}

	// Refusals, each naming its field.
	data = post(t, "create", body(false, system, messagesRecallTools, msgs(question), thread("")), "key-one")
	held := string(msgID.FindSubmatch(data)[1])
	off := newGateway(t, fe)
	for _, c := range []struct {
		name, body, want string
		status           int
	}{
		{"not an object", body(false, msgs(question), `"thread":1`), `"message":"thread: must be an object`, 400},
		{"unknown type", body(false, msgs(question), `"thread":{"type":"fork"}`), `"message":"thread.type: must be \"create\" or \"continue\", got \"fork\""`, 400},
		{"no id", body(false, msgs(question), `"thread":{"type":"continue"}`), `"message":"thread.previous_message_id: required`, 400},
		{"id not a string", body(false, msgs(question), `"thread":{"type":"continue","previous_message_id":7}`), `"message":"thread.previous_message_id: must be a string`, 400},
		{"other tools", body(false, `"tools":[]`, msgs(`{"role":"user","content":"Thanks"}`), thread(held)),
			`"message":"tools: a thread keeps the system prompt and tools it was created with`, 400},
		{"other system", body(false, `"system":"Be long."`, msgs(`{"role":"user","content":"Thanks"}`), thread(held)),
			`"details":{"error_code":"thread_fingerprint_mismatch"}`, 400},
		// A new message's path is its own, not its place in the thread.
		{"bad new message", body(false, msgs(`{"role":"robot","content":"Hi"}`), thread(held)), `"message":"messages[0].role: must be user, assistant or system`, 400},
	} {
		resp, data := do(t, gw, "POST", "/v1/messages", c.body, auth("key-one"))
		if resp.StatusCode != c.status || !strings.Contains(string(data), c.want) {
			t.Errorf("%s: %d %s, want %d and %s", c.name, resp.StatusCode, data, c.status, c.want)
		}
	}
	for _, th := range []string{thread(""), thread(held)} {
		resp, data := do(t, off, "POST", "/v1/messages", body(false, msgs(question), th), nil)
		if resp.StatusCode != 400 || !strings.Contains(string(data), `"details":{"error_code":"thread_unsupported_request","unsupported":["thread"]}`) {
			t.Errorf("without the memory, %s: %d %s", th, resp.StatusCode, data)
		}
	}
}
