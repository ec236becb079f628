package grammar

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/syntax"
)

// arguments is a tool call's arguments in Beam's XML form, each
//
//	<rfl:parameter name="KEY">\nVALUE\n</rfl:parameter>
//
// joined by "\n": the declared properties in their order, the required ones
// present. A string value is raw text, any other JSON (as the renderer
// writes them). The parameters' $ref and allOf apply, as elsewhere.
func (c *compiler) arguments(t Tool, path string) *expr {
	if !c.load(t.Parameters, path, t.Strict, "t-"+t.Name) {
		return nil
	}
	d := c.d
	root := c.root
	if d.Kind(root) != pyjson.Object || d.Nodes[root].Len == 0 {
		// No parameters: no arguments. Parameters absent, null or {}
		// render as "() => any".
		return empty()
	}
	v := c.viewOf(root, path)
	if c.err != nil {
		return nil
	}
	if v.never {
		return nil
	}
	if c.types(v)&tObj == 0 {
		// The arguments are an object's members: a schema that admits
		// no object admits no call.
		c.impossible(path, "no arguments can be written: the schema admits no object, and a tool's arguments are one")
		return nil
	}
	if at, why := c.listsNoObject(v); at != "" {
		c.impossible(at, "no arguments can be written: the schema admits no object ("+why+"), and a tool's arguments are one")
		return nil
	}
	return c.argumentsOf(v)
}

// listsNoObject returns the path of an enum or const of v's schemas that
// lists no object, and why in words, or "": no object is a value of v then,
// whatever its types say (gap decision 320). Arguments are an object's
// members, so such parameters admit no call, as a type without "object"
// does; before, the enum was reported (an error under strict) and any
// arguments written.
func (c *compiler) listsNoObject(v *view) (path, why string) {
	d := c.d
	for _, n := range v.nodes {
		if n.ks.Const >= 0 && d.Kind(n.ks.Const) != pyjson.Object {
			return n.path + ".const", "its const is not an object"
		}
		if n.ks.Enum >= 0 && d.Kind(n.ks.Enum) == pyjson.Array {
			object := false
			d.Elements(n.ks.Enum, func(e, _ int) bool {
				object = d.Kind(e) == pyjson.Object
				return !object
			})
			if !object {
				return n.path + ".enum", "its enum lists none"
			}
		}
	}
	return "", ""
}

// argumentsOf is the arguments of the parameters' view v. Under strict,
// an anyOf there is the choice of its variants' arguments, each variant's
// view written in full (decision 307); not strict, it is reported, as a
// oneOf, enum or const of the whole always is (a variant's own property
// is read back as a string, and one of another type would leave the
// variant, and so the compile, with no arguments).
func (c *compiler) argumentsOf(v *view) *expr {
	d := c.d
	for i, n := range v.nodes {
		if !c.strict || n.ks.AnyOf < 0 || n.done&doneAnyOf != 0 || d.Kind(n.ks.AnyOf) != pyjson.Array || d.Nodes[n.ks.AnyOf].Len == 0 {
			continue
		}
		var alts []*expr
		d.Elements(n.ks.AnyOf, func(e, pos int) bool {
			w := c.with(v, i, doneAnyOf, e, n.path+".anyOf["+itoa(pos)+"]")
			if c.err == nil && !w.never && c.types(w)&tObj != 0 {
				if at, _ := c.listsNoObject(w); at == "" {
					alts = append(alts, c.argumentsOf(w))
				}
			}
			return c.err == nil
		})
		if c.err != nil {
			return nil
		}
		if len(alts) == 0 {
			c.impossible(n.path+".anyOf", "no arguments can be written: no variant of the anyOf admits an object, and a tool's arguments are one")
			return nil
		}
		return alt(alts...)
	}
	if e, ok := c.casesOf(v, true, c.argumentsOf); ok {
		// Under strict, if/then/else of the parameters' members: a
		// choice of cases, each the arguments of its view (gap decision
		// 330).
		return e
	}
	if e, ok := c.oneOfArguments(v); ok {
		return e
	}
	c.rootOf, c.itemsRoot, c.propsRoot, c.multipleDone, c.uniqueDone = -1, -1, -1, false, false
	// No not of strings is the view's (decision 198); a oneOf variant's
	// nots of required that its absent names meet are (decision 310).
	c.notNodes = append(c.notNodes[:0], v.notsMet...)
	if c.unevaluatedClosed(v) {
		c.rootOf = c.evalRoot(v)
	}
	for _, n := range v.nodes {
		c.dropUnenforced(n.node, n.ks, n.path, n.keys, n.done)
		nodes, names := c.schemaDeps(&n)
		for i, ds := range nodes {
			if ds >= 0 {
				c.drop(n.path+"."+names[i], names[i])
			}
		}
		for _, kw := range [...]struct {
			node int
			name string
		}{{n.ks.AnyOf, "anyOf"}, {n.ks.OneOf, "oneOf"}, {n.ks.Enum, "enum"}, {n.ks.Const, "const"}} {
			if kw.node >= 0 && (kw.name != "anyOf" || n.done&doneAnyOf == 0) && (kw.name != "oneOf" || n.done&doneOneOf == 0) {
				// Arguments are an object's members: variants of the
				// whole are not followed.
				c.drop(n.path+"."+kw.name, kw.name)
			}
		}
	}
	names, values, required, extra := c.objectMembers(v)
	// A oneOf variant's case (decision 310): the names it must hold are
	// required, those it must lack are left out (beside dependencies,
	// never: exclusiveVariants).
	names, values, required, ok := c.requireNames(v, v.present, names, values, required)
	if ok {
		names, values, required, ok = leaveOut(v.absent, names, values, required)
	}
	if !ok {
		return nil // no arguments of this case
	}
	var deps []dependency
	if c.hasDependencies(v) {
		names, values, required, deps = c.dependentMembers(v, names, values, required, extra, nil)
	}
	for _, n := range v.nodes {
		if n.ks.PatternProperties >= 0 {
			c.loosen(n.path+".patternProperties", "patternProperties", "arguments are not checked against the patterns of their names")
		}
	}
	keys := c.keyNames(v)
	if len(names) > 0 {
		rest := c.extras(v, extra, append(slices.Clip(names), v.absent...), keys, inArgument, true)
		body, ok := c.declaredMembers(v, names, values, required, deps, keys, rest != nil, writableKey,
			func(name string, value *view) *expr {
				open := syntax.ParamOpen + name + syntax.ParamNameEnd + "\n"
				c.argCast, c.casting = c.argCastOf(name), true
				c.argView, c.argWholeRead = value, false
				defer func() { c.casting = false }()
				if !value.never && c.types(value)&c.argCast.allowed() == 0 {
					// (decision 209: a property the renderer does not
					// show, an allOf's, is read back as a string)
					c.loosen(value.path, "type", "the parser reads this argument back as a string or another type than its schema allows (it casts by the type the tool's declaration shows, and shows the parameters' own properties only)")
				}
				return seq(lit(open), c.value(value, inArgument, true), lit("\n"+syntax.ParamClose))
			}, syntax.ArgumentSeparator, rest)
		if !ok {
			return nil
		}
		r := c.g.rule(c.prefix+"-args", body)
		c.setPath(r, v.path) // (what an error about the arguments as a whole names)
		return ref(r)
	}
	if extra.never {
		return empty() // none allowed
	}
	c.dropDependentRequired(v)
	// Free arguments: keys without ", <, > or a newline, values for
	// additionalProperties.
	key := plus(class(true, runeRange{'"', '"'}, runeRange{'<', '<'}, runeRange{'>', '>'}, runeRange{'\n', '\n'}))
	finite, finiteKeyed := c.finiteKeys(keys)
	if finiteKeyed {
		var alts []*expr
		for _, k := range finite {
			if writableKey(k) && !slices.Contains(v.absent, k) {
				alts = append(alts, lit(k))
			}
		}
		if key = alt(alts...); key == nil {
			return empty() // no argument can be named
		}
	} else if keys != nil && len(keys.keysOut()) == 0 {
		c.dropPropertyNames(v, "free arguments' names are checked against propertyNames only when an enum or const lists them, or it only rules names out")
	}
	if out := v.absent; !finiteKeyed && (len(out) > 0 || keys != nil && len(keys.keysOut()) > 0) {
		// (a oneOf variant's case: its absent names are no argument's;
		// nor are those propertyNames rules out, decision 314)
		if keys != nil {
			out = append(slices.Clip(out), keys.keysOut()...)
		}
		key = c.keyExcept(out, false, v.path)
	}
	c.argCast, c.casting = c.argCastOf(""), true
	c.argView, c.argWholeRead = extra, false
	value := c.value(extra, inArgument, true)
	c.casting = false
	arg := seq(lit(syntax.ParamOpen), key, lit(syntax.ParamNameEnd+"\n"), value, lit("\n"+syntax.ParamClose))
	return opt(seq(arg, star(seq(lit(syntax.ArgumentSeparator), arg))))
}

// oneOfArguments is, under strict, the arguments of a oneOf of the
// parameters (decision 310): the choice of its variants' cases
// (oneOfCases), each written as arguments in full, as the JSON path
// writes them. ok is false when there is no such oneOf or its variants
// can't be told apart so; then it is reported as before.
func (c *compiler) oneOfArguments(v *view) (e *expr, ok bool) {
	if !c.strict {
		return nil, false
	}
	d := c.d
	for i, n := range v.nodes {
		oneOf := n.ks.OneOf
		if oneOf < 0 || n.done&doneOneOf != 0 || d.Kind(oneOf) != pyjson.Array || d.Nodes[oneOf].Len == 0 {
			continue
		}
		cases, ok := c.oneOfCases(v, i, oneOf, n.path+".oneOf")
		if c.err != nil {
			return nil, true
		}
		if !ok {
			return nil, false
		}
		var alts []*expr
		for _, w := range cases {
			if alts = append(alts, c.argumentsOf(w)); c.err != nil {
				return nil, true
			}
		}
		if e = alt(alts...); e == nil {
			c.impossible(n.path+".oneOf", "no arguments can be written: no object is valid for exactly one variant of the oneOf")
		}
		return e, true
	}
	return nil, false
}

// oneOfCases is the views of the objects valid for exactly one variant
// of the oneOf (node oneOf, at path) of v's node i, when the JSON path's
// analyses tell its variants apart by the names an object holds and
// lacks (exclusiveVariants, exclusiveNotCases, closedVariantCases,
// typedVariantCases without cuts of values or cases told apart by a
// value's kind, which arguments don't follow) or by a discriminator
// (discriminatorCases where the parameters do not require it;
// discriminated, for each pair, where every variant does). ok is false
// otherwise.
func (c *compiler) oneOfCases(v *view, i, oneOf int, path string) (cases []*view, ok bool) {
	var ws []*view
	c.d.Elements(oneOf, func(e, pos int) bool {
		ws = append(ws, c.with(v, i, doneOneOf, e, path+"["+itoa(pos)+"]"))
		return c.err == nil
	})
	if c.err != nil {
		return nil, false
	}
	if excl := c.exclusiveVariants(v, oneOf); excl != nil {
		for pos, w := range ws {
			for _, absent := range excl[pos] {
				cases = append(cases, objectCase(w, nil, absent))
			}
		}
		return cases, true
	}
	exclNot := c.exclusiveNotCases(v, oneOf)
	if exclNot == nil {
		exclNot = c.closedVariantCases(v, ws)
	}
	if exclNot == nil {
		exclNot = c.typedVariantCases(v, ws)
	}
	if c.err != nil {
		return nil, false
	}
	for _, ecs := range exclNot {
		if slices.ContainsFunc(ecs, func(ec exclusiveCase) bool { return len(ec.cuts) > 0 || ec.byKind }) {
			exclNot = nil
			break
		}
	}
	if exclNot != nil {
		for pos, w := range ws {
			for _, ec := range exclNot[pos] {
				wc := objectCase(w, ec.present, ec.absent)
				for _, n := range w.nodes {
					if n.ks.Not >= 0 && !v.has(n.node) {
						wc.notsMet = append(wc.notsMet, n.node) // the variant's: each case lacks a name of each
					}
				}
				cases = append(cases, wc)
			}
		}
		return cases, true
	}
	if name, absent, ok := c.discriminatorCases(v, oneOf, ws); ok {
		for pos, w := range ws {
			cases = append(cases, objectCase(w, []string{name}, nil))
			for _, names := range absent[pos] {
				cases = append(cases, objectCase(w, nil, append([]string{name}, names...)))
			}
		}
		return cases, true
	}
	for a := range ws {
		for b := a + 1; b < len(ws); b++ {
			if !c.discriminated(ws[a], ws[b]) {
				return nil, false
			}
		}
	}
	return ws, true
}

// writableKey reports whether an argument key can be written: non-empty,
// without ", <, > or a newline (DECISIONS.md, Tool calls), and so without
// a marker.
func writableKey(k string) bool {
	return k != "" && !strings.ContainsAny(k, "\"<>\n")
}

// rawText is a raw string value: any text without a marker or
// </rfl:parameter>.
func (c *compiler) rawText() *expr {
	if c.raw == nil {
		c.raw = &textLang{forbidden: forbidden(inArgument)}
		c.raw.build(&c.g, "raw")
	}
	return c.raw.state(0)
}

// rawAutomaton is the automaton of rawText's language, whose state i is
// c.raw.state(i) (the same construction, once per process).
var rawAutomaton = sync.OnceValue(func() *automaton { return newAutomaton(forbidden(inArgument)) })

// maxRawCounted caps the rules rawAtLeast makes, one for each count of
// characters still to read and state of the raw text's automaton that
// count can meet: a minimum of up to 7 characters fits (94 rules; 8 would
// take 132, as from 5 characters on most of the automaton's 48 states are
// met). For xgrammar (Spec.XGrammar) a minimum of up to 2 (3 rules):
// xgrammar matches the whole vocabulary at each rule's moves before the
// first token, and with Beam's 200,005 tokens a minimum of 3 took 0.28 s
// more to compile than without "<", 5 1.3 s, 7 3.2 s, where 1 and 2 took
// 0.07 s and 0.06 s (beside an unbounded string argument, whose raw text's
// rules the grammar holds anyway; gap decision 315).
const (
	maxRawCounted         = 128
	maxRawCountedXGrammar = 3
)

// rawAtLeast is a raw string value of at least lo characters (lo > 0),
// exactly: rawText's language with the first lo characters counted, a
// rule per count and automaton state (the characters that begin a marker
// or the closing tag, "<" and what follows it, move the automaton; any
// other returns it to its start), then rawText from the state reached.
// A bounded raw string otherwise never holds "<" (decision 129), which
// kept "<" out of every value of zod's .min(1) (gap decision 315). ok is
// false past maxRawCounted (for xgrammar maxRawCountedXGrammar): the
// caller writes the string without "<".
func (c *compiler) rawAtLeast(lo int) (e *expr, ok bool) {
	a := rawAutomaton()
	c.rawText() // (c.raw, whose states the counted rules end in)
	// levels[j] are the states j characters can reach from the start.
	levels := [][]int{{0}}
	total := 1
	for j := 1; j < lo; j++ {
		seen := map[int]bool{0: true}
		next := []int{0} // a character that is not special
		for _, s := range levels[j-1] {
			for _, n := range a.next[s] {
				if n >= 0 && !seen[n] {
					seen[n] = true
					next = append(next, n)
				}
			}
		}
		if total += len(next); total > maxRawCounted || c.xgrammar && total > maxRawCountedXGrammar {
			return nil, false
		}
		levels = append(levels, next)
	}
	after := func(s int) *expr { return c.raw.state(s) } // the count met
	for j := lo - 1; j >= 0; j-- {
		rules := map[int]*expr{}
		for _, s := range levels[j] {
			key := "rawmin:" + strconv.Itoa(lo-j) + "," + strconv.Itoa(s)
			if r, ok := c.memo[key]; ok {
				rules[s] = r
				continue
			}
			var special []runeRange
			byTarget := map[int][]rune{}
			var targets []int
			for i, ch := range a.special {
				n := a.next[s][i]
				if n == 0 {
					continue // back to the start, as any other character
				}
				special = append(special, runeRange{ch, ch})
				if n < 0 {
					continue // it would complete a marker or the tag
				}
				if _, ok := byTarget[n]; !ok {
					targets = append(targets, n)
				}
				byTarget[n] = append(byTarget[n], ch)
			}
			alts := []*expr{seq(class(true, special...), after(0))}
			for _, n := range targets {
				alts = append(alts, seq(chars(false, string(byTarget[n])), after(n)))
			}
			r := ref(c.g.rule("raw-min", alt(alts...)))
			c.memo[key] = r
			rules[s] = r
		}
		after = func(s int) *expr { return rules[s] }
	}
	return after(0), true
}
