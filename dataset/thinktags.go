package dataset

import (
	"encoding/json"
	"strings"
)

// Many reasoning datasets (DeepSeek-R1's and Qwen3's distillations, and
// the ShareGPT sets made from them) keep an assistant turn's reasoning in
// its content, between <think> and </think> at the start. Beam's reasoning
// is the turn's analysis message, which render takes from
// reasoning_content; such rows have none, and are rejected. With
// Config.ThinkTags an assistant message that has no reasoning field and
// whose content starts (after white space) with <think>...</think> gets
// the text between the tags as its reasoning and the rest, less its
// leading white space, as its content (gap decision 285). Without it, the
// reject of such a row says to pass --think-tags.

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// splitThink returns the reasoning and the answer of content that starts
// with a <think> block; ok is false when it does not.
func splitThink(content string) (reasoning, answer string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimLeft(content, " \t\r\n"), thinkOpen)
	if !found {
		return "", "", false
	}
	reasoning, answer, found = strings.Cut(rest, thinkClose)
	if !found {
		return "", "", false
	}
	return strings.TrimSpace(reasoning), strings.TrimLeft(answer, " \t\r\n"), true
}

// fromThinkTags returns the row with the <think> blocks of its assistant
// messages read as their reasoning.
func fromThinkTags(data []byte) ([]byte, error) {
	var row map[string]json.RawMessage
	if json.Unmarshal(data, &row) != nil {
		return data, nil // ParseRequest refuses the row
	}
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(row["messages"], &msgs) != nil {
		return data, nil
	}
	changed := false
	for _, m := range msgs {
		var role, content string
		if json.Unmarshal(m["role"], &role) != nil || role != "assistant" || json.Unmarshal(m["content"], &content) != nil {
			continue
		}
		if hasReasoning(m) {
			continue
		}
		reasoning, answer, ok := splitThink(content)
		if !ok {
			continue
		}
		m["reasoning_content"] = jsonString(reasoning)
		m["content"] = jsonString(answer)
		changed = true
	}
	if !changed {
		return data, nil
	}
	row["messages"], _ = json.Marshal(msgs)
	return json.Marshal(row)
}

// hasReasoning reports whether a message sets one of the fields render
// reads its reasoning from.
func hasReasoning(m map[string]json.RawMessage) bool {
	for _, k := range []string{"reasoning_content", "thinking", "reasoning"} {
		var s string
		if json.Unmarshal(m[k], &s) == nil && s != "" {
			return true
		}
	}
	return false
}
