package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The tools of the format page's examples.
var pageTools = map[string]string{
	"get_weather": `{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "description": "Forecast length in days"}}, "required": ["city"]}}}`,

	"search_flights": `{"type": "function", "function": {"name": "search_flights", "description": "Search for flights between two airports.", "parameters": {"type": "object", "properties": {
		"origin": {"type": "string", "description": "IATA airport code", "examples": ["JFK", "LHR"]},
		"destination": {"type": "string", "description": "IATA airport code"},
		"depart": {"type": "string", "description": "Departure date, YYYY-MM-DD"},
		"return_date": {"type": ["string", "null"]},
		"passengers": {"type": "integer", "default": 1},
		"cabin": {"type": "string", "enum": ["economy", "business", "first"], "default": "economy"},
		"airlines": {"type": "array", "items": {"type": "string"}},
		"budget": {"type": "object", "properties": {"max_price": {"type": "number"}, "currency": {"type": "string"}}, "required": ["max_price"]}},
		"required": ["origin", "destination", "depart"]}}}`,

	"search": `{"type": "function", "function": {"name": "search", "description": "Search for content on the internet using a search engine. The search results include the website title, address (URL), and description.", "parameters": {"type": "object", "properties": {"query": {"type": "string", "description": "The search query."}}, "required": ["query"]}}}`,

	"browse": `{"type": "function", "function": {"name": "browse", "description": "Visit a webpage and inspect its content. Pass only a URL to fetch/cache the page and return an approximately 8000-token preview; include a regex pattern to search the full cached page content without a sandbox. Search results are also capped around 8000 tokens.", "parameters": {"type": "object", "properties": {
		"url": {"type": "string", "description": "The website address (URL) of the content to be obtained, which can usually be obtained from search results. The page is cached by URL for later searches on this tool instance."},
		"pattern": {"type": "string", "description": "Optional regular expression pattern. If omitted, the tool fetches and caches the page while returning a capped preview; if provided, it searches the full cached page text."},
		"output_mode": {"type": "string", "enum": ["content", "count"], "default": "content", "description": "Search output mode: content returns matching lines; count returns only the number of matching lines."},
		"ignore_case": {"type": "boolean", "default": false, "description": "Search without matching letter case."},
		"context_lines": {"type": "integer", "default": 0, "description": "Number of lines before and after each matching line."},
		"multiline": {"type": "boolean", "default": false, "description": "Allow the regular expression to match across line breaks."},
		"max_lines": {"type": "integer", "default": 250, "description": "Maximum search output lines to return after offset. Pass 0 for unlimited lines up to output caps."},
		"offset": {"type": "integer", "default": 0, "description": "Skip first N search output lines before applying max_lines."}},
		"required": ["url"]}}}`,

	"bash": `{"type": "function", "function": {"name": "bash", "description": "Run a shell command in the sandbox.", "parameters": {"type": "object", "properties": {"command": {"type": "string", "description": "Shell command"}}, "required": ["command"]}}}`,

	"bash_timeout": `{"type": "function", "function": {"name": "bash", "description": "Run a shell command in the sandbox.", "parameters": {"type": "object", "properties": {"command": {"type": "string", "description": "Shell command"}, "timeout": {"type": "integer"}}, "required": ["command"]}}}`,
}

// pageTool returns one of the page's tools as a value the generator can
// extend.
func pageTool(name string) obj {
	return mustParse(pageTools[name]).(obj)
}

const (
	hello       = `[{"role": "user", "content": "Hello!"}]`
	historyHi   = `[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "How are you?"}]`
	historyHiOK = `[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!", "reasoning_content": "The user is greeting me."}, {"role": "user", "content": "How are you?"}]`
	toolLoop    = `[{"role": "user", "content": "What's the weather in London?"},
		{"role": "assistant", "reasoning_content": "I should check the weather tool.", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "London"}}}]},
		{"role": "tool", "tool_call_id": "call_1", "content": "14 C, cloudy"}]`
	parallel = `[{"role": "user", "content": "Compare the weather in London and Paris."},
		{"role": "assistant", "reasoning_content": "I need both cities.", "tool_calls": [
			{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "London"}}},
			{"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}}]},
		{"role": "tool", "tool_call_id": "call_1", "content": "14 C, cloudy"},
		{"role": "tool", "tool_call_id": "call_2", "content": "18 C, sunny"}]`
	trainingMask = `[{"role": "user", "content": "What is 2 + 2?"}, {"role": "assistant", "reasoning_content": "Simple arithmetic.", "content": "4"}]`
)

// Page returns the requests of the format page's examples, in the order the
// page shows them.
func Page() []Case {
	tools := func(names ...string) string {
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = pageTools[n]
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	req := func(messages string, rest ...string) []byte {
		var b bytes.Buffer
		b.WriteString(`{"messages": `)
		b.WriteString(messages)
		for i := 0; i+1 < len(rest); i += 2 {
			fmt.Fprintf(&b, ", %q: %s", rest[i], rest[i+1])
		}
		b.WriteString("}")
		return compact(b.Bytes())
	}
	return []Case{
		{"page/hello", req(hello)},
		{"page/effort-low", req(hello, "reasoning_effort", `"low"`)},
		{"page/effort-100", req(hello, "reasoning_effort", `100`)},
		{"page/effort-none-is-default", req(hello, "reasoning_effort", `null`)},
		{"page/effort-none-error", req(hello, "reasoning_effort", `"none"`)},
		{"page/search-flights", req(hello, "tools", tools("search_flights"))},
		{"page/builtin-search-browse", req(hello, "tools", tools("search", "browse"), "builtin_tools", `["search", "browse"]`)},
		{"page/bash-builtin", req(hello, "tools", tools("bash"))},
		{"page/bash-custom", req(hello, "tools", tools("bash_timeout"))},
		{"page/reasoning-missing", req(historyHi)},
		{"page/reasoning-missing-error", req(historyHi, "allow_missing_thinking", "false")},
		{"page/reasoning-restored", req(historyHiOK, "allow_missing_thinking", "false")},
		{"page/tool-loop", req(toolLoop, "tools", tools("get_weather"))},
		{"page/parallel-calls", req(parallel, "tools", tools("get_weather"))},
		{"page/training-mask", req(trainingMask, "add_generation_prompt", "false")},
	}
}

// compact removes the layout whitespace of hand-written JSON.
func compact(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		panic("corpus: bad page JSON: " + err.Error())
	}
	return out.Bytes()
}

// mustParse reads JSON text into the generator's values: obj (keys in
// order), []any, string, num, bool and nil.
func mustParse(text string) any {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		panic("corpus: bad JSON: " + err.Error())
	}
	return v
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := obj{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, member{k.(string), v})
			}
			_, err := dec.Token()
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
	case json.Number:
		return num(t), nil
	}
	return tok, nil // string, bool or nil
}
