package serve

import (
	"encoding/json"
	"strconv"

	"github.com/beamharmony/harmony"
)

// The hosted web search's items and blocks coming back in a conversation
// (docs/gap-decisions.md 140): each becomes the built-in call it was, and
// its result the tool result the model read, so that the turn renders as
// it was generated.

// hasSearchBlocks reports whether an assistant message holds the hosted
// search's blocks.
func hasSearchBlocks(blocks []contentBlock) bool {
	for i := range blocks {
		switch blocks[i].Type {
		case "server_tool_use", "web_search_tool_result", "web_fetch_tool_result":
			return true
		}
	}
	return false
}

// assistantSearchMessage adds an assistant message that holds the hosted
// search's blocks: each server_tool_use is a call to search (web_search)
// or browse (web_fetch) in the open turn; its result block a tool
// message; the blocks after the results a new turn. *turn is the open
// turn's index in the messages.
func (m *messagesReply) assistantSearchMessage(path string, blocks []contentBlock, turn *int, sg *signer, allow bool) *apiError {
	var seg []contentBlock
	var results []harmony.Message
	var resultPaths []string
	queries := map[string]string{}
	flush := func() *apiError {
		if len(seg) > 0 {
			if err := m.assistantMessage(path, seg, &m.req.messages[*turn], sg, allow); err != nil {
				return err
			}
			seg = seg[:0]
		}
		if len(results) == 0 {
			return nil
		}
		for i := range results {
			m.add(resultPaths[i], results[i])
		}
		results, resultPaths = results[:0], resultPaths[:0]
		m.add(path, harmony.Message{Role: harmony.RoleAssistant})
		*turn = len(m.req.messages) - 1
		return nil
	}
	for j := range blocks {
		b := blocks[j]
		bp := path + ".content[" + strconv.Itoa(j) + "]"
		switch b.Type {
		case "server_tool_use":
			name := toolSearch
			switch b.Name {
			case "web_search":
				var in struct {
					Query string `json:"query"`
				}
				_ = json.Unmarshal(b.Input, &in)
				queries[b.ID] = in.Query
			case "web_fetch":
				name = toolBrowse
			default:
				return paramError(bp+".name", "unsupported_block", quoteText(b.Name)+
					" is a server tool this gateway does not run; it runs web_search and web_fetch (--search-backend)")
			}
			if len(results) > 0 {
				if err := flush(); err != nil {
					return err
				}
			}
			seg = append(seg, contentBlock{Type: "tool_use", ID: b.ID, Name: name, Input: b.Input})
		case "web_search_tool_result", "web_fetch_tool_result":
			if b.ToolUseID == "" {
				return paramError(bp+".tool_use_id", "invalid_block", "required, the id of the server_tool_use block it answers")
			}
			name, text := toolSearch, searchResultText(b.Content, queries[b.ToolUseID], sg)
			if b.Type == "web_fetch_tool_result" {
				name, text = toolBrowse, fetchResultText(b.Content)
			}
			results = append(results, harmony.Message{Role: harmony.RoleTool, Name: name, ToolCallID: b.ToolUseID, Content: text})
			resultPaths = append(resultPaths, bp)
		default:
			if len(results) > 0 {
				if err := flush(); err != nil {
					return err
				}
			}
			seg = append(seg, b)
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if len(m.req.messages[*turn].ToolCalls) == 0 && m.req.messages[*turn].Reasoning == "" && m.req.messages[*turn].Content == "" {
		// The message ended with results: the turn opened for what would
		// follow stays empty, and the next message opens its own.
		m.req.messages = m.req.messages[:*turn]
		m.origin = m.origin[:*turn]
		*turn = -1
	}
	return nil
}

// searchResultText is the tool result a web_search_tool_result carried:
// each hit's part as sealed in its encrypted_content (rebuilt from its
// url and title when it is not this server's), or the error's words.
func searchResultText(raw json.RawMessage, query string, sg *signer) string {
	var e toolResultError
	if json.Unmarshal(raw, &e) == nil && e.ErrorCode != "" {
		return "Error: the search failed (" + e.ErrorCode + ")"
	}
	var hits []webSearchResult
	_ = json.Unmarshal(raw, &hits)
	segments := make([]string, len(hits))
	for i, h := range hits {
		if s, ok := sg.open(h.EncryptedContent); ok {
			segments[i] = s
			continue
		}
		sh := searchHit{URL: h.URL, Title: h.Title}
		if h.PageAge != nil {
			sh.Age = *h.PageAge
		}
		segments[i] = hitText(i+1, &sh)
	}
	return safeToolText(searchText(query, segments))
}

// fetchResultText is the tool result a web_fetch_tool_result carried: its
// document's text, or the error's words.
func fetchResultText(raw json.RawMessage) string {
	var r struct {
		ErrorCode string `json:"error_code"`
		Content   struct {
			Source struct {
				Data string `json:"data"`
			} `json:"source"`
		} `json:"content"`
	}
	_ = json.Unmarshal(raw, &r)
	if r.ErrorCode != "" {
		return "Error: the page could not be fetched (" + r.ErrorCode + ")"
	}
	return safeToolText(r.Content.Source.Data)
}

// searchCallItem reads a web_search_call input item: the built-in call
// its action names, and its result. The Responses item carries no
// results, so the result says they were not kept (gap decision 140).
func searchCallItem(path string, it *inputItem) (harmony.ToolCall, harmony.Message, *apiError) {
	var a searchAction
	if isNull(it.Action) || it.Action[0] != '{' || json.Unmarshal(it.Action, &a) != nil {
		return harmony.ToolCall{}, harmony.Message{}, paramError(path+".action", "invalid_item", "required, the search's action object")
	}
	id := it.CallID
	if id == "" {
		id = newID("ws_")
	}
	var args any
	name := toolSearch
	switch a.Type {
	case "search":
		args = map[string]string{"query": a.Query}
	case "open_page", "find_in_page":
		name = toolBrowse
		if a.Pattern != "" {
			args = struct {
				URL     string `json:"url"`
				Pattern string `json:"pattern"`
			}{a.URL, a.Pattern}
		} else {
			args = map[string]string{"url": a.URL}
		}
	default:
		return harmony.ToolCall{}, harmony.Message{}, paramError(path+".action.type", "invalid_item", "must be search, open_page or find_in_page, got "+quoteText(a.Type))
	}
	raw, _ := json.Marshal(args)
	call := harmony.ToolCall{ID: id, Type: "function", Function: harmony.FunctionCall{Name: name, Arguments: raw}}
	result := harmony.Message{Role: harmony.RoleTool, Name: name, ToolCallID: id,
		Content: "[The result of this " + name + " is not kept: a web_search_call item carries none.]"}
	return call, result, nil
}
