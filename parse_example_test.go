package harmony_test

// The format page's parsing examples (page: Response template), each with
// the page's exact output. The page prints Python values, so the examples
// print the parsed fields the way Python's print does. Each example uses only
// the public API and the standard library, so it can be pasted as is.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/beamharmony/harmony"
)

func Example_parseAnAnswer() {
	messages := []harmony.Message{{Role: "user", Content: "Hello!"}}
	prompt, err := harmony.Render(messages, &harmony.Options{AddGenerationPrompt: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	generated := "<|channel|>analysis<|message|>The user is greeting me.<|end|>" +
		"<|start|>assistant<|channel|>final<|message|>Hi! How can I help?<|return|>"
	parsed, err := harmony.Parse(generated, &harmony.ParseOptions{Prefix: prompt})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := parsed.Message
	fmt.Printf("{'role': '%s', 'thinking': '%s', 'content': '%s'}\n", m.Role, m.Reasoning, m.Content)
	// Output:
	// {'role': 'assistant', 'thinking': 'The user is greeting me.', 'content': 'Hi! How can I help?'}
}

func Example_parseAToolCall() {
	getWeather := harmony.Tool{Type: "function", Function: harmony.Function{
		Name:        "get_weather",
		Description: "Get the current weather for a city.",
		Parameters: json.RawMessage(`{
			"type": "object",
			"properties": {
				"city": {"type": "string"},
				"days": {"type": "integer", "description": "Forecast length in days"}
			},
			"required": ["city"]
		}`),
	}}
	messages := []harmony.Message{{Role: "user", Content: "3-day forecast for Paris?"}}
	prompt, err := harmony.Render(messages, &harmony.Options{
		Tools:               []harmony.Tool{getWeather},
		AddGenerationPrompt: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	generated := "<|channel|>analysis<|message|>I'll call the weather tool.<|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"city\">\nParis\n</rfl:parameter>\n" +
		"<rfl:parameter name=\"days\">\n3\n</rfl:parameter><|call|>"
	// pyDict prints a flat JSON object, keys in order, as Python prints a dict.
	pyDict := func(object json.RawMessage) string {
		dec := json.NewDecoder(bytes.NewReader(object))
		dec.UseNumber()
		var b strings.Builder
		b.WriteString("{")
		if _, err := dec.Token(); err != nil { // {
			return err.Error()
		}
		for i := 0; dec.More(); i++ {
			key, _ := dec.Token()
			value, err := dec.Token()
			if err != nil {
				return err.Error()
			}
			if i > 0 {
				b.WriteString(", ")
			}
			if text, ok := value.(string); ok {
				fmt.Fprintf(&b, "'%s': '%s'", key, text)
			} else {
				fmt.Fprintf(&b, "'%s': %v", key, value)
			}
		}
		b.WriteString("}")
		return b.String()
	}
	// Without the tools every argument is text; with them, arguments are
	// cast by the tool's schema.
	for _, tools := range [][]harmony.Tool{nil, {getWeather}} {
		parsed, err := harmony.Parse(generated, &harmony.ParseOptions{Prefix: prompt, Tools: tools})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, call := range parsed.Message.ToolCalls {
			fmt.Printf("[{'type': '%s', 'function': {'name': '%s', 'arguments': %s}}]\n",
				call.Type, call.Function.Name, pyDict(call.Function.Arguments))
		}
	}
	// Output:
	// [{'type': 'function', 'function': {'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': '3'}}}]
	// [{'type': 'function', 'function': {'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': 3}}}]
}

func Example_parseParallelCalls() {
	getWeather := harmony.Tool{Type: "function", Function: harmony.Function{
		Name:        "get_weather",
		Description: "Get the current weather for a city.",
		Parameters: json.RawMessage(`{
			"type": "object",
			"properties": {
				"city": {"type": "string"},
				"days": {"type": "integer", "description": "Forecast length in days"}
			},
			"required": ["city"]
		}`),
	}}
	messages := []harmony.Message{{Role: "user", Content: "3-day forecast for Paris?"}}
	prompt, err := harmony.Render(messages, &harmony.Options{
		Tools:               []harmony.Tool{getWeather},
		AddGenerationPrompt: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	generated := "<|channel|>analysis<|message|>I need both cities.<|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"city\">\nLondon\n</rfl:parameter><|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"city\">\nParis\n</rfl:parameter><|call|>"
	// pyDict prints a flat JSON object, keys in order, as Python prints a dict.
	pyDict := func(object json.RawMessage) string {
		dec := json.NewDecoder(bytes.NewReader(object))
		dec.UseNumber()
		var b strings.Builder
		b.WriteString("{")
		if _, err := dec.Token(); err != nil { // {
			return err.Error()
		}
		for i := 0; dec.More(); i++ {
			key, _ := dec.Token()
			value, err := dec.Token()
			if err != nil {
				return err.Error()
			}
			if i > 0 {
				b.WriteString(", ")
			}
			if text, ok := value.(string); ok {
				fmt.Fprintf(&b, "'%s': '%s'", key, text)
			} else {
				fmt.Fprintf(&b, "'%s': %v", key, value)
			}
		}
		b.WriteString("}")
		return b.String()
	}
	parsed, err := harmony.Parse(generated, &harmony.ParseOptions{Prefix: prompt, Tools: []harmony.Tool{getWeather}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, call := range parsed.Message.ToolCalls {
		fmt.Printf("{'name': '%s', 'arguments': %s}\n", call.Function.Name, pyDict(call.Function.Arguments))
	}
	// Output:
	// {'name': 'get_weather', 'arguments': {'city': 'London'}}
	// {'name': 'get_weather', 'arguments': {'city': 'Paris'}}
}

// pageStreamChunks are the chunks of the page's stream example.
var pageStreamChunks = []string{
	"<|channel|>analysis<|message|>",
	"The user is ",
	"greeting me.",
	"<|end|><|start|>assistant<|channel|>final<|message|>",
	"Hi! How ",
	"can I help?",
	"<|return|>",
}

func Example_parseAStream() {
	messages := []harmony.Message{{Role: "user", Content: "Hello!"}}
	prompt, err := harmony.Render(messages, &harmony.Options{AddGenerationPrompt: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	chunks := []string{
		"<|channel|>analysis<|message|>",
		"The user is ",
		"greeting me.",
		"<|end|><|start|>assistant<|channel|>final<|message|>",
		"Hi! How ",
		"can I help?",
		"<|return|>",
	}
	parser := harmony.NewStreamParser(&harmony.ParseOptions{Prefix: prompt})
	var events []harmony.Event
	for _, chunk := range chunks {
		events, err = parser.Feed(chunk, events[:0])
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, event := range events {
			if event.Type == harmony.EventRegionChunk {
				fmt.Printf("%s '%s'\n", event.Field, event.Text)
			}
		}
	}
	_, parsed, err := parser.Finish(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := parsed.Message
	fmt.Printf("{'role': '%s', 'thinking': '%s', 'content': '%s'}\n", m.Role, m.Reasoning, m.Content)
	// Output:
	// thinking 'The user is '
	// thinking 'greeting me.'
	// content 'Hi! How '
	// content 'can I help?'
	// {'role': 'assistant', 'thinking': 'The user is greeting me.', 'content': 'Hi! How can I help?'}
}
