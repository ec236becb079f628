package serve

import "testing"

// A chat body whose messages are not a list is refused as a whole, in
// encoding/json's words, before any other field is read; null, absent and
// empty lists are a missing messages error.
func TestChatMessagesNotAList(t *testing.T) {
	for _, tt := range []struct {
		body, code, msg string
	}{
		{`{"model":"beam","messages":"hello"}`, "invalid_json", "request body: messages: must be a list, got string"},
		{`{"model":"beam","messages":{"role":"user"}}`, "invalid_json", "request body: messages: must be a list, got object"},
		{`{"model":"beam","messages":5}`, "invalid_json", "request body: messages: must be a list, got number"},
		{`{"model":"beam","messages":true,"n":"x"}`, "invalid_json", "request body: messages: must be a list, got bool"},
		{`{"model":"beam","Messages":"hello"}`, "invalid_json", "request body: messages: must be a list, got string"},
		{`{"model":"beam","messages":[{"role":"user","content":"a"}],"messages":"x"}`, "invalid_json", "request body: messages: must be a list, got string"},
		{`{"model":"beam","messages":null}`, "missing_messages", "messages: required, a non-empty list of messages"},
		{`{"model":"beam","messages":[]}`, "missing_messages", "messages: required, a non-empty list of messages"},
		{`{"model":"beam"}`, "missing_messages", "messages: required, a non-empty list of messages"},
	} {
		_, aerr := decodeChatRequest([]byte(tt.body), &Config{})
		if aerr == nil || aerr.status != 400 || aerr.code != tt.code || aerr.msg != tt.msg {
			t.Errorf("%s: %+v, want %s %q", tt.body, aerr, tt.code, tt.msg)
		}
	}
}
