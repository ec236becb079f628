package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EngineKind is the inference server behind the gateway. It decides how a
// grammar reaches the engine: llama.cpp's server reads GBNF in the
// completion's grammar field, vLLM xgrammar's EBNF in
// structured_outputs.grammar, SGLang the same EBNF in ebnf.
type EngineKind uint8

// The engine kinds.
const (
	// EngineAuto detects the kind: Server.DetectEngine asks the engine at
	// start-up, and a constrained request asks again while the kind is
	// unknown (at most every RedetectInterval).
	EngineAuto EngineKind = iota
	// EngineLlamaCpp is llama.cpp's llama-server.
	EngineLlamaCpp
	// EngineVLLM is vLLM's OpenAI-compatible server.
	EngineVLLM
	// EngineSGLang is SGLang's server.
	EngineSGLang
	// EngineUnknown is what detection returns when no probe told the
	// kind: constrained requests are then refused, never sent without
	// their grammar.
	EngineUnknown
)

// ParseEngineKind reads "auto", "llama.cpp" (or "llamacpp"), "vllm" or
// "sglang".
func ParseEngineKind(s string) (EngineKind, error) {
	switch strings.ToLower(s) {
	case "auto", "":
		return EngineAuto, nil
	case "llama.cpp", "llamacpp", "llama-server":
		return EngineLlamaCpp, nil
	case "vllm":
		return EngineVLLM, nil
	case "sglang":
		return EngineSGLang, nil
	}
	return EngineAuto, fmt.Errorf("engine %q: use auto, llama.cpp, vllm or sglang", s)
}

// String returns the name ParseEngineKind reads ("unknown" for
// EngineUnknown).
func (k EngineKind) String() string {
	switch k {
	case EngineLlamaCpp:
		return "llama.cpp"
	case EngineVLLM:
		return "vllm"
	case EngineSGLang:
		return "sglang"
	case EngineUnknown:
		return "unknown"
	}
	return "auto"
}

// constrains reports whether the gateway knows how to send this engine a
// grammar.
func (k EngineKind) constrains() bool {
	return k == EngineLlamaCpp || k == EngineVLLM || k == EngineSGLang
}

// Bounds of engine detection.
const (
	// DetectTimeout bounds one detection, all its probes together.
	DetectTimeout = 5 * time.Second
	// RedetectInterval is how long after a failed detection a constrained
	// request may make the gateway try again.
	RedetectInterval = 30 * time.Second
	// maxProbeBody caps what a probe reads (llama.cpp's /props carries
	// the chat template).
	maxProbeBody = 4 << 20
)

// kindState is the engine kind as detected, shared by the requests.
type kindState struct {
	mu   sync.Mutex
	kind EngineKind // EngineAuto until a detection ran
	why  string     // why the last detection failed
	at   time.Time  // when the last detection ran
}

// probe is one GET detection sends and how its answer names a kind.
type probe struct {
	path string
	kind EngineKind
	// fits reports whether a JSON object answer is this kind's.
	fits func(obj map[string]json.RawMessage) bool
}

// probes are asked in parallel; the first in this order whose answer fits
// names the kind. SGLang's /get_server_info (/server_info in newer
// releases) and llama.cpp's /props are each one server's own; vLLM's
// /version is checked last, in case another server answers it too.
var probes = [...]probe{
	{"/get_server_info", EngineSGLang, sglangInfo},
	{"/server_info", EngineSGLang, sglangInfo},
	{"/props", EngineLlamaCpp, func(o map[string]json.RawMessage) bool {
		return o["default_generation_settings"] != nil || o["build_info"] != nil
	}},
	{"/version", EngineVLLM, func(o map[string]json.RawMessage) bool {
		v := o["version"]
		return len(v) > 0 && v[0] == '"'
	}},
}

// sglangInfo reports whether an object is SGLang's server information:
// its server arguments, model_path among them (flat, or under
// server_args).
func sglangInfo(o map[string]json.RawMessage) bool {
	return o["model_path"] != nil || o["server_args"] != nil
}

// DetectEngine tells the engine's kind by asking it (GET /get_server_info
// and /server_info for SGLang, /props for llama.cpp, /version for vLLM, in
// parallel, within DetectTimeout and ctx), remembers it for the requests to
// come, logs it, and returns it. When Config.Engine names a kind it returns
// that without asking. When no answer tells the kind it returns
// EngineUnknown and an error saying what each probe got; constrained
// requests are then refused (400) until a later detection succeeds.
func (s *Server) DetectEngine(ctx context.Context) (EngineKind, error) {
	if s.cfg.Engine != EngineAuto {
		return s.cfg.Engine, nil
	}
	st := &s.kind
	st.mu.Lock()
	defer st.mu.Unlock()
	return s.detectLocked(ctx)
}

func (s *Server) detectLocked(ctx context.Context) (EngineKind, error) {
	st := &s.kind
	ctx, cancel := context.WithTimeout(ctx, DetectTimeout)
	defer cancel()
	type answer struct {
		ok  bool
		why string
	}
	answers := make([]answer, len(probes))
	var wg sync.WaitGroup
	for i := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, why := s.runProbe(ctx, &probes[i])
			answers[i] = answer{ok, why}
		}()
	}
	wg.Wait()
	st.at = time.Now()
	for i, a := range answers {
		if a.ok {
			st.kind, st.why = probes[i].kind, ""
			s.log.LogAttrs(ctx, slog.LevelInfo, "engine detected", slog.String("engine", st.kind.String()),
				slog.String("by", "GET "+probes[i].path), slog.String("backend", s.Backend()))
			return st.kind, nil
		}
	}
	var b strings.Builder
	for i, a := range answers {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString("GET " + probes[i].path + ": " + a.why)
	}
	st.kind, st.why = EngineUnknown, b.String()
	err := errors.New("engine kind unknown (" + st.why + ")")
	s.log.LogAttrs(ctx, slog.LevelWarn, "engine kind unknown: constrained requests (tool_choice required or named, response formats, strict tools) will be refused until it is detected; set --engine",
		slog.String("backend", s.Backend()), slog.String("probes", st.why))
	return EngineUnknown, err
}

// runProbe asks one probe and reports whether the answer fits its kind,
// or why not.
func (s *Server) runProbe(ctx context.Context, p *probe) (bool, string) {
	hr, err := s.engine.newRequest(ctx, http.MethodGet, p.path, nil, "")
	if err != nil {
		return false, err.Error()
	}
	resp, err := s.engine.client.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return false, "no answer within " + DetectTimeout.String()
		}
		return false, redactError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return false, "HTTP " + strconv.Itoa(resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody+1))
	if err != nil {
		return false, redactError(err)
	}
	if len(body) > maxProbeBody {
		return false, "answer larger than 4 MiB"
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil || obj == nil {
		return false, "not a JSON object"
	}
	if !p.fits(obj) {
		return false, "not " + p.kind.String() + "'s answer"
	}
	return true, ""
}

// engineKind returns the kind to send a grammar for, detecting it when it
// is not known yet (at most every RedetectInterval after a failure), and
// why it is unknown when it is.
func (s *Server) engineKind(ctx context.Context) (EngineKind, string) {
	if s.cfg.Engine != EngineAuto {
		return s.cfg.Engine, ""
	}
	st := &s.kind
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.kind.constrains() {
		return st.kind, ""
	}
	if st.kind == EngineAuto || time.Since(st.at) >= RedetectInterval {
		// A client that leaves does not cut the detection short: its
		// result serves the requests to come.
		if k, err := s.detectLocked(context.WithoutCancel(ctx)); err == nil {
			return k, ""
		}
	}
	return EngineUnknown, st.why
}
