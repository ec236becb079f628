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
	// request may make the gateway try again, when the engine answered
	// (the probes found no kind they know).
	RedetectInterval = 30 * time.Second
	// maxProbeBody caps what a probe reads (llama.cpp's /props carries
	// the chat template).
	maxProbeBody = 4 << 20
)

// detectRetry is how soon detection is tried again when the engine did not
// answer it (unreachable, a timeout, a 5xx such as llama-server's 503 while
// it loads the model). A variable for the tests.
var detectRetry = 2 * time.Second

// kindState is the engine kind as detected, shared by the requests.
type kindState struct {
	mu   sync.Mutex
	kind EngineKind // EngineAuto until a detection ran
	why  string     // why the last detection failed
	// public is why without what only the operator should see (the
	// engine's address, dial errors): what a client is told.
	public string
	at     time.Time // when the last detection ran
	// down is set when the last detection failed because the engine
	// did not answer: it may be starting.
	down bool
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
// parallel, each round within DetectTimeout), remembers it for the
// requests to come, logs it, and returns it. When Config.Engine names a
// kind it returns that without asking. While the engine does not answer
// (unreachable, or a 5xx such as llama-server's 503 while it loads the
// model) it asks again every 2 s, until ctx ends. When the engine answers
// but no answer tells the kind, or ctx ends first, it returns
// EngineUnknown and an error saying what each probe got; constrained
// requests are then refused until a later detection succeeds.
func (s *Server) DetectEngine(ctx context.Context) (EngineKind, error) {
	if s.cfg.Engine != EngineAuto {
		return s.cfg.Engine, nil
	}
	st := &s.kind
	for {
		st.mu.Lock()
		k, err := s.detectLocked(ctx)
		down := st.down
		st.mu.Unlock()
		if err == nil || !down {
			return k, err
		}
		t := time.NewTimer(detectRetry)
		select {
		case <-ctx.Done():
			t.Stop()
			return k, err
		case <-t.C:
		}
	}
}

func (s *Server) detectLocked(ctx context.Context) (EngineKind, error) {
	st := &s.kind
	ctx, cancel := context.WithTimeout(ctx, DetectTimeout)
	defer cancel()
	type answer struct {
		ok          bool
		down        bool // no answer, or a 5xx
		why, public string
	}
	answers := make([]answer, len(probes))
	var wg sync.WaitGroup
	for i := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, down, why := s.runProbe(ctx, &probes[i])
			public := why
			if down && !strings.HasPrefix(why, "HTTP ") {
				public = "no answer"
			}
			answers[i] = answer{ok, down, why, public}
		}()
	}
	wg.Wait()
	st.at = time.Now()
	for i, a := range answers {
		if a.ok {
			st.kind, st.why, st.public, st.down = probes[i].kind, "", "", false
			s.log.LogAttrs(ctx, slog.LevelInfo, "engine detected", slog.String("engine", st.kind.String()),
				slog.String("by", "GET "+probes[i].path), slog.String("backend", s.Backend()))
			s.warnEngineTokenizer(st.kind)
			return st.kind, nil
		}
	}
	var b, pb strings.Builder
	down := false
	for i, a := range answers {
		if i > 0 {
			b.WriteString("; ")
			pb.WriteString("; ")
		}
		b.WriteString("GET " + probes[i].path + ": " + a.why)
		pb.WriteString("GET " + probes[i].path + ": " + a.public)
		down = down || a.down
	}
	// Logged once while the state lasts, not at every retry.
	if !(st.kind == EngineUnknown && st.down == down) {
		msg := "engine kind unknown: constrained requests (tool_choice required or named, response formats, strict tools) will be refused until it is detected; set --engine"
		if down {
			msg = "engine not answering its detection yet; asking again"
		}
		s.log.LogAttrs(ctx, slog.LevelWarn, msg, slog.String("backend", s.Backend()), slog.String("probes", b.String()))
	}
	st.kind, st.why, st.public, st.down = EngineUnknown, b.String(), pb.String(), down
	return EngineUnknown, errors.New("engine kind unknown (" + st.why + ")")
}

// runProbe asks one probe and reports whether the answer fits its kind,
// or whether the engine did not answer (down: unreachable, no answer, a
// 5xx), and why not.
func (s *Server) runProbe(ctx context.Context, p *probe) (ok, down bool, why string) {
	hr, err := s.engine.newRequest(ctx, http.MethodGet, p.path, nil, "")
	if err != nil {
		return false, false, err.Error()
	}
	resp, err := s.engine.client.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return false, true, "no answer within " + DetectTimeout.String()
		}
		return false, true, redactError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return false, resp.StatusCode >= 500, "HTTP " + strconv.Itoa(resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody+1))
	if err != nil {
		return false, true, redactError(err)
	}
	if len(body) > maxProbeBody {
		return false, false, "answer larger than 4 MiB"
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil || obj == nil {
		return false, false, "not a JSON object"
	}
	if !p.fits(obj) {
		return false, false, "not " + p.kind.String() + "'s answer"
	}
	return true, false, ""
}

// xgrammar reports whether k's engine matches grammars with xgrammar
// (grammar.Spec.XGrammar).
func (k EngineKind) xgrammar() bool { return k == EngineVLLM || k == EngineSGLang }

// engineKind returns the kind to send a grammar for, detecting it when it
// is not known yet (again after detectRetry when the engine did not
// answer, after RedetectInterval when it answered no kind), and when it is
// unknown, why, and whether the engine did not answer.
func (s *Server) engineKind(ctx context.Context) (kind EngineKind, why, public string, down bool) {
	if s.cfg.Engine != EngineAuto {
		return s.cfg.Engine, "", "", false
	}
	st := &s.kind
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.kind.constrains() {
		return st.kind, "", "", false
	}
	wait := RedetectInterval
	if st.down {
		wait = detectRetry
	}
	if st.kind == EngineAuto || time.Since(st.at) >= wait {
		// A client that leaves does not cut the detection short: its
		// result serves the requests to come.
		if k, err := s.detectLocked(context.WithoutCancel(ctx)); err == nil {
			return k, "", "", false
		}
	}
	return EngineUnknown, st.why, st.public, st.down
}

// engineTokenizerWarning is logged when the engine is llama.cpp and the
// gateway has no tokenizer (gap decision 254).
const engineTokenizerWarning = "llama.cpp tokenizes the prompt text with its own rule, which differs from Hugging Face's (the model's) on text with combining marks (Devanagari, Bengali, Tamil, Thai, Arabic and Hebrew vowel signs) and on characters of Unicode 16.0; set --tokenizer to send the prompt as token ids (docs/llama-cpp.md)"

// warnEngineTokenizer logs engineTokenizerWarning, once, when kind is
// llama.cpp and the gateway sends prompts as text. vLLM and SGLang
// tokenize with Hugging Face's library, as the model was trained.
func (s *Server) warnEngineTokenizer(kind EngineKind) {
	if kind != EngineLlamaCpp || s.cfg.Tokenizer != nil {
		return
	}
	s.tokenizerWarned.Do(func() {
		s.log.LogAttrs(context.Background(), slog.LevelWarn, engineTokenizerWarning, slog.String("backend", s.Backend()))
	})
}
