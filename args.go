package harmony

import (
	"bytes"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// arguments writes a call's arguments object as rfl:parameter elements:
// `<rfl:parameter name="K">\nV\n</rfl:parameter>`, joined by "\n", in the
// object's order. Strings are written as is, other values as Python-style
// JSON (DECISIONS.md, Tool calls and results).
func (r *renderer) arguments(buf []byte, f *FunctionCall, i, j int) ([]byte, error) {
	path := argumentsPath{i, j}
	raw := f.Arguments
	d, root := f.parsed.of(raw), f.parsed.root
	if d == nil {
		if len(bytes.TrimSpace(raw)) == 0 {
			return buf, errAt(path.String(), "missing; must be a JSON object")
		}
		d, root = &r.s.doc, 0
		if err := d.Parse(raw); err != nil {
			return buf, errAt(path.String(), err.Error())
		}
	}
	switch d.Kind(root) {
	case pyjson.Object:
	case pyjson.String:
		return buf, errAt(path.String(), "must be a JSON object; parse JSON strings before rendering")
	default:
		return buf, errAt(path.String(), "must be a JSON object, got "+d.Kind(root).String())
	}
	if dup := d.DuplicateKey(root); dup >= 0 {
		return buf, errAt(path.String(), "key "+quote(d.Str(dup))+" appears more than once")
	}
	end := d.Next(root)
	for k := root + 1; k < end; k = d.Next(k + 1) {
		if k > root+1 {
			buf = append(buf, '\n')
		}
		var err error
		if buf, err = appendArgument(buf, d, k, k+1, path); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// appendArgument writes the member with key node k and value node v.
func appendArgument(buf []byte, d *pyjson.Doc, k, v int, path argumentsPath) ([]byte, error) {
	buf = append(buf, paramOpen...)
	keyStart := len(buf)
	buf = d.AppendString(buf, k)
	key := buf[keyStart:]
	if err := checkArgumentKey(key); err != nil {
		return buf, errAt(path.String(), "key "+quote(string(key))+" "+err.Error())
	}
	buf = append(buf, paramNameEnd+"\n"...)
	valueStart := len(buf)
	if d.Kind(v) == pyjson.String {
		buf = d.AppendString(buf, v)
	} else {
		buf = d.AppendPython(buf, v)
	}
	if bytes.Contains(buf[valueStart:], []byte(paramClose)) {
		return buf, errAt(path.String()+"."+string(key), "a value can't contain "+paramClose)
	}
	buf = append(buf, '\n')
	buf = append(buf, paramClose...)
	return buf, nil
}

// argumentsPath names messages[i].tool_calls[j].function.arguments; the
// string is built only for an error.
type argumentsPath struct{ i, j int }

func (p argumentsPath) String() string { return callPath(p.i, p.j) + ".function.arguments" }
