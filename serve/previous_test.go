package serve

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestPreviousResponseID: with the memory on, a Responses conversation
// carried by previous_response_id, streamed or not, renders the prompt of
// the same conversation sent whole (the instructions are each request's
// own); a response can be continued more than once; one made with store:
// false, for another API key or never written is a 404
// previous_response_not_found; the response object echoes store and
// previous_response_id (gap decision 280).
func TestPreviousResponseID(t *testing.T) {
	fe := newFakeEngine(t, recallScript)
	gw := newGateway(t, fe, func(c *Config) { c.ReasoningMemoryBytes = 1 << 20; c.APIKeys = []string{"key-one", "key-two"} })
	auth := func(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }
	body := func(stream bool, fields ...string) string {
		return `{"model":"beam","stream":` + strconv.FormatBool(stream) + `,` + responsesRecallTools + `,` + strings.Join(fields, ",") + `}`
	}
	post := func(t *testing.T, name, b, key string) []byte {
		t.Helper()
		resp, data := do(t, gw, "POST", "/v1/responses", b, auth(key))
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", name, resp.StatusCode, data)
		}
		return data
	}
	output := func(data []byte) string {
		var r struct {
			Output []json.RawMessage `json:"output"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		var items []string
		for _, it := range r.Output {
			items = append(items, string(it))
		}
		return strings.Join(items, ",")
	}
	callID := regexp.MustCompile(`"call_id":"(call_[0-9a-f]+)"`)
	result := func(id string) string {
		return `{"type":"function_call_output","call_id":"` + id + `","output":"a.txt"}`
	}

	// The conversation sent whole, store: false, without instructions.
	const question = `{"role":"user","content":"Run ls"}`
	data := post(t, "whole, first", body(false, `"store":false`, `"input":[`+question+`]`), "key-one")
	turn1 := question + "," + output(data) + "," + result(string(callID.FindSubmatch(data)[1]))
	data = post(t, "whole, second", body(false, `"store":false`, `"input":[`+turn1+`]`), "key-one")
	wantSecond := fe.lastRequest(t).Prompt
	post(t, "whole, third", body(false, `"store":false`, `"input":[`+turn1+","+output(data)+`,{"role":"user","content":"Thanks"}]`), "key-one")
	wantThird := fe.lastRequest(t).Prompt
	if !strings.Contains(wantThird, "There is one file: a.txt.") || strings.Contains(wantThird, "Be brief.") {
		t.Fatalf("the whole conversation's third prompt:\n%s", wantThird)
	}

	respID := regexp.MustCompile(`"id":"(resp_[0-9a-f]+)"`)
	for _, stream := range []bool{false, true} {
		t.Run("stream="+strconv.FormatBool(stream), func(t *testing.T) {
			data := post(t, "first", body(stream, `"instructions":"Be brief."`, `"input":"Run ls"`), "key-one")
			if !strings.Contains(string(data), `"store":true`) || !strings.Contains(string(data), `"previous_response_id":null`) {
				t.Errorf("first: store and previous_response_id: %s", data)
			}
			first, call := string(respID.FindSubmatch(data)[1]), string(callID.FindSubmatch(data)[1])
			continued := `"previous_response_id":"` + first + `"`
			data = post(t, "second", body(stream, continued, `"input":[`+result(call)+`]`), "key-one")
			if p := fe.lastRequest(t).Prompt; p != wantSecond {
				t.Errorf("second: the prompt is not the whole conversation's:\n%s\nwant:\n%s", p, wantSecond)
			}
			if !strings.Contains(string(data), continued) {
				t.Errorf("second: previous_response_id not echoed: %s", data)
			}
			second := string(respID.FindSubmatch(data)[1])
			post(t, "third", body(stream, `"previous_response_id":"`+second+`"`, `"input":"Thanks"`), "key-one")
			if p := fe.lastRequest(t).Prompt; p != wantThird {
				t.Errorf("third: the prompt is not the whole conversation's:\n%s\nwant:\n%s", p, wantThird)
			}
			// The first response again: a branch of the conversation.
			post(t, "second again", body(stream, continued, `"input":[`+result(call)+`]`), "key-one")
			if p := fe.lastRequest(t).Prompt; p != wantSecond {
				t.Errorf("second again: the prompt is not the whole conversation's:\n%s", p)
			}
			unstored := string(respID.FindSubmatch(post(t, "unstored", body(stream, `"store":false`, `"input":"Run ls"`), "key-one"))[1])
			for _, c := range []struct{ name, key, prev string }{
				{"another key", "key-two", second},
				{"store: false", "key-one", unstored},
				{"never written", "key-one", "resp_0123456789abcdef01234567"},
			} {
				resp, data := do(t, gw, "POST", "/v1/responses", body(stream, `"previous_response_id":"`+c.prev+`"`, `"input":"Again"`), auth(c.key))
				if resp.StatusCode != 404 || !strings.Contains(string(data), `"code":"previous_response_not_found"`) ||
					!strings.Contains(string(data), `"param":"previous_response_id"`) {
					t.Errorf("%s: %d %s", c.name, resp.StatusCode, data)
				}
			}
		})
	}

	data = post(t, "store", body(false, `"store":true`, `"input":"Run ls"`), "key-one")
	held := string(respID.FindSubmatch(data)[1])
	if !strings.Contains(string(data), `"store":true`) {
		t.Errorf("store: true: %s", data)
	}
	for _, c := range []struct{ name, body, want string }{
		{"not a string", body(false, `"previous_response_id":5`, `"input":"Hi"`), `previous_response_id: must be a string`},
		{"empty", body(false, `"previous_response_id":""`, `"input":"Hi"`), `previous_response_id: must be the id of a response`},
		// A new item's path is its own, not its place in the conversation.
		{"bad new item", body(false, `"previous_response_id":"`+held+`"`, `"input":[{"type":"function_call_output"}]`), `"param":"input[0].call_id"`},
		{"conversation", body(false, `"conversation":"conv_1"`, `"input":"Hi"`), `conversation: this gateway keeps no conversations`},
	} {
		resp, data := do(t, gw, "POST", "/v1/responses", c.body, auth("key-one"))
		if resp.StatusCode != 400 || !strings.Contains(string(data), c.want) {
			t.Errorf("%s: %d %s, want %s", c.name, resp.StatusCode, data, c.want)
		}
	}
	off := newGateway(t, fe)
	for _, f := range []string{`"previous_response_id":"` + held + `"`, `"store":true`} {
		resp, data := do(t, off, "POST", "/v1/responses", body(false, f, `"input":"Hi"`), nil)
		if resp.StatusCode != 400 || !strings.Contains(string(data), `"code":"stateless"`) || !strings.Contains(string(data), "--reasoning-memory-bytes") {
			t.Errorf("without the memory, %s: %d %s", f, resp.StatusCode, data)
		}
	}
}
