package serve

import (
	"bytes"
	"encoding/json"
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
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"f\u006fo":1,"foo":2}`, "foo"},
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"}],"a b":1}`, `["a b"]`},
		{"/v1/messages", `{"model":"beam","max_tokens":10,"mcp_servers":[],"messages":[{"role":"user","content":"Hi"}],"container":"c"}`, "mcp_servers, container"},
		{"/v1/responses", `{"model":"beam","input":"Hi","truncation":"auto","reasoning":{"summary":"auto"},"user":"u"}`, "reasoning.summary, truncation, user"},
	} {
		resp, data := do(t, gw, "POST", c.path, c.body, nil)
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", c.body, resp.StatusCode, data)
			continue
		}
		if got := resp.Header.Get(UnenforcedHeader); got != c.want {
			t.Errorf("%s: %s %q, want %q", c.body, UnenforcedHeader, got, c.want)
		}
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
	for _, m := range membersOf(t, body) {
		if _, found := fs.byName[m.key]; !found && !fs.foldsToField([]byte(m.key)) && string(m.value) != "null" && !strings.EqualFold(m.key, acceptedNoOp) && !slices.Contains(all, m.key) {
			all = append(all, m.key)
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

// member is a member of a JSON object as encoding/json's tokens give it.
type member struct {
	key   string
	value json.RawMessage
}

// membersOf returns the members of body, a valid JSON object, in order,
// repeated keys each time.
func membersOf(t *testing.T, body []byte) []member {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, member{tok.(string), v})
	}
	return out
}
