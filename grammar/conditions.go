package grammar

import "github.com/beamharmony/harmony/internal/pyjson"

// if/then/else where the condition is known without the value: without
// if, then and else are ignored (JSON Schema applies them only beside
// it); an if with neither then nor else (or with both admitting anything)
// changes nothing; if true (or admitting anything) applies then, as an
// allOf member would, and if false applies else. Other conditions stay
// reported (an error under strict).

// conditionKnown reports whether schema s's if/then/else are applied by
// the view without looking at the value, and returns the branch that
// applies (-1: none).
func conditionKnown(d *pyjson.Doc, s int) (branch int, known bool) {
	cond, then, els := d.Lookup(s, "if"), d.Lookup(s, "then"), d.Lookup(s, "else")
	trivial := func(n int) bool { return n < 0 || anySchema(d, n) }
	switch {
	case cond < 0, trivial(then) && trivial(els):
		return -1, true
	case anySchema(d, cond):
		if trivial(then) {
			return -1, true
		}
		return then, true
	case d.Kind(cond) == pyjson.False:
		if trivial(els) {
			return -1, true
		}
		return els, true
	}
	return -1, false
}
