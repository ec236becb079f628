package serve

import (
	"net/http"
	"strconv"
	"time"

	"github.com/beamharmony/harmony/internal/metrics"
)

// errorKind labels a failed request in the metrics and logs.
type errorKind uint8

// The kinds of failure, one metrics series each.
const (
	kindNone             errorKind = iota
	kindBadRequest                 // 400: the request or its template arguments
	kindTooLarge                   // 413: the body limit
	kindEngine4xx                  // the engine refused the request; passed through
	kindEngine                     // 502: the engine failed or answered nonsense
	kindModelOutput                // 502: the generation is not Beam Harmony
	kindTimeout                    // 504: the server's timeout passed
	kindClientClosed               // the client went away before the end
	kindNotFound                   // 404: no such endpoint, or no such thread or response (threads.go, previous.go)
	kindNotImplemented             // 501: what the server cannot do (count_tokens without a tokenizer)
	kindShutdown                   // 503: cut by the server's shutdown deadline
	kindMethodNotAllowed           // 405: an endpoint asked with the wrong method
	kindUnauthorized               // 401: no API key, or a wrong one
	kindForbidden                  // 403: a cross-origin request from an origin not allowed
	kindBusy                       // 503: no turn to decode and tokenize within the request's timeout
	numKinds
)

var kindNames = [numKinds]string{
	kindNone:             "none",
	kindBadRequest:       "bad_request",
	kindTooLarge:         "too_large",
	kindEngine4xx:        "engine_4xx",
	kindEngine:           "engine",
	kindModelOutput:      "model_output",
	kindTimeout:          "timeout",
	kindClientClosed:     "client_closed",
	kindNotFound:         "not_found",
	kindNotImplemented:   "not_implemented",
	kindShutdown:         "server_shutdown",
	kindMethodNotAllowed: "method_not_allowed",
	kindUnauthorized:     "unauthorized",
	kindForbidden:        "forbidden",
	kindBusy:             "busy",
}

func (k errorKind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "unknown"
}

// latencyBuckets are the upper bounds, in seconds, of the request duration
// histograms: from a short answer to a long reasoning stream.
var latencyBuckets = []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

// ttftBuckets bound the time to the first token: queueing and prefill.
var ttftBuckets = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// itlBuckets bound the time between two tokens of a stream.
var itlBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 1, 2.5}

// tokenBuckets bound a request's prompt or generated tokens: 16 to 1Mi by
// powers of 4.
var tokenBuckets = []float64{16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1 << 20}

// gatewayMetrics are the gateway's series, in a registry of the server's
// own (docs/serve.md, Metrics), with the Go runtime's and the process's.
type gatewayMetrics struct {
	reg *metrics.Registry

	// The first series, counted over every generating endpoint.
	requests         *metrics.CounterVec // stream
	errors           *metrics.CounterVec // kind
	streamsOpen      *metrics.Gauge
	prepareWaiting   *metrics.Gauge
	promptTokens     *metrics.Counter
	completionTokens *metrics.Counter
	duration         *metrics.Histogram

	// By endpoint.
	endpointRequests *metrics.CounterVec   // endpoint, code
	ttft             *metrics.HistogramVec // endpoint
	itl              *metrics.HistogramVec // endpoint; observed in batches
	e2e              *metrics.HistogramVec // endpoint
	reqPromptTokens  *metrics.HistogramVec // endpoint
	reqGenTokens     *metrics.HistogramVec // endpoint
	engineErrors     *metrics.CounterVec   // kind
	lateInstructions *metrics.CounterVec   // endpoint, placement
	unhonoured       *metrics.CounterVec   // endpoint, kind
	restored         *metrics.CounterVec   // endpoint
	webTools         *metrics.CounterVec   // tool, outcome

	replicas replicaMetrics
}

// engineErrorKinds label beamharmony_engine_errors_total.
var engineErrorKinds = [...]string{"unreachable", "timeout", "status_4xx", "status_5xx", "bad_reply", "stream_cut", "error_event", "finish_reason", "invalid_output", "other"}

// newMetrics returns the series, registered with a new registry alongside
// the Go runtime's and the process's.
func newMetrics() *gatewayMetrics {
	r := metrics.NewRegistry()
	m := &gatewayMetrics{reg: r}
	m.requests = r.CounterVec("beamharmony_requests_total",
		"Generating requests (every API), by whether they streamed.", "stream")
	m.errors = r.CounterVec("beamharmony_errors_total",
		"Failed generating requests, and requests for no endpoint (not_found), by kind of failure.", "kind")
	m.streamsOpen = r.Gauge("beamharmony_streams_open",
		"Streamed replies in progress.")
	m.prepareWaiting = r.Gauge("beamharmony_prepare_waiting",
		"Requests waiting for their turn to be decoded, rendered and tokenized (--prepare-concurrency).")
	m.promptTokens = r.Counter("beamharmony_prompt_tokens_total",
		"Prompt tokens, as counted by the engine.")
	m.completionTokens = r.Counter("beamharmony_completion_tokens_total",
		"Generated tokens, as counted by the engine.")
	m.duration = r.Histogram("beamharmony_request_duration_seconds",
		"Generating request duration, to the last byte.", latencyBuckets)
	m.endpointRequests = r.CounterVec("beamharmony_http_requests_total",
		"Requests to the generating endpoints, by endpoint and HTTP status (499: the client went away).", "endpoint", "code")
	m.ttft = r.HistogramVec("beamharmony_time_to_first_token_seconds",
		"Time from a streamed request's arrival to the engine's first generated text.", ttftBuckets, "endpoint")
	m.itl = r.HistogramVec("beamharmony_inter_token_latency_seconds",
		"Time between two stream events of the engine that carry generated text (one token each on vLLM).", itlBuckets, "endpoint")
	m.e2e = r.HistogramVec("beamharmony_e2e_request_latency_seconds",
		"Time from a request's arrival to the last byte of its reply.", latencyBuckets, "endpoint")
	m.reqPromptTokens = r.HistogramVec("beamharmony_request_prompt_tokens",
		"Prompt tokens of a request, as counted by the engine.", tokenBuckets, "endpoint")
	m.reqGenTokens = r.HistogramVec("beamharmony_request_generation_tokens",
		"Generated tokens of a request, as counted by the engine.", tokenBuckets, "endpoint")
	m.engineErrors = r.CounterVec("beamharmony_engine_errors_total",
		"Failures of the engine, by kind.", "kind")
	m.lateInstructions = r.CounterVec("beamharmony_late_instructions_total",
		"System and developer messages after a message of another role, by where they went: joined to the instructions (before the first assistant turn), a user message in place (after one), or refused (--refuse-late-instructions).",
		"endpoint", "placement")
	m.unhonoured = r.CounterVec("beamharmony_unhonoured_total",
		"Request values left out or not applied, each listed in the X-Beam-Unenforced header: hosted tools, billing-header blocks, deferred tools declared in full, context_management edits, other fields.",
		"endpoint", "kind")
	m.restored = r.CounterVec("beamharmony_reasoning_restored_total",
		"Assistant turns sent back without their reasoning that got it from the gateway's memory (--reasoning-memory-bytes), each listed in the X-Beam-Reasoning-Restored header.",
		"endpoint")
	m.webTools = r.CounterVec("beamharmony_web_tool_calls_total",
		"Calls of the hosted web search's built-in tools (--search-backend), by tool (search, browse) and outcome: ok, or the error code the client sees (unavailable, url_not_allowed, ...).",
		"tool", "outcome")
	r.AddRuntime()
	// Every fixed label value is exported from the start, at 0.
	for _, t := range [...]string{toolSearch, toolBrowse} {
		m.webTools.With(t, "ok")
	}
	for _, v := range [...]string{"false", "true"} {
		m.requests.With(v)
	}
	for k := kindBadRequest; k < numKinds; k++ {
		m.errors.With(k.String())
	}
	for _, k := range engineErrorKinds {
		m.engineErrors.With(k)
	}
	for _, ep := range [...]*endpoint{chatEndpoint, messagesEndpoint, responsesEndpoint} {
		for _, p := range lateInstructionsPlacements {
			m.lateInstructions.With(ep.path, p)
		}
		for _, k := range unhonouredKinds {
			m.unhonoured.With(ep.path, k)
		}
		m.restored.With(ep.path)
	}
	return m
}

// engineErrorKind is the engine_errors_total kind of a failure, or "" for
// one that is not the engine's.
func engineErrorKind(kind errorKind, code string) string {
	switch kind {
	case kindTimeout:
		return "timeout"
	case kindEngine4xx:
		return "status_4xx"
	case kindModelOutput:
		return "invalid_output"
	case kindEngine:
	default:
		return ""
	}
	switch code {
	case "engine_unreachable":
		return "unreachable"
	case "engine_bad_reply":
		return "bad_reply"
	case "engine_stream", "engine_read", "engine_cut":
		return "stream_cut"
	case "engine_error":
		return "error_event"
	case "engine_finish":
		return "finish_reason"
	}
	if len(code) == len("engine_500") && code[:len("engine_5")] == "engine_5" {
		return "status_5xx"
	}
	return "other"
}

// observe records one finished generating request.
func (m *gatewayMetrics) observe(endpoint string, stream bool, status int, kind errorKind, code string, d time.Duration, u *usage) {
	m.requests.With(strconv.FormatBool(stream)).Inc()
	if kind != kindNone {
		m.errors.With(kind.String()).Inc()
		if ek := engineErrorKind(kind, code); ek != "" {
			m.engineErrors.With(ek).Inc()
		}
	}
	m.endpointRequests.With(endpoint, strconv.Itoa(status)).Inc()
	if u != nil {
		m.promptTokens.Add(float64(u.PromptTokens))
		m.completionTokens.Add(float64(u.CompletionTokens))
		m.reqPromptTokens.With(endpoint).Observe(float64(u.PromptTokens))
		m.reqGenTokens.With(endpoint).Observe(float64(u.CompletionTokens))
	}
	m.duration.Observe(d.Seconds())
	m.e2e.With(endpoint).Observe(d.Seconds())
}

// serveHTTP serves the metrics in the Prometheus text exposition format.
func (m *gatewayMetrics) serveHTTP(w http.ResponseWriter, r *http.Request) { m.reg.ServeHTTP(w, r) }
