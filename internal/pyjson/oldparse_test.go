package pyjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The recursive parser the loop in parse replaced, kept to test that both
// build the same tape and report the same errors at the same offsets.

func oldParse(d *Doc, src []byte) error {
	if len(src) > 1<<31-1 {
		return &SyntaxError{0, "document larger than 2 GiB"}
	}
	d.Src = src
	d.Text = ""
	d.Nodes = d.Nodes[:0]
	if !utf8.Valid(src) {
		return &SyntaxError{invalidUTF8At(src), "invalid UTF-8"}
	}
	p := oldParser{src: src, nodes: d.Nodes[:0]}
	p.skipSpace()
	err := p.value(0)
	d.Nodes = p.nodes
	if err != nil {
		return err
	}
	p.skipSpace()
	if p.pos != len(src) {
		return p.errorf("unexpected %q after the value", src[p.pos])
	}
	return nil
}

type oldParser struct {
	src   []byte
	pos   int
	nodes []Node
}

func (p *oldParser) errorf(format string, args ...any) error {
	return &SyntaxError{p.pos, fmt.Sprintf(format, args...)}
}

func (p *oldParser) skipSpace() {
	pos, src := p.pos, p.src
	for pos < len(src) && src[pos] <= ' ' && isJSONSpace[src[pos]] {
		pos++
	}
	p.pos = pos
}

func (p *oldParser) push(k Kind, start int) int {
	p.nodes = append(p.nodes, Node{Kind: k, Start: int32(start)})
	return len(p.nodes) - 1
}

func (p *oldParser) finish(i int) {
	n := &p.nodes[i]
	n.End = int32(p.pos)
	n.Next = int32(len(p.nodes))
}

func (p *oldParser) value(depth int) error {
	if p.pos >= len(p.src) {
		return p.errorf("unexpected end of input")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", True)
	case c == 'f':
		return p.literal("false", False)
	case c == 'n':
		return p.literal("null", Null)
	default:
		return p.errorf("unexpected %q", c)
	}
}

func (p *oldParser) literal(word string, k Kind) error {
	if !bytes.HasPrefix(p.src[p.pos:], []byte(word)) {
		return p.errorf("invalid literal")
	}
	i := p.push(k, p.pos)
	p.pos += len(word)
	p.finish(i)
	return nil
}

func (p *oldParser) object(depth int) error {
	if depth >= MaxDepth {
		return p.errorf("nesting deeper than %d", MaxDepth)
	}
	i := p.push(Object, p.pos)
	p.pos++
	p.skipSpace()
	n := int32(0)
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		p.finish(i)
		return nil
	}
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return p.errorf("expected a string key")
		}
		if err := p.str(); err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return p.errorf("expected ':' after an object key")
		}
		p.pos++
		p.skipSpace()
		if err := p.value(depth + 1); err != nil {
			return err
		}
		n++
		p.skipSpace()
		if p.pos >= len(p.src) {
			return p.errorf("unexpected end of input in an object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case '}':
			p.pos++
			p.finish(i)
			p.nodes[i].Len = n
			return nil
		default:
			return p.errorf("expected ',' or '}' in an object")
		}
	}
}

func (p *oldParser) array(depth int) error {
	if depth >= MaxDepth {
		return p.errorf("nesting deeper than %d", MaxDepth)
	}
	i := p.push(Array, p.pos)
	p.pos++
	p.skipSpace()
	n := int32(0)
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		p.finish(i)
		return nil
	}
	for {
		if err := p.value(depth + 1); err != nil {
			return err
		}
		n++
		p.skipSpace()
		if p.pos >= len(p.src) {
			return p.errorf("unexpected end of input in an array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case ']':
			p.pos++
			p.finish(i)
			p.nodes[i].Len = n
			return nil
		default:
			return p.errorf("expected ',' or ']' in an array")
		}
	}
}

func (p *oldParser) str() error {
	i := p.push(String, p.pos)
	p.pos++ // opening quote
	escaped := false
	for {
		pos, src := p.pos, p.src
		for pos < len(src) && !stringSpecial[src[pos]] {
			pos++
		}
		p.pos = pos
		if p.pos >= len(p.src) {
			return p.errorf("unterminated string")
		}
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			p.finish(i)
			p.nodes[i].Escaped = escaped
			return nil
		case c == '\\':
			escaped = true
			if err := p.escape(); err != nil {
				return err
			}
		default:
			return p.errorf("control character %#02x in a string", c)
		}
	}
}

func (p *oldParser) escape() error {
	if p.pos+1 >= len(p.src) {
		return p.errorf("unterminated escape")
	}
	switch p.src[p.pos+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		p.pos += 2
		return nil
	case 'u':
		if p.pos+6 > len(p.src) {
			return p.errorf("short \\u escape")
		}
		for _, h := range p.src[p.pos+2 : p.pos+6] {
			if hexVal(h) < 0 {
				return p.errorf("invalid \\u escape")
			}
		}
		p.pos += 6
		return nil
	}
	return p.errorf("invalid escape \\%c", p.src[p.pos+1])
}

func (p *oldParser) number() error {
	i := p.push(Number, p.pos)
	n := NumberLen(p.src[p.pos:])
	if n == 0 {
		return p.errorf("invalid number")
	}
	p.pos += n
	p.finish(i)
	return nil
}

// parseBoth parses src with both parsers and fails when the tapes or the
// errors differ.
func parseBoth(t testing.TB, src []byte) {
	var a, b Doc
	errA, errB := a.Parse(src), oldParse(&b, src)
	if fmt.Sprint(errA) != fmt.Sprint(errB) {
		t.Fatalf("%q: error %v, the recursive parser %v", src, errA, errB)
	}
	if errA != nil {
		return
	}
	if !slices.Equal(a.Nodes, b.Nodes) {
		t.Fatalf("%q: tape\n%v\nthe recursive parser\n%v", src, a.Nodes, b.Nodes)
	}
	// ParseValue reads the same value with anything after it.
	lead := skipSpace(src, 0)
	var c Doc
	tail := append(slices.Clone(src[lead:]), `,"x"]`...)
	n, err := c.ParseValue(tail)
	if err != nil || n != int(a.Nodes[0].End)-lead || len(c.Nodes) != len(a.Nodes) {
		t.Fatalf("%q: ParseValue read %d bytes, %d nodes (%v); Parse %d bytes, %d nodes", tail, n, len(c.Nodes), err, int(a.Nodes[0].End)-lead, len(a.Nodes))
	}
}

func TestParseMatchesRecursive(t *testing.T) {
	seeds := []string{
		``, ` `, `{}`, `[]`, `{ }`, `[ ]`, `{"a":1}`, `{"a" : [1, 2, {"b": null}], "c": "d\"e"}`,
		`[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[1 2]`, `{"a":1 "b":2}`, `[[[[]]]]`, `[[[[]]]`, `"abc`, `"a\q"`,
		`"\u12"`, `"\u12g4"`, "\"a\x01\"", `tru`, `nul`, `falsey`, `-`, `01`, `1.`, `1e`, `1e+`, `-0.5e-7`,
		`{"a":{"b":{"c":[true,false,null]}}} x`, `[1] [2]`, "\t{\n\"k\"\r:\n[ 1 , 2 ] }\n", `}`, `]`, `,`, `:`, `{"a":}`, `[,]`,
		"\"\xff\"", "[\"a\", \xff]", "{\"a\": 1} \xff", "[1,] \xff", "\"\xe4\xb8\"", "\"\xed\xa0\x80\"", "\"é\xff\"", "\"ok\" \"\xc3\"",
		"\"\xf0\x9f\x98\x80 \xf4\x90\x80\x80\"", "{\"\xc3\xa9\": \"\xe4\xb8\xad\"}",
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth),
		strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1),
	}
	for _, s := range seeds {
		parseBoth(t, []byte(s))
	}
	if src, err := os.ReadFile("../../testdata/bench/realistic_request.json"); err == nil {
		parseBoth(t, src)
		// Every prefix, and the document with one byte removed at each
		// of a few hundred places, reach every error the grammar has.
		for n := 0; n <= len(src); n += 7 {
			parseBoth(t, src[:n])
		}
		for n := 0; n < len(src); n += 97 {
			parseBoth(t, append(slices.Clone(src[:n]), src[n+1:]...))
		}
	} else {
		t.Fatal(err)
	}
}

// indentedDocs returns a nested document (objects and arrays 12 deep, empty
// ones, scalars of every kind) indented as encoding/json's MarshalIndent
// does with each of several indents, some with CRLF line breaks: the lines
// skipIndent guesses, right (spaces, up to 8 per line) and wrong (deeper
// lines, tabs, CRLF).
func indentedDocs(t testing.TB) [][]byte {
	var v any = []any{"x\ny", 1.5, nil, true, false, map[string]any{}, []any{}}
	for d := range 12 {
		v = map[string]any{"k" + strconv.Itoa(d): v, "s": "a b", "n": d, "l": []any{d, "z", []any{}}}
	}
	var docs [][]byte
	for _, indent := range []string{"", " ", "  ", "   ", "    ", "\t", " \t"} {
		doc, err := json.MarshalIndent(v, "", indent)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc, bytes.ReplaceAll(doc, []byte("\n"), []byte("\r\n")))
	}
	return docs
}

// TestParseIndented: indented documents, and each with a space added or
// removed at the start of each line (the guessed indent off by one), or
// the line break replaced by a space, parse as the recursive parser
// parses them.
func TestParseIndented(t *testing.T) {
	for _, doc := range indentedDocs(t) {
		parseBoth(t, doc)
		for i, c := range doc {
			if c != '\n' {
				continue
			}
			parseBoth(t, slices.Insert(slices.Clone(doc), i+1, ' '))
			if i+1 < len(doc) && doc[i+1] == ' ' {
				parseBoth(t, slices.Delete(slices.Clone(doc), i+1, i+2))
			}
			changed := slices.Clone(doc)
			changed[i] = ' '
			parseBoth(t, changed)
		}
	}
}

func FuzzParseMatchesRecursive(f *testing.F) {
	for _, s := range []string{`{"a": [1, "b", {"c": null}]}`, `[1,]`, `{"a" 1}`, `"\u00e9"`} {
		f.Add([]byte(s))
	}
	for _, doc := range indentedDocs(f)[:6] {
		f.Add(doc[:min(len(doc), 600)])
	}
	f.Fuzz(func(t *testing.T, src []byte) { parseBoth(t, src) })
}
