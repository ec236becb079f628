package grammar

import (
	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// maxMisspeltChecks bounds the keys a compile compares with the keywords
// (schema.MayBeMisspelt) to find the schemas that hold a misspelt one, and
// again the keys it compares to report them: up to a microsecond each, so
// that a schema of tens of thousands of unknown keys stays within the
// compile's budget. Past it, keys are not checked (gap decision 257).
const maxMisspeltChecks = 4096

// misspeltChecked counts one key compared in *count, and reports false
// when the budget is spent.
func misspeltChecked(count *int) bool {
	if *count >= maxMisspeltChecks {
		return false
	}
	*count++
	return true
}

// holdsMisspelt reports whether schema s holds a key schema.Misspelt
// names a keyword for, within the compile's budget of checks.
func (c *compiler) holdsMisspelt(s int) bool {
	d := c.d
	found := false
	var buf [32]byte
	d.Members(s, func(k, v int) bool {
		name := memberName(d, k, buf[:0])
		if !schema.MayBeMisspelt(name) {
			return true
		}
		if !misspeltChecked(&c.misspeltChecks[0]) {
			return false
		}
		found = schema.Misspelt(name, d.Kind(v)) != ""
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
		if !schema.MayBeMisspelt(name) {
			return true
		}
		if !misspeltChecked(&c.misspeltChecks[1]) {
			return false
		}
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
