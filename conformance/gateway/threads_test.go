package gateway_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/toolrunner"
	"github.com/beamharmony/harmony/serve"
)

// TestAnthropicToolRunnerThreads: anthropic-sdk-go's tool runner, which
// runs over a message thread by default, streamed or not, finishes a tool loop through a
// gateway with the memory, its second request carrying only the tool
// result on the thread, and through one without, which refuses the thread
// with thread_unsupported_request: the runner then sends the whole
// conversation (gap decision 277).
func TestAnthropicToolRunnerThreads(t *testing.T) {
	for _, c := range []struct{ memory, streamed bool }{{true, false}, {true, true}, {false, false}, {false, true}} {
		memory := c.memory
		name := "stateless"
		if memory {
			name = "memory"
		}
		if c.streamed {
			name += "/streamed"
		}
		t.Run(name, func(t *testing.T) {
			fe := newFakeEngine(t, toolLoopScript)
			cfg := serve.Config{Backend: fe.Server.URL}
			if memory {
				cfg.ReasoningMemoryBytes = 1 << 20
			}
			s, err := serve.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var bodies []string
			gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(b))
				mu.Lock()
				bodies = append(bodies, string(b))
				mu.Unlock()
				s.ServeHTTP(w, r)
			}))
			defer gw.Close()
			type weather struct {
				City string `json:"city" jsonschema:"required"`
			}
			var cities []string
			tool, err := toolrunner.NewBetaToolFromJSONSchema("get_weather", "Get the current weather for a city.",
				func(_ context.Context, in weather) (anthropic.BetaToolResultBlockParamContentUnion, error) {
					cities = append(cities, in.City)
					return anthropic.BetaToolResultBlockParamContentUnion{OfText: &anthropic.BetaTextBlockParam{Text: "14 C, cloudy"}}, nil
				})
			if err != nil {
				t.Fatal(err)
			}
			client := newAnthropicClient(gw)
			params := anthropic.BetaToolRunnerParams{
				BetaMessageNewParams: anthropic.BetaMessageNewParams{Model: "beam", MaxTokens: 1024,
					Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("What's the weather in London?"))}},
			}
			var msg *anthropic.BetaMessage
			if c.streamed {
				runner := client.Beta.Messages.NewToolRunnerStreaming([]anthropic.BetaTool{tool}, params)
				for events, err := range runner.AllStreaming(context.Background()) {
					if err != nil {
						t.Fatal(err)
					}
					for _, err := range events {
						if err != nil {
							t.Fatal(err)
						}
					}
				}
				msg = runner.LastMessage()
			} else {
				var err error
				if msg, err = client.Beta.Messages.NewToolRunner([]anthropic.BetaTool{tool}, params).RunToCompletion(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if msg == nil {
				t.Fatal("no last message")
			}
			var text string
			for _, b := range msg.Content {
				text += b.Text
			}
			if text != "It is 14 C and cloudy in London." || len(cities) != 1 || cities[0] != "London" {
				t.Fatalf("answer %q, calls %v", text, cities)
			}
			mu.Lock()
			defer mu.Unlock()
			threaded := []string{`"thread":{"type":"create"}`, `"previous_message_id":"msg_`}
			if !memory {
				// Refused, then the loop without a thread.
				threaded = []string{`"thread":{"type":"create"}`, "", ""}
			}
			if len(bodies) != len(threaded) {
				t.Fatalf("%d requests, want %d:\n%s", len(bodies), len(threaded), strings.Join(bodies, "\n"))
			}
			for i, want := range threaded {
				if has := strings.Contains(bodies[i], `"thread"`); has != (want != "") || !strings.Contains(bodies[i], want) {
					t.Errorf("request %d, want %q:\n%s", i, want, bodies[i])
				}
			}
			if last := bodies[len(bodies)-1]; memory && (strings.Contains(last, "London?") || strings.Contains(last, `"tools"`)) {
				t.Errorf("the continue repeats the conversation or the tools:\n%s", last)
			}
		})
	}
}
