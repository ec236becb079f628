package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// The OpenAI Chat Completions API (POST /v1/chat/completions): the body
// decoded into a Beam conversation (chatRequest, then decodeChatRequest's
// steps). Replies are written by chat_reply.go.

// chatEndpoint is POST /v1/chat/completions, the OpenAI Chat Completions
// API.
var chatEndpoint = &endpoint{
	name:     "chat completion",
	path:     "/v1/chat/completions",
	idPrefix: "chatcmpl-",
	decode: func(s *Server, body []byte, owner string) (reply, *apiError) {
		req, err := decodeChatRequest(body, &s.cfg)
		if err != nil {
			return nil, err
		}
		s.restoreReasoning(req, owner, req.messages, messagePath)
		return chatReply{req}, nil
	},
	writeError: writeError,
}

// chatRequest is the part of an OpenAI Chat Completions body the gateway
// reads. Values are kept raw so that each can be checked with an error
// naming it.
type chatRequest struct {
	Model               json.RawMessage `json:"model"`
	Messages            json.RawMessage `json:"messages"`
	Tools               json.RawMessage `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	ReasoningEffort     json.RawMessage `json:"reasoning_effort"`
	ChatTemplateKwargs  json.RawMessage `json:"chat_template_kwargs"`
	MaxTokens           json.RawMessage `json:"max_tokens"`
	MaxCompletionTokens json.RawMessage `json:"max_completion_tokens"`
	samplingBody
	Seed              json.RawMessage `json:"seed"`
	Stop              json.RawMessage `json:"stop"`
	Stream            json.RawMessage `json:"stream"`
	StreamOptions     json.RawMessage `json:"stream_options"`
	N                 json.RawMessage `json:"n"`
	Logprobs          json.RawMessage `json:"logprobs"`
	ResponseFormat    json.RawMessage `json:"response_format"`
	ParallelToolCalls json.RawMessage `json:"parallel_tool_calls"`
	// Store false (or absent) is what the gateway does; true is reported.
	Store json.RawMessage `json:"store"`
	// Functions and FunctionCall are the deprecated forms of tools and
	// tool_choice, refused (decodeScalars).
	Functions    json.RawMessage `json:"functions"`
	FunctionCall json.RawMessage `json:"function_call"`
}

// chatTemplateKwargs are the template arguments a request may pass in
// chat_template_kwargs (page: Template arguments). Other keys are
// reported, as any member the gateway does not read.
type chatTemplateKwargs struct {
	ReasoningEffort      json.RawMessage `json:"reasoning_effort"`
	ModelIdentity        json.RawMessage `json:"model_identity"`
	BuiltinTools         json.RawMessage `json:"builtin_tools"`
	AllowMissingThinking json.RawMessage `json:"allow_missing_thinking"`
}

// decodeChatRequest reads a chat request body: the API's one conversion
// into the request, as decodeMessagesRequest and decodeResponsesRequest
// are the others'. Every error is a 400 that names the offending field.
func decodeChatRequest(body []byte, cfg *Config) (*request, *apiError) {
	if !utf8.Valid(body) {
		return nil, bodyError("invalid_utf8", "not valid UTF-8")
	}
	var cr chatRequest
	unread, more, err := decodeRequestBody(body, &cr)
	if err != nil {
		return nil, bodyError("invalid_json", jsonErrorText(err))
	}
	if !isNull(cr.Messages) && cr.Messages[0] != '[' {
		// Worded as json.Unmarshal words a list field holding another
		// kind of value.
		var list struct {
			Messages []json.RawMessage `json:"messages"`
		}
		return nil, bodyError("invalid_json", jsonErrorText(json.Unmarshal(body, &list)))
	}
	r := &request{opts: newOptions(), constraint: newConstraint()}
	steps := [...]func(*chatRequest, *Config) *apiError{
		r.decodeScalars, r.decodeMessages, r.decodeTools, r.decodeTemplateArgs, r.checkMarkers,
	}
	for _, step := range steps {
		if err := step(&cr, cfg); err != nil {
			return nil, err
		}
	}
	if store, _, err := rawBool(cr.Store, "store"); err != nil {
		return nil, err
	} else if store {
		r.report("store", unhonouredField, "nothing is stored: this gateway keeps nothing")
	}
	r.reportUnread(unread, more)
	return r, nil
}

// decodeScalars reads everything but messages, tools and template
// arguments: the sampling parameters, stop, stream, n, and the fields the
// gateway refuses rather than ignores.
func (r *request) decodeScalars(cr *chatRequest, cfg *Config) *apiError {
	var err *apiError
	if r.model, err = rawString(cr.Model, "model"); err != nil {
		return err
	}
	if r.model == "" && cfg.Model == "" {
		return paramError("model", "missing_model", "required (or start the server with --model)")
	}
	for _, f := range [...]struct {
		raw        json.RawMessage
		name, with string
	}{{cr.Functions, "functions", "tools"}, {cr.FunctionCall, "function_call", "tool_choice"}} {
		if !isNull(f.raw) {
			// Left out, the model would not see the functions (decision 282).
			return paramError(f.name, "unsupported_parameter", "the deprecated form of "+f.with+", which this gateway does not read; send "+f.with+
				` (function tools, {"type": "function", "function": {...}}) instead`)
		}
	}
	if n, set, err := rawInt(cr.N, "n"); err != nil {
		return err
	} else if set && n != 1 {
		return paramError("n", "unsupported_n", "only 1 is supported, got "+strconv.FormatInt(n, 10))
	}
	r.maxTokens = cfg.maxTokens()
	for _, f := range [...]struct {
		raw  json.RawMessage
		name string
	}{{cr.MaxCompletionTokens, "max_completion_tokens"}, {cr.MaxTokens, "max_tokens"}} {
		n, set, err := rawInt(f.raw, f.name)
		if err != nil {
			return err
		}
		if set {
			if n < 1 {
				return paramError(f.name, "invalid_value", "must be at least 1, got "+strconv.FormatInt(n, 10))
			}
			r.maxTokens, r.maxTokensParam = n, f.name
			break
		}
	}
	if err := r.decodeSampling(&cr.samplingBody, chatSampling); err != nil {
		return err
	}
	if _, set, err := rawInt(cr.Seed, "seed"); err != nil {
		return err
	} else if set {
		r.seed = bytes.TrimSpace(cr.Seed)
	}
	if r.stop, err = decodeStop(cr.Stop); err != nil {
		return err
	}
	if r.stream, _, err = rawBool(cr.Stream, "stream"); err != nil {
		return err
	}
	if !isNull(cr.StreamOptions) {
		var so struct {
			IncludeUsage json.RawMessage `json:"include_usage"`
		}
		if cr.StreamOptions[0] != '{' || r.decodeMembers(cr.StreamOptions, &so, "stream_options") != nil {
			return paramError("stream_options", "invalid_type", "must be an object, got "+kindOf(cr.StreamOptions))
		}
		if r.wantUsage, _, err = rawBool(so.IncludeUsage, "stream_options.include_usage"); err != nil {
			return err
		}
	}
	if logprobs, _, err := rawBool(cr.Logprobs, "logprobs"); err != nil {
		return err
	} else if logprobs {
		return paramError("logprobs", "unsupported_parameter", "not supported by this gateway")
	}
	format, schemaPath, err := r.decodeFormat(cr.ResponseFormat, "response_format", true)
	if err != nil {
		return err
	}
	r.constraint.format, r.constraint.formatParam, r.constraint.formatSchema = format, "response_format", schemaPath
	return nil
}

// decodeStop reads stop: a string, a list of strings, or null. Empty
// strings are dropped, as they would stop nothing, and so are <|call|> and
// <|return|>, which the engine gets anyway and which end the turn rather
// than being cut from it.
func decodeStop(raw json.RawMessage) ([]string, *apiError) {
	if isNull(raw) {
		return nil, nil
	}
	var list []string
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			list = []string{s}
		}
	case '[':
		if json.Unmarshal(raw, &list) != nil {
			return nil, paramError("stop", "invalid_type", "must be a string or a list of strings")
		}
	default:
		return nil, paramError("stop", "invalid_type", "must be a string or a list of strings, got "+kindOf(raw))
	}
	out := list[:0]
	for _, s := range list {
		if s != "" && !slices.Contains(engineStops[:], s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// decodeMessages reads the conversation. Tool-call arguments arrive as JSON
// strings (OpenAI's wire form) and are parsed into objects here; the
// renderer checks everything else. Markers in names are refused here,
// those in content and the other strings the prompt carries by
// checkMarkers, unless the server allows them (DECISIONS.md, Serving).
func (r *request) decodeMessages(cr *chatRequest, cfg *Config) *apiError {
	var err *apiError
	if r.messages, err = decodeMessageList(cr.Messages, !cfg.markersAllowed(), r.noteChatMember); err != nil {
		return err
	}
	if len(r.messages) == 0 {
		return paramError("messages", "missing_messages", "required, a non-empty list of messages")
	}
	return refuseLateInstructions(cfg, r.messages, nil, false)
}

// noteChatMember notes a member of a chat message that the format does
// not read, and reports whether to hear of more (not once past the cap);
// but a tool call's index: the call's place in the list, which
// the streamed deltas carry and clients that assemble them keep
// (docs/gap-decisions.md 136 and 244), an identifier that asks for
// nothing.
func (r *request) noteChatMember(path string) bool {
	if !isCallIndex(path) {
		r.noteMember(path)
	}
	return !r.unreadMore // past the cap, no more paths are built
}

// isCallIndex reports whether path is messages[i].tool_calls[j].index.
func isCallIndex(path string) bool {
	rest, ok := cutIndex(path, "messages[")
	if !ok {
		return false
	}
	if rest, ok = cutIndex(rest, ".tool_calls["); !ok {
		return false
	}
	return rest == ".index"
}

// cutIndex cuts prefix, then decimal digits and "]", from the start of s.
func cutIndex(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || s[:len(prefix)] != prefix {
		return "", false
	}
	s = s[len(prefix):]
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	if n == 0 || n == len(s) || s[n] != ']' {
		return "", false
	}
	return s[n+1:], true
}

// decodeMessageList decodes raw, the messages of a chat request (a list,
// null or nothing), each as Message.UnmarshalJSON does, and with
// checkNames refuses a marker in a message's name. The list is decoded in
// one harmony.ParseMessagesUnread, which gives unread (when not nil) the
// path of each member the format does not read; when that fails, each message is decoded on
// its own, so that the first error (a message that does not decode, or a
// name with a marker in an earlier one) names the message and the field
// as it always has.
func decodeMessageList(raw json.RawMessage, checkNames bool, unread func(path string) bool) ([]harmony.Message, *apiError) {
	if isNull(raw) {
		return nil, nil
	}
	messages, err := harmony.ParseMessagesUnread(raw, unread)
	if err != nil {
		return decodeMessagesOneByOne(raw, checkNames)
	}
	for i := range messages {
		if err := nameMarker(&messages[i], i, checkNames); err != nil {
			return nil, err
		}
	}
	return messages, nil
}

// decodeMessagesOneByOne decodes each message of the list raw on its own,
// the first error or marker in a name ending the list. The slice grows as
// the messages decode, so that a list that fails early allocates little.
func decodeMessagesOneByOne(raw json.RawMessage, checkNames bool) ([]harmony.Message, *apiError) {
	var messages []harmony.Message
	var aerr *apiError
	whole := eachRawElement(raw, func(elem []byte) bool {
		i := len(messages)
		messages = append(messages, harmony.Message{})
		// The path is built only for an error: a long conversation would
		// otherwise pay an allocation per message.
		if err := messages[i].UnmarshalJSON(elem); err != nil {
			if errors.Is(err, harmony.ErrArgumentsString) {
				aerr = argumentsError(messagePath(i), err)
			} else {
				aerr = harmonyError(messagePath(i), "invalid_message", err)
			}
			return false
		}
		aerr = nameMarker(&messages[i], i, checkNames)
		return aerr == nil
	})
	if aerr != nil {
		return nil, aerr
	}
	if !whole {
		// Not reached for a body decodeBody split, whose lists are well
		// formed; said rather than a list cut short in silence.
		return nil, bodyError("invalid_json", "messages: not a well-formed list")
	}
	return messages, nil
}

// nameMarker refuses a marker in the name of message i when check is set.
func nameMarker(m *harmony.Message, i int, check bool) *apiError {
	if mk := harmony.FindMarker(m.Name); check && mk != "" {
		return markerError(harmony.MarkerUse{Path: messagePath(i) + ".name", Marker: mk})
	}
	return nil
}

// checkMarkers refuses a marker in any string the prompt would carry as
// is: content, argument values, schema fields (harmony.MarkerUses), unless
// the server allows them (DECISIONS.md, Names and markers).
func (r *request) checkMarkers(_ *chatRequest, cfg *Config) *apiError {
	if cfg.markersAllowed() {
		return nil
	}
	if uses := harmony.MarkerUses(r.messages, &r.opts); len(uses) > 0 {
		return markerError(uses[0])
	}
	return nil
}

// decodeTools reads tools, tool_choice and parallel_tool_calls. "none"
// declares no tool (DECISIONS.md, Serving); "auto" lets Beam choose;
// "required", a named function, allowed_tools in required mode, strict
// tools and parallel_tool_calls false constrain the generation
// (constrain.go).
func (r *request) decodeTools(cr *chatRequest, _ *Config) *apiError {
	tc, aerr := r.decodeChatToolChoice(cr.ToolChoice)
	if aerr != nil {
		return aerr
	}
	if v, set, err := rawBool(cr.ParallelToolCalls, "parallel_tool_calls"); err != nil {
		return err
	} else if set && !v {
		tc.serial = true
	}
	return r.decodeToolList(cr.Tools, tc, chatTools{})
}

// chatTools reads the entries of a chat request's tools.
type chatTools struct{}

// readTool reads a function tool in the OpenAI shape, and notes the
// members of the tool and of its function that it does not read.
func (chatTools) readTool(ts *toolSet, path string, raw json.RawMessage) *apiError {
	var t harmony.Tool
	if err := t.UnmarshalJSON(raw); err != nil {
		return harmonyError(path, "invalid_tool", err)
	}
	var toolUnread, fnUnread unreadSet
	strict, _, err := rawBool(functionStrictUnread(raw, &toolUnread, &fnUnread), path+".function.strict")
	if err != nil {
		return err
	}
	ts.r.noteMembers(path, false, &toolUnread)
	ts.r.noteMembers(path+".function", false, &fnUnread)
	ts.add(t, strict, path+".function.parameters")
	return nil
}

// chatToolMembers and chatFunctionMembers are what the gateway reads of a
// chat request's tool and of its function: harmony.Tool's members, and
// strict.
type (
	chatToolMembers struct {
		Type     json.RawMessage `json:"type"`
		Function json.RawMessage `json:"function"`
	}
	chatFunctionMembers struct {
		Name        json.RawMessage `json:"name"`
		Description json.RawMessage `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      json.RawMessage `json:"strict"`
	}
)

// functionStrict returns the raw value of a tool's function.strict, as
// json.Unmarshal into nested structs finds it, or nil.
func functionStrict(tool json.RawMessage) json.RawMessage {
	return functionStrictUnread(tool, nil, nil)
}

// functionStrictUnread is functionStrict that also collects the members
// of the tool and of its function that chatToolMembers and
// chatFunctionMembers do not have, when toolUnread and fnUnread are not
// nil. The plain case is split without encoding/json; any other tool (a
// key written with an escape or in another case, a key twice, a function
// that is not an object) is read by json.Unmarshal, whose rules decide.
func functionStrictUnread(tool json.RawMessage, toolUnread, fnUnread *unreadSet) json.RawMessage {
	var t chatToolMembers
	var f chatFunctionMembers
	d := bodyDocs.Get().(*pyjson.Doc)
	defer releaseBodyDoc(d)
	if d.Parse(tool) == nil && splitNode(d, 0, &t, toolUnread) {
		// Plain: "function" is there once at most, as written.
		fn := d.Lookup(0, "function")
		if fn < 0 || d.Kind(fn) == pyjson.Null {
			return nil
		}
		if splitNode(d, fn, &f, fnUnread) {
			return f.Strict
		}
		toolUnread.reset(unreadMark{})
	}
	if toolUnread != nil && json.Unmarshal(tool, &t) == nil {
		unreadMembers(tool, memberNamesOf(reflect.TypeFor[chatToolMembers]()), toolUnread, 0)
		if !isNull(t.Function) && t.Function[0] == '{' {
			unreadMembers(t.Function, memberNamesOf(reflect.TypeFor[chatFunctionMembers]()), fnUnread, 0)
		}
	}
	return nestedStrict(tool)
}

// nestedStrict is function.strict as json.Unmarshal into nested structs
// finds it: functionStrict's rule, and its way for any tool it does not
// split itself.
func nestedStrict(tool []byte) json.RawMessage {
	var nested struct {
		Function struct {
			Strict json.RawMessage `json:"strict"`
		} `json:"function"`
	}
	_ = json.Unmarshal(tool, &nested)
	return nested.Function.Strict
}

// decodeTemplateArgs reads reasoning_effort and chat_template_kwargs,
// whose reasoning_effort wins over the top-level one.
func (r *request) decodeTemplateArgs(cr *chatRequest, cfg *Config) *apiError {
	effort := cr.ReasoningEffort
	allowMissing := cfg.AllowMissingThinking
	if !isNull(cr.ChatTemplateKwargs) {
		var kw chatTemplateKwargs
		if cr.ChatTemplateKwargs[0] != '{' {
			return paramError("chat_template_kwargs", "invalid_type", "must be an object, got "+kindOf(cr.ChatTemplateKwargs))
		}
		if err := r.decodeMembers(cr.ChatTemplateKwargs, &kw, "chat_template_kwargs"); err != nil {
			return paramJSONError("chat_template_kwargs", "invalid_type", err)
		}
		if !isNull(kw.ReasoningEffort) {
			effort = kw.ReasoningEffort
		}
		var err *apiError
		if r.opts.ModelIdentity, err = rawString(kw.ModelIdentity, "chat_template_kwargs.model_identity"); err != nil {
			return err
		}
		if !isNull(kw.BuiltinTools) {
			if kw.BuiltinTools[0] != '[' || json.Unmarshal(kw.BuiltinTools, &r.opts.BuiltinTools) != nil {
				return paramError("chat_template_kwargs.builtin_tools", "invalid_type", "must be a list of tool names")
			}
		}
		if v, set, err := rawBool(kw.AllowMissingThinking, "chat_template_kwargs.allow_missing_thinking"); err != nil {
			return err
		} else if set {
			allowMissing = v
		}
	}
	if r.toolsOff {
		// tool_choice "none": nothing is declared, built in or not.
		r.opts.BuiltinTools = nil
	}
	r.opts.RequireReasoning = !allowMissing
	if !isNull(effort) {
		// Any JSON value is kept; the renderer reports one that is not an
		// integer or a label with the page's text.
		if err := r.opts.ReasoningEffort.UnmarshalJSON(effort); err != nil {
			return paramError("reasoning_effort", "invalid_reasoning_effort", err.Error())
		}
	}
	return nil
}
