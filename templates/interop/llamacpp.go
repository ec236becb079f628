package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// LlamaServer renders requests through a running llama-server (llama.cpp)
// started with --jinja, --chat-template-file and --no-prefill-assistant: its
// /apply-template endpoint renders a chat request with the server's template
// and returns the prompt without generating. The template file is the
// server's; RenderTemplate's templatePath only names it in messages.
//
// llama.cpp parses the OpenAI request into its own message structure and
// back before the template runs, so some requests reach the template
// changed: LlamaReshapes says which, and why (docs/llama-cpp.md).
type LlamaServer struct {
	// URL is the server's base URL, http://127.0.0.1:8080 say.
	URL string
	// Client sends the requests; nil means a client with a 30 s timeout.
	Client *http.Client
}

// Name returns "llama.cpp".
func (l *LlamaServer) Name() string { return "llama.cpp" }

// templateArguments are the request fields that are the template's
// arguments; llama-server passes them in chat_template_kwargs.
var templateArguments = []string{"reasoning_effort", "model_identity", "builtin_tools", "allow_missing_thinking"}

// RenderTemplate posts every request to /apply-template, in order. A
// request llama.cpp refuses, or whose template raises an error, gives a
// Result with Error set to llama.cpp's message.
func (l *LlamaServer) RenderTemplate(ctx context.Context, _ string, requests [][]byte) ([]Result, error) {
	client := l.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	out := make([]Result, len(requests))
	for i, r := range requests {
		body, err := llamaBody(r)
		if err != nil {
			out[i] = Result{Exception: "request: " + err.Error()}
			continue
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(l.URL, "/")+"/apply-template", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("llama-server at %s: %w", l.URL, err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("llama-server at %s: %w", l.URL, err)
		}
		var reply struct {
			Prompt *string `json:"prompt"`
			Error  struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &reply); err != nil {
			return nil, fmt.Errorf("llama-server at %s: status %d: %.200s", l.URL, resp.StatusCode, data)
		}
		switch {
		case resp.StatusCode == http.StatusOK && reply.Prompt != nil:
			out[i] = Result{Prompt: *reply.Prompt, SpansUnknown: true}
		case reply.Error.Message != "":
			out[i] = Result{Error: reply.Error.Message, SpansUnknown: true}
		default:
			return nil, fmt.Errorf("llama-server at %s: status %d: %.200s", l.URL, resp.StatusCode, data)
		}
	}
	return out, nil
}

// llamaBody turns a request of the command line's shape into the body of
// /apply-template: messages, tools and add_generation_prompt as they are
// (add_generation_prompt absent or null is true, as for the Go renderer),
// the template's other arguments in chat_template_kwargs, and tool_choice
// "none", which keeps llama.cpp from building a tool-call grammar from the
// schemas (the template still declares the tools).
func llamaBody(request []byte) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(request, &fields); err != nil {
		return nil, err
	}
	body := map[string]any{"tool_choice": "none"}
	body["messages"] = fields["messages"]
	if t, ok := fields["tools"]; ok {
		body["tools"] = t
	}
	agp := json.RawMessage("true")
	if v, ok := fields["add_generation_prompt"]; ok && string(v) != "null" {
		agp = v
	}
	body["add_generation_prompt"] = agp
	kwargs := map[string]json.RawMessage{}
	for _, k := range templateArguments {
		if v, ok := fields[k]; ok {
			kwargs[k] = v
		}
	}
	if len(kwargs) > 0 {
		body["chat_template_kwargs"] = kwargs
	}
	return json.Marshal(body)
}

// LlamaReshapes returns why llama.cpp's OpenAI request parsing
// (common_chat_msgs_parse_oaicompat, common_chat_tools_parse_oaicompat and
// the GPT-OSS message adjustments of common/chat.cpp) would hand the
// template something else than the request holds, or "" when the template
// sees the request as it is (up to empty or null fields it reads as absent).
// Numbers are not judged here: the template refuses floats in llama.cpp.
func LlamaReshapes(request []byte) string {
	var req struct {
		Messages            []json.RawMessage `json:"messages"`
		Tools               json.RawMessage   `json:"tools"`
		AddGenerationPrompt json.RawMessage   `json:"add_generation_prompt"`
	}
	if err := json.Unmarshal(request, &req); err != nil {
		return "messages is not a list: llama.cpp refuses it"
	}
	messages := make([]map[string]json.RawMessage, len(req.Messages))
	for i, raw := range req.Messages {
		if json.Unmarshal(raw, &messages[i]) != nil || messages[i] == nil {
			return fmt.Sprintf("messages[%d] is not an object: llama.cpp refuses it", i)
		}
	}
	switch agp := string(bytes.TrimSpace(req.AddGenerationPrompt)); agp {
	case "", "null", "true", "false":
	default:
		return "add_generation_prompt is not a boolean: llama.cpp reads it as true"
	}
	if n := wideInteger(request); n != "" {
		return "the integer " + n + " does not fit 64 bits: llama.cpp wraps it or reads it as a float"
	}
	for i, m := range messages {
		if _, ok := m["role"]; !ok {
			return fmt.Sprintf("messages[%d] has no role: llama.cpp refuses it with its own message", i)
		}
		for _, f := range []string{"role", "reasoning_content", "name", "tool_call_id"} {
			if v, ok := m[f]; ok && !isJSONString(v) {
				return fmt.Sprintf("messages[%d].%s is not a string: llama.cpp refuses it", i, f)
			}
		}
		content, hasContent := m["content"]
		calls, hasCalls := m["tool_calls"]
		if !hasContent && !hasCalls {
			return fmt.Sprintf("messages[%d] has neither content nor tool_calls: llama.cpp refuses it", i)
		}
		if !hasContent && jsonString(m["role"]) != "assistant" {
			return fmt.Sprintf("messages[%d] has no content: llama.cpp refuses it", i)
		}
		if r := reasoningDropped(m); r != "" {
			return fmt.Sprintf("messages[%d].%s: llama.cpp drops the field (it keeps reasoning_content only)", i, r)
		}
		var parts []map[string]json.RawMessage
		if hasContent && json.Unmarshal(content, &parts) == nil && parts != nil {
			for j, p := range parts {
				if jsonString(p["type"]) != "text" || !isJSONString(p["text"]) {
					return fmt.Sprintf("messages[%d].content[%d] is not a text part: llama.cpp refuses it", i, j)
				}
			}
		} else if hasContent && !isJSONString(content) && string(content) != "null" {
			return fmt.Sprintf("messages[%d].content is neither a string, null nor a list: llama.cpp refuses it", i)
		}
		if hasCalls && string(calls) != "null" {
			var list []map[string]json.RawMessage
			if json.Unmarshal(calls, &list) != nil {
				return fmt.Sprintf("messages[%d].tool_calls is not a list of objects: llama.cpp refuses it", i)
			}
			for j, c := range list {
				fn := map[string]json.RawMessage{}
				switch {
				case jsonString(c["type"]) != "function":
					return fmt.Sprintf("messages[%d].tool_calls[%d].type is not \"function\": llama.cpp refuses a call without it", i, j)
				case json.Unmarshal(c["function"], &fn) != nil:
					return fmt.Sprintf("messages[%d].tool_calls[%d].function is not an object: llama.cpp refuses it", i, j)
				case !isJSONString(fn["name"]):
					return fmt.Sprintf("messages[%d].tool_calls[%d].function.name is not a string: llama.cpp refuses it", i, j)
				case fn["arguments"] == nil:
					return fmt.Sprintf("messages[%d].tool_calls[%d].function.arguments is missing: llama.cpp refuses it", i, j)
				case isJSONString(fn["arguments"]):
					return fmt.Sprintf("messages[%d].tool_calls[%d].function.arguments is a string: llama.cpp parses it into an object", i, j)
				case !isJSONObject(fn["arguments"]):
					return fmt.Sprintf("messages[%d].tool_calls[%d].function.arguments is not an object: llama.cpp passes its JSON text", i, j)
				}
				if id, ok := c["id"]; ok && !isJSONString(id) {
					return fmt.Sprintf("messages[%d].tool_calls[%d].id is not a string: llama.cpp refuses it", i, j)
				}
			}
			if len(list) > 0 && hasContent && jsonString(m["reasoning_content"]) != "" && !emptyContent(content) {
				return fmt.Sprintf("messages[%d].content: llama.cpp drops the content of a turn with tool calls and reasoning", i)
			}
		}
	}
	if len(req.Tools) > 0 && string(req.Tools) != "null" {
		var tools []map[string]json.RawMessage
		if json.Unmarshal(req.Tools, &tools) != nil {
			return "tools is not a list of objects: llama.cpp refuses it"
		}
		for i, t := range tools {
			fn := map[string]json.RawMessage{}
			switch {
			case jsonString(t["type"]) != "function":
				return fmt.Sprintf("tools[%d].type is not \"function\": llama.cpp refuses a tool without it", i)
			case json.Unmarshal(t["function"], &fn) != nil || fn == nil:
				return fmt.Sprintf("tools[%d].function is not an object: llama.cpp refuses it", i)
			case !isJSONString(fn["name"]):
				return fmt.Sprintf("tools[%d].function.name is not a string: llama.cpp refuses it", i)
			}
			if d, ok := fn["description"]; ok && !isJSONString(d) {
				return fmt.Sprintf("tools[%d].function.description is not a string: llama.cpp refuses it", i)
			}
		}
	}
	return ""
}

// reasoningDropped names the field llama.cpp drops that the template would
// read: thinking or reasoning when it is not a string (an error for the
// template), or holds the turn's reasoning (reasoning_content is empty).
func reasoningDropped(m map[string]json.RawMessage) string {
	for _, f := range []string{"thinking", "reasoning"} {
		v, ok := m[f]
		if !ok || string(v) == "null" {
			continue
		}
		if !isJSONString(v) || (jsonString(v) != "" && jsonString(m["reasoning_content"]) == "") {
			return f
		}
	}
	return ""
}

// wideInteger returns the first integer literal of the request that does
// not fit an int64, or "".
func wideInteger(request []byte) string {
	dec := json.NewDecoder(bytes.NewReader(request))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if n, ok := tok.(json.Number); ok && !strings.ContainsAny(string(n), ".eE") {
			if _, err := n.Int64(); err != nil {
				return string(n)
			}
		}
	}
}

// LlamaPrompt returns the prompt llama-server gives for a request whose
// template renders prompt: with add_generation_prompt false, llama.cpp's
// GPT-OSS handling (the template holds <|channel|>) replaces the last
// <|return|> with <|end|>, after the template.
func LlamaPrompt(request []byte, prompt string) string {
	var req struct {
		AddGenerationPrompt *bool `json:"add_generation_prompt"`
	}
	if json.Unmarshal(request, &req) != nil || req.AddGenerationPrompt == nil || *req.AddGenerationPrompt {
		return prompt
	}
	if i := strings.LastIndex(prompt, "<|return|>"); i >= 0 {
		return prompt[:i] + "<|end|>" + prompt[i+len("<|return|>"):]
	}
	return prompt
}

// emptyContent reports whether content is null, "" or [].
func emptyContent(content json.RawMessage) bool {
	var v any
	if json.Unmarshal(content, &v) != nil {
		return false
	}
	switch c := v.(type) {
	case nil:
		return true
	case string:
		return c == ""
	case []any:
		return len(c) == 0
	}
	return false
}

func jsonString(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

func isJSONString(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '"'
}

func isJSONObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}
