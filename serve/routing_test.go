package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newPool starts a gateway in front of several fake engines.
func newPool(t *testing.T, fes []*fakeEngine, mods ...func(*Config)) (*Server, *httptest.Server) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	cfg := Config{Client: client}
	for _, fe := range fes {
		cfg.Backends = append(cfg.Backends, Backend{URL: fe.srv.URL})
	}
	for _, m := range mods {
		m(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(s)
	t.Cleanup(func() {
		gw.Close()
		client.CloseIdleConnections()
	})
	return s, gw
}

// conversation returns the chat body of turn n (0-based) of conversation
// c: a system prompt every conversation shares, then its own first
// question and n earlier exchanges.
func conversation(c, n int) string {
	msgs := []string{`{"role":"system","content":"` + strings.Repeat("You are a careful assistant. ", 20) + `"}`,
		fmt.Sprintf(`{"role":"user","content":"Conversation %d: %s"}`, c, strings.Repeat("tell me more. ", 10))}
	for i := range n {
		msgs = append(msgs,
			fmt.Sprintf(`{"role":"assistant","reasoning_content":"thinking %d about turn %d %s","content":"answer %d"}`, c, i, strings.Repeat("and more ", 10), i),
			fmt.Sprintf(`{"role":"user","content":"follow-up %d of %d"}`, i, c))
	}
	return `{"model":"beam","messages":[` + strings.Join(msgs, ",") + `]}`
}

func whoGot(fes []*fakeEngine) []int {
	n := make([]int, len(fes))
	for i, fe := range fes {
		n[i] = len(fe.requests())
	}
	return n
}

// Every turn of a conversation goes to the replica that got its first
// turn (its prompt extends the last one), and conversations spread over
// the replicas.
func TestRouteConversationsStick(t *testing.T) {
	var fes []*fakeEngine
	for range 3 {
		fes = append(fes, newFakeEngine(t, fixed(gen{text: answerText("r", "ok")})))
	}
	s, gw := newPool(t, fes)
	used := map[int]bool{}
	for c := range 12 {
		home := -1
		for turn := range 4 {
			before := whoGot(fes)
			resp, data := post(t, gw, conversation(c, turn))
			if resp.StatusCode != 200 {
				t.Fatalf("conversation %d turn %d: %d %s", c, turn, resp.StatusCode, data)
			}
			after := whoGot(fes)
			got := -1
			for i := range fes {
				if after[i] > before[i] {
					got = i
				}
			}
			if turn == 0 {
				home = got
				used[got] = true
			} else if got != home {
				t.Errorf("conversation %d turn %d went to replica %d, its first turn to %d", c, turn, got, home)
			}
		}
	}
	if len(used) < 2 {
		t.Errorf("12 conversations all went to %v", used)
	}
	for i, r := range s.router.replicas {
		if n := r.open.Load(); n != 0 {
			t.Errorf("replica %d still counts %d open requests", i, n)
		}
	}
}

// A replica that fails before answering (unreachable, or a 5xx) costs the
// client nothing: the request goes to another replica, and the failed one
// is taken out of routing until it answers a probe again.
func TestRouteFailoverBeforeFirstByte(t *testing.T) {
	for _, name := range []string{"unreachable", "503"} {
		t.Run(name, func(t *testing.T) {
			bad := newFakeEngine(t, fixed(gen{status: 503, body: `{"error":{"message":"overloaded"}}`}))
			good := newFakeEngine(t, fixed(gen{text: answerText("r", "fine")}))
			if name == "unreachable" {
				bad.srv.Close()
			}
			// Fewest: each new conversation tries the failing replica
			// first while it is in routing (hashing would send about half).
			s, gw := newPool(t, []*fakeEngine{bad, good}, func(c *Config) { c.Routing.NewConversations = RouteNewFewest })
			for c := range 6 {
				resp, data := post(t, gw, conversation(c, 0))
				if resp.StatusCode != 200 || !strings.Contains(string(data), "fine") {
					t.Fatalf("conversation %d: %d %s", c, resp.StatusCode, data)
				}
			}
			// Unreachable: out at once; a 5xx may be about the request,
			// so three in a row take it out.
			if s.router.replicas[0].healthy.Load() {
				t.Error("the failing replica is still in routing")
			}
			if name == "503" && len(bad.requests()) != 3 {
				t.Errorf("the failing replica got %d requests, want 3 (then it is out)", len(bad.requests()))
			}
		})
	}
}

// When every replica fails, the client is told what a replica answered
// (its 5xx), not that the last one tried could not be reached: with one
// replica dead and out of routing, the others are tried first and the dead
// one last (gap decision 273). With every replica unreachable, it is that.
func TestRouteEveryReplicaFailed(t *testing.T) {
	for _, c := range []struct {
		name      string
		answering int // replicas answering 500; the others are dead
		wantCode  string
	}{
		{"two answer 500, one dead", 2, "engine_500"},
		{"one answers 500, two dead", 1, "engine_500"},
		{"all dead", 0, "engine_unreachable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var fes []*fakeEngine
			for i := range 3 {
				fe := newFakeEngine(t, fixed(gen{status: 500, body: `{"error":{"message":"Failed to parse input at pos 0"}}`}))
				if i >= c.answering {
					fe.srv.Close()
				}
				fes = append(fes, fe)
			}
			s, gw := newPool(t, fes)
			// The dead replicas are known down, so that the answering
			// ones are tried first and a dead one last (the fallback).
			for i := c.answering; i < 3; i++ {
				s.router.replicas[i].healthy.Store(false)
			}
			resp, data := post(t, gw, conversation(0, 0))
			var e struct {
				Error struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(data, &e); err != nil {
				t.Fatalf("%d %s: %v", resp.StatusCode, data, err)
			}
			if resp.StatusCode != http.StatusBadGateway || e.Error.Code != c.wantCode {
				t.Errorf("got %d %s, want 502 with code %s", resp.StatusCode, data, c.wantCode)
			}
			tried := 0
			for i := range c.answering {
				tried += len(fes[i].requests())
			}
			if tried != c.answering {
				t.Errorf("the answering replicas got %d requests, want %d (each tried once)", tried, c.answering)
			}
		})
	}
}

// A request that every replica answers with a 5xx (one the engines' own
// code fails on), sent again and again as a client's retries do, takes no
// replica out of routing: a 5xx counts against a replica only when another
// replica answered the same request (gap decision 274). A replica that
// fails where another answers is still taken out after three.
func TestRoutePoisonRequest(t *testing.T) {
	poisoned := func(r *engineReq) gen {
		if strings.Contains(r.Prompt, "poison") {
			return gen{status: 500, body: `{"error":{"message":"Failed to parse input at pos 0"}}`}
		}
		return gen{text: answerText("r", "fine")}
	}
	fes := []*fakeEngine{newFakeEngine(t, poisoned), newFakeEngine(t, poisoned), newFakeEngine(t, poisoned)}
	s, gw := newPool(t, fes)
	poison := strings.Replace(conversation(0, 0), "Conversation 0", "Conversation poison", 1)
	for try := range 5 {
		resp, data := post(t, gw, poison)
		if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(data), "engine_500") {
			t.Fatalf("try %d: got %d %s, want 502 engine_500", try, resp.StatusCode, data)
		}
	}
	for i, r := range s.router.replicas {
		if !r.healthy.Load() {
			t.Errorf("replica %d out of routing after a request every replica failed on", i)
		}
		if n := len(fes[i].requests()); n != 5 {
			t.Errorf("replica %d got %d of the 5 tries, want each (a retry on every replica)", i, n)
		}
	}
	// The next conversations route as before, by hash, not in fallback.
	for c := range 6 {
		if resp, data := post(t, gw, conversation(c+1, 0)); resp.StatusCode != 200 {
			t.Fatalf("conversation %d: %d %s", c+1, resp.StatusCode, data)
		}
	}

	// One replica failing alone, where the others answer: out after three.
	bad := newFakeEngine(t, fixed(gen{status: 500, body: `{"error":{"message":"broken"}}`}))
	good := newFakeEngine(t, fixed(gen{text: answerText("r", "fine")}))
	s, gw = newPool(t, []*fakeEngine{bad, good}, func(c *Config) { c.Routing.NewConversations = RouteNewFewest })
	for c := range 6 {
		if resp, data := post(t, gw, conversation(c, 0)); resp.StatusCode != 200 {
			t.Fatalf("conversation %d: %d %s", c, resp.StatusCode, data)
		}
	}
	if s.router.replicas[0].healthy.Load() || len(bad.requests()) != 3 {
		t.Errorf("the replica failing alone: in routing %v after %d requests, want out after 3",
			s.router.replicas[0].healthy.Load(), len(bad.requests()))
	}
}

// A replica that dies in the middle of a stream ends that stream with an
// error event (no retry: the client has the first bytes), counted; the
// replica's open request is closed.
func TestRouteMidStreamFailure(t *testing.T) {
	cut := newFakeEngine(t, fixed(gen{text: answerText("reasoning here", "a long answer"), cutAfter: 3}))
	s, gw := newPool(t, []*fakeEngine{cut})
	body := strings.Replace(conversation(0, 0), `"model":"beam"`, `"model":"beam","stream":true`, 1)
	resp, err := http.Post(gw.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(data), `"error"`) {
		t.Errorf("stream cut mid-way: %d %s", resp.StatusCode, data)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.router.replicas[0].open.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := s.router.replicas[0].open.Load(); n != 0 {
		t.Errorf("%d open requests after the stream ended", n)
	}
}

// Probes take a replica that stops answering out of routing after two
// failures and put it back when it answers again; /health with details
// lists every replica.
func TestRouteProbes(t *testing.T) {
	a := newFakeEngine(t, fixed(gen{text: answerText("r", "a")}))
	b := newFakeEngine(t, fixed(gen{text: answerText("r", "b")}))
	s, gw := newPool(t, []*fakeEngine{a, b})
	b.health.Store(500)
	ctx := context.Background()
	s.probeAll(ctx)
	if !s.router.replicas[1].healthy.Load() {
		t.Error("one failed probe took the replica out")
	}
	s.probeAll(ctx)
	if s.router.replicas[1].healthy.Load() {
		t.Error("two failed probes left the replica in")
	}
	resp, err := http.Get(gw.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Status  string `json:"status"`
		Engines []struct {
			URL     string `json:"url"`
			Healthy bool   `json:"healthy"`
		} `json:"engines"`
	}
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != 200 || h.Status != "ok" || len(h.Engines) != 2 || !h.Engines[0].Healthy || h.Engines[1].Healthy {
		t.Errorf("/health with one replica down: %d %+v", resp.StatusCode, h)
	}
	b.health.Store(0)
	s.probeAll(ctx)
	if !s.router.replicas[1].healthy.Load() {
		t.Error("a replica answering again was not put back")
	}
}

// The engine's cached prompt tokens reach the client on all three APIs.
func TestCachedTokensPassThrough(t *testing.T) {
	fe := newFakeEngine(t, fixed(gen{text: answerText("r", "ok"), cached: 12}))
	_, gw := newPool(t, []*fakeEngine{fe})
	for _, c := range []struct{ path, body, want string }{
		{"/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"` + strings.Repeat("x", 200) + `"}]}`, `"prompt_tokens_details":{"cached_tokens":12}`},
		{"/v1/messages", `{"model":"beam","max_tokens":100,"messages":[{"role":"user","content":"` + strings.Repeat("x", 200) + `"}]}`, `"cache_read_input_tokens":12`},
		{"/v1/responses", `{"model":"beam","input":"` + strings.Repeat("x", 200) + `"}`, `"input_tokens_details":{"cached_tokens":12}`},
	} {
		for _, stream := range []bool{false, true} {
			body := c.body
			if stream {
				body = strings.Replace(body, `"model":"beam"`, `"model":"beam","stream":true`, 1)
				if c.path == "/v1/chat/completions" {
					body = strings.Replace(body, `"stream":true`, `"stream":true,"stream_options":{"include_usage":true}`, 1)
				}
			}
			resp, err := http.Post(gw.URL+c.path, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(data), c.want) {
				t.Errorf("%s stream=%v: %d, want %s in\n%.2000s", c.path, stream, resp.StatusCode, c.want, data)
			}
		}
	}
}
