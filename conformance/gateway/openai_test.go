package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
)

func newOpenAIClient(gw *httptest.Server) openai.Client {
	return openai.NewClient(option.WithBaseURL(gw.URL+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
}

// extraString reads a string field the client does not know, such as
// reasoning_content.
func extraString(t *testing.T, fields map[string]respjson.Field, name string) string {
	t.Helper()
	f, ok := fields[name]
	if !ok {
		return ""
	}
	var s string
	if err := json.Unmarshal([]byte(f.Raw()), &s); err != nil {
		t.Fatalf("%s: %v: %s", name, err, f.Raw())
	}
	return s
}

var weatherParam = openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
	Name:        "get_weather",
	Description: openai.String("Get the current weather for a city."),
	Parameters: openai.FunctionParameters{
		"type": "object",
		"properties": map[string]any{
			"city": map[string]any{"type": "string"},
			"days": map[string]any{"type": "integer", "description": "Forecast length in days"},
		},
		"required": []string{"city"},
	},
})

func TestOpenAIClientAnswer(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("The user is greeting me.", "Hi! How can I help?")))
	client := newOpenAIClient(newGateway(t, fe))
	resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "beam",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hello!")},
	})
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Choices[0].Message
	if msg.Content != "Hi! How can I help?" || resp.Choices[0].FinishReason != "stop" {
		t.Errorf("content %q, finish %q", msg.Content, resp.Choices[0].FinishReason)
	}
	for _, f := range []string{"reasoning_content", "reasoning"} {
		if got := extraString(t, msg.JSON.ExtraFields, f); got != "The user is greeting me." {
			t.Errorf("%s %q", f, got)
		}
	}
	if resp.Usage.CompletionTokens == 0 || resp.Usage.TotalTokens != resp.Usage.PromptTokens+resp.Usage.CompletionTokens {
		t.Errorf("usage %+v", resp.Usage)
	}
}

func TestOpenAIClientStream(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("The user is greeting me.", "Hi! How can I help?")))
	client := newOpenAIClient(newGateway(t, fe))
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:         "beam",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hello!")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	var acc openai.ChatCompletionAccumulator
	var reasoning strings.Builder
	deltas := 0
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		if len(chunk.Choices) > 0 {
			reasoning.WriteString(extraString(t, chunk.Choices[0].Delta.JSON.ExtraFields, "reasoning_content"))
			if chunk.Choices[0].Delta.Content != "" {
				deltas++
			}
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if got := acc.Choices[0].Message.Content; got != "Hi! How can I help?" {
		t.Errorf("content %q", got)
	}
	if deltas < 2 {
		t.Errorf("content came in %d deltas; want it streamed", deltas)
	}
	if reasoning.String() != "The user is greeting me." {
		t.Errorf("reasoning %q", reasoning.String())
	}
	if acc.Choices[0].FinishReason != "stop" {
		t.Errorf("finish %q", acc.Choices[0].FinishReason)
	}
	if acc.Usage.CompletionTokens == 0 {
		t.Errorf("usage %+v", acc.Usage)
	}
}

// toolLoopScript calls get_weather on the first turn and answers once the
// prompt carries the tool's result.
func toolLoopScript(r *engineReq) gen {
	if strings.Contains(r.Prompt, "14 C, cloudy") {
		return answer("The tool says 14 C and cloudy.", "It is 14 C and cloudy in London.")
	}
	return callGen("I should check the weather tool.", scriptCall{Name: "get_weather", Params: [][2]string{{"city", "London"}}})
}

// wantSecondPrompt is the end of the second turn's prompt: the first
// turn's reasoning, call and result, as the page's tool loop renders them.
const wantSecondPrompt = "<|start|>user<|message|>What's the weather in London?<|end|>" +
	"<|start|>assistant<|channel|>analysis<|message|>I should check the weather tool.<|end|>" +
	"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"city\">\nLondon\n</rfl:parameter><|call|>" +
	"<|start|>get_weather to=assistant<|channel|>analysis<|message|>14 C, cloudy<|end|><|start|>assistant"

// TestOpenAIClientToolLoop runs two turns with a tool call between them;
// the client sends the reasoning back as the extra field reasoning_content.
func TestOpenAIClientToolLoop(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		name := "non-streamed"
		if streamed {
			name = "streamed"
		}
		t.Run(name, func(t *testing.T) {
			fe := newFakeEngine(t, toolLoopScript)
			client := newOpenAIClient(newGateway(t, fe))
			ctx := context.Background()
			params := openai.ChatCompletionNewParams{
				Model:    "beam",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What's the weather in London?")},
				Tools:    []openai.ChatCompletionToolUnionParam{weatherParam},
			}
			var msg openai.ChatCompletionMessage
			var reasoning, finish string
			if streamed {
				stream := client.Chat.Completions.NewStreaming(ctx, params)
				var acc openai.ChatCompletionAccumulator
				var b strings.Builder
				for stream.Next() {
					chunk := stream.Current()
					acc.AddChunk(chunk)
					if len(chunk.Choices) > 0 {
						b.WriteString(extraString(t, chunk.Choices[0].Delta.JSON.ExtraFields, "reasoning_content"))
					}
				}
				if err := stream.Err(); err != nil {
					t.Fatal(err)
				}
				msg, reasoning, finish = acc.Choices[0].Message, b.String(), acc.Choices[0].FinishReason
			} else {
				resp, err := client.Chat.Completions.New(ctx, params)
				if err != nil {
					t.Fatal(err)
				}
				msg, finish = resp.Choices[0].Message, resp.Choices[0].FinishReason
				reasoning = extraString(t, msg.JSON.ExtraFields, "reasoning_content")
			}
			if finish != "tool_calls" || len(msg.ToolCalls) != 1 {
				t.Fatalf("finish %q, %d calls", finish, len(msg.ToolCalls))
			}
			tc := msg.ToolCalls[0]
			if tc.Function.Name != "get_weather" || tc.Function.Arguments != `{"city": "London"}` || !strings.HasPrefix(tc.ID, "call_") {
				t.Fatalf("call %+v", tc)
			}
			if reasoning != "I should check the weather tool." {
				t.Fatalf("reasoning %q", reasoning)
			}

			asst := msg.ToAssistantMessageParam()
			asst.SetExtraFields(map[string]any{"reasoning_content": reasoning})
			params.Messages = append(params.Messages,
				openai.ChatCompletionMessageParamUnion{OfAssistant: &asst},
				openai.ToolMessage("14 C, cloudy", tc.ID))
			resp, err := client.Chat.Completions.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Choices[0].Message.Content; got != "It is 14 C and cloudy in London." {
				t.Errorf("second answer %q", got)
			}
			if p := fe.LastRequest(t).Prompt; !strings.HasSuffix(p, wantSecondPrompt) {
				t.Errorf("second prompt ends\n%q\nwant\n%q", p[max(0, len(p)-len(wantSecondPrompt)):], wantSecondPrompt)
			}
		})
	}
}

// TestOpenAIClientDropsReasoning is the client that sends the assistant
// turn back without its reasoning: a 400 with the page's message.
func TestOpenAIClientDropsReasoning(t *testing.T) {
	fe := newFakeEngine(t, toolLoopScript)
	client := newOpenAIClient(newGateway(t, fe))
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{
		Model:    "beam",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What's the weather in London?")},
		Tools:    []openai.ChatCompletionToolUnionParam{weatherParam},
	}
	resp, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	msg := resp.Choices[0].Message
	params.Messages = append(params.Messages, msg.ToParam(), openai.ToolMessage("14 C, cloudy", msg.ToolCalls[0].ID))
	_, err = client.Chat.Completions.New(ctx, params)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v, want an API error", err)
	}
	want := "The assistant turn at messages[1] is missing its reasoning. Dropping reasoning from earlier turns degrades this model's output. " +
		"Send it back in 'reasoning_content', or set allow_missing_thinking=true to skip this check. " +
		"On this server: chat_template_kwargs.allow_missing_thinking in the request, or --allow-missing-thinking for every request."
	if apiErr.StatusCode != 400 || apiErr.Message != want || apiErr.Code != "missing_reasoning" || apiErr.Type != "invalid_request_error" {
		t.Errorf("status %d, code %q, type %q, message %q", apiErr.StatusCode, apiErr.Code, apiErr.Type, apiErr.Message)
	}
	if n := len(fe.Requests()); n != 1 {
		t.Errorf("the engine got %d requests, want 1", n)
	}
}
