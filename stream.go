package harmony

import (
	"bytes"
	"strconv"
	"strings"
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

// The fields of the parsed message a region fills.
const (
	FieldThinking  = "thinking"
	FieldContent   = "content"
	FieldToolCalls = "tool_calls"
)

// Event is one step of a streamed parse. Events are plain values; the
// caller may keep or reuse them.
type Event struct {
	Type EventType
	// Field is FieldThinking, FieldContent or FieldToolCalls.
	Field string
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
	dst = pyjson.AppendQuoted(dst, e.Field)
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

// parseState is where the parser stands in the generation.
type parseState uint8

const (
	stHeader  parseState = iota // reading a message header
	stText                      // in a reasoning or final message
	stArgs                      // in a tool call, between arguments
	stArgName                   // in <rfl:parameter name="..., reading the name
	stArgTag                    // after the name's closing quote, expecting >
	stValue                     // in an argument's value
	stBetween                   // after <|end|>, expecting <|start|>
	stDone                      // after <|call|> or <|return|>
	stFailed                    // after an error
)

// holdSets are the strings whose beginning the parser holds back at the
// end of its input in each state, until it knows whether they follow.
var (
	markerSet = markers[:]
	argsSet   = append([]string{paramOpen}, markers[:]...)
	valueSet  = []string{"\n" + paramClose, paramClose}
	startSet  = []string{MarkerStart}
)

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
type StreamParser struct {
	opts     ParseOptions
	max      int
	noEvents bool // Parse: build the message only
	inPrefix bool // reading the prompt's open header

	state parseState
	off   int    // offset in the generation of the next byte to read
	fed   int    // bytes fed so far
	pend  []byte // held-back bytes, read again with the next chunk
	arena []byte // append-only storage of joined chunks; see joinHeld
	err   error
	done  bool // Finish was called
	res   *Parsed

	events []Event // the events of the current call
	queued []Event // events from the prefix, returned by the first call

	hdr header

	// The open region.
	field string
	text  textAcc

	thinking, content []string
	calls             []ToolCall
	call              callState
	schemas           map[string]*toolSchema
	scratch           pyjson.Doc

	warnings []string
	end      string
	rest     textAcc
}

// callState is the tool call being read.
type callState struct {
	index   int
	name    string
	schema  *toolSchema // nil: arguments stay strings
	args    []byte      // the arguments' JSON text so far
	flushed int         // bytes of args already sent as chunks
	// sub is args[flushed:] as a substring of the input, when the
	// unsent fragment is one value piece that needed no escaping.
	sub   string
	subOK bool
	names []string            // argument names so far
	seen  map[string]struct{} // the names, once there are many

	argOff int // offset of the open argument's tag
	name0  []byte
	typ    argType
	stream bool // the value is a string: send it as it arrives
	fresh  bool // no byte of the value read yet
	// valueStart is where a streamed string value's text begins in args.
	valueStart int
	value      textAcc
}

// textAcc accumulates a text without copying when it comes in one piece.
type textAcc struct {
	s     string
	b     []byte
	multi bool
}

func (a *textAcc) add(s string) {
	if !a.multi {
		if a.s == "" {
			a.s = s
			return
		}
		a.b = append(grow(a.b[:0], len(a.s)+len(s)), a.s...)
		a.multi = true
	}
	a.b = append(grow(a.b, len(s)), s...)
}

// grow returns b with room for n more bytes. It doubles the capacity:
// append grows large slices by a quarter at a time, which would copy a
// long streamed text several times over.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), max(2*cap(b), len(b)+n, 256))
	copy(nb, b)
	return nb
}

func (a *textAcc) String() string {
	if a.multi {
		return string(a.b)
	}
	return a.s
}

func (a *textAcc) reset() { a.s, a.b, a.multi = "", a.b[:0], false }

// NewStreamParser returns a parser for one generation.
func NewStreamParser(opts *ParseOptions) *StreamParser {
	p := &StreamParser{}
	if opts != nil {
		p.opts = *opts
	}
	p.max = p.opts.MaxBufferedBytes
	if p.max <= 0 {
		p.max = DefaultMaxBufferedBytes
	}
	p.applyPrefix(p.opts.Prefix)
	return p
}

// Feed reads the next chunk of the generation and appends to events the
// events it makes certain. The caller may pass a reused slice (events[:0]).
// After an error, Feed reads nothing more and returns that error.
func (p *StreamParser) Feed(chunk string, events []Event) ([]Event, error) {
	p.events = p.takeQueued(events)
	if p.err == nil && p.done {
		return p.takeEvents(), &ParseError{p.off, "Feed after Finish"}
	}
	if p.err != nil {
		return p.takeEvents(), p.err
	}
	if p.plainText(chunk) {
		return p.takeEvents(), nil
	}
	over := false
	if room := p.max - p.fed; len(chunk) > room {
		chunk, over = chunk[:room], true
	}
	p.fed += len(chunk)
	data := chunk
	if len(p.pend) > 0 {
		data = p.joinHeld(chunk)
		p.pend = p.pend[:0]
	}
	p.run(data, false)
	if over && p.err == nil {
		p.fail(p.max, "the generation is longer than the limit of "+strconv.Itoa(p.max)+
			" bytes (ParseOptions.MaxBufferedBytes)")
	}
	p.flushCall()
	return p.takeEvents(), p.err
}

// joinHeld returns the held-back bytes followed by chunk as one string,
// written into an append-only arena: event texts may be slices of it, so
// its bytes, once written, are never written again; a full arena is left to
// the strings that use it and a new one begun. One allocation then serves
// many chunks instead of one each.
func (p *StreamParser) joinHeld(chunk string) string {
	n := len(p.pend) + len(chunk)
	if cap(p.arena)-len(p.arena) < n {
		p.arena = make([]byte, 0, max(arenaSize, n))
	}
	start := len(p.arena)
	p.arena = append(p.arena, p.pend...)
	p.arena = append(p.arena, chunk...)
	return unsafe.String(&p.arena[start], n)
}

// arenaSize is the size of a block of joinHeld's arena.
const arenaSize = 4096

// Byte classes for plainText: bytes that end the fast path (non-ASCII, a
// possible marker or closing tag) and bytes a JSON string must escape.
const (
	classStop   = 1
	classEscape = 2
)

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

// plainText reads a chunk of a reasoning or final message, or of a string
// argument, that is short ASCII text holding nothing that could begin a
// marker or a closing tag, when nothing is held back: the common case when
// text streams in small chunks, read in one pass without the general loop.
func (p *StreamParser) plainText(chunk string) bool {
	if chunk == "" {
		return true // nothing new: what is held back stays held
	}
	if len(chunk) > 16 || len(p.pend) > 0 || len(chunk) > p.max-p.fed {
		return false
	}
	value := p.state == stValue && p.call.stream && !p.call.fresh
	if p.state != stText && !value {
		return false
	}
	var class byte
	for i := 0; i < len(chunk); i++ {
		class |= plainClass[chunk[i]]
	}
	if class&classStop != 0 || (value && chunk[len(chunk)-1] == '\n') {
		// A value's last newline may be the one before its closing tag,
		// which is not part of it.
		return false
	}
	escape := class&classEscape != 0
	c := &p.call
	switch {
	case value && !escape && len(c.args) == c.flushed:
		// The chunk is the whole unsent fragment: send it as is.
		c.args = append(grow(c.args, len(chunk)), chunk...)
		c.flushed = len(c.args)
		p.emitChunk(FieldToolCalls, chunk, c.index)
	case value:
		p.appendValue(chunk, escape)
		p.flushCall()
	default:
		p.addText(chunk, true)
	}
	p.fed += len(chunk)
	p.off += len(chunk)
	return true
}

// Finish ends the input. It appends the last events and returns the
// parsed message, which is partial when err is not nil. A reasoning or
// final message left open is complete; so is a tool call whose arguments
// are all closed (a server that strips <|call|>). Calling Finish again
// returns the same result.
func (p *StreamParser) Finish(events []Event) ([]Event, *Parsed, error) {
	p.events = p.takeQueued(events)
	if p.done {
		return p.takeEvents(), p.res, p.err
	}
	p.done = true
	if p.err == nil {
		data := string(p.pend)
		p.pend = p.pend[:0]
		p.run(data, true)
	}
	if p.err == nil {
		p.endOfInput()
	}
	p.flushCall()
	p.res = p.result()
	return p.takeEvents(), p.res, p.err
}

func (p *StreamParser) takeQueued(events []Event) []Event {
	if len(p.queued) > 0 {
		events = append(events, p.queued...)
		p.queued = nil
	}
	return events
}

func (p *StreamParser) takeEvents() []Event {
	ev := p.events
	p.events = nil
	return ev
}

// fail records the first error; the parser reads nothing after it.
func (p *StreamParser) fail(off int, msg string) {
	if p.err != nil {
		return
	}
	if p.inPrefix {
		off, msg = 0, "prefix: "+msg
	}
	p.err = &ParseError{Offset: off, Msg: msg}
	p.state = stFailed
}

func (p *StreamParser) emit(e Event) {
	if !p.noEvents {
		p.events = append(p.events, e)
	}
}

// emitChunk appends a region_chunk event; it is emit for the hot path,
// filling the event in place.
func (p *StreamParser) emitChunk(field, text string, index int) {
	if p.noEvents {
		return
	}
	p.events = append(p.events, Event{})
	e := &p.events[len(p.events)-1]
	e.Type, e.Field, e.Index, e.Text = EventRegionChunk, field, index, text
}

// run reads data. Each step reads what its state can decide and returns
// how many bytes it read, 0 when it needs more input; what is left is held
// back for the next chunk. With final set there is no more input.
func (p *StreamParser) run(data string, final bool) {
	for len(data) > 0 && p.err == nil {
		n := p.step(data, final)
		if n == 0 {
			break
		}
		p.off += n
		data = data[n:]
	}
	if p.err == nil && !final {
		p.pend = append(p.pend, data...)
	}
}

func (p *StreamParser) step(data string, final bool) int {
	switch p.state {
	case stHeader:
		return p.headerStep(data, final)
	case stText:
		return p.textStep(data, final)
	case stArgs:
		return p.argsStep(data, final)
	case stArgName:
		return p.argNameStep(data, final)
	case stArgTag:
		return p.argTagStep(data)
	case stValue:
		return p.valueStep(data, final)
	case stBetween:
		return p.betweenStep(data, final)
	case stDone:
		p.rest.add(data)
		return len(data)
	}
	return 0
}

// maxHeld is the most bytes heldSuffix can hold back: one less than the
// longest string of its sets (paramOpen).
const maxHeld = len(paramOpen) - 1

// heldSuffix returns the length of the longest suffix of s that is a
// proper prefix of one of set: the bytes to hold back until the next chunk
// tells whether they begin one of those strings. Every string of the sets
// starts with "<" or "\n".
func heldSuffix(s string, set []string) int {
	for j := max(0, len(s)-maxHeld); j < len(s); j++ {
		if c := s[j]; c != '<' && c != '\n' {
			continue
		}
		t := s[j:]
		for _, w := range set {
			if len(t) < len(w) && strings.HasPrefix(w, t) {
				return len(t)
			}
		}
	}
	return 0
}

// validUTF8 returns the length of the longest prefix of s to read now and
// whether s is valid so far. With hold set, an unfinished sequence at the
// end of s is held back (its bytes may come with the next chunk).
func validUTF8(s string, hold bool) (int, bool) {
	if isASCII(s) || utf8.ValidString(s) {
		return len(s), true
	}
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i, hold && unfinishedRune(s[i:])
		}
		i += size
	}
	return len(s), true
}

// isASCII reports whether a short s is ASCII; longer strings are left to
// utf8.ValidString, which is faster on them.
func isASCII(s string) bool {
	if len(s) > 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// unfinishedRune reports whether s is the beginning of a valid UTF-8
// sequence that lacks its last bytes.
func unfinishedRune(s string) bool {
	if len(s) >= utf8.UTFMax || utf8.FullRuneInString(s) {
		return false
	}
	// Complete it with continuation bytes; one of these fits the narrowed
	// second-byte range of every lead byte (E0, ED, F0, F4).
	for _, c := range [...]byte{0x80, 0x90, 0xA0} {
		var buf [utf8.UTFMax]byte
		n := copy(buf[:], s)
		if n == 1 {
			buf[n] = c
			n++
		}
		for !utf8.FullRune(buf[:n]) && n < utf8.UTFMax {
			buf[n] = 0x80
			n++
		}
		if r, size := utf8.DecodeRune(buf[:n]); r != utf8.RuneError && size == n {
			return true
		}
	}
	return false
}

// headerStep reads header text: words, spaces and header markers.
func (p *StreamParser) headerStep(data string, final bool) int {
	h := &p.hdr
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == ' ':
			if msg := h.space(); msg != "" {
				p.headerFail(p.off+i, msg)
				return 0
			}
		case c == '<':
			if i > 0 {
				return i
			}
			return p.headerMarker(data, final)
		case c < 0x20 || c == '>' || c == '"' || c == 0x7f:
			p.fail(p.off+i, "unexpected "+quote(string(c))+" in a message header")
			return 0
		default:
			n := p.headerWord(data[i:], p.off+i, final)
			if n == 0 {
				return i
			}
			i += n - 1
		}
	}
	return len(data)
}

// headerFail reports a header error found at off, or at the start of the
// word it is about.
func (p *StreamParser) headerFail(off int, msg string) {
	if p.hdr.badOff >= 0 {
		off = p.hdr.badOff
	}
	p.fail(off, msg)
}

// headerWord reads the word bytes at the start of s, which is at offset
// off, and returns how many.
func (p *StreamParser) headerWord(s string, off int, final bool) int {
	h := &p.hdr
	n := 0
	for n < len(s) && s[n] > ' ' && s[n] != '<' && s[n] != '>' && s[n] != '"' && s[n] != 0x7f {
		n++
	}
	k, ok := validUTF8(s[:n], !final && n == len(s))
	if !ok {
		p.fail(off+k, "invalid UTF-8 in a message header")
		return 0
	}
	if k == 0 {
		return 0
	}
	if h.kind == wordNone {
		h.kind, h.wordOff = wordFree, off
	} else if len(h.word) == 0 {
		h.wordOff = off
	}
	h.word = append(h.word, s[:k]...)
	return k
}

// headerMarker reads the marker at the start of data in a header.
func (p *StreamParser) headerMarker(data string, final bool) int {
	h := &p.hdr
	mk := markerAt(data)
	switch mk {
	case MarkerChannel, MarkerConstrain:
		if msg := h.marker(mk); msg != "" {
			p.headerFail(p.off, msg)
			return 0
		}
		return len(mk)
	case MarkerStart:
		if p.opts.Prefix == "" && p.off == 0 && h.empty() {
			// Without a prefix, the generation may begin with the
			// whole header: <|start|>assistant<|channel|>...
			h.reset(true)
			return len(mk)
		}
		p.fail(p.off, "unexpected <|start|> in a message header; a header ends with <|message|>")
	case MarkerMessage:
		if msg := h.finish(); msg != "" {
			p.headerFail(p.off, msg)
			return 0
		}
		p.openBody()
		return len(mk)
	case "":
		if heldSuffix(data, markerSet) == len(data) {
			if final {
				p.fail(p.off+len(data), "the input ended inside a marker in a message header")
			}
			return 0
		}
		p.fail(p.off, "unexpected \"<\" in a message header")
	default:
		p.fail(p.off, "unexpected "+mk+" in a message header; a header ends with <|message|>")
	}
	return 0
}

// openBody starts the body of the header just read.
func (p *StreamParser) openBody() {
	h := &p.hdr
	if h.hasRecipient {
		p.openCall(h.recipient)
		return
	}
	p.field = FieldThinking
	if h.channel == channelFinal {
		p.field = FieldContent
	}
	p.state = stText
	p.text.reset()
	p.emit(Event{Type: EventRegionOpen, Field: p.field})
}

// textStep reads the text of a reasoning or final message up to a marker.
func (p *StreamParser) textStep(data string, final bool) int {
	if strings.IndexByte(data, '<') < 0 {
		// No marker can start here: the fast path for plain text.
		n, ok := validUTF8(data, !final)
		p.addText(data[:n], true)
		if !ok {
			p.fail(p.off+n, "invalid UTF-8 in the "+p.fieldName())
			return 0
		}
		return n
	}
	for pos := 0; ; {
		k := strings.Index(data[pos:], "<|")
		if k < 0 {
			break
		}
		k += pos
		if mk := markerAt(data[k:]); mk != "" {
			if !p.addText(data[:k], false) {
				return 0
			}
			p.textMarker(mk, p.off+k)
			return k + len(mk)
		}
		pos = k + 2
	}
	end := len(data)
	if !final {
		end -= heldSuffix(data, markerSet)
	}
	n, ok := validUTF8(data[:end], !final && end == len(data))
	p.addText(data[:n], true)
	if !ok {
		p.fail(p.off+n, "invalid UTF-8 in the "+p.fieldName())
		return 0
	}
	return n
}

// addText adds text to the open region; it checks UTF-8 unless trusted.
func (p *StreamParser) addText(s string, trusted bool) bool {
	if !trusted {
		n, ok := validUTF8(s, false)
		if !ok {
			p.addText(s[:n], true)
			p.fail(p.off+n, "invalid UTF-8 in the "+p.fieldName())
			return false
		}
	}
	if s == "" {
		return true
	}
	p.text.add(s)
	p.emitChunk(p.field, s, 0)
	return true
}

func (p *StreamParser) fieldName() string {
	switch p.field {
	case FieldThinking:
		return "reasoning"
	case FieldContent:
		return "answer"
	}
	return "tool call"
}

// textMarker handles a marker inside a reasoning or final message.
func (p *StreamParser) textMarker(mk string, off int) {
	switch {
	case mk == MarkerEnd:
		p.closeText()
		p.state = stBetween
	case mk == MarkerReturn || mk == MarkerCall:
		// Any message may end the generation (DECISIONS.md: messages end
		// at <|end|>, <|call|> or <|return|>); Beam ends only a final
		// answer with <|return|> and a tool call with <|call|>.
		if mk == MarkerCall || p.field != FieldContent {
			p.warn("the " + p.fieldName() + " ends with " + mk + ", which Beam writes only after " + endsAfter(mk))
		}
		p.closeText()
		p.finishGeneration(mk)
	default:
		p.fail(off, "unexpected "+mk+" inside the "+p.fieldName()+"; a message ends with <|end|> before the next one starts")
	}
}

// endsAfter names what Beam ends with the marker mk.
func endsAfter(mk string) string {
	if mk == MarkerCall {
		return "a tool call"
	}
	return "a final answer"
}

func (p *StreamParser) closeText() {
	v := p.text.String()
	if p.field == FieldThinking {
		p.thinking = append(p.thinking, v)
	} else {
		p.content = append(p.content, v)
	}
	p.emit(Event{Type: EventRegionClose, Field: p.field, Value: v})
	p.field = ""
	p.text.reset()
}

func (p *StreamParser) finishGeneration(mk string) {
	p.end = mk
	p.state = stDone
}

// betweenStep expects the <|start|> of the next message after <|end|>.
// Whitespace between messages is allowed (the page's examples add line
// breaks for readability).
func (p *StreamParser) betweenStep(data string, final bool) int {
	if n := len(data) - len(strings.TrimLeft(data, " \t\r\n")); n > 0 {
		return n
	}
	if strings.HasPrefix(data, MarkerStart) {
		p.state = stHeader
		p.hdr.reset(true)
		return len(MarkerStart)
	}
	if !final && heldSuffix(data, startSet) == len(data) {
		return 0
	}
	p.fail(p.off, "expected <|start|> after <|end|>, found "+firstChar(data))
	return 0
}

// firstChar names the first byte of s for an error message: the character
// when it is ASCII. Only the first byte is sure to be there in every
// chunking, and errors must not depend on the chunking.
func firstChar(s string) string {
	if s[0] < utf8.RuneSelf {
		return quote(s[:1])
	}
	return "non-ASCII text"
}

// snippet returns the start of s for an error message.
func snippet(s string) string {
	if len(s) <= 24 {
		return s
	}
	n := 24
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// openCall starts tool call body for the tool name.
func (p *StreamParser) openCall(name string) {
	c := &p.call
	*c = callState{index: len(p.calls), name: name, names: c.names[:0], name0: c.name0[:0]}
	if p.opts.Tools != nil {
		c.schema = p.schemaFor(name)
		if c.schema == nil {
			p.warn(p.callName() + ": unknown tool; its arguments stay strings")
		}
	}
	p.field = FieldToolCalls
	p.state = stArgs
	p.emit(Event{Type: EventRegionOpen, Field: FieldToolCalls, Index: c.index, Name: name})
}

// schemaFor returns the schema of the first tool named name, or nil.
func (p *StreamParser) schemaFor(name string) *toolSchema {
	if ts, ok := p.schemas[name]; ok {
		return ts
	}
	var ts *toolSchema
	for i := range p.opts.Tools {
		if p.opts.Tools[i].Function.Name == name {
			ts = newToolSchema(p.opts.Tools[i].Function.Parameters)
			break
		}
	}
	if p.schemas == nil {
		p.schemas = make(map[string]*toolSchema)
	}
	p.schemas[name] = ts
	return ts
}

func (p *StreamParser) callName() string {
	return "tool call " + strconv.Itoa(p.call.index) + " (" + p.call.name + ")"
}

func (p *StreamParser) warn(msg string) { p.warnings = append(p.warnings, msg) }

// argsStep reads between arguments: whitespace, the next argument's tag,
// or the marker that ends the call.
func (p *StreamParser) argsStep(data string, final bool) int {
	if n := len(data) - len(strings.TrimLeft(data, " \t\r\n")); n > 0 {
		return n
	}
	if strings.HasPrefix(data, paramOpen) {
		p.call.argOff = p.off
		p.state = stArgName
		return len(paramOpen)
	}
	switch mk := markerAt(data); mk {
	case MarkerEnd:
		p.closeCall()
		p.state = stBetween
		return len(mk)
	case MarkerCall, MarkerReturn:
		if mk == MarkerReturn {
			p.warn(p.callName() + " ends with <|return|>, which Beam writes only after " + endsAfter(mk))
		}
		p.closeCall()
		p.finishGeneration(mk)
		return len(mk)
	case "":
		if heldSuffix(data, argsSet) == len(data) {
			if final {
				p.fail(p.off+len(data), "the input ended inside a tag or marker in the arguments of "+p.callName())
			}
			return 0
		}
		p.fail(p.off, "unexpected "+firstChar(data)+" in the arguments of "+p.callName()+
			"; expected <rfl:parameter name=\"...\">, <|call|> or <|end|>")
	default:
		p.fail(p.off, "unexpected "+mk+" in the arguments of "+p.callName()+"; a tool call ends with <|call|> or <|end|>")
	}
	return 0
}

// argNameStep reads an argument's name up to its closing quote.
func (p *StreamParser) argNameStep(data string, final bool) int {
	c := &p.call
	n := strings.IndexByte(data, '"')
	if n < 0 {
		n = len(data)
	}
	// Errors are reported in the order of the text, so that the first
	// bad byte wins in every chunking.
	bad := n
	for i := 0; i < n; i++ {
		if badKeyByte[data[i]] {
			bad = i
			break
		}
	}
	k, ok := validUTF8(data[:bad], !final && bad == len(data))
	if !ok {
		p.fail(p.off+k, "invalid UTF-8 in an argument name of "+p.callName())
		return 0
	}
	if bad < n {
		p.fail(p.off+bad, "unexpected "+quote(data[bad:bad+1])+" in an argument name of "+p.callName())
		return 0
	}
	c.name0 = append(c.name0, data[:k]...)
	if k < n || n == len(data) {
		return k
	}
	p.state = stArgTag
	return n + 1
}

// argTagStep expects the ">" that closes an argument's tag, then starts
// its value.
func (p *StreamParser) argTagStep(data string) int {
	c := &p.call
	if data[0] != '>' {
		p.fail(p.off, "expected \"> after the argument name in "+p.callName())
		return 0
	}
	name := string(c.name0)
	c.name0 = c.name0[:0]
	if name == "" {
		p.fail(c.argOff, "empty argument name in "+p.callName())
		return 0
	}
	if c.hasArgument(name) {
		p.fail(c.argOff, "argument "+quote(name)+" appears twice in "+p.callName())
		return 0
	}
	c.names = append(c.names, name)
	p.openValue(name)
	return 1
}

// hasArgument reports whether the call already has an argument name, and
// records it. Past a few names it keeps a set, so a call with many
// arguments costs no quadratic time.
func (c *callState) hasArgument(name string) bool {
	const few = 16
	if c.seen == nil && len(c.names) < few {
		for _, n := range c.names {
			if n == name {
				return true
			}
		}
		return false
	}
	if c.seen == nil {
		c.seen = make(map[string]struct{}, 2*few)
		for _, n := range c.names {
			c.seen[n] = struct{}{}
		}
	}
	if _, ok := c.seen[name]; ok {
		return true
	}
	c.seen[name] = struct{}{}
	return false
}

// openValue starts the value of argument name and writes its key.
func (p *StreamParser) openValue(name string) {
	c := &p.call
	c.typ = stringArg
	if c.schema != nil {
		var known bool
		c.typ, known = c.schema.argType(name)
		if !known {
			p.warn(p.callName() + ": argument " + quote(name) + " is not in the tool's schema; it stays a string")
		}
	}
	c.stream = c.typ.streams()
	c.fresh = true
	c.value.reset()
	if c.stream {
		p.appendKey()
		c.args = append(c.args, '"')
		c.valueStart = len(c.args)
	}
	p.state = stValue
}

// appendKey writes the open argument's key: `{"key": ` for the first,
// `, "key": ` for the others.
func (p *StreamParser) appendKey() {
	c := &p.call
	if len(c.names) == 1 {
		p.appendArgs("{")
	} else {
		p.appendArgs(", ")
	}
	c.args = pyjson.AppendQuoted(c.args, c.names[len(c.names)-1])
	c.args = append(c.args, ": "...)
}

// appendArgs adds JSON text of the call's arguments other than a value
// piece.
func (p *StreamParser) appendArgs(s string) {
	p.call.args = append(p.call.args, s...)
	p.call.subOK = false
}

// valueStep reads an argument's value up to </rfl:parameter>. Markers in a
// value are text. One leading and one trailing "\n" are not part of it.
func (p *StreamParser) valueStep(data string, final bool) int {
	c := &p.call
	if c.fresh {
		c.fresh = false
		if data[0] == '\n' {
			return 1 // the newline after the tag is not part of the value
		}
	}
	if k := strings.Index(data, paramClose); k >= 0 {
		if !p.addValue(strings.TrimSuffix(data[:k], "\n"), false) {
			return 0
		}
		p.closeValue()
		return k + len(paramClose)
	}
	end := len(data)
	if !final {
		end -= heldSuffix(data, valueSet)
	}
	n, ok := validUTF8(data[:end], !final && end == len(data))
	p.addValue(data[:n], true)
	if !ok {
		p.fail(p.off+n, "invalid UTF-8 in argument "+quote(c.names[len(c.names)-1])+" of "+p.callName())
	}
	return n
}

// addValue adds a piece of the open value; it checks UTF-8 unless trusted.
func (p *StreamParser) addValue(s string, trusted bool) bool {
	c := &p.call
	if !trusted {
		n, ok := validUTF8(s, false)
		if !ok {
			p.addValue(s[:n], true)
			p.fail(p.off+n, "invalid UTF-8 in argument "+quote(c.names[len(c.names)-1])+" of "+p.callName())
			return false
		}
	}
	if s == "" {
		return true
	}
	if !c.stream {
		c.value.add(s)
		return true
	}
	p.appendValue(s, true)
	return true
}

// appendValue adds a piece of a streamed string value to the arguments'
// JSON; escape false says it needs no escaping. A piece that is the whole
// unsent text is kept to be sent without a copy.
func (p *StreamParser) appendValue(s string, escape bool) {
	c := &p.call
	start := len(c.args)
	c.args = grow(c.args, len(s)+len(s)/8)
	if escape {
		c.args = pyjson.AppendEscaped(c.args, s)
	} else {
		c.args = append(c.args, s...)
	}
	if start == c.flushed && len(c.args)-start == len(s) {
		c.sub, c.subOK = s, true
	} else {
		c.subOK = false
	}
}

// closeValue ends the open value: a streamed string gets its closing
// quote; any other value is cast and written whole with its key.
func (p *StreamParser) closeValue() {
	c := &p.call
	p.state = stArgs
	if c.stream {
		// Markers need no JSON escape: the value's text in args holds
		// them as they came.
		if mk := findMarkerBytes(c.args[c.valueStart:]); mk != "" {
			p.warnMarker(mk)
		}
		p.appendArgs(`"`)
		return
	}
	raw := c.value.String()
	if mk := FindMarker(raw); mk != "" {
		p.warnMarker(mk)
	}
	p.appendKey()
	var fits bool
	c.args, fits = castArgument(c.args, raw, &c.typ, &p.scratch)
	c.subOK = false
	if !fits {
		p.warn(p.callName() + ": argument " + quote(c.names[len(c.names)-1]) + ": " +
			quote(snippet(raw)) + " is not a valid " + c.typ.String() + "; it stays a string")
	}
}

// warnMarker reports marker text in the value just read. Inside a
// parameter only </rfl:parameter> ends the value, so the marker is text
// (DECISIONS.md, Parsing); but sent back in the history the value renders
// the marker raw, and a gateway without a tokenizer refuses that request
// (docs/gap-decisions.md).
func (p *StreamParser) warnMarker(mk string) {
	c := &p.call
	p.warn(p.callName() + ": argument " + quote(c.names[len(c.names)-1]) + " contains marker text " + mk +
		"; sent back in a request's history it would be read as a format token, and a gateway without a tokenizer refuses it")
}

// viewArgs returns the unsent end of a call's arguments as a string without
// copying it. That is safe because the arguments buffer only grows: bytes
// once written are never written again (grow moves to a new array, and a
// cast that does not fit only writes past the end), so the string's bytes
// never change. The buffer goes away with the call, never to be reused.
func viewArgs(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// flushCall sends the call's unsent arguments text as one chunk.
func (p *StreamParser) flushCall() {
	c := &p.call
	if p.field != FieldToolCalls || len(c.args) == c.flushed {
		return
	}
	if !p.noEvents {
		text := c.sub
		if !c.subOK || len(c.sub) != len(c.args)-c.flushed {
			text = viewArgs(c.args[c.flushed:])
		}
		p.emitChunk(FieldToolCalls, text, c.index)
	}
	c.flushed = len(c.args)
	c.subOK = false
}

// closeCall finishes the open tool call.
func (p *StreamParser) closeCall() {
	c := &p.call
	if len(c.names) == 0 {
		p.appendArgs("{}")
	} else {
		p.appendArgs("}")
	}
	p.flushCall()
	// When events were sent, the finished arguments get bytes of their
	// own: event texts view c.args, and the caller may edit Arguments.
	args := c.args
	if !p.noEvents {
		args = bytes.Clone(args)
	}
	p.calls = append(p.calls, ToolCall{Type: "function", Function: FunctionCall{Name: c.name, Arguments: args}})
	call := p.calls[len(p.calls)-1]
	p.emit(Event{Type: EventRegionClose, Field: FieldToolCalls, Index: c.index, Call: &call})
	c.args = nil
	p.field = ""
}

// endOfInput handles the end of the generation in the current state.
func (p *StreamParser) endOfInput() {
	switch p.state {
	case stHeader:
		// An empty generation is an empty message.
		if p.off > 0 && p.hdr.hasRecipient {
			p.fail(p.off, "the input ended inside the header of a tool call to "+p.hdr.recipient)
		} else if p.off > 0 {
			p.fail(p.off, "the input ended inside a message header")
		}
	case stText:
		p.closeText()
	case stArgs:
		p.closeCall()
	case stArgName, stArgTag:
		p.fail(p.off, "the input ended inside an argument tag of "+p.callName())
	case stValue:
		c := &p.call
		p.fail(p.off, "the input ended inside argument "+quote(c.names[len(c.names)-1])+" of "+
			p.callName()+" (opened at offset "+strconv.Itoa(c.argOff)+"); "+paramClose+" is missing")
	}
}

// result assembles the parsed message.
func (p *StreamParser) result() *Parsed {
	res := &Parsed{End: p.end, Rest: p.rest.String()}
	thinking, content := p.thinking, p.content
	if p.state == stFailed && p.field == FieldThinking {
		thinking = append(thinking[:len(thinking):len(thinking)], p.text.String())
	} else if p.state == stFailed && p.field == FieldContent {
		content = append(content[:len(content):len(content)], p.text.String())
	}
	res.Message = Message{
		Role:      RoleAssistant,
		Reasoning: joinNonEmpty(thinking),
		Content:   joinNonEmpty(content),
		ToolCalls: p.calls,
	}
	res.Warnings = p.warnings
	if res.Rest != "" {
		res.Warnings = append(res.Warnings, strconv.Itoa(len(res.Rest))+" bytes after "+p.end+" were not parsed")
	}
	return res
}

// joinNonEmpty joins the non-empty texts with "\n\n" (DECISIONS.md: several
// reasoning or final messages in one generation).
func joinNonEmpty(texts []string) string {
	n, last := 0, ""
	for _, t := range texts {
		if t != "" {
			n++
			last = t
		}
	}
	if n <= 1 {
		return last
	}
	var b strings.Builder
	for _, t := range texts {
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t)
	}
	return b.String()
}
