package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/beamharmony/harmony/grammar"
)

// Server is the gateway's HTTP handler. It serves
//
//	POST /v1/chat/completions        the OpenAI Chat Completions API
//	POST /v1/responses               the OpenAI Responses API (stateless)
//	POST /v1/messages                the Anthropic Messages API
//	POST /v1/messages/count_tokens   the Messages API's token count (needs Config.Tokenizer; 501 without)
//	GET  /v1/models                  Config.Model, or the engine's list
//	GET  /health                     200 when the engine answers, 503 when not
//	GET  /metrics                    Prometheus metrics (see Config.SeparateMetrics)
//
// each also without its /v1 prefix. With Config.APIKeys every endpoint but
// /health needs a key, and /health details the engine only to a request
// with one; Config.CORSOrigins lets browser pages of those origins call it.
type Server struct {
	cfg Config
	// engine is the first replica: it answers engine detection and
	// /v1/models; engines are all of them, in Config.Backends' order, and
	// router spreads the requests over them.
	engine  engine
	engines []engine
	router  *router
	log     *slog.Logger
	metrics *gatewayMetrics
	// signer signs the reasoning handed out and checks it coming back.
	signer *signer
	// keys are the accepted API keys; nil when the server takes none.
	keys       atomic.Pointer[keySet]
	corsPolicy *corsPolicy
	// prepare holds a slot per request being decoded, rendered and
	// tokenized.
	prepare chan struct{}
	// grammars caches the compiled grammars of constrained requests;
	// kind is the engine's kind as detected (Config.Engine auto).
	grammars *grammar.Cache
	kind     kindState
	// tokenizerWarned is done once the warning of warnEngineTokenizer is
	// logged.
	tokenizerWarned sync.Once
	// modelLen is the model's context length: Config.MaxModelLen, or
	// what DetectContextLength read from the engines.
	modelLen modelLength
	// web runs the hosted web search's calls; nil when it is off.
	web *webClient
	// memory keeps the reasoning of the turns the gateway wrote, for
	// clients that send them back without it (recall.go); nil when off.
	memory *reasoningMemory
	// conversations holds the Messages API's threads and the Responses
	// API's responses (threads.go, previous.go): half of the memory's
	// bytes, apart, so that whole conversations do not push out the
	// reasoning turns and items the rest holds; nil when the memory is off.
	conversations *reasoningMemory
	// inspect keeps the last requests for the console (Inspect; nil: off);
	// console serves /console/ (inspect.go).
	inspect     *inspectState
	consoleOnce sync.Once
	console     http.Handler
}

// New checks cfg and returns a Server.
func New(cfg Config) (*Server, error) {
	backends := cfg.Backends
	switch {
	case len(backends) == 0:
		backends = []Backend{{URL: cfg.Backend}}
	case cfg.Backend != "":
		return nil, errors.New("backend: set Backend or Backends, not both")
	}
	var bases []string
	for _, b := range backends {
		base, err := backendBase(b.URL)
		if err != nil {
			return nil, err
		}
		if b.Weight < 0 || math.IsNaN(b.Weight) || math.IsInf(b.Weight, 0) {
			return nil, fmt.Errorf("backend %s: the weight must be a positive number", redactURL(base))
		}
		for _, seen := range bases {
			if seen == base {
				return nil, fmt.Errorf("backend %s: given twice", redactURL(base))
			}
		}
		bases = append(bases, base)
	}
	var err error
	if cfg.MaxTokens < 0 {
		return nil, errors.New("max tokens: must not be negative")
	}
	if cfg.MaxModelLen < 0 {
		return nil, errors.New("max model length: must not be negative")
	}
	if cfg.ReasoningMemoryBytes < 0 {
		return nil, errors.New("reasoning memory: must not be negative")
	}
	if cfg.PrepareConcurrency < 0 || cfg.MaxPromptBytes < 0 {
		return nil, errors.New("prepare concurrency and max prompt bytes: must not be negative")
	}
	if cfg.Routing.NewConversations, err = ParseRouteNew(cfg.Routing.NewConversations); err != nil {
		return nil, err
	}
	if cfg.Engine > EngineSGLang {
		return nil, errors.New("engine: use EngineAuto, EngineLlamaCpp, EngineVLLM or EngineSGLang")
	}
	s := &Server{cfg: cfg, log: cfg.Logger, signer: newSigner(cfg.SigningKey), metrics: newMetrics(),
		grammars: grammar.NewCache(grammarCacheBytes), memory: newReasoningMemory(cfg.ReasoningMemoryBytes - cfg.ReasoningMemoryBytes/2),
		conversations: newReasoningMemory(cfg.ReasoningMemoryBytes / 2)}
	if len(cfg.APIKeys) > 0 {
		ks, err := newKeySet(cfg.APIKeys)
		if err != nil {
			return nil, err
		}
		s.keys.Store(ks)
	}
	if s.corsPolicy, err = newCORSPolicy(cfg.CORSOrigins); err != nil {
		return nil, err
	}
	if cfg.MaxModelLen > 0 {
		s.modelLen.lower(int64(cfg.MaxModelLen), "--max-model-len")
	}
	s.prepare = make(chan struct{}, cfg.prepareConcurrency())
	if s.web, err = newWebClient(&cfg.WebSearch); err != nil {
		return nil, err
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	client := cfg.Client
	if client == nil {
		client = newClient()
	}
	s.router = newRouter(cfg.Routing)
	for i, base := range bases {
		e := engine{base: base, apiKey: cfg.BackendAPIKey, client: client}
		s.engines = append(s.engines, e)
		s.router.add(base, backends[i].Weight)
	}
	s.engine = s.engines[0]
	s.metrics.addReplicas(s.router, s.Backends())
	s.warnEngineTokenizer(cfg.Engine)
	return s, nil
}

// route is one endpoint: who it speaks to, and how.
type route struct {
	// name labels the endpoint in logs.
	name string
	// family says where its key comes from and the shape of its errors.
	family apiFamily
	// methods are the methods it answers.
	methods []string
	// open endpoints need no key (/health).
	open bool
	// ep is the generating endpoint, which logs and counts its own
	// requests; nil for the others.
	ep    *endpoint
	serve func(s *Server, w http.ResponseWriter, r *http.Request, id string, auth authCheck)
}

var (
	postOnly = []string{http.MethodPost}
	getOnly  = []string{http.MethodGet, http.MethodHead}
)

func generating(ep *endpoint, fam apiFamily) *route {
	return &route{name: ep.name, family: fam, methods: postOnly, ep: ep,
		serve: func(s *Server, w http.ResponseWriter, r *http.Request, id string, _ authCheck) {
			s.generate(w, r, id, ep, fam)
		}}
}

var routes = func() map[string]*route {
	chat := generating(chatEndpoint, familyOpenAI)
	responses := generating(responsesEndpoint, familyOpenAI)
	messages := generating(messagesEndpoint, familyAnthropic)
	count := &route{name: countTokensEndpoint.name, family: familyAnthropic, methods: postOnly, ep: countTokensEndpoint,
		serve: func(s *Server, w http.ResponseWriter, r *http.Request, id string, _ authCheck) {
			s.countTokens(w, r, id)
		}}
	models := &route{name: "models", family: familyEither, methods: getOnly,
		serve: func(s *Server, w http.ResponseWriter, r *http.Request, _ string, _ authCheck) { s.models(w, r) }}
	health := &route{name: "health", family: familyEither, methods: getOnly, open: true,
		serve: func(s *Server, w http.ResponseWriter, r *http.Request, _ string, auth authCheck) {
			s.health(w, r, auth == authOff || auth == authOK)
		}}
	metrics := &route{name: "metrics", family: familyEither, methods: getOnly,
		serve: func(s *Server, w http.ResponseWriter, r *http.Request, id string, _ authCheck) {
			if s.cfg.SeparateMetrics {
				s.notFound(w, r, id, "GET /metrics: served on the metrics listener (--metrics-listen), not here")
				return
			}
			s.metrics.serveHTTP(w, r)
		}}
	return map[string]*route{
		"/v1/chat/completions": chat, "/chat/completions": chat,
		"/v1/responses": responses, "/responses": responses,
		"/v1/messages": messages, "/messages": messages,
		"/v1/messages/count_tokens": count, "/messages/count_tokens": count,
		"/v1/models": models, "/models": models,
		"/health":  health,
		"/metrics": metrics,
	}
}()

// endpointList is what a 404 says the gateway serves.
const endpointList = "/v1/chat/completions, /v1/responses, /v1/messages, /v1/messages/count_tokens, /v1/models, /health and /metrics"

// ServeHTTP routes a request. Every reply carries X-Request-Id: the
// client's, when it sent a usable one, else a new one. A CORS preflight is
// answered before the key is checked (browsers send none with it); every
// other request to an endpoint but /health needs a valid key when the
// server has keys, then the endpoint's method.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := requestID(r.Header.Get("X-Request-Id"))
	w.Header().Set("X-Request-Id", id)
	rt := s.route(r.URL.Path)
	handled, e := s.cors(w, r, rt)
	switch {
	case handled:
		s.logRequest(r, id, rt, http.StatusNoContent, nil, time.Now())
		return
	case rt == nil:
		s.notFound(w, r, id, r.Method+" "+r.URL.Path+": no such endpoint; this gateway serves "+endpointList)
		return
	case e != nil:
		s.reject(w, r, id, rt, e)
		return
	}
	auth := s.checkAuth(r, rt.family)
	if !rt.open && (auth == authMissing || auth == authInvalid) {
		s.reject(w, r, id, rt, authError(auth, rt.family))
		return
	}
	if !slices.Contains(rt.methods, r.Method) {
		w.Header().Set("Allow", strings.Join(rt.methods, ", "))
		s.reject(w, r, id, rt, &apiError{status: http.StatusMethodNotAllowed, kind: kindMethodNotAllowed, code: "method_not_allowed",
			msg: r.Method + " " + r.URL.Path + ": use " + rt.methods[0]})
		return
	}
	if rt.ep == nil {
		start := time.Now()
		rt.serve(s, w, r, id, auth)
		s.logRequest(r, id, rt, 0, nil, start)
		return
	}
	rt.serve(s, w, r, id, auth)
}

// MetricsHandler serves the Prometheus metrics at /metrics (GET and HEAD)
// without asking for a key, for a listener of their own that only the
// scraper can reach (Config.SeparateMetrics); other paths are a 404.
func (s *Server) MetricsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := requestID(r.Header.Get("X-Request-Id"))
		w.Header().Set("X-Request-Id", id)
		switch {
		case r.URL.Path != "/metrics":
			s.notFound(w, r, id, r.Method+" "+r.URL.Path+": no such endpoint; the metrics listener serves /metrics")
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			w.Header().Set("Allow", "GET, HEAD")
			e := &apiError{status: http.StatusMethodNotAllowed, kind: kindMethodNotAllowed, code: "method_not_allowed", msg: r.Method + " /metrics: use GET"}
			s.logRequest(r, id, nil, e.status, e, time.Now())
			writeError(w, e)
		default:
			s.metrics.serveHTTP(w, r)
		}
	})
}

// notFound answers a request for no endpoint with a 404, logged.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request, id, msg string) {
	e := &apiError{status: http.StatusNotFound, kind: kindNotFound, code: "not_found", msg: msg}
	s.metrics.errors.With(kindNotFound.String()).Inc()
	s.logRequest(r, id, nil, e.status, e, time.Now())
	errorWriterFor(familyEither, r)(w, e)
}

// reject answers a request that does not reach its endpoint (no key, a
// wrong method, a CORS refusal) with e in the route's error shape. A
// generating endpoint's rejection is logged and counted as its other
// failures are.
func (s *Server) reject(w http.ResponseWriter, r *http.Request, id string, rt *route, e *apiError) {
	write := errorWriterFor(rt.family, r)
	if e.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="beamharmony"`)
	}
	if rt.ep != nil {
		c := &exchange{s: s, ep: rt.ep, id: id, start: time.Now(), clientCtx: r.Context()}
		c.httpError(w, e)
		c.finishLog()
		return
	}
	s.logRequest(r, id, rt, e.status, e, time.Now())
	write(w, e)
}

// logRequest writes the log record of a request to an endpoint that is not
// a generating one (or of a request that reached no endpoint): at debug
// level when it succeeded, else at warn (4xx and 501) or error.
func (s *Server) logRequest(r *http.Request, id string, rt *route, status int, e *apiError, start time.Time) {
	level := slog.LevelDebug
	if e != nil {
		level = errorLevel(e.status, e.kind) // a 404 too, as docs/serve.md says of failures
	}
	if !s.log.Enabled(r.Context(), level) {
		return
	}
	name := "not found"
	if rt != nil {
		name = rt.name
	}
	attrs := []slog.Attr{slog.String("request_id", id), slog.String("method", r.Method), slog.String("path", truncateString(r.URL.Path, 200)),
		slog.Float64("duration", time.Since(start).Seconds())}
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	if e != nil {
		attrs = append(attrs, slog.String("error_kind", e.kind.String()), slog.String("error", e.msg))
	}
	s.log.LogAttrs(r.Context(), level, name, attrs...)
}

// errorLevel is the log level of a failed request: error for a server
// failure, warn for a client's, and for a 501 (a valid request the server
// is not configured for).
func errorLevel(status int, kind errorKind) slog.Level {
	if status >= 500 && kind != kindNotImplemented {
		return slog.LevelError
	}
	return slog.LevelWarn
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
		writeJSON(w, &modelList{Object: "list", Data: []modelInfo{{ID: s.cfg.Model, Object: "model", OwnedBy: "beamharmony"}}})
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
	list, err := decodeModels(body)
	if err != nil {
		// What the engine wrote stays in the log.
		aerr := engineError("engine_bad_reply", "the engine's /v1/models is not a model list").
			withDetail(err.Error() + ": " + string(truncate(body, 200)))
		s.logEngineCheck(r, aerr)
		writeError(w, aerr)
		return
	}
	writeJSON(w, list)
}

// engineGet fetches path from the engine (the first replica) and returns
// its 2xx body.
func (s *Server) engineGet(ctx context.Context, path string) ([]byte, *apiError) {
	return s.engine.get(ctx, path)
}

// get fetches path from the engine and returns its 2xx body.
func (e *engine) get(ctx context.Context, path string) ([]byte, *apiError) {
	hr, err := e.newRequest(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return nil, engineError("engine_request", "the gateway could not build the engine request").withDetail(err.Error())
	}
	resp, err := e.client.Do(hr)
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
// lacking one, /v1/models), 503 when it does not (DECISIONS.md, Serving).
// The body says which; with details (no keys configured, or a valid key
// sent) it also names the engine and its error.
func (s *Server) health(w http.ResponseWriter, r *http.Request, details bool) {
	ctx, cancel := context.WithTimeout(r.Context(), DefaultHealthTimeout)
	defer cancel()
	if len(s.engines) > 1 {
		s.healthReplicas(ctx, w, r, details)
		return
	}
	aerr := s.checkReplica(ctx, 0)
	reply := &healthReply{Status: "ok"}
	status := http.StatusOK
	if aerr != nil {
		s.logEngineCheck(r, aerr)
		status = http.StatusServiceUnavailable
		reply.Status = "unavailable"
	}
	if details {
		reply.Engine = &healthEngine{URL: s.Backend(), Reachable: aerr == nil}
		if aerr != nil {
			reply.Engine.Error = &aerr.msg
		}
	}
	writeJSONStatus(w, status, reply)
}

// logEngineCheck logs a failed engine check of /health or /v1/models, with
// what the client is not told.
func (s *Server) logEngineCheck(r *http.Request, e *apiError) {
	s.log.LogAttrs(r.Context(), slog.LevelWarn, "engine check failed",
		slog.String("request_id", r.Header.Get("X-Request-Id")), slog.String("path", r.URL.Path),
		slog.Int("status", e.status), slog.String("error", e.msg), slog.String("error_detail", e.detail))
}

// Backend returns the engine's base URL as the gateway shows and logs
// it: with any user name and password replaced by xxxxx. With several
// backends it is the first one's.
func (s *Server) Backend() string { return redactURL(s.engine.base) }

// Backends returns every backend's base URL, as Backend shows it.
func (s *Server) Backends() []string {
	out := make([]string, len(s.engines))
	for i := range s.engines {
		out[i] = redactURL(s.engines[i].base)
	}
	return out
}
