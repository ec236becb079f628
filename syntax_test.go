package harmony_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
	"golang.org/x/text/unicode/norm"
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
		{"zero-width space is a format character", "a\u200bb", "tool name \"a\u200bb\" contains the format character U+200B"},
		{"byte order mark after a role", "user\ufeff", "tool name \"user\ufeff\" contains the format character U+FEFF"},
		{"word joiner after a role", "assistant\u2060", "tool name \"assistant\u2060\" contains the format character U+2060"},
		{"right-to-left override", "developer\u202e", "tool name \"developer\u202e\" contains the format character U+202E"},
		{"bidi isolate", "get_weather\u2066", "tool name \"get_weather\u2066\" contains the format character U+2066"},
		{"soft hyphen inside a role", "sys\u00adtem", "tool name \"sys\u00adtem\" contains the format character U+00AD"},
		{"supplementary format character", "a\U000E0001", "tool name \"a\U000E0001\" contains the format character U+E0001"},
		{"fullwidth role", "\uff53\uff59\uff53\uff54\uff45\uff4d", "tool name \"\uff53\uff59\uff53\uff54\uff45\uff4d\" reads as \"system\" (NFKC); a tool name can't stand for a role or a built-in tool"},
		{"ligature in a role", "sy\ufb06em", "tool name \"sy\ufb06em\" reads as \"system\" (NFKC); a tool name can't stand for a role or a built-in tool"},
		{"mathematical letters for a built-in tool", "\U0001d41b\U0001d41a\U0001d42c\U0001d421", "tool name \"\U0001d41b\U0001d41a\U0001d42c\U0001d421\" reads as \"bash\" (NFKC); a tool name can't stand for a role or a built-in tool"},
		{"a built-in tool by its name", "search", ""},
		{"fullwidth uppercase is no role", "\uff33YSTEM", ""},
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
		{"a role name", "system", `tool name "system" is a role name; a tool can't be named system, developer, user or assistant`},
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

// wantNameError is the tool-name rule written from the unicode package
// and DECISIONS.md's list of roles:
// the renderer's error text for name, or "" when the name is valid.
func wantNameError(name string) string {
	if name == "" {
		return "missing tool name"
	}
	q := string(pyjson.AppendQuoted(nil, name))
	for _, r := range name {
		switch {
		case unicode.IsSpace(r):
			return "tool name " + q + " contains whitespace"
		case strings.ContainsRune(`<>"`, r):
			return "tool name " + q + " contains " + string(pyjson.AppendQuoted(nil, string(r)))
		case unicode.IsControl(r):
			return "tool name " + q + " contains a control character"
		case unicode.In(r, unicode.Cf):
			return "tool name " + q + fmt.Sprintf(" contains the format character U+%04X", r)
		}
	}
	switch name {
	case "system", "developer", "user", "assistant":
		return "tool name " + q + " is a role name; a tool can't be named system, developer, user or assistant"
	}
	if folded := norm.NFKC.String(name); folded != name {
		switch folded {
		case "system", "developer", "user", "assistant", "search", "browse", "bash":
			return "tool name " + q + " reads as \"" + folded + "\" (NFKC); a tool name can't stand for a role or a built-in tool"
		}
	}
	return ""
}

// wantKeyError is the argument-key rule: the renderer's error text after
// `key "K" `, or "" when the key is valid.
func wantKeyError(key string) string {
	if key == "" {
		return "is empty; argument names must be non-empty"
	}
	if i := strings.IndexAny(key, "\"<>\n"); i >= 0 {
		return "contains " + string(pyjson.AppendQuoted(nil, key[i:i+1])) + "; argument names can't contain \", <, > or a newline"
	}
	return ""
}

// checkNames renders one assistant turn with a call to each name and
// checks that the parser, one-shot and in chunks of chunk bytes (0: no
// streamed parse), reads the same names back. Names that break the rule are checked one by one: the
// renderer's error is the rule's text, and the parser rejects the name as
// a recipient.
func checkNames(t *testing.T, names []string, chunk int) {
	t.Helper()
	var valid []harmony.ToolCall
	for _, name := range names {
		want := wantNameError(name)
		if want == "" {
			valid = append(valid, harmony.ToolCall{Function: harmony.FunctionCall{Name: name, Arguments: []byte("{}")}})
			continue
		}
		_, err := harmony.Render(callTurn(name, []byte("{}")), nil)
		if got := errText(err); got != "messages[1].tool_calls[0].function.name: "+want {
			t.Fatalf("render %q: error %q, want %q", name, got, want)
		}
		if name == "" {
			continue
		}
		gen := "<|channel|>analysis<|message|>r<|end|><|start|>assistant to=" + name +
			"<|channel|>analysis <|constrain|>xml<|message|><|call|>"
		// A header's words are separated by spaces: "to=NAME " may be
		// a valid name and a separator. Whatever the parser reads as a
		// recipient, it is never a name the renderer rejects.
		if res, _, err := parseChunked(gen, "", chunk); err == nil {
			for _, c := range res.Message.ToolCalls {
				if c.Function.Name == name || wantNameError(c.Function.Name) != "" {
					t.Fatalf("Parse accepted the recipient %q as %q", name, c.Function.Name)
				}
			}
		}
	}
	if len(valid) == 0 {
		return
	}
	messages := callTurn("x", nil)
	messages[1].ToolCalls = valid
	prefix, gen, err := renderLastTurn(messages, nil)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	res, streamed, err := parseChunked(gen, prefix, chunk)
	if err != nil {
		t.Fatalf("the rendered calls do not parse back: %v", err)
	}
	for _, calls := range [][]harmony.ToolCall{res.Message.ToolCalls, streamed.Message.ToolCalls} {
		if len(calls) != len(valid) {
			t.Fatalf("parsed %d calls, rendered %d", len(calls), len(valid))
		}
		for i := range calls {
			if calls[i].Function.Name != valid[i].Function.Name {
				t.Fatalf("call %d: parsed the name %q, rendered %q", i, calls[i].Function.Name, valid[i].Function.Name)
			}
		}
	}
}

// checkKeys is checkNames for argument keys: the valid keys go into one
// call's arguments.
func checkKeys(t *testing.T, keys []string, chunk int) {
	t.Helper()
	var valid []string
	seen := map[string]bool{}
	for _, key := range keys {
		want := wantKeyError(key)
		if want == "" {
			if !seen[key] {
				seen[key] = true
				valid = append(valid, key)
			}
			continue
		}
		_, err := harmony.Render(callTurn("f", argsObject([]string{key})), nil)
		q := string(pyjson.AppendQuoted(nil, key))
		if got := errText(err); got != "messages[1].tool_calls[0].function.arguments: key "+q+" "+want {
			t.Fatalf("render key %q: error %q, want %q", key, got, want)
		}
		gen := "<|channel|>analysis<|message|>r<|end|><|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|>" +
			"<rfl:parameter name=\"" + key + "\">\nv\n</rfl:parameter><|call|>"
		// The text after a bad key may still be a valid call (a quote
		// ends the key early); then the keys the parser reads are others
		// the renderer accepts.
		if res, _, err := parseChunked(gen, "", chunk); err == nil {
			for _, k := range objectKeys(t, res.Message.ToolCalls[0].Function.Arguments) {
				if k == key || wantKeyError(k) != "" {
					t.Fatalf("Parse accepted the key %q as %q", key, k)
				}
			}
		}
	}
	if len(valid) == 0 {
		return
	}
	prefix, gen, err := renderLastTurn(callTurn("f", argsObject(valid)), nil)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	res, streamed, err := parseChunked(gen, prefix, chunk)
	if err != nil {
		t.Fatalf("the rendered keys do not parse back: %v", err)
	}
	for _, r := range []*harmony.Parsed{res, streamed} {
		if got := objectKeys(t, r.Message.ToolCalls[0].Function.Arguments); !slices.Equal(got, valid) {
			for i := range min(len(got), len(valid)) {
				if got[i] != valid[i] {
					t.Fatalf("key %d: parsed %q, rendered %q", i, got[i], valid[i])
				}
			}
			t.Fatalf("parsed %d keys, rendered %d", len(got), len(valid))
		}
	}
}

// parseChunked parses gen one-shot and, unless size is 0, in chunks of
// size bytes; the two must agree on the error.
func parseChunked(gen, prefix string, size int) (oneShot, streamed *harmony.Parsed, err error) {
	opts := &harmony.ParseOptions{Prefix: prefix}
	oneShot, err = harmony.Parse(gen, opts)
	if size == 0 {
		return oneShot, oneShot, err
	}
	p := harmony.NewStreamParser(opts)
	for i := 0; i < len(gen); i += size {
		if _, serr := p.Feed(gen[i:min(i+size, len(gen))], nil); serr != nil {
			break
		}
	}
	_, streamed, serr := p.Finish(nil)
	if errText(serr) != errText(err) {
		return nil, nil, fmt.Errorf("one-shot error %v, streamed error %v", err, serr)
	}
	return oneShot, streamed, err
}

// everyRune calls fn with batches of the strings made of one code point,
// for every code point that a Go string can hold (all but surrogates).
// Under the race detector, which makes this about ten times slower, it
// takes every code point of the Basic Multilingual Plane and every 61st
// above it (no rule names a character there).
func everyRune(fn func(batch []string)) {
	const size = 4096
	batch := make([]string, 0, size)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if utf16.IsSurrogate(r) || raceEnabled && r > 0xffff && r%61 != 0 {
			continue
		}
		batch = append(batch, string(r))
		if len(batch) == size {
			fn(batch)
			batch = batch[:0]
		}
	}
	fn(batch)
}

// Every single code point as a tool name: what renders parses back, and
// what the renderer rejects it rejects by the rule, as the parser does.
func TestToolNameEveryRune(t *testing.T) {
	everyRune(func(names []string) { checkNames(t, names, 0) })
}

// Every single code point as an argument key.
func TestArgumentKeyEveryRune(t *testing.T) {
	everyRune(func(keys []string) { checkKeys(t, keys, 0) })
}

// randomName returns 1 to 6 runes drawn from the whole of Unicode, with
// extra weight on the characters the rules are about, or a role name.
func randomName(rng *rand.Rand) string {
	if rng.IntN(50) == 0 {
		return []string{"system", "developer", "user", "assistant"}[rng.IntN(4)]
	}
	var b strings.Builder
	for n := 1 + rng.IntN(6); n > 0; n-- {
		var r rune
		switch rng.IntN(10) {
		case 0, 1, 2:
			r = rune(0x21 + rng.IntN(0x5e)) // printable ASCII
		case 3:
			r = rune(rng.IntN(0x20)) // C0 controls
		case 4:
			r = rune(0x7f + rng.IntN(0x21)) // DEL and C1 controls
		case 5:
			r = []rune(" \t\n\r\v\f\u0085\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\u200b\ufeff")[rng.IntN(18)]
		case 6:
			r = []rune(`<>"|`)[rng.IntN(4)]
		default:
			for r = rune(rng.IntN(unicode.MaxRune + 1)); utf16.IsSurrogate(r); r = rune(rng.IntN(unicode.MaxRune + 1)) {
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Random names and keys from the whole of Unicode, control characters
// included: what Render accepts, Parse gives back.
func TestRoundTripRandomNamesAndKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 12))
	for range 20 {
		names := make([]string, 500)
		keys := make([]string, 500)
		for i := range names {
			names[i], keys[i] = randomName(rng), randomName(rng)
		}
		checkNames(t, names, 7)
		checkKeys(t, keys, 7)
	}
}
