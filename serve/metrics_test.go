package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMetricsByEndpoint checks the series by endpoint after requests to
// each API: latency histograms and requests by endpoint, token
// histograms, engine errors by kind, and the Go and process collectors.
func TestMetricsByEndpoint(t *testing.T) {
	fe := newFakeEngine(t, func(r *engineReq) gen {
		if strings.Contains(r.Prompt, "fail") {
			return gen{status: 500, body: `{"error":{"message":"boom"}}`}
		}
		return answer("Short.", "Hello there, friend.")
	})
	gw := newGateway(t, fe)
	postStream(t, gw, withStream(hello, false))
	resp := postMessages(t, gw, `{"model":"beam","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"Hi"}]}`)
	_, _ = io.ReadAll(resp.Body)
	postResponses(t, gw, `{"model":"beam","input":"Hi"}`)
	postResponses(t, gw, `{"model":"beam","input":"fail"}`)
	postMessages(t, gw, `{"model":"beam","max_tokens":50,"messages":[]}`)

	mresp, err := http.Get(gw.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer mresp.Body.Close()
	data, _ := io.ReadAll(mresp.Body)
	text := string(data)
	value := func(series string) float64 {
		t.Helper()
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(text)
		if m == nil {
			t.Errorf("no series %s", series)
			return -1
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	for _, tt := range []struct {
		series string
		want   func(float64) bool
		rule   string
	}{
		{`beamharmony_http_requests_total{code="200",endpoint="/v1/chat/completions"}`, eq(1), "= 1"},
		{`beamharmony_http_requests_total{code="200",endpoint="/v1/messages"}`, eq(1), "= 1"},
		{`beamharmony_http_requests_total{code="400",endpoint="/v1/messages"}`, eq(1), "= 1"},
		{`beamharmony_http_requests_total{code="200",endpoint="/v1/responses"}`, eq(1), "= 1"},
		{`beamharmony_http_requests_total{code="502",endpoint="/v1/responses"}`, eq(1), "= 1"},
		{`beamharmony_time_to_first_token_seconds_count{endpoint="/v1/messages"}`, eq(1), "= 1"},
		{`beamharmony_time_to_first_token_seconds_count{endpoint="/v1/chat/completions"}`, eq(1), "= 1"},
		{`beamharmony_inter_token_latency_seconds_count{endpoint="/v1/messages"}`, gt(2), "> 2 (one per token after the first)"},
		{`beamharmony_e2e_request_latency_seconds_count{endpoint="/v1/responses"}`, eq(2), "= 2"},
		{`beamharmony_request_generation_tokens_count{endpoint="/v1/responses"}`, eq(1), "= 1"},
		{`beamharmony_request_prompt_tokens_sum{endpoint="/v1/messages"}`, gt(0), "> 0"},
		{`beamharmony_engine_errors_total{kind="status_5xx"}`, eq(1), "= 1"},
		{`beamharmony_engine_errors_total{kind="timeout"}`, eq(0), "= 0"},
		{`beamharmony_requests_total{stream="true"}`, eq(2), "= 2"},
		{`beamharmony_errors_total{kind="engine"}`, eq(1), "= 1"},
		{`beamharmony_streams_open`, eq(0), "= 0"},
		{`go_goroutines`, gt(0), "> 0"},
		{`process_cpu_seconds_total`, gt(-1), "present"},
	} {
		if v := value(tt.series); !tt.want(v) {
			t.Errorf("%s = %v, want %s", tt.series, v, tt.rule)
		}
	}
}

func eq(want float64) func(float64) bool { return func(v float64) bool { return v == want } }
func gt(min float64) func(float64) bool  { return func(v float64) bool { return v > min } }

// TestInterTokenCountOneWrite checks that every interval is counted when
// the engine's whole stream arrives in one write, so that no write of the
// gateway follows the last tokens: the stream's last batch of
// observations is added at its end.
func TestInterTokenCountOneWrite(t *testing.T) {
	tokens := tokenize(answerText("Short.", "Hello there, friend."))
	var events []string
	for i, tok := range tokens {
		text, _ := json.Marshal(tok)
		fr, sr := "null", "null"
		if i == len(tokens)-1 {
			fr, sr = `"stop"`, `"<|return|>"`
		}
		events = append(events, `{"id":"cmpl-1","object":"text_completion","created":1,"model":"beam","choices":[{"index":0,"text":`+
			string(text)+`,"logprobs":null,"finish_reason":`+fr+`,"stop_reason":`+sr+`}],"usage":null}`)
	}
	fe := newFakeEngine(t, fixed(gen{events: events}))
	gw := newGateway(t, fe)
	if res := postStream(t, gw, withStream(hello, true)); !res.done {
		t.Fatalf("stream did not finish: %+v", res.errEvent)
	}
	resp, err := http.Get(gw.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	want := `beamharmony_inter_token_latency_seconds_count{endpoint="/v1/chat/completions"} ` + strconv.Itoa(len(tokens)-1) + "\n"
	if !strings.Contains(string(data), want) {
		t.Errorf("metrics lack %q (%d tokens):\n%s", want, len(tokens), regexp.MustCompile(`(?m)^beamharmony_inter_token.*count.*$`).FindAllString(string(data), -1))
	}
}
