package harmony

import (
	"strconv"

	"github.com/beamharmony/harmony/internal/jsonpath"
	"github.com/beamharmony/harmony/internal/spell"
)

// The keys ParseRequest reads, of a request and of each message (and, below,
// of the objects within them and of a tool). Any other
// key is kept in the Request as an unknown key: the renderer has no use
// for it, and a misspelt key (reasoning_efort, tool) would otherwise change
// the prompt without a word. Lint warns about each one with the known key
// it is closest to; with Options.Strict, the Request's render methods
// refuse the first one.
var (
	requestKeys = []string{"messages", "tools", "add_generation_prompt", "allow_missing_thinking",
		"reasoning_effort", "model_identity", "builtin_tools"}
	messageKeys = []string{"role", "content", "reasoning_content", "thinking", "reasoning",
		"tool_calls", "tool_call_id", "name"}
	// The objects within a message and a tool have keys of their own. A
	// call's index (its position in a streamed reply), a function's strict
	// (OpenAI's flag for constrained arguments) and its return (the return
	// type Transformers' get_json_schema writes) belong to the wire shapes
	// and change nothing in the prompt: they are known keys, not warned
	// about. A misspelt one (paramters, argumnets) is.
	partKeys         = []string{"type", "text"}
	callKeys         = []string{"id", "type", "function", "index"}
	callFunctionKeys = []string{"name", "arguments"}
	toolKeys         = []string{"type", "function"}
	functionKeys     = []string{"name", "description", "parameters", "strict", "return"}
)

// unknownKey is a key ParseRequest did not read: its JSON path and the
// known key it was probably meant to be ("" when none is close).
type unknownKey struct {
	path, suggestion string
}

func (u unknownKey) message(strict bool) string {
	msg := "unknown key, not rendered"
	if strict {
		msg = "unknown key (strict mode)"
	}
	if u.suggestion != "" {
		msg += "; did you mean " + u.suggestion + "?"
	} else {
		msg += "; remove it"
	}
	return msg
}

// newUnknownKey names key, found in the object at prefix, among known.
func newUnknownKey(prefix, key string, known []string) unknownKey {
	return unknownKey{path: keyPath(prefix, key), suggestion: spell.Closest(key, known)}
}

// keyPath joins key to prefix as jsonpath.Key does: a key made of
// letters, digits and underscores after a dot, any other quoted in
// brackets, so that the path names it unambiguously.
func keyPath(prefix, key string) string { return jsonpath.Key(prefix, key) }

// lintUnknownKeys appends a warning for each unknown key.
func lintUnknownKeys(ws []Warning, unknown []unknownKey) []Warning {
	for _, u := range unknown {
		ws = append(ws, Warning{u.path, u.message(false)})
	}
	return ws
}

// checkUnknownKeys is the Request's strict check: the first unknown key
// is an error.
func (r *Request) checkUnknownKeys() error {
	if !r.Strict || len(r.unknown) == 0 {
		return nil
	}
	u := r.unknown[0]
	msg := u.message(true)
	if n := len(r.unknown) - 1; n > 0 {
		msg += " (and " + strconv.Itoa(n) + " more unknown keys)"
	}
	return errAt(u.path, msg)
}
