package ollama

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
	"github.com/ollama/ollama/api"
	ollamaharmony "github.com/ollama/ollama/harmony"
	"github.com/ollama/ollama/model/parsers"
)

// chunk is the size of the pieces fed to every parser. As an engine
// streams whole tokens, a piece never cuts a special token of the format
// (a marker such as <|end|> or <tool_call>, which the parsers expect whole)
// nor a UTF-8 sequence.
const chunk = 4

// cuts returns where text is cut into pieces, keeping each of specials
// whole: the end of each piece. It runs once per text, outside the timed
// loops; the offsets hold no pointers, so they cost the collector nothing.
func cuts(text string, specials []string) []int32 {
	var ends []int32
	for i := 0; i < len(text); {
		j := min(i+chunk, len(text))
		if n := specialAt(text[i:], specials); n > 0 {
			j = i + n
		} else {
			for k := i + 1; k < j; k++ {
				if specialAt(text[k:], specials) > 0 {
					j = k
					break
				}
			}
			for j < len(text) && !utf8.RuneStart(text[j]) {
				j++
			}
		}
		ends = append(ends, int32(j))
		i = j
	}
	return ends
}

// feed calls fn with the pieces of text that ends cut.
func feed(text string, ends []int32, fn func(piece string) error) error {
	start := 0
	for _, end := range ends {
		if err := fn(text[start:end]); err != nil {
			return err
		}
		start = int(end)
	}
	return nil
}

// specialAt returns the length of the special token s starts with, or 0.
func specialAt(s string, specials []string) int {
	for _, sp := range specials {
		if strings.HasPrefix(s, sp) {
			return len(sp)
		}
	}
	return 0
}

// The special tokens of each family of formats.
var (
	harmonySpecials  = []string{"<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>", "<|call|>", "<|return|>"}
	qwenSpecials     = []string{"<tool_call>", "</tool_call>", "<think>", "</think>"}
	glmSpecials      = []string{"<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<think>", "</think>"}
	deepseekSpecials = []string{"<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>", "<think>", "</think>"}
)

// The sentences the reasoning and the answer repeat.
const (
	reasoningLine = "Let me think about the question step by step. "
	answerLine    = "The answer has several parts, each explained in turn. "
)

// reasoning, answer and code are the same text in every format; reasoning
// and answer make about 5 KB together, reasoning64 and answer64 (the same
// sentences, 13 times as many) about 64 KiB.
var (
	reasoning   = strings.Repeat(reasoningLine, 40)
	answer      = strings.Repeat(answerLine, 60)
	reasoning64 = strings.Repeat(reasoningLine, 40*13)
	answer64    = strings.Repeat(answerLine, 60*13)
	code        = codeText(64 << 10)
)

// codeText returns about n bytes of Python with quotes, backslashes and
// newlines, which JSON formats must escape.
func codeText(n int) string {
	line := "for i in range(10):\n    print(\"value:\\t%d\" % (i * 2))  # loop <- x\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// jsonString returns s as a JSON string literal.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// A format is one model's text for the two cases and the parser reading it.
type format struct {
	name      string
	noThink   bool // the parser has no reasoning: it reads it as content
	specials  []string
	newParser func() parsers.Parser
	call      string // reasoning, then write_file(path="a.py", text=code)
	// answer returns the format's text of reasoning r, then answer a.
	answer func(r, a string) string
}

var jsonArgs = `{"path": "a.py", "text": ` + jsonString(code) + `}`

var formats = []format{
	{
		// gpt-oss's Harmony: the format Beam's is a variant of.
		name:      "harmony",
		specials:  harmonySpecials,
		newParser: func() parsers.Parser { return ollamaharmony.NewHarmonyMessageHandler() },
		call: "<|channel|>analysis<|message|>" + reasoning + "<|end|><|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>" +
			jsonArgs, // the engine stops at <|call|> and does not send it
		answer: func(r, a string) string {
			return "<|channel|>analysis<|message|>" + r + "<|end|><|start|>assistant<|channel|>final<|message|>" + a
		},
	},
	{
		// Qwen3-Coder's XML parameters, the closest to Beam's.
		name:      "qwen3-coder",
		specials:  qwenSpecials,
		noThink:   true,
		newParser: func() parsers.Parser { return parsers.ParserForName("qwen3-coder") },
		call: reasoning + "\n<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n<parameter=text>\n" +
			code + "\n</parameter>\n</function>\n</tool_call>",
		answer: func(r, a string) string { return r + "\n" + a },
	},
	{
		// Nemotron 3 Nano: thinking, then Qwen3-Coder's XML parameters.
		name:      "nemotron-3-nano",
		specials:  qwenSpecials,
		newParser: func() parsers.Parser { return parsers.ParserForName("nemotron-3-nano") },
		call: reasoning + "</think>\n<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n<parameter=text>\n" +
			code + "\n</parameter>\n</function>\n</tool_call>",
		answer: func(r, a string) string { return r + "</think>\n" + a },
	},
	{
		name:      "glm-4.7",
		specials:  glmSpecials,
		newParser: func() parsers.Parser { return parsers.ParserForName("glm-4.7") },
		call: reasoning + "</think><tool_call>write_file<arg_key>path</arg_key><arg_value>a.py</arg_value><arg_key>text</arg_key><arg_value>" +
			code + "</arg_value></tool_call>",
		answer: func(r, a string) string { return r + "</think>" + a },
	},
	{
		name:      "deepseek3",
		specials:  deepseekSpecials,
		newParser: func() parsers.Parser { return parsers.ParserForName("deepseek3") },
		call: reasoning + "</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>" + jsonArgs +
			"<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		answer: func(r, a string) string { return r + "</think>" + a },
	},
	{
		// Qwen3 with thinking: Hermes-style JSON tool calls.
		name:      "qwen3-thinking",
		specials:  qwenSpecials,
		newParser: func() parsers.Parser { return parsers.ParserForName("qwen3-thinking") },
		call:      reasoning + "</think><tool_call>{\"name\": \"write_file\", \"arguments\": " + jsonArgs + "}</tool_call>",
		answer:    func(r, a string) string { return r + "</think>" + a },
	},
}

// Beam's text for the same work: the generation after the prompt's
// "<|start|>assistant".
var (
	beamCall = "<|channel|>analysis<|message|>" + reasoning + "<|end|>" +
		"<|start|>assistant to=write_file<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"path\">\na.py\n</rfl:parameter>\n<rfl:parameter name=\"text\">\n" + code + "\n</rfl:parameter><|call|>"
	beamAnswer   = beamAnswerOf(reasoning, answer)
	beamAnswer64 = beamAnswerOf(reasoning64, answer64)
	beamPrefix   = "<|start|>user<|message|>Go.<|end|><|start|>assistant"
)

// beamAnswerOf returns Beam's text of reasoning r, then answer a.
func beamAnswerOf(r, a string) string {
	return "<|channel|>analysis<|message|>" + r + "<|end|>" +
		"<|start|>assistant<|channel|>final<|message|>" + a + "<|return|>"
}

var writeFile = api.Tool{Type: "function", Function: api.ToolFunction{Name: "write_file"}}

// runOllama feeds text to a new parser in chunks and returns what it made.
func runOllama(f format, text string, ends []int32) (content, thinking strings.Builder, calls []api.ToolCall, err error) {
	p := f.newParser()
	p.Init([]api.Tool{writeFile}, nil, &api.ThinkValue{Value: true})
	err = feed(text, ends, func(piece string) error {
		c, th, cl, e := p.Add(piece, false)
		content.WriteString(c)
		thinking.WriteString(th)
		calls = append(calls, cl...)
		return e
	})
	if err != nil {
		return content, thinking, calls, err
	}
	c, th, cl, e := p.Add("", true)
	content.WriteString(c)
	thinking.WriteString(th)
	calls = append(calls, cl...)
	return content, thinking, calls, e
}

// runBeam feeds text to Beam's stream parser in chunks, with the events a
// server would send, and returns the message.
func runBeam(text string, ends []int32) (*harmony.Parsed, error) {
	p := harmony.NewStreamParser(&harmony.ParseOptions{Prefix: beamPrefix})
	events := make([]harmony.Event, 0, 16)
	err := feed(text, ends, func(piece string) error {
		var e error
		events, e = p.Feed(piece, events[:0])
		return e
	})
	_, res, ferr := p.Finish(events[:0])
	if err == nil {
		err = ferr
	}
	return res, err
}

// answerCases are the two sizes of reasoning, then an answer.
var answerCases = []struct{ name, reasoning, answer string }{
	{"reasoning-answer", reasoning, answer},
	{"reasoning-answer-64KiB", reasoning64, answer64},
}

// Every parser reads its format to the same reasoning, answer and call:
// the benchmarks compare the same work.
func TestSameWork(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			_, thinking, calls, err := runOllama(f, f.call, cuts(f.call, f.specials))
			if err != nil {
				t.Fatal(err)
			}
			if !f.noThink && strings.TrimSpace(thinking.String()) != strings.TrimSpace(reasoning) {
				t.Errorf("reasoning %q...", thinking.String()[:min(60, thinking.Len())])
			}
			if len(calls) != 1 || calls[0].Function.Name != "write_file" {
				t.Fatalf("calls %v", calls)
			}
			got, _ := calls[0].Function.Arguments.Get("text")
			if got != code {
				s := fmt.Sprint(got)
				t.Fatalf("text argument of %d bytes, want %d: %q...", len(s), len(code), s[:min(80, len(s))])
			}
			for _, ra := range answerCases {
				text := f.answer(ra.reasoning, ra.answer)
				content, thinking, _, err := runOllama(f, text, cuts(text, f.specials))
				if err != nil {
					t.Fatal(err)
				}
				wantContent, wantThinking := ra.answer, ra.reasoning
				if f.noThink {
					wantContent, wantThinking = ra.reasoning+"\n"+ra.answer, ""
				}
				if strings.TrimSpace(content.String()) != strings.TrimSpace(wantContent) || strings.TrimSpace(thinking.String()) != strings.TrimSpace(wantThinking) {
					t.Errorf("%s: answer %d bytes, reasoning %d bytes", ra.name, content.Len(), thinking.Len())
				}
			}
		})
	}
	res, err := runBeam(beamCall, cuts(beamCall, harmonySpecials))
	if err != nil {
		t.Fatal(err)
	}
	var args struct{ Path, Text string }
	if err := json.Unmarshal(res.Message.ToolCalls[0].Function.Arguments, &args); err != nil || args.Text != code || res.Message.Reasoning != reasoning {
		t.Fatalf("Beam: %v, %d bytes of text", err, len(args.Text))
	}
	for _, ra := range answerCases {
		text := beamAnswerOf(ra.reasoning, ra.answer)
		res, err := runBeam(text, cuts(text, harmonySpecials))
		if err != nil || res.Message.Content != ra.answer || res.Message.Reasoning != ra.reasoning {
			t.Fatalf("Beam %s: %v", ra.name, err)
		}
	}
}

// BenchmarkVsOllama parses each case with Beam's parser and with each of
// Ollama's, in 4-byte chunks.
func BenchmarkVsOllama(b *testing.B) {
	for _, c := range []struct {
		name string
		beam string
		text func(format) string
	}{
		{"code-argument", beamCall, func(f format) string { return f.call }},
		{"reasoning-answer", beamAnswer, func(f format) string { return f.answer(reasoning, answer) }},
		{"reasoning-answer-64KiB", beamAnswer64, func(f format) string { return f.answer(reasoning64, answer64) }},
	} {
		b.Run(c.name+"/beam", func(b *testing.B) {
			ends := cuts(c.beam, harmonySpecials)
			b.SetBytes(int64(len(c.beam)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := runBeam(c.beam, ends); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, f := range formats {
			text := c.text(f)
			b.Run(c.name+"/ollama-"+f.name, func(b *testing.B) {
				ends := cuts(text, f.specials)
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					if _, _, _, err := runOllama(f, text, ends); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
