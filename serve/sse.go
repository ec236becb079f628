package serve

import "net/http"

// sseWriter is the one writer of the three APIs' streams: server-sent
// events collected in a buffer and sent at each flush. Chat Completions
// writes data-only events (chunkWriter), the Messages and Responses APIs
// named ones (open, close).
type sseWriter struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	buf    []byte
	begun  bool
	err    error // the first write error: the client is gone
	events int   // named events written, for sequence numbers
}

func newSSEWriter(w http.ResponseWriter) sseWriter {
	return sseWriter{w: w, rc: http.NewResponseController(w), buf: make([]byte, 0, 4096)}
}

// begin sends the headers of an event stream.
func (o *sseWriter) begin() {
	o.begun = true
	h := o.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	o.w.WriteHeader(http.StatusOK)
}

// open starts an event named name; the caller appends its JSON data and
// calls close.
func (o *sseWriter) open(name string) {
	o.buf = append(o.buf, "event: "...)
	o.buf = append(o.buf, name...)
	o.buf = append(o.buf, "\ndata: "...)
	o.events++
}

func (o *sseWriter) close() { o.buf = append(o.buf, "\n\n"...) }

// comment writes an SSE comment line, which clients skip: a keep-alive.
func (o *sseWriter) comment(text string) {
	o.buf = append(o.buf, ": "...)
	o.buf = append(o.buf, text...)
	o.buf = append(o.buf, "\n\n"...)
}

// flush sends what is buffered. It returns the first write error.
func (o *sseWriter) flush() error {
	if o.err != nil || len(o.buf) == 0 {
		return o.err
	}
	if _, err := o.w.Write(o.buf); err != nil {
		o.err = err
		return err
	}
	o.buf = o.buf[:0]
	if err := o.rc.Flush(); err != nil {
		o.err = err
	}
	return o.err
}
