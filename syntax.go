package harmony

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/syntax"
	"golang.org/x/text/unicode/norm"
)

// This file is the format's lexical grammar, shared by the renderer and the
// parser: the markers, the words and tags of headers and arguments, and what
// a tool name and an argument key may contain. Both directions use these
// names and these predicates, so that whatever Render writes, Parse reads
// back (DECISIONS.md: round trip).

// The markers of the format (page: Messages). Each is one token of Beam's
// vocabulary.
const (
	MarkerStart     = syntax.Start
	MarkerEnd       = syntax.End
	MarkerMessage   = syntax.Message
	MarkerChannel   = syntax.Channel
	MarkerConstrain = syntax.Constrain
	MarkerCall      = syntax.Call
	MarkerReturn    = syntax.Return
)

// markers lists every marker of the format; markerOpen is how each begins.
var markers = [...]string{MarkerStart, MarkerEnd, MarkerMessage, MarkerChannel, MarkerConstrain, MarkerCall, MarkerReturn}

const markerOpen = "<|"

// minMarkerLen is the length of the shortest marker (<|end|>).
const minMarkerLen = len(MarkerEnd)

// Markers returns every marker of the format, in a new slice the caller may
// keep or change.
func Markers() []string { return append([]string(nil), markers[:]...) }

// The words of a message header (page: Messages; DECISIONS.md, Parsing):
//
//	<|start|>SPEAKER[ to=NAME]<|channel|>CHANNEL[ <|constrain|>xml]<|message|>
const (
	channelAnalysis = syntax.ChannelAnalysis
	channelFinal    = syntax.ChannelFinal
	// recipientPrefix starts the word naming a message's recipient.
	recipientPrefix = syntax.RecipientPrefix
	// formatXML is the only argument format, the word after <|constrain|>.
	formatXML = syntax.FormatXML
	// callHeaderEnd follows "to=NAME" in a tool call's header.
	callHeaderEnd = syntax.CallHeaderEnd
	// resultHeaderEnd follows a tool's name in a tool result's header.
	resultHeaderEnd = " " + recipientPrefix + RoleAssistant + MarkerChannel + channelAnalysis + MarkerMessage
)

// The XML tags of a tool call's arguments (page: Tool calls):
//
//	<rfl:parameter name="KEY">\nVALUE\n</rfl:parameter>
const (
	paramOpen     = syntax.ParamOpen
	paramNameEnd  = syntax.ParamNameEnd
	paramClose    = syntax.ParamClose
	paramNameQuot = '"' // ends the key inside paramOpen
)

// checkToolName is the rule for a tool name (DECISIONS.md, Names and
// markers): a call's function name, a tool's function name, a tool
// message's name, and the parser's to= recipient. A name is non-empty and
// has no Unicode whitespace (isSpace), none of < > ", no control character
// (Unicode Cc), no format character (Unicode Cf: zero-width characters,
// the byte order mark, bidi controls) and no invalid UTF-8. Runes are
// checked in order; the first offending one decides the error. A name is
// then no role, and does not read as a role or a built-in tool under NFKC
// (reservedLookAlike). A name reaches a message header, so that an
// invisible or look-alike character would let a tool's results speak as
// "system" to a reader (gap decision 71).
func checkToolName(name string) error {
	if name == "" {
		return errString("missing tool name")
	}
	plain := true
	for i := 0; i < len(name); i++ {
		if !plainNameByte[name[i]] {
			plain = false
			break
		}
	}
	if !plain {
		if err := checkToolNameRunes(name); err != nil {
			return err
		}
	}
	// A tool named after a role would speak as that role: its results
	// would render as <|start|>system ... (DECISIONS.md, Names and markers).
	switch name {
	case RoleSystem, RoleDeveloper, RoleUser, RoleAssistant:
		return errString("tool name " + quote(name) + " is a role name; a tool can't be named system, developer, user or assistant")
	}
	if !plain {
		if reserved := reservedLookAlike(name); reserved != "" {
			return errString("tool name " + quote(name) + " reads as " + quote(reserved) + " (NFKC); a tool name can't stand for a role or a built-in tool")
		}
	}
	return nil
}

// reservedNames are the names a tool name may not stand for under NFKC:
// the roles and the built-in tools (page: Built-in tools). A tool may be
// named search, browse or bash itself; only a look-alike is refused.
var reservedNames = [...]string{RoleSystem, RoleDeveloper, RoleUser, RoleAssistant, "search", "browse", "bash"}

// reservedLookAlike returns the reserved name that name's NFKC form
// equals when name is not that form itself (fullwidth letters,
// ligatures, mathematical letters: "ｓｙｓｔｅｍ", "ﬆ"), or "".
func reservedLookAlike(name string) string {
	folded := norm.NFKC.String(name)
	if folded == name {
		return ""
	}
	for _, r := range reservedNames {
		if folded == r {
			return r
		}
	}
	return ""
}

// checkToolNameRunes checks a name that holds bytes outside plainNameByte.
func checkToolNameRunes(name string) error {
	for i, c := range name {
		switch {
		case isSpace(c):
			return errString("tool name " + quote(name) + " contains whitespace")
		case c == '<' || c == '>' || c == '"':
			return errString("tool name " + quote(name) + " contains " + quote(string(c)))
		case isControl(c):
			return errString("tool name " + quote(name) + " contains a control character")
		case unicode.Is(unicode.Cf, c):
			return errString("tool name " + quote(name) + " contains the format character " + codePoint(c))
		case c == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(name[i:]); size == 1 {
				return errString("tool name " + quote(name) + " is not valid UTF-8")
			}
		}
	}
	return nil
}

// plainNameByte marks the ASCII bytes that are always allowed in a tool
// name, so that the common name is checked without decoding runes.
var plainNameByte = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = c != '<' && c != '>' && c != '"'
	}
	return t
}()

// isSpace reports whether c is Unicode whitespace (the White_Space
// property, as Python's str.isspace and Go's unicode.IsSpace).
func isSpace(c rune) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0x85, 0xA0:
		return true
	}
	return c > 0xff && strings.ContainsRune("\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000", c)
}

// codePoint writes c as U+XXXX, the way Unicode names a code point.
func codePoint(c rune) string {
	hex := strings.ToUpper(strconv.FormatInt(int64(c), 16))
	if len(hex) < 4 {
		hex = strings.Repeat("0", 4-len(hex)) + hex
	}
	return "U+" + hex
}

// isControl reports whether c is a control character (Unicode category
// Cc: U+0000 to U+001F and U+007F to U+009F).
func isControl(c rune) bool { return c < 0x20 || (c >= 0x7f && c <= 0x9f) }

// checkArgumentKey is the rule for an argument key, the name in
// <rfl:parameter name="KEY">: non-empty, without ", <, > or a newline,
// which would break the tag or could not be parsed back. Every other
// character, tabs and other control characters included, is allowed.
func checkArgumentKey(key []byte) error {
	if len(key) == 0 {
		return errString("is empty; argument names must be non-empty")
	}
	for _, c := range key {
		if badKeyByte[c] {
			return errString("contains " + quote(string(c)) + "; argument names can't contain \", <, > or a newline")
		}
	}
	return nil
}

// badKeyByte marks the bytes an argument key can't contain.
var badKeyByte = [256]bool{paramNameQuot: true, '<': true, '>': true, '\n': true}

type errString string

func (e errString) Error() string { return string(e) }

// markerAt returns the marker s starts with, or "".
func markerAt(s string) string {
	if len(s) < minMarkerLen || s[0] != '<' || s[1] != '|' {
		return ""
	}
	for _, mk := range markers {
		if strings.HasPrefix(s, mk) {
			return mk
		}
	}
	return ""
}

// FindMarker returns the first marker of the format found in s, or "" when
// s has none. Text with a marker would be read by the model as a format token.
func FindMarker(s string) string {
	// Every marker begins with '<': a byte search (vectorized at every
	// length, where strings.Index compares pairs of bytes one position at
	// a time in short strings) finds each candidate.
	for at := 0; ; at++ {
		k := strings.IndexByte(s[at:], markerOpen[0])
		if k < 0 {
			return ""
		}
		at += k
		if mk := markerAt(s[at:]); mk != "" {
			return mk
		}
	}
}

// findMarkerBytes is FindMarker for bytes.
func findMarkerBytes(b []byte) string {
	at := bytes.Index(b, []byte(markerOpen))
	for at >= 0 {
		for _, mk := range markers {
			if bytes.HasPrefix(b[at:], []byte(mk)) {
				return mk
			}
		}
		next := bytes.Index(b[at+2:], []byte(markerOpen))
		if next < 0 {
			break
		}
		at += 2 + next
	}
	return ""
}
