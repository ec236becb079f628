package serve

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/grammar"
)

// Tools and tool choice, as the three APIs declare them. Each API reads
// its own wire shapes (a chat tool, an Anthropic tool with input_schema, a
// Responses function or namespace; each API's tool_choice object) into the
// same values, and the rest is written once here: the tool choice is a
// toolChoice, the tools list is split and walked by decodeToolList, each
// tool the model may call goes through toolSet.add, and toolSet.declare
// ends the list the same way for the three (allowed_tools checked, nothing
// declared under tool_choice none, the gateway's web search added).

// decodeToolList reads the tools list raw with tc, the request's tool
// choice: each entry is read by its API's toolReader, given its path
// (tools[2]), which adds the tools it declares to the set. A request
// without tools declares none and changes nothing else.
func (r *request) decodeToolList(raw json.RawMessage, tc toolChoice, api toolReader) *apiError {
	k := &r.constraint
	k.choice, k.name = tc.choice, tc.name
	if tc.nameParam != "" {
		k.choiceParam = tc.nameParam
	}
	if tc.serial {
		k.parallel = false
		r.maxCalls = 1
	}
	if isNull(raw) {
		return tc.checkAllowed(nil)
	}
	raws, ok := rawElements(raw)
	if !ok {
		return paramError("tools", "invalid_type", "must be a list of tools, got "+kindOf(raw))
	}
	// The set lives in the request, which is on the heap already.
	ts := &r.toolSet
	*ts = toolSet{r: r, choice: tc, tools: make([]harmony.Tool, 0, len(raws))}
	for i, raw := range raws {
		if err := api.readTool(ts, "tools["+strconv.Itoa(i)+"]", raw); err != nil {
			return err
		}
	}
	return ts.declare()
}

// toolReader reads one entry of an API's tools list, adding the function
// tools it declares to ts (chatTools, *messagesReply, *responsesReply).
type toolReader interface {
	readTool(ts *toolSet, path string, raw json.RawMessage) *apiError
}

// toolSet collects the function tools of a request as its API's decoder
// reads them.
type toolSet struct {
	r      *request
	choice toolChoice
	tools  []harmony.Tool // the declared tools
	// names are every function tool's name, declared or not, kept when
	// allowed_tools needs them.
	names []string
}

// add declares t, whose schema is at schemaPath (tools[0].input_schema),
// unless allowed_tools leaves it out; strict is the client's strict flag.
func (ts *toolSet) add(t harmony.Tool, strict bool, schemaPath string) {
	if ts.choice.allowed != nil {
		ts.names = append(ts.names, t.Function.Name)
	}
	if !ts.choice.allows(t.Function.Name) {
		return
	}
	ts.tools = append(ts.tools, t)
	k := &ts.r.constraint
	k.strict = append(k.strict, strict)
	k.toolSchemas = append(k.toolSchemas, schemaPath)
}

// declare ends the list: an allowed tool must be among the tools; under
// tool_choice none nothing is declared, built in or not, and no search
// runs; otherwise the tools are declared, and the gateway's web search
// when the request has one (declareSearch).
func (ts *toolSet) declare() *apiError {
	if err := ts.choice.checkAllowed(ts.names); err != nil {
		return err
	}
	r := ts.r
	if ts.choice.off {
		r.toolsOff = true
		r.constraint.strict, r.constraint.toolSchemas = nil, nil
		r.search = nil
		return nil
	}
	r.opts.Tools = ts.tools
	r.parseTools = ts.tools
	r.declareSearch()
	return nil
}

// toolChoice is a decoded tool choice.
type toolChoice struct {
	choice grammar.Choice
	name   string // the tool of grammar.Named
	off    bool   // none: no tool is declared
	// allowed are the tools allowed_tools lets the model call, of which
	// only these are declared; nil means every tool.
	allowed []string
	// allowedPath is the path of the allowed tools' list.
	allowedPath string
	// serial turns parallel calls off: parallel_tool_calls false, or
	// disable_parallel_tool_use.
	serial bool
	// nameParam, when set, is the field that names the tool (the Messages
	// API's tool_choice.name), for errors about the constraint.
	nameParam string
}

// allows reports whether the tool name is declared.
func (tc *toolChoice) allows(name string) bool {
	return tc.allowed == nil || slices.Contains(tc.allowed, name)
}

// checkAllowed refuses an allowed tool that is not among names, the
// request's tools.
func (tc *toolChoice) checkAllowed(names []string) *apiError {
	for i, a := range tc.allowed {
		if !slices.Contains(names, a) {
			p := tc.allowedPath + "[" + strconv.Itoa(i) + "]"
			return paramError(p, "invalid_value", "names "+quoteText(a)+", which is not among the tools")
		}
	}
	return nil
}

// toolChoiceHead reads what the OpenAI APIs' tool_choice shares: null
// (nothing set), a mode string, or an object, which the caller decodes
// (object true).
func toolChoiceHead(raw json.RawMessage, param string) (tc toolChoice, object bool, aerr *apiError) {
	if isNull(raw) {
		return tc, false, nil
	}
	switch raw[0] {
	case '"':
		s, _ := rawString(raw, param)
		aerr = tc.setMode(s, param, true)
		return tc, false, aerr
	case '{':
		return tc, true, nil
	}
	return tc, false, paramError(param, "invalid_type", "must be a string or an object, got "+kindOf(raw))
}

// decodeChatToolChoice reads Chat Completions' tool_choice: "auto",
// "none", "required", {"type": "function", "function": {"name"}}, or
// {"type": "allowed_tools", "allowed_tools": {"mode", "tools"}}.
func (r *request) decodeChatToolChoice(raw json.RawMessage) (toolChoice, *apiError) {
	const param = "tool_choice"
	tc, object, aerr := toolChoiceHead(raw, param)
	if !object {
		return tc, aerr
	}
	var obj struct {
		Type         string          `json:"type"`
		Function     json.RawMessage `json:"function"`
		AllowedTools json.RawMessage `json:"allowed_tools"`
	}
	if err := r.decodeMembers(raw, &obj, param); err != nil {
		return tc, paramJSONError(param, "invalid_type", err)
	}
	switch obj.Type {
	case "function":
		var f struct {
			Name json.RawMessage `json:"name"`
		}
		if isNull(obj.Function) || obj.Function[0] != '{' || r.decodeMembers(obj.Function, &f, param+".function") != nil {
			return tc, paramError(param+".function", "invalid_type", "required, an object such as {\"name\": \"get_weather\"}")
		}
		name, err := rawString(f.Name, param+".function.name")
		if err != nil {
			return tc, err
		}
		if name == "" {
			return tc, paramError(param+".function.name", "invalid_value", "required, the function to call")
		}
		tc.choice, tc.name = grammar.Named, name
		return tc, nil
	case "allowed_tools":
		var a struct {
			Mode  string          `json:"mode"`
			Tools json.RawMessage `json:"tools"`
		}
		var tools []struct {
			Type     string          `json:"type"`
			Function json.RawMessage `json:"function"`
		}
		p := param + ".allowed_tools"
		if isNull(obj.AllowedTools) || obj.AllowedTools[0] != '{' || r.decodeMembers(obj.AllowedTools, &a, p) != nil ||
			!isNull(a.Tools) && (a.Tools[0] != '[' || r.decodeMembers(a.Tools, &tools, p+".tools") != nil) {
			return tc, paramError(p, "invalid_type", "required, an object with mode and tools")
		}
		if err := tc.setMode(a.Mode, p+".mode", false); err != nil {
			return tc, err
		}
		tc.allowed, tc.allowedPath = []string{}, p+".tools"
		for i, t := range tools {
			tp := p + ".tools[" + strconv.Itoa(i) + "]"
			var f struct {
				Name string `json:"name"`
			}
			if t.Type != "function" || isNull(t.Function) || t.Function[0] != '{' || r.decodeMembers(t.Function, &f, tp+".function") != nil || f.Name == "" {
				return tc, paramError(tp, "invalid_value", "must be {\"type\": \"function\", \"function\": {\"name\": ...}}")
			}
			tc.allowed = append(tc.allowed, f.Name)
		}
		return tc, nil
	case "custom":
		return tc, paramError(param+".type", "unsupported_tool_choice", "custom tools are not supported; declare function tools")
	}
	return tc, paramError(param+".type", "invalid_value", "must be function or allowed_tools, got "+quoteText(obj.Type))
}

// decodeResponsesToolChoice reads the Responses API's tool_choice: "auto",
// "none", "required", {"type": "function", "name"}, or {"type":
// "allowed_tools", "mode", "tools"}.
func (r *request) decodeResponsesToolChoice(raw json.RawMessage) (toolChoice, *apiError) {
	const param = "tool_choice"
	tc, object, aerr := toolChoiceHead(raw, param)
	if !object {
		return tc, aerr
	}
	var obj struct {
		Type  string          `json:"type"`
		Name  json.RawMessage `json:"name"`
		Mode  string          `json:"mode"`
		Tools json.RawMessage `json:"tools"`
	}
	if err := r.decodeMembers(raw, &obj, param); err != nil {
		return tc, paramJSONError(param, "invalid_type", err)
	}
	var tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if obj.Type == "allowed_tools" && !isNull(obj.Tools) {
		if obj.Tools[0] != '[' {
			return tc, paramError(param+".tools", "invalid_type", "must be a list of tools, got "+kindOf(obj.Tools))
		}
		if err := r.decodeMembers(obj.Tools, &tools, param+".tools"); err != nil {
			return tc, paramJSONError(param+".tools", "invalid_type", err)
		}
	}
	switch obj.Type {
	case "function":
		name, err := rawString(obj.Name, param+".name")
		if err != nil {
			return tc, err
		}
		if name == "" {
			return tc, paramError(param+".name", "invalid_value", "required, the function to call")
		}
		tc.choice, tc.name = grammar.Named, name
		return tc, nil
	case "allowed_tools":
		if err := tc.setMode(obj.Mode, param+".mode", false); err != nil {
			return tc, err
		}
		tc.allowed, tc.allowedPath = []string{}, param+".tools"
		for i, t := range tools {
			if t.Type != "function" || t.Name == "" {
				tp := param + ".tools[" + strconv.Itoa(i) + "]"
				return tc, paramError(tp, "invalid_value", "must be {\"type\": \"function\", \"name\": ...} (a namespace's functions by their own names); this gateway runs no hosted tools")
			}
			tc.allowed = append(tc.allowed, t.Name)
		}
		return tc, nil
	}
	what := " is not supported"
	if isHostedResponsesTool(obj.Type) {
		what = " is a hosted tool, which this gateway cannot run"
	}
	return tc, paramError(param+".type", "unsupported_tool_choice", quoteText(obj.Type)+what+"; use function or allowed_tools")
}

// decodeAnthropicToolChoice reads the Messages API's tool_choice, an
// object: {"type": "auto"}, "none", "any", or "tool" with its name, each
// with disable_parallel_tool_use.
func (r *request) decodeAnthropicToolChoice(raw json.RawMessage) (toolChoice, *apiError) {
	var tc toolChoice
	if isNull(raw) {
		return tc, nil
	}
	var obj struct {
		Type                   string          `json:"type"`
		Name                   string          `json:"name"`
		DisableParallelToolUse json.RawMessage `json:"disable_parallel_tool_use"`
	}
	if raw[0] != '{' || r.decodeMembers(raw, &obj, "tool_choice") != nil {
		return tc, paramError("tool_choice", "invalid_type", "must be an object such as {\"type\": \"auto\"}, got "+kindOf(raw))
	}
	switch obj.Type {
	case "auto":
	case "none":
		tc.choice, tc.off = grammar.None, true
	case "any":
		tc.choice = grammar.Required
	case "tool":
		if obj.Name == "" {
			return tc, paramError("tool_choice.name", "invalid_value", "required with type tool, the tool to call")
		}
		tc.choice, tc.name, tc.nameParam = grammar.Named, obj.Name, "tool_choice.name"
	default:
		return tc, paramError("tool_choice.type", "invalid_value", "must be auto, any, tool or none, got "+quoteText(obj.Type))
	}
	serial, _, err := rawBool(obj.DisableParallelToolUse, "tool_choice.disable_parallel_tool_use")
	if err != nil {
		return tc, err
	}
	tc.serial = serial
	return tc, nil
}

// setMode reads a tool choice mode: auto, required, or with none
// allowed, none.
func (tc *toolChoice) setMode(s, param string, none bool) *apiError {
	switch {
	case s == "auto":
		tc.choice = grammar.Auto
	case s == "required":
		tc.choice = grammar.Required
	case s == "none" && none:
		tc.choice, tc.off = grammar.None, true
	default:
		want := "auto or required"
		if none {
			want = "auto, none or required"
		}
		return paramError(param, "invalid_value", "must be "+want+", got "+quoteText(s))
	}
	return nil
}
