package serve

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/beamharmony/harmony"
)

// The wire shapes of the replies, as typed structs: non-streamed replies
// are these values encoded with encoding/json (writeJSON); the streamed
// chunks are appended by hand on the per-token path, and wire_test.go
// checks each kind of chunk against json.Marshal of its struct.

// writeJSON writes v as the JSON reply body, followed by a newline, with
// HTML characters left as they are (prompts and arguments are full of <
// and >).
func writeJSON(w http.ResponseWriter, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only values the gateway builds are encoded: a failure is a bug.
		panic("serve: encoding a reply: " + err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b.Bytes())
}

// Chat Completions.

// chatCompletion is a chat.completion object, or a chat.completion.chunk
// (chatChunk).
type chatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage,omitempty"`
}

// chatChoice is a choice of a completion (Message) or of a chunk (Delta).
type chatChoice struct {
	Index   int          `json:"index"`
	Message *chatMessage `json:"message,omitempty"`
	Delta   *chatDelta   `json:"delta,omitempty"`
	// Logprobs is always null.
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
}

// chatMessage is the assistant message of a completion. Content is null
// when the message only makes tool calls.
type chatMessage struct {
	Role             string         `json:"role"`
	Content          *string        `json:"content"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	Reasoning        *string        `json:"reasoning,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
}

// chatDelta is what a chunk adds to the message.
type chatDelta struct {
	Role             string         `json:"role,omitempty"`
	Content          *string        `json:"content,omitempty"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	Reasoning        *string        `json:"reasoning,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
}

// chatToolCall is a tool call of a message, or a piece of one in a delta
// (Index set; ID, Type and Name only in its first piece).
type chatToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      *string `json:"name,omitempty"`
	Arguments string  `json:"arguments"`
}

// chatUsage is a reply's token counts.
type chatUsage struct {
	PromptTokens        int64              `json:"prompt_tokens"`
	CompletionTokens    int64              `json:"completion_tokens"`
	TotalTokens         int64              `json:"total_tokens"`
	PromptTokensDetails *chatPromptDetails `json:"prompt_tokens_details,omitempty"`
}

type chatPromptDetails struct {
	CachedTokens int64 `json:"cached_tokens"`
}

// chatChunk is a chat.completion.chunk. Usage is null in every chunk of
// a stream that asked for usage but its last, and absent when it did not
// ask.
type chatChunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []chatChoice    `json:"choices"`
	Usage   json.RawMessage `json:"usage,omitempty"`
}

// newChatUsage is the usage object of u.
func newChatUsage(u *usage) *chatUsage {
	cu := &chatUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if cu.TotalTokens == 0 {
		cu.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	if u.CachedKnown {
		cu.PromptTokensDetails = &chatPromptDetails{CachedTokens: u.CachedTokens}
	}
	return cu
}

// reasoningText returns the reasoning fields the server writes for text.
func reasoningText(f ReasoningFields, text string) (reasoningContent, reasoning *string) {
	if f != ReasoningOnly {
		reasoningContent = &text
	}
	if f != ReasoningContentOnly {
		reasoning = &text
	}
	return reasoningContent, reasoning
}

// newChatCompletion is the chat.completion object for the parsed message.
func (c *exchange) newChatCompletion(m *harmony.Message, finish string) *chatCompletion {
	msg := &chatMessage{Role: "assistant", Content: &m.Content}
	if m.Content == "" && len(m.ToolCalls) > 0 {
		msg.Content = nil
	}
	if m.Reasoning != "" {
		msg.ReasoningContent, msg.Reasoning = reasoningText(c.s.cfg.ReasoningFields, m.Reasoning)
	}
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		args := string(tc.Function.Arguments)
		if args == "" {
			args = "{}"
		}
		msg.ToolCalls = append(msg.ToolCalls, chatToolCall{ID: newID("call_"), Type: "function",
			Function: chatFunction{Name: &tc.Function.Name, Arguments: args}})
	}
	cc := &chatCompletion{ID: c.chatID, Object: "chat.completion", Created: c.created, Model: c.model,
		Choices: []chatChoice{{Message: msg, FinishReason: &finish}}}
	if c.usage != nil {
		cc.Usage = newChatUsage(c.usage)
	}
	return cc
}
