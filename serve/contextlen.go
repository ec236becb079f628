package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The model's context length (issue 34 item 7). Config.MaxModelLen gives
// it; when it is 0, Server.DetectContextLength reads it from the engines
// at start-up: llama.cpp's GET /props, vLLM's and SGLang's GET /v1/models.
// Without either, a request's max tokens is bounded by MaxTokensCeiling
// (gap decision 142).

// MaxTokensCeiling bounds the tokens a request may ask to generate
// (max_tokens, max_completion_tokens, max_output_tokens) while the
// model's context length is not known: a larger value is lowered to it and
// reported in the X-Beam-Unenforced header. It is above any generation a
// model writes in one request and far below 2^31, so that the count does
// not wrap around in an engine that stores it in 32 bits (llama.cpp's
// n_predict is an int32_t, where -1 means no limit).
const MaxTokensCeiling = 1 << 20

// modelLength is the context length the server works with and where it
// came from.
type modelLength struct {
	n atomic.Int64 // 0: unknown
	// mu guards source, which the log and the error messages quote.
	mu     sync.Mutex
	source string
}

func (m *modelLength) get() (int64, string) {
	n := m.n.Load()
	if n <= 0 {
		return 0, ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return n, m.source
}

// lower sets the length to n when it is unknown or larger, and reports
// whether it did.
func (m *modelLength) lower(n int64, source string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur := m.n.Load(); cur > 0 && cur <= n {
		return false
	}
	m.source = source
	m.n.Store(n)
	return true
}

// engineLength is what one replica said of its context length.
type engineLength struct {
	n      int64
	source string // the endpoint and field it came from
	down   bool   // the replica did not answer (unreachable, a 5xx): ask again
}

// DetectContextLength reads the model's context length from every engine
// replica, when Config.MaxModelLen does not give it: llama.cpp's GET
// /props (default_generation_settings.n_ctx, the context of one slot, or
// n_ctx at the top in releases that put it there), else vLLM's and
// SGLang's GET /v1/models (max_model_len of the served model, or the
// smallest listed). With several replicas the smallest length is used. Each
// length found is logged with its source, as soon as it is found, and
// applies to the requests that follow. Replicas that do not answer are
// asked again (after 2 s, then at growing intervals up to 30 s) until they
// do or ctx ends. It returns the length in use (0: none found) and, when
// none was, an error saying so.
func (s *Server) DetectContextLength(ctx context.Context) (int, error) {
	if s.cfg.MaxModelLen > 0 {
		return s.cfg.MaxModelLen, nil
	}
	pending := make([]int, len(s.engines))
	for i := range pending {
		pending[i] = i
	}
	wait := detectRetry
	for {
		answers := make([]engineLength, len(pending))
		var wg sync.WaitGroup
		for j, i := range pending {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[j] = s.askContextLength(ctx, i)
			}()
		}
		wg.Wait()
		var still []int
		for j, i := range pending {
			a := answers[j]
			switch {
			case a.n > 0:
				if s.modelLen.lower(a.n, a.source) {
					s.log.LogAttrs(ctx, slog.LevelInfo, "context length from the engine", slog.Int64("max_model_len", a.n),
						slog.String("source", a.source), slog.String("backend", redactURL(s.engines[i].base)))
				}
			case a.down:
				still = append(still, i)
			default:
				s.log.LogAttrs(ctx, slog.LevelWarn, "the engine does not tell its context length; max_tokens is capped at "+
					strconv.Itoa(MaxTokensCeiling)+" while none is known; set --max-model-len",
					slog.String("backend", redactURL(s.engines[i].base)))
			}
		}
		pending = still
		n, _ := s.modelLen.get()
		if len(pending) == 0 {
			if n == 0 {
				return 0, errors.New("no engine told its context length")
			}
			return int(n), nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			if n == 0 {
				return 0, errors.New("no engine told its context length before the detection ended")
			}
			return int(n), nil
		case <-t.C:
		}
		wait = min(max(2*wait, time.Second), RedetectInterval)
	}
}

// askContextLength asks replica i for its context length: GET /props and
// GET /v1/models at once, within DetectTimeout; /props wins, as llama.cpp
// gives there the context of the slot a request runs in.
func (s *Server) askContextLength(ctx context.Context, i int) engineLength {
	ctx, cancel := context.WithTimeout(ctx, DetectTimeout)
	defer cancel()
	e := &s.engines[i]
	var props, models engineLength
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		props = s.askLength(ctx, e, "/props", propsContextLength)
	}()
	go func() {
		defer wg.Done()
		models = s.askLength(ctx, e, "/v1/models", func(body []byte) (int64, string) {
			return modelsContextLength(body, s.cfg.Model)
		})
	}()
	wg.Wait()
	switch {
	case props.n > 0:
		return props
	case models.n > 0:
		return models
	}
	// Either may tell once the engine is up (llama-server answers both
	// with a 503 while it loads).
	return engineLength{down: props.down || models.down}
}

// askLength fetches path from engine e (up to maxProbeBody: llama.cpp's
// /props carries the chat template) and reads a context length from its
// body with read.
func (s *Server) askLength(ctx context.Context, e *engine, path string, read func([]byte) (int64, string)) engineLength {
	hr, err := e.newRequest(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return engineLength{}
	}
	resp, err := e.client.Do(hr)
	if err != nil {
		// Not answering: the replica may be starting.
		return engineLength{down: true}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		// A 5xx (llama-server's 503 while it loads the model): ask
		// again. A 4xx: it has no such endpoint.
		return engineLength{down: resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody+1))
	if err != nil {
		return engineLength{down: true}
	}
	if len(body) > maxProbeBody {
		return engineLength{}
	}
	n, field := read(body)
	if n <= 0 {
		return engineLength{}
	}
	return engineLength{n: n, source: "GET " + path + " " + field}
}

// propsContextLength reads llama.cpp's GET /props: the context of one slot
// is default_generation_settings.n_ctx; some releases put an n_ctx at the
// top instead (the whole context, shared by the slots).
func propsContextLength(body []byte) (int64, string) {
	var props struct {
		Settings struct {
			NCtx json.RawMessage `json:"n_ctx"`
		} `json:"default_generation_settings"`
		NCtx json.RawMessage `json:"n_ctx"`
	}
	if json.Unmarshal(body, &props) != nil {
		return 0, ""
	}
	if n, ok := contextLength(props.Settings.NCtx); ok {
		return n, "default_generation_settings.n_ctx"
	}
	if n, ok := contextLength(props.NCtx); ok {
		return n, "n_ctx"
	}
	return 0, ""
}

// modelsContextLength reads vLLM's and SGLang's GET /v1/models: the
// max_model_len of the model named model, or the smallest listed.
func modelsContextLength(body []byte, model string) (int64, string) {
	list, err := decodeModels(body)
	if err != nil {
		return 0, ""
	}
	var least int64
	for _, m := range list.Data {
		if m.MaxModelLen <= 0 {
			continue
		}
		if model != "" && m.ID == model {
			return m.MaxModelLen, "max_model_len of " + quoteText(m.ID)
		}
		if least == 0 || m.MaxModelLen < least {
			least = m.MaxModelLen
		}
	}
	return least, "max_model_len"
}
