package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Server is the gateway's HTTP handler: POST /v1/chat/completions,
// GET /v1/models, GET /health and GET /metrics.
type Server struct {
	cfg     Config
	engine  engine
	log     *slog.Logger
	metrics *metrics
	// signer signs the reasoning handed out and checks it coming back.
	signer *signer
}

// New checks cfg and returns a Server.
func New(cfg Config) (*Server, error) {
	base, err := backendBase(cfg.Backend)
	if err != nil {
		return nil, err
	}
	if cfg.MaxTokens < 0 {
		return nil, errors.New("max tokens: must not be negative")
	}
	s := &Server{cfg: cfg, log: cfg.Logger, signer: newSigner(cfg.SigningKey), metrics: newMetrics()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	client := cfg.Client
	if client == nil {
		client = newClient()
	}
	s.engine = engine{base: base, apiKey: cfg.BackendAPIKey, client: client}
	return s, nil
}

// ServeHTTP routes a request. Every reply carries X-Request-Id: the
// client's, when it sent a usable one, else a new one.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := requestID(r.Header.Get("X-Request-Id"))
	w.Header().Set("X-Request-Id", id)
	switch r.URL.Path {
	case "/v1/chat/completions", "/chat/completions":
		s.generate(w, r, id, chatEndpoint)
	case "/v1/messages", "/messages":
		s.generate(w, r, id, messagesEndpoint)
	case "/v1/responses", "/responses":
		s.generate(w, r, id, responsesEndpoint)
	case "/v1/messages/count_tokens", "/messages/count_tokens":
		s.countTokens(w, r, id)
	case "/v1/models", "/models":
		s.onlyGet(w, r, id, s.models)
	case "/health":
		s.onlyGet(w, r, id, s.health)
	case "/metrics":
		s.onlyGet(w, r, id, s.metrics.serveHTTP)
	default:
		s.log.LogAttrs(r.Context(), slog.LevelDebug, "not found", slog.String("request_id", id), slog.String("path", r.URL.Path))
		writeError(w, &apiError{status: http.StatusNotFound, code: "not_found",
			msg: r.Method + " " + r.URL.Path + ": no such endpoint; this gateway serves /v1/chat/completions, /v1/messages, /v1/messages/count_tokens, /v1/responses, /v1/models, /health and /metrics"})
	}
}

func (s *Server) onlyGet(w http.ResponseWriter, r *http.Request, id string, h http.HandlerFunc) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, &apiError{status: http.StatusMethodNotAllowed, code: "method_not_allowed",
			msg: r.Method + " " + r.URL.Path + ": use GET"})
		return
	}
	s.log.LogAttrs(r.Context(), slog.LevelDebug, "request", slog.String("request_id", id), slog.String("path", r.URL.Path))
	h(w, r)
}

// requestID returns the client's id when it is short printable ASCII, else
// a new random one.
func requestID(given string) string {
	if given != "" && len(given) <= 128 {
		ok := true
		for i := 0; i < len(given); i++ {
			if c := given[i]; c < 0x21 || c > 0x7e {
				ok = false
				break
			}
		}
		if ok {
			return given
		}
	}
	return newID("req_")
}

// models serves GET /v1/models: the --model name when the server has one,
// else the engine's own list.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Model != "" {
		b := []byte(`{"object":"list","data":[{"id":`)
		b = appendString(b, s.cfg.Model)
		b = append(b, `,"object":"model","created":0,"owned_by":"beamharmony"}]}`...)
		b = append(b, '\n')
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), DefaultHealthTimeout)
	defer cancel()
	body, aerr := s.engineGet(ctx, "/v1/models")
	if aerr != nil {
		s.logEngineCheck(r, aerr)
		writeError(w, aerr)
		return
	}
	if !json.Valid(body) {
		writeError(w, engineError("engine_bad_reply", "engine's /v1/models is not JSON"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// engineGet fetches path from the engine and returns its 2xx body.
func (s *Server) engineGet(ctx context.Context, path string) ([]byte, *apiError) {
	hr, err := s.engine.newRequest(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return nil, engineError("engine_request", "the gateway could not build the engine request").withDetail(err.Error())
	}
	resp, err := s.engine.client.Do(hr)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, timeoutError(DefaultHealthTimeout.String())
		}
		return nil, engineError("engine_unreachable", "engine unreachable").withDetail(redactError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, statusError(resp)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxEngineError))
	if err != nil {
		return nil, engineError("engine_read", "reading the engine's reply failed").withDetail(redactError(err))
	}
	return body, nil
}

// health serves GET /health: 200 when the engine answers its /health (or,
// lacking one, /v1/models), 503 when it does not, with a body saying which
// (DECISIONS.md, Serving).
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), DefaultHealthTimeout)
	defer cancel()
	_, aerr := s.engineGet(ctx, "/health")
	if aerr != nil && (aerr.status == http.StatusNotFound || aerr.status == http.StatusMethodNotAllowed) {
		_, aerr = s.engineGet(ctx, "/v1/models")
	}
	b := []byte(`{"status":`)
	status := http.StatusOK
	if aerr == nil {
		b = append(b, `"ok","engine":{"url":`...)
		b = appendString(b, s.Backend())
		b = append(b, `,"reachable":true}}`...)
	} else {
		s.logEngineCheck(r, aerr)
		status = http.StatusServiceUnavailable
		b = append(b, `"unavailable","engine":{"url":`...)
		b = appendString(b, s.Backend())
		b = append(b, `,"reachable":false,"error":`...)
		b = appendString(b, aerr.msg)
		b = append(b, "}}"...)
	}
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// logEngineCheck logs a failed engine check of /health or /v1/models, with
// what the client is not told.
func (s *Server) logEngineCheck(r *http.Request, e *apiError) {
	s.log.LogAttrs(r.Context(), slog.LevelWarn, "engine check failed",
		slog.String("request_id", r.Header.Get("X-Request-Id")), slog.String("path", r.URL.Path),
		slog.Int("status", e.status), slog.String("error", e.msg), slog.String("error_detail", e.detail))
}

// Backend returns the engine's base URL as the gateway shows and logs
// it: with any user name and password replaced by xxxxx.
func (s *Server) Backend() string { return redactURL(s.engine.base) }

// RunOptions are the connection limits and timeouts of Run. A field left
// zero takes its default, except ShutdownTimeout, taken as given.
type RunOptions struct {
	// ShutdownTimeout is how long open requests (streams included) may
	// run on once ctx ends; 0 cancels them at once.
	ShutdownTimeout time.Duration
	// ReadHeaderTimeout bounds reading a request's headers
	// (DefaultReadHeaderTimeout). The body has its own bound,
	// Config.BodyTimeout, which the Server applies.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes a kept-alive connection without a new request
	// (DefaultIdleTimeout).
	IdleTimeout time.Duration
	// MaxConns caps the connections open at once (DefaultMaxConns).
	MaxConns int
	// Logger receives the server's own records; nil discards them.
	Logger *slog.Logger
}

// Run serves h on ln until ctx ends, then shuts down gracefully: it stops
// accepting connections and waits up to opts.ShutdownTimeout for open
// requests (streams included) to finish. Requests still open then are
// cancelled, which cancels their engine requests: a Server answers them
// with a 503 (code server_shutdown), or ends their stream with that error
// event, and logs them. Run returns once every request has been logged, or
// shutdownGrace after the deadline at most. It returns nil after a clean
// shutdown, and an error wrapping context.DeadlineExceeded when it had to
// cancel requests.
func Run(ctx context.Context, ln net.Listener, h http.Handler, opts RunOptions) error {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	maxConns := opts.MaxConns
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	base, cancelBase := context.WithCancelCause(context.Background())
	defer cancelBase(nil)
	var open handlers
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			open.add(1)
			defer open.add(-1)
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: orDefault(opts.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		IdleTimeout:       orDefault(opts.IdleTimeout, DefaultIdleTimeout),
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(LimitListener(ln, maxConns)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", slog.Duration("deadline", opts.ShutdownTimeout))
	sctx, cancel := context.WithTimeout(context.Background(), opts.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		log.Warn("shutdown deadline passed; cancelling open requests", slog.Int64("open", open.n.Load()))
		// The handlers see errShutdown as their context's cause: they
		// tell their clients and log. Give them shutdownGrace to finish
		// (their connections then close on their own), then close what
		// is left.
		cancelBase(errShutdown)
		gctx, gcancel := context.WithTimeout(context.Background(), shutdownGrace)
		_ = srv.Shutdown(gctx)
		gcancel()
		_ = srv.Close()
		open.wait(shutdownGrace)
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

// shutdownGrace is how long Run waits, after the shutdown deadline, for
// the cancelled requests to answer and log.
const shutdownGrace = 2 * time.Second

// handlers counts the requests in progress.
type handlers struct {
	mu   sync.Mutex
	n    atomic.Int64
	idle chan struct{} // closed when n falls to 0, while someone waits
}

func (o *handlers) add(d int64) {
	if o.n.Add(d) == 0 {
		o.mu.Lock()
		if o.idle != nil {
			close(o.idle)
			o.idle = nil
		}
		o.mu.Unlock()
	}
}

// wait returns when no request is in progress, or after d.
func (o *handlers) wait(d time.Duration) {
	o.mu.Lock()
	if o.n.Load() == 0 {
		o.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	o.idle = ch
	o.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
