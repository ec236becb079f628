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
// checks each kind of chunk against json.Marshal of its struct
// (wire_events_test.go the Messages and Responses events).

// writeJSON writes v as the JSON reply body, followed by a newline.
func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

// writeJSONStatus writes v as the JSON reply body, followed by a newline,
// with the HTTP status.
func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(appendJSON(nil, v), '\n'))
}

// appendJSON appends v encoded by encoding/json with HTML characters left
// as they are (prompts and arguments are full of < and >).
func appendJSON(dst []byte, v any) []byte {
	b := bytes.NewBuffer(dst)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only values the gateway builds are encoded: a failure is a bug.
		panic("serve: encoding a reply: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// optString is s, or nil when s is empty (null on the wire).
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// The gateway's small replies.

// modelList is GET /v1/models's reply when the server names its model.
type modelList struct {
	Object string      `json:"object"`
	Data   []modelInfo `json:"data"`
}

type modelInfo struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// healthReply is GET /health's reply: Engine with one engine, Engines
// with replicas, each only with details.
type healthReply struct {
	Status  string         `json:"status"`
	Engine  *healthEngine  `json:"engine,omitempty"`
	Engines []healthEngine `json:"engines,omitempty"`
}

// healthEngine is an engine's state; Healthy and OpenRequests are a
// replica's.
type healthEngine struct {
	URL          string  `json:"url"`
	Reachable    bool    `json:"reachable"`
	Healthy      *bool   `json:"healthy,omitempty"`
	OpenRequests *int64  `json:"open_requests,omitempty"`
	Error        *string `json:"error,omitempty"`
}

// countTokensReply is the Messages API's count_tokens reply.
type countTokensReply struct {
	InputTokens int `json:"input_tokens"`
}

// Errors.

// openAIError is the OpenAI APIs' error object.
type openAIError struct {
	Error openAIErrorBody `json:"error"`
}

type openAIErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// anthropicError is the Messages API's error object.
type anthropicError struct {
	Type  string             `json:"type"`
	Error anthropicErrorBody `json:"error"`
}

type anthropicErrorBody struct {
	Type    string `json:"type"`
	Message string `json:"message"`
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

// Anthropic Messages. The message object (newAnthropicReply), the
// message_start event and the usage are encoded with encoding/json; the
// other events are appended by hand, and wire_events_test.go checks each kind
// against these structs.

// anthropicReply is the Messages API's message object.
type anthropicReply struct {
	ID           string         `json:"id"`
	Type         string         `json:"type"`
	Role         string         `json:"role"`
	Model        string         `json:"model"`
	Content      []replyBlock   `json:"content"`
	StopReason   *string        `json:"stop_reason"`
	StopSequence *string        `json:"stop_sequence"`
	Usage        anthropicUsage `json:"usage"`
}

// replyBlock is a content block of a reply: thinking (Thinking, Signature), text
// (Text) or tool_use (ID, Name, Input).
type replyBlock struct {
	Type      string          `json:"type"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	Text      *string         `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	// ToolUseID and Content are a server tool's result block's
	// (web_search_tool_result, web_fetch_tool_result: websearch_reply.go).
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

// anthropicUsage counts input tokens apart from those read from the
// engine's prefix cache.
type anthropicUsage struct {
	InputTokens          int64  `json:"input_tokens"`
	CacheReadInputTokens *int64 `json:"cache_read_input_tokens,omitempty"`
	OutputTokens         int64  `json:"output_tokens"`
	// ServerToolUse counts the hosted web search's calls, when the
	// request has one (websearch.go).
	ServerToolUse *serverToolUsage `json:"server_tool_use,omitempty"`
}

// anthropicEvent is the data of a Messages stream event.
type anthropicEvent struct {
	Type         string          `json:"type"`
	Message      *anthropicReply `json:"message,omitempty"`
	Index        *int            `json:"index,omitempty"`
	ContentBlock *replyBlock     `json:"content_block,omitempty"`
	// Delta is an anthropicBlockDelta or an anthropicMessageDelta.
	Delta any             `json:"delta,omitempty"`
	Usage *anthropicUsage `json:"usage,omitempty"`
}

// anthropicBlockDelta is a content_block_delta's delta.
type anthropicBlockDelta struct {
	Type        string  `json:"type"`
	Thinking    *string `json:"thinking,omitempty"`
	Text        *string `json:"text,omitempty"`
	PartialJSON *string `json:"partial_json,omitempty"`
	Signature   *string `json:"signature,omitempty"`
}

// anthropicMessageDelta is a message_delta's delta.
type anthropicMessageDelta struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

// OpenAI Responses. The response object (newResponse), its output
// items and content parts are encoded with encoding/json, in the
// non-streamed reply and in the stream's events alike; the events
// themselves are appended by hand, and wire_events_test.go checks each kind
// against these structs.

// responseReply is a response object.
type responseReply struct {
	ID                string              `json:"id"`
	Object            string              `json:"object"`
	CreatedAt         int64               `json:"created_at"`
	Status            string              `json:"status"`
	Error             *responseError      `json:"error"`
	IncompleteDetails *responseIncomplete `json:"incomplete_details"`
	Instructions      *string             `json:"instructions"`
	MaxOutputTokens   json.RawMessage     `json:"max_output_tokens"`
	Model             string              `json:"model"`
	// Output holds responseReasoningItem, responseMessageItem and
	// responseCallItem values.
	Output             []any              `json:"output"`
	ParallelToolCalls  bool               `json:"parallel_tool_calls"`
	PreviousResponseID *string            `json:"previous_response_id"`
	Reasoning          responseReasoning  `json:"reasoning"`
	Store              bool               `json:"store"`
	Temperature        json.RawMessage    `json:"temperature"`
	Text               responseTextConfig `json:"text"`
	ToolChoice         json.RawMessage    `json:"tool_choice"`
	Tools              json.RawMessage    `json:"tools"`
	TopP               json.RawMessage    `json:"top_p"`
	Truncation         string             `json:"truncation"`
	Usage              *responseUsage     `json:"usage"`
	Metadata           struct{}           `json:"metadata"`
}

type responseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type responseIncomplete struct {
	Reason string `json:"reason"`
}

type responseReasoning struct {
	Effort  *string `json:"effort"`
	Summary *string `json:"summary"`
}

type responseTextConfig struct {
	Format json.RawMessage `json:"format"`
}

type responseUsage struct {
	InputTokens        int64                 `json:"input_tokens"`
	InputTokensDetails *responseInputDetails `json:"input_tokens_details,omitempty"`
	OutputTokens       int64                 `json:"output_tokens"`
	TotalTokens        int64                 `json:"total_tokens"`
}

type responseInputDetails struct {
	CachedTokens int64 `json:"cached_tokens"`
}

// responseReasoningItem is a reasoning output item; EncryptedContent is
// absent while it is in progress.
type responseReasoningItem struct {
	ID               string         `json:"id"`
	Type             string         `json:"type"`
	Summary          []responseText `json:"summary"`
	Content          []responseText `json:"content"`
	EncryptedContent *string        `json:"encrypted_content,omitempty"`
	Status           string         `json:"status"`
}

// responseText is a reasoning_text part.
type responseText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// responseMessageItem is an assistant message output item.
type responseMessageItem struct {
	ID      string               `json:"id"`
	Type    string               `json:"type"`
	Status  string               `json:"status"`
	Role    string               `json:"role"`
	Content []responseOutputText `json:"content"`
}

// responseOutputText is an output_text part.
type responseOutputText struct {
	Type        string            `json:"type"`
	Text        string            `json:"text"`
	Annotations []json.RawMessage `json:"annotations"`
	Logprobs    []json.RawMessage `json:"logprobs"`
}

// responseCallItem is a function_call output item.
type responseCallItem struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Status string `json:"status"`
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	// Namespace names the namespace tool the function belongs to, as
	// OpenAI's Responses API writes a call to a namespaced function.
	Namespace string `json:"namespace,omitempty"`
	Arguments string `json:"arguments"`
}

// responseEvent is the data of a Responses stream event.
type responseEvent struct {
	Type           string         `json:"type"`
	SequenceNumber int            `json:"sequence_number"`
	Response       *responseReply `json:"response,omitempty"`
	ItemID         string         `json:"item_id,omitempty"`
	OutputIndex    *int           `json:"output_index,omitempty"`
	ContentIndex   *int           `json:"content_index,omitempty"`
	// Item is an output item; Part a responseText or responseOutputText.
	Item      any                `json:"item,omitempty"`
	Part      any                `json:"part,omitempty"`
	Delta     *string            `json:"delta,omitempty"`
	Text      *string            `json:"text,omitempty"`
	Name      string             `json:"name,omitempty"`
	Arguments *string            `json:"arguments,omitempty"`
	Logprobs  *[]json.RawMessage `json:"logprobs,omitempty"`
}
