package serve

import (
	"bufio"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

var updateMetrics = flag.Bool("update-metrics", false, "rewrite serve/testdata/metrics_*.golden from the gateway's /metrics")

// TestMetricsExposition checks /metrics byte for byte after a fixed set of
// observations through the gateway's own calls: every beamharmony_ family
// with its HELP, TYPE, label order, series order, buckets and values, a
// replica name that needs escaping, values on and above the bounds, and the
// Content-Type. The golden was written by the exporter the gateway used
// before (client_golang), so that any scraper sees what it saw.
func TestMetricsExposition(t *testing.T) {
	m := newMetrics()
	rt := newRouter(Routing{})
	names := []string{"http://b:8000", "http://a\"q\\b\n:8000"}
	for _, n := range names {
		rt.add(n, 1)
	}
	m.addReplicas(rt, names)
	rt.replicas[1].open.Store(3)

	const chat, messages, responses = "/v1/chat/completions", "/v1/messages", "/v1/responses"
	m.observe(chat, true, 200, kindNone, "", 1500*time.Millisecond, &usage{PromptTokens: 16, CompletionTokens: 1 << 20})
	m.observe(chat, false, 200, kindNone, "", 50*time.Millisecond, &usage{PromptTokens: 17})
	m.observe(messages, true, 502, kindEngine, "engine_503", 2*time.Second, nil)
	m.observe(messages, false, 499, kindClientClosed, "", 3*time.Millisecond, nil)
	m.observe(responses, false, 504, kindTimeout, "", 700*time.Second, nil)
	m.observe(responses, false, 400, kindEngine4xx, "", 10*time.Millisecond, &usage{PromptTokens: 2000000, CompletionTokens: 3})
	m.observe("/v1/messages/count_tokens", false, 501, kindNotImplemented, "", time.Millisecond, nil)
	m.observe(chat, false, 502, kindEngine, "engine_bad_reply", 0, nil)
	m.observe(chat, false, 502, kindModelOutput, "", 5*time.Second, nil)

	m.ttft.With(chat).Observe(0.01)
	m.ttft.With(chat).Observe(0.3)
	m.ttft.With(messages).Observe(100)
	b := m.itl.With(chat).Batch()
	for _, v := range []float64{0, 0.001, 0.0025, 0.003, 3, 0.25} {
		b.Observe(v)
	}
	b.Flush()
	b.Observe(0.5)
	b.Flush()
	m.itl.With(responses).Batch().Flush()

	m.streamsOpen.Inc()
	m.streamsOpen.Inc()
	m.streamsOpen.Dec()
	m.prepareWaiting.Inc()
	m.lateInstructions.With(chat, "user_message").Inc()
	m.unhonoured.With(messages, "hosted_tool").Inc()
	m.unhonoured.With(messages, "hosted_tool").Inc()
	m.restored.With(chat).Add(2)
	m.webTools.With("search", "unavailable").Inc()
	m.webTools.With("browse", "ok").Inc()
	m.errors.With(kindNotFound.String()).Inc()

	m.routeDecision(routePrefix)
	m.routeDecision(routeRetry)
	m.routeDecision(routeRetry)
	for range 3 {
		m.replicaRequest(0)
	}
	m.replicaRequest(1)
	m.replicaHealth(1, false)
	m.replicaUsage(0, &usage{PromptTokens: 100, CachedTokens: 64})
	m.replicaUsage(5, &usage{PromptTokens: 100})

	rec := httptest.NewRecorder()
	m.serveHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	got := "Content-Type: " + rec.Header().Get("Content-Type") + "\n" + withoutRuntime(rec.Body.String())
	golden(t, "testdata/metrics_exposition.golden", got)
}

// TestMetricsAfterTraffic checks /metrics after requests to every API
// through a gateway in front of a fake engine: the families and series
// that appear, their labels and every value that does not depend on the
// clock (the buckets and sums of the _seconds histograms, marked T, do).
func TestMetricsAfterTraffic(t *testing.T) {
	fe := newFakeEngine(t, func(r *engineReq) gen {
		if strings.Contains(r.Prompt, "fail") {
			return gen{status: 500, body: `{"error":{"message":"boom"}}`}
		}
		return answer("Short.", "Hello there, friend.")
	})
	gw := newGateway(t, fe)
	send := func(method, path, body string) {
		t.Helper()
		req, err := http.NewRequest(method, gw.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	send("POST", "/v1/chat/completions", hello)
	send("POST", "/v1/chat/completions", withStream(hello, true))
	send("POST", "/v1/chat/completions", `{"model":"beam","messages":[{"role":"user","content":"Hi"},{"role":"system","content":"Be brief."}]}`)
	send("POST", "/v1/messages", `{"model":"beam","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`)
	send("POST", "/v1/messages", `{"model":"beam","max_tokens":50,"messages":[]}`)
	send("POST", "/v1/messages", `{"model":"beam","max_tokens":10,"messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5}]}`)
	send("POST", "/v1/responses", `{"model":"beam","input":"Hi"}`)
	send("POST", "/v1/responses", `{"model":"beam","input":"fail"}`)
	send("GET", "/v1/no-such-endpoint", "")

	resp, err := http.Get(gw.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	text := strings.ReplaceAll(withoutRuntime(string(data)), fe.srv.URL, "ENGINE")
	text = clockValue.ReplaceAllString(text, "$1 T")
	golden(t, "testdata/metrics_traffic.golden", "Content-Type: "+resp.Header.Get("Content-Type")+"\n"+text)
}

// clockValue matches a sample whose value depends on the clock.
var clockValue = regexp.MustCompile(`(?m)^(\w+_seconds_(?:bucket|sum)(?:\{[^}]*\})?) \S+$`)

// withoutRuntime drops the go_ and process_ families from an exposition.
func withoutRuntime(text string) string {
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		if strings.HasPrefix(name, "go_") || strings.HasPrefix(name, "process_") {
			continue
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// golden compares got with the file at path, or writes it with
// -update-metrics.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *updateMetrics {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("/metrics differs from %s\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestMetricsDocumented: every beamharmony_ family the gateway exports
// (the exposition golden's TYPE lines) is named in docs/serve.md's
// metrics table or docs/routing.md (the replicas' and the router's), and
// every beamharmony_ name those pages give is exported.
func TestMetricsDocumented(t *testing.T) {
	golden, err := os.ReadFile("testdata/metrics_exposition.golden")
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (beamharmony_\w+) `).FindAllStringSubmatch(string(golden), -1) {
		exported[m[1]] = true
	}
	if len(exported) < 20 {
		t.Fatalf("the golden names %d families; the pattern no longer reads it", len(exported))
	}
	named := map[string]bool{}
	for _, page := range []string{"../docs/serve.md", "../docs/routing.md"} {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile("`(beamharmony_\\w+)").FindAllStringSubmatch(string(text), -1) {
			named[m[1]] = true
			if !exported[m[1]] {
				t.Errorf("%s names %s, which the gateway does not export", page, m[1])
			}
		}
	}
	for name := range exported {
		if !named[name] {
			t.Errorf("%s is exported but neither docs/serve.md nor docs/routing.md names it", name)
		}
	}
}
