package serve

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/jsonpath"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// What the three APIs' decoders share: the decoded request, the readers
// of raw JSON values with errors naming the field, and the marker rule.

// request is a decoded request of any of the three APIs: the
// conversation and template arguments to render, and what the engine
// request needs.
type request struct {
	messages []harmony.Message
	// thread is the Messages request's turn of a message thread, kept
	// with its reply (threads.go); nil outside threads.
	thread *threadTurn
	// kept is the Responses request's record of itself, kept with its
	// reply for previous_response_id (previous.go); nil when not kept.
	kept *responseTurn
	opts harmony.Options
	// parseTools are the declared tools, for casting arguments when parsing.
	parseTools []harmony.Tool

	model     string // as the client sent it; may be empty
	maxTokens int64
	// maxTokensParam names the field the client set maxTokens with
	// (max_tokens, max_completion_tokens, max_output_tokens); "" when the
	// client set none and maxTokens is the server's.
	maxTokensParam string
	// Sampling parameters, checked (sampling.go) and forwarded to the
	// engine in their shortest decimal form.
	temperature, topP                 json.RawMessage
	presencePenalty, frequencyPenalty json.RawMessage
	topK, minP, repetitionPenalty     json.RawMessage
	seed                              json.RawMessage
	stop                              []string // the client's stop strings
	stream                            bool
	wantUsage                         bool
	// toolsOff is tool_choice "none": no tool is declared.
	toolsOff bool
	// maxCalls, when above 0, caps the tool calls of a reply: the
	// generation stops at the first call past it (parallel tool calls
	// turned off).
	maxCalls int
	// constraint is what the client demands of the generation (a tool
	// choice, a response format, strict tools), compiled into a grammar
	// for the engine when it constrains anything (constrain.go).
	constraint constraint
	// omitThinking is the Messages API's thinking.display "omitted":
	// thinking blocks come back with an empty text, the text sealed in
	// their signature, from which the next turn takes it.
	omitThinking bool
	// unhonoured is what the request asked for that the gateway left out
	// or did not apply, reported rather than ignored (agents.go).
	unhonoured []unhonoured
	// unreadNested are the paths of members of nested objects the
	// gateway does not read, at most maxUnread, and unreadMore says there
	// were others: reported with the top-level ones (reportUnread).
	unreadNested []string
	unreadMore   bool
	// convKey is the conversation's routing key the client named
	// (clientConversationKey); 0: the router keys by the prompt.
	convKey uint64
	// search is the hosted web search the gateway runs for the request
	// (Config.WebSearch), nil when it runs none.
	search *webSearch
	// toolSet collects the tools as they are decoded (decodeToolList).
	toolSet toolSet
	// restored lists the assistant turns (their request paths) whose
	// reasoning came from the gateway's memory (recall.go).
	restored []string
}

// jsonErrorText words an encoding/json error with the field it concerns.
func jsonErrorText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field + ": must be " + jsonKindName(te.Type.Kind().String()) + ", got " + te.Value
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func jsonKindName(k string) string {
	switch k {
	case "slice":
		return "a list"
	case "struct", "map":
		return "an object"
	}
	return k
}

// isNull reports whether a raw value is absent or null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// kindOf names the JSON kind of a raw value for error messages.
func kindOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func rawString(raw json.RawMessage, param string) (string, *apiError) {
	if isNull(raw) {
		return "", nil
	}
	if s, ok := plainString(raw); ok {
		return s, nil
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", paramError(param, "invalid_type", "must be a string, got "+kindOf(raw))
	}
	return s, nil
}

// plainString returns the string raw holds when raw is a JSON string with
// no escape (what json.Unmarshal gives for it, without its scans), or
// false for anything else, which json.Unmarshal reads.
func plainString(raw []byte) (string, bool) {
	n := len(raw)
	if n < 2 || raw[0] != '"' || raw[n-1] != '"' || pyjson.ScanString(raw, 1) != n-1 || !utf8.Valid(raw) {
		return "", false
	}
	return string(raw[1 : n-1]), true
}

func rawBool(raw json.RawMessage, param string) (value, set bool, err *apiError) {
	if !isBool(raw) {
		return false, false, paramError(param, "invalid_type", "must be true or false, got "+kindOf(raw))
	}
	return string(raw) == "true", string(raw) == "true" || string(raw) == "false", nil
}

// isBool reports whether raw is what rawBool reads without an error:
// true, false, null or nothing. A caller that builds param only for an
// error checks it first.
func isBool(raw json.RawMessage) bool {
	switch string(raw) {
	case "", "null", "true", "false":
		return true
	}
	return false
}

// rawInt reads an integer; a number with a fraction or exponent is refused.
func rawInt(raw json.RawMessage, param string) (int64, bool, *apiError) {
	if isNull(raw) {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, false, paramError(param, "invalid_type", "must be an integer, got "+string(truncate(raw, 40)))
	}
	return n, true, nil
}

func truncate(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return append(append([]byte(nil), b[:n]...), "..."...)
}

// messagePath is the request path of message i.
func messagePath(i int) string { return "messages[" + strconv.Itoa(i) + "]" }

func markerError(u harmony.MarkerUse) *apiError {
	what := "contains the Harmony marker " + u.Marker
	if u.Key != "" {
		what = "key " + string(appendString(nil, u.Key)) + " " + what
	}
	return paramError(u.Path, "marker_in_message", what+
		", which the engine would read as a format token; start the server with --tokenizer (prompts then go to the engine as token ids, "+
		"in which such text is ordinary text), or remove it; --allow-markers lets it through as a format token, which lets content forge turns")
}

// harmonyError is a 400 for the value at path (a message or a tool) that
// harmony could not decode: param is path, and the message names the value
// inside it by joining the error's own path to path.
func harmonyError(path, code string, err error) *apiError {
	var re *harmony.RenderError
	if !errors.As(err, &re) {
		return paramError(path, code, err.Error())
	}
	return badRequest(path, code, jsonpath.Join(path, re.Path)+": "+re.Msg)
}

// decodeArguments replaces arguments sent as a JSON string by the object
// the string holds, by harmony's one rule (harmony.DecodeArguments, which
// decoding a message applies too). Arguments that are already an object
// are kept; other shapes are left for the renderer to report.
func decodeArguments(f *harmony.FunctionCall, path string) *apiError {
	args, err := harmony.DecodeArguments(f.Arguments)
	if err != nil {
		return argumentsError(path, err)
	}
	f.Arguments = args
	return nil
}

// argumentsError is the 400 for arguments sent as a string that holds no
// JSON object, at path (the error's own path is joined to it).
func argumentsError(path string, err error) *apiError {
	var re *harmony.RenderError
	if !errors.As(err, &re) {
		return paramError(path, "invalid_arguments", err.Error())
	}
	p := jsonpath.Join(path, re.Path)
	return paramError(p, "invalid_arguments", re.Msg)
}

// checkRequestMarkers is the marker rule for the APIs whose requests are
// mapped onto messages (Messages, Responses): a marker in any string the
// prompt carries (content, names, tool-call argument values at any depth,
// schema fields) is a 400 naming the request path the message came from
// (origin), unless markers are allowed or prompts go out as token ids.
func checkRequestMarkers(r *request, cfg *Config, origin []string) *apiError {
	if cfg.markersAllowed() {
		return nil
	}
	for i := range r.messages {
		if mk := harmony.FindMarker(r.messages[i].Name); mk != "" {
			return mapMessagePath(markerError(harmony.MarkerUse{Path: messagePath(i) + ".name", Marker: mk}), origin, "")
		}
	}
	if uses := harmony.MarkerUses(r.messages, &r.opts); len(uses) > 0 {
		u := uses[0]
		// A message's content is the request value its origin names.
		if rest, ok := strings.CutSuffix(u.Path, "].content"); ok && strings.HasPrefix(rest, "messages[") && !strings.Contains(rest, ".") {
			u.Path = rest + "]"
		}
		return mapMessagePath(markerError(u), origin, "")
	}
	return nil
}
