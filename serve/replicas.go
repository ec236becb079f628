package serve

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
)

// This file runs the gateway's engine replicas: sending each completion to
// the replica the router picks (with a retry on another one when it fails
// before answering), probing their health, and reporting it.

// send sends the exchange's completion request to an engine replica and
// returns its 2xx reply. With one replica it is that replica's complete.
// With several, the router picks by prompt prefix and load; a replica that
// fails before answering (unreachable, or a 5xx) is marked down and the
// request goes to another, so no byte has reached the client yet. An
// engine 4xx, a timeout and a client that left are not retried.
func (s *Server) send(c *exchange, cr *completionRequest) (*http.Response, *apiError) {
	rt := s.router
	if len(s.engines) == 1 {
		r := rt.replicas[0]
		r.open.Add(1)
		resp, aerr := s.engines[0].complete(c, cr)
		resp, aerr = s.answered(c, 0, nil, routePrefix, resp, aerr)
		if aerr != nil && retryable(aerr) {
			s.replicaFailed(0, aerr)
		}
		return resp, aerr
	}
	hashes := blockHashes(cr.Prompt, rt.cfg.BlockTokens, rt.cfg.BlockBytes, nil)
	key, shared := conversationKey(c.prompt)
	if c.req.convKey != 0 {
		// The conversation the client named (metadata.user_id,
		// prompt_cache_key) keeps its replica by that name.
		key = c.req.convKey
	}
	c.convKey = key
	// The blocks before the end of the first user message: text blocks
	// directly; token blocks in proportion.
	minBlocks := shared / rt.cfg.BlockBytes
	if ids, ok := cr.Prompt.([]int); ok && len(c.prompt) > 0 {
		minBlocks = int(float64(shared) / float64(len(c.prompt)) * float64(len(ids)) / float64(rt.cfg.BlockTokens))
	}
	var tried []int
	// The replicas that answered this request with a 5xx, and the last
	// such failure and its route: when every replica failed, the client is
	// told that rather than that the last one tried could not be reached
	// (gap decision 273).
	var failed []replicaFailure
	var answeredErr *apiError
	answeredRoute := ""
	for {
		i, decision := rt.pick(hashes, key, minBlocks, tried)
		s.metrics.routeDecision(decision)
		rt.replicas[i].open.Add(1)
		resp, aerr := s.engines[i].complete(c, cr)
		if aerr == nil || !retryable(aerr) || c.ctx.Err() != nil || len(tried)+1 >= len(rt.replicas) {
			resp, aerr = s.answered(c, i, hashes, decision, resp, aerr)
			switch {
			case aerr == nil:
				// Another replica answered what these failed: the
				// failures were theirs (gap decision 274).
				for _, f := range failed {
					s.replicaFailed(f.replica, f.err)
				}
			case aerr.code == "engine_unreachable":
				s.replicaFailed(i, aerr)
				if answeredErr != nil {
					c.replica, c.route, aerr = failed[len(failed)-1].replica, answeredRoute, answeredErr
				}
			}
			return resp, aerr
		}
		rt.replicas[i].open.Add(-1)
		if aerr.code == "engine_unreachable" {
			s.replicaFailed(i, aerr)
		} else {
			failed = append(failed, replicaFailure{i, aerr})
			answeredErr, answeredRoute = aerr, decision
		}
		tried = append(tried, i)
	}
}

// replicaFailure is a 5xx replica answered a request with.
type replicaFailure struct {
	replica int
	err     *apiError
}

// answered books the reply of replica i: on success the prompt's blocks are
// recorded as held there, and the replica's open request ends when the
// reply's body is closed.
func (s *Server) answered(c *exchange, i int, hashes []uint64, decision string, resp *http.Response, aerr *apiError) (*http.Response, *apiError) {
	r := s.router.replicas[i]
	c.replica, c.route = i, decision
	s.metrics.replicaRequest(i)
	if aerr != nil {
		r.open.Add(-1)
		return nil, aerr
	}
	if len(hashes) > 0 {
		s.router.table.record(hashes, i)
		s.router.convs.place(c.convKey, i)
	}
	r.fails.Store(0)
	resp.Body = &replicaBody{ReadCloser: resp.Body, r: r}
	return resp, nil
}

// retryable reports whether a failure came before the engine answered the
// request: it could not be reached, or it failed (5xx) rather than refused
// (4xx).
func retryable(e *apiError) bool {
	return e.kind == kindEngine && (e.code == "engine_unreachable" || strings.HasPrefix(e.code, "engine_5"))
}

// replicaBody ends the replica's open request when the reply is closed.
type replicaBody struct {
	io.ReadCloser
	r    *replica
	once sync.Once
}

func (b *replicaBody) Close() error {
	b.once.Do(func() { b.r.open.Add(-1) })
	return b.ReadCloser.Close()
}

// conversationKey identifies a conversation across turns and gateways: the
// hash of the prompt up to the end of its first user message (the system
// and developer messages and the first question), which every turn's
// prompt begins with; and that length in bytes, what a prefix must exceed
// to be the conversation's own. A prompt without a user message is keyed
// whole.
func conversationKey(prompt string) (uint64, int) {
	const first = "<|start|>user<|message|>"
	end := len(prompt)
	if i := strings.Index(prompt, first); i >= 0 {
		if j := strings.Index(prompt[i+len(first):], "<|end|>"); j >= 0 {
			end = i + len(first) + j
		}
	}
	return xxhash.Sum64String(prompt[:end]), end
}

// replicaFailed notes a request replica i failed before answering. An
// unreachable replica is taken out of routing at once; one that answers
// 5xx after three such failures in a row. A 5xx may be about the request
// (a prompt the engine's own code fails on): with several replicas, send
// counts it only when another replica answered the same request, so that
// a request every replica fails on, sent again and again by a client's
// retries, takes none of them out (gap decision 274).
func (s *Server) replicaFailed(i int, aerr *apiError) {
	r := s.router.replicas[i]
	if aerr.code == "engine_unreachable" || r.fails.Add(1) >= 3 {
		s.replicaDown(i, aerr.msg+": "+aerr.detail)
	}
}

// replicaDown takes replica i out of routing until a probe finds it
// answering again, and forgets the prompts it held (a restarted engine
// has lost its cache).
func (s *Server) replicaDown(i int, why string) {
	r := s.router.replicas[i]
	if r.healthy.Swap(false) {
		s.router.table.forget(i)
		s.router.convs.forget(i)
		s.metrics.replicaHealth(i, false)
		s.log.LogAttrs(context.Background(), slog.LevelWarn, "engine replica down",
			slog.String("replica", redactURL(r.base)), slog.String("error", why))
	}
}

func (s *Server) replicaUp(i int) {
	r := s.router.replicas[i]
	r.fails.Store(0)
	if !r.healthy.Swap(true) {
		s.metrics.replicaHealth(i, true)
		s.log.LogAttrs(context.Background(), slog.LevelInfo, "engine replica up",
			slog.String("replica", redactURL(r.base)))
	}
}

// Probe checks every replica's health every Routing.ProbeInterval until ctx
// ends: GET /health (or, lacking one, /v1/models), and for vLLM and
// SGLang /v1/models too. Two failed probes in a row take a replica out of
// routing; one that answers is put back. The command line runs it beside
// Run; without it replicas are taken out only by failed requests and put
// back by nothing but a restart, so a Server with several backends should
// run it.
func (s *Server) Probe(ctx context.Context) {
	t := time.NewTicker(s.router.cfg.ProbeInterval)
	defer t.Stop()
	for {
		s.probeAll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) probeAll(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range s.engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, DefaultHealthTimeout)
			defer cancel()
			if aerr := s.checkReplica(pctx, i); aerr != nil {
				if ctx.Err() != nil {
					return
				}
				if s.router.replicas[i].fails.Add(1) >= 2 {
					s.replicaDown(i, aerr.msg)
				}
				return
			}
			s.replicaUp(i)
		}()
	}
	wg.Wait()
}

// checkReplica asks replica i whether it serves: /health, falling back on
// /v1/models when it has none; vLLM and SGLang must list their models too.
func (s *Server) checkReplica(ctx context.Context, i int) *apiError {
	e := &s.engines[i]
	_, aerr := e.get(ctx, "/health")
	if aerr != nil && (aerr.status == http.StatusNotFound || aerr.status == http.StatusMethodNotAllowed) {
		_, aerr = e.get(ctx, "/v1/models")
		return aerr
	}
	if aerr == nil {
		if k := s.knownKind(); k == EngineVLLM || k == EngineSGLang {
			_, aerr = e.get(ctx, "/v1/models")
		}
	}
	return aerr
}

// knownKind is the engine kind configured or detected, without detecting.
func (s *Server) knownKind() EngineKind {
	if s.cfg.Engine != EngineAuto {
		return s.cfg.Engine
	}
	s.kind.mu.Lock()
	defer s.kind.mu.Unlock()
	return s.kind.kind
}

// healthReplicas serves GET /health with several replicas: each is checked
// now, in parallel; the gateway is ok while one answers. With details the
// body lists every replica: its URL, whether it answered this check,
// whether routing uses it, and its open requests.
func (s *Server) healthReplicas(ctx context.Context, w http.ResponseWriter, r *http.Request, details bool) {
	errs := make([]*apiError, len(s.engines))
	var wg sync.WaitGroup
	for i := range s.engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.checkReplica(ctx, i)
		}()
	}
	wg.Wait()
	status := http.StatusServiceUnavailable
	for _, e := range errs {
		if e == nil {
			status = http.StatusOK
		} else {
			s.logEngineCheck(r, e)
		}
	}
	reply := &healthReply{Status: "unavailable"}
	if status == http.StatusOK {
		reply.Status = "ok"
	}
	if details {
		reply.Engines = make([]healthEngine, len(errs))
		for i, e := range errs {
			rep := s.router.replicas[i]
			healthy, open := rep.healthy.Load(), rep.open.Load()
			reply.Engines[i] = healthEngine{URL: redactURL(rep.base), Reachable: e == nil, Healthy: &healthy, OpenRequests: &open}
			if e != nil {
				reply.Engines[i].Error = &e.msg
			}
		}
	}
	writeJSONStatus(w, status, reply)
}
