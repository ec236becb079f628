package harmony_test

// The format page's parsing examples (page: Response template), each with
// the page's exact output. The page prints Python values; pyRepr writes the
// parsed JSON the way Python's print does.

import (
	"fmt"
	"strings"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

func Example_parseAnAnswer() {
	prompt := render(hello, harmony.Options{})
	generated := "<|channel|>analysis<|message|>The user is greeting me.<|end|>" +
		"<|start|>assistant<|channel|>final<|message|>Hi! How can I help?<|return|>"
	parsed, err := harmony.Parse(generated, &harmony.ParseOptions{Prefix: prompt})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pyRepr(parsed.Message.AppendJSON(nil)))
	// Output:
	// {'role': 'assistant', 'thinking': 'The user is greeting me.', 'content': 'Hi! How can I help?'}
}

// toolCallsJSON returns the tool_calls of the message's JSON.
func toolCallsJSON(m *harmony.Message) []byte {
	d, _ := pyjson.ParseBytes(m.AppendJSON(nil))
	return d.Raw(d.Lookup(0, "tool_calls"))
}

func Example_parseAToolCall() {
	prompt := render([]harmony.Message{{Role: "user", Content: "3-day forecast for Paris?"}},
		harmony.Options{Tools: []harmony.Tool{getWeather}})
	generated := "<|channel|>analysis<|message|>I'll call the weather tool.<|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"city\">\nParis\n</rfl:parameter>\n" +
		"<rfl:parameter name=\"days\">\n3\n</rfl:parameter><|call|>"
	untyped, _ := harmony.Parse(generated, &harmony.ParseOptions{Prefix: prompt})
	typed, _ := harmony.Parse(generated, &harmony.ParseOptions{Prefix: prompt, Tools: []harmony.Tool{getWeather}})
	fmt.Println(pyRepr(toolCallsJSON(&untyped.Message)))
	fmt.Println(pyRepr(toolCallsJSON(&typed.Message)))
	// Output:
	// [{'type': 'function', 'function': {'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': '3'}}}]
	// [{'type': 'function', 'function': {'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': 3}}}]
}

func Example_parseParallelCalls() {
	prompt := render([]harmony.Message{{Role: "user", Content: "3-day forecast for Paris?"}},
		harmony.Options{Tools: []harmony.Tool{getWeather}})
	generated := "<|channel|>analysis<|message|>I need both cities.<|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"city\">\nLondon\n</rfl:parameter><|end|>" +
		"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"city\">\nParis\n</rfl:parameter><|call|>"
	parsed, _ := harmony.Parse(generated, &harmony.ParseOptions{Prefix: prompt, Tools: []harmony.Tool{getWeather}})
	for _, call := range parsed.Message.ToolCalls {
		fmt.Printf("{'name': %s, 'arguments': %s}\n", pyRepr(quoteJSON(call.Function.Name)), pyRepr(call.Function.Arguments))
	}
	// Output:
	// {'name': 'get_weather', 'arguments': {'city': 'London'}}
	// {'name': 'get_weather', 'arguments': {'city': 'Paris'}}
}

func quoteJSON(s string) []byte { return pyjson.AppendQuoted(nil, s) }

// pageStreamChunks are the chunks of the page's stream example.
var pageStreamChunks = []string{
	"<|channel|>analysis<|message|>",
	"The user is ",
	"greeting me.",
	"<|end|><|start|>assistant<|channel|>final<|message|>",
	"Hi! How ",
	"can I help?",
	"<|return|>",
}

func Example_parseAStream() {
	prompt := render(hello, harmony.Options{})
	chunks := pageStreamChunks
	parser := harmony.NewStreamParser(&harmony.ParseOptions{Prefix: prompt})
	var events []harmony.Event
	for _, chunk := range chunks {
		events, _ = parser.Feed(chunk, events[:0])
		for _, event := range events {
			if event.Type == harmony.EventRegionChunk {
				fmt.Println(event.Field, pyRepr(quoteJSON(event.Text)))
			}
		}
	}
	_, parsed, _ := parser.Finish(nil)
	fmt.Println(pyRepr(parsed.Message.AppendJSON(nil)))
	// Output:
	// thinking 'The user is '
	// thinking 'greeting me.'
	// content 'Hi! How '
	// content 'can I help?'
	// {'role': 'assistant', 'thinking': 'The user is greeting me.', 'content': 'Hi! How can I help?'}
}

// pyRepr writes a JSON text as Python's repr of the value it decodes to.
func pyRepr(js []byte) string {
	d, err := pyjson.ParseBytes(js)
	if err != nil {
		return "invalid JSON: " + err.Error()
	}
	var b strings.Builder
	writeRepr(&b, d, 0)
	return b.String()
}

func writeRepr(b *strings.Builder, d *pyjson.Doc, i int) {
	switch d.Kind(i) {
	case pyjson.Null:
		b.WriteString("None")
	case pyjson.True:
		b.WriteString("True")
	case pyjson.False:
		b.WriteString("False")
	case pyjson.String:
		writeStrRepr(b, d.Str(i))
	case pyjson.Array:
		b.WriteByte('[')
		d.Elements(i, func(e, pos int) bool {
			if pos > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, d, e)
			return true
		})
		b.WriteByte(']')
	case pyjson.Object:
		b.WriteByte('{')
		first := true
		d.Members(i, func(k, v int) bool {
			if !first {
				b.WriteString(", ")
			}
			first = false
			writeRepr(b, d, k)
			b.WriteString(": ")
			writeRepr(b, d, v)
			return true
		})
		b.WriteByte('}')
	default:
		b.Write(d.Raw(i))
	}
}

// writeStrRepr writes s as Python's repr does: single quotes unless s
// holds a single quote and no double quote.
func writeStrRepr(b *strings.Builder, s string) {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
}
