package harmony

import (
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// EventType is the kind of a streaming Event.
type EventType uint8

// The kinds of events (page: Example: parse a stream; DECISIONS.md,
// Streaming events).
const (
	// EventRegionOpen starts a region: a reasoning or final message, or a
	// tool call.
	EventRegionOpen EventType = iota + 1
	// EventRegionChunk carries more text of the open region.
	EventRegionChunk
	// EventRegionClose ends the open region with its finished value.
	EventRegionClose
)

// String returns the event type as the page spells it: "region_open",
// "region_chunk" or "region_close".
func (t EventType) String() string {
	switch t {
	case EventRegionOpen:
		return "region_open"
	case EventRegionChunk:
		return "region_chunk"
	case EventRegionClose:
		return "region_close"
	}
	return "invalid"
}

// Field names the field of the parsed message a region fills, spelled as
// the page's events and the message's JSON spell it.
type Field string

// The fields of the parsed message a region fills.
const (
	FieldThinking  Field = "thinking"
	FieldContent   Field = "content"
	FieldToolCalls Field = "tool_calls"
)

// Event is one step of a streamed parse. Events are plain values; the
// caller may keep or reuse them.
type Event struct {
	Type EventType
	// Field is FieldThinking, FieldContent or FieldToolCalls.
	Field Field
	// Index is the tool call's position within the generation, from 0
	// (tool_calls only).
	Index int
	// Name is the tool's name (region_open of tool_calls).
	Name string
	// Text is a region_chunk's text. For tool_calls it is a fragment of
	// the arguments' JSON object text: a call's fragments joined are
	// exactly its final Arguments. Text never ends inside a UTF-8
	// sequence.
	Text string
	// Value is a region_close's finished text (thinking and content).
	Value string
	// Call is a tool_calls region_close's finished call.
	Call *ToolCall
}

// AppendJSON appends the event as the page's event dict, in Python's
// json.dumps style: {"type": "region_chunk", "field": "content", "text":
// "Hi"}. Tool-call events also carry "index", the open event "name", and
// the close event's value is the call {"type": "function", "function":
// {"name": ..., "arguments": {...}}}.
func (e *Event) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type": "`...)
	dst = append(dst, e.Type.String()...)
	dst = append(dst, `", "field": `...)
	dst = pyjson.AppendQuoted(dst, string(e.Field))
	tool := e.Field == FieldToolCalls
	if tool {
		dst = append(dst, `, "index": `...)
		dst = strconv.AppendInt(dst, int64(e.Index), 10)
	}
	switch e.Type {
	case EventRegionOpen:
		if tool {
			dst = append(dst, `, "name": `...)
			dst = pyjson.AppendQuoted(dst, e.Name)
		}
	case EventRegionChunk:
		dst = append(dst, `, "text": `...)
		dst = pyjson.AppendQuoted(dst, e.Text)
	case EventRegionClose:
		dst = append(dst, `, "value": `...)
		if tool && e.Call != nil {
			dst = e.Call.AppendJSON(dst)
		} else {
			dst = pyjson.AppendQuoted(dst, e.Value)
		}
	}
	return append(dst, '}')
}

// StreamParser parses a generation as it arrives, in chunks of any size.
// Feed returns the events each chunk makes certain; Finish ends the input
// and returns the message. Every way of cutting the text into chunks
// gives the same message and, per region, the same text as Parse.
//
// The parser remembers how far it has read: a chunk costs work in
// proportion to its own length, and a chunk of plain reasoning or answer
// text costs no allocation beyond the event's text. Only a possible
// marker (or tag, or UTF-8 sequence) cut by the chunk's end is held back.
// After an error every call returns that error.
//
// It has two layers: a lexer (stream_lex.go) that turns bytes into the
// format's tokens (stream_token.go), and an assembler (stream_asm.go) that
// turns tokens into regions, events and the message.
type StreamParser struct {
	lex  lexer
	asm  assembler
	done bool // Finish was called
	res  *Parsed
}

// textAcc accumulates a text without copying when it comes in one piece.
// A text in several pieces is written into b, which is append-only: String
// returns the text as a view of b, without a copy, so b's bytes, once
// written, are never written again (a full b is left to the strings that
// view it and a larger one begun), and the next text is written after the
// last. TestEventTextsNeverChange fails when a byte of b is written twice.
type textAcc struct {
	s     string
	b     []byte
	start int // where the text begins in b, when multi
	multi bool
}

func (a *textAcc) add(s string) {
	if a.multi && cap(a.b)-len(a.b) >= len(s) {
		n := len(a.b)
		a.b = a.b[:n+len(s)] // only the length is stored: see emitChunk on barriers
		copy(a.b[n:], s)
		return
	}
	a.addSlow(s)
}

// addSlow is add when the text is not yet in b or b is full.
func (a *textAcc) addSlow(s string) {
	if !a.multi {
		if a.s == "" {
			a.s = s
			return
		}
		a.multi = true
		a.start = len(a.b)
		a.appendString(a.s)
	}
	a.appendString(s)
}

// appendString appends s to the text in b.
func (a *textAcc) appendString(s string) {
	if cap(a.b)-len(a.b) < len(s) {
		// Begin a new array with the text so far; the old one stays
		// with the strings that view it.
		n := len(a.b) - a.start
		nb := make([]byte, n, max(2*cap(a.b), 2*(n+len(s)), 256))
		copy(nb, a.b[a.start:])
		a.b, a.start = nb, 0
	}
	n := len(a.b)
	a.b = a.b[:n+len(s)] // only the length is stored: see emitChunk on barriers
	copy(a.b[n:], s)
}

// String returns the text; it does not change when more is added.
func (a *textAcc) String() string {
	if a.multi {
		return unsafe.String(&a.b[a.start], len(a.b)-a.start)
	}
	return a.s
}

// reset begins a new text.
func (a *textAcc) reset() { a.s, a.multi = "", false }

// regionText accumulates the text of the open reasoning or final message.
// A text in one piece is kept as it came, without a copy. A text in several
// pieces is gathered in a scratch buffer that nothing views, reused by the
// parser's next region and, through regionScratch, by the next parser; String
// copies it out, once, at its exact size. Growing an append-only buffer
// instead (as textAcc does) allocates about twice the text, and the
// collector, run that much more often, makes every event's text write pay
// its write barrier. Chunk events carry the chunks' own texts, never the
// scratch (TestRegionTextsOutliveScratch).
type regionText struct {
	s     string
	b     []byte  // the scratch, when multi
	pb    *[]byte // where the scratch goes back to regionScratch
	multi bool
}

// regionScratch holds scratch buffers of regionText between parsers.
var regionScratch = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooledScratch is the largest scratch buffer kept for the next parser.
const maxPooledScratch = 1 << 20

// addSlow is add when the text is not yet in the scratch or the scratch
// is full.
func (t *regionText) addSlow(s string) {
	if !t.multi {
		if t.s == "" {
			t.s = s
			return
		}
		t.multi = true
		if t.pb == nil {
			t.pb = regionScratch.Get().(*[]byte)
			t.b = (*t.pb)[:0]
		}
		t.b = append(t.b[:0], t.s...)
	}
	t.b = append(t.b, s...)
}

// String returns a copy of the text (or the text itself, in one piece).
func (t *regionText) String() string {
	if t.multi {
		return string(t.b)
	}
	return t.s
}

// reset begins a new text.
func (t *regionText) reset() { t.s, t.multi = "", false }

// release hands the scratch back for another parser; the text is gone.
func (t *regionText) release() {
	if t.pb != nil && cap(t.b) <= maxPooledScratch {
		*t.pb = t.b[:0]
		regionScratch.Put(t.pb)
	}
	t.s, t.b, t.pb, t.multi = "", nil, nil, false
}

// NewStreamParser returns a parser for one generation.
func NewStreamParser(opts *ParseOptions) *StreamParser {
	p := &StreamParser{}
	var o ParseOptions
	if opts != nil {
		o = *opts
	}
	p.lex.sink = &p.asm
	p.lex.word = p.lex.wordBuf[:0]
	p.asm.thinking, p.asm.content = p.asm.thinkingBuf[:0], p.asm.contentBuf[:0]
	p.asm.tools = o.Tools
	p.lex.max = o.MaxBufferedBytes
	if p.lex.max <= 0 {
		p.lex.max = DefaultMaxBufferedBytes
	}
	p.lex.startAllowed = o.Prefix == ""
	p.applyPrefix(o.Prefix)
	return p
}

// Feed reads the next chunk of the generation and appends to events the
// events it makes certain. The caller may pass a reused slice (events[:0]).
// After an error, Feed reads nothing more and returns that error.
func (p *StreamParser) Feed(chunk string, events []Event) ([]Event, error) {
	a := &p.asm
	a.useEvents(events)
	if a.err == nil && p.done {
		return a.takeEvents(), &ParseError{p.lex.off, "Feed after Finish"}
	}
	if a.err != nil {
		return a.takeEvents(), a.err
	}
	if !p.lex.plainText(chunk) {
		p.lex.feed(chunk)
	}
	a.flushCall()
	return a.takeEvents(), a.err
}

// Finish ends the input. It appends the last events and returns the
// parsed message, which is partial when err is not nil. A reasoning or
// final message left open is complete; so is a tool call whose arguments
// are all closed (a server that strips <|call|>). Calling Finish again
// returns the same result.
func (p *StreamParser) Finish(events []Event) ([]Event, *Parsed, error) {
	a := &p.asm
	a.useEvents(events)
	if p.done {
		return a.takeEvents(), p.res, a.err
	}
	p.done = true
	p.lex.finish()
	a.flushCall()
	p.res = a.result()
	a.text.release()
	return a.takeEvents(), p.res, a.err
}

// Byte classes for plainText: bytes that end the fast path (non-ASCII, a
// possible marker or closing tag) and bytes a JSON string must escape.
const (
	classStop   = 1
	classEscape = 2
)

// wordClass returns the classes of the 8 bytes of v (the first byte in its
// low bits) as plainClass's table gives them, or-ed, except that the
// escape class is left out when the stop class is in (plainText then needs
// no more); TestWordClass checks it against the table. It uses the
// classic exact tests for a zero byte and for a byte below c.
func wordClass(v uint64) byte {
	if wordStop(v) {
		return classStop
	}
	return wordEscape(v)
}

// Two bytes repeated over a word, for wordStop and wordEscape.
const (
	wordLo = 0x0101010101010101
	wordHi = 0x8080808080808080
)

// wordStop reports whether a byte of v has the stop class: it is '<' or
// 0x80 and up.
func wordStop(v uint64) bool {
	lt := v ^ (wordLo * '<')
	return (v|(lt-wordLo)&^lt)&wordHi != 0
}

// wordEscape returns classEscape when a byte of v that is not a stop byte
// is one a JSON string escapes; v holds no stop byte.
func wordEscape(v uint64) byte {
	q, bs := v^(wordLo*'"'), v^(wordLo*'\\')
	if ((v-wordLo*0x20)&^v|(q-wordLo)&^q|(bs-wordLo)&^bs)&wordHi != 0 {
		return classEscape
	}
	return 0
}

// load32 returns the first 4 bytes of s as a little-endian word.
func load32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

var plainClass = func() (t [256]byte) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= utf8.RuneSelf || c == '<':
			t[c] = classStop
		case c < 0x20 || c == '"' || c == '\\':
			t[c] = classEscape
		}
	}
	return t
}()

// plainText reads a chunk of a reasoning or final message, or of an
// argument's value, that is short ASCII text holding nothing that could
// begin a marker or a closing tag, when nothing is held back: the common
// case when text streams in small chunks. Such a chunk is one text span by
// every rule of the lexer, so it becomes one token in one pass, without the
// state functions; the token says whether a JSON string must escape any
// of it.
func (l *lexer) plainText(chunk string) bool {
	if chunk == "" {
		return true // nothing new: what is held back stays held
	}
	if len(chunk) > 16 || len(l.pend) > 0 || len(chunk) > l.max-l.fed {
		return false
	}
	if l.state != lexText && l.state != lexValue {
		return false
	}
	var class byte
	if n := len(chunk); n >= 4 && n <= 8 {
		// wordClass, without the escape test that text does not need.
		v := uint64(load32(chunk)) | uint64(load32(chunk[n-4:]))<<32
		if wordStop(v) {
			return false
		}
		if l.state == lexValue {
			class = wordEscape(v)
		}
	} else {
		for i := 0; i < len(chunk); i++ {
			class |= plainClass[chunk[i]]
		}
	}
	if class&classStop != 0 || (l.state == lexValue && chunk[len(chunk)-1] == '\n') {
		// A value's last newline may be the one before its closing tag,
		// which is not part of it.
		return false
	}
	if l.state == lexText {
		l.emit(token{kind: tokText, pos: l.off, text: chunk}) // l.text, inlined
	} else {
		l.value(chunk, class&classEscape == 0)
	}
	l.fed += len(chunk)
	l.off += len(chunk)
	return true
}
