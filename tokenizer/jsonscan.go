package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// A jsonScanner reads the two large values of a tokenizer.json, model.vocab
// (an object of string to id) and model.merges (an array), without building
// a generic value for each of their hundreds of thousands of entries. Strings
// without escapes are substrings of src, so they cost no allocation; the
// rare escaped ones are decoded by encoding/json.
type jsonScanner struct {
	src  string
	i    int
	base int    // where the value being read starts in src: errors count bytes from it
	esc  []byte // the decoded text of the strings strRef read that hold escapes
}

func (p *jsonScanner) ws() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("byte %d: %s", p.i-p.base, fmt.Sprintf(format, args...))
}

// expect consumes c after optional white space.
func (p *jsonScanner) expect(c byte) error {
	p.ws()
	if p.i >= len(p.src) || p.src[p.i] != c {
		if p.i >= len(p.src) {
			return p.errorf("unexpected end of JSON, want %q", c)
		}
		return p.errorf("found %q, want %q", p.src[p.i], c)
	}
	p.i++
	return nil
}

// peek returns the next byte after white space, or 0 at the end.
func (p *jsonScanner) peek() byte {
	p.ws()
	if p.i >= len(p.src) {
		return 0
	}
	return p.src[p.i]
}

// str reads a JSON string.
func (p *jsonScanner) str() (string, error) {
	if err := p.expect('"'); err != nil {
		return "", err
	}
	start := p.i
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return p.src[start : p.i-1], nil
		case c == '\\':
			return p.escaped(start - 1)
		case c < 0x20:
			return "", p.errorf("control character in string")
		}
		p.i++
	}
	return "", p.errorf("unterminated string")
}

// A strRef is a JSON string that strRef read, without a string header (so
// that long lists of them hold no pointers): its span in the source when
// it has no escape, else the span of its decoded text in the scanner's esc
// with escaped set in n.
type strRef struct{ off, n uint32 }

const escaped = 1 << 31

// strRef reads a JSON string as a strRef.
func (p *jsonScanner) strRef() (strRef, error) {
	if err := p.expect('"'); err != nil {
		return strRef{}, err
	}
	start := p.i
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return strRef{uint32(start), uint32(p.i - 1 - start)}, nil
		case c == '\\':
			s, err := p.escaped(start - 1)
			if err != nil {
				return strRef{}, err
			}
			off := len(p.esc)
			p.esc = append(p.esc, s...)
			return strRef{uint32(off), uint32(len(s)) | escaped}, nil
		case c < 0x20:
			return strRef{}, p.errorf("control character in string")
		}
		p.i++
	}
	return strRef{}, p.errorf("unterminated string")
}

// text returns the string r stands for; esc is the scanner's esc.
func (r strRef) text(src, esc string) string {
	if r.n&escaped != 0 {
		return esc[r.off : r.off+r.n&^escaped]
	}
	return src[r.off : r.off+r.n]
}

// escaped finishes a string that holds an escape, starting at its quote.
func (p *jsonScanner) escaped(quote int) (string, error) {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			var s string
			if err := json.Unmarshal([]byte(p.src[quote:p.i]), &s); err != nil {
				return "", p.errorf("%v", err)
			}
			return s, nil
		}
		p.i++
	}
	return "", p.errorf("unterminated string")
}

// id reads a non-negative integer that fits in 31 bits.
func (p *jsonScanner) id() (int, error) {
	p.ws()
	start := p.i
	for p.i < len(p.src) && (p.src[p.i] >= '0' && p.src[p.i] <= '9' || p.src[p.i] == '-' || p.src[p.i] == '.' || p.src[p.i] == 'e' || p.src[p.i] == 'E' || p.src[p.i] == '+') {
		p.i++
	}
	n, err := strconv.ParseUint(p.src[start:p.i], 10, 31)
	if err != nil {
		return 0, fmt.Errorf("byte %d: id %q is not an integer from 0 to 2147483647", start-p.base, p.src[start:p.i])
	}
	return int(n), nil
}

// end checks that nothing but white space is left.
func (p *jsonScanner) end() error {
	p.ws()
	if p.i != len(p.src) {
		return p.errorf("unexpected data after the value")
	}
	return nil
}

// vocab reads {"token": id, ...} at p, calling add for each entry in order.
func (p *jsonScanner) vocab(add func(tok strRef, id int)) error {
	if err := p.expect('{'); err != nil {
		return err
	}
	if p.peek() == '}' {
		p.i++
		return nil
	}
	for {
		k, err := p.strRef()
		if err != nil {
			return err
		}
		if err := p.expect(':'); err != nil {
			return err
		}
		id, err := p.id()
		if err != nil {
			return err
		}
		add(k, id)
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return nil
		default:
			return p.errorf("want ',' or '}'")
		}
	}
}

// errMergeForm reports a merges array that mixes the "a b" and ["a", "b"] forms.
var errMergeForm = errors.New(`mixes the "a b" and ["a", "b"] forms`)

// merges reads ["a b", ...] or [["a", "b"], ...] at p. For the legacy
// string form it passes the whole line as a; for the pair form both parts;
// pair says which form the array has.
func (p *jsonScanner) merges(add func(a, b strRef, pair bool)) (pair bool, err error) {
	if err := p.expect('['); err != nil {
		return false, err
	}
	if p.peek() == ']' {
		p.i++
		return false, nil
	}
	form := p.peek()
	pair = form == '['
	for i := 0; ; i++ {
		if c := p.peek(); c != form {
			return pair, fmt.Errorf("[%d]: %w", i, errMergeForm)
		}
		if form == '[' {
			p.i++
			a, err := p.strRef()
			if err != nil {
				return pair, fmt.Errorf("[%d][0]: %w", i, err)
			}
			if err := p.expect(','); err != nil {
				return pair, fmt.Errorf("[%d]: %w (a merge pair has exactly 2 strings)", i, err)
			}
			b, err := p.strRef()
			if err != nil {
				return pair, fmt.Errorf("[%d][1]: %w", i, err)
			}
			if err := p.expect(']'); err != nil {
				return pair, fmt.Errorf("[%d]: %w (a merge pair has exactly 2 strings)", i, err)
			}
			add(a, b, true)
		} else {
			line, err := p.strRef()
			if err != nil {
				return pair, fmt.Errorf("[%d]: %w", i, err)
			}
			add(line, strRef{}, false)
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return pair, nil
		default:
			return pair, p.errorf("want ',' or ']'")
		}
	}
}

// skip passes over one JSON value without decoding it, checking only its
// structure; the values it passes over are decoded later by those who need
// them, which check them in full. depth counts the arrays and objects the
// value is in; past MaxJSONDepth the value is refused.
func (p *jsonScanner) skip(depth int) error {
	switch c := p.peek(); c {
	case '"':
		_, err := p.rawString()
		return err
	case '{', '[':
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		if depth >= MaxJSONDepth {
			return p.errorf("arrays and objects nested more than %d deep", MaxJSONDepth)
		}
		p.i++
		if p.peek() == close {
			p.i++
			return nil
		}
		for {
			if c == '{' {
				if _, err := p.rawString(); err != nil {
					return err
				}
				if err := p.expect(':'); err != nil {
					return err
				}
			}
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			switch p.peek() {
			case ',':
				p.i++
			case close:
				p.i++
				return nil
			default:
				return p.errorf("want ',' or %q", close)
			}
		}
	case 0:
		return p.errorf("unexpected end of JSON")
	default:
		start := p.i
		for p.i < len(p.src) {
			switch p.src[p.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if p.i == start {
					return p.errorf("unexpected %q", p.src[p.i])
				}
				return nil
			}
			p.i++
		}
		return nil
	}
}

// rawString passes over a string and returns it with its quotes.
func (p *jsonScanner) rawString() (string, error) {
	if err := p.expect('"'); err != nil {
		return "", err
	}
	start := p.i - 1
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == '\\':
			p.i += 2
			continue
		case c == '"':
			p.i++
			return p.src[start:p.i], nil
		case c < 0x20:
			return "", p.errorf("control character in string")
		}
		p.i++
	}
	return "", p.errorf("unterminated string")
}

// rawObject splits a JSON object into its members' raw values, substrings
// of src; a repeated key keeps its last value, as encoding/json does.
func rawObject(src string) (map[string]string, error) {
	p := &jsonScanner{src: src}
	m, err := p.object(0, nil)
	if err != nil {
		return nil, err
	}
	return m, p.end()
}

// object reads an object at p (depth arrays and objects deep) into its
// members' raw values. A member whose key read takes is read by read, at
// its value, instead of being skipped; read must leave p after the value
// (or return an error).
func (p *jsonScanner) object(depth int, read func(key string) error) (map[string]string, error) {
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	m := map[string]string{}
	if p.peek() == '}' {
		p.i++
		return m, nil
	}
	for {
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		p.ws()
		start := p.i
		if read != nil {
			err = read(k)
		} else {
			err = p.skip(depth + 1)
		}
		if err != nil {
			return nil, err
		}
		m[k] = p.src[start:p.i]
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, nil
		default:
			return nil, p.errorf("want ',' or '}'")
		}
	}
}
