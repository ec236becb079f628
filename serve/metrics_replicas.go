package serve

import "github.com/beamharmony/harmony/internal/metrics"

// replicaMetrics are the routing series (issue 21): per replica, by its
// redacted base URL (as many label values as replicas), and per routing
// decision.
type replicaMetrics struct {
	requests     *metrics.CounterVec // replica
	promptTokens *metrics.CounterVec // replica
	cachedTokens *metrics.CounterVec // replica
	healthy      *metrics.GaugeVec   // replica
	decisions    *metrics.CounterVec // decision
	names        []string            // label value of each replica
}

// routeDecisions label beamharmony_route_decisions_total.
var routeDecisions = [...]string{routePrefix, routeConversation, routeHash, routeFewest, routeLoad, routeFallback, routeRetry}

// addReplicas registers the routing series for the router's replicas,
// named by names.
func (m *gatewayMetrics) addReplicas(rt *router, names []string) {
	r := &m.replicas
	r.names = names
	reg := m.reg
	r.requests = reg.CounterVec("beamharmony_replica_requests_total",
		"Completion requests sent to each engine replica (retries included).", "replica")
	r.promptTokens = reg.CounterVec("beamharmony_replica_prompt_tokens_total",
		"Prompt tokens each engine replica processed, as it counted them.", "replica")
	r.cachedTokens = reg.CounterVec("beamharmony_replica_cached_tokens_total",
		"Prompt tokens each engine replica read from its prefix cache, as it reported them (usage.prompt_tokens_details.cached_tokens).", "replica")
	r.healthy = reg.GaugeVec("beamharmony_replica_healthy",
		"1 when the engine replica is in routing, 0 when probes or requests took it out.", "replica")
	r.decisions = reg.CounterVec("beamharmony_route_decisions_total",
		"Routing decisions: prefix (the replica holding the longest prompt prefix), conversation (no prefix of its own known: the replica the conversation was placed on), hash (a new conversation: the replica its key hashes to), fewest (a new conversation, --route-new fewest: the replica holding the fewest recent ones), load (the chosen replica was too busy: the least busy one), retry (the chosen replica failed before answering), fallback (no healthy replica).", "decision")
	open := reg.GaugeVec("beamharmony_replica_open_requests",
		"Requests each engine replica is working on.", "replica")
	for i, name := range names {
		r.requests.With(name)
		r.promptTokens.With(name)
		r.cachedTokens.With(name)
		r.healthy.With(name).Set(1)
		rep := rt.replicas[i]
		open.Func(func() float64 { return float64(rep.open.Load()) }, name)
	}
	for _, d := range routeDecisions {
		r.decisions.With(d)
	}
}

func (m *gatewayMetrics) routeDecision(d string) { m.replicas.decisions.With(d).Inc() }

func (m *gatewayMetrics) replicaRequest(i int) {
	m.replicas.requests.With(m.replicas.names[i]).Inc()
}

func (m *gatewayMetrics) replicaHealth(i int, up bool) {
	v := 0.0
	if up {
		v = 1
	}
	m.replicas.healthy.With(m.replicas.names[i]).Set(v)
}

// replicaUsage records what replica i reported for one request.
func (m *gatewayMetrics) replicaUsage(i int, u *usage) {
	if u == nil || i < 0 || i >= len(m.replicas.names) {
		return
	}
	name := m.replicas.names[i]
	m.replicas.promptTokens.With(name).Add(float64(u.PromptTokens))
	m.replicas.cachedTokens.With(name).Add(float64(u.CachedTokens))
}
