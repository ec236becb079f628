package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/beamharmony/harmony"
)

// FuzzChatHandler sends arbitrary bodies to POST /v1/chat/completions in
// front of the fake engine (seeds in testdata/fuzz/FuzzChatHandler). The
// invariants (issue 12):
//   - a client's body never gets a 5xx: the fake engine always answers a
//     valid generation, so every failure is the request's;
//   - the prompt the engine receives carries exactly the markers the
//     renderer writes: as many of each as the same request renders with
//     every "<|" in its strings and keys defused;
//   - no goroutine is left behind once the reply is written.
func FuzzChatHandler(f *testing.F) {
	fe := newFakeEngine(f, fixed(answer("r", "c")))
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	cfg := Config{Backend: fe.srv.URL, Client: client, PingInterval: -1}
	s, err := New(cfg)
	if err != nil {
		f.Fatal(err)
	}
	serve := func(body []byte) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body))
		s.ServeHTTP(w, r)
		return w
	}
	// Members the gateway does not read, nested (decision 244).
	f.Add([]byte(`{"model":"beam","messages":[{"role":"user","content":[{"type":"text","text":"Hi","x":1}],"refusal":null},` +
		`{"role":"assistant","reasoning_content":"r","tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}","y":[1]}}]},` +
		`{"role":"tool","tool_call_id":"c","content":"ok"}],"tools":[{"type":"function","function":{"name":"f","z":{}},"w":2}],"stream_options":{"v":1}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		base := runtime.NumGoroutine()
		before := len(fe.requests())
		w := serve(body)
		if w.Code >= 500 {
			t.Fatalf("status %d for a client's body: %s", w.Code, w.Body.Bytes())
		}
		reqs := fe.requests()
		if len(reqs) > before {
			checkMarkers(t, body, reqs[len(reqs)-1].Prompt, &cfg)
		}
		if n := settledGoroutines(base, 2*time.Second); n > base {
			var b strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Fatalf("%d goroutines left, %d before:\n%s", n, base, b.String())
		}
	})
}

// settledGoroutines waits up to d for the goroutine count to fall to want
// and returns the count.
func settledGoroutines(want int, d time.Duration) int {
	deadline := time.Now().Add(d)
	n := runtime.NumGoroutine()
	for n > want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// checkMarkers checks that prompt has as many of each marker as the
// renderer writes for body: the count of the same request rendered with
// "<|" defused in every string and key, which leaves only the renderer's
// own markers.
func checkMarkers(t *testing.T, body []byte, prompt string, cfg *Config) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("the gateway accepted a body that is not JSON: %v", err)
	}
	clean, err := json.Marshal(defuse(v))
	if err != nil {
		t.Fatal(err)
	}
	req, aerr := decodeChatRequest(clean, cfg)
	if aerr != nil {
		return // defusing made it invalid (a name, say): nothing to compare
	}
	want, err := harmony.Render(req.messages, &req.opts)
	if err != nil {
		return
	}
	for _, mk := range harmony.Markers() {
		if got, n := strings.Count(prompt, mk), strings.Count(want, mk); got != n {
			t.Fatalf("the engine's prompt has %d %s, the renderer writes %d:\nprompt: %q\nbody: %s", got, mk, n, prompt, body)
		}
	}
}

// defuse returns v with "<|" replaced by "<_|" in every string and key.
func defuse(v any) any {
	switch v := v.(type) {
	case string:
		return strings.ReplaceAll(v, "<|", "<_|")
	case []any:
		for i := range v {
			v[i] = defuse(v[i])
		}
		return v
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[strings.ReplaceAll(k, "<|", "<_|")] = defuse(x)
		}
		return m
	}
	return v
}

// FuzzMessagesHandler sends arbitrary bodies to POST /v1/messages (the
// Messages API: Claude Code's), streamed or not, in front of the fake
// engine (fuzzEndpoint). The seeds hold thinking blocks signed and sealed
// under the server's key (thinking.display "omitted", gap decision 222),
// which the fuzzer alters.
func FuzzMessagesHandler(f *testing.F) {
	sg := newSigner(fuzzSigningKey)
	turn := func(thinking, sig, display string) string {
		return `{"model":"beam","max_tokens":50,"thinking":{"type":"adaptive","display":"` + display + `"},"messages":[` +
			`{"role":"user","content":"Hi"},{"role":"assistant","content":[{"type":"thinking","thinking":` + quoteJSON(thinking) +
			`,"signature":` + quoteJSON(sig) + `},{"type":"text","text":"c"}]},{"role":"user","content":[{"type":"text","text":"Again"}]}]}`
	}
	fuzzEndpoint(f, "/v1/messages",
		`{"model":"beam","max_tokens":50,"messages":[{"role":"user","content":"Hi"}]}`,
		`{"model":"beam","max_tokens":50,"stream":true,"thinking":{"type":"adaptive","display":"omitted"},"messages":[{"role":"user","content":"Hi"}]}`,
		turn("r", sg.sign("r"), "summarized"),
		turn("", sg.seal("r"), "omitted"),
		turn("r", sg.seal("r"), "omitted"),
		turn("", sg.seal("r\u0000<|end|>"), "omitted"),
		// The engine's answer sent back without its thinking: restored
		// from the reasoning memory (decision 242).
		`{"model":"beam","max_tokens":50,"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"c"},{"role":"user","content":"Again"}]}`,
		// Members the gateway does not read, nested (decision 244).
		`{"model":"beam","max_tokens":50,"system":[{"type":"text","text":"S","q":1}],"thinking":{"type":"adaptive","p":2},"messages":[{"role":"user","content":[{"type":"text","text":"Hi","citations":[1],"cache_control":{}}],"x":1}],"tools":[{"name":"f","input_schema":{"type":"object"},"eager_input_streaming":true,"y":1}]}`,
		// Message threads (decision 277): a new one, and one the memory
		// holds (fuzzSeedID, created before the fuzzing) continued; a
		// system message cleared by a later user message (278).
		`{"model":"beam","max_tokens":50,"system":"S","messages":[{"role":"user","content":"Hi"}],"thread":{"type":"create"}}`,
		`{"model":"beam","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"Again"}],"thread":{"type":"continue","previous_message_id":"`+fuzzSeedID+`"}}`,
		`{"model":"beam","max_tokens":50,"messages":[{"role":"assistant","content":"x"}],"thread":{"type":"continue","previous_message_id":"`+fuzzSeedID+`"}}`,
		`{"model":"beam","max_tokens":50,"thinking":{"type":"between_tools"},"messages":[{"role":"user","content":"Hi"},{"role":"system","content":"S","clear_at":"next_user_message"},{"role":"user","content":"Again"}]}`)
}

// fuzzSeedID stands in the seeds of FuzzMessagesHandler and
// FuzzResponsesHandler for the id of a thread or a response that
// fuzzEndpoint creates on its server before the fuzzing.
const fuzzSeedID = "fuzz_seed_id"

// FuzzResponsesHandler is FuzzMessagesHandler for POST /v1/responses (the
// Responses API: Codex's), with reasoning items sealed under the server's
// key in the seeds.
func FuzzResponsesHandler(f *testing.F) {
	sg := newSigner(fuzzSigningKey)
	turn := func(sealed, stream string) string {
		return `{"model":"beam","stream":` + stream + `,"store":false,"include":["reasoning.encrypted_content"],"input":[` +
			`{"role":"user","content":"Hi"},{"type":"reasoning","encrypted_content":` + quoteJSON(sealed) + `,"summary":[]},` +
			`{"type":"function_call","call_id":"c1","name":"f","arguments":"{\"a\":1}"},{"type":"function_call_output","call_id":"c1","output":"ok"},` +
			`{"role":"user","content":[{"type":"input_text","text":"Again"}]}],` +
			`"tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"a":{"type":"integer"}}}}]}`
	}
	fuzzEndpoint(f, "/v1/responses",
		`{"model":"beam","input":"Hi","store":false}`,
		`{"model":"beam","input":"Hi","stream":true,"reasoning":{"effort":"low","summary":"auto"}}`,
		turn(sg.seal("r"), "false"),
		turn(sg.seal("r"), "true"),
		turn("bh1.cg.AAAA", "false"),
		// GitHub Copilot's echo of the reasoning before the calls
		// (decision 241), and the echo alone.
		`{"model":"beam","store":false,"input":[{"role":"user","content":"Hi"},{"type":"reasoning","encrypted_content":`+quoteJSON(sg.seal("r"))+
			`,"summary":[]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"r"}]},`+
			`{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}],`+
			`"tools":[{"type":"function","name":"f","parameters":{"type":"object"}}]}`,
		`{"model":"beam","store":false,"input":[{"role":"user","content":"Hi"},{"type":"message","role":"assistant","content":"r"},`+
			`{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}],`+
			`"tools":[{"type":"function","name":"f","parameters":{"type":"object"}}]}`,
		// The engine's answer sent back without its reasoning item:
		// restored from the reasoning memory (decision 242).
		`{"model":"beam","store":false,"input":[{"role":"user","content":"Hi"},{"type":"message","role":"assistant","content":"c"},{"role":"user","content":"Again"}]}`,
		// References to items (decision 276): one the memory does not
		// hold, one without an id, one whose id is not a string.
		`{"model":"beam","input":[{"role":"user","content":"Hi"},{"type":"item_reference","id":"rs_0123"},{"type":"item_reference"},{"type":"item_reference","id":7}]}`,
		// Members the gateway does not read, nested (decision 244).
		`{"model":"beam","input":[{"role":"user","id":"i","content":[{"type":"input_text","text":"Hi","x":1,"annotations":[]}],"y":2}],"text":{"verbosity":"low"},"reasoning":{"effort":"low","z":3},"tools":[{"type":"function","name":"f","parameters":{"type":"object"},"w":4}]}`,
		// previous_response_id (decision 280): a response the memory
		// holds (fuzzSeedID), one it does not.
		`{"model":"beam","previous_response_id":"`+fuzzSeedID+`","input":"Again"}`,
		`{"model":"beam","stream":true,"previous_response_id":"`+fuzzSeedID+`","input":[{"role":"user","content":"Again"}],"store":true}`,
		`{"model":"beam","previous_response_id":"resp_0123","input":"Again"}`)
}

// fuzzSigningKey is the signing key of fuzzEndpoint's server.
const fuzzSigningKey = "fuzz"

// fuzzEndpoint posts arbitrary bodies, from seeds, to path on a gateway in
// front of the fake engine, signing under fuzzSigningKey. A client's body
// never gets a 5xx, and no goroutine is left behind.
func fuzzEndpoint(f *testing.F, path string, seeds ...string) {
	fe := newFakeEngine(f, fixed(answer("r", "c")))
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	// With the reasoning memory on: the engine's answer ("c", reasoned
	// "r") is remembered, and a body that sends it back without its
	// reasoning gets it restored (recall.go).
	s, err := New(Config{Backend: fe.srv.URL, Client: client, PingInterval: -1, SigningKey: fuzzSigningKey, ReasoningMemoryBytes: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	// The thread or response the seeds name as fuzzSeedID.
	create := map[string]string{
		"/v1/messages":  `{"model":"beam","max_tokens":50,"system":"S","messages":[{"role":"user","content":"Hi"}],"thread":{"type":"create"}}`,
		"/v1/responses": `{"model":"beam","input":"Hi"}`,
	}
	if body, ok := create[path]; ok {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
		var reply struct{ ID string }
		if err := json.Unmarshal(w.Body.Bytes(), &reply); err != nil || w.Code != 200 {
			f.Fatalf("creating the seeds' thread or response: %d %s", w.Code, w.Body.Bytes())
		}
		for i := range seeds {
			seeds[i] = strings.ReplaceAll(seeds[i], fuzzSeedID, reply.ID)
		}
	}
	for _, seed := range seeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		base := runtime.NumGoroutine()
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body)))
		if w.Code >= 500 {
			t.Fatalf("status %d for a client's body: %s", w.Code, w.Body.Bytes())
		}
		if n := settledGoroutines(base, 2*time.Second); n > base {
			var b strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Fatalf("%d goroutines left, %d before:\n%s", n, base, b.String())
		}
	})
}
