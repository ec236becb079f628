package harmony

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/beamharmony/harmony/internal/corpus"
	"github.com/beamharmony/harmony/internal/jsonpath"
	"github.com/beamharmony/harmony/internal/jsontest"
)

// unreadLists are message lists with members the format does not read,
// at every level ParseMessagesUnread looks at, null values among them.
var unreadLists = []string{
	`[{"role":"user","content":"Hi","refusal":null,"audio":{"id":"a"},"annotations":[],"extra":{},"e2":[0]}]`,
	`[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b","x":null}]}]`,
	`[{"role":"user","content":"q"},{"role":"assistant","reasoning_content":"r","content":null,"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{}","strict":true}}],"annotations":[]},{"role":"tool","tool_call_id":"c1","content":"ok","name":"f","is_error":false}]`,
	`[{"foo":1,"role":"user","content":[{"bar":2,"type":"text","text":"t"}],"foo":3,"content":[{"type":"text","text":"u","baz":4}]}]`,
	`[{"role":"user","content":"x","a b":1,"\u00e9":2}]`,
	`[{"role":"user","content":"x"},{"role":"user","content":"y","z":1}]`,
}

// TestParseMessagesUnread: ParseMessagesUnread decodes as ParseMessages
// does, and reports, in order, each member of a message, a text part, a
// tool call and its function that the format does not read and whose
// value is not null, as an independent walk with encoding/json finds them.
func TestParseMessagesUnread(t *testing.T) {
	lists := slices.Clone(unreadLists)
	for _, c := range append(corpus.Page(), corpus.Generate(7, 300)...) {
		var r struct {
			Messages json.RawMessage `json:"messages"`
		}
		if json.Unmarshal(c.JSON, &r) == nil && len(r.Messages) > 0 && r.Messages[0] == '[' {
			lists = append(lists, string(r.Messages))
		}
	}
	reported := 0
	for _, list := range lists {
		reported += len(checkUnreadMessages(t, []byte(list)))
	}
	if reported < 12 {
		t.Fatalf("only %d members reported in all: the lists no longer test the report", reported)
	}
	var got []string
	if _, err := ParseMessagesUnread([]byte(unreadLists[2]), func(p string) bool { got = append(got, p); return true }); err != nil {
		t.Fatal(err)
	}
	want := []string{"messages[1].tool_calls[0].index", "messages[1].tool_calls[0].function.strict", "messages[2].is_error"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Told to stop after two, it names no more, and decodes the rest.
	got = nil
	messages, err := ParseMessagesUnread([]byte(unreadLists[2]), func(p string) bool { got = append(got, p); return len(got) < 2 })
	if err != nil || len(messages) != 3 || !slices.Equal(got, want[:2]) {
		t.Errorf("stopped after two: %v, %d messages, got %q", err, len(messages), got)
	}
}

func FuzzParseMessagesUnread(f *testing.F) {
	for _, l := range unreadLists {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkUnreadMessages(t, data)
	})
}

// checkUnreadMessages requires ParseMessagesUnread to decode list as
// ParseMessages does and, when it decodes, to report what unreadOracle
// finds; it returns what was reported.
func checkUnreadMessages(t *testing.T, list []byte) []string {
	t.Helper()
	var got []string
	messages, err := ParseMessagesUnread(list, func(p string) bool { got = append(got, p); return true })
	want, wantErr := ParseMessages(list)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() || !reflect.DeepEqual(messages, want) {
		t.Fatalf("%.200q: ParseMessagesUnread %v, ParseMessages %v", list, err, wantErr)
	}
	if err != nil {
		return nil
	}
	if oracle := unreadOracle(t, list); !slices.Equal(got, oracle) {
		t.Fatalf("%.300q:\n got %q\nwant %q", list, got, oracle)
	}
	return got
}

// unreadOracle walks list, a list of messages that decodes, with
// encoding/json's tokens: in order, each occurrence of a member of a
// message not among messageKeys, of a text part other than type and text,
// of a tool call other than id, type and function, and of the last
// function of a call other than name and arguments, when its value holds
// something (not null, [] or {}).
func unreadOracle(t *testing.T, list []byte) []string {
	var out []string
	var elems []json.RawMessage
	if err := json.Unmarshal(list, &elems); err != nil {
		t.Fatal(err)
	}
	for i, raw := range elems {
		path := messagePath(i)
		for _, m := range jsontest.Members(t, raw) {
			switch {
			case m.Key == "content" && bytes.TrimSpace(m.Value)[0] == '[':
				var parts []json.RawMessage
				_ = json.Unmarshal(m.Value, &parts)
				for j, p := range parts {
					out = others(t, out, p, path+".content["+strconv.Itoa(j)+"]", "type", "text")
				}
			case m.Key == "tool_calls" && bytes.TrimSpace(m.Value)[0] == '[':
				var calls []json.RawMessage
				_ = json.Unmarshal(m.Value, &calls)
				for j, c := range calls {
					cp := path + ".tool_calls[" + strconv.Itoa(j) + "]"
					out = others(t, out, c, cp, "id", "type", "function")
					var fn json.RawMessage
					for _, cm := range jsontest.Members(t, c) {
						if cm.Key == "function" {
							fn = cm.Value
						}
					}
					out = others(t, out, fn, cp+".function", "name", "arguments")
				}
			case !slices.Contains(messageKeys, m.Key) && !jsontest.HoldsNothing(m.Value):
				out = append(out, jsonpath.Key(path, m.Key))
			}
		}
	}
	return out
}

// others appends the members of the object raw not among known and
// holding something, as paths under path.
func others(t *testing.T, out []string, raw json.RawMessage, path string, known ...string) []string {
	for _, m := range jsontest.Members(t, raw) {
		if !slices.Contains(known, m.Key) && !jsontest.HoldsNothing(m.Value) {
			out = append(out, jsonpath.Key(path, m.Key))
		}
	}
	return out
}
