package harmony

import (
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// assembler is the upper layer of StreamParser: it consumes the lexer's
// tokens (stream_lex.go, stream_token.go) and builds the message: it checks
// headers, opens and closes regions, sends events, writes each call's
// arguments as JSON and casts them by the tools' schemas. It never sees a
// byte the lexer is not sure of, so nothing here depends on the chunking.
// It records the parse's one error (err), whether it found it or the lexer
// did.
type assembler struct {
	tools    []Tool
	noEvents bool // Parse: build the message only
	inPrefix bool // reading the prompt's open header
	err      error

	events []Event // the events of the current call
	queued []Event // events from the prefix, returned by the first call

	hdr header

	// The open region: FieldThinking, FieldContent, FieldToolCalls or "".
	field Field
	text  regionText

	thinking, content []string
	// The first arrays of thinking and content: most generations have
	// one reasoning and one final message.
	thinkingBuf, contentBuf [1]string
	calls                   []ToolCall
	call                    callState
	schemas                 map[string]*toolSchema
	scratch                 pyjson.Doc

	warnings []Warning
	end      string
	rest     textAcc
}

// callState is the tool call being read.
type callState struct {
	index  int
	name   string
	schema *toolSchema // nil: arguments stay strings
	// The arguments' JSON text so far is the sent parts, then args, the
	// current block (see newBlock).
	parts    [][]byte
	partsLen int    // bytes in parts
	args     []byte // the current block
	flushed  int    // bytes of args already sent as chunks
	// sub is args[flushed:] as a substring of the input, when the
	// unsent fragment is one value piece that needed no escaping.
	sub    string
	subOK  bool
	tagOff int                 // the offset of the last argument's tag
	names  []string            // argument names so far
	seen   map[string]struct{} // the names, once there are many

	typ    argType
	stream bool // the value is a string: send it as it arrives
	// A streamed string value's text begins in parts[valuePart] at
	// valueStart; valuePart is len(parts) when it begins in args.
	valuePart, valueStart int
	value                 textAcc // a value to cast, when it is not streamed
}

// token consumes one token of the lexer; it reports false once the parse
// has failed. A text token is most of a stream's (a piece of reasoning or
// answer), and its common case is written out here, one call per piece
// from the lexer down: a piece of 4 to 8 bytes of a text already in pieces,
// with room in the scratch and a reused event slot. addText takes the
// other text tokens, valueText the value tokens and tokenOther the other
// kinds.
func (a *assembler) token(t token) bool {
	if t.kind != tokText {
		if t.kind == tokValue {
			// A piece of an argument's value, as common in a tool call.
			a.valueText(t.text, t.plain())
			return a.err == nil
		}
		return a.tokenOther(t)
	}
	s, tx := t.text, &a.text
	n := len(tx.b)
	if !tx.multi || cap(tx.b)-n < len(s) || len(s) < 4 || len(s) > 8 || a.noEvents || len(a.events) == cap(a.events) {
		a.addText(s)
		return a.err == nil
	}
	tx.b = tx.b[:n+len(s)] // only the length is stored: see emitChunk on barriers
	// A copy of 4 to 8 bytes as two overlapping 4-byte words, without a
	// call to memmove.
	b := tx.b[n:]
	binary.LittleEndian.PutUint32(b, load32(s))
	binary.LittleEndian.PutUint32(b[len(b)-4:], load32(s[len(s)-4:]))
	// emitChunk, written out.
	k := len(a.events)
	a.events = a.events[:k+1]
	e := &a.events[k]
	e.Type, e.Index, e.Text = EventRegionChunk, 0, s
	if !sameString(e.Field, a.field) || e.Name != "" || e.Value != "" || e.Call != nil {
		e.Field, e.Name, e.Value, e.Call = a.field, "", "", nil
	}
	return a.err == nil
}

// tokenOther is token for the tokens other than text and value.
func (a *assembler) tokenOther(t token) bool {
	switch t.kind {
	case tokStart:
		a.startHeader(t.speaker())
	case tokWord:
		a.headerWord(t.text, t.pos)
	case tokSpace:
		a.headerSpace(t.pos)
	case tokHeaderMarker:
		a.headerMarker(t.text, t.pos)
	case tokMessage:
		a.headerEnd(t.pos, t.call())
	case tokEnd:
		if a.field == FieldToolCalls {
			a.callEnd(t.text)
		} else {
			a.textEnd(t.text)
		}
	case tokArgOpen:
		a.argOpen(t.text, t.pos)
	case tokArgClose:
		a.argClose()
	case tokRest:
		a.addRest(t.text)
	case tokEOF:
		a.eof(t)
	case tokError:
		a.fail(t.pos, a.lexicalError(t))
	}
	return a.err == nil
}

// lexicalError words the lexer's error t, naming the field, call or
// argument it stands in.
func (a *assembler) lexicalError(t token) string {
	switch t.err() {
	case errTextUTF8:
		return "invalid UTF-8 in the " + a.fieldName()
	case errTextMarker:
		return "unexpected " + t.text + " inside the " + a.fieldName() + "; a message ends with <|end|> before the next one starts"
	case errArgsEOF:
		return "the input ended inside a tag or marker in the arguments of " + a.callName()
	case errArgsByte:
		return "unexpected " + t.text + " in the arguments of " + a.callName() +
			"; expected <rfl:parameter name=\"...\">, <|call|> or <|end|>"
	case errArgsMarker:
		return "unexpected " + t.text + " in the arguments of " + a.callName() + "; a tool call ends with <|call|> or <|end|>"
	case errArgNameUTF8:
		return "invalid UTF-8 in an argument name of " + a.callName()
	case errArgNameByte:
		return "unexpected " + t.text + " in an argument name of " + a.callName()
	case errArgTag:
		return "expected \"> after the argument name in " + a.callName()
	case errArgEmpty:
		return "empty argument name in " + a.callName()
	case errValueUTF8:
		return "invalid UTF-8 in argument " + quote(a.argName()) + " of " + a.callName()
	}
	return t.text
}

// eof ends the input where t says it came.
func (a *assembler) eof(t token) {
	switch t.eof() {
	case eofHeader:
		// An empty generation is an empty message.
		if t.pos > 0 && a.hdr.hasRecipient {
			a.fail(t.pos, "the input ended inside the header of a tool call to "+a.hdr.recipient)
		} else if t.pos > 0 {
			a.fail(t.pos, "the input ended inside a message header")
		}
	case eofText:
		a.closeText()
	case eofArgs:
		a.closeCall()
	case eofArgTag:
		a.fail(t.pos, "the input ended inside an argument tag of "+a.callName())
	case eofValue:
		a.fail(t.pos, "the input ended inside argument "+quote(a.argName())+" of "+
			a.callName()+" (opened at offset "+strconv.Itoa(a.call.tagOff)+"); "+paramClose+" is missing")
	}
}

// fail records the first error.
func (a *assembler) fail(off int, msg string) {
	if a.err != nil {
		return
	}
	if a.inPrefix {
		off, msg = 0, "prefix: "+msg
	}
	a.err = &ParseError{Offset: off, Msg: msg}
}

func (a *assembler) warn(msg string) { a.warnings = append(a.warnings, Warning{Msg: msg}) }

func (a *assembler) emit(e Event) {
	if !a.noEvents {
		a.events = append(a.events, e)
	}
}

// emitChunk appends a region_chunk event; it is emit for the hot path,
// filling the event in place.
//
// While the collector runs, every pointer written to the heap costs a
// write barrier, and the caller's slice is in the heap. A caller that
// reuses its slice (events[:0]) hands back slots that mostly hold the last
// chunk event already, so only the fields that differ are written: the text
// and, rarely, the rest.
func (a *assembler) emitChunk(field Field, text string, index int) {
	if a.noEvents {
		return
	}
	n := len(a.events)
	if n == cap(a.events) {
		a.events = append(a.events, Event{Type: EventRegionChunk, Field: field, Index: index, Text: text})
		return
	}
	a.events = a.events[:n+1]
	e := &a.events[n]
	e.Type, e.Index, e.Text = EventRegionChunk, index, text
	if !sameString(e.Field, field) {
		e.Field = field
	}
	if e.Name != "" {
		e.Name = ""
	}
	if e.Value != "" {
		e.Value = ""
	}
	if e.Call != nil {
		e.Call = nil
	}
}

// sameString reports whether a and b are the same string in memory, the
// common case when a reused event already holds the field: comparing the
// pointers costs no call to compare the bytes. Equal strings elsewhere in
// memory only cost a store.
func sameString[S ~string](a, b S) bool {
	return len(a) == len(b) && unsafe.StringData(string(a)) == unsafe.StringData(string(b))
}

// useEvents makes events, the caller's slice, the one the events of this
// call are appended to, followed by the events queued from the prefix.
// When it is the slice the last call returned (a caller reusing
// events[:0]), only its length is stored: storing its pointer again would
// cost a write barrier on every chunk while the collector runs.
func (a *assembler) useEvents(events []Event) {
	if cap(events) > 0 && cap(a.events) == cap(events) && &a.events[:1][0] == &events[:1][0] {
		a.events = a.events[:len(events)]
	} else {
		a.events = events
	}
	if len(a.queued) > 0 {
		a.events = append(a.events, a.queued...)
		a.queued = nil
	}
}

// takeEvents returns the events of this call. The assembler keeps the
// slice (see useEvents) but writes to it only in the next call, which the
// caller passes it to.
func (a *assembler) takeEvents() []Event { return a.events }

// The header grammar (DECISIONS.md, Parsing):
//
//	[assistant][ to=NAME]<|channel|>CHANNEL[ to=NAME][ <|constrain|>TYPE]<|message|>
//
// The lexer hands a header over as tokens: words (separated by spaces),
// spaces, and the markers <|channel|>, <|constrain|> and <|message|>. The
// word right after <|channel|> or <|constrain|> is the channel or the
// argument format.
//
// The header methods record an error themselves; token reports it.

// hdrWord says what the next word of a header is.
type hdrWord uint8

const (
	wordFree      hdrWord = iota // the speaker or to=NAME
	wordChannel                  // right after <|channel|>
	wordConstrain                // right after <|constrain|>
)

// header is the state of the message header being read.
type header struct {
	speakerAllowed bool // the speaker may still come (after <|start|>)
	tokens         int  // tokens finished so far
	next           hdrWord
	recipient      string
	channel        string
	hasRecipient   bool
	hasChannel     bool
	hasConstrain   bool
}

// startHeader starts a header; speaker says whether it may name its
// speaker (it follows <|start|>).
func (a *assembler) startHeader(speaker bool) { a.hdr = header{speakerAllowed: speaker} }

// headerWord checks the header word w, found at offset off.
func (a *assembler) headerWord(w string, off int) {
	if msg := a.hdr.word(w); msg != "" {
		a.fail(off, msg)
	}
}

// headerSpace checks a space at offset off between header tokens.
func (a *assembler) headerSpace(off int) {
	if msg := a.hdr.space(); msg != "" {
		a.fail(off, msg)
	}
}

// headerMarker checks <|channel|> or <|constrain|> at offset off.
func (a *assembler) headerMarker(mk string, off int) {
	if msg := a.hdr.marker(mk); msg != "" {
		a.fail(off, msg)
	}
}

// headerEnd checks the header at its <|message|> (offset off) and opens its
// body: a tool call when the header named a recipient, else a reasoning or
// final message. call is what the lexer read the body as, from the same
// words: the two agree on every header that passes the checks.
func (a *assembler) headerEnd(off int, call bool) {
	h := &a.hdr
	if msg := h.finish(); msg != "" {
		a.fail(off, msg)
		return
	}
	if call != h.hasRecipient {
		a.fail(off, "internal error: the lexer and the assembler disagree on whether the header opens a tool call")
		return
	}
	if h.hasRecipient {
		a.openCall(h.recipient)
		return
	}
	a.field = FieldThinking
	if h.channel == channelFinal {
		a.field = FieldContent
	}
	a.text.reset()
	a.emit(Event{Type: EventRegionOpen, Field: a.field})
}

// word checks a finished word; it returns the error message for a word that
// cannot stand where it is, or "".
func (h *header) word(w string) string {
	kind := h.next
	h.next = wordFree
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

// space checks that no word is missing before a space or a marker.
func (h *header) space() string {
	switch h.next {
	case wordChannel:
		return "<|channel|> must be followed by the channel name"
	case wordConstrain:
		return "<|constrain|> must be followed by the argument format"
	}
	return ""
}

// marker handles <|channel|> or <|constrain|>.
func (h *header) marker(mk string) string {
	if msg := h.space(); msg != "" {
		return msg
	}
	h.tokens++
	switch mk {
	case MarkerChannel:
		if h.hasChannel {
			return "a second <|channel|> in a message header"
		}
		h.hasChannel = true
		h.next = wordChannel
	case MarkerConstrain:
		if !h.hasChannel {
			return "<|constrain|> before <|channel|> in a message header"
		}
		if h.hasConstrain {
			return "a second <|constrain|> in a message header"
		}
		h.hasConstrain = true
		h.next = wordConstrain
	}
	return ""
}

// finish checks the header at <|message|>.
func (h *header) finish() string {
	if msg := h.space(); msg != "" {
		return msg
	}
	switch {
	case !h.hasChannel:
		return "a message header without <|channel|>; every message names its channel"
	case h.hasConstrain && !h.hasRecipient:
		return "<|constrain|> in a header without a recipient (to=NAME)"
	}
	return ""
}

// addText adds a span of text to the open reasoning or final message (see
// token for the common case).
func (a *assembler) addText(s string) {
	if s == "" {
		return
	}
	if t := &a.text; t.multi && cap(t.b)-len(t.b) >= len(s) {
		n := len(t.b)
		t.b = t.b[:n+len(s)] // only the length is stored: see emitChunk on barriers
		copy(t.b[n:], s)
	} else {
		t.addSlow(s)
	}
	a.emitChunk(a.field, s, 0)
}

func (a *assembler) fieldName() string {
	switch a.field {
	case FieldThinking:
		return "reasoning"
	case FieldContent:
		return "answer"
	}
	return "tool call"
}

// textEnd ends the open reasoning or final message at the marker mk.
func (a *assembler) textEnd(mk string) {
	if mk != MarkerEnd {
		// Beam ends only a final answer with <|return|> and a tool call
		// with <|call|>.
		if mk == MarkerCall || a.field != FieldContent {
			a.warn("the " + a.fieldName() + " ends with " + mk + ", which Beam writes only after " + endsAfter(mk))
		}
		a.end = mk
	}
	a.closeText()
}

// endsAfter names what Beam ends with the marker mk.
func endsAfter(mk string) string {
	if mk == MarkerCall {
		return "a tool call"
	}
	return "a final answer"
}

func (a *assembler) closeText() {
	v := a.text.String()
	if a.field == FieldThinking {
		a.thinking = append(a.thinking, v)
	} else {
		a.content = append(a.content, v)
	}
	a.emit(Event{Type: EventRegionClose, Field: a.field, Value: v})
	a.field = ""
	a.text.reset()
}

// openCall starts a tool call to the tool name.
func (a *assembler) openCall(name string) {
	c := &a.call
	*c = callState{index: len(a.calls), name: name, names: c.names[:0], parts: c.parts[:0]}
	if a.tools != nil {
		c.schema = a.schemaFor(name)
		if c.schema == nil {
			a.warn(a.callName() + ": unknown tool; its arguments stay strings")
		}
	}
	a.field = FieldToolCalls
	a.emit(Event{Type: EventRegionOpen, Field: FieldToolCalls, Index: c.index, Name: name})
}

// schemaFor returns the schema of the first tool named name, or nil.
func (a *assembler) schemaFor(name string) *toolSchema {
	if ts, ok := a.schemas[name]; ok {
		return ts
	}
	var ts *toolSchema
	for i := range a.tools {
		if a.tools[i].Function.Name == name {
			ts = newToolSchema(a.tools[i].Function.Parameters)
			break
		}
	}
	if a.schemas == nil {
		a.schemas = make(map[string]*toolSchema)
	}
	a.schemas[name] = ts
	return ts
}

func (a *assembler) callName() string {
	return "tool call " + strconv.Itoa(a.call.index) + " (" + a.call.name + ")"
}

// argName returns the name of the open (or last) argument.
func (a *assembler) argName() string { return a.call.names[len(a.call.names)-1] }

// argOpen opens the argument name, whose tag is at offset off, and writes
// its key.
func (a *assembler) argOpen(name string, off int) {
	c := &a.call
	c.tagOff = off
	if c.hasArgument(name) {
		a.fail(off, "argument "+quote(name)+" appears twice in "+a.callName())
		return
	}
	c.names = append(c.names, name)
	c.typ = stringArg
	if c.schema != nil {
		var known bool
		c.typ, known = c.schema.argType(name)
		if !known {
			a.warn(a.callName() + ": argument " + quote(name) + " is not in the tool's schema; it stays a string")
		}
	}
	c.stream = c.typ.streams()
	c.value.reset()
	if c.stream {
		a.appendKey()
		c.args = append(c.args, '"')
		c.valuePart, c.valueStart = len(c.parts), len(c.args)
	}
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

// appendKey writes the open argument's key: `{"key": ` for the first,
// `, "key": ` for the others.
func (a *assembler) appendKey() {
	c := &a.call
	if len(c.names) == 1 {
		a.appendArgs("{")
	} else {
		a.appendArgs(", ")
	}
	c.args = pyjson.AppendQuoted(c.args, c.names[len(c.names)-1])
	c.args = append(c.args, ": "...)
}

// appendArgs adds JSON text of the call's arguments other than a value
// piece.
func (a *assembler) appendArgs(s string) {
	a.call.args = append(a.call.args, s...)
	a.call.subOK = false
}

// valueText adds a span of the open argument's value; plain says it holds
// nothing a JSON string escapes.
func (a *assembler) valueText(s string, plain bool) {
	c := &a.call
	if s == "" {
		return
	}
	if !c.stream {
		c.value.add(s)
		return
	}
	if plain && len(c.args) == c.flushed && !a.noEvents {
		// The whole unsent fragment, as JSON as it stands: sent at once,
		// as the chunk's own text. (Only plainText's tokens are plain,
		// one per Feed, so this sends no more events than a flush would.)
		if cap(c.args)-len(c.args) < len(s) {
			c.newBlock(len(s))
		}
		n := len(c.args)
		c.args = c.args[:n+len(s)] // only the length is stored
		copy(c.args[n:], s)
		c.flushed = len(c.args)
		c.subOK = false
		a.emitChunk(FieldToolCalls, s, c.index)
		return
	}
	a.appendValue(s, !plain)
}

// appendValue adds a piece of a streamed string value to the arguments'
// JSON; escape false says it needs no escaping. A piece that is the whole
// unsent text is kept to be sent without a copy.
func (a *assembler) appendValue(s string, escape bool) {
	c := &a.call
	n := len(s) + len(s)/8
	if escape && len(s) <= maxSmallPiece {
		n = maxEscapedLen * len(s)
	}
	if cap(c.args)-len(c.args) < n {
		c.newBlock(n)
	}
	start := len(c.args)
	switch {
	case !escape:
		c.args = c.args[:start+len(s)] // only the length is stored
		copy(c.args[start:], s)
	case len(s) <= maxSmallPiece && cap(c.args)-len(c.args) >= maxEscapedLen*len(s):
		// The escaped piece fits, so AppendEscaped writes into c.args's
		// array: only the length is stored (see emitChunk on barriers).
		c.args = c.args[:len(pyjson.AppendEscaped(c.args, s))]
	default:
		c.args = pyjson.AppendEscaped(c.args, s)
	}
	if start == c.flushed && len(c.args)-start == len(s) {
		c.sub, c.subOK = s, true
	} else {
		c.subOK = false
	}
}

// newBlock begins a new block of the call's arguments with room for n more
// bytes, moving there the unsent end of the current one, which a chunk
// event will send as one text; the sent bytes stay where they are, a part
// of the arguments that chunk texts view. Blocks are never written again
// (bytes are only appended, and a full block is left, never reused), so
// those texts never change; TestEventTextsNeverChange fails when they do.
// Past the first few, blocks have one size: doubling one buffer would
// allocate about three times the arguments' length, where blocks and the
// final copy (closeCall) cost about twice.
func (c *callState) newBlock(n int) {
	unsent := c.args[c.flushed:]
	// The unsent bytes at least double (they are all of the arguments
	// when nothing is sent, under Parse), and one large piece gets just
	// its room: doubling it too would allocate and clear twice its size.
	size := max(min(2*cap(c.args), argsBlockSize), 256, 2*len(unsent), len(unsent)+n)
	nb := make([]byte, len(unsent), size)
	copy(nb, unsent)
	if c.valuePart == len(c.parts) && c.stream {
		if c.valueStart >= c.flushed {
			c.valuePart++ // the value moves with the unsent bytes
			c.valueStart -= c.flushed
		}
	}
	c.parts = append(c.parts, c.args[:c.flushed:c.flushed])
	c.partsLen += c.flushed
	c.args, c.flushed = nb, 0
}

// maxMarkerLen is the length of the longest marker (<|constrain|>);
// TestMarkerLengths checks it.
const maxMarkerLen = len(MarkerConstrain)

// argsBlockSize is the size of a block of a call's arguments, past the
// first few.
const argsBlockSize = 16 << 10

// maxEscapedLen is the most bytes pyjson.AppendEscaped writes per byte (a
// control character as \u00XX); maxSmallPiece bounds the pieces appendValue
// makes room for at that rate.
const (
	maxEscapedLen = 6
	maxSmallPiece = 64
)

// argClose ends the open argument: a streamed string gets its closing
// quote; any other value is cast and written whole with its key.
func (a *assembler) argClose() {
	c := &a.call
	if c.stream {
		// Markers need no JSON escape: the value's text in args holds
		// them as they came.
		var mk string
		if c.valuePart == len(c.parts) {
			mk = findMarkerBytes(c.args[c.valueStart:])
		} else {
			mk = findMarkerParts(c.parts[c.valuePart][c.valueStart:], c.parts[c.valuePart+1:], c.args)
		}
		if mk != "" {
			a.warnMarker(mk)
		}
		a.appendArgs(`"`)
		return
	}
	raw := c.value.String()
	if mk := FindMarker(raw); mk != "" {
		a.warnMarker(mk)
	}
	a.appendKey()
	var fits bool
	c.args, fits = castArgument(c.args, raw, &c.typ, &a.scratch)
	c.subOK = false
	if !fits {
		a.warn(a.callName() + ": argument " + quote(a.argName()) + ": " +
			quote(snippet(raw)) + " is not a valid " + c.typ.String() + "; it stays a string")
	}
}

// findMarkerParts is findMarkerBytes for the text first, then parts, then
// last, joined: a marker may be cut between two of them.
func findMarkerParts(first []byte, parts [][]byte, last []byte) string {
	// carry holds the last bytes read, where a cut marker may begin.
	var carry, win [2 * maxMarkerLen]byte
	nc := 0
	scan := func(b []byte) string {
		if nc > 0 && len(b) > 0 {
			n := copy(win[:], carry[:nc])
			n += copy(win[n:], b[:min(len(b), maxMarkerLen)])
			for i := 0; i < nc; i++ {
				if mk := markerAt(string(win[i:n])); mk != "" {
					return mk
				}
			}
		}
		if mk := findMarkerBytes(b); mk != "" {
			return mk
		}
		if len(b) >= maxMarkerLen {
			nc = copy(carry[:], b[len(b)-(maxMarkerLen-1):])
		} else {
			k := max(0, nc+len(b)-(maxMarkerLen-1))
			nc = copy(carry[:], carry[k:nc])
			nc += copy(carry[nc:], b)
		}
		return ""
	}
	if mk := scan(first); mk != "" {
		return mk
	}
	for _, p := range parts {
		if mk := scan(p); mk != "" {
			return mk
		}
	}
	return scan(last)
}

// warnMarker reports marker text in the value just read. Inside a
// parameter only </rfl:parameter> ends the value, so the marker is text
// (DECISIONS.md, Parsing); but sent back in the history the value renders
// the marker raw, and a gateway without a tokenizer refuses that request
// (docs/gap-decisions.md).
func (a *assembler) warnMarker(mk string) {
	a.warn(a.callName() + ": argument " + quote(a.argName()) + " contains marker text " + mk +
		"; sent back in a request's history it would be read as a format token, and a gateway without a tokenizer refuses it")
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

// viewArgs returns the unsent end of a call's arguments as a string without
// copying it. That is safe because the arguments buffer only grows: bytes
// once written are never written again (grow moves to a new array, and a
// cast that does not fit only writes past the end), so the string's bytes
// never change. The buffer goes away with the call, never to be reused.
// TestEventTextsNeverChange fails when a call's buffer is reused.
func viewArgs(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// flushCall sends the call's unsent arguments text as one chunk.
func (a *assembler) flushCall() {
	if len(a.call.args) != a.call.flushed && a.field == FieldToolCalls {
		a.flushArgs()
	}
}

// flushArgs is flushCall when there is something to send. Without events
// (Parse) nothing is sent and nothing views the arguments: they stay one
// buffer, which grows by doubling (newBlock keeps the unsent bytes) and
// becomes Arguments without a copy (closeCall).
func (a *assembler) flushArgs() {
	c := &a.call
	if a.noEvents {
		return
	}
	text := c.sub
	if !c.subOK || len(c.sub) != len(c.args)-c.flushed {
		text = viewArgs(c.args[c.flushed:])
	}
	a.emitChunk(FieldToolCalls, text, c.index)
	c.flushed = len(c.args)
	c.subOK = false
}

// callEnd ends the open tool call at the marker mk.
func (a *assembler) callEnd(mk string) {
	if mk == MarkerReturn {
		a.warn(a.callName() + " ends with <|return|>, which Beam writes only after " + endsAfter(mk))
	}
	a.closeCall()
	if mk != MarkerEnd {
		a.end = mk
	}
}

// closeCall finishes the open tool call.
func (a *assembler) closeCall() {
	c := &a.call
	if len(c.names) == 0 {
		a.appendArgs("{}")
	} else {
		a.appendArgs("}")
	}
	a.flushCall()
	// When events were sent, the finished arguments get bytes of their
	// own: event texts view the blocks, and the caller may edit Arguments.
	args := c.args
	if !a.noEvents || c.partsLen > 0 {
		args = make([]byte, 0, c.partsLen+len(c.args))
		for _, p := range c.parts {
			args = append(args, p...)
		}
		args = append(args, c.args...)
	}
	a.calls = append(a.calls, ToolCall{Type: "function", Function: FunctionCall{Name: c.name, Arguments: args}})
	call := a.calls[len(a.calls)-1]
	a.emit(Event{Type: EventRegionClose, Field: FieldToolCalls, Index: c.index, Call: &call})
	c.args = nil
	clear(c.parts) // let the blocks go with the events that view them
	c.parts = c.parts[:0]
	a.field = ""
}

// addRest keeps text after <|call|> or <|return|>, which is not parsed.
func (a *assembler) addRest(s string) { a.rest.add(s) }

// result assembles the parsed message.
func (a *assembler) result() *Parsed {
	res := &Parsed{End: a.end, Rest: a.rest.String()}
	thinking, content := a.thinking, a.content
	if a.err != nil && a.field == FieldThinking {
		thinking = append(thinking[:len(thinking):len(thinking)], a.text.String())
	} else if a.err != nil && a.field == FieldContent {
		content = append(content[:len(content):len(content)], a.text.String())
	}
	res.Message = Message{
		Role:      RoleAssistant,
		Reasoning: joinNonEmpty(thinking),
		Content:   joinNonEmpty(content),
		ToolCalls: a.calls,
	}
	res.Warnings = a.warnings
	if res.Rest != "" {
		res.Warnings = append(res.Warnings, Warning{Msg: strconv.Itoa(len(res.Rest)) + " bytes after " + a.end + " were not parsed"})
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
