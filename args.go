package harmony

import (
	"bytes"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// The XML tags of a tool call's arguments (page: Tool calls).
const (
	paramOpen  = `<rfl:parameter name="`
	paramClose = `</rfl:parameter>`
)

// arguments writes a call's arguments object as rfl:parameter elements:
// `<rfl:parameter name="K">\nV\n</rfl:parameter>`, joined by "\n", in the
// object's order. Strings are written as is, other values as Python-style
// JSON (DECISIONS.md, Tool calls and results).
func (r *renderer) arguments(raw []byte, i, j int) error {
	d := &r.doc
	path := argumentsPath{i, j}
	if len(bytes.TrimSpace(raw)) == 0 {
		return errAt(path.String(), "missing; must be a JSON object")
	}
	if err := d.Parse(raw); err != nil {
		return errAt(path.String(), err.Error())
	}
	switch d.Kind(0) {
	case pyjson.Object:
	case pyjson.String:
		return errAt(path.String(), "must be a JSON object; parse JSON strings before rendering")
	default:
		return errAt(path.String(), "must be a JSON object, got "+d.Kind(0).String())
	}
	if dup := d.DuplicateKey(0); dup >= 0 {
		return errAt(path.String(), "key "+quote(d.Str(dup))+" appears more than once")
	}
	var err error
	first := true
	d.Members(0, func(k, v int) bool {
		if !first {
			r.buf = append(r.buf, '\n')
		}
		first = false
		err = r.argument(d, k, v, path)
		return err == nil
	})
	return err
}

func (r *renderer) argument(d *pyjson.Doc, k, v int, path argumentsPath) error {
	r.buf = append(r.buf, paramOpen...)
	keyStart := len(r.buf)
	r.buf = d.AppendString(r.buf, k)
	key := r.buf[keyStart:]
	if err := checkArgumentKey(key); err != nil {
		return errAt(path.String(), "key "+quote(string(key))+" "+err.Error())
	}
	r.buf = append(r.buf, "\">\n"...)
	valueStart := len(r.buf)
	if d.Kind(v) == pyjson.String {
		r.buf = d.AppendString(r.buf, v)
	} else {
		r.buf = d.AppendPython(r.buf, v)
	}
	if bytes.Contains(r.buf[valueStart:], []byte(paramClose)) {
		return errAt(path.String()+"."+string(key), "a value can't contain "+paramClose)
	}
	r.buf = append(r.buf, '\n')
	r.buf = append(r.buf, paramClose...)
	return nil
}

// checkArgumentKey rejects keys that would break the parameter tag or
// could not be parsed back: empty keys and keys with ", <, > or a newline.
func checkArgumentKey(key []byte) error {
	if len(key) == 0 {
		return errString("is empty; argument names must be non-empty")
	}
	for _, c := range key {
		switch c {
		case '"', '<', '>', '\n':
			return errString("contains " + quote(string(c)) + "; argument names can't contain \", <, > or a newline")
		}
	}
	return nil
}

// argumentsPath names messages[i].tool_calls[j].function.arguments; the
// string is built only for an error.
type argumentsPath struct{ i, j int }

func (p argumentsPath) String() string { return callPath(p.i, p.j) + ".function.arguments" }
