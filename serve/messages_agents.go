package serve

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/grammar"
)

// What Claude Code sends to the Messages API beyond the plain API:
// deferred tools and the tool results that load them, its billing-header
// system block, metadata and context management (issue 32).

// deferredTool is a tool sent with defer_loading: true.
type deferredTool struct {
	tool   harmony.Tool
	path   string
	strict bool
}

// toolLoad is a tool_reference block of a tool result: the tool it loads,
// and the rendered tool message it belongs to.
type toolLoad struct {
	message    int
	name, path string
}

// toolRef is a tool_reference block as read.
type toolRef struct{ name, path string }

// toolResultText reads a tool_result's content: a string, or a list of
// text blocks (joined with "\n") and tool_reference blocks, which load a
// deferred tool (Anthropic's tool search) and are returned apart.
func (r *request) toolResultText(raw json.RawMessage, path string) (string, []toolRef, *apiError) {
	if isNull(raw) || raw[0] != '[' {
		text, err := r.blocksText(raw, path, 0)
		return text, nil, err
	}
	var blocks []contentBlock
	if err := r.decodeMembers(raw, &blocks, path); err != nil {
		return "", nil, paramError(path, "invalid_type", "must be a string or a list of text and tool_reference blocks ("+jsonErrorText(err)+")")
	}
	r.noteForeignBlockMembers(path, 0, blocks)
	var b strings.Builder
	var refs []toolRef
	texts := 0
	for j := range blocks {
		bp := path + "[" + strconv.Itoa(j) + "]"
		switch blocks[j].Type {
		case "text":
			if blocks[j].Text == nil {
				return "", nil, paramError(bp+".text", "invalid_block", "required, a string")
			}
			if texts > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(*blocks[j].Text)
			texts++
		case "tool_reference":
			if blocks[j].ToolName == "" {
				return "", nil, paramError(bp+".tool_name", "invalid_block", "required, the deferred tool the block loads")
			}
			refs = append(refs, toolRef{name: blocks[j].ToolName, path: bp})
		default:
			return "", nil, unsupportedBlock(bp, blocks[j].Type)
		}
	}
	return b.String(), refs, nil
}

// declareDeferred declares the defer_loading tools (docs/gap-decisions.md
// 114). A deferred tool is left out of the tools section until a tool
// result's tool_reference block loads it; its declaration is then written
// at the end of that tool result, under "# Tools", so that the prompt of
// every earlier turn stays a prefix of this one. Every deferred tool may
// be called (calls are parsed with its schema). When the generation is
// constrained (tool_choice any or tool, a strict tool), or the request
// relies on Anthropic's tool search server tool, which the gateway cannot
// run, deferred tools are declared with the others, and reported.
func (m *messagesReply) declareDeferred(checkMarkers bool) *apiError {
	r := m.req
	if checkMarkers {
		// The deferred tools' schemas reach the prompt too, in a tool
		// result or the tools section, after checkRequestMarkers ran.
		for _, d := range m.deferred {
			if uses := harmony.MarkerUses(nil, &harmony.Options{Tools: []harmony.Tool{d.tool}}); len(uses) > 0 {
				u := uses[0]
				u.Path = d.path + strings.TrimPrefix(u.Path, "tools[0]")
				return markerError(u)
			}
		}
	}
	byName := make(map[string]*deferredTool, len(m.deferred))
	for i := range m.deferred {
		byName[m.deferred[i].tool.Function.Name] = &m.deferred[i]
	}
	for _, l := range m.loads {
		if byName[l.name] != nil {
			continue
		}
		if !hasTool(r.opts.Tools, l.name) && !r.toolsOff {
			return paramError(l.path+".tool_name", "invalid_block", quoteText(l.name)+" names no tool in tools")
		}
	}
	if len(m.deferred) == 0 || r.toolsOff {
		return nil
	}
	full := m.serverToolSearch || r.constraint.choice == grammar.Required || r.constraint.choice == grammar.Named
	for _, d := range m.deferred {
		full = full || d.strict
	}
	if full {
		why := "declared with the other tools: the generation is constrained, and its grammar must know every tool it may call"
		if m.serverToolSearch {
			why = "declared with the other tools: the tool search server tool that would load it is one this gateway cannot run"
		}
		for _, d := range m.deferred {
			r.opts.Tools = append(r.opts.Tools, d.tool)
			r.constraint.strict = append(r.constraint.strict, d.strict)
			r.constraint.toolSchemas = append(r.constraint.toolSchemas, d.path+".input_schema")
			r.report(d.path+".defer_loading", unhonouredDeferredTool, why)
		}
		r.parseTools = r.opts.Tools
		return nil
	}
	r.parseTools = append(r.parseTools[:len(r.parseTools):len(r.parseTools)], toolsOf(m.deferred)...)
	for _, l := range m.loads {
		d := byName[l.name]
		if d == nil {
			continue
		}
		decl, err := harmony.DeclareTool(d.tool)
		if err != nil {
			return harmonyError(d.path, "invalid_tool", err)
		}
		msg := &r.messages[l.message]
		if msg.Content != "" {
			msg.Content += "\n\n"
		}
		msg.Content += "# Tools\n\n" + decl
	}
	return nil
}

func hasTool(tools []harmony.Tool, name string) bool {
	for i := range tools {
		if tools[i].Function.Name == name {
			return true
		}
	}
	return false
}

func toolsOf(ds []deferredTool) []harmony.Tool {
	out := make([]harmony.Tool, len(ds))
	for i := range ds {
		out[i] = ds[i].tool
	}
	return out
}

// dropBillingHeader returns system without its first block when that is
// a text block holding Claude Code's billing header, and whether it was.
func dropBillingHeader(system json.RawMessage) (json.RawMessage, bool) {
	if isNull(system) || system[0] != '[' {
		return system, false
	}
	blocks, ok := rawElements(system)
	if !ok || len(blocks) == 0 {
		return system, false
	}
	var first contentBlock
	if decodeBody(blocks[0], &first) != nil || first.Type != "text" || first.Text == nil ||
		!strings.HasPrefix(strings.TrimSpace(*first.Text), billingHeaderPrefix) {
		return system, false
	}
	rest := [][]byte{}
	for _, b := range blocks[1:] {
		rest = append(rest, b)
	}
	return json.RawMessage("[" + string(bytes.Join(rest, []byte(","))) + "]"), true
}

// decodeAgentFields reads metadata and context_management.
// metadata.user_id names the conversation to the router
// (clientConversationKey); context_management edits that keep what Beam
// needs are honoured, the others reported, since the gateway applies none
// (docs/gap-decisions.md 116).
func (m *messagesReply) decodeAgentFields(mb *messagesBody) *apiError {
	r := m.req
	if !isNull(mb.Metadata) {
		if mb.Metadata[0] != '{' {
			return paramError("metadata", "invalid_type", "must be an object, got "+kindOf(mb.Metadata))
		}
		var md map[string]json.RawMessage
		if err := json.Unmarshal(mb.Metadata, &md); err != nil {
			return paramJSONError("metadata", "invalid_type", err)
		}
		for _, k := range slices.Sorted(maps.Keys(md)) {
			v := md[k]
			if k != "user_id" {
				r.report("metadata."+k, unhonouredField, "accepted and not used")
				continue
			}
			id, err := rawString(v, "metadata.user_id")
			if err != nil {
				return err
			}
			r.convKey = clientConversationKey(id)
		}
	}
	if isNull(mb.ContextManagement) {
		return nil
	}
	var cm struct {
		Edits json.RawMessage `json:"edits"`
	}
	if mb.ContextManagement[0] != '{' || r.decodeMembers(mb.ContextManagement, &cm, "context_management") != nil {
		return paramError("context_management", "invalid_type", "must be an object such as {\"edits\": [...]}, got "+kindOf(mb.ContextManagement))
	}
	if isNull(cm.Edits) {
		return nil
	}
	edits, ok := rawElements(cm.Edits)
	if !ok {
		return paramError("context_management.edits", "invalid_type", "must be a list of edits, got "+kindOf(cm.Edits))
	}
	for i, raw := range edits {
		path := "context_management.edits[" + strconv.Itoa(i) + "]"
		var e struct {
			Type string          `json:"type"`
			Keep json.RawMessage `json:"keep"`
		}
		var unread unreadSet
		if len(raw) == 0 || raw[0] != '{' || decodeBodyUnread(raw, &e, &unread) != nil {
			return paramError(path, "invalid_type", "must be an edit object such as {\"type\": \"clear_thinking_20251015\", \"keep\": \"all\"}")
		}
		switch {
		case strings.HasPrefix(e.Type, "clear_thinking_") && string(bytes.TrimSpace(e.Keep)) == `"all"`:
			// Keeping every turn's thinking is what Beam needs (page:
			// Reasoning across turns): honoured as it stands. Its other
			// members are not read.
			r.noteMembers(path, false, &unread)
		case strings.HasPrefix(e.Type, "clear_thinking_"):
			r.report(path, unhonouredContextManagement, "not applied: every earlier turn's thinking is kept, since Beam's output degrades without it "+
				"and clearing it would change the prompt of earlier turns (the engine's prefix cache)")
		case strings.HasPrefix(e.Type, "clear_tool_uses_"):
			r.report(path, unhonouredContextManagement, "not applied: tool results are kept as sent; clearing them would change the prompt of earlier turns "+
				"(the engine's prefix cache); clear them in the client")
		default:
			r.report(path, unhonouredContextManagement, "not applied: "+quoteText(e.Type)+" is an edit this gateway does not know")
		}
	}
	return nil
}
