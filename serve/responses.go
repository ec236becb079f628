package serve

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
)

// The OpenAI Responses API (POST /v1/responses), stateless: the client
// sends the whole conversation as input items every time, reasoning items
// included. Replies are written by responses_reply.go.

// responsesEndpoint is POST /v1/responses.
var responsesEndpoint = &endpoint{
	name:     "responses",
	path:     "/v1/responses",
	idPrefix: "resp_",
	decode: func(s *Server, body []byte, owner string) (reply, *apiError) {
		rr, err := decodeResponsesRequest(body, s, owner)
		if err != nil {
			return nil, err
		}
		return rr, nil
	},
	writeError: writeError,
}

// responsesBody is the part of a Responses request the gateway reads.
type responsesBody struct {
	Model           json.RawMessage `json:"model"`
	Input           json.RawMessage `json:"input"`
	Instructions    json.RawMessage `json:"instructions"`
	Tools           json.RawMessage `json:"tools"`
	ToolChoice      json.RawMessage `json:"tool_choice"`
	Reasoning       json.RawMessage `json:"reasoning"`
	MaxOutputTokens json.RawMessage `json:"max_output_tokens"`
	samplingBody
	Stream             json.RawMessage `json:"stream"`
	ParallelToolCalls  json.RawMessage `json:"parallel_tool_calls"`
	Store              json.RawMessage `json:"store"`
	PreviousResponseID json.RawMessage `json:"previous_response_id"`
	Conversation       json.RawMessage `json:"conversation"`
	// Prompt is a stored prompt template of OpenAI's platform.
	Prompt     json.RawMessage `json:"prompt"`
	Background json.RawMessage `json:"background"`
	Text       json.RawMessage `json:"text"`
	// Fields Codex sends (issue 32): read by decodeAgentFields.
	PromptCacheKey json.RawMessage `json:"prompt_cache_key"`
	Include        json.RawMessage `json:"include"`
	ClientMetadata json.RawMessage `json:"client_metadata"`
	Metadata       json.RawMessage `json:"metadata"`
}

// inputItem is one input item, of any type.
type inputItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	Summary          json.RawMessage `json:"summary"`
	EncryptedContent *string         `json:"encrypted_content"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Namespace        string          `json:"namespace"`
	Arguments        json.RawMessage `json:"arguments"`
	Output           json.RawMessage `json:"output"`
	// Action is a web_search_call's action (websearch_history.go).
	Action json.RawMessage `json:"action"`
	// ID and Status are identifiers of the item, not requests
	// (docs/gap-decisions.md 111): read, and used for nothing.
	ID     json.RawMessage `json:"id"`
	Status json.RawMessage `json:"status"`
}

// itemMembers are the members each input item type has besides type,
// id and status: a member of inputItem set on an item of a type that
// does not have it is not read, and is reported (foreignMembers).
var itemMembers = map[string][]string{
	"message":              {"role", "content"},
	"reasoning":            {"summary", "content", "encrypted_content"},
	"function_call":        {"call_id", "name", "namespace", "arguments"},
	"function_call_output": {"call_id", "output"},
	"web_search_call":      {"action"},
}

// foreignMembers calls note with each member it holds that its type
// (typ: a message's may be left out) does not have. A type the gateway
// does not take is refused whole, so it has none.
func (it *inputItem) foreignMembers(typ string, note func(member string)) {
	own, known := itemMembers[typ]
	if !known {
		return
	}
	foreign(own, note,
		heldMember{"role", it.Role != ""}, heldMember{"content", !isNull(it.Content)}, heldMember{"summary", !isNull(it.Summary)},
		heldMember{"encrypted_content", it.EncryptedContent != nil}, heldMember{"call_id", it.CallID != ""}, heldMember{"name", it.Name != ""},
		heldMember{"namespace", it.Namespace != ""}, heldMember{"arguments", !isNull(it.Arguments)}, heldMember{"output", !isNull(it.Output)},
		heldMember{"action", !isNull(it.Action)})
}

// textPart is a part of a message's content, a reasoning item's content
// or summary, or a function call's output.
type textPart struct {
	Type string  `json:"type"`
	Text *string `json:"text"`
}

// responsesReply is a decoded Responses request with what its reply
// echoes.
type responsesReply struct {
	req    *request
	cfg    *Config
	origin []string
	// Echoed in the response object, as sent (null when absent).
	instructions    string
	tools           json.RawMessage
	toolChoice      json.RawMessage
	effort          string
	maxOutputTokens json.RawMessage
	parallel        bool
	// textFormat is text.format as sent; nil: {"type": "text"}.
	textFormat json.RawMessage
	// namespaces maps the name of each tool declared from a namespace
	// tool to its namespace, which its calls carry.
	namespaces map[string]string
	// declared maps each function tool's name to its path, while the
	// tools are decoded.
	declared map[string]string
	// previous is the previous_response_id continued, "" for none; the
	// first inputBase input items are the conversation it holds
	// (previous.go).
	previous  string
	inputBase int
	// store is the store echoed: the memory keeps the response.
	store bool
}

func (rr *responsesReply) request() *request { return rr.req }

func (rr *responsesReply) mapPath(e *apiError) *apiError {
	return mapMessagePath(e, rr.origin, "reasoning.effort")
}

func (rr *responsesReply) add(path string, msg harmony.Message) {
	rr.req.messages = append(rr.req.messages, msg)
	rr.origin = append(rr.origin, path)
}

// decodeResponsesRequest reads a Responses request body. Every error is a
// 400 that names the offending field.
func decodeResponsesRequest(body []byte, s *Server, owner string) (*responsesReply, *apiError) {
	cfg := &s.cfg
	if !utf8.Valid(body) {
		return nil, bodyError("invalid_utf8", "not valid UTF-8")
	}
	var rb responsesBody
	unread, more, jerr := decodeRequestBody(body, &rb)
	if jerr != nil {
		return nil, bodyError("invalid_json", jsonErrorText(jerr))
	}
	r := &request{opts: newOptions(), constraint: newConstraint()}
	rr := &responsesReply{req: r, cfg: cfg, parallel: true}
	var err *apiError
	if r.model, err = rawString(rb.Model, "model"); err != nil {
		return nil, err
	}
	if r.model == "" && cfg.Model == "" {
		return nil, paramError("model", "missing_model", "required (or start the server with --model)")
	}
	if store, set, err := rawBool(rb.Store, "store"); err != nil {
		return nil, err
	} else if store && s.conversations == nil {
		return nil, statelessError("store", "store: true asks the server to keep the response, and this gateway is stateless; send store: false (or leave it out), "+
			"or start the gateway with --reasoning-memory-bytes, which keeps the responses it writes")
	} else if s.conversations != nil && (store || !set) {
		// Kept for previous_response_id (previous.go).
		rr.store = true
		r.kept = &responseTurn{}
	}
	if !isNull(rb.Conversation) {
		return nil, statelessError("conversation", "conversation: this gateway keeps no conversations")
	}
	if !isNull(rb.Prompt) {
		// Its text, which the model would read, lives on OpenAI's
		// platform: left out, the prompt would silently lack it.
		return nil, paramError("prompt", "unsupported_parameter", "a stored prompt template is kept on OpenAI's platform, and this gateway has none; "+
			"send its text as instructions, with its variables filled in")
	}
	if err := rr.decodePrevious(&rb, s, owner); err != nil {
		return nil, err
	}
	if r.kept != nil {
		r.kept.parent = rr.previous
	}
	if bg, _, err := rawBool(rb.Background, "background"); err != nil {
		return nil, err
	} else if bg {
		return nil, paramError("background", "unsupported_parameter", "not supported; this gateway is stateless, so stream or wait for the response")
	}
	r.maxTokens = cfg.maxTokens()
	if n, set, err := rawInt(rb.MaxOutputTokens, "max_output_tokens"); err != nil {
		return nil, err
	} else if set {
		if n < 1 {
			return nil, paramError("max_output_tokens", "invalid_value", "must be at least 1, got "+strconv.FormatInt(n, 10))
		}
		r.maxTokens, r.maxTokensParam = n, "max_output_tokens"
		rr.maxOutputTokens = rb.MaxOutputTokens
	}
	if err := r.decodeSampling(&rb.samplingBody, responsesSampling); err != nil {
		return nil, err
	}
	if r.stream, _, err = rawBool(rb.Stream, "stream"); err != nil {
		return nil, err
	}
	if v, set, err := rawBool(rb.ParallelToolCalls, "parallel_tool_calls"); err != nil {
		return nil, err
	} else if set && !v {
		rr.parallel = false
		r.maxCalls = 1
		r.constraint.parallel = false
	}
	if !isNull(rb.Reasoning) {
		var rs struct {
			Effort  json.RawMessage `json:"effort"`
			Summary json.RawMessage `json:"summary"`
		}
		if rb.Reasoning[0] != '{' || r.decodeMembers(rb.Reasoning, &rs, "reasoning") != nil {
			return nil, paramError("reasoning", "invalid_type", "must be an object such as {\"effort\": \"medium\"}, got "+kindOf(rb.Reasoning))
		}
		if rr.effort, err = rawString(rs.Effort, "reasoning.effort"); err != nil {
			return nil, err
		}
		if rr.effort != "" {
			// The renderer reports a label it does not know ("none") with
			// the page's text.
			r.opts.ReasoningEffort = harmony.EffortLabel(rr.effort)
		}
		if summary, err := rawString(rs.Summary, "reasoning.summary"); err != nil {
			return nil, err
		} else if summary != "" {
			r.report("reasoning.summary", unhonouredField, "no summary is written: the reasoning item carries the whole reasoning as reasoning_text content")
		}
	}
	if err := rr.decodeTools(rb.Tools, rb.ToolChoice); err != nil {
		return nil, err
	}
	if err := rr.decodeText(rb.Text); err != nil {
		return nil, err
	}
	if rr.instructions, err = rawString(rb.Instructions, "instructions"); err != nil {
		return nil, err
	}
	if rr.instructions != "" {
		rr.add("instructions", harmony.Message{Role: harmony.RoleSystem, Content: rr.instructions})
	}
	if err := rr.decodeInput(rb.Input, s, owner); err != nil {
		return nil, err
	}
	if err := rr.decodeAgentFields(&rb); err != nil {
		return nil, err
	}
	if aerr := checkRequestMarkers(r, cfg, rr.origin); aerr != nil {
		return nil, mapToolPath(aerr, r.constraint.toolSchemas)
	}
	r.opts.RequireReasoning = !cfg.AllowMissingThinking
	r.reportUnread(unread, more)
	return rr, nil
}

// referenceHint is the error for an item_reference the gateway can't
// read: without the memory, how a client sends the items instead; with
// it, why the memory may not hold the item.
func (s *Server) referenceHint(path string) string {
	if s.memory == nil {
		return path + ": item_reference needs stored items, and this gateway is stateless (set store: false in the client, so that it sends the items themselves, or start the gateway with --reasoning-memory-bytes, to read references to the items it wrote)"
	}
	return path + ": item_reference names an item this gateway's memory (--reasoning-memory-bytes) does not hold: another gateway or this one before a restart wrote it, it was evicted, or another API key received it"
}

func statelessError(param, msg string) *apiError {
	return badRequest(param, "stateless", msg+"; send the whole conversation as input items, reasoning items included")
}

// decodeTools reads tools and tool_choice: "none" declares no tool,
// allowed_tools only those it names; "required", a named function,
// allowed_tools in required mode and strict tools constrain the
// generation (constrain.go). A namespace tool declares its function
// tools, whose calls go out with the namespace (docs/gap-decisions.md
// 113); a hosted tool is left out and reported unless the server refuses
// it (112).
func (rr *responsesReply) decodeTools(rawTools, rawChoice json.RawMessage) *apiError {
	rr.tools, rr.toolChoice = rawTools, rawChoice
	tc, aerr := rr.req.decodeResponsesToolChoice(rawChoice)
	if aerr != nil {
		return aerr
	}
	return rr.req.decodeToolList(rawTools, tc, rr)
}

// readTool reads one entry of tools: a function, a namespace of
// functions, or a hosted tool, which is run (web search), left out and
// reported, or refused.
func (rr *responsesReply) readTool(ts *toolSet, path string, raw json.RawMessage) *apiError {
	r, cfg := rr.req, rr.cfg
	var t responsesTool
	var unread unreadSet
	if len(raw) == 0 || raw[0] != '{' || decodeBodyUnread(raw, &t, &unread) != nil {
		return paramError(path, "invalid_tool", "must be a tool object")
	}
	switch {
	case t.Type == "function":
		r.noteMembers(path, false, &unread)
		return rr.function(ts, path, "", &t)
	case t.Type == "namespace":
		r.noteMembers(path, false, &unread)
		if t.Name == "" {
			return paramError(path+".name", "invalid_tool", "required, the namespace's name")
		}
		inner, ok := rawElements(t.Tools)
		if !ok || len(inner) == 0 {
			return paramError(path+".tools", "invalid_tool", "must be a non-empty list of the namespace's function tools, got "+kindOf(t.Tools))
		}
		for j, ri := range inner {
			ip := path + ".tools[" + strconv.Itoa(j) + "]"
			var it responsesTool
			if len(ri) == 0 || ri[0] != '{' || r.decodeMembers(ri, &it, ip) != nil {
				return paramError(ip, "invalid_tool", "must be a function tool object")
			}
			if it.Type != "function" {
				return paramError(ip+".type", "unsupported_tool", quoteText(it.Type)+
					" tools are not supported in a namespace by this gateway; a namespace's tools must be function tools")
			}
			if j == 0 && t.Description != "" {
				// The namespace's description reaches the model
				// once, before its first tool's own.
				it.Description = namespaceDescription(t.Name, t.Description, it.Description)
			}
			if err := rr.function(ts, ip, t.Name, &it); err != nil {
				return err
			}
		}
	case isHostedResponsesTool(t.Type):
		if took, err := r.takeWebSearch(cfg, path, t.Type, raw, false); err != nil || took {
			return err
		}
		if cfg.RefuseHostedTools {
			return paramError(path+".type", "unsupported_tool", quoteText(t.Type)+
				" is a hosted tool (OpenAI runs it), which this gateway cannot run; leave it out, or start the server without --refuse-hosted-tools to have it left out and reported")
		}
		r.report(path, unhonouredHostedTool, hostedToolWhy(t.Type))
	default:
		what := "an unknown tool type"
		if t.Type == "custom" {
			what = "a custom (free-form) tool, which this gateway does not support"
		}
		return paramError(path+".type", "unsupported_tool", quoteText(t.Type)+" is "+what+
			"; this gateway takes function tools and namespaces of function tools, and leaves out the hosted tools it cannot run")
	}
	return nil
}

// function reads a function tool at path, in namespace or none.
func (rr *responsesReply) function(ts *toolSet, path, namespace string, t *responsesTool) *apiError {
	if t.Name == "" {
		return paramError(path+".name", "invalid_tool", "required")
	}
	strict, _, err := rawBool(t.Strict, path+".strict")
	if err != nil {
		return err
	}
	params := t.Parameters
	if isNull(params) {
		params = json.RawMessage(`{"type": "object", "properties": {}}`)
	} else if params[0] != '{' {
		return paramError(path+".parameters", "invalid_tool", "must be a JSON Schema object, got "+kindOf(params))
	}
	if other, dup := rr.declared[t.Name]; dup && (namespace != "" || rr.namespaces[t.Name] != "") {
		// Beam calls tools by their bare names (page: Tools), so a
		// namespaced tool's name must be unique among the tools.
		return paramError(path+".name", "invalid_tool", quoteText(t.Name)+" is also the name of "+other+
			"; Beam calls tools by their bare names, so a tool in a namespace needs a name no other tool has")
	}
	if rr.declared == nil {
		rr.declared = map[string]string{}
	}
	rr.declared[t.Name] = path
	if namespace != "" {
		if rr.namespaces == nil {
			rr.namespaces = map[string]string{}
		}
		rr.namespaces[t.Name] = namespace
	}
	ts.add(harmony.Tool{Type: "function", Function: harmony.Function{Name: t.Name, Description: t.Description, Parameters: params}}, strict, path+".parameters")
	return nil
}

// responsesTool is one entry of a Responses request's tools, or of a
// namespace's tools.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      json.RawMessage `json:"strict"`
	Tools       json.RawMessage `json:"tools"`
}

// namespaceDescription is the description of a namespace's first tool:
// the namespace's own, then the tool's.
func namespaceDescription(namespace, nsDesc, toolDesc string) string {
	d := "Namespace " + namespace + ": " + nsDesc
	if toolDesc != "" {
		d += "\n\n" + toolDesc
	}
	return d
}

// namespaceOf returns the namespace of a declared tool, "" for a tool
// outside any.
func (rr *responsesReply) namespaceOf(name string) string { return rr.namespaces[name] }

// decodeText reads text: its format (text, json_object, json_schema) is
// the response format; the format as sent is echoed in the response.
func (rr *responsesReply) decodeText(raw json.RawMessage) *apiError {
	if isNull(raw) {
		return nil
	}
	if raw[0] != '{' {
		return paramError("text", "invalid_type", "must be an object such as {\"format\": {\"type\": \"json_object\"}}, got "+kindOf(raw))
	}
	var t struct {
		Format json.RawMessage `json:"format"`
	}
	if err := rr.req.decodeMembers(raw, &t, "text"); err != nil {
		return paramJSONError("text", "invalid_type", err)
	}
	format, schemaPath, err := rr.req.decodeFormat(t.Format, "text.format", false)
	if err != nil {
		return err
	}
	k := &rr.req.constraint
	k.format, k.formatParam, k.formatSchema = format, "text.format", schemaPath
	if !isNull(t.Format) {
		rr.textFormat = bytes.TrimSpace(t.Format)
	}
	return nil
}

// decodeInput reads input: a string (one user message) or a list of
// items. Assistant-side items that follow each other (reasoning, then an
// assistant message or function calls) form one assistant turn; a
// reasoning item after a finished turn starts the next one.
func (rr *responsesReply) decodeInput(raw json.RawMessage, s *Server, owner string) *apiError {
	if isNull(raw) {
		return paramError("input", "missing_input", "required, a string or a list of input items")
	}
	if raw[0] == '"' {
		text, err := rawString(raw, "input")
		if err != nil {
			return err
		}
		rr.add("input", harmony.Message{Role: harmony.RoleUser, Content: text})
		if rr.req.kept != nil {
			item, _ := json.Marshal(map[string]string{"role": "user", "content": text})
			rr.keepOwnItem(0, item)
		}
		return nil
	}
	items, _ := rawElements(raw)
	if len(items) == 0 {
		return paramError("input", "missing_input", "must be a string or a non-empty list of input items")
	}
	allow := s.cfg.AllowMissingThinking
	turn := -1 // index of the open assistant turn
	// said holds the paths of each assistant turn's messages with text.
	said := map[int][]string{}
	openTurn := func(path string) *harmony.Message {
		if turn < 0 {
			rr.add(path, harmony.Message{Role: harmony.RoleAssistant})
			turn = len(rr.req.messages) - 1
		}
		return &rr.req.messages[turn]
	}
	for i, ri := range items {
		path := rr.inputPath(i)
		var it inputItem
		if len(ri) == 0 || ri[0] != '{' {
			return paramError(path, "invalid_item", "must be an object, got "+kindOf(ri))
		}
		if err := rr.req.decodeMembers(ri, &it, path); err != nil {
			return paramJSONError(path, "invalid_item", err)
		}
		typ := it.Type
		if typ == "item_reference" {
			// An item this gateway handed out, which its memory holds
			// (--reasoning-memory-bytes): read as that item, as sent
			// (gap decision 276).
			var id string
			if json.Unmarshal(it.ID, &id) != nil || id == "" {
				return paramError(path+".id", "invalid_item", "required, the id of an item a response gave")
			}
			stored, ok := s.memory.recallItem(owner, id)
			if !ok {
				return statelessError(path, s.referenceHint(path))
			}
			rr.keepOwnItem(i, stored)
			it = inputItem{}
			if err := json.Unmarshal(stored, &it); err != nil {
				return paramJSONError(path, "invalid_item", err)
			}
			typ = it.Type
		} else {
			rr.keepOwnItem(i, ri)
			if typ == "" && it.Role != "" {
				typ = "message"
			}
			it.foreignMembers(typ, func(member string) { rr.req.noteMember(path + "." + member) })
		}
		switch typ {
		case "message":
			text, err := rr.req.partsText(it.Content, path+".content")
			if err != nil {
				return err
			}
			switch it.Role {
			case "user", "system", "developer":
				turn = -1
				rr.add(path, harmony.Message{Role: it.Role, Content: text})
			case "assistant":
				t := openTurn(path)
				if t.Content != "" && text != "" {
					t.Content += "\n\n"
				}
				t.Content += text
				if text != "" {
					said[turn] = append(said[turn], path)
				}
			default:
				return paramError(path+".role", "invalid_role", "must be user, system, developer or assistant, got "+quoteText(it.Role))
			}
		case "reasoning":
			text, ok, err := rr.reasoningText(path, &it, s.signer, allow)
			if err != nil {
				return err
			}
			if turn >= 0 {
				if t := &rr.req.messages[turn]; t.Content != "" || len(t.ToolCalls) > 0 {
					turn = -1
				}
			}
			t := openTurn(path)
			if ok && text != "" {
				if t.Reasoning != "" {
					t.Reasoning += "\n\n"
				}
				t.Reasoning += text
			}
		case "function_call":
			if it.Name == "" {
				return paramError(path+".name", "invalid_item", "required")
			}
			f := harmony.FunctionCall{Name: it.Name, Arguments: it.Arguments}
			if isNull(it.Arguments) {
				f.Arguments = json.RawMessage(`{}`)
			}
			if err := decodeArguments(&f, path+".arguments"); err != nil {
				return err
			}
			t := openTurn(path)
			t.ToolCalls = append(t.ToolCalls, harmony.ToolCall{ID: it.CallID, Type: "function", Function: f})
		case "function_call_output":
			if it.CallID == "" {
				return paramError(path+".call_id", "invalid_item", "required, the call_id of the function_call it answers")
			}
			out, err := rr.req.partsText(it.Output, path+".output")
			if err != nil {
				return err
			}
			turn = -1
			rr.add(path, harmony.Message{Role: harmony.RoleTool, ToolCallID: it.CallID, Content: out})
		case "web_search_call":
			call, result, err := searchCallItem(path, &it)
			if err != nil {
				return err
			}
			t := openTurn(path)
			t.ToolCalls = append(t.ToolCalls, call)
			turn = -1
			rr.add(path, result)
		default:
			return paramError(path+".type", "unsupported_item", quoteText(typ)+
				" items are not supported; this gateway takes message, reasoning, function_call and function_call_output items")
		}
	}
	if err := refuseLateInstructions(&s.cfg, rr.req.messages, rr.origin, false); err != nil {
		return err
	}
	s.restoreReasoning(rr.req, owner, rr.req.messages, func(i int) string { return rr.origin[i] })
	for i := range rr.req.messages {
		m := &rr.req.messages[i]
		if m.Role != harmony.RoleAssistant {
			continue
		}
		if m.Content != "" && len(m.ToolCalls) > 0 {
			// Text before a turn's calls, which Beam never writes. GitHub
			// Copilot's CLI shows a reasoning item's text as the turn's
			// message and sends both back; a session it resumes has the
			// message alone. Either way the text is the turn's reasoning,
			// and is read as such, reported (decision 241).
			switch {
			case m.Content == m.Reasoning:
				for _, p := range said[i] {
					rr.req.report(p, unhonouredReasoningEcho, "repeats the turn's reasoning word for word; left out (Beam writes no message before its calls)")
				}
				m.Content = ""
			case m.Reasoning == "" && allow:
				for _, p := range said[i] {
					rr.req.report(p, unhonouredReasoningEcho, "a message before the turn's calls, in a turn without reasoning: read as its reasoning (Beam writes no message before its calls)")
				}
				m.Reasoning, m.Content = m.Content, ""
			case m.Reasoning != "":
				return paramError(rr.origin[i], "invalid_item", "an assistant message and function calls in one turn; "+
					"Beam writes no commentary before its calls, so put a reasoning item between them")
			}
		}
		if m.Reasoning == "" && !allow {
			return paramError(rr.origin[i], "missing_reasoning", "the assistant turn has no reasoning item before it. "+
				"Dropping reasoning from earlier turns degrades this model's output: send back the reasoning items this server returned, "+
				"with their encrypted_content, or start the server with --allow-missing-thinking")
		}
	}
	return nil
}

// reasoningText returns a reasoning item's text. The item must carry the
// encrypted_content this server wrote, whose text wins; reasoning_text
// content that differs from it has been edited. Unless allow is set,
// either is a 400. ok is false for an item with no text.
func (rr *responsesReply) reasoningText(path string, it *inputItem, sg *signer, allow bool) (text string, ok bool, aerr *apiError) {
	content, err := rr.req.partsText(it.Content, path+".content")
	if err != nil {
		return "", false, err
	}
	hasContent := !isNull(it.Content) && string(it.Content) != "[]"
	if !hasContent {
		if content, err = rr.req.partsText(it.Summary, path+".summary"); err != nil {
			return "", false, err
		}
	}
	refuse := func(param, why string) (string, bool, *apiError) {
		return "", false, paramError(param, "invalid_reasoning_signature", why+
			"; send reasoning items back exactly as this server returned them (edited or foreign reasoning misleads the model), "+
			"or start the server with --allow-missing-thinking")
	}
	if it.EncryptedContent == nil || *it.EncryptedContent == "" {
		if !allow {
			return refuse(path+".encrypted_content", "missing, so the reasoning cannot be checked")
		}
		return content, content != "", nil
	}
	sealed, valid := sg.open(*it.EncryptedContent)
	switch {
	case !valid && !allow:
		return refuse(path+".encrypted_content", "not written by this server, or altered")
	case !valid:
		return content, content != "", nil
	case hasContent && content != sealed && !allow:
		return refuse(path+".content", "differs from the reasoning this server returned")
	}
	return sealed, true, nil
}

// partsText reads content that is a string or a list of text parts
// (input_text, output_text, reasoning_text, summary_text, text), joined
// with "\n", noting the parts' members it does not read.
func (r *request) partsText(raw json.RawMessage, path string) (string, *apiError) {
	if isNull(raw) {
		return "", nil
	}
	switch raw[0] {
	case '"':
		return rawString(raw, path)
	case '[':
		var parts []textPart
		if err := r.decodeMembers(raw, &parts, path); err != nil {
			return "", paramError(path, "invalid_type", "must be a string or a list of text parts ("+jsonErrorText(err)+")")
		}
		var b strings.Builder
		for j := range parts {
			pp := path + "[" + strconv.Itoa(j) + "]"
			switch parts[j].Type {
			case "input_text", "output_text", "reasoning_text", "summary_text", "text":
			default:
				return "", paramError(pp+".type", "unsupported_content", quoteText(parts[j].Type)+
					" parts are not supported; Beam reads text")
			}
			if parts[j].Text == nil {
				return "", paramError(pp+".text", "invalid_content", "required, a string")
			}
			if j > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(*parts[j].Text)
		}
		return b.String(), nil
	}
	return "", paramError(path, "invalid_type", "must be a string or a list of text parts, got "+kindOf(raw))
}

// decodeAgentFields reads what Codex sends beside the conversation:
// prompt_cache_key names the conversation to the router
// (clientConversationKey); include asks for reasoning.encrypted_content,
// which every reasoning item carries; client_metadata and metadata are
// accepted and reported (docs/gap-decisions.md 116).
func (rr *responsesReply) decodeAgentFields(rb *responsesBody) *apiError {
	r := rr.req
	key, err := rawString(rb.PromptCacheKey, "prompt_cache_key")
	if err != nil {
		return err
	}
	r.convKey = clientConversationKey(key)
	if !isNull(rb.Include) {
		var include []string
		if rb.Include[0] != '[' || json.Unmarshal(rb.Include, &include) != nil {
			return paramError("include", "invalid_type", "must be a list of strings, got "+kindOf(rb.Include))
		}
		for i, v := range include {
			if v != "reasoning.encrypted_content" {
				r.report("include["+strconv.Itoa(i)+"]", unhonouredField, "not included: this gateway adds only reasoning.encrypted_content, which every reasoning item carries")
			}
		}
	}
	for _, f := range [...]struct {
		raw  json.RawMessage
		name string
	}{{rb.ClientMetadata, "client_metadata"}, {rb.Metadata, "metadata"}} {
		if isNull(f.raw) {
			continue
		}
		if f.raw[0] != '{' {
			return paramError(f.name, "invalid_type", "must be an object, got "+kindOf(f.raw))
		}
		r.report(f.name, unhonouredField, "accepted and not used (nothing is stored)")
	}
	return nil
}

// mapToolPath rewrites "tools[k].function.parameters" at the start of e's
// path and message, which names the k-th declared tool, to that tool's
// request path (schemas[k], its parameters): a namespace's tools are
// declared one by one, so k is not the request's index.
func mapToolPath(e *apiError, schemas []string) *apiError {
	rest, ok := strings.CutPrefix(e.param, "tools[")
	if !ok {
		return e
	}
	n, tail, ok := strings.Cut(rest, "]")
	k, err := strconv.Atoi(n)
	tail, isParams := strings.CutPrefix(tail, ".function.parameters")
	if !ok || err != nil || !isParams || k < 0 || k >= len(schemas) {
		return e
	}
	old := e.param
	e.param = schemas[k] + tail
	if strings.HasPrefix(e.msg, old) {
		e.msg = e.param + e.msg[len(old):]
	}
	return e
}
