package harmony

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/beamharmony/harmony/internal/jsonpath"
	"github.com/beamharmony/harmony/internal/jsontest"
)

// unknownRequests are requests with keys outside the wire shape at every
// level ParseRequest checks: the request, a message, a text part, a tool
// call and its function, a tool and its function, tools as a JSON string,
// repeated keys, values that hold nothing.
var unknownRequests = []string{
	`{"messages": [{"role": "user", "content": "Hi", "refusal": null}], "model": "beam", "tool": []}`,
	`{"messages": [{"role": "user", "content": [{"type": "text", "text": "a", "cache_control": {}}, {"txet": "b", "type": "text", "text": "c"}]}]}`,
	`{"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "reasoning_content": "r", "tool_calls": [{"index": 0, "id": "c", "type": "function", "x": 1, "function": {"name": "f", "arguments": "{}", "strict": true}}]}], "tools": [{"type": "function", "function": {"name": "f", "strict": true, "paramters": {}}, "cache_control": null}]}`,
	`{"tools": "[{\"type\": \"function\", \"function\": {\"name\": \"f\", \"descripton\": \"d\"}, \"extra\": 1}]", "messages": [{"role": "user", "content": "Hi"}], "tools": [{"function": {"name": "g"}, "function": {"name": "h", "nmae": 1}}]}`,
	`{"messages": [{"role": "user", "content": "x", "foo": 1}], "messages": [{"role": "user", "content": [{"type": "text", "text": "y", "bar": 2}], "content": "z", "baz": []}]}`,
}

// FuzzRequestUnknownKeys requires ParseRequest's unknown keys, when a
// request decodes, to be what unknownOracle finds with encoding/json.
func FuzzRequestUnknownKeys(f *testing.F) {
	for _, r := range unknownRequests {
		f.Add([]byte(r))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkUnknownKeys(t, data)
	})
}

func TestRequestUnknownKeysOracle(t *testing.T) {
	for _, r := range unknownRequests {
		if got := checkUnknownKeys(t, []byte(r)); len(got) == 0 {
			t.Errorf("%s: no unknown keys", r)
		}
	}
}

// checkUnknownKeys compares the unknown keys of the request data, when
// it decodes, with unknownOracle's; it returns them.
func checkUnknownKeys(t *testing.T, data []byte) []string {
	t.Helper()
	r, err := ParseRequest(data)
	if err != nil || !json.Valid(data) {
		return nil
	}
	var got []string
	for _, w := range r.UnknownKeys() {
		got = append(got, w.Path)
	}
	if want := unknownOracle(t, data); !slices.Equal(got, want) {
		t.Fatalf("%.300q:\n got %q\nwant %q", data, got, want)
	}
	return got
}

// unknownOracle walks a request that decodes with encoding/json's tokens,
// in ParseRequest's order: the last messages member's messages first, then
// the request's members in order, each tools member's tools (from the
// JSON text a string holds too) where it stands. It lists every member
// outside the wire shape of its object (unknown.go): of the request and of
// a message whatever its value, of the objects within them and of a tool
// when it holds something.
func unknownOracle(t *testing.T, data []byte) []string {
	var out []string
	members := jsontest.Members(t, data)
	var messages json.RawMessage
	for _, m := range members {
		if m.Key == "messages" {
			messages = m.Value
		}
	}
	var elems []json.RawMessage
	_ = json.Unmarshal(messages, &elems)
	for i, raw := range elems {
		path := messagePath(i)
		for _, m := range jsontest.Members(t, raw) {
			switch {
			case m.Key == "content" && isArray(m.Value):
				var parts []json.RawMessage
				_ = json.Unmarshal(m.Value, &parts)
				for j, p := range parts {
					out = unknownOthers(t, out, p, path+".content["+strconv.Itoa(j)+"]", partKeys)
				}
			case m.Key == "tool_calls" && isArray(m.Value):
				var calls []json.RawMessage
				_ = json.Unmarshal(m.Value, &calls)
				for j, c := range calls {
					cp := path + ".tool_calls[" + strconv.Itoa(j) + "]"
					out = unknownOthers(t, out, c, cp, callKeys)
					out = unknownOthers(t, out, lastMember(t, c, "function"), cp+".function", callFunctionKeys)
				}
			case !slices.Contains(messageKeys, m.Key):
				out = append(out, jsonpath.Key(path, m.Key))
			}
		}
	}
	for _, m := range members {
		switch {
		case m.Key == "tools":
			list := m.Value
			var s string
			if json.Unmarshal(m.Value, &s) == nil {
				list = bytes.TrimSpace([]byte(s))
			}
			var tools []json.RawMessage
			_ = json.Unmarshal(list, &tools)
			for j, tool := range tools {
				tp := toolPath(j)
				out = unknownOthers(t, out, tool, tp, toolKeys)
				out = unknownOthers(t, out, lastMember(t, tool, "function"), tp+".function", functionKeys)
			}
		case !slices.Contains(requestKeys, m.Key):
			out = append(out, jsonpath.Key("", m.Key))
		}
	}
	return out
}

func isArray(v json.RawMessage) bool { return bytes.TrimSpace(v)[0] == '[' }

// lastMember is the value of the last member named key of the object raw.
func lastMember(t *testing.T, raw json.RawMessage, key string) json.RawMessage {
	var v json.RawMessage
	for _, m := range jsontest.Members(t, raw) {
		if m.Key == key {
			v = m.Value
		}
	}
	return v
}

// unknownOthers appends the members of the object raw not among known
// and holding something, as paths under path.
func unknownOthers(t *testing.T, out []string, raw json.RawMessage, path string, known []string) []string {
	if len(raw) == 0 {
		return out
	}
	for _, m := range jsontest.Members(t, raw) {
		if !slices.Contains(known, m.Key) && !jsontest.HoldsNothing(m.Value) {
			out = append(out, jsonpath.Key(path, m.Key))
		}
	}
	return out
}
