package serve

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/console"
	"github.com/beamharmony/harmony/tokenizer"
)

// The console at /console/ and the request inspector. The console's page
// and its files need no key (they hold nothing but the page); its API
// (/console/api/...) needs one as every endpoint but /health does, and
// follows the gateway's CORS rules. With an inspector (Server.Inspect) the
// gateway keeps its last requests in memory for the console to show.

// ConsolePath is where the gateway serves the console.
const ConsolePath = "/console/"

// Inspect turns the request inspector on: the last n requests (n > 0) are
// kept, within maxBytes bytes (0: console.DefaultInspectBytes), the oldest
// evicted first; with redact each keeps its shape with the message text
// replaced. Call it before the server serves.
func (s *Server) Inspect(n int, maxBytes int64, redact bool) {
	if n <= 0 {
		s.inspect = nil
		return
	}
	s.inspect = &inspectState{in: console.NewInspector(n, maxBytes, redact), redact: redact}
}

// inspectState is a server's inspector and the console that shows it.
type inspectState struct {
	in     *console.Inspector
	redact bool
}

// consoleHandler is the server's console, made at its first use.
func (s *Server) consoleHandler() http.Handler {
	s.consoleOnce.Do(func() {
		cfg := console.Config{MaxBodyBytes: min(s.cfg.maxBodyBytes(), console.DefaultMaxBodyBytes), ReadParquet: s.cfg.ConsoleParquet}
		if tk, ok := s.cfg.Tokenizer.(*tokenizer.Tokenizer); ok {
			cfg.Tokenizer, cfg.TokenizerName = tk, "the gateway's (--tokenizer)"
		}
		if s.inspect != nil {
			cfg.Inspector = s.inspect.in
		}
		s.console = http.StripPrefix(strings.TrimSuffix(ConsolePath, "/"), console.New(cfg))
	})
	return s.console
}

// consolePage serves the console's page and files without a key;
// consoleAPI its calls, with one.
var (
	consolePage = &route{name: "console", family: familyEither, methods: getOnly, open: true,
		serve: func(s *Server, w http.ResponseWriter, r *http.Request, _ string, _ authCheck) {
			if r.URL.Path == strings.TrimSuffix(ConsolePath, "/") {
				http.Redirect(w, r, ConsolePath, http.StatusMovedPermanently)
				return
			}
			s.consoleHandler().ServeHTTP(w, r)
		}}
	consoleAPI = &route{name: "console_api", family: familyEither, methods: []string{http.MethodGet, http.MethodHead, http.MethodPost},
		serve: func(s *Server, w http.ResponseWriter, r *http.Request, _ string, _ authCheck) {
			s.consoleHandler().ServeHTTP(w, r)
		}}
)

// route returns the endpoint of a path: one of routes, or the console's.
func (s *Server) route(path string) *route {
	if rt := routes[path]; rt != nil {
		return rt
	}
	switch {
	case strings.HasPrefix(path, ConsolePath+"api/"):
		return consoleAPI
	case path == strings.TrimSuffix(ConsolePath, "/") || strings.HasPrefix(path, ConsolePath):
		return consolePage
	}
	return nil
}

// inspectRec is what an exchange records for the inspector as it goes.
type inspectRec struct {
	mu         sync.Mutex
	path       string
	body       []byte
	queued     time.Duration // when a prepare slot was had
	prepared   time.Duration // when the request was prepared
	answered   time.Duration // when the engine's whole reply was parsed (not streamed)
	generation strings.Builder
	parsed     *harmony.Parsed
}

// inspectStart begins the exchange's record, when the server inspects.
func (c *exchange) inspectStart(r *http.Request) {
	if c.s.inspect != nil {
		c.insp = &inspectRec{path: r.URL.Path}
	}
}

// inspectBody keeps the client's body.
func (c *exchange) inspectBody(body []byte) {
	if c.insp != nil {
		c.insp.body = body
	}
}

// inspectQueued notes that a prepare slot was had.
func (c *exchange) inspectQueued() {
	if c.insp != nil {
		c.insp.queued = time.Since(c.start)
	}
}

// inspectPrepared notes that the request is rendered and its grammar
// compiled.
func (c *exchange) inspectPrepared() {
	if c.insp != nil {
		c.insp.prepared = time.Since(c.start)
	}
}

// inspectGenerated adds text the engine generated.
func (c *exchange) inspectGenerated(text string) {
	if c.insp == nil {
		return
	}
	c.insp.mu.Lock()
	defer c.insp.mu.Unlock()
	if c.insp.generation.Len() < maxInspectGeneration {
		c.insp.generation.WriteString(text)
	}
}

// maxInspectGeneration caps the generation a record keeps.
const maxInspectGeneration = 4 << 20

// inspectParsed keeps the parsed message.
func (c *exchange) inspectParsed(p *harmony.Parsed) {
	if c.insp == nil {
		return
	}
	c.insp.mu.Lock()
	defer c.insp.mu.Unlock()
	c.insp.parsed = p
	if c.req != nil && !c.req.stream {
		c.insp.answered = time.Since(c.start)
	}
}

// inspectFinish files the exchange's record with the inspector.
func (c *exchange) inspectFinish() {
	ir := c.insp
	if ir == nil {
		return
	}
	ir.mu.Lock()
	defer ir.mu.Unlock()
	total := time.Since(c.start)
	rec := &console.Record{ID: c.id, Time: time.Now().Add(-total), API: c.ep.name, Path: ir.path, Model: c.model,
		Status: c.status, Finish: c.finish, Redacted: c.s.inspect.redact, Body: string(ir.body),
		Prompt: c.prompt, Spans: [][2]int{}, Generation: ir.generation.String()}
	if c.kind != kindNone {
		rec.Error, rec.ErrorDetail = c.errMsg, c.errDetail
	}
	rec.Warnings = append(rec.Warnings, c.warnings...)
	if c.req != nil {
		rec.Stream = c.req.stream
	}
	rec.Timings.Total = total.Seconds()
	rec.Timings.Queue = ir.queued.Seconds()
	if ir.prepared > 0 {
		rec.Timings.Prepare = (ir.prepared - ir.queued).Seconds()
	}
	first := c.firstByte
	if first == 0 {
		first = ir.answered
	}
	rec.Timings.FirstToken = first.Seconds()
	if c.usage != nil {
		rec.PromptTokens, rec.CompletionTokens = c.usage.PromptTokens, c.usage.CompletionTokens
		// Streamed: the tokens after the first over the time they took.
		if gen := total - first; c.req != nil && c.req.stream && first > 0 && gen > 0 && c.usage.CompletionTokens > 1 {
			rec.Timings.TokensPerSecond = float64(c.usage.CompletionTokens-1) / gen.Seconds()
		} else if gen := ir.answered - ir.prepared; ir.answered > 0 && gen > 0 {
			rec.Timings.TokensPerSecond = float64(c.usage.CompletionTokens) / gen.Seconds()
		}
	}
	if c.route != "" {
		rec.Replica, rec.Route = c.s.metrics.replicas.names[c.replica], c.route
	}
	if c.grammar != nil {
		rec.Grammar = c.grammar.GBNF()
		if c.engine == EngineVLLM || c.engine == EngineSGLang {
			rec.Grammar = c.grammar.EBNF()
		}
	}
	var messages []harmony.Message
	if c.req != nil && c.prompt != "" {
		messages = c.req.messages
		if rec.Redacted {
			messages = redactMessages(messages)
		}
		// The spans of the prompt sent; a prompt the gateway changed
		// after rendering (none does today) is shown without them.
		if p, err := harmony.RenderPrompt(messages, &c.req.opts); err == nil && (rec.Redacted || p.Text == c.prompt) {
			rec.Prompt = p.Text
			for _, s := range p.CharSpans() {
				rec.Spans = append(rec.Spans, [2]int{s.Start, s.End})
			}
		} else if rec.Redacted {
			rec.Prompt = "[redacted]"
		}
		cr := c.completionRequest()
		if rec.Redacted {
			// Token ids would give the text back.
			cr.Prompt = rec.Prompt
		}
		if b, err := json.Marshal(cr); err == nil {
			rec.EngineRequest = string(b)
		}
	}
	if ir.parsed != nil {
		m := ir.parsed.Message
		if rec.Redacted {
			m = redactMessages([]harmony.Message{m})[0]
		}
		rec.Reply = string(m.AppendJSON(nil))
	}
	if rec.Redacted {
		rec.Body = redactJSON(ir.body)
		rec.Generation = redactGeneration(rec.Generation)
		if rec.Error != "" {
			rec.Error = "[redacted: " + strconv.Itoa(len(rec.Error)) + " bytes]"
		}
		rec.ErrorDetail, rec.Warnings = "", nil
	}
	c.s.inspect.in.Add(rec)
}

// redacted stands for n bytes of text.
func redacted(n int) string { return "[redacted: " + strconv.Itoa(n) + " bytes]" }

// redactMessages returns copies of messages with their text replaced:
// content, reasoning, and each argument's value.
func redactMessages(messages []harmony.Message) []harmony.Message {
	out := make([]harmony.Message, len(messages))
	for i, m := range messages {
		if m.Content != "" {
			m.Content = redacted(len(m.Content))
		}
		if m.Reasoning != "" {
			m.Reasoning = redacted(len(m.Reasoning))
		}
		if len(m.ToolCalls) > 0 {
			calls := make([]harmony.ToolCall, len(m.ToolCalls))
			for k, tc := range m.ToolCalls {
				tc.Function.Arguments = json.RawMessage(`{"redacted": ` + strconv.Quote(redacted(len(tc.Function.Arguments))) + `}`)
				calls[k] = tc
			}
			m.ToolCalls = calls
		}
		out[i] = m
	}
	return out
}

// keptKeys are the body members whose string values are kept by
// redaction: they name things, they hold no message text.
var keptKeys = map[string]bool{"role": true, "type": true, "model": true, "name": true, "id": true, "tool_call_id": true,
	"call_id": true, "tool_use_id": true, "status": true, "effort": true, "reasoning_effort": true, "tool_choice": true,
	"stop_reason": true, "finish_reason": true, "service_tier": true}

// redactJSON returns a JSON body with every string value replaced but
// those of keptKeys; numbers, booleans, keys and the shape stay. A body
// that is not JSON is replaced whole.
func redactJSON(body []byte) string {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return redacted(len(body))
	}
	v = redactValue(v, "")
	b, err := json.Marshal(v)
	if err != nil {
		return redacted(len(body))
	}
	return string(b)
}

func redactValue(v any, key string) any {
	switch x := v.(type) {
	case string:
		if keptKeys[key] {
			return x
		}
		return redacted(len(x))
	case []any:
		for i := range x {
			x[i] = redactValue(x[i], key)
		}
	case map[string]any:
		for k := range x {
			x[k] = redactValue(x[k], k)
		}
	}
	return v
}

// redactGeneration replaces the text of each message of a generation (what
// follows <|message|>) and keeps the markers and headers.
func redactGeneration(gen string) string {
	var b strings.Builder
	for {
		i := strings.Index(gen, "<|message|>")
		if i < 0 {
			b.WriteString(gen)
			return b.String()
		}
		b.WriteString(gen[:i+len("<|message|>")])
		gen = gen[i+len("<|message|>"):]
		end := len(gen)
		for _, mk := range []string{"<|end|>", "<|return|>", "<|call|>", "<|start|>", "<|channel|>"} {
			if j := strings.Index(gen, mk); j >= 0 && j < end {
				end = j
			}
		}
		if end > 0 {
			b.WriteString(redacted(end))
		}
		gen = gen[end:]
	}
}
