package gateway_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
)

var responsesWeather = responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
	Name:        "get_weather",
	Description: openai.String("Get the current weather for a city."),
	Strict:      openai.Bool(false),
	Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"city": map[string]any{"type": "string"},
			"days": map[string]any{"type": "integer", "description": "Forecast length in days"},
		},
		"required": []string{"city"},
	},
}}

// responsesTurn sends params, streamed or not, and returns the response;
// a stream's events are checked for their sequence numbers and their
// deltas against the final items.
func responsesTurn(t *testing.T, client openai.Client, params responses.ResponseNewParams, streamed bool) (*responses.Response, error) {
	t.Helper()
	ctx := context.Background()
	if !streamed {
		return client.Responses.New(ctx, params)
	}
	stream := client.Responses.NewStreaming(ctx, params)
	var final *responses.Response
	var seq int64
	deltas := map[string]*strings.Builder{} // by item id
	var names []string
	for stream.Next() {
		ev := stream.Current()
		if ev.SequenceNumber != seq {
			t.Fatalf("event %s has sequence_number %d, want %d", ev.Type, ev.SequenceNumber, seq)
		}
		seq++
		names = append(names, ev.Type)
		switch ev.Type {
		case "response.reasoning_text.delta", "response.output_text.delta", "response.function_call_arguments.delta":
			b := deltas[ev.ItemID]
			if b == nil {
				b = new(strings.Builder)
				deltas[ev.ItemID] = b
			}
			b.WriteString(ev.Delta)
		case "response.completed", "response.incomplete", "response.failed":
			r := ev.Response
			final = &r
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	if final == nil {
		t.Fatalf("no final event in %v", names)
	}
	for _, it := range final.Output {
		var text string
		switch it.Type {
		case "reasoning":
			text = it.AsReasoning().Content[0].Text
		case "message":
			text = it.AsMessage().Content[0].Text
		case "function_call":
			text = it.AsFunctionCall().Arguments
		}
		if b := deltas[it.ID]; b == nil || b.String() != text {
			t.Errorf("%s item %s: deltas do not join to %q", it.Type, it.ID, text)
		}
	}
	if names[0] != "response.created" || names[1] != "response.in_progress" {
		t.Errorf("stream begins %v", names[:2])
	}
	return final, nil
}

// toInput turns a response's output items into input items, as a
// stateless client sends them back.
func toInput(t *testing.T, r *responses.Response) []responses.ResponseInputItemUnionParam {
	t.Helper()
	var in []responses.ResponseInputItemUnionParam
	for _, it := range r.Output {
		switch it.Type {
		case "reasoning":
			// Built field by field (ToParam would send the raw JSON,
			// which the tests that edit the item could not change).
			rs := it.AsReasoning()
			p := responses.ResponseReasoningItemParam{ID: rs.ID, Summary: []responses.ResponseReasoningItemSummaryParam{}}
			for _, c := range rs.Content {
				p.Content = append(p.Content, responses.ResponseReasoningItemContentParam{Text: c.Text})
			}
			if rs.EncryptedContent != "" {
				p.EncryptedContent = openai.String(rs.EncryptedContent)
			}
			in = append(in, responses.ResponseInputItemUnionParam{OfReasoning: &p})
		case "function_call":
			p := it.AsFunctionCall().ToParam()
			in = append(in, responses.ResponseInputItemUnionParam{OfFunctionCall: &p})
		case "message":
			p := it.AsMessage().ToParam()
			in = append(in, responses.ResponseInputItemUnionParam{OfOutputMessage: &p})
		default:
			t.Fatalf("output item type %q", it.Type)
		}
	}
	return in
}

func callOutput(callID, output string) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(output)
	item.OfFunctionCallOutput.CallID = openai.String(callID)
	return item
}

func userInput(text string) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser)
}

func TestResponsesClientToolLoop(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-streamed", true: "streamed"}[streamed], func(t *testing.T) {
			fe := newFakeEngine(t, toolLoopScript)
			client := newOpenAIClient(newGateway(t, fe))
			input := []responses.ResponseInputItemUnionParam{userInput("What's the weather in London?")}
			params := responses.ResponseNewParams{
				Model: "beam",
				Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
				Tools: []responses.ToolUnionParam{responsesWeather},
				Store: openai.Bool(false),
			}
			r, err := responsesTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != "completed" || len(r.Output) != 2 {
				t.Fatalf("status %q: %s", r.Status, r.RawJSON())
			}
			rs, fc := r.Output[0].AsReasoning(), r.Output[1].AsFunctionCall()
			if rs.Type != "reasoning" || len(rs.Content) != 1 || rs.Content[0].Text != "I should check the weather tool." || !strings.HasPrefix(rs.EncryptedContent, "bh1.") {
				t.Errorf("reasoning item %s", r.Output[0].RawJSON())
			}
			if fc.Type != "function_call" || fc.Name != "get_weather" || fc.Arguments != `{"city": "London"}` || !strings.HasPrefix(fc.CallID, "call_") {
				t.Errorf("function_call item %s", r.Output[1].RawJSON())
			}
			if r.Usage.OutputTokens == 0 || r.Usage.InputTokens == 0 {
				t.Errorf("usage %s", r.Usage.RawJSON())
			}
			input = append(input, toInput(t, r)...)
			input = append(input, callOutput(fc.CallID, "14 C, cloudy"))
			params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
			r2, err := responsesTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if r2.OutputText() != "It is 14 C and cloudy in London." {
				t.Errorf("second answer: %s", r2.RawJSON())
			}
			if p := fe.LastRequest(t).Prompt; !strings.HasSuffix(p, wantSecondPrompt) {
				t.Errorf("second prompt ends\n%q\nwant\n%q", p[max(0, len(p)-len(wantSecondPrompt)):], wantSecondPrompt)
			}
		})
	}
}

func TestResponsesClientParallelCalls(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-streamed", true: "streamed"}[streamed], func(t *testing.T) {
			fe := newFakeEngine(t, parallelScript)
			client := newOpenAIClient(newGateway(t, fe))
			input := []responses.ResponseInputItemUnionParam{userInput("Weather in London and Paris?")}
			params := responses.ResponseNewParams{
				Model: "beam",
				Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
				Tools: []responses.ToolUnionParam{responsesWeather},
			}
			r, err := responsesTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Output) != 3 {
				t.Fatalf("%s", r.RawJSON())
			}
			a, b := r.Output[1].AsFunctionCall(), r.Output[2].AsFunctionCall()
			if a.Arguments != `{"city": "London"}` || b.Arguments != `{"city": "Paris", "days": 2}` || a.CallID == b.CallID {
				t.Fatalf("calls %s %s", r.Output[1].RawJSON(), r.Output[2].RawJSON())
			}
			input = append(input, toInput(t, r)...)
			input = append(input, callOutput(a.CallID, "14 C, cloudy"), callOutput(b.CallID, "9 C, rain"))
			params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
			r2, err := responsesTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			if r2.OutputText() != "London 14 C, Paris 9 C." {
				t.Errorf("second answer: %s", r2.RawJSON())
			}
			if p := fe.LastRequest(t).Prompt; !strings.HasSuffix(p, wantParallelPrompt) {
				t.Errorf("second prompt ends\n%q\nwant\n%q", p[max(0, len(p)-len(wantParallelPrompt)):], wantParallelPrompt)
			}
		})
	}
}

// TestResponsesEncryptedContentOnly is a Codex-style client, which sends
// reasoning items back with encrypted_content and without their
// reasoning_text content: the reasoning still reaches the prompt.
func TestResponsesEncryptedContentOnly(t *testing.T) {
	fe := newFakeEngine(t, toolLoopScript)
	client := newOpenAIClient(newGateway(t, fe))
	input := []responses.ResponseInputItemUnionParam{userInput("What's the weather in London?")}
	params := responses.ResponseNewParams{Model: "beam", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Tools: []responses.ToolUnionParam{responsesWeather}}
	r, err := client.Responses.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	back := toInput(t, r)
	back[0].OfReasoning.Content = nil
	input = append(input, back...)
	input = append(input, callOutput(r.Output[1].AsFunctionCall().CallID, "14 C, cloudy"))
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	if _, err := client.Responses.New(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	if p := fe.LastRequest(t).Prompt; !strings.HasSuffix(p, wantSecondPrompt) {
		t.Errorf("second prompt ends\n%q\nwant\n%q", p[max(0, len(p)-len(wantSecondPrompt)):], wantSecondPrompt)
	}
}

// TestResponsesClientTampersWithReasoning is the client that drops or
// edits reasoning items: a 400, and no engine request.
func TestResponsesClientTampersWithReasoning(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(in []responses.ResponseInputItemUnionParam) []responses.ResponseInputItemUnionParam
		code   string
		want   string
	}{
		{"drops the reasoning item", func(in []responses.ResponseInputItemUnionParam) []responses.ResponseInputItemUnionParam {
			return in[1:]
		},
			"missing_reasoning", "input[1]: the assistant turn has no reasoning item before it"},
		{"edits the reasoning text", func(in []responses.ResponseInputItemUnionParam) []responses.ResponseInputItemUnionParam {
			in[0].OfReasoning.Content[0].Text = "Something else."
			return in
		}, "invalid_reasoning_signature", "input[1].content: differs from the reasoning this server returned"},
		{"edits encrypted_content", func(in []responses.ResponseInputItemUnionParam) []responses.ResponseInputItemUnionParam {
			in[0].OfReasoning.EncryptedContent = openai.String(in[0].OfReasoning.EncryptedContent.Value + "x")
			return in
		}, "invalid_reasoning_signature", "input[1].encrypted_content: not written by this server, or altered"},
		{"drops encrypted_content", func(in []responses.ResponseInputItemUnionParam) []responses.ResponseInputItemUnionParam {
			in[0].OfReasoning.EncryptedContent = param.Opt[string]{}
			return in
		}, "invalid_reasoning_signature", "input[1].encrypted_content: missing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fe := newFakeEngine(t, toolLoopScript)
			client := newOpenAIClient(newGateway(t, fe))
			input := []responses.ResponseInputItemUnionParam{userInput("What's the weather in London?")}
			params := responses.ResponseNewParams{Model: "beam", Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
				Tools: []responses.ToolUnionParam{responsesWeather}}
			r, err := client.Responses.New(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			input = append(input, tt.change(toInput(t, r))...)
			input = append(input, callOutput(r.Output[1].AsFunctionCall().CallID, "14 C, cloudy"))
			params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
			_, err = client.Responses.New(context.Background(), params)
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v, want an API error", err)
			}
			if apiErr.StatusCode != 400 || apiErr.Code != tt.code || !strings.HasPrefix(apiErr.Message, tt.want) {
				t.Errorf("status %d, code %q, message %q", apiErr.StatusCode, apiErr.Code, apiErr.Message)
			}
			if n := len(fe.Requests()); n != 1 {
				t.Errorf("the engine got %d requests, want 1", n)
			}
		})
	}
}

// TestResponsesParallelOff checks parallel_tool_calls false: one call.
func TestResponsesParallelOff(t *testing.T) {
	fe := newFakeEngine(t, parallelScript)
	client := newOpenAIClient(newGateway(t, fe))
	for _, streamed := range []bool{false, true} {
		r, err := responsesTurn(t, client, responses.ResponseNewParams{
			Model: "beam", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in London and Paris?")},
			Tools: []responses.ToolUnionParam{responsesWeather}, ParallelToolCalls: openai.Bool(false),
		}, streamed)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Output) != 2 || r.Output[1].AsFunctionCall().Arguments != `{"city": "London"}` || r.ParallelToolCalls {
			t.Errorf("streamed %v: %s", streamed, r.RawJSON())
		}
	}
}
