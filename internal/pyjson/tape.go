package pyjson

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Kind is the JSON type of a Node.
type Kind uint8

// The kinds of JSON values.
const (
	Invalid Kind = iota
	Null
	False
	True
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"invalid", "null", "boolean", "boolean", "number", "string", "array", "object"}

// String returns the JSON Schema name of the kind ("boolean" for both
// literals), as used in error messages.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// MaxDepth bounds the nesting of arrays and objects Parse accepts, so that
// hostile input cannot exhaust the stack.
const MaxDepth = 10000

// Node is one JSON value on a Doc's tape. Object members appear as a key
// node (Kind String) followed by the value's nodes.
type Node struct {
	Kind Kind
	// Escaped reports that a String's raw text contains a backslash escape.
	Escaped bool
	// Start and End delimit the value's raw text in Doc.Src; for strings
	// they include the quotes.
	Start, End int32
	// Next is the index of the first node after this value and all of its
	// descendants.
	Next int32
	// Len is the number of elements of an array or members of an object.
	Len int32
}

// Doc is a parsed JSON document: its source and its tape. The zero Doc is
// ready for Parse. Node 0 is the root.
type Doc struct {
	Src   []byte
	Nodes []Node
	// Text, when set, holds string(Src): Str then returns strings without
	// escapes as substrings of it instead of allocating each one.
	Text string
}

// SyntaxError reports invalid JSON and where it was found.
type SyntaxError struct {
	Offset int
	Msg    string
}

// Error returns "invalid JSON at byte N: what".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// Parse reads src, which must hold exactly one JSON value (surrounding
// whitespace allowed), reusing the Doc's tape. Strings must be valid UTF-8.
// Numbers are checked against the JSON grammar and kept as literals.
func (d *Doc) Parse(src []byte) error {
	if len(src) > 1<<31-1 {
		return &SyntaxError{0, "document larger than 2 GiB"}
	}
	d.Src = src
	d.Text = ""
	d.Nodes = d.Nodes[:0]
	// Validating UTF-8 once up front (fast on ASCII) lets the string
	// scanner look only for quotes, backslashes and control characters.
	if !utf8.Valid(src) {
		return &SyntaxError{invalidUTF8At(src), "invalid UTF-8"}
	}
	p := parser{src: src, nodes: d.Nodes[:0]}
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

// ParseBytes returns a new Doc for src.
func ParseBytes(src []byte) (*Doc, error) {
	d := new(Doc)
	if err := d.Parse(src); err != nil {
		return nil, err
	}
	return d, nil
}

type parser struct {
	src   []byte
	pos   int
	nodes []Node
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{p.pos, fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	pos, src := p.pos, p.src
	for pos < len(src) && src[pos] <= ' ' && isJSONSpace[src[pos]] {
		pos++
	}
	p.pos = pos
}

var isJSONSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

func (p *parser) push(k Kind, start int) int {
	p.nodes = append(p.nodes, Node{Kind: k, Start: int32(start)})
	return len(p.nodes) - 1
}

func (p *parser) finish(i int) {
	n := &p.nodes[i]
	n.End = int32(p.pos)
	n.Next = int32(len(p.nodes))
}

func (p *parser) value(depth int) error {
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

func (p *parser) literal(word string, k Kind) error {
	if !bytes.HasPrefix(p.src[p.pos:], []byte(word)) {
		return p.errorf("invalid literal")
	}
	i := p.push(k, p.pos)
	p.pos += len(word)
	p.finish(i)
	return nil
}

func (p *parser) object(depth int) error {
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

func (p *parser) array(depth int) error {
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

func (p *parser) str() error {
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

// stringSpecial marks the bytes that end a run of plain string content.
var stringSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

func (p *parser) escape() error {
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

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func (p *parser) number() error {
	i := p.push(Number, p.pos)
	n := NumberLen(p.src[p.pos:])
	if n == 0 {
		return p.errorf("invalid number")
	}
	p.pos += n
	p.finish(i)
	return nil
}

// NumberLen returns the length of the JSON number literal at the start of b,
// or 0 when b does not start with one.
func NumberLen(b []byte) int {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return 0
	}
	if i < len(b) && b[i] == '.' {
		j := i + 1
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == i+1 {
			return 0
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		j := i + 1
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		k := j
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			k++
		}
		if k == j {
			return 0
		}
		i = k
	}
	return i
}

// IsIntegerLiteral reports whether s is a JSON integer literal:
// -?(0|[1-9][0-9]*).
func IsIntegerLiteral(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return false
	}
	if s[i] == '0' {
		return i+1 == len(s)
	}
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
