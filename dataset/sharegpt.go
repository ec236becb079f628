package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// ShareGPT is the other shape conversation datasets come in (ShareGPT,
// OpenHermes, LLaMA-Factory's and Axolotl's "sharegpt" format): each
// message is {"from": ..., "value": ...}, with a row's system prompt in
// its own "system" column, tool calls as "function_call" messages whose
// value is the call's JSON ({"name", "arguments"}, or a list of them),
// answered by "observation" messages, and tools as bare function
// definitions ({"name", "description", "parameters"}, wrapped as OpenAI's
// function tools). With MessagesFormat "sharegpt" each
// row is turned into the OpenAI shape render reads, one message for one
// (gap decision 283):
//
//	human, user                               -> user
//	gpt, assistant, model, chatgpt, bard, bing -> assistant
//	system                                    -> system
//	function_call                             -> assistant with tool_calls
//	observation, tool, function_response      -> tool, answering the calls
//	                                             before it in order
//
// A message's other keys (a "weight", say) are kept, so they are counted
// as unknown keys as in any row; a "from" not in the table, a value that
// is not a string or a call that is not JSON rejects the row, naming the
// message.

// MessagesFormat values.
const (
	FormatOpenAI   = "openai"
	FormatShareGPT = "sharegpt"
)

var shareGPTRoles = map[string]string{
	"human": "user", "user": "user",
	"gpt": "assistant", "assistant": "assistant", "model": "assistant", "chatgpt": "assistant", "bard": "assistant", "bing": "assistant",
	"system":        "system",
	"function_call": "assistant",
	"observation":   "tool", "tool": "tool", "function_response": "tool",
}

// shareGPTCall is a function_call message's call.
type shareGPTCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// fromShareGPT returns the row with its messages in the OpenAI shape and
// its system column, if any, as their first message.
func fromShareGPT(data []byte) ([]byte, error) {
	var row map[string]json.RawMessage
	if err := json.Unmarshal(data, &row); err != nil {
		return data, nil // ParseRequest refuses the row, naming the error
	}
	raw, ok := row["messages"]
	if !ok || isJSONNull(raw) {
		return data, nil
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return nil, fmt.Errorf("messages: a ShareGPT row's messages must be a list of {\"from\", \"value\"} objects: %v", err)
	}
	out := make([]map[string]json.RawMessage, 0, len(msgs)+1)
	if sys, ok := row["system"]; ok {
		delete(row, "system")
		var text string
		if err := json.Unmarshal(sys, &text); err != nil && !isJSONNull(sys) {
			return nil, fmt.Errorf("system: a ShareGPT row's system prompt must be a string, got %s", kindOfJSON(sys))
		}
		if text != "" {
			out = append(out, map[string]json.RawMessage{"role": jsonString("system"), "content": jsonString(text)})
		}
	}
	var pending []string // the ids of the calls not yet answered
	for i, m := range msgs {
		path := "messages[" + strconv.Itoa(i) + "]"
		var from string
		if err := json.Unmarshal(m["from"], &from); err != nil {
			return nil, fmt.Errorf("%s.from: required in a ShareGPT row, a string such as \"human\" or \"gpt\"", path)
		}
		role, ok := shareGPTRoles[from]
		if !ok {
			return nil, fmt.Errorf("%s.from: %q is not a ShareGPT role this run reads (human, gpt, system, function_call, observation, or user, assistant, tool)", path, from)
		}
		value, ok := m["value"]
		var text string
		if !ok || json.Unmarshal(value, &text) != nil {
			return nil, fmt.Errorf("%s.value: required in a ShareGPT row, a string", path)
		}
		delete(m, "from")
		delete(m, "value")
		m["role"] = jsonString(role)
		switch {
		case from == "function_call":
			calls, err := shareGPTCalls(text)
			if err != nil {
				return nil, fmt.Errorf("%s.value: %v", path, err)
			}
			list := make([]map[string]any, len(calls))
			pending = pending[:0]
			for k, c := range calls {
				id := "call_" + strconv.Itoa(i) + "_" + strconv.Itoa(k)
				pending = append(pending, id)
				list[k] = map[string]any{"id": id, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
			}
			m["tool_calls"], _ = json.Marshal(list)
			m["content"] = json.RawMessage("null")
		case role == "tool":
			m["content"] = jsonString(text)
			if len(pending) > 0 {
				m["tool_call_id"] = jsonString(pending[0])
				pending = pending[1:]
			}
		default:
			m["content"] = jsonString(text)
			if role != "system" {
				pending = pending[:0]
			}
		}
		out = append(out, m)
	}
	row["messages"], _ = json.Marshal(out)
	if tools, ok := row["tools"]; ok && !isJSONNull(tools) {
		wrapped, err := shareGPTTools(tools)
		if err != nil {
			return nil, fmt.Errorf("tools: %v", err)
		}
		row["tools"] = wrapped
	}
	return json.Marshal(row)
}

// shareGPTTools returns the tools of a ShareGPT row, a list or a JSON
// string holding one, as a list whose bare function definitions
// ({"name", "description", "parameters"}, as LLaMA-Factory writes them)
// are wrapped as OpenAI's {"type": "function", "function": ...}.
func shareGPTTools(raw json.RawMessage) (json.RawMessage, error) {
	text := []byte(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		text = []byte(s)
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(text, &list); err != nil {
		return raw, nil // render names what the tools are
	}
	for i, t := range list {
		if _, typed := t["type"]; typed {
			continue
		}
		if _, named := t["name"]; !named {
			continue
		}
		fn, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		list[i] = map[string]json.RawMessage{"type": jsonString("function"), "function": fn}
	}
	return json.Marshal(list)
}

// looksShareGPT reports whether the first message of a row's list under
// key has the keys of a ShareGPT message, "from" and "value", and no
// "role": for the hint of a row rejected in the OpenAI shape.
func looksShareGPT(data []byte, key string) bool {
	var row map[string]json.RawMessage
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(data, &row) != nil || json.Unmarshal(row[key], &msgs) != nil || len(msgs) == 0 {
		return false
	}
	m := msgs[0]
	_, from := m["from"]
	_, value := m["value"]
	_, role := m["role"]
	return from && value && !role
}

// shareGPTCalls reads a function_call message's value: one call's JSON,
// or a list of them. arguments may be an object or a JSON string holding
// one (render reads both).
func shareGPTCalls(value string) ([]shareGPTCall, error) {
	v := bytes.TrimSpace([]byte(value))
	var calls []shareGPTCall
	if len(v) > 0 && v[0] == '[' {
		if err := json.Unmarshal(v, &calls); err != nil {
			return nil, fmt.Errorf("a list of calls, each {\"name\", \"arguments\"}: %v", err)
		}
	} else {
		var c shareGPTCall
		if err := json.Unmarshal(v, &c); err != nil {
			return nil, fmt.Errorf("a call's JSON, {\"name\", \"arguments\"}: %v", err)
		}
		calls = []shareGPTCall{c}
	}
	for i := range calls {
		if calls[i].Name == "" {
			return nil, fmt.Errorf("call %d has no name", i)
		}
		if len(calls[i].Arguments) == 0 || isJSONNull(calls[i].Arguments) {
			calls[i].Arguments = json.RawMessage("{}")
		}
	}
	return calls, nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func isJSONNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// kindOfJSON names the kind of a JSON value, for errors.
func kindOfJSON(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
