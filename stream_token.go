package harmony

// The boundary between the stream parser's lexer and its assembler is a
// token: what the lexer is sure of, in the order of the text. It is modelled
// on text/template/parse's items: a kind, a position and the text, handed
// over one at a time; here synchronously, to a tokenSink, which answers
// whether to go on (as encoding/json's scanner answers its decoder with an
// opcode).

// tokenKind is the kind of a token.
type tokenKind uint8

const (
	tokText         tokenKind = iota // text of a reasoning or final message (text)
	tokValue                         // text of an argument's value (text; plain)
	tokStart                         // a header begins (speaker: it may name its speaker)
	tokWord                          // a header word (text)
	tokSpace                         // a space between header words
	tokHeaderMarker                  // <|channel|> or <|constrain|> in a header (text)
	tokMessage                       // <|message|> ends the header (call: a tool call's arguments follow)
	tokEnd                           // <|end|>, <|call|> or <|return|> ends a message or call (text)
	tokArgOpen                       // <rfl:parameter name="NAME"> (text: NAME; pos: the tag)
	tokArgClose                      // </rfl:parameter>
	tokRest                          // text after <|call|> or <|return|>, not parsed (text)
	tokEOF                           // the end of the input (eof: where it came)
	tokError                         // a lexical error (err: which; text: its detail)
)

var tokenNames = [...]string{"text", "value", "start", "word", "space", "header marker", "message",
	"end", "argument open", "argument close", "rest", "EOF", "error"}

// String names the kind, for tests and debugging.
func (k tokenKind) String() string {
	if int(k) < len(tokenNames) {
		return tokenNames[k]
	}
	return "invalid"
}

// lexError is a lexical error's kind. The lexer words the errors it can
// word alone (errPlain, text the message); the others name what the
// assembler built, which words them (assembler.lexicalError).
type lexError uint8

const (
	errPlain       lexError = iota // text is the whole message
	errTextUTF8                    // invalid UTF-8 in the open reasoning or answer
	errTextMarker                  // a marker (text) that can't stand in a message's text
	errArgsEOF                     // the input ended inside a tag or marker between arguments
	errArgsByte                    // an unexpected character (text) between arguments
	errArgsMarker                  // a marker (text) that can't end a tool call
	errArgNameUTF8                 // invalid UTF-8 in an argument name
	errArgNameByte                 // a character (text, quoted) an argument name can't hold
	errArgTag                      // no ">" after an argument name's closing quote
	errArgEmpty                    // an empty argument name
	errValueUTF8                   // invalid UTF-8 in the open argument's value
)

// eofWhere says where the input ended.
type eofWhere uint8

const (
	eofNone   eofWhere = iota // between messages, or after the end marker
	eofHeader                 // inside a message header
	eofText                   // inside a reasoning or final message
	eofArgs                   // inside a tool call, between arguments
	eofArgTag                 // inside an argument's tag
	eofValue                  // inside an argument's value (its tag came as tokArgOpen's pos)
)

// token is one piece of the generation the lexer is sure of. It is small
// enough to pass in registers: one byte, sub, says what the kind needs
// said (see the accessors). It has four fields, so that the compiler keeps
// a token in registers inside a function too (a struct of more is kept in
// memory: a store and reloads per token); TestTokenFields checks it.
type token struct {
	kind tokenKind
	sub  uint8 // tokValue: plain; tokStart: speaker; tokMessage: call; tokError: lexError; tokEOF: eofWhere
	pos  int   // offset in the generation
	text string
}

// flag returns 1 for true, the sub of a token that says yes.
func flag(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// plain says a tokValue's text holds nothing a JSON string escapes.
func (t *token) plain() bool { return t.sub != 0 }

// speaker says a tokStart's header may name its speaker.
func (t *token) speaker() bool { return t.sub != 0 }

// call says a tokMessage opens a tool call's arguments.
func (t *token) call() bool { return t.sub != 0 }

// err is a tokError's kind.
func (t *token) err() lexError { return lexError(t.sub) }

// eof says where a tokEOF came.
func (t *token) eof() eofWhere { return eofWhere(t.sub) }

// tokenSink consumes the lexer's tokens; token reports false when the
// lexer must stop (an error was recorded).
type tokenSink interface {
	token(t token) bool
}
