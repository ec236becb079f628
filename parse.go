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
	// argument, text after the end marker.
	Warnings []string
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
	p.noEvents = true
	p.Feed(generated, nil)
	_, res, err := p.Finish(nil)
	return res, err
}

// The header grammar (DECISIONS.md, Parsing):
//
//	[assistant][ to=NAME]<|channel|>CHANNEL[ to=NAME][ <|constrain|>TYPE]<|message|>
//
// A header is read as tokens: words separated by spaces, and the markers
// <|channel|>, <|constrain|> and <|message|>. The word right after
// <|channel|> or <|constrain|> is the channel or the argument format.

// hdrWord says what the word being read in a header is.
type hdrWord uint8

const (
	wordNone      hdrWord = iota // between tokens
	wordFree                     // the speaker or to=NAME
	wordChannel                  // right after <|channel|>
	wordConstrain                // right after <|constrain|>
)

// header is the state of the message header being read.
type header struct {
	speakerAllowed bool // the speaker may still come (after <|start|>)
	tokens         int  // tokens finished so far
	kind           hdrWord
	word           []byte
	wordOff        int
	recipient      string
	channel        string
	hasRecipient   bool
	hasChannel     bool
	hasConstrain   bool
	// badOff is the offset to report for the last error: the word's
	// start when the error is about a word, else -1.
	badOff int
}

// reset starts a header; speaker says whether it may name its speaker.
func (h *header) reset(speaker bool) {
	*h = header{speakerAllowed: speaker, word: h.word[:0], badOff: -1}
}

// empty reports whether nothing of the header has been read.
func (h *header) empty() bool { return h.tokens == 0 && h.kind == wordNone }

// endWord finishes the word being read, if any; it returns the error
// message for a word that cannot stand where it is, or "".
func (h *header) endWord() string {
	kind, w := h.kind, string(h.word)
	if kind == wordNone {
		return ""
	}
	h.badOff = h.wordOff
	h.kind, h.word = wordNone, h.word[:0]
	first := h.tokens == 0
	h.tokens++
	switch kind {
	case wordChannel:
		if w != channelAnalysis && w != channelFinal {
			return "unknown channel " + quote(w) + "; Beam's channels are analysis and final"
		}
		h.channel = w
	case wordConstrain:
		if w != formatXML {
			return "unsupported argument format " + quote(w) + "; Beam's tool calls use <|constrain|>xml"
		}
	default:
		if first && h.speakerAllowed && !strings.HasPrefix(w, recipientPrefix) {
			if w != RoleAssistant {
				return "a message from " + quote(w) + "; the generation can hold only assistant messages"
			}
			return ""
		}
		return h.recipientWord(w)
	}
	return ""
}

func (h *header) recipientWord(w string) string {
	name, ok := strings.CutPrefix(w, recipientPrefix)
	switch {
	case !ok:
		return "unexpected " + quote(w) + " in a message header"
	case h.hasRecipient:
		return "a second recipient " + quote(w) + " in a message header"
	case name == "":
		return "empty tool name after to="
	}
	if err := checkToolName(name); err != nil {
		return err.Error()
	}
	h.recipient, h.hasRecipient = name, true
	return ""
}

// marker handles <|channel|> or <|constrain|> in a header and returns an
// error message or "".
func (h *header) marker(mk string) string {
	if msg := h.space(); msg != "" {
		return msg
	}
	h.tokens++
	h.badOff = -1
	switch mk {
	case MarkerChannel:
		if h.hasChannel {
			return "a second <|channel|> in a message header"
		}
		h.hasChannel = true
		h.kind = wordChannel
	case MarkerConstrain:
		if !h.hasChannel {
			return "<|constrain|> before <|channel|> in a message header"
		}
		if h.hasConstrain {
			return "a second <|constrain|> in a message header"
		}
		h.hasConstrain = true
		h.kind = wordConstrain
	}
	return ""
}

// space handles a space between tokens.
func (h *header) space() string {
	h.badOff = -1
	switch h.kind {
	case wordChannel:
		if len(h.word) == 0 {
			return "<|channel|> must be followed by the channel name"
		}
	case wordConstrain:
		if len(h.word) == 0 {
			return "<|constrain|> must be followed by the argument format"
		}
	}
	return h.endWord()
}

// finish checks the header at <|message|>.
func (h *header) finish() string {
	if (h.kind == wordChannel || h.kind == wordConstrain) && len(h.word) == 0 {
		return h.space()
	}
	if msg := h.endWord(); msg != "" {
		return msg
	}
	h.badOff = -1
	switch {
	case !h.hasChannel:
		return "a message header without <|channel|>; every message names its channel"
	case h.hasConstrain && !h.hasRecipient:
		return "<|constrain|> in a header without a recipient (to=NAME)"
	}
	return ""
}

// lastMarker returns the index and the marker of the last marker in s, or
// -1 and "". It reads s from its end, so a long prompt costs little.
func lastMarker(s string) (int, string) {
	for end := len(s); ; {
		i := strings.LastIndex(s[:end], "<|")
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
	p.inPrefix = true
	defer func() { p.inPrefix = false }()
	at, mk := lastMarker(prefix)
	switch mk {
	case "":
		p.hdr.reset(false)
		return
	case MarkerEnd, MarkerCall, MarkerReturn:
		p.state = stBetween
		if strings.TrimLeft(prefix[at+len(mk):], " \t\r\n") != "" {
			p.fail(0, "text after the prompt's last "+mk+"; the generation must start a message")
		}
		return
	}
	// The prompt ends inside or right after a header: read the header
	// from its <|start|> as if it were generated.
	tail := prefix[at:]
	p.hdr.reset(false)
	if start := strings.LastIndex(prefix, MarkerStart); start >= 0 {
		tail = prefix[start+len(MarkerStart):]
		p.hdr.reset(true)
	}
	body := ""
	if i := strings.Index(tail, MarkerMessage); i >= 0 {
		tail, body = tail[:i+len(MarkerMessage)], tail[i+len(MarkerMessage):]
	}
	p.run(tail, false)
	if p.err == nil && p.state == stHeader && p.hdr.kind == wordFree && p.hdr.tokens == 0 {
		// The speaker ends with the prompt ("<|start|>assistant").
		if msg := p.hdr.endWord(); msg != "" {
			p.fail(0, msg)
		}
	}
	if p.err == nil && body != "" && p.state != stText {
		p.fail(0, "the prompt ends inside a tool call's arguments; the parser can't continue it")
	}
	p.queued, p.events = p.events, nil
	p.pend = p.pend[:0]
	// Offsets count from the generation's start; a word the prompt began
	// is reported there.
	p.off, p.hdr.wordOff = 0, 0
}
