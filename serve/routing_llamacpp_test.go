package serve

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

var (
	llamaReplicas = flag.String("llama.replicas", "", "comma-separated base URLs of llama-server replicas for TestRoutingLlamaCpp (templates/llamacpp/routing.sh)")
	llamaPIDs     = flag.String("llama.pids", "", "their process ids, in the same order, so that the test can kill the busiest")
)

// routingTool is the tool the conversations must call (tool_choice
// required), so that the tiny random model answers valid Beam Harmony.
const routingTool = `{"type":"function","function":{"name":"lookup","parameters":{"type":"object","properties":{"q":{"type":"string","maxLength":8}},"required":["q"]}}}`

// routingTurn is the chat body of turn n of conversation c (of run tag):
// a system prompt every conversation shares, the conversation's own first
// question (a pasted document of about two kilobytes), and n earlier
// exchanges, each about 250 bytes, one tool call and its result. The shared part is kept under half
// of a first turn's prompt: routing.sh starts llama-server with
// --slot-prompt-similarity 0.5 (a request takes the slot whose cached
// prompt matches at least half of it, else the least recently used one),
// and with a longer shared system prompt (or llama-server's default of
// 0.1) every new conversation takes over another conversation's slot,
// evicting its cache whatever the router does.
func routingTurn(tag string, c, n int) string {
	doc := make([]string, 0, 240)
	for w := range 240 {
		doc = append(doc, fmt.Sprintf("w%x", (c+1)*7919*(w+3)%65521))
	}
	msgs := []string{`{"role":"system","content":"You are Beam, a careful assistant that checks its facts."}`,
		fmt.Sprintf(`{"role":"user","content":"[%s %d] Summarize this document: %s"}`, tag, c, strings.Join(doc, " "))}
	for i := range n {
		msgs = append(msgs,
			fmt.Sprintf(`{"role":"assistant","reasoning_content":"%s","tool_calls":[{"id":"call_%d","type":"function","function":{"name":"lookup","arguments":"{\"q\": \"t%d\"}"}}]}`,
				strings.Repeat(fmt.Sprintf("reasoning about turn %d of %d. ", i, c), 3), i, i),
			fmt.Sprintf(`{"role":"tool","tool_call_id":"call_%d","content":"%s"}`, i, strings.Repeat(fmt.Sprintf("result %d ", i), 6)))
	}
	return `{"model":"beam","max_tokens":300,"tool_choice":"required","parallel_tool_calls":false,"tools":[` + routingTool + `],"messages":[` + strings.Join(msgs, ",") + `]}`
}

// cacheCounts sums the prompt and cached tokens the gateways' replicas
// reported.
func cacheCounts(servers []*Server) (prompt, cached float64) {
	for _, s := range servers {
		for _, name := range s.metrics.replicas.names {
			prompt += s.metrics.replicas.promptTokens.With(name).Value()
			cached += s.metrics.replicas.cachedTokens.With(name).Value()
		}
	}
	return prompt, cached
}

// runConversations runs 12 conversations of 4 turns, turn by turn across
// the conversations, each request to the gateway pick chooses, and returns
// the share of the prompt tokens of turns 2 to 4 the engines read from
// their caches, and the requests each replica got.
func runConversations(t *testing.T, tag string, servers []*Server, gws []*httptest.Server, pick func() int) (float64, map[string]int) {
	t.Helper()
	var p0, c0 float64
	for turn := range 4 {
		if turn == 1 {
			p0, c0 = cacheCounts(servers)
		}
		for c := range 12 {
			resp, err := http.Post(gws[pick()].URL+"/v1/chat/completions", "application/json", strings.NewReader(routingTurn(tag, c, turn)))
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode/100 == 5 && !strings.Contains(string(data), `"engine_500"`) {
				t.Errorf("%s conversation %d turn %d: %d %.300s", tag, c, turn, resp.StatusCode, data)
			}
			if testing.Verbose() && tag == "aware" {
				var u struct {
					Usage *struct {
						Prompt  int `json:"prompt_tokens"`
						Details struct {
							Cached int `json:"cached_tokens"`
						} `json:"prompt_tokens_details"`
					} `json:"usage"`
				}
				if json.Unmarshal(data, &u) == nil && u.Usage != nil {
					t.Logf("%s c%d t%d: prompt %d cached %d", tag, c, turn, u.Usage.Prompt, u.Usage.Details.Cached)
				}
			}
		}
	}
	p1, c1 := cacheCounts(servers)
	load := map[string]int{}
	for _, s := range servers {
		for _, name := range s.metrics.replicas.names {
			load[name] += int(s.metrics.replicas.requests.With(name).Value())
		}
	}
	return (c1 - c0) / (p1 - p0), load
}

// TestRoutingLlamaCpp measures prefix-aware routing in front of real
// llama-server replicas (templates/llamacpp/routing.sh starts them): the
// share of turn 2-4 prompt tokens read from the engines' prefix caches,
// routed by this gateway and by a prefix-blind router (a random replica
// per turn), then two gateways sharing nothing; every replica must carry
// load; then the busiest replica is killed and a fifth turn of every
// conversation must still be answered.
func TestRoutingLlamaCpp(t *testing.T) {
	if *llamaReplicas == "" {
		t.Skip("no llama-server replicas (-llama.replicas; templates/llamacpp/routing.sh)")
	}
	urls := strings.Split(*llamaReplicas, ",")
	newGW := func(backends []string, placement string) (*Server, *httptest.Server) {
		cfg := Config{Engine: EngineLlamaCpp, Routing: Routing{NewConversations: placement}}
		for _, u := range backends {
			cfg.Backends = append(cfg.Backends, Backend{URL: u})
		}
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		gw := httptest.NewServer(s)
		t.Cleanup(gw.Close)
		return s, gw
	}
	rng := rand.New(rand.NewPCG(1, 2))

	// A prefix-blind router: one gateway per replica, a random one a turn.
	var blindS []*Server
	var blindGW []*httptest.Server
	for _, u := range urls {
		s, gw := newGW([]string{u}, RouteNewHash)
		blindS, blindGW = append(blindS, s), append(blindGW, gw)
	}
	blind, blindLoad := runConversations(t, "blind", blindS, blindGW, func() int { return rng.IntN(len(blindGW)) })
	t.Logf("prefix-blind (random replica per turn): cache hit share of turns 2-4: %.3f; requests %v", blind, blindLoad)

	s, gw := newGW(urls, RouteNewFewest)
	aware, load := runConversations(t, "aware", []*Server{s}, []*httptest.Server{gw}, func() int { return 0 })
	t.Logf("prefix-aware (one gateway, --route-new fewest): cache hit share of turns 2-4: %.3f; requests %v", aware, load)

	s1, gw1 := newGW(urls, RouteNewHash)
	s2, gw2 := newGW(urls, RouteNewHash)
	two, twoLoad := runConversations(t, "two", []*Server{s1, s2}, []*httptest.Server{gw1, gw2}, func() int { return rng.IntN(2) })
	t.Logf("prefix-aware (two gateways with --route-new hash, the default, a random one per turn): cache hit share of turns 2-4: %.3f; requests %v", two, twoLoad)

	if aware < 0.75 || aware < blind+0.25 {
		t.Errorf("prefix-aware share %.3f: want at least 0.75 and 0.25 above the prefix-blind %.3f", aware, blind)
	}
	busiest, most := "", -1
	for _, u := range urls {
		name := redactURL(strings.TrimSuffix(u, "/"))
		if load[name] == 0 {
			t.Errorf("replica %s carried no load: %v", name, load)
		}
		if load[name] > most {
			busiest, most = name, load[name]
		}
	}
	if *llamaPIDs == "" {
		return
	}
	pids := strings.Split(*llamaPIDs, ",")
	for i, u := range urls {
		if redactURL(strings.TrimSuffix(u, "/")) == busiest {
			pid, err := strconv.Atoi(pids[i])
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			t.Logf("killed the busiest replica %s (pid %d, %d requests)", busiest, pid, most)
		}
	}
	// A request is lost when no replica took it (the dead one's failure
	// reached the client). A 500 of llama-server itself is not: it
	// happens without a kill too, when its own output parser chokes on the
	// invalid UTF-8 a random byte-level model writes.
	lost, engine500 := 0, 0
	for c := range 12 {
		resp, err := http.Post(gw.URL+"/v1/chat/completions", "application/json", strings.NewReader(routingTurn("aware", c, 4)))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case strings.Contains(string(data), `"engine_500"`):
			engine500++
		case resp.StatusCode/100 == 5:
			lost++
			t.Errorf("after the kill, conversation %d: %d %.300s", c, resp.StatusCode, data)
		}
	}
	retries := s.metrics.replicas.decisions.With(routeRetry).Value()
	var h struct {
		Engines []map[string]any `json:"engines"`
	}
	if resp, err := http.Get(gw.URL + "/health"); err == nil {
		json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
	}
	t.Logf("after killing the busiest replica: %d of 12 new requests lost (%d more got llama-server's own 500), %v retries; /health engines %v", lost, engine500, retries, h.Engines)
}
