package serve

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/beamharmony/harmony"
)

// reasoningMemory keeps the reasoning of the assistant turns this gateway
// wrote, keyed by what every client sends back of a turn: the ids of its
// tool calls, or the text of its answer with the message it answers.
// Some clients drop the reasoning (Continue and Factory droid on Chat
// Completions, GitHub Copilot's resumed sessions on Responses); with the
// memory on, a turn that comes back without its reasoning gets it again,
// so that the prompt is the one Beam wrote (gap decision 242). It is bounded in bytes, the least
// recently used turns going first, and each entry belongs to the API key
// the request was made with: a turn is restored only for the key that
// received it. A miss (another gateway, a restart, an evicted turn) leaves
// the turn as sent, to the usual check.
type reasoningMemory struct {
	mu    sync.Mutex
	max   int64
	used  int64
	byKey map[string]*recalled
	order list.List // of *recalled, the most recently used first
}

// recalled is one remembered turn.
type recalled struct {
	reasoning string
	keys      []string
	size      int64
	at        *list.Element
}

// recallOverhead is what a remembered turn and each of its keys cost
// beside their text: the map entry, the list element, the headers.
const recallOverhead = 128

func newReasoningMemory(maxBytes int64) *reasoningMemory {
	if maxBytes <= 0 {
		return nil
	}
	return &reasoningMemory{max: maxBytes, byKey: map[string]*recalled{}}
}

// turnKey is a memory key: the owner (the API key's digest, "" without
// keys), the kind and the value.
func turnKey(owner, kind, value string) string {
	return owner + "\x00" + kind + "\x00" + value
}

// textKey is the key of an answer's text and of the message before it
// (the question or tool result it answers; nil when none): their digest,
// so that a long answer costs the memory 32 bytes, and so that a short
// answer ("Done.") of one conversation does not give its reasoning to
// the same answer to another question.
func textKey(owner string, before *harmony.Message, text string) string {
	h := sha256.New()
	if before != nil {
		h.Write([]byte(before.Role))
		h.Write([]byte{0})
		h.Write([]byte(before.ToolCallID))
		h.Write([]byte{0})
		h.Write([]byte(before.Content))
	}
	h.Write([]byte{0, 0})
	h.Write([]byte(text))
	return turnKey(owner, "text", string(h.Sum(nil)))
}

// remember keeps reasoning under callIDs, the ids of the calls the reply
// handed out, or, for a turn without calls, under its answer's text and
// the message before it. A turn larger than an eighth of the memory is
// not kept.
func (m *reasoningMemory) remember(owner, reasoning string, callIDs []string, before *harmony.Message, answer string) {
	if m == nil || reasoning == "" {
		return
	}
	var keys []string
	switch {
	case len(callIDs) > 0:
		keys = make([]string, len(callIDs))
		for i, id := range callIDs {
			keys[i] = turnKey(owner, "call", id)
		}
	case answer != "":
		keys = []string{textKey(owner, before, answer)}
	default:
		return
	}
	m.keep(keys, reasoning)
}

// keep holds value under keys, the least recently used entries going
// when the memory is full; a value larger than an eighth of the memory
// is not kept.
func (m *reasoningMemory) keep(keys []string, value string) {
	size := int64(len(value)) + recallOverhead
	for _, k := range keys {
		size += int64(len(k)) + recallOverhead
	}
	if size > m.max/8 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		if old := m.byKey[k]; old != nil {
			m.forget(old)
		}
	}
	// A copy: the parsed reasoning may share the memory of the whole
	// generation, which the memory does not count.
	t := &recalled{reasoning: strings.Clone(value), keys: keys, size: size}
	t.at = m.order.PushFront(t)
	for _, k := range keys {
		m.byKey[k] = t
	}
	m.used += size
	for m.used > m.max {
		m.forget(m.order.Back().Value.(*recalled))
	}
}

// rememberItem keeps a Responses output item the reply handed out, its
// JSON, under its id: an item_reference input item that names it is read
// as the item (gap decision 276).
func (m *reasoningMemory) rememberItem(owner, id string, item []byte) {
	if m == nil || id == "" {
		return
	}
	m.keep([]string{turnKey(owner, "item", id)}, string(item))
}

// recallValue returns the value kept under key, and marks it used.
func (m *reasoningMemory) recallValue(key string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.byKey[key]
	if t == nil {
		return "", false
	}
	m.order.MoveToFront(t.at)
	return t.reasoning, true
}

// drop forgets the entry kept under key, if any.
func (m *reasoningMemory) drop(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.byKey[key]; t != nil {
		m.forget(t)
	}
}

// recallItem returns the JSON of the output item id, when owner
// received it and the memory still holds it.
func (m *reasoningMemory) recallItem(owner, id string) ([]byte, bool) {
	if m == nil {
		return nil, false
	}
	item, ok := m.recallValue(turnKey(owner, "item", id))
	return []byte(item), ok
}

// rememberItems keeps the output items of a Responses reply for
// item_reference (rememberItem), when the memory is on and the reply
// succeeded (completed or incomplete).
func (c *exchange) rememberItems(items []any) {
	if c.s == nil || c.s.memory == nil || c.req == nil || c.status != http.StatusOK {
		return
	}
	output := make([]json.RawMessage, 0, len(items))
	for _, it := range items {
		data, err := json.Marshal(it)
		if err != nil {
			continue
		}
		output = append(output, data)
		var head struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(data, &head) == nil {
			c.s.memory.rememberItem(c.owner, head.ID, data)
		}
	}
	c.rememberResponse(output)
}

// forget drops t; m.mu is held.
func (m *reasoningMemory) forget(t *recalled) {
	for _, k := range t.keys {
		if m.byKey[k] == t {
			delete(m.byKey, k)
		}
	}
	m.order.Remove(t.at)
	m.used -= t.size
}

// recall returns the reasoning of the turn msg is, when owner received
// it: every one of its calls must carry an id this memory holds, all of
// one turn; a turn without calls is looked up by its answer's text and
// the message before it (before; nil when none).
func (m *reasoningMemory) recall(owner string, msg, before *harmony.Message) (string, bool) {
	if m == nil {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var t *recalled
	if len(msg.ToolCalls) > 0 {
		for _, tc := range msg.ToolCalls {
			if tc.ID == "" {
				return "", false
			}
			got := m.byKey[turnKey(owner, "call", tc.ID)]
			if got == nil || t != nil && got != t {
				return "", false
			}
			t = got
		}
	} else if msg.Content != "" {
		t = m.byKey[textKey(owner, before, msg.Content)]
	}
	if t == nil {
		return "", false
	}
	m.order.MoveToFront(t.at)
	return t.reasoning, true
}

// restoreReasoning gives each assistant turn of msgs that lacks its
// reasoning the reasoning the memory holds for it, and records where
// (origin(i) is message i's path in the request), for the reply's
// X-Beam-Reasoning-Restored header and the log.
func (s *Server) restoreReasoning(r *request, owner string, msgs []harmony.Message, origin func(i int) string) {
	if s.memory == nil {
		return
	}
	for i := range msgs {
		m := &msgs[i]
		if m.Role != harmony.RoleAssistant || m.Reasoning != "" {
			continue
		}
		var before *harmony.Message
		if i > 0 {
			before = &msgs[i-1]
		}
		if text, ok := s.memory.recall(owner, m, before); ok {
			m.Reasoning = text
			r.restored = append(r.restored, origin(i))
		}
	}
}

// RestoredHeader lists the assistant turns (their paths in the request)
// whose reasoning the gateway restored from its memory of the turns it
// wrote (Config.ReasoningMemoryBytes).
const RestoredHeader = "X-Beam-Reasoning-Restored"

// requestOwner is whose turns a request may recall: the digest of the API
// key it was let in with, or "" when the server takes no keys.
func (s *Server) requestOwner(r *http.Request, fam apiFamily) string {
	ks := s.keys.Load()
	if ks == nil || s.memory == nil {
		return ""
	}
	// Each key is hashed once: its digest is both what the key set
	// holds and the owner.
	var d [32]byte
	if k := r.Header.Get("X-Api-Key"); fam != familyOpenAI && k != "" && len(k) <= maxKeyLen {
		if d = sha256.Sum256([]byte(k)); ks.matchDigest(d) {
			return hex.EncodeToString(d[:16])
		}
	}
	if tok, _ := bearerToken(r); tok != "" && len(tok) <= maxKeyLen {
		if d = sha256.Sum256([]byte(tok)); ks.matchDigest(d) {
			return hex.EncodeToString(d[:16])
		}
	}
	return ""
}

// rememberTurn keeps the reasoning of the turn the exchange's reply
// handed out, under the call ids it issued or its answer's text (with the
// request's last message, the one it answers). Replies
// of the hosted web search's rounds are not kept (their calls are the
// gateway's own).
func (c *exchange) rememberTurn(msg *harmony.Message) {
	if c.s == nil || c.s.memory == nil || c.req == nil || c.req.search != nil || c.status != http.StatusOK {
		return
	}
	answer := ""
	if len(c.callIDs) == 0 {
		answer = msg.Content
	}
	var before *harmony.Message
	if n := len(c.req.messages); n > 0 {
		before = &c.req.messages[n-1]
	}
	c.s.memory.remember(c.owner, msg.Reasoning, c.callIDs, before, answer)
	if c.req.thread != nil {
		c.rememberThread(c.threadReply(msg))
	}
}

// newCallID is the id of a call the reply hands out, kept for the memory.
func (c *exchange) newCallID(prefix string) string {
	id := newID(prefix)
	if c.s != nil && c.s.memory != nil {
		c.callIDs = append(c.callIDs, id)
	}
	return id
}

// memoryHint adds to a missing_reasoning error, when the reasoning memory
// is on, that it does not hold the turn and why it may not. Without the
// memory the error is left as it was worded before the memory existed
// (clients and tests match it).
func (s *Server) memoryHint(e *apiError) *apiError {
	if e == nil || e.code != "missing_reasoning" || s.memory == nil {
		return e
	}
	hinted := *e
	hinted.msg += " This gateway keeps the reasoning of the turns it wrote (--reasoning-memory-bytes), but not this turn's: " +
		"another gateway or this one before a restart wrote it, it was evicted, or its call ids or answer differ from those handed out."
	return &hinted
}
