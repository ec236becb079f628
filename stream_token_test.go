package harmony

import (
	"reflect"
	"strings"
	"testing"
)

// tokenRecorder is a tokenSink that keeps the tokens, merging adjacent
// text, value and rest tokens (their cut depends on the chunking).
type tokenRecorder struct{ toks []token }

func (r *tokenRecorder) token(t token) bool {
	if n := len(r.toks); n > 0 && (t.kind == tokText || t.kind == tokValue || t.kind == tokRest) && r.toks[n-1].kind == t.kind {
		r.toks[n-1].text += t.text
		return true
	}
	r.toks = append(r.toks, t)
	return t.kind != tokError
}

func (r *tokenRecorder) String() string {
	var b strings.Builder
	for _, t := range r.toks {
		b.WriteString(t.kind.String())
		if t.text != "" {
			b.WriteString(" " + quote(t.text))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// lexAll runs a lexer alone over gen in chunks of size, its tokens going
// to a recorder instead of an assembler.
func lexAll(gen string, size int) *tokenRecorder {
	r := &tokenRecorder{}
	l := lexer{sink: r, max: DefaultMaxBufferedBytes, startAllowed: true}
	l.startHeader(false, 0)
	for i := 0; i < len(gen); i += size {
		chunk := gen[i:min(i+size, len(gen))]
		if !l.plainText(chunk) {
			l.feed(chunk)
		}
	}
	l.finish()
	return r
}

// The lexer alone turns a generation into the format's tokens, the same
// in every chunking, without an assembler behind it.
func TestLexerTokens(t *testing.T) {
	gen := "<|start|>assistant<|channel|>analysis<|message|>Think < hard.<|end|>" +
		"<|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"a\">\nx <|end|> y\n</rfl:parameter>\n<|call|>after"
	want := strings.Join([]string{
		`start`, `start`, `word "assistant"`, `header marker "<|channel|>"`, `word "analysis"`, `message`,
		`text "Think < hard."`, `end "<|end|>"`,
		`start`, `word "assistant"`, `space`, `word "to=f"`, `header marker "<|channel|>"`, `word "analysis"`, `space`,
		`header marker "<|constrain|>"`, `word "xml"`, `message`,
		`argument open "a"`, `value "x <|end|> y"`, `argument close`, `end "<|call|>"`, `rest "after"`, `EOF`, ``}, "\n")
	for size := 1; size <= len(gen); size++ {
		if got := lexAll(gen, size).String(); got != want {
			t.Fatalf("chunks of %d:\n%s\nwant\n%s", size, got, want)
		}
	}
	// A lexical error is a token the lexer words only as far as it can:
	// here the assembler adds the call's name.
	r := lexAll("<|start|>assistant to=f<|channel|>analysis<|message|><rfl:parameter name=\"a<\">", 7)
	last := r.toks[len(r.toks)-1]
	if last.kind != tokError || last.err() != errArgNameByte || last.text != `"<"` {
		t.Fatalf("last token %+v", last)
	}
}

// A token has at most four fields: the compiler keeps such a struct in
// registers (SSA) inside a function, where a fifth field makes it live in
// memory, a store and reloads on every token of the hot path.
func TestTokenFields(t *testing.T) {
	if n := reflect.TypeFor[token]().NumField(); n > 4 {
		t.Fatalf("token has %d fields; at most 4 keep it in registers", n)
	}
}
