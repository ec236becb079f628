package serve

import (
	"net/http"

	"github.com/beamharmony/harmony"
)

// chatEndpoint is POST /v1/chat/completions, the OpenAI Chat Completions
// API.
var chatEndpoint = &endpoint{
	name:     "chat completion",
	path:     "/v1/chat/completions",
	idPrefix: "chatcmpl-",
	decode: func(s *Server, body []byte) (reply, *apiError) {
		req, err := decodeRequest(body, &s.cfg)
		if err != nil {
			return nil, err
		}
		return chatReply{req}, nil
	},
	writeError: writeError,
}

// chatReply writes chat.completion objects and chunks.
type chatReply struct{ req *request }

func (r chatReply) request() *request { return r.req }

func (r chatReply) complete(w http.ResponseWriter, c *exchange, p *harmony.Parsed, end genEnd) {
	c.finish = finishReason(end.finish, end.calls)
	writeJSON(w, c.newChatCompletion(&p.Message, c.finish))
}

func (r chatReply) stream(w http.ResponseWriter, c *exchange) streamSink {
	out := newChunkWriter(w, c)
	return &chatStream{c: c, out: out, st: streamer{out: out}}
}

// chatStream writes a streamed chat completion: a chunk per delta, the
// finish chunk, the usage chunk when asked for, and [DONE].
type chatStream struct {
	c   *exchange
	out *chunkWriter
	st  streamer
}

func (s *chatStream) start()                      { s.out.start() }
func (s *chatStream) started() bool               { return s.out.begun }
func (s *chatStream) emit(events []harmony.Event) { s.st.emit(events) }
func (s *chatStream) fail(e *apiError)            { s.out.errorEvent(e) }
func (s *chatStream) flush() error                { return s.out.flush() }

// keepAlive writes an SSE comment, which OpenAI clients skip.
func (s *chatStream) keepAlive() { s.out.comment("keep-alive") }

func (s *chatStream) end(e genEnd) {
	s.c.finish = finishReason(e.finish, e.calls)
	s.out.final(s.c.finish)
	if s.c.req.wantUsage && s.c.usage != nil {
		s.out.usage(s.c.usage)
	}
	s.out.done()
}
