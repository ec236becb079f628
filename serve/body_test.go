package serve

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/corpus"
	"github.com/beamharmony/harmony/internal/jsontest"
)

// bodyCases are bodies on both sides of every rule decodeBody follows:
// the plain case it splits itself and each case it leaves to
// json.Unmarshal.
var bodyCases = []string{
	`{"model":"beam","messages":[{"role":"user","content":"Hi"}]}`,
	` { "model" : "beam" , "messages" : [ {"role":"user","content":"Hi"} , {"role":"assistant","content":null} ] } `,
	`{"model":"beam","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":{}}}],"tool_choice":"auto"}`,
	`{"model":null,"messages":null,"tools":null,"stream":true,"temperature":0.5,"top_k":3,"seed":-1}`,
	`{"messages":"hello"}`,
	`{"messages":{"role":"user"}}`,
	`{"messages":3}`,
	`{"messages":true}`,
	`{"messages":[1,"a",null,true,{},[]]}`,
	`{"model":"a","model":"b"}`,
	`{"messages":[{"role":"user"}],"messages":null}`,
	`{"mod\u0065l":"beam"}`,
	`{"Model":"beam","MESSAGES":[]}`,
	`{"TEMPERATURE":1}`,
	"{\"top_\u212a\":1}",
	"{\"\u017ftream\":true}",
	`{"unknown":[1,2,{"x":null}],"other":"v"}`,
	`{}`,
	`[]`,
	`"body"`,
	`null`,
	`3`,
	``,
	`   `,
	`{`,
	`{"model":"beam"`,
	`{"model":"beam"} x`,
	`{"model":"beam",}`,
	`{"model":NaN}`,
	`{"model":01}`,
	`{"model":"a\x01b"}`,
	`{"model":"\ud800"}`,
	`{"temperature":1e400}`,
	`{"messages":[` + strings.Repeat(`[`, 9997) + strings.Repeat(`]`, 9997) + `]}`,
	`{"messages":[` + strings.Repeat(`[`, 9998) + strings.Repeat(`]`, 9998) + `]}`,
	`{"messages":[` + strings.Repeat(`[`, 9999) + strings.Repeat(`]`, 9999) + `]}`,
	`{"input":[{"type":"message"}],"instructions":"x","system":[{"type":"text","text":"s"}],"stop_sequences":["a"]}`,
	// Messages and content blocks: string and *string fields.
	`{"role":"user","content":"hi"}`,
	`{"role":null,"content":[{"type":"text","text":"a"}]}`,
	`{"role":"us\u0065r","content":"x"}`,
	`{"role":5,"content":"x"}`,
	`{"role":["user"]}`,
	`{"role":"","text":"","thinking":null,"signature":"sig"}`,
	`{"type":"message","role":"user","content":"x","encrypted_content":null,"call_id":"c","arguments":"{}"}`,
	`{"type":"reasoning","encrypted_content":"e","summary":[]}`,
	`{"text":"é 😀 \ud83d\ude00","name":"a\"b"}`,
	`{"text":"tab\there","id":"t\/1"}`,
	"{\"text\":\"\u2028 line separator\"}",
	`{"Text":"x","TYPE":"text"}`,
	`{"text":"a","text":"b"}`,
	`[{"type":"text","text":"x"},{"type":"tool_use","id":"t1","name":"f","input":{"a":1}}]`,
	`[{"type":"text","text":null,"thinking":"t","signature":"s"}]`,
	`[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"r"}]}]`,
	`[1]`,
	`[null]`,
	`[[]]`,
	`[{"type":"text"},"x"]`,
	`[{"type":1}]`,
	`[{"type":"text"},{"Type":"x"}]`,
	`[{"text":"a\u0000b"}]`,
	`[]`,
	` [ { } , { "type" : "text" } ] `,
}

// bodyTypes are the body structs decodeBody fills, as fresh pointers.
var bodyTypes = map[string]func() any{
	"chat":          func() any { return new(chatRequest) },
	"messages":      func() any { return new(messagesBody) },
	"responses":     func() any { return new(responsesBody) },
	"message":       func() any { return new(anthropicMessage) },
	"blocks":        func() any { return new([]contentBlock) },
	"tool":          func() any { return new(anthropicTool) },
	"input item":    func() any { return new(inputItem) },
	"input items":   func() any { return new([]inputItem) },
	"content block": func() any { return new(contentBlock) },
	"text parts":    func() any { return new([]textPart) },
}

// checkDecodeBody requires decodeBody to give what json.Unmarshal gives.
func checkDecodeBody(t *testing.T, body []byte) {
	t.Helper()
	for name, fresh := range bodyTypes {
		got, want := fresh(), fresh()
		gotErr, wantErr := decodeBody(body, got), json.Unmarshal(body, want)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%s %.80q: error %v, json.Unmarshal's %v", name, body, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %.80q:\n got %+v\nwant %+v", name, body, got, want)
		}
		var unread unreadSet
		again := fresh()
		if err := decodeBodyUnread(body, again, &unread); (err == nil) != (wantErr == nil) || err == nil && !reflect.DeepEqual(again, want) {
			t.Fatalf("%s %.80q: decodeBodyUnread %v %+v, json.Unmarshal %v %+v", name, body, err, again, wantErr, want)
		}
		if wantErr == nil {
			checkUnreadSet(t, name, body, reflect.TypeOf(want).Elem(), &unread)
		}
	}
}

// checkUnreadSet requires unread to hold, of body decoded into a value of
// type typ (a struct, or a list of structs), the members whose key no
// field's JSON name equals, ASCII case folded, and whose value is not
// null, cache_control apart: each once per object, in order, at most
// maxUnread. A key with a
// byte above ASCII may be listed or not (encoding/json's Unicode folding
// is left to it).
func checkUnreadSet(t *testing.T, name string, body []byte, typ reflect.Type, unread *unreadSet) {
	t.Helper()
	objects := [][]byte{body}
	if typ.Kind() == reflect.Slice {
		typ, objects = typ.Elem(), nil
		var list []json.RawMessage
		if err := json.Unmarshal(body, &list); err != nil {
			t.Fatal(err)
		}
		for _, e := range list {
			objects = append(objects, e)
		}
	}
	var names []string
	for _, f := range reflect.VisibleFields(typ) {
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != "" && tag != "-" {
			names = append(names, tag)
		}
	}
	var want []unreadMember
	for i, obj := range objects {
		if obj = bytes.TrimSpace(obj); len(obj) == 0 || obj[0] != '{' {
			continue // null in a list of structs
		}
		for _, m := range jsontest.Members(t, obj) {
			read := slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, m.Key) })
			um := unreadMember{i, m.Key}
			if ascii(m.Key) && !read && !jsontest.HoldsNothing(m.Value) && !strings.EqualFold(m.Key, acceptedNoOp) && !slices.Contains(want, um) {
				want = append(want, um)
			}
		}
	}
	got := unread.list
	if !slices.ContainsFunc(got, func(m unreadMember) bool { return !ascii(m.key) }) {
		if n := min(len(want), maxUnread); !slices.Equal(got, want[:n]) || unread.more != (len(want) > maxUnread) {
			t.Fatalf("%s %.120q: unread %+v (more %v), want %+v", name, body, got, unread.more, want)
		}
		return
	}
	for _, m := range got {
		if ascii(m.key) && !slices.Contains(want, m) {
			t.Fatalf("%s %.120q: %+v listed as unread, want %+v", name, body, m, want)
		}
	}
}

func ascii(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func TestDecodeBodyMatchesEncodingJSON(t *testing.T) {
	for _, c := range bodyCases {
		checkDecodeBody(t, []byte(c))
		checkUnread(t, []byte(c))
		checkRawElements(t, []byte(c))
	}
	for _, c := range []string{`[]`, ` [ ] `, `[1]`, `[1,]`, `[,1]`, `[1 2]`, `[{"a":[1,{}]}, "x" ,null]`, `[1] x`, `[`, `[1`, "[\"\xff\"]",
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001)} {
		checkRawElements(t, []byte(c))
	}
	realistic, err := os.ReadFile("../testdata/bench/realistic_request.json")
	if err != nil {
		t.Fatal(err)
	}
	checkDecodeBody(t, realistic)
}

// TestDecodeBodyFastPath: the plain bodies are split by the tape parser,
// not left to json.Unmarshal, and each field is a piece of the body that
// cannot grow into the next.
func TestDecodeBodyFastPath(t *testing.T) {
	body := []byte(`{"model":"beam","messages":[{"role":"user"},{"role":"assistant"}],"temperature":1}`)
	var cr chatRequest
	if !decodeBodyFast(body, reflect.ValueOf(&cr).Elem(), bodyFieldsOf(reflect.TypeFor[chatRequest]()), nil) {
		t.Fatal("the plain body was not split")
	}
	if string(cr.Model) != `"beam"` || string(cr.Messages) != `[{"role":"user"},{"role":"assistant"}]` || string(cr.Temperature) != "1" {
		t.Fatalf("got %+v", cr)
	}
	if cap(cr.Model) != len(cr.Model) || cap(cr.Messages) != len(cr.Messages) {
		t.Fatal("a field's capacity reaches past its value")
	}
	for _, c := range []string{`{"Model":"beam"}`, `{"mod\u0065l":"beam"}`, `{"model":1,"model":2}`, `[]`, `{`} {
		var cr chatRequest
		if decodeBodyFast([]byte(c), reflect.ValueOf(&cr).Elem(), bodyFieldsOf(reflect.TypeFor[chatRequest]()), nil) {
			t.Errorf("%s: split, want it left to json.Unmarshal", c)
		}
	}
}

// TestFunctionStrictMatchesEncodingJSON: functionStrict's split finds
// what nestedStrict (json.Unmarshal into nested structs) finds.
func TestFunctionStrictMatchesEncodingJSON(t *testing.T) {
	tools := []string{
		`{"type":"function","function":{"name":"f","strict":true}}`,
		`{"type":"function","function":{"name":"f","strict":false,"parameters":{"strict":1}}}`,
		`{"type":"function","function":{"name":"f"}}`,
		`{"type":"function","function":{"name":"f","Strict":true}}`,
		`{"type":"function","function":{"name":"f","str\u0069ct":true}}`,
		"{\"function\":{\"\u017ftrict\":true}}",
		`{"function":{"strict":true,"strict":null}}`,
		`{"function":{"strict":true},"function":{"name":"g"}}`,
		`{"Function":{"strict":"yes"}}`,
		`{"function":null}`,
		`{"function":"f"}`,
		`{"function":[{"strict":true}]}`,
		`{}`,
		`[]`,
		`null`,
		`{"type":"function","id":"t1","function":{"name":"f","parameters":{},"strict":true,"x":[1],"cache_control":{},"y":null},"cache_control":{}}`,
		`{"type":"function","z":1,"z":2,"function":{"name":"f","w":1},"function":{"name":"g","v":2}}`,
	}
	for _, tool := range tools {
		if got, want := functionStrict([]byte(tool)), nestedStrict([]byte(tool)); string(got) != string(want) {
			t.Errorf("%s: function.strict %q, json.Unmarshal finds %q", tool, got, want)
		}
		checkToolUnread(t, []byte(tool))
	}
}

// checkPlainString requires plainString to give what json.Unmarshal gives
// whenever it answers.
func checkPlainString(t *testing.T, raw []byte) {
	t.Helper()
	got, ok := plainString(raw)
	if !ok {
		return
	}
	var want string
	if err := json.Unmarshal(raw, &want); err != nil || got != want {
		t.Fatalf("plainString(%q) = %q, json.Unmarshal gives %q (%v)", raw, got, want, err)
	}
}

func TestPlainString(t *testing.T) {
	for _, c := range []struct {
		raw   string
		plain bool
	}{
		{`"hi"`, true}, {`""`, true}, {`"é 😀 <|end|>"`, true}, {"\"\u2028\"", true},
		{`"a\nb"`, false}, {`"\u0041"`, false}, {`"a"b"`, false}, {"\"a\x01\"", false},
		{`"abc`, false}, {`"`, false}, {"\"\f", false}, {`"\`, false}, {`abc"`, false}, {"\"\xff\"", false}, {`null`, false}, {`3`, false},
	} {
		if _, ok := plainString([]byte(c.raw)); ok != c.plain {
			t.Errorf("plainString(%q): plain %v, want %v", c.raw, ok, c.plain)
		}
		checkPlainString(t, []byte(c.raw))
	}
}

// TestBodyFieldsOf: every body type the gateway decodes has the plain
// case (a field type or tag the split cannot read would silently leave
// every body to json.Unmarshal), and the types it cannot read have none.
func TestBodyFieldsOf(t *testing.T) {
	for name, fresh := range bodyTypes {
		typ := reflect.TypeOf(fresh()).Elem()
		if typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if bodyFieldsOf(typ) == nil {
			t.Errorf("%s (%v): no plain case", name, typ)
		}
	}
	type inner struct {
		A json.RawMessage `json:"a"`
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[string](),
		reflect.TypeFor[struct {
			N json.RawMessage `json:"n,omitempty"`
		}](),
		reflect.TypeFor[struct {
			N int `json:"n"`
		}](),
		reflect.TypeFor[struct {
			N json.RawMessage
		}](),
		reflect.TypeFor[struct {
			inner `json:"in"`
		}](),
	} {
		if bodyFieldsOf(typ) != nil {
			t.Errorf("%v: a plain case, want none", typ)
		}
	}
	if fs := bodyFieldsOf(reflect.TypeFor[struct{ inner }]()); fs == nil || len(fs.byName) != 1 {
		t.Errorf("an embedded struct's fields are not promoted: %+v", fs)
	}
}

func FuzzDecodeBody(f *testing.F) {
	for _, c := range bodyCases {
		if len(c) < 1000 {
			f.Add([]byte(c))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkDecodeBody(t, body)
		checkUnread(t, body)
		checkPlainString(t, body)
		checkRawElements(t, body)
		if json.Valid(body) {
			checkToolUnread(t, body)
			if got, want := functionStrict(body), nestedStrict(body); string(got) != string(want) {
				t.Fatalf("%q: function.strict %q, json.Unmarshal finds %q", body, got, want)
			}
		}
	})
}

// TestDecodeMessageListMatchesOneByOne: decoding the messages in one parse
// gives what decoding them one by one gives, messages or first error, on
// the format page's examples, on generated requests (a quarter with an
// error) and on lists built to put an error after a marker in a name.
func TestDecodeMessageListMatchesOneByOne(t *testing.T) {
	var lists [][]json.RawMessage
	for _, c := range append(corpus.Page(), corpus.Generate(7, 600)...) {
		var req struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if json.Unmarshal(c.JSON, &req) == nil && len(req.Messages) > 0 {
			lists = append(lists, req.Messages)
		}
	}
	user := json.RawMessage(`{"role":"user","content":"hi"}`)
	for _, bad := range []string{
		`{"role":"user","name":"a<|end|>","content":"x"}`,
		`{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"{bad"}}]}`,
		`{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"[1]"}}]}`,
		`{"role":3}`,
		`"text"`,
		`{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"}]}`,
		strings.Repeat(`[`, 9999) + strings.Repeat(`]`, 9999),
	} {
		lists = append(lists, []json.RawMessage{user, json.RawMessage(bad), user})
		lists = append(lists, []json.RawMessage{json.RawMessage(`{"role":"user","name":"<|start|>"}`), json.RawMessage(bad)})
	}
	errs := 0
	for _, list := range lists {
		// The list as a body's messages member holds it.
		body := []byte(`{"messages":[`)
		for i, m := range list {
			if i > 0 {
				body = append(body, ',')
			}
			body = append(body, m...)
		}
		var cr chatRequest
		if decodeBody(append(body, "]}"...), &cr) != nil {
			continue // too deep for a body: refused before its messages
		}
		for _, check := range []bool{true, false} {
			got, gotErr := decodeMessageList(cr.Messages, check, nil)
			want, wantErr := decodeMessagesOneByOne(cr.Messages, check)
			if !reflect.DeepEqual(gotErr, wantErr) {
				t.Fatalf("%.200s: error %+v, one by one %+v", list, gotErr, wantErr)
			}
			if wantErr != nil {
				errs++
			} else if !reflect.DeepEqual(got, want) {
				t.Fatalf("%.200s:\n got %+v\nwant %+v", list, got, want)
			}
		}
	}
	if errs < 50 || errs > len(lists) {
		t.Fatalf("%d of %d lists fail to decode: the corpus no longer tests both paths", errs, 2*len(lists))
	}
}

// TestDecodeBodyHostileMemory: a body of many top-level keys is not held
// on a tape or in a map of its keys (it goes to json.Unmarshal after the
// first maxPlainMembers), and a list of scalars where messages belong
// fails without a slice of messages for the whole list. The bounds are
// above what the code allocates (about 5 KB and 28 MB) and below what
// the earlier versions did (a tape of every key: 43 times the body; two
// slices of messages for the whole list: 92 MB).
func TestDecodeBodyHostileMemory(t *testing.T) {
	var keys strings.Builder
	keys.WriteString(`{"model":"beam"`)
	for i := 0; i < 200000; i++ {
		keys.WriteString(`,"k":0`)
	}
	keys.WriteString(`,"messages":[{"role":"user","content":"hi"}]}`)
	zeros := `{"model":"beam","messages":[` + strings.Repeat("0,", 200000) + `0]}`
	for _, c := range []struct {
		name string
		body string
		max  uint64 // bytes allocated by decodeChatRequest
	}{
		{"many keys", keys.String(), 1 << 20},
		{"scalars for messages", zeros, 40 << 20},
	} {
		var cfg Config
		var before, after runtime.MemStats
		body := []byte(c.body)
		runtime.ReadMemStats(&before)
		_, aerr := decodeChatRequest(body, &cfg)
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > c.max {
			t.Errorf("%s: %d bytes allocated for a body of %d, want at most %d", c.name, got, len(c.body), c.max)
		}
		if c.name == "scalars for messages" && aerr == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// checkToolUnread requires functionStrictUnread to collect the members of
// a chat tool and of its function that chatToolMembers and
// chatFunctionMembers do not have, as checkUnreadSet finds them.
func checkToolUnread(t *testing.T, body []byte) {
	t.Helper()
	var tu, fu unreadSet
	got := functionStrictUnread(body, &tu, &fu)
	if want := nestedStrict(body); string(got) != string(want) {
		t.Fatalf("%q: function.strict %q, json.Unmarshal finds %q", body, got, want)
	}
	var tool chatToolMembers
	if json.Unmarshal(body, &tool) != nil {
		if len(tu.list)+len(fu.list) > 0 {
			t.Fatalf("%q: not a tool, yet unread %+v %+v", body, tu.list, fu.list)
		}
		return
	}
	checkUnreadSet(t, "tool", body, reflect.TypeFor[chatToolMembers](), &tu)
	if fn := bytes.TrimSpace(tool.Function); len(fn) > 0 && fn[0] == '{' {
		checkUnreadSet(t, "function", fn, reflect.TypeFor[chatFunctionMembers](), &fu)
	} else if len(fu.list) > 0 {
		t.Fatalf("%q: no function object, yet unread %+v", body, fu.list)
	}
}

// checkRawElements requires rawElements to split a JSON list as
// json.Unmarshal into []json.RawMessage does, and to refuse what it
// refuses; text that is not UTF-8, which the APIs refuse before, it
// refuses too.
func checkRawElements(t *testing.T, body []byte) {
	t.Helper()
	if !utf8.Valid(body) {
		if _, ok := rawElements(body); ok {
			t.Fatalf("%.200q: rawElements splits text that is not UTF-8", body)
		}
		return
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '[' {
		return
	}
	got, ok := rawElements(body)
	var want []json.RawMessage
	err := json.Unmarshal(body, &want)
	if ok != (err == nil) || ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q: rawElements %q %v, json.Unmarshal %q %v", body, got, ok, want, err)
	}
}

// TestDecodeHostileShapes: a body of many small members inside one
// message, or of many blocks in one message's content, is decoded with
// allocation in proportion to it, at most 45 bytes per byte of body (a
// member's value that the API keeps as text is skipped without a tape,
// pyjson.SkipValue; before, the Messages shape allocated 116 bytes per
// byte, four tapes of the whole list). Bytes allocated, never time.
func TestDecodeHostileShapes(t *testing.T) {
	const size = 2 << 20
	var chat, messages strings.Builder
	chat.WriteString(`{"model":"beam","messages":[{"role":"user","content":"x"`)
	for i := 0; chat.Len() < size; i++ {
		chat.WriteString(`,"k` + strings.Repeat("a", i%7) + `":1`)
	}
	chat.WriteString(`}]}`)
	messages.WriteString(`{"model":"beam","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"a"}`)
	for messages.Len() < size {
		messages.WriteString(`,{"type":"text","text":"a","z":1}`)
	}
	messages.WriteString(`]}]}`)
	var responses, many strings.Builder
	responses.WriteString(`{"model":"beam","input":[{"role":"user","content":[{"type":"input_text","text":"a"}`)
	for responses.Len() < size {
		responses.WriteString(`,{"type":"input_text","text":"a","z":1}`)
	}
	responses.WriteString(`]}]}`)
	many.WriteString(`{"model":"beam","max_tokens":5,"messages":[{"role":"user","content":"a"}`)
	for many.Len() < size {
		many.WriteString(`,{"role":"user","content":[{"type":"text","text":"a","z":1}]}`)
	}
	many.WriteString(`]}`)
	s, err := New(Config{Backend: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		body   string
		decode func([]byte) *apiError
	}{
		{"chat: one message of many members", chat.String(), func(b []byte) *apiError { _, e := decodeChatRequest(b, &Config{}); return e }},
		{"messages: one message of many blocks", messages.String(), func(b []byte) *apiError { _, e := decodeMessagesRequest(b, s, false, ""); return e }},
		{"messages: many messages", many.String(), func(b []byte) *apiError { _, e := decodeMessagesRequest(b, s, false, ""); return e }},
		{"responses: one item of many parts", responses.String(), func(b []byte) *apiError { _, e := decodeResponsesRequest(b, s, ""); return e }},
	} {
		body := []byte(c.body)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		aerr := c.decode(body)
		runtime.ReadMemStats(&after)
		if aerr != nil {
			t.Errorf("%s: %v", c.name, aerr.msg)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 45*uint64(len(body)) {
			t.Errorf("%s: %d bytes allocated for a body of %d (%.0f per byte), want at most 45 per byte", c.name, got, len(body), float64(got)/float64(len(body)))
		} else {
			t.Logf("%s: %.1f bytes allocated per byte of body", c.name, float64(got)/float64(len(body)))
		}
	}
}
