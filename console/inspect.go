package console

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Record is one request the gateway served, as its inspector keeps it.
// Every text is what went by, or with redaction the same with the message
// text replaced; a field the request never reached is empty.
type Record struct {
	// Seq numbers the records of one inspector from 1; the detail view
	// asks for a record by it.
	Seq uint64 `json:"seq"`
	// ID is the request's X-Request-Id.
	ID       string    `json:"id"`
	Time     time.Time `json:"time"`
	API      string    `json:"api"`  // the endpoint: chat.completions, responses, messages
	Path     string    `json:"path"` // the URL path the client called
	Model    string    `json:"model,omitempty"`
	Stream   bool      `json:"stream"`
	Status   int       `json:"status"`
	Redacted bool      `json:"redacted"`
	// Body is the client's request body.
	Body string `json:"body"`
	// Prompt is the rendered prompt and Spans its assistant spans in
	// characters, as the playground shows them.
	Prompt string   `json:"prompt"`
	Spans  [][2]int `json:"assistant_spans"`
	// Grammar is the grammar sent to the engine, in its dialect (empty
	// for free generation).
	Grammar string `json:"grammar,omitempty"`
	// EngineRequest is the completion request sent to the engine (JSON).
	EngineRequest string `json:"engine_request,omitempty"`
	// Generation is the raw text the engine generated, before parsing.
	Generation string `json:"generation"`
	// Reply is the parsed message (the page's JSON shape).
	Reply string `json:"reply,omitempty"`
	// Finish is the generation's finish reason.
	Finish string `json:"finish,omitempty"`
	// Replica is the engine replica that got the request; Route how the
	// router chose it.
	Replica string `json:"replica,omitempty"`
	Route   string `json:"route,omitempty"`
	// Timings are in seconds.
	Timings Timings `json:"timings"`
	// PromptTokens and CompletionTokens are the engine's usage.
	PromptTokens     int64 `json:"prompt_tokens,omitempty"`
	CompletionTokens int64 `json:"completion_tokens,omitempty"`
	// Error is the error the client got, and ErrorDetail what the log
	// adds that the client is not told.
	Error       string   `json:"error,omitempty"`
	ErrorDetail string   `json:"error_detail,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	// Cut names the fields cut to fit the inspector's byte budget.
	Cut []string `json:"cut,omitempty"`
}

// Timings are a request's durations, in seconds.
type Timings struct {
	// Queue is the wait for a slot to prepare the request in.
	Queue float64 `json:"queue"`
	// Prepare is decoding, rendering and compiling the grammar.
	Prepare float64 `json:"prepare"`
	// FirstToken is the time to the first generated text (a stream), or
	// to the engine's whole reply.
	FirstToken float64 `json:"first_token,omitempty"`
	Total      float64 `json:"total"`
	// TokensPerSecond is the completion tokens over the generation's
	// time after its first token (0 when unknown).
	TokensPerSecond float64 `json:"tokens_per_second,omitempty"`
}

// size is the bytes the record holds, near enough for the byte budget.
func (r *Record) size() int64 {
	n := 512 + len(r.ID) + len(r.API) + len(r.Path) + len(r.Model) + len(r.Body) + len(r.Prompt) + 16*len(r.Spans) +
		len(r.Grammar) + len(r.EngineRequest) + len(r.Generation) + len(r.Reply) + len(r.Error) + len(r.ErrorDetail) +
		len(r.Replica) + len(r.Route)
	for _, w := range r.Warnings {
		n += len(w) + 16
	}
	return int64(n)
}

// fit cuts the record's largest texts until it holds at most budget bytes,
// naming each field cut.
func (r *Record) fit(budget int64) {
	fields := []struct {
		name string
		s    *string
	}{{"engine_request", &r.EngineRequest}, {"body", &r.Body}, {"grammar", &r.Grammar},
		{"prompt", &r.Prompt}, {"generation", &r.Generation}, {"reply", &r.Reply}}
	for r.size() > budget {
		big := -1
		for i, f := range fields {
			if len(*f.s) > 0 && (big < 0 || len(*f.s) > len(*fields[big].s)) {
				big = i
			}
		}
		if big < 0 {
			r.Warnings = nil
			return
		}
		*fields[big].s = ""
		if fields[big].name == "prompt" {
			r.Spans = nil
		}
		r.Cut = append(r.Cut, fields[big].name)
	}
}

// Summary is a record's line in the list view.
type Summary struct {
	Seq              uint64    `json:"seq"`
	ID               string    `json:"id"`
	Time             time.Time `json:"time"`
	API              string    `json:"api"`
	Model            string    `json:"model,omitempty"`
	Stream           bool      `json:"stream"`
	Status           int       `json:"status"`
	Total            float64   `json:"total"`
	PromptTokens     int64     `json:"prompt_tokens,omitempty"`
	CompletionTokens int64     `json:"completion_tokens,omitempty"`
	Replica          string    `json:"replica,omitempty"`
	Error            string    `json:"error,omitempty"`
}

// Inspector keeps the last requests a gateway served, in memory: at most a
// count of them and a budget of bytes, the oldest evicted first. It is
// safe for concurrent use.
type Inspector struct {
	mu       sync.Mutex
	max      int
	budget   int64
	used     int64
	seq      uint64
	records  []*Record // oldest first
	redacted bool
}

// NewInspector returns an inspector that keeps at most n records and at
// most maxBytes bytes of them (maxBytes <= 0: DefaultInspectBytes).
// redacted says the records it gets have their message text replaced, for
// the page to say so.
func NewInspector(n int, maxBytes int64, redacted bool) *Inspector {
	if maxBytes <= 0 {
		maxBytes = DefaultInspectBytes
	}
	return &Inspector{max: max(n, 1), budget: maxBytes, redacted: redacted}
}

// DefaultInspectBytes is an inspector's default byte budget.
const DefaultInspectBytes = 64 << 20

// Add keeps r, cut to fit the budget, and evicts the oldest records past
// the count or the budget. It sets r.Seq.
func (in *Inspector) Add(r *Record) {
	r.fit(in.budget)
	in.mu.Lock()
	defer in.mu.Unlock()
	in.seq++
	r.Seq = in.seq
	in.records = append(in.records, r)
	in.used += r.size()
	for len(in.records) > in.max || in.used > in.budget && len(in.records) > 1 {
		in.used -= in.records[0].size()
		in.records[0] = nil
		in.records = in.records[1:]
	}
	if cap(in.records) > 4*in.max+16 {
		in.records = append([]*Record(nil), in.records...)
	}
}

// List returns the records' summaries, newest first.
func (in *Inspector) List() []Summary {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]Summary, 0, len(in.records))
	for i := len(in.records) - 1; i >= 0; i-- {
		r := in.records[i]
		out = append(out, Summary{Seq: r.Seq, ID: r.ID, Time: r.Time, API: r.API, Model: r.Model, Stream: r.Stream,
			Status: r.Status, Total: r.Timings.Total, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
			Replica: r.Replica, Error: r.Error})
	}
	return out
}

// Get returns the record numbered seq, or nil when it is not kept.
func (in *Inspector) Get(seq uint64) *Record {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, r := range in.records {
		if r.Seq == seq {
			return r
		}
	}
	return nil
}

// Bytes returns the bytes the kept records hold.
func (in *Inspector) Bytes() int64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.used
}

// listReply is the requests call's reply.
type listReply struct {
	Requests []Summary `json:"requests"`
	Max      int       `json:"max"`
	Budget   int64     `json:"max_bytes"`
	Bytes    int64     `json:"bytes"`
	Redacted bool      `json:"redacted"`
}

// requests serves GET api/requests (the list) and GET api/requests/SEQ
// (one record).
func (h *Handler) requests(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodGet) {
		return
	}
	in := h.cfg.Inspector
	if in == nil {
		writeError(w, http.StatusNotFound, "the inspector is off: start the gateway with --inspect N to keep the last N requests")
		return
	}
	_, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "requests")
	rest = strings.TrimPrefix(rest, "/")
	if rest == "" {
		writeJSON(w, http.StatusOK, listReply{Requests: in.List(), Max: in.max, Budget: in.budget, Bytes: in.Bytes(), Redacted: in.redacted})
		return
	}
	seq, err := strconv.ParseUint(rest, 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, "requests/"+rest+": want a record number")
		return
	}
	rec := in.Get(seq)
	if rec == nil {
		writeError(w, http.StatusNotFound, "request "+rest+" is no longer kept (the inspector keeps the last "+itoa(in.max)+")")
		return
	}
	writeJSON(w, http.StatusOK, rec)
}
