package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/jsonpath"
)

// The Anthropic Messages API (POST /v1/messages): requests decoded into a
// Beam conversation. Replies are written by messages_reply.go.

// messagesEndpoint is POST /v1/messages.
var messagesEndpoint = &endpoint{
	name:     "messages",
	path:     "/v1/messages",
	idPrefix: "msg_",
	decode: func(s *Server, body []byte, owner string) (reply, *apiError) {
		mr, err := decodeMessagesRequest(body, s, false, owner)
		if err != nil {
			return nil, err
		}
		return mr, nil
	},
	writeError: writeAnthropicError,
}

// messagesBody is the part of a Messages request the gateway reads.
// Values are kept raw so that each can be checked with an error naming it.
type messagesBody struct {
	Model      json.RawMessage `json:"model"`
	MaxTokens  json.RawMessage `json:"max_tokens"`
	System     json.RawMessage `json:"system"`
	Messages   json.RawMessage `json:"messages"`
	Tools      json.RawMessage `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
	samplingBody
	StopSequences json.RawMessage `json:"stop_sequences"`
	Stream        json.RawMessage `json:"stream"`
	Thinking      json.RawMessage `json:"thinking"`
	OutputConfig  json.RawMessage `json:"output_config"`
	// OutputFormat is the structured outputs beta's name for
	// output_config.format.
	OutputFormat      json.RawMessage `json:"output_format"`
	Metadata          json.RawMessage `json:"metadata"`
	ContextManagement json.RawMessage `json:"context_management"`
	// Thread is the message threads beta's (threads.go).
	Thread json.RawMessage `json:"thread"`
}

// anthropicMessage is one entry of messages.
type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// ClearAt is a system message's: "next_user_message" shows it only
	// until a later user message (clearedSystem).
	ClearAt json.RawMessage `json:"clear_at"`
}

// contentBlock is one content block of a message or a tool result, of any
// type; which fields count depends on Type.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Thinking  *string         `json:"thinking"`
	Signature *string         `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	// IsError marks a failed tool's result, which renders like any
	// other: its content says what failed (docs/gap-decisions.md 111).
	IsError json.RawMessage `json:"is_error"`
	// ToolName is a tool_reference block's tool, which the block loads.
	ToolName string `json:"tool_name"`
}

// blockMembers are the members each block type has: a member of
// contentBlock set on a block of a type that does not have it is not
// read, and is reported as such (foreignMembers).
var blockMembers = map[string][]string{
	"text":                   {"text"},
	"thinking":               {"thinking", "signature"},
	"redacted_thinking":      {},
	"tool_use":               {"id", "name", "input"},
	"server_tool_use":        {"id", "name", "input"},
	"tool_result":            {"tool_use_id", "content", "is_error"},
	"web_search_tool_result": {"tool_use_id", "content"},
	"web_fetch_tool_result":  {"tool_use_id", "content"},
	"tool_reference":         {"tool_name"},
}

// foreignMembers calls note with each member b holds that its type does
// not have (a text block's input, say): decoded into the union of every
// type's fields, and read by none. A type the gateway does not take is
// refused whole, so it has none.
func (b *contentBlock) foreignMembers(note func(member string)) {
	own, known := blockMembers[b.Type]
	if !known {
		return
	}
	foreign(own, note,
		heldMember{"text", b.Text != nil}, heldMember{"thinking", b.Thinking != nil}, heldMember{"signature", b.Signature != nil},
		heldMember{"id", b.ID != ""}, heldMember{"name", b.Name != ""}, heldMember{"input", !isNull(b.Input)},
		heldMember{"tool_use_id", b.ToolUseID != ""}, heldMember{"content", !isNull(b.Content)}, heldMember{"tool_name", b.ToolName != ""},
		heldMember{"is_error", !isNull(b.IsError)})
}

// heldMember is a member of a struct that decodes several types of
// object, and whether the decoded object held it.
type heldMember struct {
	name string
	held bool
}

// foreign calls note with each member held that own, the members of the
// object's type, does not list.
func foreign(own []string, note func(member string), members ...heldMember) {
	for _, m := range members {
		if m.held && !slices.Contains(own, m.name) {
			note(m.name)
		}
	}
}

// noteForeignBlockMembers notes the foreign members of blocks, the list
// at path whose first block is path[first].
func (r *request) noteForeignBlockMembers(path string, first int, blocks []contentBlock) {
	for j := range blocks {
		blocks[j].foreignMembers(func(member string) {
			r.noteMember(path + "[" + strconv.Itoa(first+j) + "]." + member)
		})
	}
}

// anthropicTool is one entry of tools.
type anthropicTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Strict      json.RawMessage `json:"strict"`
	// DeferLoading keeps the tool out of the declarations until a
	// tool_reference block in a tool result loads it (tool search).
	DeferLoading json.RawMessage `json:"defer_loading"`
	// EagerInputStreaming asks for the tool's input streamed as it is
	// written, which is how the gateway streams every call's input.
	EagerInputStreaming json.RawMessage `json:"eager_input_streaming"`
}

// messagesReply is a decoded Messages request with what its reply needs.
type messagesReply struct {
	req *request
	cfg *Config
	// threadBase is the number of messages of a continued thread before
	// the request's own (threads.go).
	threadBase int
	// origin maps each rendered message to the request path it came from,
	// for render errors.
	origin []string
	// deferred are the defer_loading tools, declared when a tool result
	// loads them (declareDeferred).
	deferred []deferredTool
	// loads are the tool results' tool_reference blocks.
	loads []toolLoad
	// serverToolSearch is set when the request has Anthropic's tool search
	// server tool, which the gateway cannot run.
	serverToolSearch bool
}

func (m *messagesReply) request() *request { return m.req }

// decodeMessagesRequest reads a Messages request body. forCount is
// /v1/messages/count_tokens, which has no max_tokens or stream. Every error
// is a 400 that names the offending field.
func decodeMessagesRequest(body []byte, s *Server, forCount bool, owner string) (*messagesReply, *apiError) {
	cfg := &s.cfg
	if !utf8.Valid(body) {
		return nil, bodyError("invalid_utf8", "not valid UTF-8")
	}
	var mb messagesBody
	unread, more, jerr := decodeRequestBody(body, &mb)
	if jerr != nil {
		return nil, bodyError("invalid_json", jsonErrorText(jerr))
	}
	r := &request{opts: newOptions(), constraint: newConstraint()}
	m := &messagesReply{req: r, cfg: cfg}
	if err := m.decodeThread(&mb, s, owner); err != nil {
		return nil, err
	}
	var err *apiError
	if r.model, err = rawString(mb.Model, "model"); err != nil {
		return nil, err
	}
	if r.model == "" && cfg.Model == "" {
		return nil, paramError("model", "missing_model", "required (or start the server with --model)")
	}
	r.maxTokens = cfg.maxTokens()
	if n, set, err := rawInt(mb.MaxTokens, "max_tokens"); err != nil {
		return nil, err
	} else if set {
		if n < 1 {
			return nil, paramError("max_tokens", "invalid_value", "must be at least 1, got "+strconv.FormatInt(n, 10))
		}
		r.maxTokens, r.maxTokensParam = n, "max_tokens"
	}
	if err := r.decodeSampling(&mb.samplingBody, messagesSampling); err != nil {
		return nil, err
	}
	if r.stop, err = decodeStopSequences(mb.StopSequences); err != nil {
		return nil, err
	}
	if r.stream, _, err = rawBool(mb.Stream, "stream"); err != nil {
		return nil, err
	}
	if forCount {
		r.stream = false
	}
	if err := m.decodeThinking(mb.Thinking, mb.OutputConfig); err != nil {
		return nil, err
	}
	if err := m.decodeOutputFormat(mb.OutputConfig, mb.OutputFormat); err != nil {
		return nil, err
	}
	if err := m.decodeTools(mb.Tools, mb.ToolChoice); err != nil {
		return nil, err
	}
	if err := m.checkThreadTools(); err != nil {
		return nil, err
	}
	if err := m.decodeSystem(mb.System); err != nil {
		return nil, err
	}
	if err := m.decodeMessages(mb.Messages, s, owner); err != nil {
		return nil, err
	}
	if err := refuseLateInstructions(cfg, r.messages, m.origin, true); err != nil {
		return nil, err
	}
	if err := m.declareDeferred(!cfg.markersAllowed()); err != nil {
		return nil, err
	}
	if err := m.decodeAgentFields(&mb); err != nil {
		return nil, err
	}
	if aerr := checkRequestMarkers(r, cfg, m.origin); aerr != nil {
		return nil, aerr
	}
	r.opts.RequireReasoning = !cfg.AllowMissingThinking
	r.reportUnread(unread, more)
	return m, nil
}

// decodeStopSequences reads stop_sequences, a list of strings. Empty
// strings and the end markers are dropped, as for Chat Completions' stop.
func decodeStopSequences(raw json.RawMessage) ([]string, *apiError) {
	if isNull(raw) {
		return nil, nil
	}
	var list []string
	if raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
		return nil, paramError("stop_sequences", "invalid_type", "must be a list of strings, got "+kindOf(raw))
	}
	out := list[:0]
	for _, s := range list {
		if s != "" && !slices.Contains(engineStops[:], s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// thinkingBudgets maps a thinking budget to Beam's reasoning effort: the
// first label whose bound is above the budget (docs/serve.md, Messages API).
var thinkingBudgets = [...]struct {
	below int64
	label string
}{
	{2048, "minimal"}, {4096, "low"}, {8192, "medium"}, {16384, "high"}, {32768, "xhigh"},
}

// effortForBudget returns the effort label for budget_tokens.
func effortForBudget(budget int64) string {
	for _, b := range thinkingBudgets {
		if budget < b.below {
			return b.label
		}
	}
	return "max"
}

// decodeThinking reads thinking and output_config.effort into the
// reasoning effort. Beam always reasons: "disabled" asks for the least
// reasoning, and the thinking still comes back, since the next turn needs
// it. output_config.effort, when set, wins over a thinking budget.
func (m *messagesReply) decodeThinking(thinking, outputConfig json.RawMessage) *apiError {
	r := m.req
	if !isNull(thinking) {
		var t struct {
			Type         string          `json:"type"`
			BudgetTokens json.RawMessage `json:"budget_tokens"`
			Display      json.RawMessage `json:"display"`
		}
		if thinking[0] != '{' || r.decodeMembers(thinking, &t, "thinking") != nil {
			return paramError("thinking", "invalid_type", "must be an object such as {\"type\": \"enabled\", \"budget_tokens\": 8192}")
		}
		switch t.Type {
		case "enabled":
			n, set, err := rawInt(t.BudgetTokens, "thinking.budget_tokens")
			if err != nil {
				return err
			}
			if !set || n < 1 {
				return paramError("thinking.budget_tokens", "invalid_value", "required with type enabled, a positive integer")
			}
			r.opts.ReasoningEffort = harmony.EffortLabel(effortForBudget(n))
		case "disabled":
			r.opts.ReasoningEffort = harmony.EffortLabel("minimal")
		case "adaptive":
		case "between_tools":
			// Thinking only between tool calls (@anthropic-ai/sdk 1.17):
			// Beam reasons before every turn, at the effort it would
			// choose (gap decision 279).
			r.report("thinking.type", unhonouredField, "Beam reasons before every answer and call, not only between tool calls; read as \"adaptive\"")
		default:
			return paramError("thinking.type", "invalid_value", "must be enabled, disabled, adaptive or between_tools, got "+quoteText(t.Type))
		}
		if !isNull(t.Display) {
			display, err := rawString(t.Display, "thinking.display")
			if err != nil {
				return err
			}
			if display == "omitted" {
				// The text travels in the signature only: the next turn
				// still gets all of it (exchange.thinkingBlock).
				r.omitThinking = true
			} else {
				// Beam's thinking is not summarized, nor written as
				// progress updates apart from its reasoning: it is
				// returned whole.
				r.report("thinking.display", unhonouredField, "thinking is returned in full for display "+quoteText(display)+
					" (Beam writes no summary of it; \"omitted\" is honoured)")
			}
		}
	}
	if !isNull(outputConfig) {
		// format is decodeOutputFormat's.
		var oc struct {
			Effort json.RawMessage `json:"effort"`
			Format json.RawMessage `json:"format"`
		}
		if outputConfig[0] != '{' || r.decodeMembers(outputConfig, &oc, "output_config") != nil {
			return paramError("output_config", "invalid_type", "must be an object, got "+kindOf(outputConfig))
		}
		effort, err := rawString(oc.Effort, "output_config.effort")
		if err != nil {
			return err
		}
		switch effort {
		case "":
		case "low", "medium", "high", "xhigh", "max":
			r.opts.ReasoningEffort = harmony.EffortLabel(effort)
		default:
			return paramError("output_config.effort", "invalid_value", "must be low, medium, high, xhigh or max, got "+quoteText(effort))
		}
	}
	return nil
}

// decodeTools reads tools and tool_choice. none declares no tool; auto
// lets Beam choose; any, tool, strict tools and disable_parallel_tool_use
// constrain the generation (constrain.go), and disable_parallel_tool_use
// keeps the first call of an unconstrained one.
func (m *messagesReply) decodeTools(rawTools, rawChoice json.RawMessage) *apiError {
	tc, err := m.req.decodeAnthropicToolChoice(rawChoice)
	if err != nil {
		return err
	}
	return m.req.decodeToolList(rawTools, tc, m)
}

// readTool reads one entry of tools: a custom tool with its input_schema,
// or a server tool, which is run (web search), left out and reported, or
// refused.
func (m *messagesReply) readTool(ts *toolSet, path string, raw json.RawMessage) *apiError {
	r, cfg := m.req, m.cfg
	var t anthropicTool
	if len(raw) == 0 || raw[0] != '{' {
		return paramError(path, "invalid_tool", "must be an object, got "+kindOf(raw))
	}
	var unread unreadSet
	if err := decodeBodyUnread(raw, &t, &unread); err != nil {
		return paramJSONError(path, "invalid_tool", err)
	}
	if isAnthropicServerTool(t.Type) {
		if took, err := r.takeWebSearch(cfg, path, t.Type, raw, true); err != nil || took {
			return err
		}
		if cfg.RefuseHostedTools {
			return paramError(path+".type", "unsupported_tool", quoteText(t.Type)+
				" is a server tool (Anthropic runs it), which this gateway cannot run; leave it out, or start the server without --refuse-hosted-tools to have it left out and reported")
		}
		if strings.HasPrefix(t.Type, "tool_search_tool_") {
			m.serverToolSearch = true
		}
		r.report(path, unhonouredHostedTool, hostedToolWhy(t.Type))
		return nil
	}
	if t.Type != "" && t.Type != "custom" {
		return paramError(path+".type", "unsupported_tool", quoteText(t.Type)+
			" is an Anthropic-defined client tool, whose schema only Anthropic's API knows; declare it as a custom tool with an input_schema")
	}
	if t.Name == "" {
		return paramError(path+".name", "invalid_tool", "required")
	}
	schema := bytes.TrimSpace(t.InputSchema)
	if len(schema) == 0 || schema[0] != '{' {
		return paramError(path+".input_schema", "invalid_tool", "required, a JSON Schema object")
	}
	strict, _, err := rawBool(t.Strict, path+".strict")
	if err != nil {
		return err
	}
	deferred, _, err := rawBool(t.DeferLoading, path+".defer_loading")
	if err != nil {
		return err
	}
	if !isBool(t.EagerInputStreaming) {
		_, _, err := rawBool(t.EagerInputStreaming, path+".eager_input_streaming")
		return err
	}
	r.noteMembers(path, false, &unread) // a custom tool's: a server tool is read, or reported, as a whole
	tool := harmony.Tool{Type: "function", Function: harmony.Function{Name: t.Name, Description: t.Description, Parameters: schema}}
	if deferred {
		m.deferred = append(m.deferred, deferredTool{tool: tool, path: path, strict: strict})
		return nil
	}
	ts.add(tool, strict, path+".input_schema")
	return nil
}

// decodeOutputFormat reads the response format: output_config.format, or
// output_format (the structured outputs beta), {"type": "json_schema",
// "schema": ...}; both at once is a 400.
func (m *messagesReply) decodeOutputFormat(outputConfig, outputFormat json.RawMessage) *apiError {
	var oc struct {
		Format json.RawMessage `json:"format"`
	}
	if !isNull(outputConfig) && outputConfig[0] == '{' {
		_ = json.Unmarshal(outputConfig, &oc)
	}
	raw, path := oc.Format, "output_config.format"
	if !isNull(outputFormat) {
		if !isNull(raw) {
			return paramError("output_format", "invalid_value", "set output_config.format or output_format, not both")
		}
		raw, path = outputFormat, "output_format"
	}
	if isNull(raw) {
		return nil
	}
	var t struct {
		Type string `json:"type"`
	}
	if raw[0] == '{' && json.Unmarshal(raw, &t) == nil && t.Type != "json_schema" {
		return paramError(path+".type", "invalid_value", "must be json_schema, got "+quoteText(t.Type))
	}
	format, schemaPath, err := m.req.decodeFormat(raw, path, false)
	if err != nil {
		return err
	}
	if format != nil {
		// Anthropic's JSON outputs always follow their schema.
		format.Strict = true
	}
	k := &m.req.constraint
	k.format, k.formatParam, k.formatSchema = format, path, schemaPath
	return nil
}

// decodeSystem reads system: a string or a list of text blocks, joined
// with "\n". Claude Code's billing-header block is left out and reported
// (docs/gap-decisions.md 115).
func (m *messagesReply) decodeSystem(raw json.RawMessage) *apiError {
	raw, dropped := dropBillingHeader(raw)
	if dropped {
		m.req.report("system[0]", unhonouredBillingHeader, "Claude Code's x-anthropic-billing-header block is metadata for Anthropic's billing, "+
			"not instructions, and changes with each client version: left out of the prompt")
	}
	first := 0 // the index in the request of raw's first block
	if dropped {
		first = 1
	}
	text, err := m.req.blocksText(raw, "system", first)
	if err != nil {
		return err
	}
	if text != "" {
		m.add("system", harmony.Message{Role: harmony.RoleSystem, Content: text})
	}
	return nil
}

// blocksText reads content that is a string or a list of text blocks,
// noting the blocks' members it does not read. The list's first block is
// path[first] of the request.
func (r *request) blocksText(raw json.RawMessage, path string, first int) (string, *apiError) {
	if isNull(raw) {
		return "", nil
	}
	switch raw[0] {
	case '"':
		return rawString(raw, path)
	case '[':
		var blocks []contentBlock
		var unread unreadSet
		if err := decodeBodyUnread(raw, &blocks, &unread); err != nil {
			return "", paramError(path, "invalid_type", "must be a string or a list of text blocks ("+jsonErrorText(err)+")")
		}
		for _, u := range unread.list {
			r.noteMember(jsonpath.Key(path+"["+strconv.Itoa(first+u.elem)+"]", u.key))
		}
		r.unreadMore = r.unreadMore || unread.more
		r.noteForeignBlockMembers(path, first, blocks)
		var b strings.Builder
		for j := range blocks {
			bp := path + "[" + strconv.Itoa(first+j) + "]"
			if blocks[j].Type != "text" {
				return "", unsupportedBlock(bp, blocks[j].Type)
			}
			if blocks[j].Text == nil {
				return "", paramError(bp+".text", "invalid_block", "required, a string")
			}
			if j > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(*blocks[j].Text)
		}
		return b.String(), nil
	}
	return "", paramError(path, "invalid_type", "must be a string or a list of text blocks, got "+kindOf(raw))
}

func unsupportedBlock(path, typ string) *apiError {
	return paramError(path+".type", "unsupported_block", quoteText(typ)+
		" blocks are not supported here; Beam reads text, and this gateway takes text, thinking, redacted_thinking, tool_use and tool_result blocks")
}

// add appends a rendered message and the request path it came from.
func (m *messagesReply) add(path string, msg harmony.Message) {
	m.req.messages = append(m.req.messages, msg)
	m.origin = append(m.origin, path)
}

// decodeMessages reads messages. A user message becomes one tool message
// per tool_result block and a user message for its text; consecutive
// assistant messages form one turn: its thinking (each block's signature
// checked), then its text or its tool_use calls.
func (m *messagesReply) decodeMessages(raw json.RawMessage, s *Server, owner string) *apiError {
	var msgs []json.RawMessage
	if !isNull(raw) {
		msgs, _ = rawElements(raw)
	}
	if len(msgs) == 0 {
		return paramError("messages", "missing_messages", "required, a non-empty list of messages")
	}
	if m.req.thread != nil {
		m.req.thread.messages = msgs
	}
	allow := s.cfg.AllowMissingThinking
	lastAssistant := -1 // index in m.req.messages of the open assistant turn
	lastUser := -2      // index in msgs of the last user message (-2: not looked for yet)
	for i, rm := range msgs {
		path := m.messagePath(i)
		var am anthropicMessage
		if len(rm) == 0 || rm[0] != '{' {
			return paramError(path, "invalid_message", "must be an object, got "+kindOf(rm))
		}
		if err := m.req.decodeMembers(rm, &am, path); err != nil {
			return paramJSONError(path, "invalid_message", err)
		}
		var blocks []contentBlock
		switch {
		case isNull(am.Content):
			return paramError(path+".content", "invalid_message", "required")
		case am.Content[0] == '"':
			text, ok := plainString(am.Content)
			if !ok {
				_ = json.Unmarshal(am.Content, &text)
			}
			blocks = []contentBlock{{Type: "text", Text: &text}}
		case am.Content[0] == '[':
			if err := m.req.decodeMembersIn(am.Content, &blocks, path, ".content"); err != nil {
				return badRequest(path+".content", "invalid_message", path+".content"+jsonPathText(err))
			}
			m.req.noteForeignBlockMembers(path+".content", 0, blocks)
		default:
			return paramError(path+".content", "invalid_message", "must be a string or a list of content blocks, got "+kindOf(am.Content))
		}
		if am.Role != "system" && !isNull(am.ClearAt) {
			return paramError(path+".clear_at", "invalid_value", "only a system message has one")
		}
		switch am.Role {
		case "user":
			lastAssistant = -1
			if err := m.userMessage(path, blocks); err != nil {
				return err
			}
		case "assistant":
			if i == len(msgs)-1 {
				return paramError(path, "unsupported_prefill", "a final assistant message (a prefill) is not supported; Beam starts every turn with its reasoning")
			}
			if lastAssistant < 0 {
				m.add(path, harmony.Message{Role: harmony.RoleAssistant})
				lastAssistant = len(m.req.messages) - 1
			}
			if hasSearchBlocks(blocks) {
				// The hosted web search's blocks (websearch_history.go).
				if err := m.assistantSearchMessage(path, blocks, &lastAssistant, s.signer, allow); err != nil {
					return err
				}
				continue
			}
			if err := m.assistantMessage(path, blocks, &m.req.messages[lastAssistant], s.signer, allow); err != nil {
				return err
			}
		case "system":
			// Instructions (Claude Code sends its environment so, with
			// the beta mid-conversation-tool-changes): at the start they
			// join the system field's; later ones are placed by
			// harmony's rule (docs/gap-decisions.md 110), or refused.
			lastAssistant = -1
			cleared, err := clearedSystem(am.ClearAt, path, i, msgs, &lastUser)
			if err != nil {
				return err
			}
			if cleared {
				continue
			}
			text, err := m.req.blocksText(am.Content, path+".content", 0)
			if err != nil {
				return err
			}
			m.add(path, harmony.Message{Role: harmony.RoleSystem, Content: text})
		default:
			return paramError(path+".role", "invalid_role", "must be user, assistant or system, got "+quoteText(am.Role))
		}
	}
	s.restoreReasoning(m.req, owner, m.req.messages, func(i int) string { return m.origin[i] })
	if allow {
		return nil
	}
	for i := range m.req.messages {
		if msg := &m.req.messages[i]; msg.Role == harmony.RoleAssistant && msg.Reasoning == "" {
			return paramError(m.origin[i], "missing_reasoning", "the assistant turn has no thinking block. "+
				"Dropping reasoning from earlier turns degrades this model's output: send back the thinking blocks this server returned, "+
				"with their signatures, or start the server with --allow-missing-thinking")
		}
	}
	return nil
}

// clearedSystem reports whether the system message msgs[i] (at path),
// whose clear_at is raw, is left out: with "next_user_message" it shows
// only until a later user message, so it is left out when one follows;
// "never" (the default) keeps it. lastUser caches the index of the last
// user message of msgs (-1: none), found from the end the first time.
func clearedSystem(raw json.RawMessage, path string, i int, msgs []json.RawMessage, lastUser *int) (bool, *apiError) {
	if isNull(raw) {
		return false, nil
	}
	v, err := rawString(raw, path+".clear_at")
	if err != nil {
		return false, err
	}
	switch v {
	case "never":
		return false, nil
	case "next_user_message":
	default:
		return false, paramError(path+".clear_at", "invalid_value", `must be "next_user_message" or "never", got `+quoteText(v))
	}
	if *lastUser == -2 {
		*lastUser = -1
		for j := len(msgs) - 1; j > i; j-- {
			var role struct {
				Role string `json:"role"`
			}
			if json.Unmarshal(msgs[j], &role) == nil && role.Role == "user" {
				*lastUser = j
				break
			}
		}
	}
	return *lastUser > i, nil
}

// jsonPathText words a decoding error of a list of blocks as a path
// suffix: "[2].text: must be string, got number".
func jsonPathText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return "." + te.Field + ": must be " + jsonKindName(te.Type.Kind().String()) + ", got " + te.Value
	}
	return ": " + jsonErrorText(err)
}

func (m *messagesReply) userMessage(path string, blocks []contentBlock) *apiError {
	var text strings.Builder
	texts := 0
	flush := func() {
		if texts > 0 {
			m.add(path, harmony.Message{Role: harmony.RoleUser, Content: text.String()})
			text.Reset()
			texts = 0
		}
	}
	for j := range blocks {
		b := &blocks[j]
		bp := path + ".content[" + strconv.Itoa(j) + "]"
		switch b.Type {
		case "text":
			if b.Text == nil {
				return paramError(bp+".text", "invalid_block", "required, a string")
			}
			if texts > 0 {
				text.WriteByte('\n')
			}
			text.WriteString(*b.Text)
			texts++
		case "tool_result":
			flush()
			if b.ToolUseID == "" {
				return paramError(bp+".tool_use_id", "invalid_block", "required, the id of the tool_use block it answers")
			}
			if !isBool(b.IsError) {
				_, _, err := rawBool(b.IsError, bp+".is_error")
				return err
			}
			content, refs, err := m.req.toolResultText(b.Content, bp+".content")
			if err != nil {
				return err
			}
			m.add(bp, harmony.Message{Role: harmony.RoleTool, ToolCallID: b.ToolUseID, Content: content})
			for _, ref := range refs {
				m.loads = append(m.loads, toolLoad{message: len(m.req.messages) - 1, name: ref.name, path: ref.path})
			}
		default:
			return unsupportedBlock(bp, b.Type)
		}
	}
	flush()
	return nil
}

// assistantMessage adds an assistant message's blocks to the turn t.
// Thinking must carry this server's signature unless allow is set.
func (m *messagesReply) assistantMessage(path string, blocks []contentBlock, t *harmony.Message, sg *signer, allow bool) *apiError {
	var texts []string
	for j := range blocks {
		b := &blocks[j]
		bp := path + ".content[" + strconv.Itoa(j) + "]"
		switch b.Type {
		case "thinking":
			if b.Thinking == nil {
				return paramError(bp+".thinking", "invalid_block", "required, a string")
			}
			text := *b.Thinking
			if b.Signature != nil && strings.HasPrefix(*b.Signature, sealPrefix) {
				// A block returned with thinking.display "omitted": its
				// text is in its signature.
				sealed, ok := sg.open(*b.Signature)
				if !ok || text != "" && text != sealed {
					return paramError(bp+".signature", "invalid_thinking_signature", "not a signature this server wrote, or altered, or not of the thinking text beside it; send thinking blocks back exactly as this server returned them")
				}
				text = sealed
			} else if !allow && (b.Signature == nil || !sg.verify(text, *b.Signature)) {
				return paramError(bp+".signature", "invalid_thinking_signature", "missing or not this server's signature of the thinking text; send thinking blocks back exactly as this server returned them "+
					"(edited or foreign reasoning misleads the model), or start the server with --allow-missing-thinking")
			}
			if t.Reasoning != "" && text != "" {
				t.Reasoning += "\n\n"
			}
			t.Reasoning += text
		case "redacted_thinking":
			// This server never writes redacted thinking: it is another
			// model's, and cannot be read.
			if !allow {
				return badRequest(bp+".type", "invalid_thinking_signature", bp+": redacted_thinking was not written by this server and cannot be read; "+
					"leave it out and start the server with --allow-missing-thinking")
			}
			// The path built again: bp, kept, would be allocated for every block.
			m.req.report(path+".content["+strconv.Itoa(j)+"]", unhonouredField, "redacted thinking is another model's and cannot be read: left out (--allow-missing-thinking)")
		case "text":
			if b.Text == nil {
				return paramError(bp+".text", "invalid_block", "required, a string")
			}
			if strings.TrimSpace(*b.Text) != "" {
				texts = append(texts, *b.Text)
			}
		case "tool_use":
			if b.Name == "" {
				return paramError(bp+".name", "invalid_block", "required")
			}
			input := bytes.TrimSpace(b.Input)
			if len(input) == 0 || input[0] != '{' {
				return paramError(bp+".input", "invalid_block", "must be an object, got "+kindOf(input))
			}
			t.ToolCalls = append(t.ToolCalls, harmony.ToolCall{ID: b.ID, Type: "function",
				Function: harmony.FunctionCall{Name: b.Name, Arguments: input}})
		default:
			return unsupportedBlock(bp, b.Type)
		}
	}
	if len(texts) > 0 {
		if t.Content != "" {
			t.Content += "\n\n"
		}
		t.Content += strings.Join(texts, "\n\n")
	}
	if t.Content != "" && len(t.ToolCalls) > 0 {
		return paramError(path+".content", "invalid_message", "an assistant turn with tool_use blocks must not have text blocks; "+
			"Beam writes no commentary before its calls")
	}
	return nil
}
