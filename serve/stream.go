package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/metrics"
)

// A streamed generation: the engine's events parsed as they come and
// written by the API's streamSink, with keep-alives while it is silent.

// stream runs a streamed generation: engine events are parsed as they
// arrive and the parser's events handed to out.
func (c *exchange) stream(w http.ResponseWriter, out streamSink) {
	var held *heldCalls
	if c.req.search != nil {
		held = &heldCalls{streamSink: out}
		out = held
	}
	g := &streamGen{c: c, w: w, out: out, events: make([]harmony.Event, 0, 16),
		ttft: c.s.metrics.ttft.With(c.ep.path), itl: c.s.metrics.itl.With(c.ep.path).Batch()}
	if ka, ok := out.(keepAliver); ok {
		if iv := c.s.cfg.keepAlive(); iv > 0 {
			stop := g.keepAlive(iv, ka)
			defer stop()
		}
	}
	for g.round() && held != nil {
		step, aerr := held.after(g)
		if aerr != nil {
			g.fail(aerr)
			break
		}
		if step != searchAgain {
			c.totalUsage()
			g.finishReply(held.final)
			break
		}
	}
	if held == nil && g.parsed != nil {
		g.finishReply(g.end)
		c.rememberTurn(&g.parsed.Message)
	}
	g.mu.Lock()
	g.itl.Flush()
	g.mu.Unlock()
}

// round runs one engine generation of a stream, and reports whether it
// finished (g.parsed and g.end say how); a failure has been written.
func (g *streamGen) round() bool {
	c := g.c
	g.parsed = nil
	resp, aerr := c.s.send(c, c.completionRequest())
	if aerr != nil {
		g.fail(aerr)
		return false
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		g.fail(engineError("engine_bad_reply", "engine answered a streamed request with Content-Type "+
			quoteText(ct)+", not text/event-stream"))
		return false
	}
	g.parser = harmony.NewStreamParser(c.parseOptions())
	g.hold = stopHold{stops: c.req.stop}
	g.tail = textTail{}
	g.calls, g.cut = 0, false
	if g.sent {
		// A later round: the time the search took is no token's.
		g.lastToken, g.lastRead = time.Since(c.start), ^uint64(0)
	}
	g.run(resp.Body)
	return g.parsed != nil
}

// finishReply writes the close of the stream's reply.
func (g *streamGen) finishReply(end genEnd) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.start()
	g.out.end(end)
	g.over = true
	_ = g.flushLocked()
}

// streamGen is the state of one streamed generation.
type streamGen struct {
	// lastToken is when the engine last sent text, counted from the
	// exchange's start on the monotonic clock, and sent whether it has
	// sent any: the time-to-first-token and inter-token metrics.
	// lastRead is the engine stream's read count at that time: a token
	// taken from bytes read together with the previous one arrived with
	// it, 0 after it, and costs no clock reading.
	lastToken time.Duration
	lastRead  uint64
	sent      bool
	ttft      *metrics.Histogram
	// itl collects the inter-token intervals, added to the histogram
	// with each write (and at the end).
	itl *metrics.Batch

	c      *exchange
	w      http.ResponseWriter
	out    streamSink
	parser *harmony.StreamParser
	events []harmony.Event
	hold   stopHold
	// tail keeps the last bytes given to the parser, enough to tell
	// whether the text ended with an end marker.
	tail  textTail
	calls int
	// cut is set when the call limit ended the generation early.
	cut bool
	// parsed and end are the finished generation's message and how it
	// ended; parsed is nil while it runs and after a failure.
	parsed *harmony.Parsed
	end    genEnd

	// mu serialises writes to out between the stream and the keep-alive
	// timer; wrote is set whenever out sends something, and the timer
	// clears it (no clock reading or timer reset per token).
	mu    sync.Mutex
	wrote bool
	// over is set once the reply is finished or failed.
	over bool
}

// tailLen is how many of the last bytes of a text textTail keeps: more
// than the longest end marker.
const tailLen = 16

// textTail keeps the last tailLen bytes of a text given in pieces. It
// copies them to the start of its buffer only when the buffer is full,
// not at every piece.
type textTail struct {
	buf [16 * tailLen]byte
	n   int
}

// add appends s to the text.
func (t *textTail) add(s string) {
	if len(s) >= tailLen {
		t.n = copy(t.buf[:], s[len(s)-tailLen:])
		return
	}
	if t.n+len(s) > len(t.buf) {
		t.n = copy(t.buf[:], t.buf[t.n-tailLen:t.n])
	}
	t.n += copy(t.buf[t.n:], s)
}

// last returns the text's last tailLen bytes, or all of it when shorter.
func (t *textTail) last() string {
	return string(t.buf[max(0, t.n-tailLen):t.n])
}

// token notes an engine event with generated text in the latency
// metrics; reads is the engine stream's read count once the event is read.
// The event arrived when the last of those reads returned: if that was
// the previous token's read, both came in the same bytes and the
// interval is 0.
func (g *streamGen) token(reads uint64) {
	if g.sent && reads == g.lastRead {
		g.itl.Observe(0)
		return
	}
	now := time.Since(g.c.start)
	if !g.sent {
		g.sent = true
		g.ttft.Observe(now.Seconds())
	} else {
		g.itl.Observe((now - g.lastToken).Seconds())
	}
	g.lastToken, g.lastRead = now, reads
}

// feed gives text to the parser and the events it makes certain to out.
func (g *streamGen) feed(text string) *apiError {
	if text == "" || g.cut {
		return nil
	}
	g.tail.add(text)
	var err error
	g.events, err = g.parser.Feed(text, g.events[:0])
	g.emit()
	if err != nil && !g.cut {
		return modelOutputError(err)
	}
	return nil
}

// emit hands the pending events to out, stopping at a call past the
// request's limit.
func (g *streamGen) emit() {
	events := g.events
	for i := range events {
		e := &events[i]
		if e.Type != harmony.EventRegionOpen || e.Field != harmony.FieldToolCalls {
			continue
		}
		if lim := g.c.req.maxCalls; lim > 0 && g.calls >= lim {
			events = events[:i]
			g.cut = true
			g.c.warnings = append(g.c.warnings, "stopped the generation at a second tool call (parallel tool calls are off)")
			break
		}
		g.calls++
	}
	g.out.emit(events)
}

// maxBatch bounds how many engine events a stream writes together when
// the engine is ahead of it (and so the size of the write).
const maxBatch = 16

// run reads the engine's stream to its end and writes the reply.
func (g *streamGen) run(body io.Reader) {
	c := g.c
	sse := newSSEReader(body)
	finish := ""
	var stopReason json.RawMessage
	var dec eventDecoder
	var comp completion
	batched := 0
	for !g.cut {
		data, err := sse.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			g.fail(c.transportError(err, "engine_stream", "reading the engine's stream"))
			return
		}
		if string(data) == "[DONE]" {
			break
		}
		if err := dec.decode(data, &comp); err != nil {
			g.fail(engineError("engine_bad_reply", "the engine sent an event that is not a completion chunk").
				withDetail(err.Error() + ": " + string(truncate(data, 200))))
			return
		}
		if f := comp.engineFailure(); f != nil {
			g.fail(f)
			return
		}
		c.noteUsage(&comp)
		// One lock an event: the keep-alive timer waits for the write.
		g.mu.Lock()
		if ch := comp.choice(); ch != nil {
			g.start()
			if ch.Text != "" {
				g.token(sse.reads())
				c.inspectGenerated(ch.Text)
			}
			if aerr := g.feed(g.hold.push(ch.Text)); aerr != nil {
				g.failLocked(aerr)
				g.mu.Unlock()
				return
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
				stopReason = append(stopReason[:0], ch.StopReason...)
			}
		}
		// While the engine is ahead, the events it has sent go out
		// together, up to maxBatch of them.
		if batched++; batched >= maxBatch || !sse.ready() {
			err, batched = g.flushLocked(), 0
			g.itl.Flush()
		}
		g.mu.Unlock()
		if err != nil {
			return
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	end := genEnd{finish: finish, calls: g.calls}
	if g.cut {
		end.finish = "stop"
	} else {
		if finish == "" {
			g.failLocked(engineError("engine_cut", "the engine's stream ended before the generation finished"))
			return
		}
		if aerr := checkFinish(finish); aerr != nil {
			g.failLocked(aerr)
			return
		}
		if aerr := g.feed(g.hold.finish(finish, stopReason)); aerr != nil {
			g.failLocked(aerr)
			return
		}
		end.stop = g.hold.matched
		if aerr := g.feed(missingEnd(g.tail.last(), finish, stopReason)); aerr != nil {
			g.failLocked(aerr)
			return
		}
		events, parsed, err := g.parser.Finish(g.events[:0])
		g.events = events
		g.emit()
		if err != nil && !g.cut {
			if finish != "length" {
				g.failLocked(modelOutputError(err))
				return
			}
			c.warnings = append(c.warnings, "cut by length: "+err.Error())
		}
		c.noteParsed(parsed)
		end.calls = g.calls
		if g.cut {
			end.finish, end.stop = "stop", ""
		}
		g.parsed = parsed
	}
	if g.parsed == nil {
		// Cut at the call limit: the events written are the message.
		g.parsed = &harmony.Parsed{}
	}
	g.end = end
}

// start begins the reply and notes the time to its first byte.
func (g *streamGen) start() {
	if g.out.started() {
		return
	}
	g.out.start()
	g.c.firstByte = time.Since(g.c.start)
}

// flushLocked sends what out holds; on a write error the client is gone.
func (g *streamGen) flushLocked() error {
	err := g.out.flush()
	if err != nil {
		g.over = true
		g.c.record(&apiError{status: statusClientClosed, kind: kindClientClosed, msg: "client closed the stream"})
		return err
	}
	g.wrote = true
	return nil
}

// fail ends the stream with e: an HTTP error before the reply has
// started, else the API's error event.
func (g *streamGen) fail(e *apiError) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.failLocked(e)
}

func (g *streamGen) failLocked(e *apiError) {
	g.over = true
	if !g.out.started() {
		g.c.httpError(g.w, e)
		return
	}
	g.c.record(e)
	if e.kind == kindClientClosed {
		return
	}
	g.out.fail(e)
	_ = g.out.flush()
}

// keepAlive starts a timer that writes ka's keep-alive whenever the
// stream has been silent for iv, starting the reply if need be; the
// returned func stops it. The timer ticks every iv/2 and writes after
// two ticks without a write, so the stream is silent at least iv and
// less than 1.5 iv before a keep-alive, as when each write noted its
// time, but the stream's writes only set a flag.
func (g *streamGen) keepAlive(iv time.Duration, ka keepAliver) (stop func()) {
	g.wrote = false
	quiet := 0
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(iv / 2)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-g.c.ctx.Done():
				return
			case <-t.C:
				g.mu.Lock()
				if g.wrote {
					g.wrote, quiet = false, 0
				} else if quiet++; quiet >= 2 && !g.over {
					g.start()
					ka.keepAlive()
					_ = g.flushLocked()
					// The keep-alive is not the stream's: the next one
					// follows iv after it.
					g.wrote, quiet = false, 0
				}
				g.mu.Unlock()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
