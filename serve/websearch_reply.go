package serve

import (
	"encoding/json"
	"strconv"
)

// How the client sees the hosted web search (docs/gap-decisions.md 139),
// in the shapes each API uses for its own hosted search:
//
//   - Responses: a web_search_call output item per call, with its action
//     (search with query; browse as open_page with url, or find_in_page
//     with url and pattern) and status (completed, or failed), streamed
//     as output_item.added, response.web_search_call.in_progress,
//     .searching, .completed and output_item.done (OpenAI's
//     ResponseFunctionWebSearch and its ResponseWebSearchCall*Event
//     types).
//   - Messages: a server_tool_use block (name web_search, input
//     {"query"}; browse as web_fetch, input its arguments) followed by a
//     web_search_tool_result block (a list of web_search_result with url,
//     title, page_age and encrypted_content) or a web_fetch_tool_result
//     block, streamed as content_block_start, an input_json_delta and
//     content_block_stop, then the result's start and stop; usage counts
//     server_tool_use.web_search_requests and web_fetch_requests
//     (Anthropic's ServerToolUseBlock, WebSearchToolResultBlock,
//     WebFetchToolResultBlock and ServerToolUsage).
//
// Each round's reasoning comes first, as a reasoning item or a thinking
// block of its own.

// responseSearchItem is a web_search_call output item.
type responseSearchItem struct {
	ID     string        `json:"id"`
	Type   string        `json:"type"`
	Status string        `json:"status"`
	Action *searchAction `json:"action"`
}

// searchAction is a web_search_call's action.
type searchAction struct {
	Type    string `json:"type"`
	Query   string `json:"query,omitempty"`
	URL     string `json:"url,omitempty"`
	Pattern string `json:"pattern,omitempty"`
}

// responsesItem is the call as a web_search_call item; status "" is its
// final status (completed, or failed).
func (t *toolRun) responsesItem(status string) *responseSearchItem {
	if status == "" {
		status = "completed"
		if t.err != nil {
			status = "failed"
		}
	}
	a := &searchAction{Type: "search", Query: t.query}
	if t.name == toolBrowse {
		a = &searchAction{Type: "open_page", URL: t.url}
		if t.pattern != "" {
			a.Type, a.Pattern = "find_in_page", t.pattern
		}
	}
	return &responseSearchItem{ID: t.id, Type: "web_search_call", Status: status, Action: a}
}

// searchItems are the output items of the earlier rounds: each round's
// reasoning item, then its calls.
func (rr *responsesReply) searchItems(c *exchange) []any {
	if c.req == nil || c.req.search == nil {
		return nil
	}
	ws := c.req.search
	if ws == nil {
		return nil
	}
	var out []any
	for _, r := range ws.rounds {
		if r.reasoning != "" {
			out = append(out, newReasoningItem(c.s.signer, newID("rs_"), r.reasoning, "completed"))
		}
		for _, t := range r.runs {
			out = append(out, t.responsesItem(""))
		}
	}
	return out
}

func (s *responsesStream) searchStart(t *toolRun) {
	s.finish(s)
	s.index++
	s.event("response.output_item.added")
	s.buf = append(s.buf, `,"output_index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
	s.buf = append(s.buf, `,"item":`...)
	s.buf = appendJSON(s.buf, t.responsesItem("in_progress"))
	s.buf = append(s.buf, '}')
	s.close()
	for _, name := range [...]string{"response.web_search_call.in_progress", "response.web_search_call.searching"} {
		s.searchEvent(name, t)
	}
}

func (s *responsesStream) searchDone(t *toolRun) {
	s.searchEvent("response.web_search_call.completed", t)
	item := t.responsesItem("")
	s.done = append(s.done, item)
	s.event("response.output_item.done")
	s.buf = append(s.buf, `,"output_index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
	s.buf = append(s.buf, `,"item":`...)
	s.buf = appendJSON(s.buf, item)
	s.buf = append(s.buf, '}')
	s.close()
}

// searchEvent writes a response.web_search_call.* event for t, the open
// item.
func (s *responsesStream) searchEvent(name string, t *toolRun) {
	s.event(name)
	s.buf = append(s.buf, `,"item_id":`...)
	s.buf = appendString(s.buf, t.id)
	s.buf = append(s.buf, `,"output_index":`...)
	s.buf = strconv.AppendInt(s.buf, int64(s.index), 10)
	s.buf = append(s.buf, '}')
	s.close()
}

// serverToolUsage is the Messages usage's server_tool_use.
type serverToolUsage struct {
	WebSearchRequests int `json:"web_search_requests"`
	WebFetchRequests  int `json:"web_fetch_requests"`
}

// serverToolUse is the request's server tool usage, nil without a hosted
// search.
func (c *exchange) serverToolUse() *serverToolUsage {
	if c.req == nil || c.req.search == nil {
		return nil
	}
	return &serverToolUsage{WebSearchRequests: c.req.search.searches, WebFetchRequests: c.req.search.fetches}
}

// serverToolName is the Messages server tool a built-in call is shown as.
func (t *toolRun) serverToolName() string {
	if t.name == toolBrowse {
		return "web_fetch"
	}
	return "web_search"
}

// input is the server_tool_use block's input: {"query"} for a search,
// browse's arguments for a fetch.
func (t *toolRun) input() json.RawMessage {
	if t.name == toolSearch {
		b, _ := json.Marshal(struct {
			Query string `json:"query"`
		}{t.query})
		return b
	}
	var v any
	if json.Unmarshal(t.args, &v) != nil {
		return json.RawMessage(`{}`)
	}
	b, _ := json.Marshal(v)
	return b
}

// webSearchResult is one web_search_result: encrypted_content seals the
// part of the tool result the model read for the hit, so that the turn,
// sent back, renders as it was generated.
type webSearchResult struct {
	Type             string  `json:"type"`
	URL              string  `json:"url"`
	Title            string  `json:"title"`
	EncryptedContent string  `json:"encrypted_content"`
	PageAge          *string `json:"page_age"`
}

// toolResultError is a web_search_tool_result_error or
// web_fetch_tool_result_error.
type toolResultError struct {
	Type      string `json:"type"`
	ErrorCode string `json:"error_code"`
}

// webFetchResult is a web_fetch_tool_result's content: the text the model
// read, as a plain-text document.
type webFetchResult struct {
	Type        string           `json:"type"`
	URL         string           `json:"url"`
	RetrievedAt string           `json:"retrieved_at"`
	Content     webFetchDocument `json:"content"`
}

type webFetchDocument struct {
	Type   string         `json:"type"`
	Source webFetchSource `json:"source"`
	Title  *string        `json:"title,omitempty"`
}

type webFetchSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// resultBlock is the block that carries t's result.
func (t *toolRun) resultBlock(sg *signer) replyBlock {
	var content any
	typ := "web_search_tool_result"
	if t.name == toolBrowse {
		typ = "web_fetch_tool_result"
	}
	switch {
	case t.err != nil && t.name == toolSearch:
		content = &toolResultError{Type: "web_search_tool_result_error", ErrorCode: t.err.code}
	case t.err != nil:
		content = &toolResultError{Type: "web_fetch_tool_result_error", ErrorCode: t.err.code}
	case t.name == toolSearch:
		hits := make([]webSearchResult, len(t.hits))
		for i, h := range t.hits {
			hits[i] = webSearchResult{Type: "web_search_result", URL: h.URL, Title: h.Title, EncryptedContent: sg.seal(t.segments[i])}
			if h.Age != "" {
				hits[i].PageAge = &h.Age
			}
		}
		content = hits
	default:
		d := webFetchDocument{Type: "document", Source: webFetchSource{Type: "text", MediaType: "text/plain", Data: t.text}}
		if t.page.Title != "" {
			d.Title = &t.page.Title
		}
		content = &webFetchResult{Type: "web_fetch_result", URL: t.page.URL, RetrievedAt: t.page.Fetched.Format("2006-01-02T15:04:05Z07:00"), Content: d}
	}
	raw, _ := json.Marshal(content)
	return replyBlock{Type: typ, ToolUseID: t.id, Content: raw}
}

// searchBlocks are the content blocks of the earlier rounds: each
// round's thinking, then per call its server_tool_use and result blocks.
func (c *exchange) searchBlocks() []replyBlock {
	if c.req == nil || c.req.search == nil {
		return nil
	}
	ws := c.req.search
	if ws == nil {
		return nil
	}
	var out []replyBlock
	for _, r := range ws.rounds {
		if r.reasoning != "" {
			out = append(out, c.thinkingBlock(r.reasoning))
		}
		for _, t := range r.runs {
			out = append(out, replyBlock{Type: "server_tool_use", ID: t.id, Name: t.serverToolName(), Input: t.input()}, t.resultBlock(c.s.signer))
		}
	}
	return out
}

func (s *messagesStream) searchStart(t *toolRun) {
	s.finish(s)
	s.index++
	i := s.index
	s.open("content_block_start")
	s.buf = appendJSON(s.buf, &anthropicEvent{Type: "content_block_start", Index: &i,
		ContentBlock: &replyBlock{Type: "server_tool_use", ID: t.id, Name: t.serverToolName(), Input: json.RawMessage(`{}`)}})
	s.close()
	partial := string(t.input())
	s.open("content_block_delta")
	s.buf = appendJSON(s.buf, &anthropicEvent{Type: "content_block_delta", Index: &i,
		Delta: &anthropicBlockDelta{Type: "input_json_delta", PartialJSON: &partial}})
	s.close()
	s.blockStop(i)
}

func (s *messagesStream) searchDone(t *toolRun) {
	s.index++
	i := s.index
	b := t.resultBlock(s.c.s.signer)
	s.open("content_block_start")
	s.buf = appendJSON(s.buf, &anthropicEvent{Type: "content_block_start", Index: &i, ContentBlock: &b})
	s.close()
	s.blockStop(i)
}

func (s *messagesStream) blockStop(i int) {
	s.open("content_block_stop")
	s.buf = appendJSON(s.buf, &anthropicEvent{Type: "content_block_stop", Index: &i})
	s.close()
}
