package harmony_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

var updateParse = flag.Bool("update-parse", false, "rewrite the expected results in testdata/parse")

const (
	analysisHi = "<|channel|>analysis<|message|>Hi.<|end|>"
	callHeader = "<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>"
)

// parseCase is one rule of DECISIONS.md, Parsing, as an input and what it
// must give. Every row is also replayed in every chunking.
type parseCase struct {
	name     string
	prefix   string
	gen      string
	tools    bool   // cast with get_weather
	want     string // the message's JSON
	end      string
	rest     string
	warnings string // a substring of the joined warnings; "" means none
}

var parseCases = []parseCase{
	{name: "reasoning then answer",
		gen:  "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Answer.<|return|>",
		want: `{"role": "assistant", "thinking": "Think.", "content": "Answer."}`, end: "<|return|>"},
	{name: "end of input completes the open answer",
		gen:  analysisHi + "<|start|>assistant<|channel|>final<|message|>Answer.",
		want: `{"role": "assistant", "thinking": "Hi.", "content": "Answer."}`},
	{name: "end of input completes the open reasoning",
		gen:  "<|channel|>analysis<|message|>Still thinking",
		want: `{"role": "assistant", "thinking": "Still thinking"}`},
	{name: "end of input after <|end|> is fine",
		gen:  analysisHi,
		want: `{"role": "assistant", "thinking": "Hi."}`},
	{name: "a call whose arguments are closed is complete without <|call|>",
		gen:  analysisHi + callHeader + "<rfl:parameter name=\"city\">\nParis\n</rfl:parameter>",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}`},
	{name: "to= after the channel",
		gen:  analysisHi + "<|start|>assistant<|channel|>analysis to=get_weather <|constrain|>xml<|message|><|call|>",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {}}}]}`,
		end:  "<|call|>"},
	{name: "<|constrain|> without the space",
		gen:  analysisHi + "<|start|>assistant to=get_weather<|channel|>analysis<|constrain|>xml<|message|><|call|>",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {}}}]}`,
		end:  "<|call|>"},
	{name: "<|constrain|> may be left out",
		gen:  analysisHi + "<|start|>assistant to=get_weather<|channel|>analysis<|message|><|call|>",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {}}}]}`,
		end:  "<|call|>"},
	{name: "any header with a recipient is a tool call, final channel too",
		gen:  "<|channel|>final to=get_weather<|message|><|call|>",
		want: `{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {}}}]}`,
		end:  "<|call|>"},
	{name: "the generation's first header may name no recipient after the prompt's speaker",
		gen:  " <|channel|>final<|message|>x<|return|>",
		want: `{"role": "assistant", "content": "x"}`, end: "<|return|>"},
	{name: "a prompt ending in <|start|> lets the generation name the speaker",
		prefix: "<|start|>user<|message|>Hi<|end|><|start|>",
		gen:    "assistant<|channel|>final<|message|>x<|return|>",
		want:   `{"role": "assistant", "content": "x"}`, end: "<|return|>"},
	{name: "without a prefix the generation may begin with <|start|>assistant",
		gen:  "<|start|>assistant<|channel|>final<|message|>x<|return|>",
		want: `{"role": "assistant", "content": "x"}`, end: "<|return|>"},
	{name: "a prompt ending in a whole header continues its body",
		prefix: "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>",
		gen:    "Hello!<|return|>",
		want:   `{"role": "assistant", "content": "Hello!"}`, end: "<|return|>"},
	{name: "a prompt's prefill is not part of the message",
		prefix: "<|start|>assistant<|channel|>analysis<|message|>Let me",
		gen:    " think.<|end|>",
		want:   `{"role": "assistant", "thinking": " think."}`},
	{name: "a prompt ending in <|end|> expects a new message",
		prefix: "<|start|>user<|message|>Hi<|end|>",
		gen:    "<|start|>assistant<|channel|>final<|message|>x<|return|>",
		want:   `{"role": "assistant", "content": "x"}`, end: "<|return|>"},
	{name: "a prompt ending inside a call header continues it",
		prefix: "<|start|>assistant to=get_weather<|channel|>analysis ",
		gen:    "<|constrain|>xml<|message|><rfl:parameter name=\"city\">\nRome\n</rfl:parameter><|call|>",
		want:   `{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Rome"}}}]}`,
		end:    "<|call|>"},
	{name: "markers inside a value are text, with a warning naming the first",
		gen:  analysisHi + callHeader + "<rfl:parameter name=\"city\">\na<|end|><|start|>b<|call|>c<rfl:parameter name=\"x\">\n</rfl:parameter><|call|>",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "a<|end|><|start|>b<|call|>c<rfl:parameter name=\"x\">"}}}]}`,
		end:  "<|call|>", warnings: `tool call 0 (get_weather): argument "city" contains marker text <|end|>; `},
	{name: "a marker in a value cast by its schema warns too",
		gen:   analysisHi + callHeader + "<rfl:parameter name=\"days\">\n[\"<|return|>\"]\n</rfl:parameter><|call|>",
		tools: true,
		want:  `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"days": "[\"<|return|>\"]"}}}]}`,
		end:   "<|call|>", warnings: `tool call 0 (get_weather): argument "days" contains marker text <|return|>; `},
	{name: "marker-like text that is no marker does not warn",
		gen:  analysisHi + callHeader + "<rfl:parameter name=\"city\">\n<| end |> <|foo|> <|\n</rfl:parameter><|call|>",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "<| end |> <|foo|> <|"}}}]}`,
		end:  "<|call|>"},
	{name: "exactly one leading and one trailing newline are stripped",
		gen:  analysisHi + callHeader + "<rfl:parameter name=\"code\">\n\nx = 1\n\n</rfl:parameter><|call|>",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"code": "\nx = 1\n"}}}]}`,
		end:  "<|call|>"},
	{name: "a value without newlines is kept whole",
		gen:  analysisHi + callHeader + "<rfl:parameter name=\"city\">Oslo</rfl:parameter><|call|>",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}`,
		end:  "<|call|>"},
	{name: "an empty string is two newlines",
		gen:  analysisHi + callHeader + "<rfl:parameter name=\"city\">\n\n</rfl:parameter><|call|>",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": ""}}}]}`,
		end:  "<|call|>"},
	{name: "a lone newline is an empty string",
		gen:  analysisHi + callHeader + "<rfl:parameter name=\"city\">\n</rfl:parameter><|call|>",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": ""}}}]}`,
		end:  "<|call|>"},
	{name: "whitespace between arguments",
		gen:   analysisHi + callHeader + "\n<rfl:parameter name=\"city\">\nA\n</rfl:parameter>\n\n \t<rfl:parameter name=\"days\">\n2\n</rfl:parameter>\n<|call|>",
		tools: true,
		want:  `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "A", "days": 2}}}]}`,
		end:   "<|call|>"},
	{name: "whitespace between messages, as in the page's readable examples",
		gen:  "<|channel|>analysis<|message|>Hi.<|end|>\n<|start|>assistant<|channel|>final<|message|>x<|return|>",
		want: `{"role": "assistant", "thinking": "Hi.", "content": "x"}`, end: "<|return|>"},
	{name: "text after <|return|> is reported, not parsed",
		gen:  analysisHi + "<|start|>assistant<|channel|>final<|message|>x<|return|><|start|>user<|message|>more",
		want: `{"role": "assistant", "thinking": "Hi.", "content": "x"}`, end: "<|return|>",
		rest: "<|start|>user<|message|>more", warnings: "28 bytes after <|return|> were not parsed"},
	{name: "text after <|call|> is reported, not parsed",
		gen:  analysisHi + callHeader + "<|call|>garbage<|",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {}}}]}`,
		end:  "<|call|>", rest: "garbage<|", warnings: "after <|call|>"},
	{name: "a partial marker at the end of input is text",
		gen:  "<|channel|>final<|message|>x<|ret",
		want: `{"role": "assistant", "content": "x<|ret"}`},
	{name: "<| that starts no marker is text",
		gen:  "<|channel|>final<|message|>a <|b|> <|<|en <| c<|return|>",
		want: `{"role": "assistant", "content": "a <|b|> <|<|en <| c"}`, end: "<|return|>"},
	{name: "a parameter tag in the answer is text",
		gen:  "<|channel|>final<|message|><rfl:parameter name=\"x\">\n1\n</rfl:parameter><|return|>",
		want: `{"role": "assistant", "content": "<rfl:parameter name=\"x\">\n1\n</rfl:parameter>"}`, end: "<|return|>"},
	{name: "an answer without reasoning",
		gen:  "<|channel|>final<|message|>Just this.<|return|>",
		want: `{"role": "assistant", "content": "Just this."}`, end: "<|return|>"},
	{name: "empty messages are left out of the joined text",
		gen:  "<|channel|>analysis<|message|><|end|><|start|>assistant<|channel|>analysis<|message|>b<|end|><|start|>assistant<|channel|>final<|message|><|return|>",
		want: `{"role": "assistant", "thinking": "b"}`, end: "<|return|>"},
	{name: "an empty generation is an empty message",
		gen:  "",
		want: `{"role": "assistant"}`},
	{name: "unicode, split anywhere",
		gen:  "<|channel|>analysis<|message|>héllo 世界 🌍<|end|><|start|>assistant<|channel|>final<|message|>ok ✓<|return|>",
		want: `{"role": "assistant", "thinking": "héllo 世界 🌍", "content": "ok ✓"}`, end: "<|return|>"},
	{name: "unicode tool name and argument",
		gen:  "<|channel|>analysis<|message|>x<|end|><|start|>assistant to=météo<|channel|>analysis<|message|><rfl:parameter name=\"ville\">\nZürich\n</rfl:parameter><|call|>",
		want: `{"role": "assistant", "thinking": "x", "tool_calls": [{"type": "function", "function": {"name": "météo", "arguments": {"ville": "Zürich"}}}]}`,
		end:  "<|call|>"},
	{name: "control characters are escaped in arguments",
		gen:  analysisHi + callHeader + "<rfl:parameter name=\"city\">\n\"a\"\t\\b\x01\n</rfl:parameter><|call|>",
		want: `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "\"a\"\t\\b\u0001"}}}]}`,
		end:  "<|call|>"},
	{name: "calls, then an answer",
		gen:  analysisHi + callHeader + "<|end|><|start|>assistant<|channel|>final<|message|>done<|return|>",
		want: `{"role": "assistant", "thinking": "Hi.", "content": "done", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {}}}]}`,
		end:  "<|return|>"},
	{name: "an unknown tool keeps strings and warns",
		gen:   analysisHi + "<|start|>assistant to=other<|channel|>analysis<|message|><rfl:parameter name=\"n\">\n1\n</rfl:parameter><|call|>",
		tools: true,
		want:  `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "other", "arguments": {"n": "1"}}}]}`,
		end:   "<|call|>", warnings: "tool call 0 (other): unknown tool"},
	{name: "a value that fits no type stays a string and warns",
		gen:   analysisHi + callHeader + "<rfl:parameter name=\"days\">\nthree\n</rfl:parameter><|call|>",
		tools: true,
		want:  `{"role": "assistant", "thinking": "Hi.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"days": "three"}}}]}`,
		end:   "<|call|>", warnings: `argument "days": "three" is not a valid integer`},
}

func TestParseRules(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			opts := &harmony.ParseOptions{Prefix: tc.prefix}
			if tc.tools {
				opts.Tools = []harmony.Tool{getWeather}
			}
			o := replay(t, tc.gen, opts)
			if o.err != "" {
				t.Fatalf("error %s", o.err)
			}
			if o.message != tc.want {
				t.Errorf("message\n got %s\nwant %s", o.message, tc.want)
			}
			if o.end != tc.end || o.rest != tc.rest {
				t.Errorf("end %q rest %q, want %q %q", o.end, o.rest, tc.end, tc.rest)
			}
			if (tc.warnings == "") != (o.warnings == "") || !strings.Contains(o.warnings, tc.warnings) {
				t.Errorf("warnings %q, want %q", o.warnings, tc.warnings)
			}
		})
	}
}

// malformed is one entry of testdata/parse/malformed.json: a generation
// that breaks the format, the error it gives and the partial result.
type malformed struct {
	Name       string `json:"name"`
	Prefix     string `json:"prefix,omitempty"`
	Generation string `json:"generation,omitempty"`
	// GenerationX is the generation with \xNN escapes for bytes that
	// are not valid UTF-8 (JSON text cannot hold them).
	GenerationX string          `json:"generation_x,omitempty"`
	Tools       bool            `json:"tools,omitempty"`
	Max         int             `json:"max,omitempty"`
	Error       string          `json:"error"`
	Message     json.RawMessage `json:"message"`
	Warnings    []string        `json:"warnings,omitempty"`
	Rest        string          `json:"rest,omitempty"`
}

// The catalogue of malformed generations; go test -run TestMalformed
// -update-parse rewrites the expected results (review the diff).
func TestMalformed(t *testing.T) {
	path := filepath.Join("testdata", "parse", "malformed.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []malformed
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 25 {
		t.Errorf("only %d malformed cases", len(cases))
	}
	for i := range cases {
		c := &cases[i]
		t.Run(c.Name, func(t *testing.T) {
			opts := &harmony.ParseOptions{Prefix: c.Prefix, MaxBufferedBytes: c.Max}
			if c.Tools {
				opts.Tools = []harmony.Tool{getWeather}
			}
			gen := c.Generation
			if c.GenerationX != "" {
				gen = unescapeX(c.GenerationX)
			}
			o := replay(t, gen, opts)
			res, _ := harmony.Parse(gen, opts)
			if *updateParse {
				c.Error, c.Message, c.Warnings, c.Rest = o.err, json.RawMessage(o.message), warningTexts(res.Warnings), o.rest
				return
			}
			want, err := pyjson.Python(c.Message)
			if err != nil {
				t.Fatal(err)
			}
			if o.err != c.Error {
				t.Errorf("error\n got %q\nwant %q", o.err, c.Error)
			}
			if o.message != want {
				t.Errorf("message\n got %s\nwant %s", o.message, want)
			}
			if joinWarnings(res.Warnings) != strings.Join(c.Warnings, "\n") || o.rest != c.Rest {
				t.Errorf("warnings %q rest %q, want %q %q", res.Warnings, o.rest, c.Warnings, c.Rest)
			}
		})
	}
	if *updateParse {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(cases); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// unescapeX turns each \xNN of s into the byte NN.
func unescapeX(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			var v byte
			if _, err := fmt.Sscanf(s[i+2:i+4], "%02x", &v); err == nil {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// The response-template test vectors proposed for Beam
// (shared/data/response-templates/beam_proposed.json, copied to
// testdata/parse). Its cases and stream example agree with DECISIONS.md
// and are checked here. Its tool_call_char_by_char_events contradict
// DECISIONS.md (Streaming events): they stream the raw XML of the
// arguments with "dirty" flags and carry no index or name, where
// DECISIONS.md streams the arguments' JSON text; DECISIONS.md wins, so
// that part is not checked.
func TestBeamProposedVectors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "parse", "beam_proposed.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Name              string            `json:"name"`
			Prefix            string            `json:"prefix"`
			Output            string            `json:"output"`
			Tools             []json.RawMessage `json:"tools"`
			Expected          json.RawMessage   `json:"expected"`
			ExpectedToolCalls json.RawMessage   `json:"expected_tool_calls"`
		} `json:"cases"`
		Stream struct {
			Prefix string `json:"prefix"`
			Steps  []struct {
				Feed   string            `json:"feed"`
				Events []json.RawMessage `json:"events"`
			} `json:"steps"`
			Finalize struct {
				Message json.RawMessage `json:"message"`
			} `json:"finalize"`
		} `json:"stream_example"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	for _, c := range file.Cases {
		t.Run(c.Name, func(t *testing.T) {
			opts := &harmony.ParseOptions{Prefix: c.Prefix}
			for _, raw := range c.Tools {
				var tool harmony.Tool
				if err := json.Unmarshal(raw, &tool); err != nil {
					t.Fatal(err)
				}
				opts.Tools = append(opts.Tools, tool)
			}
			o := replay(t, c.Output, opts)
			if o.err != "" {
				t.Fatal(o.err)
			}
			d, _ := pyjson.ParseBytes([]byte(o.message))
			got := o.message
			want := c.Expected
			if c.ExpectedToolCalls != nil {
				got, want = string(d.Raw(d.Lookup(0, "tool_calls"))), c.ExpectedToolCalls
			}
			if w, _ := pyjson.Python(want); got != w {
				t.Errorf("got  %s\nwant %s", got, w)
			}
		})
	}
	p := harmony.NewStreamParser(&harmony.ParseOptions{Prefix: file.Stream.Prefix})
	var events []harmony.Event
	for i, step := range file.Stream.Steps {
		events, _ = p.Feed(step.Feed, events[:0])
		var want []string
		for _, e := range step.Events {
			// "dirty" is not part of DECISIONS.md's event shape.
			s, _ := pyjson.Python(bytes.Replace(e, []byte(`,
            "dirty": false`), nil, 1))
			want = append(want, s)
		}
		if got := eventLines(events); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("step %d:\ngot  %s\nwant %s", i, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	_, res, err := p.Finish(nil)
	if w, _ := pyjson.Python(file.Stream.Finalize.Message); err != nil || string(res.Message.AppendJSON(nil)) != w {
		t.Errorf("finalize: %v %s", err, res.Message.AppendJSON(nil))
	}
}

// Round trip: the generation part of a rendered assistant turn parses back
// to the turn (DECISIONS.md, principle 2).
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	for i := range 100 {
		turn, tools := randomTurn(rng)
		history := []harmony.Message{{Role: "user", Content: "Go."}, turn}
		prompt, err := harmony.RenderPrompt(history, &harmony.Options{Tools: tools})
		if err != nil {
			t.Fatalf("turn %d: render: %v", i, err)
		}
		span := prompt.AssistantSpans[0]
		opts := &harmony.ParseOptions{Prefix: prompt.Text[:span.Start], Tools: tools}
		gen := prompt.Text[span.Start:span.End]
		o := replayUpTo(t, gen, opts, 600)
		if o.err != "" || !onlyMarkerWarnings(o.warnings, turn) {
			t.Fatalf("turn %d: %s %s\n%s", i, o.err, o.warnings, gen)
		}
		want := turn
		want.Role = "assistant"
		for j := range want.ToolCalls {
			want.ToolCalls[j].ID = ""
		}
		if w := string(want.AppendJSON(nil)); o.message != w {
			t.Fatalf("turn %d:\n got %s\nwant %s\ngeneration %q", i, o.message, w, gen)
		}
	}
}

// onlyMarkerWarnings reports whether the joined warnings are all about
// marker text in an argument value, and whether there is one exactly when
// the turn's arguments hold a marker.
func onlyMarkerWarnings(warnings string, turn harmony.Message) bool {
	hasMarker := false
	for _, c := range turn.ToolCalls {
		hasMarker = hasMarker || harmony.FindMarker(string(c.Function.Arguments)) != ""
	}
	if warnings == "" {
		return !hasMarker
	}
	for _, w := range strings.Split(warnings, "\n") {
		if !strings.Contains(w, " contains marker text <|") {
			return false
		}
	}
	return hasMarker
}

// randomTurn returns an assistant turn with reasoning and either an answer
// or one to three calls whose arguments have every JSON type, and the
// tools that type them.
func randomTurn(rng *rand.Rand) (harmony.Message, []harmony.Tool) {
	m := harmony.Message{Role: "assistant", Reasoning: randomText(rng, false)}
	if rng.IntN(3) == 0 {
		m.Content = randomText(rng, false)
		return m, nil
	}
	var tools []harmony.Tool
	for j := range 1 + rng.IntN(3) {
		name := fmt.Sprintf("tool_%d", j)
		args, props := randomArguments(rng)
		tools = append(tools, harmony.Tool{Type: "function", Function: harmony.Function{
			Name: name, Parameters: json.RawMessage(`{"type": "object", "properties": {` + props + `}}`)}})
		m.ToolCalls = append(m.ToolCalls, harmony.ToolCall{Type: "function", Function: harmony.FunctionCall{
			Name: name, Arguments: json.RawMessage(args)}})
	}
	return m, tools
}

var textPieces = []string{"word", " ", "é", "世界", "🌍", "\n", "\t", "x < y", "a|b", "\"q\"", "\\", "{", "}", "'", "<", "|", ">"}

// randomText returns text without markers; in an argument it may also
// hold markers, tags and leading or trailing newlines.
func randomText(rng *rand.Rand, argument bool) string {
	pieces := textPieces
	if argument {
		pieces = append(pieces[:len(pieces):len(pieces)], "<|end|>", "<|call|>", "<rfl:parameter name=\"a\">",
			"</rfl:param", "\n\n", "def f():\n    return 1\n")
	}
	var b strings.Builder
	for range rng.IntN(12) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	s := b.String()
	if !argument {
		s = strings.ReplaceAll(s, "<|", "< |")
	}
	return s
}

// argumentKinds are values of each JSON type with the schema that reads
// them back.
var argumentKinds = []struct{ schema, value string }{
	{`{"type": "integer"}`, `42`},
	{`{"type": "integer"}`, `-7`},
	{`{"type": "integer"}`, `123456789012345678901234567890`},
	{`{"type": "number"}`, `3.0`},
	{`{"type": "number"}`, `-1.5e-7`},
	{`{"type": "boolean"}`, `true`},
	{`{"type": "boolean"}`, `false`},
	{`{"type": "null"}`, `null`},
	{`{"type": ["string", "null"]}`, `null`},
	{`{"type": "object"}`, `{"a": 1, "b": [true, null, "x\ny"], "c": {"d": 2.50}}`},
	{`{"type": "object"}`, `{}`},
	{`{"type": "array"}`, `[1, "two", 3.0, [], {"k": "é"}]`},
	{`{"type": ["integer", "string"]}`, `7`},
	{`{"anyOf": [{"type": "number"}, {"type": "null"}]}`, `0.25`},
}

func randomArguments(rng *rand.Rand) (args, props string) {
	var a, p []string
	for k := range rng.IntN(5) {
		key := fmt.Sprintf("arg%d", k)
		if rng.IntN(2) == 0 {
			s := randomText(rng, true)
			for strings.Contains(s, "</rfl:parameter>") {
				s = strings.ReplaceAll(s, "</rfl:parameter>", "")
			}
			a = append(a, string(pyjson.AppendQuoted([]byte(`"`+key+`": `), s)))
			p = append(p, `"`+key+`": {"type": "string"}`)
			continue
		}
		kind := argumentKinds[rng.IntN(len(argumentKinds))]
		a = append(a, `"`+key+`": `+kind.value)
		p = append(p, `"`+key+`": `+kind.schema)
	}
	return "{" + strings.Join(a, ", ") + "}", strings.Join(p, ", ")
}

// Code with trailing newlines and a string of a union with string survive
// the round trip without tools as strings.
func TestRoundTripStringsWithoutTools(t *testing.T) {
	args := `{"code": "def f():\n    return 1\n\n", "n": "\n3"}`
	turn := harmony.Message{Role: "assistant", Reasoning: "Write it.", ToolCalls: []harmony.ToolCall{
		{Function: harmony.FunctionCall{Name: "write", Arguments: json.RawMessage(args)}}}}
	prompt, err := harmony.RenderPrompt([]harmony.Message{{Role: "user", Content: "Go."}, turn}, &harmony.Options{})
	if err != nil {
		t.Fatal(err)
	}
	span := prompt.AssistantSpans[0]
	o := replay(t, prompt.Text[span.Start:span.End], &harmony.ParseOptions{Prefix: prompt.Text[:span.Start]})
	if want := `{"role": "assistant", "thinking": "Write it.", "tool_calls": [{"type": "function", "function": {"name": "write", "arguments": ` + args + `}}]}`; o.message != want {
		t.Errorf("got  %s\nwant %s", o.message, want)
	}
}

// FuzzParse: any input (and prefix) parses without panicking; an error is a
// *ParseError with an offset inside the input, beside a result; no marker
// reaches the reasoning, the answer or a tool name; arguments are JSON
// objects.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.gen, tc.tools)
	}
	f.Add(weatherCall, true)
	f.Add("<|start|>assistant to=get_weather<|channel|>analysis \x00<|constrain|>xml<|message|><|call|>", true)
	f.Fuzz(func(t *testing.T, gen string, tools bool) {
		// A NUL byte, when there is one, ends a prefix.
		opts := &harmony.ParseOptions{}
		if i := strings.IndexByte(gen, 0); i >= 0 {
			opts.Prefix, gen = gen[:i], gen[i+1:]
		}
		if tools {
			opts.Tools = []harmony.Tool{getWeather, castTool(`{"type": ["integer", "string", "null"]}`)}
		}
		res, err := harmony.Parse(gen, opts)
		if res == nil {
			t.Fatal("no result")
		}
		if err != nil {
			pe, ok := err.(*harmony.ParseError)
			if !ok || pe.Offset < 0 || pe.Offset > len(gen) {
				t.Fatalf("error %v", err)
			}
		}
		m := &res.Message
		if mk := harmony.FindMarker(m.Reasoning + m.Content); mk != "" {
			t.Fatalf("marker %s in the message", mk)
		}
		for _, c := range m.ToolCalls {
			if harmony.FindMarker(c.Function.Name) != "" || strings.ContainsAny(c.Function.Name, " <>\"\n") {
				t.Fatalf("bad tool name %q", c.Function.Name)
			}
			d, err := pyjson.ParseBytes(c.Function.Arguments)
			if err != nil || d.Kind(0) != pyjson.Object {
				t.Fatalf("arguments %s: %v", c.Function.Arguments, err)
			}
		}
		if !isJSON(m.AppendJSON(nil)) {
			t.Fatalf("message JSON %s", m.AppendJSON(nil))
		}
	})
}

// FuzzStream: streaming in chunks cut by the fuzzer gives what one piece
// gives, message, error and region texts alike (with a prefix before a NUL
// byte, as in FuzzParse).
func FuzzStream(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.gen, uint64(len(tc.gen)))
	}
	f.Add(weatherCall, uint64(99))
	f.Add("<|start|>assistant<|channel|>final<|message|>Hel\x00lo<|return|>", uint64(5))
	f.Fuzz(func(t *testing.T, gen string, seed uint64) {
		// A NUL byte, when there is one, ends a prefix.
		opts := &harmony.ParseOptions{Tools: []harmony.Tool{getWeather}}
		if i := strings.IndexByte(gen, 0); i >= 0 {
			opts.Prefix, gen = gen[:i], gen[i+1:]
		}
		ref := streamParse(t, []string{gen}, opts)
		res, err := harmony.Parse(gen, opts)
		if one := summarize(res, err, nil); one.message != ref.message || one.err != ref.err {
			t.Fatalf("Parse and the stream differ:\n%s\n%s", one, ref)
		}
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		if got := streamParse(t, randomChunks(gen, rng), opts); got.String() != ref.String() {
			t.Fatalf("chunked:\n%s\none piece:\n%s", got, ref)
		}
	})
}

// BenchmarkParse: one-shot parse of a 1 MiB generation (reasoning and an
// answer), and of a call with a 1 MiB code argument.
func BenchmarkParse(b *testing.B) {
	for _, bc := range []struct{ name, gen string }{
		{"reasoning+answer/1MiB", answerGeneration(1 << 20)},
		{"call/1MiB", callGeneration(1 << 20)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.gen)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := harmony.Parse(bc.gen, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// prose returns n bytes of plain text.
func prose(n int) string {
	const line = "The quick brown fox checks the weather in Paris, then thinks again about it.\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// code returns n bytes of source code with quotes and tabs.
func code(n int) string {
	const line = "\tif x := f(\"a\", 'b'); x > 0 { return x } // ok\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

func answerGeneration(n int) string {
	return "<|channel|>analysis<|message|>" + prose(n/2) + "<|end|><|start|>assistant<|channel|>final<|message|>" +
		prose(n/2) + "<|return|>"
}

func callGeneration(n int) string {
	return "<|channel|>analysis<|message|>I'll write the file.<|end|>" +
		"<|start|>assistant to=write_file<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"path\">\nmain.go\n</rfl:parameter>\n<rfl:parameter name=\"content\">\n" +
		code(n) + "\n</rfl:parameter><|call|>"
}
