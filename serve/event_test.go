package serve

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/beamharmony/harmony/internal/metrics"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// streamEvents are token events as engines send them: the one-pass
// reader must read each of them itself.
var streamEvents = []string{
	// vLLM
	`{"id":"cmpl-1","object":"text_completion","created":1,"model":"beam","choices":[{"index":0,"text":" step","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`,
	`{"id":"cmpl-1","object":"text_completion","created":1,"model":"beam","choices":[{"index":0,"text":"print(i)\n    \"x\" \u00e9\ud83d\ude00","logprobs":null,"finish_reason":"stop","stop_reason":"<|call|>"}],"usage":null}`,
	`{"id":"cmpl-1","object":"text_completion","created":1,"model":"beam","choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
	// SGLang
	`{"id":"x","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"a","logprobs":null,"finish_reason":"stop","matched_stop":200012}],"usage":null}`,
	// llama.cpp
	`{"choices":[{"text":"é","index":0,"logprobs":null,"finish_reason":null}],"created":1,"model":"m","system_fingerprint":"b1","object":"text_completion","id":"chatcmpl-1"}`,
	// spacing, several choices, an old-style error
	" { \"choices\" : [ { \"index\" : 1 , \"text\" : \"b\" } , { \"text\" : null } ] } \r\n",
	`{"choices":[]}`, `{}`, `{"object":"error","message":"boom\tthere"}`,
}

// otherEvents are read by decodeCompletion: usages, errors, nested
// values, escaped keys and invalid JSON.
var otherEvents = []string{
	`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
	`{"error":{"message":"x","type":"y"}}`,
	`{"choices":[{"index":0,"text":"a","logprobs":{"tokens":["a"]}}]}`,
	`{"cho\u0069ces":[{"text":"a"}]}`,
	`{"object":"\u0065rror","message":"m"}`,
	`{"choices":[{"index":"0","text":"a"}]}`, `{"choices":[{"index":1.0}]}`, `{"choices":[{"text":1}]}`,
	`{"choices":[{"text":"a"}],}`, `{"choices":[{"text":"a` + "\x01" + `"}]}`, `{"choices":[{"text":"\x"}]}`,
	`{"choices":[1]}`, `{"choices":{}}`, "{\"choices\":[{\"text\":\"\xff\"}]}", `[DONE]`, ``, `{"a":nul}`,
	`{"a":01}`, `{"a":-}`, `{"a":1}x`, `{"a" 1}`, `{"a":1 "b":2}`,
}

// TestEventDecoderAgrees checks the one-pass reader against
// decodeCompletion and that it reads the engines' token events itself.
func TestEventDecoderAgrees(t *testing.T) {
	for _, in := range streamEvents {
		var d eventDecoder
		var c completion
		if !d.fast([]byte(in), &c) {
			t.Errorf("%s: not read in one pass", in)
		}
		checkEventDecoder(t, []byte(in))
	}
	for _, in := range otherEvents {
		var d eventDecoder
		var c completion
		if d.fast([]byte(in), &c) {
			t.Errorf("%s: read in one pass, want decodeCompletion", in)
		}
		checkEventDecoder(t, []byte(in))
	}
}

// checkEventDecoder fails t when eventDecoder and decodeCompletion read
// data differently.
func checkEventDecoder(t *testing.T, data []byte) {
	t.Helper()
	var want completion
	wantErr := decodeCompletion(new(pyjson.Doc), data, &want)
	var d eventDecoder
	var fast completion
	if d.fast(data, &fast) {
		if wantErr != nil {
			t.Fatalf("%q: one pass read it, decodeCompletion: %v", data, wantErr)
		}
		if !sameCompletion(fast, want) {
			t.Fatalf("%q: one pass read\n%#v\ndecodeCompletion\n%#v", data, fast, want)
		}
	}
	// decode (with its fallback) reuses one completion, as a stream does.
	got := completion{Choices: make([]completionChoice, 3)}
	err := d.decode(data, &got)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%q: error %v, decodeCompletion %v", data, err, wantErr)
	}
	if err == nil && !sameCompletion(got, want) {
		t.Fatalf("%q: decode read\n%#v\ndecodeCompletion\n%#v", data, got, want)
	}
}

// sameCompletion compares two completions, an empty list of choices
// being the same as none.
func sameCompletion(a, b completion) bool {
	if len(a.Choices) == 0 && len(b.Choices) == 0 {
		a.Choices, b.Choices = nil, nil
	}
	return reflect.DeepEqual(a, b)
}

// FuzzEventDecoder checks the one-pass reader against decodeCompletion
// on arbitrary events.
func FuzzEventDecoder(f *testing.F) {
	for _, s := range streamEvents {
		f.Add([]byte(s))
	}
	for _, s := range otherEvents {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkEventDecoder(t, data)
	})
}

// TestEventDecoderAllocs checks that a token event costs one allocation,
// its text.
func TestEventDecoderAllocs(t *testing.T) {
	data := []byte(streamEvents[0])
	var d eventDecoder
	var c completion
	if n := testing.AllocsPerRun(100, func() {
		if err := d.decode(data, &c); err != nil {
			t.Fatal(err)
		}
	}); n > 1 {
		t.Errorf("%v allocations per event, want 1", n)
	}
}

// checkEventSequence decodes the events with one eventDecoder, as a
// stream does, and fails t unless each reads as decodeCompletion reads it.
func checkEventSequence(t *testing.T, events ...[]byte) {
	t.Helper()
	var d eventDecoder
	var got completion
	// The events share one buffer, as the SSE reader's events do.
	var buf []byte
	for _, ev := range events {
		buf = append(buf[:0], ev...)
		var want completion
		wantErr := decodeCompletion(new(pyjson.Doc), buf, &want)
		err := d.decode(buf, &got)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, decodeCompletion %v", ev, err, wantErr)
		}
		if err == nil && !sameCompletion(got, want) {
			t.Fatalf("%q after %q: decode read\n%#v\ndecodeCompletion\n%#v", ev, events, got, want)
		}
	}
}

// TestEventDecoderSequences checks events read after one of the same
// shape (the text alone differs) and after one of another shape.
func TestEventDecoderSequences(t *testing.T) {
	ev := func(text, finish, stop string) []byte {
		return []byte(`{"id":"cmpl-1","object":"text_completion","created":1,"model":"beam","choices":[{"index":0,"text":` +
			text + `,"logprobs":null,"finish_reason":` + finish + `,"stop_reason":` + stop + `}],"usage":null}`)
	}
	sg := func(stop, text string) []byte {
		return []byte(`{"choices":[{"index":0,"matched_stop":` + stop + `,"text":` + text + `}]}`)
	}
	for _, seq := range [][][]byte{
		{ev(`"a"`, "null", "null"), ev(`" longer text"`, "null", "null"), ev(`"\n\"x\"\u00e9"`, "null", "null"), ev(`""`, "null", "null")},
		{ev(`"a"`, "null", `"<|call|>"`), ev(`"bcd"`, "null", `"<|call|>"`), ev(`"e"`, `"stop"`, `"<|call|>"`)},
		{sg(`"<|x|>"`, `"a"`), sg(`"<|x|>"`, `"bb"`), sg(`200012`, `"bb"`)},
		{ev(`"a"`, "null", "null"), ev(`null`, "null", "null"), ev(`1`, "null", "null"), ev(`"a","text":"b"`, "null", "null"), ev(`"c"`, "null", "null")},
		{ev(`"a"`, "null", "null"), ev(`"a`, "null", "null"), ev(`"a"`+"\x01", "null", "null"), ev(`"\x"`, "null", "null"), ev("\"\xff\"", "null", "null")},
		{[]byte(`{"choices":[{"text":"a"},{"text":"b"}]}`), []byte(`{"choices":[{"text":"c"},{"text":"b"}]}`)},
		{[]byte(`{"choices":[{"text":"a","text":"b"}]}`), []byte(`{"choices":[{"text":"c","text":"b"}]}`)},
	} {
		checkEventSequence(t, seq...)
	}
	var d eventDecoder
	var c completion
	if err := d.decode(ev(`"a"`, "null", `"<|call|>"`), &c); err != nil {
		t.Fatal(err)
	}
	if !d.sameShape(ev(`"bcd"`, "null", `"<|call|>"`), &c) || c.Choices[0].Text != "bcd" || string(c.Choices[0].StopReason) != `"<|call|>"` {
		t.Errorf("an event of the same shape is not read as one: %#v", c)
	}
}

// FuzzEventDecoderSequence checks an event read after another against
// decodeCompletion.
func FuzzEventDecoderSequence(f *testing.F) {
	for _, s := range streamEvents {
		f.Add([]byte(streamEvents[0]), []byte(s))
		f.Add([]byte(s), []byte(s))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkEventSequence(t, a, b)
	})
}

// TestTokenIntervals checks the inter-token intervals noted for events
// read from the engine's stream: events that came in one read of the
// stream arrived together (interval 0, no clock reading); an event read
// later is timed by the clock, at least the pause before its bytes came.
func TestTokenIntervals(t *testing.T) {
	const pause = 20 * time.Millisecond
	ev := func(text string) string {
		return `data: {"choices":[{"index":0,"text":"` + text + `"}]}` + "\n\n"
	}
	pr, pw := io.Pipe()
	go func() {
		// Two events in one write, which the reader gets in one read,
		// then a pause, then one more.
		_, _ = pw.Write([]byte(ev("a") + ev("b")))
		time.Sleep(pause)
		_, _ = pw.Write([]byte(ev("c")))
		pw.Close()
	}()
	sse := newSSEReader(pr)
	reg := metrics.NewRegistry()
	itl := reg.Histogram("itl", "test", itlBuckets)
	ttft := reg.Histogram("ttft", "test", ttftBuckets)
	g := &streamGen{c: &exchange{start: time.Now()}, ttft: ttft, itl: itl.Batch()}
	for i := range 3 {
		if _, err := sse.next(); err != nil {
			t.Fatal(err)
		}
		// Between "a" and "b" the reader waits for nothing: this sleep
		// is not part of the interval, since "b" arrived with "a".
		time.Sleep(pause)
		g.token(sse.reads())
		g.itl.Flush()
		switch i {
		case 1:
			if itl.Count() != 1 || itl.Sum() != 0 {
				t.Errorf("after a, b: %d intervals, sum %v; want 1, 0 (one read)", itl.Count(), itl.Sum())
			}
		case 2:
			if itl.Count() != 2 || itl.Sum() < pause.Seconds() {
				t.Errorf("after c: %d intervals, sum %v; want 2, at least %v", itl.Count(), itl.Sum(), pause.Seconds())
			}
		}
	}
	if n := ttft.Count(); n != 1 {
		t.Fatalf("ttft observed %d times, want once", n)
	}
}

// TestEventDecoderStrings checks the strings read from events: each keeps
// its value when the buffer it was read from is overwritten and after
// many more events, and the text of an event of the previous one's shape
// costs no allocation of its own.
func TestEventDecoderStrings(t *testing.T) {
	ev := func(text string) []byte {
		return []byte(`{"id":"cmpl-1","object":"text_completion","created":1,"model":"beam","choices":[{"index":0,"text":"` +
			text + `","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`)
	}
	var d eventDecoder
	var c completion
	buf := make([]byte, 0, 512)
	var got, want []string
	for i := range 2000 {
		text := strings.Repeat(string(rune('a'+i%26)), 1+i%40)
		if i%500 == 7 {
			text = strings.Repeat("l", 2000) // longer than a block's quarter
		}
		buf = append(buf[:0], ev(text)...)
		if err := d.decode(buf, &c); err != nil {
			t.Fatal(err)
		}
		got, want = append(got, c.Choices[0].Text), append(want, text)
		clear(buf[:cap(buf)])
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d: text %q, want %q", i, got[i], want[i])
		}
	}
	a, b := ev("some token"), ev("other")
	allocs := testing.AllocsPerRun(1000, func() {
		_ = d.decode(a, &c)
		_ = d.decode(b, &c)
	})
	if allocs != 0 {
		t.Errorf("%v allocations for two events of one shape, want 0 (a block every few hundred)", allocs)
	}
}
