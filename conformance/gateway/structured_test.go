package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/beamharmony/harmony/internal/enginetest"
)

// weatherReport is the structured output the tests ask for, as a client
// declares it: a closed object with a required string and a required
// integer of bounded range.
var weatherReport = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"city":        map[string]any{"type": "string"},
		"temperature": map[string]any{"type": "integer", "minimum": -90, "maximum": 60},
	},
	"required":             []string{"city", "temperature"},
	"additionalProperties": false,
}

const weatherJSON = `{"city": "London", "temperature": 14}`

// structuredEngine is a llama.cpp engine (so that the gateway sends GBNF
// in "grammar") that answers every request with weatherJSON as the final
// message.
func structuredEngine(t *testing.T) *enginetest.Engine {
	t.Helper()
	fe := newFakeEngine(t, fixed(answer("The user wants a report.", weatherJSON)))
	fe.Kind.Store(int32(enginetest.LlamaCpp))
	return fe
}

// checkConstrained checks that the engine's last request carried a grammar
// for weatherReport, and that the answer the client read is its JSON.
func checkConstrained(t *testing.T, fe *enginetest.Engine, text string) {
	t.Helper()
	raw, ok := fe.LastRequest(t).Raw["grammar"]
	var grammar string
	if !ok || json.Unmarshal(raw, &grammar) != nil || !strings.Contains(grammar, "root ::=") ||
		!strings.Contains(grammar, "city") || !strings.Contains(grammar, "temperature") {
		t.Fatalf("the engine got no grammar of the schema: %.200s", raw)
	}
	var got struct {
		City        string `json:"city"`
		Temperature int    `json:"temperature"`
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil || got.City != "London" || got.Temperature != 14 {
		t.Errorf("the client read %q (%v), want %s", text, err, weatherJSON)
	}
}

// The official SDKs' structured outputs (Chat Completions' response_format,
// Responses' text.format, Messages' output_config.format), as each SDK
// writes them, streamed and not: the gateway reads each as a constraint,
// sends the engine its grammar, and the client gets the JSON as the answer.
func TestStructuredOutputsThroughSDKs(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		name := map[bool]string{false: "whole", true: "streamed"}[streamed]

		t.Run("chat/"+name, func(t *testing.T) {
			fe := structuredEngine(t)
			client := newOpenAIClient(newGateway(t, fe))
			params := openai.ChatCompletionNewParams{
				Model:    "beam",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("The weather in London?")},
				ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
					JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
						Name: "weather_report", Schema: weatherReport, Strict: openai.Bool(true),
					},
				}},
			}
			var content string
			if !streamed {
				resp, err := client.Chat.Completions.New(context.Background(), params)
				if err != nil {
					t.Fatal(err)
				}
				content = resp.Choices[0].Message.Content
			} else {
				stream := client.Chat.Completions.NewStreaming(context.Background(), params)
				var acc openai.ChatCompletionAccumulator
				for stream.Next() {
					acc.AddChunk(stream.Current())
				}
				if err := stream.Err(); err != nil {
					t.Fatal(err)
				}
				content = acc.Choices[0].Message.Content
			}
			checkConstrained(t, fe, content)
		})

		t.Run("responses/"+name, func(t *testing.T) {
			fe := structuredEngine(t)
			client := newOpenAIClient(newGateway(t, fe))
			params := responses.ResponseNewParams{
				Model: "beam",
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("The weather in London?")},
				Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
					OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{
						Name: "weather_report", Schema: weatherReport, Strict: openai.Bool(true),
					},
				}},
			}
			resp, err := responsesTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			checkConstrained(t, fe, resp.OutputText())
		})

		t.Run("messages/"+name, func(t *testing.T) {
			fe := structuredEngine(t)
			client := newAnthropicClient(newGateway(t, fe))
			params := anthropic.MessageNewParams{
				Model:        "beam",
				MaxTokens:    1024,
				Messages:     []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("The weather in London?"))},
				OutputConfig: anthropic.OutputConfigParam{Format: anthropic.JSONOutputFormatParam{Schema: weatherReport}},
			}
			msg, err := anthropicTurn(t, client, params, streamed)
			if err != nil {
				t.Fatal(err)
			}
			var text string
			for _, b := range msg.Content {
				if b.Type == "text" {
					text += b.Text
				}
			}
			checkConstrained(t, fe, text)
		})
	}
}

// forecast is a Go type the Anthropic SDK turns into a JSON Schema itself
// (a struct pointer as the beta's output format: a nested type, a list, a
// time, an optional member, an enum), and parses the answer back into.
type forecast struct {
	City     string    `json:"city" jsonschema:"description=The city the forecast is for"`
	Observed time.Time `json:"observed"`
	Tags     []string  `json:"tags"`
	Wind     *wind     `json:"wind,omitempty"`
}

type wind struct {
	Speed     float64 `json:"speed"`
	Direction string  `json:"direction" jsonschema:"enum=N,enum=E,enum=S,enum=W"`
}

const forecastJSON = `{"city": "London", "observed": "2026-12-06T12:00:00Z", "tags": ["rain"], "wind": {"speed": 3.5, "direction": "W"}}`

// The Anthropic SDK's structured outputs beta with a Go struct: the schema
// the SDK writes for it compiles (none of its keywords reported as not
// enforced), the engine gets its grammar, and the SDK parses the answer
// into the struct.
func TestStructuredOutputsFromGoStruct(t *testing.T) {
	for _, deprecated := range []bool{false, true} {
		name := map[bool]string{false: "output_config.format", true: "output_format"}[deprecated]
		t.Run(name, func(t *testing.T) {
			fe := newFakeEngine(t, fixed(answer("The user wants a forecast.", forecastJSON)))
			fe.Kind.Store(int32(enginetest.LlamaCpp))
			client := newAnthropicClient(newGateway(t, fe))
			var got forecast
			params := anthropic.BetaMessageNewParams{
				Model:     "beam",
				MaxTokens: 1024,
				Messages:  []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("The forecast for London?"))},
				Betas:     []anthropic.AnthropicBeta{anthropic.AnthropicBetaStructuredOutputs2025_11_13},
			}
			if deprecated {
				// What clients written before output_config send; the
				// gateway reads both.
				params.OutputFormat = anthropic.BetaJSONOutputFormatParam{Schema: &got} //lint:ignore SA1019 the older field, on purpose
			} else {
				params.OutputConfig = anthropic.BetaOutputConfigParam{Format: anthropic.BetaJSONOutputFormatParam{Schema: &got}}
			}
			var resp *http.Response
			if _, err := client.Beta.Messages.New(context.Background(), params, option.WithResponseInto(&resp)); err != nil {
				t.Fatal(err)
			}
			req := fe.LastRequest(t)
			var grammar string
			if raw, ok := req.Raw["grammar"]; !ok || json.Unmarshal(raw, &grammar) != nil || !strings.Contains(grammar, "direction") {
				t.Fatalf("the engine got no grammar of the struct's schema: %.200s", req.Raw["grammar"])
			}
			if u := resp.Header.Get("X-Beam-Unenforced"); u != "" {
				t.Errorf("X-Beam-Unenforced: %s", u)
			}
			want := forecast{City: "London", Observed: time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC), Tags: []string{"rain"}, Wind: &wind{3.5, "W"}}
			if got.City != want.City || !got.Observed.Equal(want.Observed) || len(got.Tags) != 1 || got.Tags[0] != "rain" ||
				got.Wind == nil || *got.Wind != *want.Wind {
				t.Errorf("the SDK parsed %+v, want %+v", got, want)
			}
		})
	}
}
