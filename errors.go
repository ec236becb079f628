package harmony

import (
	"errors"
	"strconv"

	"github.com/beamharmony/harmony/internal/jsonpath"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// Error texts the format page words itself. They are used verbatim, as the
// checkpoint's template raises them.
const (
	// errEffortText is the page's error for a reasoning_effort that is
	// neither an integer nor one of the six labels.
	errEffortText = "reasoning_effort must be an int or one of: minimal, low, medium, high, xhigh, max"
	// errToolSpeakerText is the page's rule for a tool message without a
	// speaker, used as the message of that error.
	errToolSpeakerText = "The tool message needs a name, or a tool_call_id that matches an earlier call."
)

// ErrInvalidEffort is returned (wrapped in a *RenderError) for a
// reasoning_effort that is not an integer or one of the six labels.
var ErrInvalidEffort = errors.New(errEffortText)

// ErrMissingReasoning is returned (wrapped in a *RenderError) when
// Options.RequireReasoning is set and an earlier assistant turn has no
// reasoning.
var ErrMissingReasoning = errors.New("assistant turn is missing its reasoning")

// RenderError reports input that cannot be decoded or rendered: it is the
// one error type of ParseRequest, the UnmarshalJSON methods of Request,
// Message, Tool and ReasoningEffort, and of rendering, so a caller needs a
// single errors.As to find the offending value. (A request that cannot be
// decoded is one that cannot be rendered; a second type of the same shape
// would only make every caller test for both.)
//
// Path names the offending value in the request's JSON shape, such as
// "messages[3].tool_calls[0].function.arguments"; for Message.UnmarshalJSON
// and Tool.UnmarshalJSON it is relative to that value ("content[0].type"),
// and empty for the value itself. It is also empty for the errors the
// format page words itself, whose text then stands alone exactly as the
// page gives it.
type RenderError struct {
	// Path is the JSON path of the offending value, or empty.
	Path string
	// Msg says what is wrong, and where it helps, what to do.
	Msg  string
	kind error
}

// Error returns "path: message", or the message alone when there is no path.
func (e *RenderError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Unwrap lets errors.Is match ErrInvalidEffort, ErrMissingReasoning and
// ErrArgumentsString, and errors.As find the *SyntaxError behind invalid
// JSON.
func (e *RenderError) Unwrap() error { return e.kind }

// SyntaxError is invalid JSON in a request, message or tool, with the byte
// offset where it was found; a *RenderError wraps it (errors.As).
type SyntaxError struct {
	// Offset is the byte offset in the JSON text where it went wrong.
	Offset int
	// Msg says what was found there.
	Msg string
}

// Error returns "invalid JSON at byte N: what".
func (e *SyntaxError) Error() string {
	return "invalid JSON at byte " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// syntaxError is err as a *SyntaxError when the JSON parser found the
// text invalid, and err itself otherwise.
func syntaxError(err error) error {
	var pe *pyjson.SyntaxError
	if errors.As(err, &pe) {
		return &SyntaxError{Offset: pe.Offset, Msg: pe.Msg}
	}
	return err
}

func errAt(path, msg string) error { return &RenderError{Path: path, Msg: msg} }

// errJSON reports JSON that does not parse, at path.
func errJSON(path string, err error) error {
	return &RenderError{Path: path, Msg: err.Error(), kind: syntaxError(err)}
}

// prefixPath puts prefix in front of a decoding error's path:
// "tool_calls[0]" and "function.name" give "tool_calls[0].function.name",
// "messages[1]" and "[2]" give "messages[1][2]", and an empty path gives
// prefix. Errors of other types are returned unchanged.
func prefixPath(prefix string, err error) error {
	re, ok := err.(*RenderError)
	if !ok {
		return err
	}
	c := *re
	c.Path = jsonpath.Join(prefix, re.Path)
	return &c
}

func errInvalidEffort() error {
	return &RenderError{Msg: errEffortText, kind: ErrInvalidEffort}
}

// errMissingReasoning is the page's error for the first assistant turn
// without reasoning, at messages[index].
func errMissingReasoning(index int) error {
	return &RenderError{
		Msg: "The assistant turn at messages[" + strconv.Itoa(index) + "] is missing its reasoning. " +
			"Dropping reasoning from earlier turns degrades this model's output. " +
			"Send it back in 'reasoning_content', or set allow_missing_thinking=true to skip this check.",
		kind: ErrMissingReasoning,
	}
}

// messagePath returns "messages[i]".
func messagePath(i int) string { return "messages[" + strconv.Itoa(i) + "]" }

// toolPath returns "tools[i]".
func toolPath(i int) string { return "tools[" + strconv.Itoa(i) + "]" }
