package serve

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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
	kindNotFound                   // 404: no such endpoint
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

// tokenBuckets bound a request's prompt or generated tokens.
var tokenBuckets = prometheus.ExponentialBuckets(16, 4, 9) // 16 .. 1Mi

// metrics are the gateway's Prometheus collectors, in a registry of the
// server's own (docs/serve.md, Metrics). The series of the hand-written
// exporter keep their names and labels.
type metrics struct {
	reg *prometheus.Registry
	h   http.Handler

	// The first series, counted over every generating endpoint.
	requests         *prometheus.CounterVec // stream
	errors           *prometheus.CounterVec // kind
	streamsOpen      prometheus.Gauge
	prepareWaiting   prometheus.Gauge
	promptTokens     prometheus.Counter
	completionTokens prometheus.Counter
	duration         prometheus.Histogram

	// By endpoint.
	endpointRequests *prometheus.CounterVec   // endpoint, code
	ttft             *prometheus.HistogramVec // endpoint
	itl              *batchHistogram          // endpoint
	e2e              *prometheus.HistogramVec // endpoint
	reqPromptTokens  *prometheus.HistogramVec // endpoint
	reqGenTokens     *prometheus.HistogramVec // endpoint
	engineErrors     *prometheus.CounterVec   // kind
	lateInstructions *prometheus.CounterVec   // endpoint, placement
	unhonoured       *prometheus.CounterVec   // endpoint, kind
	webTools         *prometheus.CounterVec   // tool, outcome

	replicas replicaMetrics
}

// engineErrorKinds label beamharmony_engine_errors_total.
var engineErrorKinds = [...]string{"unreachable", "timeout", "status_4xx", "status_5xx", "bad_reply", "stream_cut", "error_event", "finish_reason", "invalid_output", "other"}

// newMetrics returns the collectors, registered with a new registry
// alongside the Go runtime and process collectors.
func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "beamharmony_requests_total",
		Help: "Generating requests (every API), by whether they streamed."}, []string{"stream"})
	m.errors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "beamharmony_errors_total",
		Help: "Failed generating requests, and requests for no endpoint (not_found), by kind of failure."}, []string{"kind"})
	m.streamsOpen = prometheus.NewGauge(prometheus.GaugeOpts{Name: "beamharmony_streams_open",
		Help: "Streamed replies in progress."})
	m.prepareWaiting = prometheus.NewGauge(prometheus.GaugeOpts{Name: "beamharmony_prepare_waiting",
		Help: "Requests waiting for their turn to be decoded, rendered and tokenized (--prepare-concurrency)."})
	m.promptTokens = prometheus.NewCounter(prometheus.CounterOpts{Name: "beamharmony_prompt_tokens_total",
		Help: "Prompt tokens, as counted by the engine."})
	m.completionTokens = prometheus.NewCounter(prometheus.CounterOpts{Name: "beamharmony_completion_tokens_total",
		Help: "Generated tokens, as counted by the engine."})
	m.duration = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "beamharmony_request_duration_seconds",
		Help: "Generating request duration, to the last byte.", Buckets: latencyBuckets})
	m.endpointRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "beamharmony_http_requests_total",
		Help: "Requests to the generating endpoints, by endpoint and HTTP status (499: the client went away)."}, []string{"endpoint", "code"})
	m.ttft = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "beamharmony_time_to_first_token_seconds",
		Help: "Time from a streamed request's arrival to the engine's first generated text.", Buckets: ttftBuckets}, []string{"endpoint"})
	m.itl = newBatchHistogram("beamharmony_inter_token_latency_seconds",
		"Time between two stream events of the engine that carry generated text (one token each on vLLM).", itlBuckets, "endpoint")
	m.e2e = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "beamharmony_e2e_request_latency_seconds",
		Help: "Time from a request's arrival to the last byte of its reply.", Buckets: latencyBuckets}, []string{"endpoint"})
	m.reqPromptTokens = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "beamharmony_request_prompt_tokens",
		Help: "Prompt tokens of a request, as counted by the engine.", Buckets: tokenBuckets}, []string{"endpoint"})
	m.reqGenTokens = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "beamharmony_request_generation_tokens",
		Help: "Generated tokens of a request, as counted by the engine.", Buckets: tokenBuckets}, []string{"endpoint"})
	m.engineErrors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "beamharmony_engine_errors_total",
		Help: "Failures of the engine, by kind."}, []string{"kind"})
	m.lateInstructions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "beamharmony_late_instructions_total",
		Help: "System and developer messages after a message of another role, by where they went: joined to the instructions (before the first assistant turn), a user message in place (after one), or refused (--refuse-late-instructions)."},
		[]string{"endpoint", "placement"})
	m.unhonoured = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "beamharmony_unhonoured_total",
		Help: "Request values left out or not applied, each listed in the X-Beam-Unenforced header: hosted tools, billing-header blocks, deferred tools declared in full, context_management edits, other fields."},
		[]string{"endpoint", "kind"})
	m.webTools = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "beamharmony_web_tool_calls_total",
		Help: "Calls of the hosted web search's built-in tools (--search-backend), by tool (search, browse) and outcome: ok, or the error code the client sees (unavailable, url_not_allowed, ...)."},
		[]string{"tool", "outcome"})
	m.reg.MustRegister(m.webTools)
	for _, t := range [...]string{toolSearch, toolBrowse} {
		m.webTools.WithLabelValues(t, "ok")
	}
	m.reg.MustRegister(m.requests, m.errors, m.streamsOpen, m.prepareWaiting, m.promptTokens, m.completionTokens, m.duration,
		m.endpointRequests, m.ttft, m.itl, m.e2e, m.reqPromptTokens, m.reqGenTokens, m.engineErrors, m.lateInstructions, m.unhonoured,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Every fixed label value is exported from the start, at 0.
	for _, v := range [...]string{"false", "true"} {
		m.requests.WithLabelValues(v)
	}
	for k := kindBadRequest; k < numKinds; k++ {
		m.errors.WithLabelValues(k.String())
	}
	for _, k := range engineErrorKinds {
		m.engineErrors.WithLabelValues(k)
	}
	for _, ep := range [...]*endpoint{chatEndpoint, messagesEndpoint, responsesEndpoint} {
		for _, p := range lateInstructionsPlacements {
			m.lateInstructions.WithLabelValues(ep.path, p)
		}
		for _, k := range unhonouredKinds {
			m.unhonoured.WithLabelValues(ep.path, k)
		}
	}
	m.h = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
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
func (m *metrics) observe(endpoint string, stream bool, status int, kind errorKind, code string, d time.Duration, u *usage) {
	m.requests.WithLabelValues(strconv.FormatBool(stream)).Inc()
	if kind != kindNone {
		m.errors.WithLabelValues(kind.String()).Inc()
		if ek := engineErrorKind(kind, code); ek != "" {
			m.engineErrors.WithLabelValues(ek).Inc()
		}
	}
	m.endpointRequests.WithLabelValues(endpoint, strconv.Itoa(status)).Inc()
	if u != nil {
		m.promptTokens.Add(float64(u.PromptTokens))
		m.completionTokens.Add(float64(u.CompletionTokens))
		m.reqPromptTokens.WithLabelValues(endpoint).Observe(float64(u.PromptTokens))
		m.reqGenTokens.WithLabelValues(endpoint).Observe(float64(u.CompletionTokens))
	}
	m.duration.Observe(d.Seconds())
	m.e2e.WithLabelValues(endpoint).Observe(d.Seconds())
}

// serveHTTP serves the metrics in the Prometheus exposition formats.
func (m *metrics) serveHTTP(w http.ResponseWriter, r *http.Request) { m.h.ServeHTTP(w, r) }
