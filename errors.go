package harmony

import (
	"errors"
	"strconv"
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

// RenderError reports input that cannot be rendered. Path names the
// offending value in the request's JSON shape, such as
// "messages[3].tool_calls[0].function.arguments"; it is empty for the
// errors the format page words itself, whose text then stands alone
// exactly as the page gives it.
type RenderError struct {
	Path string
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

// Unwrap lets errors.Is match ErrInvalidEffort and ErrMissingReasoning.
func (e *RenderError) Unwrap() error { return e.kind }

func errAt(path, msg string) error { return &RenderError{Path: path, Msg: msg} }

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
