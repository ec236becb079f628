package pyjson

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
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

	open []int32 // the parser's stack, kept for the next Parse
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
	p := parser{src: src, nodes: d.Nodes[:0], open: d.open[:0]}
	_, err := p.parse(false)
	d.Nodes, d.open = p.nodes, p.open[:0]
	return err
}

// ParseValue parses the one JSON value that src starts with (no leading
// whitespace) and returns the length of its text; what follows it is not
// read. src must be valid UTF-8: unlike Parse, ParseValue does not check.
func (d *Doc) ParseValue(src []byte) (int, error) {
	if len(src) > 1<<31-1 {
		return 0, &SyntaxError{0, "document larger than 2 GiB"}
	}
	d.Src, d.Text = src, ""
	p := parser{src: src, nodes: d.Nodes[:0], open: d.open[:0]}
	n, err := p.parse(true)
	d.Nodes, d.open = p.nodes, p.open[:0]
	return n, err
}

// SkipSpace returns the index of the first byte at or after pos that is
// not JSON whitespace, or len(src).
func SkipSpace(src []byte, pos int) int { return skipSpace(src, pos) }

// ScanString returns the index of the first byte at or after pos that is a
// quote, a backslash or a control character, or len(src): inside a string
// literal, where its plain run of text ends.
func ScanString(src []byte, pos int) int { return scanString(src, pos) }

// ParseBytes returns a new Doc for src.
func ParseBytes(src []byte) (*Doc, error) {
	d := new(Doc)
	if err := d.Parse(src); err != nil {
		return nil, err
	}
	return d, nil
}

// parser reads a document in one loop, without recursion: open holds the
// nodes of the arrays and objects it is inside, innermost last.
type parser struct {
	src   []byte
	nodes []Node
	open  []int32
}

func errorAt(pos int, format string, args ...any) error {
	return &SyntaxError{pos, fmt.Sprintf(format, args...)}
}

// skipSpace returns the index of the first byte at or after pos that is
// not JSON whitespace, or len(src).
func skipSpace(src []byte, pos int) int {
	for pos < len(src) && src[pos] <= ' ' && isJSONSpace[src[pos]] {
		pos++
	}
	return pos
}

var isJSONSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// skipIndent is skipSpace where indented JSON breaks a line: it first
// tries the guess that src[pos:] is a line break, then want spaces (at
// most 8), then a byte that is not whitespace (want < 0: no guess),
// checking the spaces in one word; otherwise it skips as skipSpace does.
// The guess is the indent of the last line break seen before a line at
// the same depth (parse's indents). A loop over the spaces mispredicts
// its exit once per line (the indents differ from line to line); the
// guess is right for every line of a document indented with spaces but
// the first at each depth, and one compare when wrong.
func skipIndent(src []byte, pos, want int) int {
	if end := pos + 1 + want; uint(want) <= 8 && pos+9 < len(src) && src[pos] == '\n' && src[end] > ' ' &&
		(binary.LittleEndian.Uint64(src[pos+1:])^0x2020202020202020)&indentMask[want] == 0 {
		return end
	}
	return skipSpace(src, pos)
}

// indentMask[n] keeps the low n bytes of a word.
var indentMask = [9]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xff_ffffffff, 0xffff_ffffffff, 0xffffff_ffffffff, 0xffffffff_ffffffff}

// indents holds, for the depths of a document (modulo 32), 1 + the
// spaces after the last line break seen before a line at that depth, or
// 0 when none was seen (or it was longer than skipIndent guesses).
type indents [32]int8

// guess is skipIndent's want for a line at depth.
func (in *indents) guess(depth int) int { return int(in[depth&31]) - 1 }

// learn records the whitespace src[pos:next] before a line at depth, when
// it is a line break, then spaces the guess did not expect.
func (in *indents) learn(src []byte, pos, next, depth int) {
	if n := next - pos - 1; n != in.guess(depth) && n >= 0 && src[pos] == '\n' {
		in[depth&31] = 0
		if n <= 8 {
			in[depth&31] = int8(n + 1)
		}
	}
}

// push appends a node of kind k starting at start and returns its index.
// It stores the fields one by one: a composite literal is built on the
// stack and copied with wider loads than its stores, which stalls the
// store forwarding of every node (three times slower here).
func push(nodes []Node, k Kind, start int) ([]Node, int) {
	i := len(nodes)
	if i == cap(nodes) {
		nodes = growNodes(nodes)
	}
	nodes = nodes[:i+1]
	n := &nodes[i]
	n.Kind, n.Escaped = k, false
	n.Start, n.End, n.Next, n.Len = int32(start), 0, 0, 0
	return nodes, i
}

// pushScalar appends the node of a value without descendants, src[start:end],
// storing each field once.
func pushScalar(nodes []Node, k Kind, escaped bool, start, end int) []Node {
	i := len(nodes)
	if i == cap(nodes) {
		nodes = growNodes(nodes)
	}
	nodes = nodes[:i+1]
	n := &nodes[i]
	n.Kind, n.Escaped = k, escaped
	n.Start, n.End, n.Next, n.Len = int32(start), int32(end), int32(i+1), 0
	return nodes
}

// growNodes makes room for one more node; kept out of line so that its
// callers inline.
//
//go:noinline
func growNodes(nodes []Node) []Node { return slices.Grow(nodes, 1) }

// done stores the parser's tape and stack for the next parse and returns
// pos and err.
func (p *parser) done(nodes []Node, open []int32, pos int, err error) (int, error) {
	p.nodes, p.open = nodes, open
	return pos, err
}

// parse reads one value and the whitespace around it. Each turn of the
// loop reads a value at pos; when it ends a value (a scalar, or a closed
// array or object) the inner loop reads the separators and closing
// brackets that follow, up to the next value or the end, and an object
// member's key (at member) before its value.
//
// The innermost open container's member count and kind are kept in
// locals (count, object); entering a nested container saves the count in
// its node's Len until the nested one closes.
//
// With prefix, parse reads one value at the start of src and returns where
// it ends; else the value must fill src, whitespace aside.
func (p *parser) parse(prefix bool) (int, error) {
	src, nodes, open := p.src, p.nodes, p.open
	var (
		count  int32
		object bool
		err    error
		i      int
		ind    indents
	)
	pos := 0
	if !prefix {
		pos = skipSpace(src, 0)
	}
	for {
		if pos >= len(src) {
			return p.done(nodes, open, pos, errorAt(pos, "unexpected end of input"))
		}
		switch c := src[pos]; {
		case c == '"':
			// The end of the string: most end within their first eight
			// bytes, tested here as scanString does; then pushScalar,
			// inlined by hand. The key at member repeats these lines:
			// as functions, neither fits the inliner's budget, and the
			// calls cost decode plus render 2-5%.
			end := pos + 1
			if end+8 <= len(src) {
				if m := specialBytes(binary.LittleEndian.Uint64(src[end:])); m != 0 {
					end += bits.TrailingZeros64(m) >> 3
				} else {
					end = scanString(src, end+8)
				}
			} else {
				end = scanString(src, end)
			}
			if end < len(src) && src[end] == '"' {
				if i = len(nodes); i == cap(nodes) {
					nodes = growNodes(nodes)
				}
				nodes = nodes[:i+1]
				n := &nodes[i]
				n.Kind, n.Escaped = String, false
				n.Start, n.End, n.Next, n.Len = int32(pos), int32(end+1), int32(i+1), 0
				pos = end + 1
			} else if nodes, pos, err = p.str(nodes, pos, end); err != nil {
				return p.done(nodes, open, pos, err)
			}
		case c == '{' || c == '[':
			if len(open) >= MaxDepth {
				return p.done(nodes, open, pos, errorAt(pos, "nesting deeper than %d", MaxDepth))
			}
			kind, end := Array, byte(']')
			if c == '{' {
				kind, end = Object, '}'
			}
			nodes, i = push(nodes, kind, pos)
			next := skipIndent(src, pos+1, ind.guess(len(open)+1))
			ind.learn(src, pos+1, next, len(open)+1)
			pos = next
			if pos < len(src) && src[pos] == end {
				pos++
				nodes[i].End, nodes[i].Next = int32(pos), int32(len(nodes))
				break // an empty container is a value that ended
			}
			if len(open) > 0 {
				nodes[open[len(open)-1]].Len = count
			}
			open = append(open, int32(i))
			count, object = 0, kind == Object
			if object {
				goto member
			}
			continue
		case c == '-' || (c >= '0' && c <= '9'):
			n := NumberLen(src[pos:])
			if n == 0 {
				return p.done(nodes, open, pos, errorAt(pos, "invalid number"))
			}
			nodes = pushScalar(nodes, Number, false, pos, pos+n)
			pos += n
		case c == 't':
			if pos+4 > len(src) || string(src[pos:pos+4]) != "true" {
				return p.done(nodes, open, pos, errorAt(pos, "invalid literal"))
			}
			nodes = pushScalar(nodes, True, false, pos, pos+4)
			pos += 4
		case c == 'f':
			if pos+5 > len(src) || string(src[pos:pos+5]) != "false" {
				return p.done(nodes, open, pos, errorAt(pos, "invalid literal"))
			}
			nodes = pushScalar(nodes, False, false, pos, pos+5)
			pos += 5
		case c == 'n':
			if pos+4 > len(src) || string(src[pos:pos+4]) != "null" {
				return p.done(nodes, open, pos, errorAt(pos, "invalid literal"))
			}
			nodes = pushScalar(nodes, Null, false, pos, pos+4)
			pos += 4
		default:
			return p.done(nodes, open, pos, errorAt(pos, "unexpected %q", c))
		}
		// A value ended at pos: close the containers it completes.
		for {
			if len(open) == 0 {
				if !prefix {
					pos = skipSpace(src, pos)
					if pos != len(src) {
						return p.done(nodes, open, pos, errorAt(pos, "unexpected %q after the value", src[pos]))
					}
				}
				return p.done(nodes, open, pos, nil)
			}
			count++
			next := skipIndent(src, pos, ind.guess(len(open)-1))
			ind.learn(src, pos, next, len(open)-1)
			pos = next
			if pos >= len(src) {
				if object {
					return p.done(nodes, open, pos, errorAt(pos, "unexpected end of input in an object"))
				}
				return p.done(nodes, open, pos, errorAt(pos, "unexpected end of input in an array"))
			}
			c := src[pos]
			if c == ',' {
				next := skipIndent(src, pos+1, ind.guess(len(open)))
				ind.learn(src, pos+1, next, len(open))
				pos = next
				if object {
					goto member
				}
				break // the next element
			}
			if object && c != '}' {
				return p.done(nodes, open, pos, errorAt(pos, "expected ',' or '}' in an object"))
			}
			if !object && c != ']' {
				return p.done(nodes, open, pos, errorAt(pos, "expected ',' or ']' in an array"))
			}
			pos++
			top := &nodes[open[len(open)-1]]
			top.End, top.Next, top.Len = int32(pos), int32(len(nodes)), count
			open = open[:len(open)-1]
			if len(open) > 0 {
				outer := &nodes[open[len(open)-1]]
				count, object = outer.Len, outer.Kind == Object
			}
		}
		continue
	member:
		// An object member's key at pos, its colon and the whitespace up
		// to its value. Most keys have no escape and a colon right after.
		if pos < len(src) && src[pos] == '"' {
			// As for a string value (see there why it is repeated).
			end := pos + 1
			if end+8 <= len(src) {
				if m := specialBytes(binary.LittleEndian.Uint64(src[end:])); m != 0 {
					end += bits.TrailingZeros64(m) >> 3
				} else {
					end = scanString(src, end+8)
				}
			} else {
				end = scanString(src, end)
			}
			if end < len(src) && src[end] == '"' {
				if i = len(nodes); i == cap(nodes) {
					nodes = growNodes(nodes)
				}
				nodes = nodes[:i+1]
				n := &nodes[i]
				n.Kind, n.Escaped = String, false
				n.Start, n.End, n.Next, n.Len = int32(pos), int32(end+1), int32(i+1), 0
				pos = end + 1
				if pos < len(src) && src[pos] == ':' {
					pos = skipSpace(src, pos+1)
					continue
				}
			} else if nodes, pos, err = p.str(nodes, pos, end); err != nil {
				return p.done(nodes, open, pos, err)
			}
			pos = skipSpace(src, pos)
			if pos >= len(src) || src[pos] != ':' {
				return p.done(nodes, open, pos, errorAt(pos, "expected ':' after an object key"))
			}
			pos = skipSpace(src, pos+1)
			continue
		}
		return p.done(nodes, open, pos, errorAt(pos, "expected a string key"))
	}
}

// str reads the string whose opening quote is at start and whose first
// quote, backslash or control character after it is at pos (or pos is
// len(src)): a string that the fast path in parse did not end.
func (p *parser) str(nodes []Node, start, pos int) ([]Node, int, error) {
	src := p.src
	escaped := false
	for {
		if pos >= len(src) {
			return nodes, pos, errorAt(pos, "unterminated string")
		}
		switch c := src[pos]; {
		case c == '"':
			pos++
			return pushScalar(nodes, String, escaped, start, pos), pos, nil
		case c == '\\':
			escaped = true
			var err error
			if pos, err = escape(src, pos); err != nil {
				return nodes, pos, err
			}
		default:
			return nodes, pos, errorAt(pos, "control character %#02x in a string", c)
		}
		pos = scanString(src, pos)
	}
}

// scanString returns the index of the first byte at or after pos that ends
// a run of plain string content (a quote, a backslash or a control
// character), or len(src). It tests eight bytes at a time: in each word,
// the lowest byte flagged by the zero-byte tests below is exactly the first
// special one (a borrow can flag only bytes above a true match), and bytes
// of 0x80 and up, parts of UTF-8 sequences, are never flagged.
func scanString(src []byte, pos int) int {
	for pos+8 <= len(src) {
		x := binary.LittleEndian.Uint64(src[pos:])
		if m := specialBytes(x); m != 0 {
			return pos + bits.TrailingZeros64(m)>>3
		}
		pos += 8
	}
	for pos < len(src) && !stringSpecial[src[pos]] {
		pos++
	}
	return pos
}

const (
	lowBits     = 0x0101010101010101
	highBits    = 0x8080808080808080
	quotes      = '"' * lowBits
	backslashes = '\\' * lowBits
	spaces      = ' ' * lowBits
)

// specialBytes flags (with its high bit) each quote, backslash and
// control character of x, exactly up to the first one.
func specialBytes(x uint64) uint64 {
	return zeroBytes(x^quotes) | zeroBytes(x^backslashes) | (x-spaces)&^x&highBits
}

// SpecialBytes is specialBytes for the scanners of JSON string content
// outside this package: it flags (with its high bit) each quote,
// backslash and control character of the little-endian word x, exactly up
// to the first one.
func SpecialBytes(x uint64) uint64 { return specialBytes(x) }

// ByteFlags flags (with its high bit) each byte of x equal to c, exactly
// up to the first one, as SpecialBytes does, so the two can be ORed.
func ByteFlags(x uint64, c byte) uint64 { return zeroBytes(x ^ uint64(c)*lowBits) }

// zeroBytes flags (with its high bit) each zero byte of x, exactly up to
// the first one.
func zeroBytes(x uint64) uint64 { return (x - lowBits) &^ x & highBits }

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

// escape checks the escape whose backslash is at pos and returns the index
// after it.
func escape(src []byte, pos int) (int, error) {
	if pos+1 >= len(src) {
		return pos, errorAt(pos, "unterminated escape")
	}
	switch src[pos+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return pos + 2, nil
	case 'u':
		if pos+6 > len(src) {
			return pos, errorAt(pos, "short \\u escape")
		}
		for _, h := range src[pos+2 : pos+6] {
			if hexVal(h) < 0 {
				return pos, errorAt(pos, "invalid \\u escape")
			}
		}
		return pos + 6, nil
	}
	return pos, errorAt(pos, "invalid escape \\%c", src[pos+1])
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
