package harmony

import (
	"strconv"
	"strings"
)

// DefaultMaxBufferedBytes is the cap on the bytes a parser holds when
// ParseOptions.MaxBufferedBytes is 0 (DECISIONS.md, Parsing: limits).
const DefaultMaxBufferedBytes = 4 << 20

// ParseOptions configure Parse and NewStreamParser.
type ParseOptions struct {
	// Prefix is the prompt the generation continues (page: Response
	// template). Empty means a prompt ending in "<|start|>assistant", the
	// generation prompt. A prompt that ends inside an assistant header or
	// right after one continues it; text the prompt already holds after
	// <|message|> (a prefill) is not part of the parsed message.
	Prefix string
	// Tools are used to cast arguments to their schema's types. Without
	// tools every argument is a string.
	Tools []Tool
	// MaxBufferedBytes caps the bytes a parser holds. The parser keeps the
	// message it builds, so this caps the generation's length: past it,
	// parsing stops with an error. 0 means DefaultMaxBufferedBytes.
	MaxBufferedBytes int
}

// Parsed is the result of parsing one generation.
type Parsed struct {
	// Message has Role "assistant", Reasoning (the page's "thinking"),
	// Content and ToolCalls. Several reasoning messages are joined by
	// "\n\n", as are several final messages; empty ones are left out.
	// A call's Arguments is a JSON object text in Python's json.dumps
	// style, such as {"city": "Paris", "days": 3}; parsed calls have no ID.
	Message Message
	// Warnings report what parsed but may not be what the model meant: a
	// value that fits none of its property's types, an unknown tool or
	// argument, text after the end marker. They have no Path: generated
	// text is not JSON; each Msg names the call and argument it is about.
	Warnings []Warning
	// End is MarkerReturn or MarkerCall, or "" when the input ended
	// without either (a server that strips stop tokens).
	End string
	// Rest is the text after <|call|> or <|return|>. It is not parsed.
	Rest string
}

// ParseError reports generated text that does not follow the format.
type ParseError struct {
	// Offset is the byte offset in the generation where the error was
	// found (0 for an error in the prefix).
	Offset int
	// Msg says what is wrong.
	Msg string
}

// Error returns "offset N: msg".
func (e *ParseError) Error() string {
	return "offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// Parse parses one complete generation. On an error it returns the part
// parsed so far (finished messages and calls, and the reasoning or answer
// being written) beside a *ParseError. It gives the same result as a
// StreamParser fed the same text in any chunks.
func Parse(generated string, opts *ParseOptions) (*Parsed, error) {
	p := NewStreamParser(opts)
	p.asm.noEvents = true
	p.Feed(generated, nil)
	_, res, err := p.Finish(nil)
	return res, err
}

// lastMarker returns the index and the marker of the last marker in s, or
// -1 and "". It reads s from its end, so a long prompt costs little.
func lastMarker(s string) (int, string) {
	for end := len(s); ; {
		i := strings.LastIndex(s[:end], markerOpen)
		if i < 0 {
			return -1, ""
		}
		if mk := markerAt(s[i:]); mk != "" {
			return i, mk
		}
		end = i
	}
}

// applyPrefix sets the parser's starting state from the prompt the
// generation continues.
func (p *StreamParser) applyPrefix(prefix string) {
	a, l := &p.asm, &p.lex
	a.inPrefix = true
	defer func() { a.inPrefix = false }()
	at, mk := lastMarker(prefix)
	switch mk {
	case "":
		l.startHeader(false, 0)
		return
	case MarkerEnd, MarkerCall, MarkerReturn:
		l.state = lexBetween
		if strings.TrimLeft(prefix[at+len(mk):], " \t\r\n") != "" {
			l.fail(0, errPlain, "text after the prompt's last "+mk+"; the generation must start a message")
		}
		return
	}
	// The prompt ends inside or right after a header: read the header
	// from its <|start|> as if it were generated.
	tail := prefix[at:]
	start := strings.LastIndex(prefix, MarkerStart)
	l.startHeader(start >= 0, 0)
	if start >= 0 {
		tail = prefix[start+len(MarkerStart):]
	}
	body := ""
	if i := strings.Index(tail, MarkerMessage); i >= 0 {
		tail, body = tail[:i+len(MarkerMessage)], tail[i+len(MarkerMessage):]
	}
	l.run(tail, false)
	if l.state == lexHeader && l.hasWord && l.hdrTokens == 0 {
		// The speaker ends with the prompt ("<|start|>assistant").
		l.endWord()
	}
	if l.state != lexFailed && body != "" && l.state != lexText {
		l.fail(0, errPlain, "the prompt ends inside a tool call's arguments; the parser can't continue it")
	}
	a.queued, a.events = a.events, nil
	l.pend = l.pend[:0]
	// Offsets count from the generation's start; a word the prompt began
	// is reported there.
	l.off, l.wordOff = 0, 0
}
