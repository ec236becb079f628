package harmony_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// Every decoding problem is a *harmony.RenderError whose Path names the
// value and whose Error is "path: msg", whichever decoder found it.
func TestDecodeErrorsAreRenderErrors(t *testing.T) {
	tests := []struct {
		name   string
		decode func() error
		path   string
		text   string
	}{
		{"request not UTF-8", func() error { _, err := harmony.ParseRequest([]byte("{\"messages\": [\"\xff\"]}")); return err },
			"request", "request: not valid UTF-8"},
		{"request not JSON", func() error { _, err := harmony.ParseRequest([]byte(`{"messages": [}`)); return err },
			"request", "request: invalid JSON at byte 14: unexpected '}'"},
		{"request not an object", func() error { _, err := harmony.ParseRequest([]byte(`[]`)); return err },
			"request", `request: must be a JSON object with "messages"`},
		{"messages missing", func() error { _, err := harmony.ParseRequest([]byte(`{}`)); return err },
			"messages", "messages: required, a list of messages"},
		{"content of a message", func() error {
			_, err := harmony.ParseRequest([]byte(`{"messages": [{"role": "user", "content": 5}]}`))
			return err
		}, "messages[0].content", "messages[0].content: must be a string, null or a list of text parts, got number"},
		{"part type", func() error {
			_, err := harmony.ParseRequest([]byte(`{"messages": [{"role": "user", "content": [{"type": "image"}]}]}`))
			return err
		}, "messages[0].content[0].type", `messages[0].content[0].type: unsupported part type "image"; Beam reads text parts only`},
		{"tool call name", func() error {
			_, err := harmony.ParseRequest([]byte(`{"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": 1}}]}]}`))
			return err
		}, "messages[0].tool_calls[0].function.name", "messages[0].tool_calls[0].function.name: must be a string, got number"},
		{"tool description", func() error {
			_, err := harmony.ParseRequest([]byte(`{"messages": [], "tools": [{"function": {"name": "f", "description": []}}]}`))
			return err
		}, "tools[0].function.description", "tools[0].function.description: must be a string, got array"},
		{"Request.UnmarshalJSON", func() error { var r harmony.Request; return json.Unmarshal([]byte(`{"messages": 1}`), &r) },
			"messages", "messages: required, a list of messages"},
		{"message not an object", func() error { var m harmony.Message; return m.UnmarshalJSON([]byte(`[1]`)) },
			"", "must be a JSON object, got array"},
		{"message not JSON", func() error { var m harmony.Message; return m.UnmarshalJSON([]byte(`{`)) },
			"", "invalid JSON at byte 1: expected a string key"},
		{"message field", func() error { var m harmony.Message; return m.UnmarshalJSON([]byte(`{"tool_calls": [1]}`)) },
			"tool_calls[0]", "tool_calls[0]: must be a JSON object, got number"},
		{"tool function", func() error { var tl harmony.Tool; return tl.UnmarshalJSON([]byte(`{"function": 1}`)) },
			"function", "function: must be an object with name, description and parameters"},
		{"effort not JSON", func() error { var e harmony.ReasoningEffort; return e.UnmarshalJSON([]byte(`hi`)) },
			"", "invalid JSON at byte 0: unexpected 'h'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.decode()
			var re *harmony.RenderError
			if !errors.As(err, &re) {
				t.Fatalf("%T %v: not a *RenderError", err, err)
			}
			if re.Path != tt.path || err.Error() != tt.text {
				t.Errorf("got path %q, %q; want %q, %q", re.Path, err.Error(), tt.path, tt.text)
			}
		})
	}
}

// Invalid JSON keeps its syntax error behind the RenderError.
func TestDecodeErrorUnwrapsSyntaxError(t *testing.T) {
	_, err := harmony.ParseRequest([]byte(`{"messages": [}`))
	var se *pyjson.SyntaxError
	if !errors.As(err, &se) || se.Offset != 14 {
		t.Errorf("%v: no syntax error at byte 14 behind it", err)
	}
}

func TestJoinPath(t *testing.T) {
	tests := []struct{ prefix, path, want string }{
		{"messages[1]", "content[0].type", "messages[1].content[0].type"},
		{"tools", "[2]", "tools[2]"},
		{"messages[1]", "", "messages[1]"},
		{"", "name", "name"},
	}
	for _, tt := range tests {
		if got := harmony.JoinPath(tt.prefix, tt.path); got != tt.want {
			t.Errorf("JoinPath(%q, %q) = %q, want %q", tt.prefix, tt.path, got, tt.want)
		}
	}
}
