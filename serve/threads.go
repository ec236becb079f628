package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
)

// Message threads: the Messages API's beta (anthropic-beta
// message-threads-2026-08-12) in which the server holds a conversation
// between turns. A request with thread {"type": "create"} asks the server
// to keep the conversation under its reply's id; one with {"type":
// "continue", "previous_message_id": id} sends only the new messages, and
// the server supplies the rest, with the system prompt and the tools the
// thread was created with. Anthropic's TypeScript SDK (1.17) runs its tool
// runner over a thread by default and falls back to the whole history
// when the server answers thread_unsupported_request; a thread made with
// client.beta.messages.thread() does so only when asked to.
//
// The gateway holds threads in its memory of conversations (half of
// --reasoning-memory-bytes, Server.conversations), bounded in bytes, per
// API key, the least recently used going first. Without the memory, or with the gateway's
// hosted web search in the request, a thread is refused with that error,
// never read as the new messages alone (a prompt without the
// conversation). A continue whose thread the memory does not hold is a
// 404 thread_not_found, on which the SDK sends the whole conversation
// again under a new thread. Each continue that succeeds drops the turn it
// continued from, so that a thread costs the memory one copy of its
// conversation (gap decision 277).

// threadParam is the thread member of a Messages request.
type threadParam struct {
	Type              json.RawMessage `json:"type"`
	PreviousMessageID json.RawMessage `json:"previous_message_id"`
}

// threadTurn is a request's turn of a thread: what its reply is stored
// with.
type threadTurn struct {
	// parent is the id of the reply continued, "" for a new thread.
	parent string
	// system and tools are the thread's, as the request that created it
	// sent them (nil: none).
	system, tools json.RawMessage
	// messages are the conversation the turn sent to the model: the
	// thread's, then the request's.
	messages []json.RawMessage
}

// threadSnapshot is a thread as the memory keeps it, under the id of its
// last reply: the conversation up to and including that reply.
type threadSnapshot struct {
	System   json.RawMessage   `json:"system,omitempty"`
	Tools    json.RawMessage   `json:"tools,omitempty"`
	Messages []json.RawMessage `json:"messages"`
}

// threadMessagesPath is the path of the messages a continued thread holds
// in errors: thread.messages[k] is the thread's k-th message.
const threadMessagesPath = "thread.messages"

// threadError is a refusal of a thread, with the error_code Anthropic's
// SDK acts on in the error's details.
func threadError(status int, param, code, msg string, unsupported ...string) *apiError {
	e := badRequest(param, code, msg)
	e.status = status
	if status == http.StatusNotFound {
		e.kind = kindNotFound
	}
	e.details = &errorDetails{ErrorCode: code, Unsupported: unsupported}
	return e
}

// decodeThread reads thread. For a continue it gives the body the
// thread's system prompt, tools and messages before the request's (paths
// to the thread's messages are thread.messages[k]).
func (m *messagesReply) decodeThread(mb *messagesBody, s *Server, owner string) *apiError {
	if isNull(mb.Thread) {
		return nil
	}
	var tp threadParam
	if mb.Thread[0] != '{' || m.req.decodeMembers(mb.Thread, &tp, "thread") != nil {
		return paramError("thread", "invalid_type", `must be an object such as {"type": "create"}, got `+kindOf(mb.Thread))
	}
	typ, err := rawString(tp.Type, "thread.type")
	if err != nil {
		return err
	}
	var parent string
	switch typ {
	case "create":
	case "continue":
		id, err := rawString(tp.PreviousMessageID, "thread.previous_message_id")
		if err != nil {
			return err
		}
		if id == "" {
			return paramError("thread.previous_message_id", "missing_value", "required with type \"continue\": the id of the reply the thread continues from")
		}
		parent = id
	default:
		return paramError("thread.type", "invalid_value", `must be "create" or "continue", got `+quoteText(typ))
	}
	if s.conversations == nil {
		return threadError(http.StatusBadRequest, "thread", "thread_unsupported_request",
			"thread: this gateway holds no conversation between requests (message threads need its memory, --reasoning-memory-bytes): "+
				"send the whole conversation in messages, without thread. Anthropic's SDK does so by itself in its tool runner; "+
				"a thread from client.beta.messages.thread() does with unsupportedRequestBehavior: 'continue_unthreaded'", "thread")
	}
	t := &threadTurn{parent: parent, system: compactRaw(mb.System), tools: compactRaw(mb.Tools)}
	m.req.thread = t
	if parent == "" {
		return nil
	}
	snap, ok := s.conversations.recallThread(owner, parent)
	if !ok {
		return threadError(http.StatusNotFound, "thread.previous_message_id", "thread_not_found",
			"thread.previous_message_id: this gateway's memory (--reasoning-memory-bytes) holds no thread ending at "+quoteText(parent)+
				": another gateway or this one before a restart wrote it, it was evicted or continued already, or another API key received it; "+
				`send the whole conversation again with thread {"type": "create"}`)
	}
	for _, f := range []struct {
		name       string
		sent, held json.RawMessage
	}{{"system", t.system, snap.System}, {"tools", t.tools, snap.Tools}} {
		if f.sent != nil && !bytes.Equal(f.sent, f.held) {
			return threadError(http.StatusBadRequest, f.name, "thread_fingerprint_mismatch",
				f.name+": a thread keeps the system prompt and tools it was created with; leave "+f.name+
					` out when continuing it, or send the whole conversation with thread {"type": "create"} to change it`)
		}
	}
	var sent []json.RawMessage
	if !isNull(mb.Messages) {
		var ok bool
		if sent, ok = rawElements(mb.Messages); !ok {
			return paramError("messages", "invalid_type", "must be a list of messages, got "+kindOf(mb.Messages))
		}
	}
	mb.System, mb.Tools = snap.System, snap.Tools
	t.system, t.tools = snap.System, snap.Tools
	m.threadBase = len(snap.Messages)
	all := append(slices.Clip(snap.Messages), sent...)
	mb.Messages = joinRaw(all)
	return nil
}

// messagePath is the request path of message i of the conversation: in a
// continued thread, the thread's own messages come first.
func (m *messagesReply) messagePath(i int) string {
	if i < m.threadBase {
		return threadMessagesPath + "[" + strconv.Itoa(i) + "]"
	}
	return messagePath(i - m.threadBase)
}

// checkThreadTools refuses a thread whose request uses the gateway's
// hosted web search: the search's rounds are the gateway's own, and a
// reply made of them is not kept.
func (m *messagesReply) checkThreadTools() *apiError {
	if m.req.thread == nil || m.req.search == nil {
		return nil
	}
	return threadError(http.StatusBadRequest, "thread", "thread_unsupported_request",
		"thread: this gateway does not hold a thread whose turns run its hosted web search ("+m.req.search.path+
			"): send the whole conversation in messages, without thread", "web_search")
}

// rememberThread keeps the conversation of a thread's turn with its reply
// under the reply's id, and drops the turn it continued from.
func (c *exchange) rememberThread(msg *replyMessage) {
	t := c.req.thread
	if t == nil {
		return
	}
	reply, err := json.Marshal(msg)
	if err != nil {
		return
	}
	snap := threadSnapshot{System: t.system, Tools: t.tools, Messages: append(slices.Clip(t.messages), reply)}
	data, err := json.Marshal(&snap)
	if err != nil {
		return
	}
	c.s.conversations.keep([]string{turnKey(c.owner, "thread", c.chatID)}, string(data))
	if t.parent != "" {
		c.s.conversations.drop(turnKey(c.owner, "thread", t.parent))
	}
}

// replyMessage is an assistant message of the Messages API as a request
// sends it back.
type replyMessage struct {
	Role    string       `json:"role"`
	Content []replyBlock `json:"content"`
}

// recallThread returns the thread whose last reply is id, when owner
// received it and the memory still holds it.
func (m *reasoningMemory) recallThread(owner, id string) (*threadSnapshot, bool) {
	data, ok := m.recallValue(turnKey(owner, "thread", id))
	if !ok {
		return nil, false
	}
	var snap threadSnapshot
	if json.Unmarshal([]byte(data), &snap) != nil {
		return nil, false
	}
	return &snap, true
}

// compactRaw is raw compacted (nil when null or absent), so that a
// thread's system prompt and tools compare equal however they were
// spaced.
func compactRaw(raw json.RawMessage) json.RawMessage {
	if isNull(raw) {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// joinRaw is the JSON list of elems.
func joinRaw(elems []json.RawMessage) json.RawMessage {
	n := 2
	for _, e := range elems {
		n += len(e) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']')
}
