package serve

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// eventDecoder reads a streamed reply's events. The shape engines send
// for every token (an object of scalars whose "choices" is a list of
// objects of scalars, "usage" and "error" null) is read in one pass
// without building a tape; any other event, including every malformed
// one, goes to decodeCompletion, which reads the events the pass reads
// the same way (TestEventDecoderAgrees, FuzzEventDecoder) and words the
// errors.
type eventDecoder struct {
	// doc is decodeCompletion's tape.
	doc pyjson.Doc
	// strs holds the bytes of the strings read so far, escapes decoded,
	// from the current block: one allocation a block, not one a token.
	// Bytes once written are never written again (a full block is
	// replaced, not reused), so the strings stay immutable.
	strs []byte

	// texts counts the "text" members of the event being read, and
	// textAt, textEnd delimit the value of the last.
	texts           int
	textAt, textEnd int
	// last is the previous event read in one pass when it had one choice
	// with one text: an event that differs from it only in that text (a
	// string) reads as last with the new text (sameShape).
	last shape
}

// shape is an event cut around its one choice's text.
type shape struct {
	ok             bool
	prefix, suffix []byte
	c              completion
	ch             completionChoice
	// stopAt locates the choice's stop_reason in the event: from its
	// start when stopFromEnd is false, else from its end; stopLen is its
	// length (-1: nil).
	stopAt      int
	stopFromEnd bool
	stopLen     int
}

// decode reads one event into c.
func (d *eventDecoder) decode(data []byte, c *completion) error {
	if d.sameShape(data, c) {
		return nil
	}
	if d.fast(data, c) {
		d.keep(data, c)
		return nil
	}
	d.last.ok = false
	return decodeCompletion(&d.doc, data, c)
}

// sameShape reads data as d.last with another text when only the text
// differs, and reports whether it could. Reading the text is the only
// work: the rest of the event reads as before, byte for byte.
func (d *eventDecoder) sameShape(b []byte, c *completion) bool {
	l := &d.last
	if !l.ok || len(b) <= len(l.prefix)+len(l.suffix) || !bytes.HasPrefix(b, l.prefix) || !bytes.HasSuffix(b, l.suffix) {
		return false
	}
	at, end := len(l.prefix), len(b)-len(l.suffix)
	if b[at] != '"' {
		return false
	}
	if e, escaped := scanScalar(b, at); e != end {
		return false
	} else if text, ok := d.str(b[at:end], escaped); !ok {
		return false
	} else {
		ch := l.ch
		ch.Text = text
		if l.stopLen >= 0 {
			off := l.stopAt
			if l.stopFromEnd {
				off = len(b) - l.stopAt
			}
			ch.StopReason = b[off : off+l.stopLen : off+l.stopLen]
		}
		choices := c.Choices[:0]
		*c = l.c
		c.Choices = append(choices, ch)
	}
	return true
}

// keep notes the event b, just read into c, as d.last when it has one
// choice with one text, a string.
func (d *eventDecoder) keep(b []byte, c *completion) {
	l := &d.last
	l.ok = false
	if len(c.Choices) != 1 || d.texts != 1 || b[d.textAt] != '"' {
		return
	}
	l.prefix = append(l.prefix[:0], b[:d.textAt]...)
	l.suffix = append(l.suffix[:0], b[d.textEnd:]...)
	l.c = *c
	l.c.Choices = nil
	l.ch = c.Choices[0]
	l.stopLen = -1
	if sr := l.ch.StopReason; sr != nil {
		// StopReason is a piece of b: where it starts follows from the
		// capacities.
		off := cap(b) - cap(sr)
		if off < 0 || off+len(sr) > len(b) {
			return
		}
		l.stopLen, l.stopAt, l.stopFromEnd = len(sr), off, off >= d.textEnd
		if l.stopFromEnd {
			l.stopAt = len(b) - off
		} else if off+len(sr) > d.textAt {
			return
		}
		l.ch.StopReason = nil
	}
	l.ok = true
}

// fast reads data into c and reports whether it could: false leaves c
// in an unspecified state, for decodeCompletion to overwrite.
func (d *eventDecoder) fast(b []byte, c *completion) bool {
	*c = completion{Choices: c.Choices[:0]}
	d.texts = 0
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		key, j := scanKey(b, i)
		if j < 0 {
			return false
		}
		i = j
		switch string(key) {
		case "choices":
			if i = d.choices(b, i, c); i < 0 {
				return false
			}
		case "usage", "error":
			// A usage or an error is rare: decodeCompletion reads it.
			if i = scanLiteral(b, i, "null"); i < 0 {
				return false
			}
		case "object":
			end, escaped := scanScalar(b, i)
			if end < 0 || escaped {
				return false
			}
			c.IsError = string(b[i:end]) == `"error"`
			i = end
		case "message":
			end, escaped := scanScalar(b, i)
			if end < 0 {
				return false
			}
			if b[i] == '"' {
				s, ok := d.str(b[i:end], escaped)
				if !ok {
					return false
				}
				c.Message = s
			}
			i = end
		default:
			if i, _ = scanScalar(b, i); i < 0 {
				return false
			}
		}
		if i = skipSpace(b, i); i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

// choices reads the list of choices at b[i:] into c and returns where it
// ends, or -1.
func (d *eventDecoder) choices(b []byte, i int, c *completion) int {
	if j := scanLiteral(b, i, "null"); j >= 0 {
		return j
	}
	if i >= len(b) || b[i] != '[' {
		return -1
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '{' {
			return -1
		}
		var ch completionChoice
		if i = d.choice(b, i+1, &ch); i < 0 {
			return -1
		}
		c.Choices = append(c.Choices, ch)
		if i = skipSpace(b, i); i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// choice reads the members of a choice after its '{' into ch and
// returns where it ends, or -1.
func (d *eventDecoder) choice(b []byte, i int, ch *completionChoice) int {
	i = skipSpace(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		key, j := scanKey(b, i)
		if j < 0 {
			return -1
		}
		end, escaped := scanScalar(b, j)
		if end < 0 {
			return -1
		}
		raw := b[j:end]
		switch string(key) {
		case "index":
			// decodeCompletion's rule: a number that Atoi reads.
			if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
				return -1
			}
			n, err := strconv.Atoi(string(raw))
			if err != nil {
				return -1
			}
			ch.Index = n
		case "text":
			d.texts++
			d.textAt, d.textEnd = j, end
			if !d.optionalString(raw, escaped, &ch.Text) {
				return -1
			}
		case "finish_reason":
			if !d.optionalString(raw, escaped, &ch.FinishReason) {
				return -1
			}
		case "stop_reason":
			if !isNull(raw) || ch.StopReason == nil {
				ch.StopReason = raw
			}
		case "matched_stop":
			// SGLang's name for it.
			if ch.StopReason == nil || isNull(ch.StopReason) {
				ch.StopReason = raw
			}
		}
		if i = skipSpace(b, end); i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// optionalString stores the string literal lit in dst; null leaves dst
// alone, and any other scalar is not read here (it is decodeCompletion's
// error).
func (d *eventDecoder) optionalString(lit []byte, escaped bool, dst *string) bool {
	switch lit[0] {
	case 'n':
		return true
	case '"':
		s, ok := d.str(lit, escaped)
		*dst = s
		return ok
	}
	return false
}

// str returns the string literal lit decoded as pyjson decodes it.
func (d *eventDecoder) str(lit []byte, escaped bool) (string, bool) {
	raw := lit[1 : len(lit)-1]
	if !escaped {
		return d.copyString(raw), true
	}
	// scanScalar has checked the escapes, and what they decode to is never
	// longer than they are.
	return d.appendString(raw, true), true
}

// strBlock is the size of eventDecoder.strs's blocks; a longer string is
// allocated alone.
const strBlock = 4096

// copyString returns a string holding a copy of b.
func (d *eventDecoder) copyString(b []byte) string {
	return d.appendString(b, false)
}

// appendString returns b as a string, its escapes decoded when unescape
// is set (never longer than b): in the current block when it fits, or in
// a new block, or, when b is long, in memory of its own.
func (d *eventDecoder) appendString(b []byte, unescape bool) string {
	add := func(dst []byte) []byte {
		if unescape {
			return pyjson.AppendUnquoted(dst, b)
		}
		return append(dst, b...)
	}
	if len(b) == 0 {
		return ""
	}
	if len(b) > cap(d.strs)-len(d.strs) {
		if len(b) > strBlock/4 {
			return string(add(nil))
		}
		d.strs = make([]byte, 0, strBlock)
	}
	at := len(d.strs)
	d.strs = add(d.strs)
	if len(d.strs) == at {
		return ""
	}
	return unsafe.String(&d.strs[at], len(d.strs)-at)
}

// scanKey reads an object key without escapes at b[i:] and the colon
// after it, and returns the key and where its value starts, or -1.
func scanKey(b []byte, i int) ([]byte, int) {
	end, escaped := scanScalar(b, i)
	if end < 0 || escaped || b[i] != '"' {
		return nil, -1
	}
	j := skipSpace(b, end)
	if j >= len(b) || b[j] != ':' {
		return nil, -1
	}
	return b[i+1 : end-1], skipSpace(b, j+1)
}

// scanScalar returns where the string, number or literal at b[i:] ends
// and whether a string holds escapes; end is -1 for anything else (an
// array, an object, invalid JSON).
func scanScalar(b []byte, i int) (end int, escaped bool) {
	if i >= len(b) {
		return -1, false
	}
	switch c := b[i]; {
	case c == '"':
		i++
		for {
			i = skipPlain(b, i)
			for i < len(b) && !strSpecial[b[i]] {
				i++
			}
			if i >= len(b) {
				return -1, false
			}
			switch c := b[i]; {
			case c == '"':
				return i + 1, escaped
			case c == '\\':
				escaped = true
				n := escapeLen(b[i:])
				if n == 0 {
					return -1, false
				}
				i += n
			case c >= utf8.RuneSelf:
				// Only strings may hold other than ASCII: checking
				// them is checking the event, as decodeCompletion does.
				_, n := utf8.DecodeRune(b[i:])
				if n <= 1 {
					return -1, false
				}
				i += n
			default: // a control character
				return -1, false
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		n := pyjson.NumberLen(b[i:])
		if n == 0 {
			return -1, false
		}
		return i + n, false
	case c == 'n':
		return scanLiteral(b, i, "null"), false
	case c == 't':
		return scanLiteral(b, i, "true"), false
	case c == 'f':
		return scanLiteral(b, i, "false"), false
	}
	return -1, false
}

// skipPlain returns i advanced by eight bytes at a time while none of
// them is special in a string (see strSpecial).
func skipPlain(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		quote, backslash := w^(ones*'"'), w^(ones*'\\')
		// A byte is below 0x20, zero after the xor or 0x80 and above.
		special := (w-ones*0x20)&^w | (quote-ones)&^quote | (backslash-ones)&^backslash | w
		if special&highs != 0 {
			break
		}
	}
	return i
}

// strSpecial marks the bytes that end a run of plain ASCII in a string.
var strSpecial = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf
	}
	return t
}()

// escapeLen returns the length of the valid JSON escape at the start of
// b, or 0.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, h := range b[2:6] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return 0
			}
		}
		return 6
	}
	return 0
}

// scanLiteral returns where word ends when b[i:] starts with it, or -1.
func scanLiteral(b []byte, i int, word string) int {
	if len(b)-i >= len(word) && string(b[i:i+len(word)]) == word {
		return i + len(word)
	}
	return -1
}

// skipSpace returns the index of the first byte at or after i that is
// not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
