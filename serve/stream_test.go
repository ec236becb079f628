package serve

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
)

// burstEngine sends a replayEngine's events in one write: the gateway
// has them all before it writes its first chunk.
type burstEngine struct{ *replayEngine }

func (e burstEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = w.Write(bytes.Join(e.events, nil))
}

// flushCounter counts the flushes of a streamed reply.
type flushCounter struct {
	*httptest.ResponseRecorder
	flushes int
}

func (w *flushCounter) Flush() {
	w.flushes++
	w.ResponseRecorder.Flush()
}

// TestStreamWritesEventsAheadTogether checks that when the engine is ahead
// of the gateway, the events it has sent go out in one write (up to
// maxBatch of them) instead of one write and flush each, and that the
// reply is the same as when they come one by one.
func TestStreamWritesEventsAheadTogether(t *testing.T) {
	text := answerText(strings.Repeat("Think it through. ", 40), strings.Repeat("The answer is here. ", 60))
	eng := newReplayEngine(text, "<|return|>")
	tokens := eng.tokens()
	body := `{"model":"beam","stream":true,"messages":[{"role":"user","content":"Explain."}]}`
	ids := regexp.MustCompile(`"id":"chatcmpl-[0-9a-f]+","object":"chat.completion.chunk","created":[0-9]+`)
	reply := func(h http.Handler) (string, int) {
		srv := httptest.NewServer(h)
		defer srv.Close()
		client := &http.Client{Transport: &http.Transport{}}
		defer client.CloseIdleConnections()
		s, err := New(Config{Backend: srv.URL, Client: client, PingInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
		s.ServeHTTP(w, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body)))
		if w.Code != 200 {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		return ids.ReplaceAllString(w.Body.String(), `"id":"ID","created":0`), w.flushes
	}
	one, _ := reply(eng)
	burst, flushes := reply(burstEngine{eng})
	if burst != one {
		t.Errorf("the reply differs when the engine is ahead:\n%s\none by one:\n%s", burst, one)
	}
	// Every read of the engine's stream may end inside an event, which
	// costs a flush; a few reads of 32 KiB hold the whole stream.
	if limit := tokens/maxBatch + 8; flushes > limit {
		t.Errorf("%d flushes for %d engine events sent at once, want at most %d", flushes, tokens, limit)
	}
	if strings.Count(burst, "data: ") < tokens/2 {
		t.Errorf("%d events in the reply, want about %d", strings.Count(burst, "data: "), tokens)
	}
}

// TestSSEReaderEvents checks the events the SSE reader returns, whether
// an event's blank line is already read with it or comes later.
func TestSSEReaderEvents(t *testing.T) {
	stream := "data: {\"a\":1}\n\ndata: b\r\n\r\n: comment\ndata: c1\ndata: c2\n\nevent: x\ndata: d\n\ndata:e\n\ndata: f"
	want := []string{`{"a":1}`, "b", "c1\nc2", "d", "e", "f"}
	for _, r := range []func() io.Reader{
		func() io.Reader { return strings.NewReader(stream) },
		func() io.Reader { return iotest.OneByteReader(strings.NewReader(stream)) },
	} {
		s := newSSEReader(r())
		var got []string
		for {
			data, err := s.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(data))
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("events %q, want %q", got, want)
		}
	}
}

// TestTextTail: textTail's last is the last tailLen bytes of everything
// added, for pieces of every length up to past tailLen, across the
// compactions of its buffer.
func TestTextTail(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var tail textTail
	var all []byte
	for i := range 5000 {
		n := r.IntN(tailLen + 4)
		if i%7 == 0 {
			n = r.IntN(3)
		}
		piece := make([]byte, n)
		for k := range piece {
			piece[k] = byte('a' + r.IntN(26))
		}
		tail.add(string(piece))
		all = append(all, piece...)
		want := string(all[max(0, len(all)-tailLen):])
		if got := tail.last(); got != want {
			t.Fatalf("after %d pieces (%d bytes): last() = %q, want %q", i+1, len(all), got, want)
		}
	}
}
