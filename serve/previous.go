package serve

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Responses the gateway keeps: with its memory on (--reasoning-memory-bytes),
// a Responses reply whose request did not set store: false is kept under
// its id, in the bounded memory of conversations (Server.conversations)
// beside the threads, for the API key that received it: the request's own input items (item references read
// as the items) and the output items, with the id of the response it
// continued. A request with previous_response_id is then read as the
// conversation those responses hold, oldest first, followed by its own
// input, as the Responses API defines it (instructions are the request's
// own, not carried over). A response the memory does not hold, or one of
// whose earlier responses it no longer holds, is a 404
// previous_response_not_found. Without the memory previous_response_id
// stays the stateless 400 (gap decision 280).

// responseTurn is what a Responses request keeps of itself with its reply.
type responseTurn struct {
	// parent is the previous_response_id the request continued, "" for
	// none.
	parent string
	// items are the request's own input items, references read.
	items []json.RawMessage
}

// keptResponse is a response as the memory keeps it: its request's own
// input items and its output items, and the response it continued.
type keptResponse struct {
	Parent string            `json:"parent,omitempty"`
	Items  []json.RawMessage `json:"items"`
}

// previousInputPath is the path of the input items previous_response_id
// brings in, in errors: previous_response_id.input[k] is the k-th item of
// the conversation it holds.
const previousInputPath = "previous_response_id.input"

// maxResponseChain bounds the responses one previous_response_id is
// followed through (each is an entry of the bounded memory, so the walk
// is bounded by it too; this keeps it short however small the entries).
const maxResponseChain = 1 << 16

// decodePrevious reads previous_response_id: with the memory, the input
// becomes the conversation the response holds followed by the request's
// own input.
func (rr *responsesReply) decodePrevious(rb *responsesBody, s *Server, owner string) *apiError {
	if isNull(rb.PreviousResponseID) {
		return nil
	}
	if s.conversations == nil {
		return statelessError("previous_response_id", "previous_response_id: this gateway is stateless and keeps no responses "+
			"(start it with --reasoning-memory-bytes to keep the responses it writes)")
	}
	id, err := rawString(rb.PreviousResponseID, "previous_response_id")
	if err != nil {
		return err
	}
	if id == "" {
		return paramError("previous_response_id", "invalid_value", "must be the id of a response, got an empty string")
	}
	prior, ok := s.conversations.recallResponses(owner, id)
	if !ok {
		e := paramError("previous_response_id", "previous_response_not_found", "previous response with id "+quoteText(id)+
			" not found: this gateway's memory (--reasoning-memory-bytes) does not hold it or an earlier response of its conversation "+
			"(another gateway or this one before a restart wrote it, it was evicted, it was made with store: false, or another API key received it)")
		e.status, e.kind = http.StatusNotFound, kindNotFound
		return e
	}
	var own []json.RawMessage
	switch {
	case isNull(rb.Input):
	case rb.Input[0] == '"':
		text, err := rawString(rb.Input, "input")
		if err != nil {
			return err
		}
		item, _ := json.Marshal(map[string]string{"role": "user", "content": text})
		own = []json.RawMessage{item}
	default:
		var ok bool
		if own, ok = rawElements(rb.Input); !ok {
			return paramError("input", "invalid_type", "must be a string or a list of input items, got "+kindOf(rb.Input))
		}
	}
	rr.previous = id
	rr.inputBase = len(prior)
	rb.Input = joinRaw(append(prior, own...))
	return nil
}

// inputPath is the request path of input item i: after
// previous_response_id, the items it brings come first.
func (rr *responsesReply) inputPath(i int) string {
	if i < rr.inputBase {
		return previousInputPath + "[" + strconv.Itoa(i) + "]"
	}
	return "input[" + strconv.Itoa(i-rr.inputBase) + "]"
}

// keepOwnItem notes input item i, as read (a reference's item), among the
// request's own items the memory keeps with its reply.
func (rr *responsesReply) keepOwnItem(i int, item json.RawMessage) {
	if t := rr.req.kept; t != nil && i >= rr.inputBase {
		t.items = append(t.items, item)
	}
}

// rememberResponse keeps the response's request items and output items
// (their JSON) under its id.
func (c *exchange) rememberResponse(output []json.RawMessage) {
	t := c.req.kept
	if t == nil {
		return
	}
	kept := keptResponse{Parent: t.parent, Items: append(t.items[:len(t.items):len(t.items)], output...)}
	data, err := json.Marshal(&kept)
	if err != nil {
		return
	}
	c.s.conversations.keep([]string{turnKey(c.owner, "response", c.chatID)}, string(data))
}

// recallResponses returns the items of the conversation response id ends,
// oldest first: each response's request items and output items, back to
// the first, when owner received them all and the memory still holds
// them.
func (m *reasoningMemory) recallResponses(owner, id string) ([]json.RawMessage, bool) {
	var chain [][]json.RawMessage
	n := 0
	for id != "" {
		if len(chain) == maxResponseChain {
			return nil, false
		}
		data, ok := m.recallValue(turnKey(owner, "response", id))
		if !ok {
			return nil, false
		}
		var kept keptResponse
		if json.Unmarshal([]byte(data), &kept) != nil {
			return nil, false
		}
		chain = append(chain, kept.Items)
		n += len(kept.Items)
		id = kept.Parent
	}
	items := make([]json.RawMessage, 0, n)
	for i := len(chain) - 1; i >= 0; i-- {
		items = append(items, chain[i]...)
	}
	return items, true
}
