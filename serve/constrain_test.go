package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/beamharmony/harmony/grammar"
)

// weatherParams is the get_weather tool's schema (weatherTool's), which
// the three APIs' requests below declare each in its own shape.
const weatherParams = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","description":"Forecast length in days"}},"required":["city"]}`

// answerSchema is the response format of the JSON cases.
const answerSchema = `{"type":"object","properties":{"answer":{"type":"string"},"confidence":{"type":"number","minimum":0,"maximum":1}},"required":["answer","confidence"],"additionalProperties":false}`

// constrainedBody is a request of the API that declares get_weather (with
// params as its schema) and carries extra (members ending with a comma).
func constrainedBody(api, params, extra string) string {
	switch api {
	case "chat":
		return `{"model":"beam","tools":[{"type":"function","function":{"name":"get_weather","description":"Get the weather.","parameters":` + params + `}}],` +
			extra + `"messages":[{"role":"user","content":"Weather in Paris?"}]}`
	case "messages":
		return `{"model":"beam","max_tokens":200,"tools":[{"name":"get_weather","description":"Get the weather.","input_schema":` + params + `}],` +
			extra + `"messages":[{"role":"user","content":"Weather in Paris?"}]}`
	}
	return `{"model":"beam","tools":[{"type":"function","name":"get_weather","description":"Get the weather.","parameters":` + params + `}],` +
		extra + `"input":"Weather in Paris?"}`
}

// constraintCase is one constraint, as each API words it, and the spec it
// asks the grammar for.
type constraintCase struct {
	name  string
	extra map[string]string // by API
	spec  grammar.Spec
}

var weatherSpecTool = grammar.Tool{Name: "get_weather", Parameters: json.RawMessage(weatherParams)}

var constraintCases = []constraintCase{
	{"required", map[string]string{
		"chat":      `"tool_choice":"required",`,
		"messages":  `"tool_choice":{"type":"any"},`,
		"responses": `"tool_choice":"required",`,
	}, grammar.Spec{Tools: []grammar.Tool{weatherSpecTool}, Choice: grammar.Required, Parallel: true}},
	{"named, one call", map[string]string{
		"chat":      `"tool_choice":{"type":"function","function":{"name":"get_weather"}},"parallel_tool_calls":false,`,
		"messages":  `"tool_choice":{"type":"tool","name":"get_weather","disable_parallel_tool_use":true},`,
		"responses": `"tool_choice":{"type":"function","name":"get_weather"},"parallel_tool_calls":false,`,
	}, grammar.Spec{Tools: []grammar.Tool{weatherSpecTool}, Choice: grammar.Named, Name: "get_weather"}},
	{"json schema", map[string]string{
		"chat":      `"response_format":{"type":"json_schema","json_schema":{"name":"answer","strict":true,"schema":` + answerSchema + `}},`,
		"messages":  `"output_config":{"format":{"type":"json_schema","schema":` + answerSchema + `}},`,
		"responses": `"text":{"format":{"type":"json_schema","name":"answer","strict":true,"schema":` + answerSchema + `}},`,
	}, grammar.Spec{Tools: []grammar.Tool{weatherSpecTool}, Parallel: true, Format: &grammar.Format{Schema: json.RawMessage(answerSchema), Strict: true}}},
	{"json object, tools off", map[string]string{
		"chat":      `"tool_choice":"none","response_format":{"type":"json_object"},`,
		"messages":  `"tool_choice":{"type":"none"},"output_format":{"type":"json_schema","schema":{"type":"object"}},`,
		"responses": `"tool_choice":"none","text":{"format":{"type":"json_object"}},`,
	}, grammar.Spec{Choice: grammar.None, Parallel: true, Format: &grammar.Format{}}},
}

// The Messages API has no json_object: its "json object, tools off" case
// asks for {"type": "object"} under a strict schema.
func specFor(api string, cc constraintCase) *grammar.Spec {
	s := cc.spec
	if api == "messages" && cc.name == "json object, tools off" {
		s.Format = &grammar.Format{Schema: json.RawMessage(`{"type":"object"}`), Strict: true}
	}
	return &s
}

func mustCompile(t testing.TB, s *grammar.Spec) *grammar.Grammar {
	t.Helper()
	g, err := grammar.Compile(context.Background(), s)
	if err != nil || g == nil {
		t.Fatalf("compile %+v: %v", s, err)
	}
	return g
}

// constrainedGen answers a constrained request as an engine does: the
// calls or the JSON the grammar allows, ending where the grammar ends
// (vLLM leaves the end-of-sequence token out of the text).
func constrainedGen(r *engineReq) gen {
	if isNull(r.raw["grammar"]) && isNull(r.raw["structured_outputs"]) && isNull(r.raw["ebnf"]) {
		return answer("Free.", "Not constrained.")
	}
	if strings.Contains(string(r.raw["grammar"])+string(r.raw["structured_outputs"])+string(r.raw["ebnf"]), "<|channel|>final") {
		return eosEnd(answer("Think first.", `{"answer": "Sunny", "confidence": 0.5}`))
	}
	return eosEnd(callGen("Think first.", scriptCall{"get_weather", [][2]string{{"city", "Paris"}}}))
}

// TestConstrainedRequestShapes checks the grammar each engine kind gets
// (llama.cpp: grammar, GBNF; vLLM: structured_outputs.grammar; SGLang:
// ebnf), detected at the first constrained request, for every constraint
// on every API, streamed and not, and that the reply is the constrained
// generation; and that an unconstrained request carries no grammar.
func TestConstrainedRequestShapes(t *testing.T) {
	for _, kind := range []EngineKind{EngineLlamaCpp, EngineVLLM, EngineSGLang} {
		fe := newFakeEngineOf(t, kind, constrainedGen)
		gw := newGateway(t, fe)
		for _, api := range apiCases {
			for _, cc := range constraintCases {
				spec := specFor(api.name, cc)
				spec.XGrammar = kind.xgrammar()
				want := mustCompile(t, spec)
				for _, stream := range []bool{false, true} {
					name := kind.String() + "/" + api.name + "/" + cc.name
					o := api.send(t, gw, constrainedBody(api.name, weatherParams, cc.extra[api.name]), stream)
					if o.status != 200 {
						t.Fatalf("%s: %d %s", name, o.status, o.raw)
					}
					r := fe.lastRequest(t)
					fields := map[string]json.RawMessage{}
					for _, f := range []string{"grammar", "structured_outputs", "ebnf"} {
						if v, ok := r.raw[f]; ok {
							fields[f] = v
						}
					}
					if len(fields) != 1 {
						t.Fatalf("%s: grammar fields %v, want one", name, fields)
					}
					var got string
					switch kind {
					case EngineLlamaCpp:
						_ = json.Unmarshal(fields["grammar"], &got)
						if got != want.GBNF() {
							t.Errorf("%s: grammar is not the compiled GBNF:\n%.300s", name, got)
						}
					case EngineVLLM:
						var so map[string]string
						if err := json.Unmarshal(fields["structured_outputs"], &so); err != nil || len(so) != 1 || so["grammar"] != want.EBNF() {
							t.Errorf("%s: structured_outputs %.300s", name, fields["structured_outputs"])
						}
					case EngineSGLang:
						_ = json.Unmarshal(fields["ebnf"], &got)
						if got != want.EBNF() {
							t.Errorf("%s: ebnf is not the compiled EBNF:\n%.300s", name, got)
						}
					}
					if o.reasoning != "Think first." {
						t.Errorf("%s: reasoning %q", name, o.reasoning)
					}
				}
			}
			// Unconstrained: no grammar.
			o := api.send(t, gw, constrainedBody(api.name, weatherParams, ""), false)
			r := fe.lastRequest(t)
			if o.status != 200 || r.raw["grammar"] != nil || r.raw["structured_outputs"] != nil || r.raw["ebnf"] != nil {
				t.Errorf("%s/%s unconstrained: %d, engine request %v", kind, api.name, o.status, r.raw)
			}
		}
		// One detection (four probes) served every request.
		if n := fe.probes.Load(); n != int64(len(probes)) {
			t.Errorf("%s: %d probe requests, want %d", kind, n, len(probes))
		}
	}
}

// TestDetectEngine checks detection against each engine kind, an engine
// that answers no probe, one that answers nonsense, one that hangs, and
// that a configured kind asks nothing.
func TestDetectEngine(t *testing.T) {
	newServer := func(t *testing.T, url string, mods ...func(*Config)) *Server {
		cfg := Config{Backend: url}
		for _, m := range mods {
			m(&cfg)
		}
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, kind := range []EngineKind{EngineLlamaCpp, EngineVLLM, EngineSGLang} {
		fe := newFakeEngineOf(t, kind, fixed(answer("r", "c")))
		k, err := newServer(t, fe.srv.URL).DetectEngine(context.Background())
		if k != kind || err != nil {
			t.Errorf("%s: detected %s, %v", kind, k, err)
		}
	}
	t.Run("no probe answered", func(t *testing.T) {
		fe := newFakeEngine(t, fixed(answer("r", "c")))
		k, err := newServer(t, fe.srv.URL).DetectEngine(context.Background())
		if k != EngineUnknown || err == nil || !strings.Contains(err.Error(), "GET /props: HTTP 404") || !strings.Contains(err.Error(), "GET /version: HTTP 404") {
			t.Errorf("detected %s, %v", k, err)
		}
	})
	t.Run("nonsense", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/props":
				w.Write([]byte(`{"something":"else"}`))
			case "/version":
				w.Write([]byte(`{"version":3}`))
			case "/get_server_info":
				w.Write([]byte(`{}`))
			default:
				w.Write([]byte(`<html>hello</html>`))
			}
		}))
		defer srv.Close()
		k, err := newServer(t, srv.URL).DetectEngine(context.Background())
		if k != EngineUnknown || err == nil || !strings.Contains(err.Error(), "GET /server_info: not a JSON object") ||
			!strings.Contains(err.Error(), "GET /props: not llama.cpp's answer") {
			t.Errorf("detected %s, %v", k, err)
		}
	})
	t.Run("hanging engine", func(t *testing.T) {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}))
		defer srv.Close()
		defer close(release)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		k, err := newServer(t, srv.URL).DetectEngine(ctx)
		if k != EngineUnknown || err == nil || !strings.Contains(err.Error(), "no answer within") {
			t.Errorf("detected %s, %v", k, err)
		}
	})
	t.Run("configured", func(t *testing.T) {
		fe := newFakeEngineOf(t, EngineVLLM, fixed(answer("r", "c")))
		k, err := newServer(t, fe.srv.URL, func(c *Config) { c.Engine = EngineSGLang }).DetectEngine(context.Background())
		if k != EngineSGLang || err != nil || fe.probes.Load() != 0 {
			t.Errorf("detected %s, %v, %d probes", k, err, fe.probes.Load())
		}
	})
}

// With llama.cpp and no tokenizer the gateway warns, once, that the
// engine's tokenizer is not the model's (gap decision 254): when the kind
// is configured and when it is detected; not with a tokenizer, nor with
// another engine.
func TestEngineTokenizerWarning(t *testing.T) {
	cases := []struct {
		name   string
		engine EngineKind // configured; auto: detected from the fake engine's kind
		fake   EngineKind
		tok    bool
		warn   bool
	}{
		{"llama.cpp configured", EngineLlamaCpp, EngineLlamaCpp, false, true},
		{"llama.cpp detected", EngineAuto, EngineLlamaCpp, false, true},
		{"llama.cpp with a tokenizer", EngineLlamaCpp, EngineLlamaCpp, true, false},
		{"llama.cpp detected with a tokenizer", EngineAuto, EngineLlamaCpp, true, false},
		{"vLLM detected", EngineAuto, EngineVLLM, false, false},
		{"SGLang configured", EngineSGLang, EngineSGLang, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fe := newFakeEngineOf(t, c.fake, fixed(answer("r", "c")))
			buf := &syncBuffer{}
			cfg := Config{Backend: fe.srv.URL, Engine: c.engine, Logger: newJSONLogger(buf)}
			if c.tok {
				cfg.Tokenizer = beamTokenizer(t)
			}
			s, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if k, err := s.DetectEngine(context.Background()); k != c.fake || err != nil {
					t.Fatalf("detected %s, %v", k, err)
				}
				s.kind.mu.Lock()
				s.kind.kind = EngineAuto // detect again: the warning stays one
				s.kind.mu.Unlock()
			}
			if n := strings.Count(buf.String(), engineTokenizerWarning); n != map[bool]int{true: 1}[c.warn] {
				t.Errorf("the warning is logged %d times:\n%s", n, buf.String())
			}
			if c.warn && !strings.Contains(buf.String(), `"level":"WARN"`) {
				t.Errorf("not a warning:\n%s", buf.String())
			}
		})
	}
}

func TestParseEngineKind(t *testing.T) {
	for in, want := range map[string]EngineKind{"auto": EngineAuto, "": EngineAuto, "llama.cpp": EngineLlamaCpp, "LlamaCpp": EngineLlamaCpp,
		"vllm": EngineVLLM, "sglang": EngineSGLang} {
		if k, err := ParseEngineKind(in); k != want || err != nil {
			t.Errorf("%q: %s, %v", in, k, err)
		}
		if k, _ := ParseEngineKind(want.String()); k != want {
			t.Errorf("%s does not read back", want)
		}
	}
	if _, err := ParseEngineKind("ollama"); err == nil {
		t.Error("ollama accepted")
	}
	if _, err := New(Config{Backend: "http://x", Engine: EngineUnknown}); err == nil {
		t.Error("New accepted EngineUnknown")
	}
}

// TestConstrainedUnknownEngine checks that a constrained request to an
// engine whose kind detection could not tell is a 400 that says why, on
// every API, never sent to the engine; that unconstrained requests still
// pass; that detection is not repeated within RedetectInterval; and that a
// later detection lifts the refusal.
func TestConstrainedUnknownEngine(t *testing.T) {
	fe := newFakeEngine(t, constrainedGen)
	client := &http.Client{}
	s, err := New(Config{Backend: fe.srv.URL, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(s)
	defer gw.Close()
	for _, api := range apiCases {
		for _, cc := range constraintCases {
			for _, stream := range []bool{false, true} {
				o := api.send(t, gw, constrainedBody(api.name, weatherParams, cc.extra[api.name]), stream)
				if o.status != 400 || !strings.Contains(o.errMsg, "cannot be honoured: the gateway does not know which engine serves it") ||
					!strings.Contains(o.errMsg, "--engine") || !strings.Contains(o.errMsg, "GET /props: HTTP 404") {
					t.Errorf("%s/%s: %d %s", api.name, cc.name, o.status, o.raw)
				}
				if api.name != "messages" && (o.errCode != "engine_cannot_constrain" || o.errParam == "") {
					t.Errorf("%s/%s: code %q param %q", api.name, cc.name, o.errCode, o.errParam)
				}
			}
		}
		if o := api.send(t, gw, constrainedBody(api.name, weatherParams, ""), false); o.status != 200 {
			t.Errorf("%s unconstrained: %d %s", api.name, o.status, o.raw)
		}
	}
	if n := len(fe.requests()); n != 3 {
		t.Errorf("the engine got %d completion requests, want the 3 unconstrained ones", n)
	}
	if n := fe.probes.Load(); n != int64(len(probes)) {
		t.Errorf("%d probe requests, want one detection's %d", n, len(probes))
	}
	// The engine now answers as llama.cpp, and the interval has passed.
	fe.kind.Store(int32(EngineLlamaCpp))
	s.kind.mu.Lock()
	s.kind.at = s.kind.at.Add(-RedetectInterval)
	s.kind.mu.Unlock()
	o := apiCases[0].send(t, gw, constrainedBody("chat", weatherParams, `"tool_choice":"required",`), false)
	if o.status != 200 || o.finish != "tool_calls" || fe.lastRequest(t).raw["grammar"] == nil {
		t.Errorf("after detection: %d %s", o.status, o.raw)
	}
}

// TestEngineLoading checks detection against an engine that is still
// loading its model (503 to every probe, as llama-server answers): the
// start-up detection asks again until the engine answers, and a
// constrained request meanwhile is a 503 engine_unavailable (the server's
// condition, which the SDKs retry), not a 400, and is not sent; once the
// engine is up the next constrained request detects it.
func TestEngineLoading(t *testing.T) {
	old := detectRetry
	detectRetry = 0
	t.Cleanup(func() { detectRetry = old })

	t.Run("start-up detection waits", func(t *testing.T) {
		fe := newFakeEngineOf(t, EngineLlamaCpp, constrainedGen)
		fe.loading.Store(true)
		s, err := New(Config{Backend: fe.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan EngineKind)
		go func() {
			k, _ := s.DetectEngine(context.Background())
			done <- k
		}()
		// Let it fail a few rounds, then finish loading.
		for fe.probes.Load() < 3*int64(len(probes)) {
			select {
			case k := <-done:
				t.Fatalf("detection gave up (%s) while the engine was loading", k)
			case <-time.After(time.Millisecond):
			}
		}
		fe.loading.Store(false)
		if k := <-done; k != EngineLlamaCpp {
			t.Errorf("detected %s", k)
		}
	})
	t.Run("requests meanwhile", func(t *testing.T) {
		fe := newFakeEngineOf(t, EngineVLLM, constrainedGen)
		fe.loading.Store(true)
		gw := newGateway(t, fe)
		for _, api := range apiCases {
			o := api.send(t, gw, constrainedBody(api.name, weatherParams, constraintCases[0].extra[api.name]), false)
			if o.status != 503 || !strings.Contains(o.errMsg, "the engine did not answer the gateway's questions about its kind") ||
				!strings.Contains(o.errMsg, "HTTP 503") {
				t.Errorf("%s: %d %s", api.name, o.status, o.raw)
			}
			if api.name != "messages" && o.errCode != "engine_unavailable" {
				t.Errorf("%s: code %q", api.name, o.errCode)
			}
		}
		if n := len(fe.requests()); n != 0 {
			t.Errorf("the engine got %d completion requests", n)
		}
		fe.loading.Store(false)
		o := apiCases[0].send(t, gw, constrainedBody("chat", weatherParams, constraintCases[0].extra["chat"]), false)
		if o.status != 200 || fe.lastRequest(t).raw["structured_outputs"] == nil {
			t.Errorf("once loaded: %d %s", o.status, o.raw)
		}
	})
}

// For vLLM and SGLang, whose xgrammar pays about 0.1 s a token inside a
// string of counted characters, a maxLength of a schema that is not strict
// is left out of the grammar and listed in X-Beam-Unenforced (gap decision
// 266); under strict, and for llama.cpp, it is enforced. With the kind
// detected, the first constrained request is compiled again once it is
// known; configured, once.
func TestMaxLengthForXGrammar(t *testing.T) {
	const schema = `{"type":"object","properties":{"name":{"type":"string","maxLength":40}},"required":["name"],"additionalProperties":false}`
	const path = "response_format.json_schema.schema.properties.name.maxLength"
	for _, kind := range []EngineKind{EngineLlamaCpp, EngineVLLM, EngineSGLang} {
		for _, configured := range []bool{false, true} {
			fe := newFakeEngineOf(t, kind, func(*engineReq) gen { return eosEnd(answer("Think.", `{"name": "Ada"}`)) })
			gw := newGateway(t, fe, func(c *Config) {
				if configured {
					c.Engine = kind
				}
			})
			for _, strict := range []bool{false, true, false} {
				name := fmt.Sprintf("%s (configured %v, strict %v)", kind, configured, strict)
				body := `{"model":"beam","response_format":{"type":"json_schema","json_schema":{"name":"n","strict":` + strconv.FormatBool(strict) +
					`,"schema":` + schema + `}},"messages":[{"role":"user","content":"Name one."}]}`
				o := apiCases[0].send(t, gw, body, false)
				want := ""
				if kind.xgrammar() && !strict {
					want = path
				}
				if o.status != 200 || o.header.Get(UnenforcedHeader) != want {
					t.Errorf("%s: %d, %s %q, want %q", name, o.status, UnenforcedHeader, o.header.Get(UnenforcedHeader), want)
				}
				r := fe.lastRequest(t)
				sent := string(r.raw["grammar"]) + string(r.raw["structured_outputs"]) + string(r.raw["ebnf"])
				// llama.cpp: a repetition; xgrammar under strict: a chain of
				// forty links (gap decision 267).
				counted := strings.Contains(sent, "{0,40}") || strings.Contains(sent, "xg-opt-40 ::=")
				if counted == (want != "") {
					t.Errorf("%s: the grammar sent counts the name: %v\n%.2000s", name, counted, sent)
				}
			}
		}
	}
}

// Claude Code's own request (its recorded first turn, every tool it
// declares) asking for a tool call: its Workflow tool's script is a string
// of at most 524,288 characters, whose grammar the compiler refused before
// gap decision 309, so any such request was a 400. Now the grammar is
// compiled and sent, and the call comes back.
func TestAgentToolsUnderRequiredChoice(t *testing.T) {
	data, err := os.ReadFile("testdata/agents/sessions/claude-code-2.1.332/001.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Body map[string]json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rec.Body["tools"]), `"maxLength": 524288`) && !strings.Contains(string(rec.Body["tools"]), `"maxLength":524288`) {
		t.Fatal("the recorded request no longer declares the Workflow tool's long script")
	}
	delete(rec.Body, "stream")
	rec.Body["tool_choice"] = json.RawMessage(`{"type":"any"}`)
	body, err := json.Marshal(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	fe := newFakeEngineOf(t, EngineLlamaCpp, func(r *engineReq) gen {
		return eosEnd(callGen("List the files.", scriptCall{"Bash", [][2]string{{"command", "ls"}}}))
	})
	gw := newGateway(t, fe)
	for _, stream := range []bool{false, true} {
		o := apiCases[1].send(t, gw, string(body), stream)
		if o.status != 200 {
			t.Fatalf("stream %v: %d %s", stream, o.status, o.raw)
		}
		var g string
		if err := json.Unmarshal(fe.lastRequest(t).raw["grammar"], &g); err != nil || !strings.Contains(g, `<rfl:parameter name=\"script\">`) {
			t.Errorf("stream %v: the grammar sent does not hold the Workflow tool's script (%v):\n%.300s", stream, err, g)
		}
		if len(o.calls) != 1 || o.calls[0].name != "Bash" {
			t.Errorf("stream %v: calls %+v, want Bash", stream, o.calls)
		}
	}
}
