package grammar

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// propertyNames is a schema every key of an object is valid for: a string
// schema, as keys are strings. It is enforced where the grammar can write
// the keys' language:
//
//   - a declared property's name is checked against it when the grammar is
//     built: an optional one it rules out is left out, a required one makes
//     the object impossible;
//   - free members' keys (an object without declared properties) are
//     strings of the schema: its type, minLength/maxLength, pattern,
//     format, enum and const, as a string value's;
//   - other members beside declared ones (strict) and a map keyed by a
//     pattern need the keys' language intersected with another (none of
//     the declared names; the pattern): that is written only when the
//     names are finite (enum, const), as the names that pass both;
//     otherwise propertyNames is reported (an error under strict).
//
// Keywords of the schema that do not constrain strings are passed over; one
// that the grammar can't enforce on a string (anyOf, oneOf, not, ...) is
// reported as anywhere else.

// keyNames is the view of the propertyNames of v's schemas, nil when none
// has one.
func (c *compiler) keyNames(v *view) *view {
	var w *view
	for _, n := range v.nodes {
		if n.ks.PropertyNames >= 0 {
			if w == nil {
				w = &view{root: rootNone}
			}
			c.addTo(w, n.ks.PropertyNames, n.path+".propertyNames")
		}
	}
	if w == nil {
		return nil
	}
	// The key's schemas are not the view's root, and no not of strings
	// is the view's (decision 198) but the keys' own (keyNots).
	c.rootOf, c.itemsRoot, c.propsRoot, c.multipleDone, c.uniqueDone = -1, -1, -1, false, false
	c.notNodes = c.notNodes[:0]
	c.keyNots(w)
	for _, n := range w.nodes {
		c.dropUnenforced(n.node, n.ks, n.path, n.keys, n.done)
		if n.ks.AnyOf >= 0 {
			c.drop(n.path+".anyOf", "anyOf")
		}
		if n.ks.OneOf >= 0 {
			c.drop(n.path+".oneOf", "oneOf")
		}
	}
	return w
}

// keyNots reads the nots of w, a view of propertyNames, that rule out
// keys by their text (notString, decision 198), and marks them enforced
// (c.notNodes) where the keys' language keeps to them (gap decision 314):
//
//   - in both modes, nots of listed strings (an enum or a const) where
//     nothing else constrains the keys' text (no pattern, format or
//     length): w.namesOut, the names a key is none of, kept out by
//     keyExcept's trie, where the declared names are;
//   - under strict, any such nots (w.notStrings): a key is a string of
//     the view (viewString's automaton), where no declared name has to be
//     kept out besides.
//
// A listed name the nots rule out is no key (keyAllowed). Other nots are
// reported, as anywhere else.
func (c *compiler) keyNots(w *view) {
	var nodes []int
	var nots []notKeywords // each node's not, as read
	listed := true
	for _, n := range w.nodes {
		if n.ks.Not < 0 {
			continue
		}
		if _, exact := notTypes(c.d, n.node); exact {
			continue // applied to the view's types
		}
		if _, _, ok := c.notString(n.node); !ok || len(nodes) == maxStringShapes {
			continue
		}
		k, _ := readNot(c.d, c.notSchema(n.node))
		nodes, nots = append(nodes, n.node), append(nots, k)
		listed = listed && k.pattern < 0
	}
	if len(nodes) == 0 {
		return
	}
	plain := !c.has(w, func(ks *schema.Keys) bool {
		return ks.Pattern >= 0 || ks.Format >= 0 || ks.MinLength >= 0 || ks.MaxLength >= 0
	})
	switch {
	case listed && plain:
		out := &namesOut{}
		for _, k := range nots {
			for _, m := range []int{k.constant, k.enum} {
				switch {
				case m < 0:
				case c.d.Kind(m) == pyjson.String:
					out.list = append(out.list, c.d.Str(m))
				default:
					c.d.Elements(m, func(e, _ int) bool {
						out.list = append(out.list, c.d.Str(e)) // (strings: notString)
						return true
					})
				}
			}
		}
		if len(out.list) > 16 {
			out.set = make(map[string]bool, len(out.list))
			for _, name := range out.list {
				out.set[name] = true
			}
		}
		w.namesOut = out
	case c.strict:
		w.notStrings = nodes
	default:
		return // reported (dropUnenforced)
	}
	c.notNodes = append(c.notNodes, nodes...)
}

// keyIn reports whether name is a key w allows (w nil: any). A pattern or
// format the grammar can't translate is reported where the keys' language
// is written, and counts as matching here; so does one that has no
// regular expression to check the name with (reported).
func (c *compiler) keyIn(w *view, name string) bool {
	return c.keyAllowed(w, name, true)
}

// keyAllowed is keyIn; report as stringIn's. The nots keyNots reads rule
// names out too: by the list, or by a pattern's expression (a name it
// can't be checked against counts as allowed, and is reported with
// report).
func (c *compiler) keyAllowed(w *view, name string, report bool) bool {
	if w == nil {
		return true
	}
	if !c.stringIn(w, name, report) {
		return false
	}
	if out := w.namesOut; out != nil && (out.set != nil && out.set[name] || out.set == nil && slices.Contains(out.list, name)) {
		return false
	}
	for _, s := range w.notStrings {
		neg, _, _ := c.notString(s)
		match, decided := c.exprMatches(neg, name)
		if match {
			return false
		}
		if !decided && report {
			for _, n := range w.nodes {
				if n.node == s {
					c.loosen(n.path+".not", "not", "the name "+strconv.Quote(name)+" can't be checked against it (a count past 1000, or the grammar's matching work spent)")
					break
				}
			}
		}
	}
	return true
}

// inEnum reports whether the enum at node list holds the string name: by
// a scan of a short list, and of a long one by a set of its strings made
// once per compile, so that checking each of an enum's names against it
// (finiteKeys) is not quadratic.
func (c *compiler) inEnum(list int, name string) bool {
	d := c.d
	if d.Nodes[list].Len <= 16 {
		found := false
		d.Elements(list, func(e, _ int) bool {
			found = d.Kind(e) == pyjson.String && d.Str(e) == name
			return !found
		})
		return found
	}
	set, ok := c.enumSets[list]
	if !ok {
		set = make(map[string]bool, d.Nodes[list].Len)
		d.Elements(list, func(e, _ int) bool {
			if d.Kind(e) == pyjson.String {
				set[d.Str(e)] = true
			}
			return true
		})
		if c.enumSets == nil {
			c.enumSets = map[int]map[string]bool{}
		}
		c.enumSets[list] = set
	}
	return set[name]
}

// stringChecks is what stringIn reads of a view, read once per view:
// stringIn is asked about every declared and listed name, and a view of
// propertyNames of thousands of schemas took seconds read again for each
// name (gap decision 314).
type stringChecks struct {
	strings bool  // the view admits strings
	nodes   []int // its schemas with a const, an enum, a pattern or a format
	lo, hi  int   // its lengths (viewLengths)
	// of is the view's number of schemas and never when read: a view
	// that gained a schema since is read again.
	of    int
	never bool
}

// stringChecksOf returns w's stringChecks, made at the first call.
func (c *compiler) stringChecksOf(w *view) *stringChecks {
	if sc, ok := c.stringChecked[w]; ok && sc.of == len(w.nodes) && sc.never == w.never {
		return sc
	}
	sc := &stringChecks{strings: !w.never && c.types(w)&tStr != 0, of: len(w.nodes), never: w.never}
	if sc.strings {
		for i, n := range w.nodes {
			if n.ks.Const >= 0 || n.ks.Enum >= 0 || n.ks.Pattern >= 0 || n.ks.Format >= 0 {
				sc.nodes = append(sc.nodes, i)
			}
		}
		sc.lo, sc.hi = c.viewLengths(w, "Length")
	}
	if c.stringChecked == nil {
		c.stringChecked = map[*view]*stringChecks{}
	}
	c.stringChecked[w] = sc
	return sc
}

// stringIn is keyIn; report: a pattern or format the name can't be
// checked against is reported (keyIn), or else silently counts as
// matching (a check that only needs to tell when the name is shown out:
// literalOutside).
func (c *compiler) stringIn(w *view, name string, report bool) bool {
	if w == nil {
		return true
	}
	sc := c.stringChecksOf(w)
	if !sc.strings {
		return false
	}
	d := c.d
	for _, i := range sc.nodes {
		n := &w.nodes[i]
		if n.ks.Const >= 0 && (d.Kind(n.ks.Const) != pyjson.String || d.Str(n.ks.Const) != name) {
			return false
		}
		if n.ks.Enum >= 0 && d.Kind(n.ks.Enum) == pyjson.Array && !c.inEnum(n.ks.Enum, name) {
			return false
		}
		for _, k := range [...]struct {
			node    int
			pattern bool
		}{{n.ks.Pattern, true}, {n.ks.Format, false}} {
			if k.node < 0 || d.Kind(k.node) != pyjson.String {
				continue
			}
			var e *expr
			if k.pattern {
				e = c.namePattern(k.node)
			} else {
				e = formatExpr(d.Str(k.node))
			}
			if e == nil {
				continue
			}
			match, decided := c.exprMatches(e, name)
			if !decided {
				if report {
					kw := "format"
					if k.pattern {
						kw = "pattern"
					}
					c.loosen(n.path+"."+kw, kw, "the name "+strconv.Quote(name)+" can't be checked against it (a count past 1000, or the grammar's matching work spent)")
				}
			} else if !match {
				return false
			} else if why := formatLoose(d.Str(k.node)); report && !k.pattern && why != "" {
				// The name may be one of the strings a loose format's
				// expression holds that are not valid for it.
				c.loosen(n.path+".format", "format", why)
			}
		}
	}
	lo, hi := sc.lo, sc.hi
	runes := utf8.RuneCountInString(name)
	return runes >= lo && (hi < 0 || runes <= hi)
}

// namePattern is the expression of the pattern at node p (nil when the
// translator refuses it), translated once per compile (patternOf) and
// found by node after that: it is asked for once per name matched, and a
// node is cheaper to look up than a pattern's text.
func (c *compiler) namePattern(p int) *expr {
	if e, ok := c.patterns[p]; ok {
		return e
	}
	e, _ := c.patternOf(c.d.Str(p))
	if c.patterns == nil {
		c.patterns = map[int]*expr{}
	}
	c.patterns[p] = e
	return e
}

// finiteKeys returns the keys w allows when they are finite: the string
// members of its first enum or const that every keyword allows, or none
// when w allows no string.
func (c *compiler) finiteKeys(w *view) (keys []string, finite bool) {
	if w == nil {
		return nil, false
	}
	if w.never || c.types(w)&tStr == 0 {
		return nil, true // none
	}
	d := c.d
	for _, n := range w.nodes {
		var members []int
		switch {
		case n.ks.Const >= 0:
			members = []int{n.ks.Const}
		case n.ks.Enum >= 0 && d.Kind(n.ks.Enum) == pyjson.Array:
			d.Elements(n.ks.Enum, func(e, _ int) bool { members = append(members, e); return true })
		default:
			continue
		}
		cost := 0
		for _, m := range members {
			if d.Kind(m) == pyjson.String && c.keyIn(w, d.Str(m)) {
				keys = append(keys, d.Str(m))
				// Each key is written, as a key or a declared member's,
				// quoted and among alternatives: past the engine's cap,
				// stop here rather than after the last of 90,000.
				if cost += utf8.RuneCountInString(d.Str(m)) + 3; cost > maxExpanded {
					c.fail(w.path, overExpandedText)
					return nil, true
				}
			}
		}
		return keys, true
	}
	return nil, false
}

// keyOf is the expression of a free member's key valid for w (w nil: any
// key), a JSON string in ctx: nil when no key is.
func (c *compiler) keyOf(w *view, ctx textContext) *expr {
	if w == nil {
		return c.quotedString(ctx)
	}
	if w.never || c.types(w)&tStr == 0 {
		return nil
	}
	if keys, ok := c.finiteKeys(w); ok {
		return c.keyLiterals(keys, nil, ctx)
	}
	if names := w.keysOut(); len(names) > 0 {
		return c.keyExcept(names, true, w.path)
	}
	return c.viewString(w, ctx, false)
}

// keyLiterals is keys as JSON strings in ctx, those that except rules out
// left out (nil: none); nil when none is left.
func (c *compiler) keyLiterals(keys []string, except func(string) bool, ctx textContext) *expr {
	var alts []*expr
	for _, k := range keys {
		q := string(pyjson.AppendQuoted(nil, k))
		if except != nil && except(k) || containsForbidden(q, ctx) {
			continue
		}
		alts = append(alts, lit(q))
	}
	return alt(alts...)
}

// dropPropertyNames reports the propertyNames of v's schemas (why: what
// the grammar can't do), an error under strict.
func (c *compiler) dropPropertyNames(v *view, why string) {
	for _, n := range v.nodes {
		if n.ks.PropertyNames >= 0 {
			c.loosen(n.path+".propertyNames", "propertyNames", why)
		}
	}
}

// A name is matched against a pattern's or a format's expression by Go's
// regexp (linear in the name): the expression is written as an RE2
// regular expression, anchored, once per expression and grammar. An
// expression RE2 can't hold (a count past 1000) leaves the names
// undecided, and so does matching past maxMatchWork.

// maxMatchWork caps the work of matching names in one grammar: the sum
// of each name's length times its expression's size (expandedCost), about
// the steps of the regular expressions' simulation. Past it the names
// left are undecided.
const maxMatchWork = 1 << 20

// regexpCompileWork is what compiling a regular expression costs of
// maxMatchWork per element of its expression (and 16 more): Go's regexp
// takes about 4 us for the smallest pattern and a few hundred nanoseconds
// for each element, a step of matching a nanosecond or a few. Uncharged,
// an object of 3,000 properties beside 3,000 patterns compiled every
// pattern (gap decision 218).
const regexpCompileWork = 64

// exprMatches reports whether s is in the language of e, an expression
// without rule references; decided is false when e has no regular
// expression, or the grammar's matching work is spent.
func (c *compiler) exprMatches(e *expr, s string) (match, decided bool) {
	m, ok := c.regexps[e]
	if !ok {
		if c.matchWork > maxMatchWork {
			return false, false
		}
		var b strings.Builder
		b.WriteString(`^(?s:`)
		if writeRegexp(&b, e) {
			b.WriteString(`)$`)
			m.re, _ = regexp.Compile(b.String())
			m.cost = expandedCost(e)
			c.matchWork += regexpCompileWork * (m.cost + 16)
		}
		if c.regexps == nil {
			c.regexps = map[*expr]nameMatcher{}
		}
		c.regexps[e] = m
	}
	if m.re == nil {
		return false, false
	}
	if c.matchWork += (len(s) + 1) * m.cost; c.matchWork > maxMatchWork {
		return false, false
	}
	return m.re.MatchString(s), true
}

// nameMatcher is the regular expression of an expression, and its size.
type nameMatcher struct {
	re   *regexp.Regexp
	cost int
}

// writeRegexp writes e as an RE2 regular expression; false when it can't.
func writeRegexp(b *strings.Builder, e *expr) bool {
	switch e.kind {
	case kLit:
		b.WriteString(regexp.QuoteMeta(e.text))
	case kClass:
		if len(e.rs) == 0 {
			if e.neg {
				b.WriteString(`.`) // any character, (?s) on
			} else {
				b.WriteString(`[^\x00-\x{10FFFF}]`)
			}
			return true
		}
		b.WriteByte('[')
		if e.neg {
			b.WriteByte('^')
		}
		for _, r := range e.rs {
			fmt.Fprintf(b, `\x{%x}-\x{%x}`, r.lo, r.hi)
		}
		b.WriteByte(']')
	case kSeq, kAlt:
		b.WriteString("(?:")
		for i, it := range e.items {
			if i > 0 && e.kind == kAlt {
				b.WriteByte('|')
			}
			if !writeRegexp(b, it) {
				return false
			}
		}
		b.WriteByte(')')
	case kRep:
		if e.min > 1000 || e.max > 1000 {
			return false
		}
		b.WriteString("(?:")
		if !writeRegexp(b, e.items[0]) {
			return false
		}
		switch {
		case e.max < 0:
			fmt.Fprintf(b, "){%d,}", e.min)
		default:
			fmt.Fprintf(b, "){%d,%d}", e.min, e.max)
		}
	default:
		return false
	}
	return true
}
