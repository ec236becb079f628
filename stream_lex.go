package harmony

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// The stream parser has two layers, as text/template/parse separates its
// lexer from its parser. The lexer (this file) reads the generation's bytes
// as they arrive: it recognises markers, header words, argument tags and
// values, and holds back what a chunk cuts (a possible marker or tag, a
// UTF-8 sequence). Each piece it is sure of becomes a token (stream_token.go)
// that it hands to the assembler (stream_asm.go), which turns tokens into
// regions, events and arguments. The lexer reads nothing of the
// assembler's state: the assembler answers each token only with whether to
// go on, and words the errors whose text names what it built (the open
// field, call or argument).
//
// The lexer is a state machine in the style of text/template/parse: each
// state has a function that reads what it can decide from the unread input
// and returns how many bytes it read and the next state.

// lexState is where the lexer stands in the generation.
type lexState uint8

const (
	lexHeader     lexState = iota // a message header
	lexText                       // a reasoning or final message's text
	lexArgs                       // a tool call's body, between arguments
	lexArgName                    // in <rfl:parameter name="..., the name
	lexArgTag                     // after the name's closing quote, expecting >
	lexValueStart                 // right after an argument's tag
	lexValue                      // an argument's value
	lexBetween                    // after <|end|>, expecting <|start|>
	lexDone                       // after <|call|> or <|return|>: the rest
	lexFailed                     // stopped: an error, or the assembler refused a token
)

// lexer is the lower layer of StreamParser.
type lexer struct {
	sink  tokenSink
	state lexState
	off   int  // offset in the generation of the next byte to read
	final bool // no input follows what run reads

	max, fed int    // the cap on the generation's bytes, and bytes fed so far
	pend     []byte // held-back bytes, read again with the next chunk
	arena    []byte // append-only storage of joined chunks; see joinHeld

	// startAllowed says the generation may begin with <|start|> (there
	// is no prefix).
	startAllowed bool

	word    []byte   // the header word being read
	wordBuf [16]byte // word's first array
	wordOff int      // its offset
	hasWord bool

	// What the current header's tokens were: how many words and markers,
	// whether the last was <|channel|> or <|constrain|> (so that a word
	// is the channel or the format), and whether a word named a
	// recipient (to=NAME), which makes the body a tool call's arguments.
	hdrTokens   int
	afterMarker bool
	recipient   bool

	name   []byte // the argument name being read
	argOff int    // the offset of the open argument's tag
}

// emit hands t to the assembler; when the assembler refuses it (an error
// it recorded), the lexer stops. It makes one call, through the interface,
// so that it inlines into plainText; a type switch to *assembler with the
// interface call as fallback made two, too many to inline, and cost a
// streamed piece a call layer more (bench/ollama: about 3%).
func (l *lexer) emit(t token) bool {
	if l.sink.token(t) {
		return true
	}
	l.state = lexFailed
	return false
}

// fail hands the lexical error kind at offset off to the assembler, with
// its detail (a message, a marker or a character; see lexError), and
// stops the lexer.
func (l *lexer) fail(off int, kind lexError, detail string) lexState {
	l.emit(token{kind: tokError, sub: uint8(kind), pos: off, text: detail})
	l.state = lexFailed
	return lexFailed
}

// startHeader begins a header; speaker says whether it may name its
// speaker (it follows <|start|>).
func (l *lexer) startHeader(speaker bool, off int) bool {
	l.hdrTokens, l.afterMarker, l.recipient = 0, false, false
	return l.emit(token{kind: tokStart, pos: off, sub: flag(speaker)})
}

// feed reads a chunk of the generation, up to the limit on its length.
func (l *lexer) feed(chunk string) {
	over := false
	if room := l.max - l.fed; len(chunk) > room {
		chunk, over = chunk[:room], true
	}
	l.fed += len(chunk)
	data := chunk
	if len(l.pend) > 0 {
		data = l.joinHeld(chunk)
		l.pend = l.pend[:0]
	}
	l.run(data, false)
	if over && l.state != lexFailed {
		l.fail(l.max, errPlain, "the generation is longer than the limit of "+strconv.Itoa(l.max)+
			" bytes (ParseOptions.MaxBufferedBytes)")
	}
}

// finish reads what was held back, then ends the input.
func (l *lexer) finish() {
	if l.state != lexFailed {
		data := string(l.pend)
		l.pend = l.pend[:0]
		l.run(data, true)
	}
	if l.state != lexFailed {
		l.eof()
	}
}

// joinHeld returns the held-back bytes followed by chunk as one string,
// written into an append-only arena: event texts may be slices of it, so
// its bytes, once written, are never written again; a full arena is left to
// the strings that use it and a new one begun. One allocation then serves
// many chunks instead of one each. TestEventTextsNeverChange fails when a
// byte of the arena is written twice.
func (l *lexer) joinHeld(chunk string) string {
	n := len(l.pend) + len(chunk)
	if cap(l.arena)-len(l.arena) < n {
		l.arena = make([]byte, 0, max(arenaSize, n))
	}
	start := len(l.arena)
	l.arena = append(l.arena, l.pend...)
	l.arena = append(l.arena, chunk...)
	return unsafe.String(&l.arena[start], n)
}

// arenaSize is the size of a block of joinHeld's arena.
const arenaSize = 4096

// run reads data with the state functions until one needs more input;
// what is left is held back for the next chunk. With final set there is
// no more input.
func (l *lexer) run(data string, final bool) {
	l.final = final
	for len(data) > 0 && l.state != lexFailed {
		n, next := l.step(data)
		if l.state != lexFailed {
			l.state = next
		}
		if n == 0 {
			break
		}
		l.off += n
		data = data[n:]
	}
	if l.state != lexFailed && !final {
		if n := len(l.pend); cap(l.pend)-n >= len(data) {
			l.pend = l.pend[:n+len(data)] // only the length is stored (see emitChunk)
			copy(l.pend[n:], data)
		} else {
			l.pend = append(l.pend, data...)
		}
	}
}

// step runs the current state's function on the unread input s.
func (l *lexer) step(s string) (int, lexState) {
	switch l.state {
	case lexHeader:
		return l.lexHeader(s)
	case lexText:
		return l.lexText(s)
	case lexArgs:
		return l.lexArgs(s)
	case lexArgName:
		return l.lexArgName(s)
	case lexArgTag:
		return l.lexArgTag(s)
	case lexValueStart:
		return l.lexValueStart(s)
	case lexValue:
		return l.lexValue(s)
	case lexBetween:
		return l.lexBetween(s)
	case lexDone:
		l.emit(token{kind: tokRest, pos: l.off, text: s})
		return len(s), lexDone
	}
	return 0, l.state
}

// eof ends the input in the current state: a tokEOF that says where.
func (l *lexer) eof() {
	where := eofNone
	switch l.state {
	case lexHeader:
		where = eofHeader
	case lexText:
		where = eofText
	case lexArgs:
		where = eofArgs
	case lexArgName, lexArgTag:
		where = eofArgTag
	case lexValueStart, lexValue:
		where = eofValue
	}
	l.emit(token{kind: tokEOF, pos: l.off, sub: uint8(where)})
}

// lexHeader reads header text: words, spaces and header markers.
func (l *lexer) lexHeader(s string) (int, lexState) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			if !l.endWord() || !l.emit(token{kind: tokSpace, pos: l.off + i}) {
				return 0, lexFailed
			}
		case c == '<':
			if i > 0 {
				return i, lexHeader
			}
			return l.lexHeaderMarker(s)
		case c < 0x20 || c == '>' || c == '"' || c == 0x7f:
			return 0, l.fail(l.off+i, errPlain, "unexpected "+quote(string(c))+" in a message header")
		default:
			n := l.headerWord(s[i:], l.off+i)
			if l.state == lexFailed {
				return 0, lexFailed
			}
			if n == 0 {
				return i, lexHeader
			}
			i += n - 1
		}
	}
	return len(s), lexHeader
}

// headerWord reads the word bytes at the start of s, which is at offset
// off, and returns how many.
func (l *lexer) headerWord(s string, off int) int {
	n := 0
	for n < len(s) && s[n] > ' ' && s[n] != '<' && s[n] != '>' && s[n] != '"' && s[n] != 0x7f {
		n++
	}
	k, ok := validUTF8(s[:n], !l.final && n == len(s))
	if !ok {
		l.fail(off+k, errPlain, "invalid UTF-8 in a message header")
		return 0
	}
	if k == 0 {
		return 0
	}
	if !l.hasWord {
		l.hasWord, l.wordOff = true, off
	}
	l.word = append(l.word, s[:k]...)
	return k
}

// endWord hands the header word being read, if any, to the assembler; it
// reports false when the word cannot stand where it is.
func (l *lexer) endWord() bool {
	if !l.hasWord {
		return true
	}
	l.hasWord = false
	w := headerWordString(l.word)
	l.word = l.word[:0]
	if !l.afterMarker && strings.HasPrefix(w, recipientPrefix) {
		l.recipient = true
	}
	l.hdrTokens++
	l.afterMarker = false
	return l.emit(token{kind: tokWord, pos: l.wordOff, text: w})
}

// headerWordString returns the header word b as a string, without an
// allocation for the words every generation's headers hold.
func headerWordString(b []byte) string {
	switch string(b) {
	case RoleAssistant:
		return RoleAssistant
	case channelAnalysis:
		return channelAnalysis
	case channelFinal:
		return channelFinal
	case formatXML:
		return formatXML
	}
	return string(b)
}

// lexHeaderMarker reads the marker at the start of s in a header.
func (l *lexer) lexHeaderMarker(s string) (int, lexState) {
	mk := markerAt(s)
	switch mk {
	case MarkerChannel, MarkerConstrain:
		if !l.endWord() || !l.emit(token{kind: tokHeaderMarker, pos: l.off, text: mk}) {
			return 0, lexFailed
		}
		l.hdrTokens++
		l.afterMarker = true
		return len(mk), lexHeader
	case MarkerStart:
		if l.startAllowed && l.off == 0 && !l.hasWord {
			// Without a prefix, the generation may begin with the
			// whole header: <|start|>assistant<|channel|>...
			if !l.startHeader(true, l.off) {
				return 0, lexFailed
			}
			return len(mk), lexHeader
		}
		return 0, l.fail(l.off, errPlain, "unexpected <|start|> in a message header; a header ends with <|message|>")
	case MarkerMessage:
		if !l.endWord() || !l.emit(token{kind: tokMessage, pos: l.off, sub: flag(l.recipient)}) {
			return 0, lexFailed
		}
		if l.recipient {
			return len(mk), lexArgs
		}
		return len(mk), lexText
	case "":
		if heldSuffix(s, markerSet) == len(s) {
			if l.final {
				return 0, l.fail(l.off+len(s), errPlain, "the input ended inside a marker in a message header")
			}
			return 0, lexHeader
		}
		return 0, l.fail(l.off, errPlain, "unexpected \"<\" in a message header")
	}
	return 0, l.fail(l.off, errPlain, "unexpected "+mk+" in a message header; a header ends with <|message|>")
}

// lexText reads the text of a reasoning or final message up to a marker.
func (l *lexer) lexText(s string) (int, lexState) {
	if strings.IndexByte(s, '<') < 0 {
		// No marker can start here: the fast path for plain text.
		n, ok := validUTF8(s, !l.final)
		if !l.text(s[:n]) {
			return 0, lexFailed
		}
		if !ok {
			return 0, l.fail(l.off+n, errTextUTF8, "")
		}
		return n, lexText
	}
	for pos := 0; ; {
		k := strings.Index(s[pos:], markerOpen)
		if k < 0 {
			break
		}
		k += pos
		if mk := markerAt(s[k:]); mk != "" {
			n, ok := validUTF8(s[:k], false)
			if !l.text(s[:n]) {
				return 0, lexFailed
			}
			if !ok {
				return 0, l.fail(l.off+n, errTextUTF8, "")
			}
			return k + len(mk), l.textMarker(mk, l.off+k)
		}
		pos = k + 2
	}
	end := len(s)
	if !l.final {
		end -= heldSuffix(s, markerSet)
	}
	n, ok := validUTF8(s[:end], !l.final && end == len(s))
	if !l.text(s[:n]) {
		return 0, lexFailed
	}
	if !ok {
		return 0, l.fail(l.off+n, errTextUTF8, "")
	}
	return n, lexText
}

// text hands a span of message text, at the read offset, to the assembler.
func (l *lexer) text(s string) bool {
	return s == "" || l.emit(token{kind: tokText, pos: l.off, text: s})
}

// textMarker handles a marker inside a reasoning or final message, at
// offset off: an end marker ends the message; any other is an error.
func (l *lexer) textMarker(mk string, off int) lexState {
	next := lexBetween
	switch mk {
	case MarkerEnd:
	case MarkerReturn, MarkerCall:
		// Any message may end the generation (DECISIONS.md: messages end
		// at <|end|>, <|call|> or <|return|>).
		next = lexDone
	default:
		return l.fail(off, errTextMarker, mk)
	}
	if !l.emit(token{kind: tokEnd, pos: off, text: mk}) {
		return lexFailed
	}
	return next
}

// lexBetween expects the <|start|> of the next message after <|end|>.
// Whitespace between messages is allowed (the page's examples add line
// breaks for readability).
func (l *lexer) lexBetween(s string) (int, lexState) {
	if n := len(s) - len(strings.TrimLeft(s, " \t\r\n")); n > 0 {
		return n, lexBetween
	}
	if strings.HasPrefix(s, MarkerStart) {
		if !l.startHeader(true, l.off) {
			return 0, lexFailed
		}
		return len(MarkerStart), lexHeader
	}
	if !l.final && heldSuffix(s, startSet) == len(s) {
		return 0, lexBetween
	}
	return 0, l.fail(l.off, errPlain, "expected <|start|> after <|end|>, found "+firstChar(s))
}

// lexArgs reads between arguments: whitespace, the next argument's tag, or
// the marker that ends the call.
func (l *lexer) lexArgs(s string) (int, lexState) {
	if n := len(s) - len(strings.TrimLeft(s, " \t\r\n")); n > 0 {
		return n, lexArgs
	}
	if strings.HasPrefix(s, paramOpen) {
		l.argOff = l.off
		l.name = l.name[:0]
		return len(paramOpen), lexArgName
	}
	switch mk := markerAt(s); mk {
	case MarkerEnd, MarkerCall, MarkerReturn:
		if !l.emit(token{kind: tokEnd, pos: l.off, text: mk}) {
			return 0, lexFailed
		}
		if mk == MarkerEnd {
			return len(mk), lexBetween
		}
		return len(mk), lexDone
	case "":
		if heldSuffix(s, argsSet) == len(s) {
			if l.final {
				return 0, l.fail(l.off+len(s), errArgsEOF, "")
			}
			return 0, lexArgs
		}
		return 0, l.fail(l.off, errArgsByte, firstChar(s))
	default:
		return 0, l.fail(l.off, errArgsMarker, mk)
	}
}

// lexArgName reads an argument's name up to its closing quote. The name
// follows the renderer's rule for argument keys (checkArgumentKey).
func (l *lexer) lexArgName(s string) (int, lexState) {
	n := strings.IndexByte(s, paramNameQuot)
	if n < 0 {
		n = len(s)
	}
	// Errors are reported in the order of the text, so that the first
	// bad byte wins in every chunking.
	bad := n
	for i := 0; i < n; i++ {
		if badKeyByte[s[i]] {
			bad = i
			break
		}
	}
	k, ok := validUTF8(s[:bad], !l.final && bad == len(s))
	if !ok {
		return 0, l.fail(l.off+k, errArgNameUTF8, "")
	}
	if bad < n {
		return 0, l.fail(l.off+bad, errArgNameByte, quote(s[bad:bad+1]))
	}
	l.name = append(l.name, s[:k]...)
	if k < n || n == len(s) {
		return k, lexArgName
	}
	return n + 1, lexArgTag
}

// lexArgTag expects the ">" that closes an argument's tag, then opens the
// argument.
func (l *lexer) lexArgTag(s string) (int, lexState) {
	if s[0] != '>' {
		return 0, l.fail(l.off, errArgTag, "")
	}
	if len(l.name) == 0 {
		return 0, l.fail(l.argOff, errArgEmpty, "")
	}
	if !l.emit(token{kind: tokArgOpen, pos: l.argOff, text: string(l.name)}) {
		return 0, lexFailed
	}
	return 1, lexValueStart
}

// lexValueStart reads the newline after an argument's tag, which is not
// part of the value, then the value.
func (l *lexer) lexValueStart(s string) (int, lexState) {
	if s[0] == '\n' {
		return 1, lexValue
	}
	return l.lexValue(s)
}

// lexValue reads an argument's value up to </rfl:parameter>. Markers in a
// value are text. The "\n" before the closing tag is not part of it.
func (l *lexer) lexValue(s string) (int, lexState) {
	if k := strings.Index(s, paramClose); k >= 0 {
		v := strings.TrimSuffix(s[:k], "\n")
		n, ok := validUTF8(v, false)
		if !l.value(v[:n], false) {
			return 0, lexFailed
		}
		if !ok {
			return 0, l.fail(l.off+n, errValueUTF8, "")
		}
		if !l.emit(token{kind: tokArgClose, pos: l.off + k}) {
			return 0, lexFailed
		}
		return k + len(paramClose), lexArgs
	}
	end := len(s)
	if !l.final {
		end -= heldSuffix(s, valueSet)
	}
	n, ok := validUTF8(s[:end], !l.final && end == len(s))
	if !l.value(s[:n], false) {
		return 0, lexFailed
	}
	if !ok {
		return n, l.fail(l.off+n, errValueUTF8, "")
	}
	return n, lexValue
}

// value hands a span of an argument's value, at the read offset, to the
// assembler; plain says it holds nothing a JSON string escapes.
func (l *lexer) value(s string, plain bool) bool {
	return s == "" || l.emit(token{kind: tokValue, pos: l.off, text: s, sub: flag(plain)})
}

// holdSets are the strings whose beginning the lexer holds back at the end
// of its input in each state, until it knows whether they follow.
var (
	markerSet = markers[:]
	argsSet   = append([]string{paramOpen}, markers[:]...)
	valueSet  = []string{"\n" + paramClose, paramClose}
	startSet  = []string{MarkerStart}
)

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

// firstChar names the first byte of s for an error message: the character
// when it is ASCII. Only the first byte is sure to be there in every
// chunking, and errors must not depend on the chunking.
func firstChar(s string) string {
	if s[0] < utf8.RuneSelf {
		return quote(s[:1])
	}
	return "non-ASCII text"
}
