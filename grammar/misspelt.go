package grammar

import (
	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// holdsMisspelt reports whether schema s holds a key schema.Misspelt
// names a keyword for.
func holdsMisspelt(d *pyjson.Doc, s int) bool {
	found := false
	var buf [32]byte
	d.Members(s, func(k, v int) bool {
		found = schema.Misspelt(memberName(d, k, buf[:0]), d.Kind(v)) != ""
		return !found
	})
	return found
}

// memberName is the text of key node k, unescaped into buf when it needs
// to be.
func memberName(d *pyjson.Doc, k int, buf []byte) []byte {
	if d.Nodes[k].Escaped {
		return d.AppendString(buf, k)
	}
	raw := d.Raw(k)
	return raw[1 : len(raw)-1]
}

// dropMisspelt reports (strict: refuses) the misspelt keywords of schema
// s, at path.
func (c *compiler) dropMisspelt(s int, path string) {
	d := c.d
	var buf [32]byte
	d.Members(s, func(k, v int) bool {
		name := memberName(d, k, buf[:0])
		t := schema.Misspelt(name, d.Kind(v))
		if t == "" {
			return true
		}
		at := path + "." + string(name)
		if c.strict {
			c.fail(at, "unknown keyword, which constrains nothing: did you mean "+t+"? Correct it, or remove it or turn strict off")
			return false
		}
		c.report(at, string(name))
		return true
	})
}
