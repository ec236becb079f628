package serve

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
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
			o.started = true // no headers: the writer is not used
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
