package grammar

import "github.com/beamharmony/harmony/internal/schema"

// maxMisspeltChecks bounds the keys a compile compares with the keywords
// (schema.MayBeMisspelt) to find the schemas that hold a misspelt one, and
// again the keys it compares to report them: up to a microsecond each, so
// that a schema of tens of thousands of unknown keys stays within the
// compile's budget. Past it, keys are not checked (gap decision 257).
const maxMisspeltChecks = 4096

// eachMisspelt calls fn with each key of schema s that schema.Misspelt
// takes for a misspelt keyword and the keyword, until fn returns false,
// counting the keys it compares in *count (at most maxMisspeltChecks a
// compile: past it, keys are not compared).
func (c *compiler) eachMisspelt(s int, count *int, fn func(name []byte, keyword string) bool) {
	d := c.d
	d.Members(s, func(k, v int) bool {
		// No buffer: one on the stack would escape to the heap for every
		// schema; only a key written with escapes allocates.
		name := d.KeyText(k, nil)
		if !schema.MayBeMisspelt(name) {
			return true
		}
		if *count >= maxMisspeltChecks {
			return false
		}
		*count++
		if t := schema.Misspelt(name, d.Kind(v)); t != "" {
			return fn(name, t)
		}
		return true
	})
}

// holdsMisspelt reports whether schema s holds a misspelt keyword.
func (c *compiler) holdsMisspelt(s int) bool {
	found := false
	c.eachMisspelt(s, &c.misspeltChecks[0], func([]byte, string) bool {
		found = true
		return false
	})
	return found
}

// dropMisspelt reports (strict: refuses) the misspelt keywords of schema
// s, at path.
func (c *compiler) dropMisspelt(s int, path string) {
	c.eachMisspelt(s, &c.misspeltChecks[1], func(name []byte, t string) bool {
		at := path + "." + string(name)
		if c.strict {
			c.fail(at, "unknown keyword, which constrains nothing: did you mean "+t+"? Correct it, or remove it or turn strict off")
			return false
		}
		c.report(at, string(name))
		return true
	})
}
