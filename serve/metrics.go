package serve

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// errorKind labels a failed request in the metrics and logs.
type errorKind uint8

// The kinds of failure, one metrics series each.
const (
	kindNone           errorKind = iota
	kindBadRequest               // 400: the request or its template arguments
	kindTooLarge                 // 413: the body limit
	kindEngine4xx                // the engine refused the request; passed through
	kindEngine                   // 502: the engine failed or answered nonsense
	kindModelOutput              // 502: the generation is not Beam Harmony
	kindTimeout                  // 504: the server's timeout passed
	kindClientClosed             // the client went away before the end
	kindNotFound                 // 404 and 405: no such endpoint
	kindNotImplemented           // 501: what the server cannot do (count_tokens without a tokenizer)
	numKinds
)

var kindNames = [numKinds]string{
	kindNone:           "none",
	kindBadRequest:     "bad_request",
	kindTooLarge:       "too_large",
	kindEngine4xx:      "engine_4xx",
	kindEngine:         "engine",
	kindModelOutput:    "model_output",
	kindTimeout:        "timeout",
	kindClientClosed:   "client_closed",
	kindNotFound:       "not_found",
	kindNotImplemented: "not_implemented",
}

func (k errorKind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "unknown"
}

// latencyBuckets are the upper bounds, in seconds, of the request duration
// histogram: from a short answer to a long reasoning stream.
var latencyBuckets = [...]float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

// metrics are the gateway's counters, kept with atomics and written in
// Prometheus' text format by hand.
type metrics struct {
	requests         [2]atomic.Int64 // by stream: 0 false, 1 true
	errors           [numKinds]atomic.Int64
	streamsOpen      atomic.Int64
	promptTokens     atomic.Int64
	completionTokens atomic.Int64
	latency          [len(latencyBuckets) + 1]atomic.Int64 // the last is +Inf
	latencySumMicros atomic.Int64
}

// observe records one finished chat request.
func (m *metrics) observe(stream bool, kind errorKind, d time.Duration, u *usage) {
	if stream {
		m.requests[1].Add(1)
	} else {
		m.requests[0].Add(1)
	}
	if kind != kindNone {
		m.errors[kind].Add(1)
	}
	if u != nil {
		m.promptTokens.Add(u.PromptTokens)
		m.completionTokens.Add(u.CompletionTokens)
	}
	sec := d.Seconds()
	b := len(latencyBuckets)
	for i, le := range latencyBuckets {
		if sec <= le {
			b = i
			break
		}
	}
	m.latency[b].Add(1)
	m.latencySumMicros.Add(d.Microseconds())
}

// serveHTTP writes the metrics in the Prometheus text exposition format.
func (m *metrics) serveHTTP(w http.ResponseWriter, _ *http.Request) {
	b := make([]byte, 0, 4096)
	b = help(b, "beamharmony_requests_total", "counter", "Chat completion requests, by whether they streamed.")
	for i, label := range [2]string{"false", "true"} {
		b = append(b, `beamharmony_requests_total{stream="`...)
		b = append(b, label...)
		b = append(b, `"} `...)
		b = strconv.AppendInt(b, m.requests[i].Load(), 10)
		b = append(b, '\n')
	}
	b = help(b, "beamharmony_errors_total", "counter", "Failed chat completion requests, by kind of failure.")
	for k := kindBadRequest; k < numKinds; k++ {
		b = append(b, `beamharmony_errors_total{kind="`...)
		b = append(b, k.String()...)
		b = append(b, `"} `...)
		b = strconv.AppendInt(b, m.errors[k].Load(), 10)
		b = append(b, '\n')
	}
	b = help(b, "beamharmony_streams_open", "gauge", "Streamed chat completions in progress.")
	b = sample(b, "beamharmony_streams_open", m.streamsOpen.Load())
	b = help(b, "beamharmony_prompt_tokens_total", "counter", "Prompt tokens, as counted by the engine.")
	b = sample(b, "beamharmony_prompt_tokens_total", m.promptTokens.Load())
	b = help(b, "beamharmony_completion_tokens_total", "counter", "Generated tokens, as counted by the engine.")
	b = sample(b, "beamharmony_completion_tokens_total", m.completionTokens.Load())
	b = help(b, "beamharmony_request_duration_seconds", "histogram", "Chat completion request duration, to the last byte.")
	var cum int64
	for i := range m.latency {
		cum += m.latency[i].Load()
		b = append(b, `beamharmony_request_duration_seconds_bucket{le="`...)
		if i < len(latencyBuckets) {
			b = strconv.AppendFloat(b, latencyBuckets[i], 'g', -1, 64)
		} else {
			b = append(b, "+Inf"...)
		}
		b = append(b, `"} `...)
		b = strconv.AppendInt(b, cum, 10)
		b = append(b, '\n')
	}
	b = append(b, "beamharmony_request_duration_seconds_sum "...)
	b = strconv.AppendFloat(b, float64(m.latencySumMicros.Load())/1e6, 'g', -1, 64)
	b = append(b, '\n')
	b = sample(b, "beamharmony_request_duration_seconds_count", cum)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write(b)
}

func help(b []byte, name, typ, text string) []byte {
	b = append(b, "# HELP "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = append(b, text...)
	b = append(b, "\n# TYPE "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = append(b, typ...)
	return append(b, '\n')
}

func sample(b []byte, name string, v int64) []byte {
	b = append(b, name...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, v, 10)
	return append(b, '\n')
}
