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
	src string
	i   int
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
	return fmt.Errorf("byte %d: %s", p.i, fmt.Sprintf(format, args...))
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
		return 0, fmt.Errorf("byte %d: id %q is not an integer from 0 to 2147483647", start, p.src[start:p.i])
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

// scanVocab reads {"token": id, ...}, calling add for each entry in order.
func scanVocab(src string, add func(tok string, id int) error) error {
	p := &jsonScanner{src: src}
	if err := p.expect('{'); err != nil {
		return err
	}
	if p.peek() == '}' {
		p.i++
		return p.end()
	}
	for {
		k, err := p.str()
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
		if err := add(k, id); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return p.end()
		default:
			return p.errorf("want ',' or '}'")
		}
	}
}

// errMergeForm reports a merges array that mixes the "a b" and ["a", "b"] forms.
var errMergeForm = errors.New(`mixes the "a b" and ["a", "b"] forms`)

// scanMerges reads ["a b", ...] or [["a", "b"], ...]. For the legacy string
// form it passes the whole line as a with pair false; for the pair form it
// passes both parts with pair true.
func scanMerges(src string, add func(i int, a, b string, pair bool) error) error {
	p := &jsonScanner{src: src}
	if err := p.expect('['); err != nil {
		return err
	}
	if p.peek() == ']' {
		p.i++
		return p.end()
	}
	form := p.peek()
	for i := 0; ; i++ {
		if c := p.peek(); c != form {
			return fmt.Errorf("[%d]: %w", i, errMergeForm)
		}
		if form == '[' {
			p.i++
			a, err := p.str()
			if err != nil {
				return fmt.Errorf("[%d][0]: %w", i, err)
			}
			if err := p.expect(','); err != nil {
				return fmt.Errorf("[%d]: %w (a merge pair has exactly 2 strings)", i, err)
			}
			b, err := p.str()
			if err != nil {
				return fmt.Errorf("[%d][1]: %w", i, err)
			}
			if err := p.expect(']'); err != nil {
				return fmt.Errorf("[%d]: %w (a merge pair has exactly 2 strings)", i, err)
			}
			if err := add(i, a, b, true); err != nil {
				return err
			}
		} else {
			line, err := p.str()
			if err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
			if err := add(i, line, "", false); err != nil {
				return err
			}
		}
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return p.end()
		default:
			return p.errorf("want ',' or ']'")
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
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	m := map[string]string{}
	if p.peek() == '}' {
		p.i++
		return m, p.end()
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
		if err := p.skip(1); err != nil {
			return nil, err
		}
		m[k] = p.src[start:p.i]
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, p.end()
		default:
			return nil, p.errorf("want ',' or '}'")
		}
	}
}
