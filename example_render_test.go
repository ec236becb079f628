package harmony_test

// The format page's rendering examples, each with the page's exact output.
// The inputs are the page's Python values, written in Go. Each example uses
// only the public API and the standard library, so it can be pasted as is;
// the helpers and variables below serve the package's other tests.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/beamharmony/harmony"
)

var hello = []harmony.Message{{Role: "user", Content: "Hello!"}}

var getWeather = harmony.Tool{Type: "function", Function: harmony.Function{
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

// render renders for generation, like the page's render helper.
func render(messages []harmony.Message, opts harmony.Options) string {
	opts.AddGenerationPrompt = true
	prompt, err := harmony.Render(messages, &opts)
	if err != nil {
		return "TemplateError: " + err.Error()
	}
	return prompt
}

func Example_renderAPrompt() {
	messages := []harmony.Message{{Role: "user", Content: "Hello!"}}
	prompt, err := harmony.Render(messages, &harmony.Options{AddGenerationPrompt: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(prompt)
	// Output:
	// <|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.
	//
	// Reasoning effort: 512
	//
	// # Valid channels: analysis, final. Channel must be included for every message.<|end|><|start|>user<|message|>Hello!<|end|><|start|>assistant
}

func Example_reasoningEffort() {
	messages := []harmony.Message{{Role: "user", Content: "Hello!"}}
	efforts := []harmony.ReasoningEffort{harmony.EffortLabel("low"), harmony.Effort(100), {}}
	for _, effort := range efforts {
		prompt, err := harmony.Render(messages, &harmony.Options{ReasoningEffort: effort, AddGenerationPrompt: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, line := range strings.Split(prompt, "\n") {
			if strings.HasPrefix(line, "Reasoning effort") {
				fmt.Println(line)
				break
			}
		}
	}
	// Output:
	// Reasoning effort: 32
	// Reasoning effort: 100
	// Reasoning effort: 512
}

func Example_reasoningEffortError() {
	messages := []harmony.Message{{Role: "user", Content: "Hello!"}}
	_, err := harmony.Render(messages, &harmony.Options{ReasoningEffort: harmony.EffortLabel("none")})
	fmt.Println(err)
	// Output:
	// reasoning_effort must be an int or one of: minimal, low, medium, high, xhigh, max
}

func Example_declareTools() {
	searchFlights := harmony.Tool{Type: "function", Function: harmony.Function{
		Name:        "search_flights",
		Description: "Search for flights between two airports.",
		Parameters: json.RawMessage(`{
			"type": "object",
			"properties": {
				"origin": {"type": "string", "description": "IATA airport code", "examples": ["JFK", "LHR"]},
				"destination": {"type": "string", "description": "IATA airport code"},
				"depart": {"type": "string", "description": "Departure date, YYYY-MM-DD"},
				"return_date": {"type": ["string", "null"]},
				"passengers": {"type": "integer", "default": 1},
				"cabin": {"type": "string", "enum": ["economy", "business", "first"], "default": "economy"},
				"airlines": {"type": "array", "items": {"type": "string"}},
				"budget": {
					"type": "object",
					"properties": {"max_price": {"type": "number"}, "currency": {"type": "string"}},
					"required": ["max_price"]
				}
			},
			"required": ["origin", "destination", "depart"]
		}`),
	}}
	messages := []harmony.Message{{Role: "user", Content: "Hello!"}}
	prompt, err := harmony.Render(messages, &harmony.Options{
		Tools:               []harmony.Tool{searchFlights},
		AddGenerationPrompt: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Print the developer message, where the tools are declared.
	developer := prompt[strings.Index(prompt, "<|start|>developer"):]
	fmt.Println(developer[:strings.Index(developer, "<|start|>user")])
	// Output:
	// <|start|>developer<|message|># Tools
	//
	// // Search for flights between two airports.
	// type search_flights = (_: {
	// // IATA airport code
	// // Examples:
	// // - "JFK"
	// // - "LHR"
	// origin: string,
	// // IATA airport code
	// destination: string,
	// // Departure date, YYYY-MM-DD
	// depart: string,
	// return_date?: string | null,
	// passengers?: number, // default: 1
	// cabin?: "economy" | "business" | "first", // default: economy
	// airlines?: string[],
	// budget?: {
	//     max_price: number,
	//     currency?: string,
	//     },
	// }) => any;<|end|>
}

var search = harmony.Tool{Type: "function", Function: harmony.Function{
	Name:        "search",
	Description: "Search for content on the internet using a search engine. The search results include the website title, address (URL), and description.",
	Parameters: json.RawMessage(`{
		"type": "object",
		"properties": {"query": {"type": "string", "description": "The search query."}},
		"required": ["query"]
	}`),
}}

var browse = harmony.Tool{Type: "function", Function: harmony.Function{
	Name:        "browse",
	Description: "Visit a webpage and inspect its content. Pass only a URL to fetch/cache the page and return an approximately 8000-token preview; include a regex pattern to search the full cached page content without a sandbox. Search results are also capped around 8000 tokens.",
	Parameters: json.RawMessage(`{
		"type": "object",
		"properties": {
			"url": {"type": "string", "description": "The website address (URL) of the content to be obtained, which can usually be obtained from search results. The page is cached by URL for later searches on this tool instance."},
			"pattern": {"type": "string", "description": "Optional regular expression pattern. If omitted, the tool fetches and caches the page while returning a capped preview; if provided, it searches the full cached page text."},
			"output_mode": {"type": "string", "enum": ["content", "count"], "default": "content", "description": "Search output mode: content returns matching lines; count returns only the number of matching lines."},
			"ignore_case": {"type": "boolean", "default": false, "description": "Search without matching letter case."},
			"context_lines": {"type": "integer", "default": 0, "description": "Number of lines before and after each matching line."},
			"multiline": {"type": "boolean", "default": false, "description": "Allow the regular expression to match across line breaks."},
			"max_lines": {"type": "integer", "default": 250, "description": "Maximum search output lines to return after offset. Pass 0 for unlimited lines up to output caps."},
			"offset": {"type": "integer", "default": 0, "description": "Skip first N search output lines before applying max_lines."}
		},
		"required": ["url"]
	}`),
}}

func Example_builtinSearchAndBrowse() {
	search := harmony.Tool{Type: "function", Function: harmony.Function{
		Name:        "search",
		Description: "Search for content on the internet using a search engine. The search results include the website title, address (URL), and description.",
		Parameters: json.RawMessage(`{
			"type": "object",
			"properties": {"query": {"type": "string", "description": "The search query."}},
			"required": ["query"]
		}`),
	}}
	browse := harmony.Tool{Type: "function", Function: harmony.Function{
		Name:        "browse",
		Description: "Visit a webpage and inspect its content. Pass only a URL to fetch/cache the page and return an approximately 8000-token preview; include a regex pattern to search the full cached page content without a sandbox. Search results are also capped around 8000 tokens.",
		Parameters: json.RawMessage(`{
			"type": "object",
			"properties": {
				"url": {"type": "string", "description": "The website address (URL) of the content to be obtained, which can usually be obtained from search results. The page is cached by URL for later searches on this tool instance."},
				"pattern": {"type": "string", "description": "Optional regular expression pattern. If omitted, the tool fetches and caches the page while returning a capped preview; if provided, it searches the full cached page text."},
				"output_mode": {"type": "string", "enum": ["content", "count"], "default": "content", "description": "Search output mode: content returns matching lines; count returns only the number of matching lines."},
				"ignore_case": {"type": "boolean", "default": false, "description": "Search without matching letter case."},
				"context_lines": {"type": "integer", "default": 0, "description": "Number of lines before and after each matching line."},
				"multiline": {"type": "boolean", "default": false, "description": "Allow the regular expression to match across line breaks."},
				"max_lines": {"type": "integer", "default": 250, "description": "Maximum search output lines to return after offset. Pass 0 for unlimited lines up to output caps."},
				"offset": {"type": "integer", "default": 0, "description": "Skip first N search output lines before applying max_lines."}
			},
			"required": ["url"]
		}`),
	}}
	messages := []harmony.Message{{Role: "user", Content: "Hello!"}}
	prompt, err := harmony.Render(messages, &harmony.Options{
		Tools:               []harmony.Tool{search, browse},
		BuiltinTools:        []string{"search", "browse"},
		AddGenerationPrompt: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Print the system message, where the trained tools are declared.
	fmt.Println(prompt[:strings.Index(prompt, "<|start|>user")])
	// Output:
	// <|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.
	//
	// Reasoning effort: 512
	//
	// # Tools
	//
	// // Search for content on the internet using a search engine. The search results include the website title, address (URL), and description.
	// type search = (_: {
	// // The search query.
	// query: string,
	// }) => any;
	//
	// // Visit a webpage and inspect its content. Pass only a URL to fetch/cache the page and return an approximately 8000-token preview; include a regex pattern to search the full cached page content without a sandbox. Search results are also capped around 8000 tokens.
	// type browse = (_: {
	// // The website address (URL) of the content to be obtained, which can usually be obtained from search results. The page is cached by URL for later searches on this tool instance.
	// url: string,
	// // Optional regular expression pattern. If omitted, the tool fetches and caches the page while returning a capped preview; if provided, it searches the full cached page text.
	// pattern?: string,
	// // Search output mode: content returns matching lines; count returns only the number of matching lines.
	// output_mode?: "content" | "count", // default: content
	// // Search without matching letter case.
	// ignore_case?: boolean, // default: false
	// // Number of lines before and after each matching line.
	// context_lines?: number, // default: 0
	// // Allow the regular expression to match across line breaks.
	// multiline?: boolean, // default: false
	// // Maximum search output lines to return after offset. Pass 0 for unlimited lines up to output caps.
	// max_lines?: number, // default: 250
	// // Skip first N search output lines before applying max_lines.
	// offset?: number, // default: 0
	// }) => any;
	//
	// # Valid channels: analysis, final. Channel must be included for every message.<|end|>
}

func Example_bashTool() {
	// bashTool is the page's bash_tool helper: a bash tool with a command
	// parameter and any extra properties (JSON members, comma-led).
	bashTool := func(extra string) harmony.Tool {
		return harmony.Tool{Type: "function", Function: harmony.Function{
			Name:        "bash",
			Description: "Run a shell command in the sandbox.",
			Parameters: json.RawMessage(`{
				"type": "object",
				"properties": {"command": {"type": "string", "description": "Shell command"}` + extra + `},
				"required": ["command"]
			}`),
		}}
	}
	messages := []harmony.Message{{Role: "user", Content: "Hello!"}}
	for _, tool := range []harmony.Tool{bashTool(""), bashTool(`, "timeout": {"type": "integer"}`)} {
		prompt, err := harmony.Render(messages, &harmony.Options{
			Tools:               []harmony.Tool{tool},
			AddGenerationPrompt: true,
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(prompt)
	}
	// Output:
	// <|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.
	//
	// Reasoning effort: 512
	//
	// # Tools
	//
	// // Execute a bash command. The output contains the command's stdout and stderr.
	// // Commands time out after 10 minutes. You can set a shorter timeout within the bash command.
	// type bash = (_: {
	// // The command to execute
	// command: string,
	// }) => any;
	//
	// # Valid channels: analysis, final. Channel must be included for every message.<|end|><|start|>user<|message|>Hello!<|end|><|start|>assistant
	// <|start|>system<|message|>You are Beam, an AI assistant trained by Reflection.
	//
	// Reasoning effort: 512
	//
	// # Valid channels: analysis, final. Channel must be included for every message.<|end|><|start|>developer<|message|># Tools
	//
	// // Run a shell command in the sandbox.
	// type bash = (_: {
	// // Shell command
	// command: string,
	// timeout?: number,
	// }) => any;<|end|><|start|>user<|message|>Hello!<|end|><|start|>assistant
}

func Example_missingReasoning() {
	history := []harmony.Message{
		{Role: "user", Content: "Hi"},
		{Role: "assistant", Content: "Hello!"},
		{Role: "user", Content: "How are you?"},
	}
	prompt, err := harmony.Render(history, &harmony.Options{AddGenerationPrompt: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(prompt[strings.Index(prompt, "<|start|>user"):])
	// Output:
	// <|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>analysis<|message|><|end|><|start|>assistant<|channel|>final<|message|>Hello!<|return|><|start|>user<|message|>How are you?<|end|><|start|>assistant
}

func Example_missingReasoningError() {
	history := []harmony.Message{
		{Role: "user", Content: "Hi"},
		{Role: "assistant", Content: "Hello!"},
		{Role: "user", Content: "How are you?"},
	}
	_, err := harmony.Render(history, &harmony.Options{RequireReasoning: true, AddGenerationPrompt: true})
	fmt.Println(err)
	// Output:
	// The assistant turn at messages[1] is missing its reasoning. Dropping reasoning from earlier turns degrades this model's output. Send it back in 'reasoning_content', or set allow_missing_thinking=true to skip this check.
}

func Example_sendReasoningBack() {
	history := []harmony.Message{
		{Role: "user", Content: "Hi"},
		{Role: "assistant", Content: "Hello!", Reasoning: "The user is greeting me."},
		{Role: "user", Content: "How are you?"},
	}
	prompt, err := harmony.Render(history, &harmony.Options{RequireReasoning: true, AddGenerationPrompt: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(prompt[strings.Index(prompt, "<|start|>user"):])
	// Output:
	// <|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>analysis<|message|>The user is greeting me.<|end|><|start|>assistant<|channel|>final<|message|>Hello!<|return|><|start|>user<|message|>How are you?<|end|><|start|>assistant
}

func Example_toolLoop() {
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
	messages := []harmony.Message{
		{Role: "user", Content: "What's the weather in London?"},
		{
			Role:      "assistant",
			Reasoning: "I should check the weather tool.",
			ToolCalls: []harmony.ToolCall{{ID: "call_1", Type: "function", Function: harmony.FunctionCall{
				Name: "get_weather", Arguments: json.RawMessage(`{"city": "London"}`),
			}}},
		},
		{Role: "tool", ToolCallID: "call_1", Content: "14 C, cloudy"},
	}
	prompt, err := harmony.Render(messages, &harmony.Options{
		Tools:               []harmony.Tool{getWeather},
		AddGenerationPrompt: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(prompt[strings.Index(prompt, "<|start|>assistant"):])
	// Output:
	// <|start|>assistant<|channel|>analysis<|message|>I should check the weather tool.<|end|><|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name="city">
	// London
	// </rfl:parameter><|call|><|start|>get_weather to=assistant<|channel|>analysis<|message|>14 C, cloudy<|end|><|start|>assistant
}

func Example_parallelCalls() {
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
	messages := []harmony.Message{
		{Role: "user", Content: "Compare the weather in London and Paris."},
		{
			Role:      "assistant",
			Reasoning: "I need both cities.",
			ToolCalls: []harmony.ToolCall{
				{ID: "call_1", Type: "function", Function: harmony.FunctionCall{
					Name: "get_weather", Arguments: json.RawMessage(`{"city": "London"}`)}},
				{ID: "call_2", Type: "function", Function: harmony.FunctionCall{
					Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris", "days": 3}`)}},
			},
		},
		{Role: "tool", ToolCallID: "call_1", Content: "14 C, cloudy"},
		{Role: "tool", ToolCallID: "call_2", Content: "18 C, sunny"},
	}
	prompt, err := harmony.Render(messages, &harmony.Options{
		Tools:               []harmony.Tool{getWeather},
		AddGenerationPrompt: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(prompt[strings.Index(prompt, "<|start|>assistant"):])
	// Output:
	// <|start|>assistant<|channel|>analysis<|message|>I need both cities.<|end|><|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name="city">
	// London
	// </rfl:parameter><|end|><|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name="city">
	// Paris
	// </rfl:parameter>
	// <rfl:parameter name="days">
	// 3
	// </rfl:parameter><|call|><|start|>get_weather to=assistant<|channel|>analysis<|message|>14 C, cloudy<|end|><|start|>get_weather to=assistant<|channel|>analysis<|message|>18 C, sunny<|end|><|start|>assistant
}

func Example_trainingMask() {
	conversation := []harmony.Message{
		{Role: "user", Content: "What is 2 + 2?"},
		{Role: "assistant", Reasoning: "Simple arithmetic.", Content: "4"},
	}
	p, err := harmony.RenderPrompt(conversation, &harmony.Options{})
	if err != nil {
		panic(err)
	}
	var trained strings.Builder
	for _, s := range p.AssistantSpans {
		trained.WriteString(p.Text[s.Start:s.End])
	}
	fmt.Println(trained.String())
	// Output:
	// <|channel|>analysis<|message|>Simple arithmetic.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>
}
