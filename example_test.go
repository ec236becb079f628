package harmony_test

import (
	"encoding/json"
	"fmt"

	"github.com/beamharmony/harmony"
)

// Render a conversation with a tool, then parse what the model writes back.
func Example() {
	weather := harmony.Tool{Function: harmony.Function{
		Name:       "get_weather",
		Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}`),
	}}
	opts := &harmony.Options{
		Tools:               []harmony.Tool{weather},
		ReasoningEffort:     harmony.EffortLabel("low"),
		AddGenerationPrompt: true,
	}
	prompt, err := harmony.Render([]harmony.Message{{Role: "user", Content: "Weather in Paris for 3 days?"}}, opts)
	if err != nil {
		panic(err)
	}
	fmt.Println(prompt)

	generated := "<|channel|>analysis<|message|>Call the tool.<|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"city\">\nParis\n</rfl:parameter>\n<rfl:parameter name=\"days\">\n3\n</rfl:parameter><|call|>"
	parsed, err := harmony.Parse(generated, &harmony.ParseOptions{Prefix: prompt, Tools: opts.Tools})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(parsed.Message.AppendJSON(nil)))
	// Output:
	// <|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.
	//
	// Reasoning effort: 32
	//
	// # Valid channels: analysis, final. Channel must be included for every message.<|end|><|start|>developer<|message|># Tools
	//
	// type get_weather = (_: {
	// city: string,
	// days?: number,
	// }) => any;<|end|><|start|>user<|message|>Weather in Paris for 3 days?<|end|><|start|>assistant
	// {"role": "assistant", "thinking": "Call the tool.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}}]}
}
