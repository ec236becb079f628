package harmony_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// callTurn is a conversation whose last message is an assistant turn
// calling name with the arguments object args.
func callTurn(name string, args []byte) []harmony.Message {
	return []harmony.Message{
		{Role: harmony.RoleUser, Content: "u"},
		{Role: harmony.RoleAssistant, Reasoning: "r", ToolCalls: []harmony.ToolCall{
			{Type: "function", Function: harmony.FunctionCall{Name: name, Arguments: args}},
		}},
	}
}

// renderLastTurn renders messages and splits the prompt at the last
// assistant turn: prefix is the prompt that precedes it (ending in the
// generation prompt), gen the turn as Beam would generate it.
func renderLastTurn(messages []harmony.Message, opts *harmony.Options) (prefix, gen string, err error) {
	full, err := harmony.Render(messages, opts)
	if err != nil {
		return "", "", err
	}
	o := harmony.Options{}
	if opts != nil {
		o = *opts
	}
	o.AddGenerationPrompt = true
	o.RequireReasoning = false
	prefix, err = harmony.Render(messages[:len(messages)-1], &o)
	if err != nil {
		return "", "", err
	}
	if !strings.HasPrefix(full, prefix) {
		return "", "", &prefixError{prefix, full}
	}
	return prefix, full[len(prefix):], nil
}

type prefixError struct{ prefix, full string }

func (e *prefixError) Error() string {
	return "the prompt without the last turn is not a prefix of the full prompt:\n" + e.prefix + "\n" + e.full
}

// argsObject writes a JSON object whose keys are keys, in order, each
// with the value "v".
func argsObject(keys []string) []byte {
	b := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ", "...)
		}
		q, _ := json.Marshal(k)
		b = append(b, q...)
		b = append(b, `: "v"`...)
	}
	return append(b, '}')
}

// objectKeys returns the keys of a JSON object text, in order.
func objectKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("arguments %s: not an object (%v)", raw, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("arguments %s: %v", raw, err)
		}
		keys = append(keys, tok.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("arguments %s: %v", raw, err)
		}
	}
	return keys
}

// parseBoth parses gen after prefix one-shot and byte by byte, and fails
// the test when the two disagree.
func parseBoth(t *testing.T, prefix, gen string) (*harmony.Parsed, error) {
	t.Helper()
	opts := &harmony.ParseOptions{Prefix: prefix}
	res, err := harmony.Parse(gen, opts)
	p := harmony.NewStreamParser(opts)
	var serr error
	for i := 0; i < len(gen) && serr == nil; i++ {
		_, serr = p.Feed(gen[i:i+1], nil)
	}
	_, sres, serr := p.Finish(nil)
	if errText(err) != errText(serr) {
		t.Fatalf("Parse error %v, byte-by-byte stream error %v", err, serr)
	}
	if got, want := sres.Message.ToolCalls, res.Message.ToolCalls; len(got) != len(want) {
		t.Fatalf("stream gave %d calls, Parse %d", len(got), len(want))
	}
	return res, err
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The rule for tool names (DECISIONS.md, Names and markers) is one
// predicate: what the renderer rejects, with which text, and what the
// parser reads back as a recipient.
func TestToolNameRule(t *testing.T) {
	tests := []struct {
		name, tool string
		want       string // the error after the path; "" means valid
	}{
		{"ASCII", "get_weather", ""},
		{"dots and dashes", "ns.tool-v2", ""},
		{"non-ASCII letters", "météo", ""},
		{"zero-width space is not whitespace", "a\u200bb", ""},
		{"U+FFFD is a character", "a\uFFFDb", ""},
		{"empty", "", "missing tool name"},
		{"space", "get weather", `tool name "get weather" contains whitespace`},
		{"tab", "a\tb", `tool name "a\tb" contains whitespace`},
		{"no-break space", "a\u00a0b", "tool name \"a\u00a0b\" contains whitespace"},
		{"ideographic space", "a\u3000b", "tool name \"a\u3000b\" contains whitespace"},
		{"NEL is whitespace before it is a control", "a\u0085b", "tool name \"a\u0085b\" contains whitespace"},
		{"<", "a<b", `tool name "a<b" contains "<"`},
		{">", "a>b", `tool name "a>b" contains ">"`},
		{"quote", `a"b`, `tool name "a\"b" contains "\""`},
		{"SOH", "a\x01b", `tool name "a\u0001b" contains a control character`},
		{"NUL", "a\x00b", `tool name "a\u0000b" contains a control character`},
		{"ESC", "a\x1bb", `tool name "a\u001bb" contains a control character`},
		{"DEL", "a\x7fb", "tool name \"a\x7fb\" contains a control character"},
		{"C1 control", "a\u009fb", "tool name \"a\u009fb\" contains a control character"},
		{"first offending rune decides: control", "a\x01<", `tool name "a\u0001<" contains a control character`},
		{"first offending rune decides: <", "a<\x01", `tool name "a<\u0001" contains "<"`},
		{"first offending rune decides: whitespace", "a \x01", `tool name "a \u0001" contains whitespace`},
		{"invalid UTF-8", "a\xffb", "tool name \"a\xffb\" is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A call's name.
			prefix, gen, err := renderLastTurn(callTurn(tt.tool, []byte(`{"k": "v"}`)), nil)
			if got := errText(err); tt.want == "" && err != nil || tt.want != "" && got != "messages[1].tool_calls[0].function.name: "+tt.want {
				t.Fatalf("render call: error %q, want %q", got, tt.want)
			}
			// A tool result's name and a declared tool's name.
			_, err = harmony.Render([]harmony.Message{{Role: harmony.RoleTool, Name: tt.tool, Content: "x"}}, nil)
			if got := errText(err); tt.tool != "" && (tt.want == "" && err != nil || tt.want != "" && got != "messages[0].name: "+tt.want) {
				t.Errorf("render tool result: error %q, want %q", got, tt.want)
			}
			_, err = harmony.Render(nil, &harmony.Options{Tools: []harmony.Tool{{Function: harmony.Function{Name: tt.tool}}}})
			if got := errText(err); tt.want == "" && err != nil || tt.want != "" && got != "tools[0].function.name: "+tt.want {
				t.Errorf("render tool: error %q, want %q", got, tt.want)
			}
			if tt.want != "" {
				// The parser rejects the same name as a recipient.
				gen := "<|channel|>analysis<|message|>r<|end|><|start|>assistant to=" + tt.tool +
					"<|channel|>analysis <|constrain|>xml<|message|><|call|>"
				if res, err := parseBoth(t, "", gen); err == nil {
					t.Fatalf("Parse accepted the recipient %q: %+v", tt.tool, res.Message.ToolCalls)
				}
				return
			}
			res, err := parseBoth(t, prefix, gen)
			if err != nil {
				t.Fatalf("rendered %q does not parse: %v", gen, err)
			}
			if calls := res.Message.ToolCalls; len(calls) != 1 || calls[0].Function.Name != tt.tool {
				t.Fatalf("parsed calls %+v, want one to %q", calls, tt.tool)
			}
		})
	}
}

// The rule for argument keys: ", <, > and a newline are rejected by both
// directions; every other key renders and parses back.
func TestArgumentKeyRule(t *testing.T) {
	tests := []struct {
		name, key string
		want      string // the renderer's error; "" means valid
	}{
		{"ASCII", "city", ""},
		{"tab", "a\tb", ""},
		{"carriage return", "a\rb", ""},
		{"space only", " ", ""},
		{"control characters", "\x01\x1b\x7f\u0085\u009f", ""},
		{"line and paragraph separators", "a\u2028b\u2029", ""},
		{"non-ASCII", "ville_zürich_東京", ""},
		{"marker-like without <", "|end|", ""},
		{"empty", "", `key "" is empty; argument names must be non-empty`},
		{"quote", `a"b`, `key "a\"b" contains "\""; argument names can't contain ", <, > or a newline`},
		{"<", "a<b", `key "a<b" contains "<"; argument names can't contain ", <, > or a newline`},
		{">", "a>b", `key "a>b" contains ">"; argument names can't contain ", <, > or a newline`},
		{"newline", "a\nb", `key "a\nb" contains "\n"; argument names can't contain ", <, > or a newline`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys := []string{"first", tt.key, "last"}
			prefix, gen, err := renderLastTurn(callTurn("f", argsObject(keys)), nil)
			if tt.want != "" {
				if got, want := errText(err), "messages[1].tool_calls[0].function.arguments: "+tt.want; got != want {
					t.Fatalf("render: error %q, want %q", got, want)
				}
				// The parser rejects the same key in a tag.
				gen := "<|channel|>analysis<|message|>r<|end|><|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|>" +
					"<rfl:parameter name=\"" + tt.key + "\">\nv\n</rfl:parameter><|call|>"
				if _, err := parseBoth(t, "", gen); err == nil {
					t.Fatalf("Parse accepted the key %q", tt.key)
				}
				return
			}
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			res, err := parseBoth(t, prefix, gen)
			if err != nil {
				t.Fatalf("rendered %q does not parse: %v", gen, err)
			}
			if got := objectKeys(t, res.Message.ToolCalls[0].Function.Arguments); !slices.Equal(got, keys) {
				t.Fatalf("parsed keys %q, want %q", got, keys)
			}
		})
	}
}

// Markers returns a copy: changing it changes nothing the parser reads.
func TestMarkersIsACopy(t *testing.T) {
	m := harmony.Markers()
	if len(m) != 7 || m[1] != harmony.MarkerEnd {
		t.Fatalf("Markers() = %q", m)
	}
	m[1] = "<|nope|>"
	if harmony.Markers()[1] != harmony.MarkerEnd {
		t.Fatal("changing the returned slice changed Markers()")
	}
	res, err := harmony.Parse("<|channel|>analysis<|message|>a<|end|>", nil)
	if err != nil || res.Message.Reasoning != "a" {
		t.Fatalf("Parse after changing the copy: %v %+v", err, res)
	}
}
