package serve

import (
	"github.com/prometheus/client_golang/prometheus"
)

// replicaMetrics are the routing series (issue 21): per replica, by its
// redacted base URL (as many label values as replicas), and per routing
// decision.
type replicaMetrics struct {
	requests     *prometheus.CounterVec // replica
	promptTokens *prometheus.CounterVec // replica
	cachedTokens *prometheus.CounterVec // replica
	healthy      *prometheus.GaugeVec   // replica
	decisions    *prometheus.CounterVec // decision
	names        []string               // label value of each replica
}

// routeDecisions label beamharmony_route_decisions_total.
var routeDecisions = [...]string{routePrefix, routeConversation, routeHash, routeFewest, routeLoad, routeFallback, routeRetry}

// addReplicas registers the routing series for the router's replicas,
// named by names.
func (m *metrics) addReplicas(rt *router, names []string) {
	r := &m.replicas
	r.names = names
	r.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "beamharmony_replica_requests_total",
		Help: "Completion requests sent to each engine replica (retries included)."}, []string{"replica"})
	r.promptTokens = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "beamharmony_replica_prompt_tokens_total",
		Help: "Prompt tokens each engine replica processed, as it counted them."}, []string{"replica"})
	r.cachedTokens = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "beamharmony_replica_cached_tokens_total",
		Help: "Prompt tokens each engine replica read from its prefix cache, as it reported them (usage.prompt_tokens_details.cached_tokens)."}, []string{"replica"})
	r.healthy = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "beamharmony_replica_healthy",
		Help: "1 when the engine replica is in routing, 0 when probes or requests took it out."}, []string{"replica"})
	r.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "beamharmony_route_decisions_total",
		Help: "Routing decisions: prefix (the replica holding the longest prompt prefix), conversation (no prefix of its own known: the replica the conversation was placed on), hash (a new conversation: the replica its key hashes to), fewest (a new conversation, --route-new fewest: the replica holding the fewest recent ones), load (the chosen replica was too busy: the least busy one), retry (the chosen replica failed before answering), fallback (no healthy replica)."}, []string{"decision"})
	m.reg.MustRegister(r.requests, r.promptTokens, r.cachedTokens, r.healthy, r.decisions)
	for i, name := range names {
		r.requests.WithLabelValues(name)
		r.promptTokens.WithLabelValues(name)
		r.cachedTokens.WithLabelValues(name)
		r.healthy.WithLabelValues(name).Set(1)
		rep := rt.replicas[i]
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "beamharmony_replica_open_requests",
			Help: "Requests each engine replica is working on.", ConstLabels: prometheus.Labels{"replica": name}},
			func() float64 { return float64(rep.open.Load()) }))
	}
	for _, d := range routeDecisions {
		r.decisions.WithLabelValues(d)
	}
}

func (m *metrics) routeDecision(d string) { m.replicas.decisions.WithLabelValues(d).Inc() }

func (m *metrics) replicaRequest(i int) {
	m.replicas.requests.WithLabelValues(m.replicas.names[i]).Inc()
}

func (m *metrics) replicaHealth(i int, up bool) {
	v := 0.0
	if up {
		v = 1
	}
	m.replicas.healthy.WithLabelValues(m.replicas.names[i]).Set(v)
}

// replicaUsage records what replica i reported for one request.
func (m *metrics) replicaUsage(i int, u *usage) {
	if u == nil || i < 0 || i >= len(m.replicas.names) {
		return
	}
	name := m.replicas.names[i]
	m.replicas.promptTokens.WithLabelValues(name).Add(float64(u.PromptTokens))
	m.replicas.cachedTokens.WithLabelValues(name).Add(float64(u.CachedTokens))
}
