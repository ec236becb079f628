package gateway_test

import (
	"context"
	"errors"
	"github.com/beamharmony/harmony/serve"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/beamharmony/harmony"
)

func newAnthropicClient(gw *httptest.Server) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(gw.URL), option.WithAPIKey("unused"), option.WithMaxRetries(0))
}

var anthropicWeather = anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
	Name:        "get_weather",
	Description: anthropic.String("Get the current weather for a city."),
	InputSchema: anthropic.ToolInputSchemaParam{
		Properties: map[string]any{
			"city": map[string]any{"type": "string"},
			"days": map[string]any{"type": "integer", "description": "Forecast length in days"},
		},
		Required: []string{"city"},
	},
}}

// anthropicTurn sends params, streamed or not, and returns the message as
// the client puts it together.
func anthropicTurn(t *testing.T, client anthropic.Client, params anthropic.MessageNewParams, streamed bool) (*anthropic.Message, error) {
	t.Helper()
	ctx := context.Background()
	if !streamed {
		return client.Messages.New(ctx, params)
	}
	stream := client.Messages.NewStreaming(ctx, params)
	msg := &anthropic.Message{}
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatalf("accumulate: %v", err)
		}
	}
	return msg, stream.Err()
}

func TestAnthropicClientToolLoop(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		name := "non-streamed"
		if streamed {
			name = "streamed"
		}
		t.Run(name, func(t *testing.T) {
			fe := newFakeEngine(t, toolLoopScript)
			client := newAnthropicClient(newGateway(t, fe))
			params := anthropic.MessageNewParams{
				Model:     "beam",
				MaxTokens: 4096,
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in London?"))},
				Tools:     []anthropic.ToolUnionParam{anthropicWeather},
			}
			msg, err := anthropicTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if msg.StopReason != anthropic.StopReasonToolUse || len(msg.Content) != 2 {
				t.Fatalf("stop %q, %d blocks: %s", msg.StopReason, len(msg.Content), msg.RawJSON())
			}
			th, tu := msg.Content[0], msg.Content[1]
			if th.Type != "thinking" || th.Thinking != "I should check the weather tool." || th.Signature == "" {
				t.Errorf("thinking block %s", th.RawJSON())
			}
			if tu.Type != "tool_use" || tu.Name != "get_weather" || !strings.HasPrefix(tu.ID, "toolu_") || !jsonEq(tu.Input, `{"city": "London"}`) {
				t.Errorf("tool_use block %s (input %s)", tu.RawJSON(), tu.Input)
			}
			if msg.Usage.OutputTokens == 0 || msg.Usage.InputTokens == 0 {
				t.Errorf("usage %+v", msg.Usage)
			}

			params.Messages = append(params.Messages, msg.ToParam(),
				anthropic.NewUserMessage(anthropic.NewToolResultBlock(tu.ID, "14 C, cloudy", false)))
			msg2, err := anthropicTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if msg2.StopReason != anthropic.StopReasonEndTurn || len(msg2.Content) != 2 || msg2.Content[1].Text != "It is 14 C and cloudy in London." {
				t.Errorf("second answer: %s", msg2.RawJSON())
			}
			if p := fe.LastRequest(t).Prompt; !strings.HasSuffix(p, wantSecondPrompt) {
				t.Errorf("second prompt ends\n%q\nwant\n%q", p[max(0, len(p)-len(wantSecondPrompt)):], wantSecondPrompt)
			}
		})
	}
}

// parallelScript calls get_weather for two cities at once, then answers
// once both results are in the prompt.
func parallelScript(r *engineReq) gen {
	if strings.Contains(r.Prompt, "9 C, rain") {
		return answer("Both results are in.", "London 14 C, Paris 9 C.")
	}
	return callGen("Two cities: call the tool twice.",
		scriptCall{Name: "get_weather", Params: [][2]string{{"city", "London"}}},
		scriptCall{Name: "get_weather", Params: [][2]string{{"city", "Paris"}, {"days", "2"}}})
}

// wantParallelPrompt is the end of the second prompt of the parallel loop:
// both calls, then both results in the order of the calls.
const wantParallelPrompt = "<|start|>assistant<|channel|>analysis<|message|>Two cities: call the tool twice.<|end|>" +
	"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"city\">\nLondon\n</rfl:parameter><|end|>" +
	"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"city\">\nParis\n</rfl:parameter>\n<rfl:parameter name=\"days\">\n2\n</rfl:parameter><|call|>" +
	"<|start|>get_weather to=assistant<|channel|>analysis<|message|>14 C, cloudy<|end|>" +
	"<|start|>get_weather to=assistant<|channel|>analysis<|message|>9 C, rain<|end|><|start|>assistant"

func TestAnthropicClientParallelCalls(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-streamed", true: "streamed"}[streamed], func(t *testing.T) {
			fe := newFakeEngine(t, parallelScript)
			client := newAnthropicClient(newGateway(t, fe))
			params := anthropic.MessageNewParams{
				Model:     "beam",
				MaxTokens: 4096,
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in London and Paris?"))},
				Tools:     []anthropic.ToolUnionParam{anthropicWeather},
			}
			msg, err := anthropicTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if msg.StopReason != anthropic.StopReasonToolUse || len(msg.Content) != 3 {
				t.Fatalf("stop %q: %s", msg.StopReason, msg.RawJSON())
			}
			a, b := msg.Content[1], msg.Content[2]
			if !jsonEq(a.Input, `{"city": "London"}`) || !jsonEq(b.Input, `{"city": "Paris", "days": 2}`) || a.ID == b.ID {
				t.Fatalf("calls %s %s", a.RawJSON(), b.RawJSON())
			}
			params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(
				anthropic.NewToolResultBlock(a.ID, "14 C, cloudy", false),
				anthropic.NewToolResultBlock(b.ID, "9 C, rain", false)))
			msg2, err := anthropicTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if msg2.Content[len(msg2.Content)-1].Text != "London 14 C, Paris 9 C." {
				t.Errorf("second answer: %s", msg2.RawJSON())
			}
			if p := fe.LastRequest(t).Prompt; !strings.HasSuffix(p, wantParallelPrompt) {
				t.Errorf("second prompt ends\n%q\nwant\n%q", p[max(0, len(p)-len(wantParallelPrompt)):], wantParallelPrompt)
			}
		})
	}
}

// TestAnthropicClientTampersWithThinking is the client that drops or edits
// the thinking: a 400 in Anthropic's shape, and no engine request.
func TestAnthropicClientTampersWithThinking(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(blocks []anthropic.ContentBlockParamUnion) []anthropic.ContentBlockParamUnion
		want   string
	}{
		{"drops the thinking block", func(b []anthropic.ContentBlockParamUnion) []anthropic.ContentBlockParamUnion { return b[1:] },
			"messages[1]: the assistant turn has no thinking block"},
		{"edits the thinking", func(b []anthropic.ContentBlockParamUnion) []anthropic.ContentBlockParamUnion {
			b[0].OfThinking.Thinking = "I should call the tool, and lie about it."
			return b
		}, "messages[1].content[0].signature: missing or not this server's signature"},
		{"drops the signature", func(b []anthropic.ContentBlockParamUnion) []anthropic.ContentBlockParamUnion {
			b[0].OfThinking.Signature = ""
			return b
		}, "messages[1].content[0].signature: missing or not this server's signature"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fe := newFakeEngine(t, toolLoopScript)
			client := newAnthropicClient(newGateway(t, fe))
			params := anthropic.MessageNewParams{
				Model:     "beam",
				MaxTokens: 4096,
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in London?"))},
				Tools:     []anthropic.ToolUnionParam{anthropicWeather},
			}
			msg, err := client.Messages.New(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			asst := msg.ToParam()
			asst.OfAssistant.Content = tt.change(asst.OfAssistant.Content)
			params.Messages = append(params.Messages, asst,
				anthropic.NewUserMessage(anthropic.NewToolResultBlock(msg.Content[1].ID, "14 C, cloudy", false)))
			_, err = client.Messages.New(context.Background(), params)
			var apiErr *anthropic.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v, want an API error", err)
			}
			if apiErr.StatusCode != 400 || apiErr.Type() != "invalid_request_error" || !strings.HasPrefix(apiErr.Message, tt.want) {
				t.Errorf("status %d, type %q, message %q", apiErr.StatusCode, apiErr.Type(), apiErr.Message)
			}
			if n := len(fe.Requests()); n != 1 {
				t.Errorf("the engine got %d requests, want 1", n)
			}
		})
	}
}

// TestSignaturesAcrossReplicas checks that replicas sharing --signing-key
// accept each other's thinking, and that without it they do not.
func TestSignaturesAcrossReplicas(t *testing.T) {
	for _, tt := range []struct {
		name       string
		keyA, keyB string
		wantStatus int
	}{
		{"same key", "s3cret", "s3cret", 200},
		{"random keys", "", "", 400},
		{"different keys", "s3cret", "other", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fe := newFakeEngine(t, toolLoopScript)
			a := newAnthropicClient(newGateway(t, fe, func(c *serve.Config) { c.SigningKey = tt.keyA }))
			b := newAnthropicClient(newGateway(t, fe, func(c *serve.Config) { c.SigningKey = tt.keyB }))
			params := anthropic.MessageNewParams{
				Model:     "beam",
				MaxTokens: 4096,
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in London?"))},
				Tools:     []anthropic.ToolUnionParam{anthropicWeather},
			}
			msg, err := a.Messages.New(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			params.Messages = append(params.Messages, msg.ToParam(),
				anthropic.NewUserMessage(anthropic.NewToolResultBlock(msg.Content[1].ID, "14 C, cloudy", false)))
			_, err = b.Messages.New(context.Background(), params)
			status := 200
			var apiErr *anthropic.Error
			if errors.As(err, &apiErr) {
				status = apiErr.StatusCode
			} else if err != nil {
				t.Fatal(err)
			}
			if status != tt.wantStatus {
				t.Errorf("status %d, want %d (%v)", status, tt.wantStatus, err)
			}
		})
	}
}

// TestMessagesStopSequence checks stop_reason stop_sequence and the
// matched string, streamed and not.
func TestMessagesStopSequence(t *testing.T) {
	g := gen{Text: "<|channel|>analysis<|message|>Count.<|end|><|start|>assistant<|channel|>final<|message|>1 2 3 STOP", StopReason: "STOP"}
	fe := newFakeEngine(t, fixed(g))
	client := newAnthropicClient(newGateway(t, fe))
	for _, streamed := range []bool{false, true} {
		msg, err := anthropicTurn(t, client, anthropic.MessageNewParams{
			Model: "beam", MaxTokens: 100, StopSequences: []string{"STOP"},
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Count"))},
		}, streamed)
		if err != nil {
			t.Fatal(err)
		}
		if msg.StopReason != anthropic.StopReasonStopSequence || msg.StopSequence != "STOP" || msg.Content[1].Text != "1 2 3 " {
			t.Errorf("streamed %v: %s", streamed, msg.RawJSON())
		}
	}
	if got := fe.LastRequest(t).Stop; strings.Join(got, " ") != "STOP <|call|> <|return|>" {
		t.Errorf("engine stop %q", got)
	}
}

// TestMessagesParallelOff checks disable_parallel_tool_use: the reply
// keeps the first call, streamed and not.
func TestMessagesParallelOff(t *testing.T) {
	fe := newFakeEngine(t, parallelScript)
	client := newAnthropicClient(newGateway(t, fe))
	for _, streamed := range []bool{false, true} {
		msg, err := anthropicTurn(t, client, anthropic.MessageNewParams{
			Model: "beam", MaxTokens: 100,
			Messages:   []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in London and Paris?"))},
			Tools:      []anthropic.ToolUnionParam{anthropicWeather},
			ToolChoice: anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{DisableParallelToolUse: anthropic.Bool(true)}},
		}, streamed)
		if err != nil {
			t.Fatal(err)
		}
		if msg.StopReason != anthropic.StopReasonToolUse || len(msg.Content) != 2 || !jsonEq(msg.Content[1].Input, `{"city": "London"}`) {
			t.Errorf("streamed %v: %s", streamed, msg.RawJSON())
		}
	}
}

func TestCountTokens(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	body := `{"model":"beam","messages":[{"role":"user","content":"Hello!"}]}`
	t.Run("without a tokenizer", func(t *testing.T) {
		resp, err := http.Post(newGateway(t, fe).URL+"/v1/messages/count_tokens", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 501 || !strings.Contains(string(data), "no tokenizer") || !strings.Contains(string(data), `"type":"error"`) {
			t.Errorf("%d %s", resp.StatusCode, data)
		}
	})
	t.Run("with a tokenizer", func(t *testing.T) {
		tk := beamTokenizer(t)
		gw := newGateway(t, fe, func(c *serve.Config) { c.Tokenizer = tk })
		client := newAnthropicClient(gw)
		got, err := client.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{
			Model:    "beam",
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello!"))},
		})
		if err != nil {
			t.Fatal(err)
		}
		// The prompt of the page's hello example, as Beam's tokenizer encodes it.
		prompt, err := harmony.Render([]harmony.Message{{Role: "user", Content: "Hello!"}}, &harmony.Options{AddGenerationPrompt: true})
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(len(tk.Encode(prompt).IDs)); got.InputTokens != want {
			t.Errorf("input_tokens %d, want %d", got.InputTokens, want)
		}
	})
	if n := len(fe.Requests()); n != 0 {
		t.Errorf("the engine got %d requests", n)
	}
}
