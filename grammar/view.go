package grammar

import (
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
	"github.com/beamharmony/harmony/internal/syntax"
)

// A view is what one value must satisfy: the schema objects that apply to
// it together, as JSON Schema 2020-12 applies them: a schema, the target of
// its $ref, the members of its allOf (recursively), and the variant of each
// anyOf and oneOf being compiled. Every keyword of every one of them
// constrains the value; the compiler merges them per type.
type view struct {
	nodes []vnode
	never bool   // a false schema among them: nothing is valid
	path  string // where the value's schema is, for its rule's name and errors
	// root is the schema the view was made from: every other schema of
	// the view is one its $ref, allOf, anyOf or oneOf led to, so the
	// properties they declare are those it evaluates. A view made of
	// several schemas (an element's prefixItems and items, a member's
	// property and patternProperties) has none: rootNone before addTo
	// adds the first, rootSeveral after it adds another (decision 303).
	root int
	buf  [2]vnode // room for the first nodes, without allocating
	// led links every schema expanded into the view, those it does not
	// keep too (one that only led to others, a variant's combinator
	// done), so that with can tell the schemas that led to a variant.
	led    []link
	ledBuf [4]link
	// absent are names no object of the view may hold: a oneOf variant
	// that only requires names is written without one of each other
	// variant's names (exclusiveVariants).
	absent []string
	// objectsOnly: the view's values are objects (a oneOf variant that
	// only requires names: any other value is valid for every variant,
	// so for none alone).
	objectsOnly bool
	// present are names every object of the view holds (a case of a
	// discriminator's if/then/else: ifCases).
	present []string
	// excluded are values members of the view's objects may not hold
	// (name: the member's; "": the view's own value), for the case of a
	// discriminator's if/then/else where the property holds a value no
	// condition lists (ifCases, gap decision 224).
	excluded []exclusion
	// notStrings are the schemas of the view whose not its strings
	// enforce, under strict (viewBody, decision 198).
	notStrings []int
	// namesOut are the names a view of propertyNames keeps keys from by
	// its nots of listed strings, when nothing else constrains the keys'
	// text: any key but those (keyExcept's trie; keyNots, decision 314).
	// A pointer: views of values, by far the most, pay 8 bytes for it.
	namesOut *namesOut
	// notCut are the numbers the nots of the view rule out, which its
	// numbers leave out (viewBody, viewNumber, decision 223).
	notCut []*big.Rat
	// notRequired are sets of names its objects must lack one name of
	// each, by the nots of its schemas, under strict (viewBody, decisions
	// 199 and 205).
	notRequired [][]string
	// notsMet are schemas of the view whose not its absent names meet
	// already (a case of exclusiveNotCases): enforced, not reported.
	notsMet []int
	// wide is what a wide view looks its schemas up in (has, nodesFor);
	// never shared: a view is copied field by field (with, objectCase),
	// never as a whole.
	wide *wideSets
}

// wideSets are the lookups of a wide view: index, where its schemas
// declare each name (nodesFor); seen, the set of its schemas' nodes (has),
// made once scanned is more than a few times its size.
type wideSets struct {
	index   *memberIndex
	seen    map[int]struct{}
	scanned int
}

// lead records that schema node was expanded into v, led there by the
// schema on top of stack.
func (v *view) lead(node int, stack []int) {
	l := link{int32(node), -1}
	if len(stack) > 0 {
		l.parent = int32(stack[len(stack)-1])
	}
	if v.led == nil {
		v.led = v.ledBuf[:0]
	}
	v.led = append(v.led, l)
}

// copyLinks gives w v's links, for a view made of v's schemas.
func (w *view) copyLinks(v *view) {
	w.led = append(w.ledBuf[:0], v.led...)
}

// add adds n to v's schemas.
func (v *view) add(n vnode) {
	if v.nodes == nil {
		v.nodes = v.buf[:0]
	}
	v.nodes = append(v.nodes, n)
	if v.wide != nil && v.wide.seen != nil {
		v.wide.seen[n.node] = struct{}{}
	}
}

// has reports whether schema s is one of v's: a wide view (an allOf of
// thousands of schemas) looks it up in a set, so that expanding it is
// linear in its schemas (gap decision 218).
func (v *view) has(s int) bool {
	if len(v.nodes) < wideView {
		for _, n := range v.nodes {
			if n.node == s {
				return true
			}
		}
		return false
	}
	if v.wide == nil {
		v.wide = &wideSets{}
	}
	x := v.wide
	if len(x.seen) != len(v.nodes) { // first, or nodes added another way
		if x.scanned < 8*len(v.nodes) {
			// A view copied to add a schema or two (a variant
			// distributed, with) scans: the set pays for itself only
			// after a few scans of the whole view.
			x.scanned += len(v.nodes)
			for _, n := range v.nodes {
				if n.node == s {
					return true
				}
			}
			return false
		}
		x.seen = make(map[int]struct{}, 2*len(v.nodes))
		for _, n := range v.nodes {
			x.seen[n.node] = struct{}{}
		}
	}
	_, ok := x.seen[s]
	return ok
}

// vnode is one schema object of a view.
type vnode struct {
	node int
	path string
	ks   *schema.Keys // the document's, read once (compiler.keysOf)
	done uint8        // the combinators already distributed (doneAnyOf, doneOneOf)
	// other: it holds a keyword Keys does not read that the compiler
	// reports (unenforced), so that it is compiled, and reported, even
	// when it constrains nothing else.
	other bool
	// mayOther: it may hold a keyword of unenforced (other, or a key
	// written with escapes), which is looked up only then (otherKey).
	mayOther bool
	keys     *nodeKeys // ks's, with the keywords of unenforced
}

// A link says which schema's $ref, allOf, known branch or distributed
// variant led to a schema of a view (parent -1: none).
type link struct{ node, parent int32 }

const (
	doneAnyOf = 1 << iota
	doneOneOf
	doneIf // its if/then/else, split by the discriminator's value (ifCases)
)

// viewOf returns the view of the schema at node s, at path.
func (c *compiler) viewOf(s int, path string) *view {
	v := &view{path: path, root: s}
	c.expand(v, s, path, nil)
	return v
}

// expand adds schema s, its $ref's target and its allOf's members to v.
// stack holds the schemas whose $ref or allOf led here: one of them met
// again is a schema that contains itself (A = {"$ref": A}), which no value
// can be checked against and no engine can use.
func (c *compiler) expand(v *view, s int, path string, stack []int) {
	d := c.d
	switch d.Kind(s) {
	case pyjson.True:
		return
	case pyjson.False:
		v.never = true
		return
	case pyjson.Object:
	default:
		return // not a schema: no constraint
	}
	if slices.Contains(stack, s) {
		c.fail(path, "refers to itself before anything is written (a $ref cycle through no object or array), which no engine can use; make the recursion go through a property or an item")
		return
	}
	if v.has(s) {
		return // met twice (allOf: [A, A]): once is enough
	}
	if !c.spend(path, 64+len(path)) {
		return
	}
	nk := c.keysOf(s)
	ks := &nk.ks
	// Drafts 4 to 7: a $ref stands for its target, its siblings ignored.
	alone := ks.Ref >= 0 && c.refAlone
	at := len(v.nodes)
	may := nk.mayOther
	v.lead(s, stack)
	if !alone {
		v.add(vnode{node: s, path: path, ks: ks, keys: nk, other: nk.other, mayOther: may})
	}
	stack = append(stack, s)
	if ks.Ref >= 0 {
		if target := c.resolveRef(s, ks.Ref); target >= 0 {
			c.expand(v, target, path+".$ref", stack)
		} else {
			c.drop(path+".$ref", "$ref")
		}
		if alone {
			return
		}
	}
	if !may {
		// no $dynamicRef, if, then or else
	} else if dr := d.Lookup(s, "$dynamicRef"); dr >= 0 {
		if target := c.resolveDynamic(s, dr); target >= 0 {
			c.expand(v, target, path+".$dynamicRef", stack)
		} // else reported by dropUnenforced
	}
	if may {
		if branch, known := conditionKnown(d, s); known && branch >= 0 {
			name := ".then"
			if d.Kind(d.Lookup(s, "if")) == pyjson.False {
				name = ".else"
			}
			c.expand(v, branch, path+name, stack)
		}
	}
	if ks.AllOf >= 0 {
		if d.Kind(ks.AllOf) == pyjson.Array {
			d.Elements(ks.AllOf, func(e, pos int) bool {
				c.expand(v, e, path+".allOf["+strconv.Itoa(pos)+"]", stack)
				return true
			})
		} else {
			c.drop(path+".allOf", "allOf")
		}
	}
	// The schemas it leads to come first (post-order), so that an object
	// built on a $ref or allOf lists their properties before its own.
	if last := len(v.nodes) - 1; at < last {
		n := v.nodes[at]
		copy(v.nodes[at:], v.nodes[at+1:])
		v.nodes[last] = n
	}
}

// nodeKeys are what a view reads of a schema object: its keywords, and
// whether it holds (other) or may hold (mayOther) one of unenforced.
type nodeKeys struct {
	ks              schema.Keys
	other, mayOther bool
	// others are the values of unenforced's keywords, in its order (-1:
	// absent), as d.Lookup finds them (the last of a name written twice),
	// read when mayOther.
	others [len(unenforced)]int32
	// typed: it has type, and no keyword of unenforced. Then typeFacts
	// reads, once, types (the types it allows) and kwTypes (those its
	// other keywords constrain, keywordTypes), which only view.key needs.
	typed, typesRead bool
	// misspelt: it holds a key that schema.Misspelt takes for a misspelt
	// keyword (dropMisspelt).
	misspelt       bool
	types, kwTypes typeSet
	// kwTypesDone is kwTypes once its anyOf and oneOf are distributed
	// (the variant in effect is a schema of the view of its own).
	kwTypesDone typeSet
}

// typeFacts returns the types nk's type allows and the types its other
// keywords constrain, read once.
func (nk *nodeKeys) typeFacts(d *pyjson.Doc, done uint8) (types, kwTypes typeSet) {
	if !nk.typesRead {
		nk.types, nk.kwTypes, nk.typesRead = typesOf(d, nk.ks.Type), keywordTypes(&nk.ks), true
		ks := nk.ks
		ks.AnyOf, ks.OneOf = -1, -1
		nk.kwTypesDone = keywordTypes(&ks)
	}
	if (nk.ks.AnyOf < 0 || done&doneAnyOf != 0) && (nk.ks.OneOf < 0 || done&doneOneOf != 0) {
		return nk.types, nk.kwTypesDone
	}
	return nk.types, nk.kwTypes
}

// keysOf returns the nodeKeys of schema object s, read once per
// document.
func (c *compiler) keysOf(s int) *nodeKeys {
	if s < len(c.keysAt) && c.keysAt[s] != nil {
		return c.keysAt[s]
	}
	if len(c.keyBlock) == cap(c.keyBlock) {
		// A new block: the nodeKeys handed out stay where they are.
		c.keyBlock = make([]nodeKeys, 0, max(16, 2*cap(c.keyBlock)))
	}
	c.keyBlock = append(c.keyBlock, nodeKeys{ks: schema.KeysOf(c.d, s)})
	nk := &c.keyBlock[len(c.keyBlock)-1]
	nk.other, nk.mayOther = c.reportsOther(s)
	nk.typed = nk.ks.Type >= 0 && !nk.other
	nk.misspelt = c.holdsMisspelt(s)
	for i := range nk.others {
		nk.others[i] = -1
	}
	if nk.mayOther {
		d := c.d
		for k, end := d.Children(s); k < end; k = d.Next(k + 1) {
			name := d.Raw(k)
			name = name[1 : len(name)-1]
			if d.Nodes[k].Escaped {
				name = []byte(d.Str(k))
			}
			if i := unenforcedAt(name); i >= 0 {
				nk.others[i] = int32(k + 1)
			}
		}
	}
	if s < len(c.keysAt) {
		c.keysAt[s] = nk
	}
	return nk
}

// keywordTypes returns the types of value that the keywords of ks other
// than type constrain, beside the $ref and allOf a view holds apart: an
// object's keywords constrain objects only, minLength strings only, and
// so on; enum, const, not, anyOf and oneOf constrain every value.
func keywordTypes(ks *schema.Keys) typeSet {
	var set typeSet
	for _, k := range [...]struct {
		types typeSet
		nodes []int
	}{
		{tAll, []int{ks.Enum, ks.Const, ks.Not, ks.AnyOf, ks.OneOf}},
		{tObj, []int{ks.Properties, ks.Required, ks.AdditionalProperties, ks.PatternProperties, ks.MinProperties,
			ks.MaxProperties, ks.PropertyNames, ks.DependentRequired}},
		{tArr, []int{ks.Items, ks.PrefixItems, ks.MinItems, ks.MaxItems, ks.UniqueItems, ks.Contains}},
		{tStr, []int{ks.MinLength, ks.MaxLength, ks.Pattern, ks.Format}},
		{tNum, []int{ks.Minimum, ks.Maximum, ks.ExclusiveMinimum, ks.ExclusiveMaximum, ks.Mult}},
	} {
		for _, n := range k.nodes {
			if n >= 0 {
				set |= k.types
				break
			}
		}
	}
	return set
}

// addTo adds schema s, at path, to view w, whose path is the first
// schema's.
func (c *compiler) addTo(w *view, s int, path string) {
	if w.path == "" {
		w.path = path
	}
	switch {
	case w.root == rootNone:
		w.root = s
	case w.root != s:
		w.root = rootSeveral
	}
	c.expand(w, s, path, nil)
}

// The roots of a view made by addTo: none yet, or several schemas.
const (
	rootNone    = -1
	rootSeveral = -2
)

// evalRoot is the schema of v whose unevaluatedItems and
// unevaluatedProperties the grammar applies: the view's root, or, where the
// root only refers to another schema (a $ref beside keywords that evaluate
// nothing: no properties, items or applicators of its own), that schema,
// and so on; -1 when the view has no root. Every schema of the view is in
// the subtree of the one returned, or evaluates nothing, so the members
// and elements the view's schemas evaluate are those it sees (decision
// 303).
func (c *compiler) evalRoot(v *view) int {
	r := v.root
	for range len(v.nodes) + 1 {
		if r < 0 {
			return -1
		}
		nk := c.keysOf(r)
		ks := &nk.ks
		if ks.Ref < 0 || evaluatesBeside(ks) {
			return r
		}
		n := vnode{node: r, ks: ks, keys: nk, other: nk.other, mayOther: nk.mayOther}
		for _, kw := range [...]otherKeyword{kwUnevaluatedItems, kwUnevaluatedProperties, kwIf, kwThen, kwElse,
			kwDependentSchemas, kwDependencies, kwDynamicRef, kwRecursiveRef} {
			if c.otherKey(&n, kw) >= 0 {
				return r
			}
		}
		target := c.resolveRef(r, ks.Ref)
		if target < 0 || !v.has(target) {
			return r
		}
		r = target
	}
	return r
}

// evaluatesBeside reports whether ks holds a keyword that evaluates
// members or elements, or an applicator that may hold one.
func evaluatesBeside(ks *schema.Keys) bool {
	for _, n := range [...]int{ks.Properties, ks.PatternProperties, ks.AdditionalProperties, ks.PrefixItems,
		ks.Items, ks.Contains, ks.AllOf, ks.AnyOf, ks.OneOf} {
		if n >= 0 {
			return true
		}
	}
	return false
}

// key identifies v for the memo: its schemas and what was distributed,
// appended to buf. Schemas the others imply are left out, v being the
// same view without them: those whose only keyword that constrains a value
// of the view's types is type, when the other schemas' types alone allow
// the same types. So a schema that refers to its root beside a type the
// root has too ({"$ref": "#", "type": "object", "items": ...}, one per
// property of a real-world schema of 300 properties) is the root's rule,
// a recursion, not a new copy of the root nested in the last one.
func (v *view) key(d *pyjson.Doc, buf []byte, ctx textContext, xml bool) []byte {
	if v.never {
		return append(buf, "never"...)
	}
	// types are the types the view allows (by type alone), kept those the
	// schemas that can't be left out allow; implied: a schema constrains
	// the view's types by its type alone. One schema is never left out.
	types, kept, implied := tAll, tAll, false
	if len(v.nodes) > 1 {
		for _, n := range v.nodes {
			if n.keys != nil && n.keys.typed {
				t, _ := n.keys.typeFacts(d, n.done)
				types &= t
			}
		}
		for _, n := range v.nodes {
			if n.keys == nil || !n.keys.typed {
				continue
			}
			if t, kw := n.keys.typeFacts(d, n.done); kw&types == 0 {
				implied = true
			} else {
				kept &= t
			}
		}
	}
	leaveOut := implied && kept == types
	var idBuf [8]int
	ids := idBuf[:0]
	for _, n := range v.nodes {
		if leaveOut && n.keys != nil && n.keys.typed {
			if _, kw := n.keys.typeFacts(d, n.done); kw&types == 0 {
				continue
			}
		}
		if constrains(n.ks, n.done) || n.other {
			ids = append(ids, n.node<<3|int(n.done))
		}
	}
	slices.Sort(ids)
	b := append(buf, byte('0'+ctx))
	if xml {
		b = append(b, 'x')
	}
	for _, id := range ids {
		b = strconv.AppendInt(append(b, ','), int64(id), 10)
	}
	for _, name := range v.absent {
		b = strconv.AppendQuote(append(b, '!'), name)
	}
	if v.objectsOnly {
		b = append(b, "!o"...)
	}
	for _, name := range v.present {
		b = strconv.AppendQuote(append(b, '+'), name)
	}
	for _, x := range v.excluded {
		b = strconv.AppendQuote(append(b, '^'), x.name)
		for _, m := range x.values {
			b = strconv.AppendInt(append(b, ','), int64(m), 10)
		}
		if x.types != 0 {
			b = strconv.AppendInt(append(b, ':'), int64(x.types), 10)
		}
		if x.emptyArray {
			b = append(b, "[]"...)
		}
	}
	return b
}

// An exclusion is values (literal nodes) member name of an object may not
// hold ("": the value itself may not be one of them), where a
// discriminator's conditions at path list them (ifCases), and types it
// may not have (a case of a oneOf variant whose objects fail another
// variant by a member's type: typedVariantCases), or the empty array
// (emptyArray).
type exclusion struct {
	name   string
	values []int
	path   string
	types  typeSet
	// emptyArray: the empty array, which two variants of a oneOf admit
	// (decision 291).
	emptyArray bool
}

// excludedValues is the values v itself may not take, and the path of
// the first condition that lists one ("": none).
func (v *view) excludedValues() (values []int, path string) {
	for _, x := range v.excluded {
		if x.name == "" {
			values = append(values, x.values...)
			if path == "" {
				path = x.path
			}
		}
	}
	return values, path
}

// with returns the view of variant s (at path) of node i's combinator
// done, together with the schemas of v that constrain the value otherwise
// (a schema that only held the combinator, or only led to others through
// $ref or allOf, adds nothing). A variant that refers back to node i, or
// to a schema of v that led to node i, is a schema that contains itself.
// One that refers to another schema of v (the variant of another anyOf
// of the same value, say) meets it twice, which is no cycle: both anyOf
// of {"allOf": [{"anyOf": [{"$ref": "#/$defs/a"}, ...]}, {"anyOf":
// [{"$ref": "#/$defs/a"}, ...]}]} may lead to a.
func (c *compiler) with(v *view, i int, done uint8, s int, path string) *view {
	w := &view{path: path, root: v.root, absent: v.absent, objectsOnly: v.objectsOnly, present: v.present, excluded: v.excluded}
	// The copy is work too: an allOf of 3,000 anyOfs copied its view
	// at every variant, 80 MB before the depth cap (gap decision 218).
	if !c.spend(path, 256*len(v.nodes)) {
		return w // (not compiled: the compile fails)
	}
	for j, n := range v.nodes {
		if j == i {
			n.done |= done
		}
		if constrains(n.ks, n.done) || n.other {
			w.add(n)
		}
	}
	w.copyLinks(v)
	c.chain = v.ancestors(c.chain[:0], v.nodes[i].node)
	c.expand(w, s, path, c.chain)
	return w
}

// ancestors appends to chain schema node of v and the schemas that led to
// it, the farthest first: a stack for expand.
func (v *view) ancestors(chain []int, node int) []int {
	chain = append(chain, node)
	for len(chain) <= len(v.led) {
		k := slices.IndexFunc(v.led, func(l link) bool { return int(l.node) == node })
		if k < 0 || v.led[k].parent < 0 {
			break
		}
		node = int(v.led[k].parent)
		chain = append(chain, node)
	}
	slices.Reverse(chain)
	return chain
}

// constrains reports whether a schema with keywords ks, its combinators
// done as marked, constrains a value by itself (beside the schemas its
// $ref and allOf lead to, which a view holds apart).
func constrains(ks *schema.Keys, done uint8) bool {
	if ks.AnyOf >= 0 && done&doneAnyOf == 0 || ks.OneOf >= 0 && done&doneOneOf == 0 {
		return true
	}
	for _, n := range [...]int{ks.Type, ks.Enum, ks.Const, ks.Not, ks.Properties, ks.Required, ks.AdditionalProperties,
		ks.PatternProperties, ks.MinProperties, ks.MaxProperties, ks.PropertyNames, ks.DependentRequired,
		ks.Items, ks.PrefixItems, ks.MinItems, ks.MaxItems, ks.UniqueItems, ks.Contains,
		ks.MinLength, ks.MaxLength, ks.Pattern, ks.Format, ks.Minimum, ks.Maximum,
		ks.ExclusiveMinimum, ks.ExclusiveMaximum, ks.Mult} {
		if n >= 0 {
			return true
		}
	}
	return false
}

// value returns the expression of a value valid for view v: in ctx as JSON,
// or with xml as an argument value (a string raw, another value JSON).
func (c *compiler) value(v *view, ctx textContext, xml bool) *expr {
	var buf [64]byte
	kb := v.key(c.d, buf[:0], ctx, xml)
	for i := range v.nodes {
		// Which schema's unevaluatedItems and unevaluatedProperties the
		// view applies depends on its root, which the key does not hold
		// otherwise (decision 303).
		if n := &v.nodes[i]; c.otherKey(n, kwUnevaluatedItems) >= 0 || c.otherKey(n, kwUnevaluatedProperties) >= 0 {
			kb = strconv.AppendInt(append(kb, '@'), int64(c.evalRoot(v)), 10)
			break
		}
	}
	if xml && c.casting {
		kb = append(kb, '~', byte(c.argCast.allowed()), byte(c.argCast.kinds))
	}
	if r, ok := c.memo[string(kb)]; ok {
		return r
	}
	key := string(kb)
	if c.stop(v.path) || c.check(v.path) != nil {
		return nothing()
	}
	if c.depth > 0 && !xml && !c.strict && c.g.expanded > loosenFrom {
		// Compile's last retry would write it as any JSON.
		c.loosenable = true
	}
	if c.loosenPast > 0 && c.depth > 0 && !xml && !c.strict && c.g.expanded > c.loosenPast {
		// Past the budget of Compile's last retry (gap decision 236).
		c.report(v.path, "*")
		loose := c.anyJSON(ctx)
		c.memo[key] = loose
		return loose
	}
	r := c.g.declare(c.nameFor(v.path))
	self := ref(r)
	c.memo[key] = self
	c.setPath(r, v.path)
	c.depth++
	outer := c.cur
	c.cur = r
	body := c.viewBody(v, ctx, xml)
	c.cur = outer
	c.depth--
	c.g.define(r, body)
	if body != nil && body.kind == kRef && (body.proto != nil || body.rule != r) {
		// An alias: callers refer to its target, so that alternatives
		// that alias one rule are merged as one.
		c.memo[key] = body
		return body
	}
	return self
}

// The types of JSON values, as a set.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBool
	tInt  // integers
	tFrac // numbers that are not integers
	tStr
	tArr
	tObj

	tAll typeSet = 1<<iota - 1
	tNum         = tInt | tFrac
)

// typesOf is the set of types the type keyword at node t admits.
func typesOf(d *pyjson.Doc, t int) typeSet {
	var set typeSet
	schema.Types(d, t, func(ty schema.Type) bool {
		switch ty {
		case schema.TypeNull:
			set |= tNull
		case schema.TypeBoolean:
			set |= tBool
		case schema.TypeInteger:
			set |= tInt
		case schema.TypeNumber:
			set |= tNum
		case schema.TypeString:
			set |= tStr
		case schema.TypeArray:
			set |= tArr
		case schema.TypeObject:
			set |= tObj
		default:
			set = tAll
		}
		return true
	})
	return set
}

// types is the set of types every schema of v admits.
func (c *compiler) types(v *view) typeSet {
	set := tAll
	if v.objectsOnly {
		set = tObj
	}
	for _, x := range v.excluded {
		if x.name == "" {
			set &^= x.types // (a case of typedVariantCases)
		}
	}
	for _, n := range v.nodes {
		if n.ks.Type >= 0 {
			set &= typesOf(c.d, n.ks.Type)
		}
		if n.ks.Not >= 0 {
			if excluded, exact := notTypes(c.d, n.node); exact {
				set &^= excluded
			} else if c.strict {
				if _, stringsOnly, ok := c.notString(n.node); ok && stringsOnly {
					set &= tStr // the not of a pattern: what is not a string matches it
				} else if _, objectsOnly, ok := c.notRequired(n.node); ok && objectsOnly {
					set &= tObj // the not of required: what is not an object matches it
				}
			}
		}
	}
	return set
}

// uniqueVacuous reports whether uniqueItems can't fail on the values of
// v: v admits no array, or no array of two elements (maxItems 0 or 1, or
// items false after at most one prefixItems).
func (c *compiler) uniqueVacuous(v *view) bool {
	if c.types(v)&tArr == 0 {
		return true
	}
	d := c.d
	for _, n := range v.nodes {
		ks := n.ks
		if ks.MaxItems >= 0 && d.Kind(ks.MaxItems) == pyjson.Number && isIntegral(string(d.Raw(ks.MaxItems))) {
			if f, err := strconv.ParseFloat(string(d.Raw(ks.MaxItems)), 64); err == nil && f >= 0 && f <= 1 {
				return true
			}
		}
		if ks.Items >= 0 && d.Kind(ks.Items) == pyjson.False {
			if ks.PrefixItems < 0 || d.Kind(ks.PrefixItems) != pyjson.Array || d.Nodes[ks.PrefixItems].Len <= 1 {
				return true
			}
		}
	}
	return false
}

// viewBody is the expression of view v, before it becomes a rule.
func (c *compiler) viewBody(v *view, ctx textContext, xml bool) *expr {
	if v.never {
		return nil
	}
	if e, ok := c.checkedLiterals(v, ctx, xml); ok {
		return e // listed values, each checked against the view (decision 207)
	}
	// The view's uniqueItems, pending until its arrays are written: what
	// they do not enforce is reported when the view is done.
	from := len(c.uniquePending)
	defer func(outer int) {
		for _, p := range c.uniquePending[from:] {
			c.drop(p, "uniqueItems")
		}
		c.uniquePending, c.uniqueFrom = c.uniquePending[:from], outer
	}(c.uniqueFrom)
	c.uniqueFrom = from
	d := c.d
	c.rootOf = -1
	if c.unevaluatedClosed(v) {
		c.rootOf = c.evalRoot(v)
	}
	c.itemsRoot, c.propsRoot = -1, -1
	c.multipleDone = false
	if set := c.types(v); set&tNum == 0 {
		c.multipleDone = true // no number: nothing it constrains
	} else if _, ok := c.multipleOf(v, set&tFrac == 0); ok {
		c.multipleDone = true
	} else if _, ok := c.decimalPlaces(v); ok {
		c.multipleDone = true // decimal multiples (viewNumber, decision 220)
	} else if set&tFrac != 0 && c.decimalMultipleDone(v) {
		c.multipleDone = true // by rules or the automaton, or reported there (viewNumber)
	}
	c.uniqueDone = c.uniqueVacuous(v)
	if _, ok := c.unevaluatedItemsOf(v); ok {
		c.itemsRoot = c.evalRoot(v)
	}
	// Under strict, a not that rules out strings by their text is the
	// view's strings' (viewString), unless enum or const lists the values.
	c.notNodes = append(c.notNodes[:0], v.notsMet...)
	v.notStrings, v.notRequired, v.notCut = nil, nil, nil // kept on the view: what is compiled before its strings and objects makes its own
	if c.strict && !c.has(v, func(ks *schema.Keys) bool { return ks.Enum >= 0 || ks.Const >= 0 }) {
		choices := [][]string{nil} // v.notRequired's (leastChoices)
		notNames := 0              // the names of v.notRequired's sets
		for _, n := range v.nodes {
			if n.ks.Not < 0 {
				continue
			}
			if _, exact := notTypes(d, n.node); !exact {
				// At most maxStringShapes nots of strings together, as
				// patterns (decision 218): the others are reported.
				if _, _, ok := c.notString(n.node); ok && len(v.notStrings) < maxStringShapes {
					c.notNodes = append(c.notNodes, n.node)
					v.notStrings = append(v.notStrings, n.node)
				} else if sets, _, ok := c.notRequired(n.node); ok {
					// The view's nots together, while their choices of
					// names to leave out are few enough, and their names
					// few enough to choose from (the choices' work grows
					// with them: 4,000 nots took minutes; decision 316).
					if notNames += setsNames(sets); notNames > maxNotRequiredNames {
						c.loosen(n.path+".not", "not", "the nots of required of one object may name at most "+itoa(maxNotRequiredNames)+" names together, as the grammar writes a case for each choice of names to leave out")
						continue
					}
					if more, fits := moreChoices(choices, sets, maxExclusiveCases); fits {
						c.notNodes = append(c.notNodes, n.node)
						v.notRequired = append(slices.Clip(v.notRequired), sets...)
						choices = more
					} else {
						notNames -= setsNames(sets)
					}
				}
			}
		}
	}
	c.collectNotNumbers(v)
	if noop, u := c.unevaluatedPropertiesOf(v); noop || u >= 0 {
		c.propsRoot = c.evalRoot(v)
	}
	if e, ok := c.ifCases(v, ctx, xml); ok {
		return e // a discriminator's conditions, a case each (decision 206)
	}
	c.uniqueDefer = true
	for _, n := range v.nodes {
		c.dropUnenforced(n.node, n.ks, n.path, n.keys, n.done)
	}
	c.uniqueDefer = false
	// anyOf and oneOf: the value is valid for one of the variants, each
	// together with the rest of the view.
	for i, n := range v.nodes {
		for _, kw := range [...]struct {
			node int
			done uint8
			name string
		}{{n.ks.AnyOf, doneAnyOf, "anyOf"}, {n.ks.OneOf, doneOneOf, "oneOf"}} {
			if kw.node < 0 || n.done&kw.done != 0 {
				continue
			}
			if d.Kind(kw.node) != pyjson.Array {
				c.drop(n.path+"."+kw.name, kw.name)
				w := &view{nodes: slices.Clone(v.nodes), path: v.path, root: v.root, absent: v.absent, objectsOnly: v.objectsOnly, present: v.present, excluded: v.excluded}
				w.copyLinks(v)
				w.nodes[i].done |= kw.done
				return c.value(w, ctx, xml)
			}
			var alts []*expr
			var sets []typeSet
			var variants []*view
			var excl [][][]string
			var exclNot [][]exclusiveCase
			if kw.name == "oneOf" {
				excl = c.exclusiveVariants(v, kw.node)
				if excl == nil {
					exclNot = c.exclusiveNotCases(v, kw.node)
				}
				if excl == nil && exclNot == nil {
					if text, ok := c.stringVariants(v, i, kw.node, n.path+".oneOf", ctx, xml); ok {
						return text
					}
					if text, ok := c.literalVariants(v, i, kw.node, n.path+".oneOf", ctx, xml); ok {
						return text // lists that share values (decision 312)
					}
				}
			}
			var ws []*view
			d.Elements(kw.node, func(e, pos int) bool {
				ws = append(ws, c.with(v, i, kw.done, e, n.path+"."+kw.name+"["+strconv.Itoa(pos)+"]"))
				return c.err == nil
			})
			if kw.name == "oneOf" && excl == nil && exclNot == nil && c.err == nil {
				exclNot = c.closedVariantCases(v, ws) // variants closed to names of their own (decision 231)
				if exclNot == nil {
					exclNot = c.typedVariantCases(v, ws) // variants told apart by names and types (decisions 234 and 311)
				}
			}
			if exclNot != nil && c.err == nil {
				// Each variant's objects that fail every other variant:
				// a case for each choice of names present and absent.
				for pos, w := range ws {
					var cases []*expr
					for _, ec := range exclNot[pos] {
						wc := objectCase(w, ec.present, ec.absent)
						if len(ec.cuts) > 0 {
							wc.excluded = append(slices.Clip(wc.excluded), ec.cuts...)
						}
						for _, n := range w.nodes {
							if n.ks.Not >= 0 && !v.has(n.node) {
								wc.notsMet = append(wc.notsMet, n.node) // the variant's: each case lacks a name of each
							}
						}
						cases = append(cases, c.value(wc, ctx, xml))
						if c.err != nil {
							break
						}
					}
					alts = append(alts, alt(cases...))
				}
				return alt(alts...)
			}
			if kw.name == "oneOf" && excl == nil && c.err == nil && c.types(v)&^tObj != 0 && c.objectsAlone(v, ws) {
				// Any value but an object is valid for two variants at
				// least, so for no variant alone: the variants are
				// written as objects only.
				for _, w := range ws {
					w.objectsOnly = true
				}
			}
			if kw.name == "oneOf" && excl == nil && c.err == nil {
				// A value two variants admit, the empty array (decision
				// 291) or one of a type both admit whole (289), is valid
				// for no variant alone.
				c.excludeSharedEmptyArray(v, ws)
				if drop := c.sharedWholeTypes(v, ws); drop != 0 {
					left := false
					for _, w := range ws {
						w.excluded = append(slices.Clip(w.excluded), exclusion{types: drop})
						left = left || c.types(w) != 0 && !w.never
					}
					if !left {
						c.impossible(n.path+".oneOf", "no value satisfies exactly one of its variants: each type a variant admits, another admits whole; remove it or relax it")
						return nil
					}
				}
			}
			if kw.name == "oneOf" && excl == nil && c.err == nil {
				if name, absent, ok := c.discriminatorCases(v, kw.node, ws); ok {
					// Each variant's objects with the discriminator, and
					// those without it that only its names tell apart.
					for pos, w := range ws {
						cases := []*expr{c.value(objectCase(w, []string{name}, nil), ctx, xml)}
						for _, names := range absent[pos] {
							cases = append(cases, c.value(objectCase(w, nil, append([]string{name}, names...)), ctx, xml))
						}
						if c.err != nil {
							break
						}
						alts = append(alts, alt(cases...))
					}
					return alt(alts...)
				}
			}
			typeWork := 0 // variantTypes', for this oneOf
			for pos, w := range ws {
				if c.err != nil {
					break
				}
				if excl == nil {
					alts = append(alts, c.value(w, ctx, xml))
					sets = append(sets, c.variantTypes(w, &typeWork))
					variants = append(variants, w)
					continue
				}
				// An object that holds this variant's names and lacks one
				// of each other variant's: a case for each choice.
				var cases []*expr
				for _, absent := range excl[pos] {
					cases = append(cases, c.value(objectCase(w, nil, absent), ctx, xml))
					if c.err != nil {
						break
					}
				}
				alts = append(alts, alt(cases...))
			}
			if kw.name == "oneOf" && excl == nil && c.err == nil {
				if which := c.overlappingVariants(sets, variants); which != "" {
					c.loosen(n.path+".oneOf", "oneOf", "its variants admit values of one type ("+which+"), and the grammar can't tell that a value matches only one of them")
				}
			}
			return alt(alts...)
		}
	}
	set := c.types(v)
	// castKinds: the types the parser reads a raw string's text as that
	// this view constrains (decision 306).
	var castKinds typeSet
	if xml && c.casting {
		// What the parser reads back (decision 209): a type it would
		// read as another is not written, and a string that it would
		// read as a constrained value of another type is left out of the
		// strings (viewString) or reported.
		set &= c.argCast.allowed()
		if set&tStr != 0 {
			castKinds = c.constrainedKinds(v, set&c.argCast.kinds)
		}
	}
	excluded, _ := v.excludedValues()
	if slices.ContainsFunc(excluded, func(m int) bool { return d.Kind(m) == pyjson.Null }) {
		set &^= tNull
	}
	if lits, ok := c.viewLiterals(v, set, ctx, xml); ok {
		return lits
	}
	if xml && set == tAll && !c.constrainsStrings(v) && castKinds == 0 {
		// An untyped argument that constrains nothing is raw text: the
		// parser reads it as the value it spells, valid whatever it is.
		// One that constrains strings ({"maxLength": 2}) or values of
		// another type ({"required": ["a"]}) is each type, its strings
		// without the texts read as a constrained one (decision 306).
		return c.viewString(v, inArgument, true)
	}
	if _, u := c.unevaluatedPropertiesOf(v); set == tAll && len(excluded) == 0 && !c.has(v, constrainsType) && len(v.notStrings) == 0 && len(v.notRequired) == 0 && !c.unevaluatedClosed(v) && !c.hasDependentSchemas(v) && (c.itemsRoot < 0 || c.itemsRoot != c.evalRoot(v)) && u < 0 &&
		!c.has(v, func(ks *schema.Keys) bool { return ks.Mult >= 0 }) {
		return c.anyJSON(ctx)
	}
	var altBuf [7]*expr
	alts := altBuf[:0]
	if set&tNull != 0 {
		alts = append(alts, lit("null"))
	}
	if set&tBool != 0 {
		for _, b := range [...]struct {
			text string
			kind pyjson.Kind
		}{{"true", pyjson.True}, {"false", pyjson.False}} {
			if !slices.ContainsFunc(excluded, func(m int) bool { return d.Kind(m) == b.kind }) {
				alts = append(alts, lit(b.text))
			}
		}
	}
	if set&tNum != 0 {
		alts = append(alts, c.viewNumber(v, set&tFrac == 0))
	}
	if set&tStr != 0 {
		if xml && c.casting {
			// A raw text the parser would read as a value of a type
			// this view has none of is not written (decision 306).
			if c.rawMisread = c.argCast.kinds &^ set; c.rawMisread != 0 {
				c.rawMisread &^= c.argWholeTypes()
			}
			c.rawMisread |= castKinds
		}
		alts = append(alts, c.viewString(v, ctx, xml))
		c.rawMisread = 0
	}
	if set&tArr != 0 {
		alts = append(alts, c.viewArray(v, ctx))
	}
	if set&tObj != 0 {
		alts = append(alts, c.viewObject(v, ctx, xml))
	}
	return alt(alts...)
}

// objectCase is the view of w's objects that hold present and lack
// absent besides the names w's own present and absent say: a case of a
// oneOf variant (exclusiveVariants, exclusiveNotCases, discriminatorCases),
// written as objects only.
func objectCase(w *view, present, absent []string) *view {
	wc := &view{nodes: slices.Clone(w.nodes), path: w.path, root: w.root, objectsOnly: true,
		absent: append(slices.Clip(w.absent), absent...), present: append(slices.Clip(w.present), present...), excluded: w.excluded}
	wc.copyLinks(w)
	return wc
}

// objectsAlone reports whether two of the variants ws of a oneOf of v at
// least constrain objects alone (objectKeywordsOnly): then a value of
// another type valid for v is valid for both, so for no variant alone,
// and the oneOf holds objects only. {"oneOf": [{"properties": {"kind":
// {"const": "a"}}, "required": ["kind"]}, {"properties": {"kind":
// {"const": "b"}}, "required": ["kind"]}]} is a string for neither.
func (c *compiler) objectsAlone(v *view, ws []*view) bool {
	count := 0
	for _, w := range ws {
		if c.objectKeywordsOnly(v, w) {
			if count++; count == 2 {
				return true
			}
		}
	}
	return false
}

// objectKeywordsOnly reports whether view w, a variant of a combinator of
// v, admits every value but an object that v admits: each of its schemas
// that v does not hold has no type and only keywords that constrain
// objects (properties, required, dependentSchemas, ...), besides
// annotations and the combinators already distributed.
func (c *compiler) objectKeywordsOnly(v, w *view) bool {
	if w.never {
		return false
	}
	for i := range w.nodes {
		n := &w.nodes[i]
		if v.has(n.node) {
			continue // v's own: every value of the oneOf satisfies it
		}
		ks := n.pendingKeys()
		if ks.Type >= 0 || (keywordTypes(&ks)|c.otherTypes(n))&^tObj != 0 {
			return false
		}
	}
	return true
}

// pendingKeys is n's keywords without the combinators already
// distributed (the variant in effect is a view of its own).
func (n *vnode) pendingKeys() schema.Keys {
	ks := *n.ks
	if n.done&doneAnyOf != 0 {
		ks.AnyOf = -1
	}
	if n.done&doneOneOf != 0 {
		ks.OneOf = -1
	}
	return ks
}

// otherTypes is the types of value that n's keywords of unenforced
// constrain: objects for dependentSchemas, unevaluatedProperties and
// dependencies, every type for the others.
func (c *compiler) otherTypes(n *vnode) typeSet {
	var set typeSet
	for kw := range unenforced {
		if c.otherKey(n, otherKeyword(kw)) < 0 {
			continue
		}
		switch otherKeyword(kw) {
		case kwDependentSchemas, kwUnevaluatedProperties, kwDependencies:
			set |= tObj
		default:
			return tAll
		}
	}
	return set
}

// overlap reports whether two of the type sets share a type.
func overlap(sets []typeSet) bool {
	return sharedType(sets) != 0
}

// exclusiveVariants returns, for a oneOf (node oneOf) of v whose variants
// each only require names ({"oneOf": [{"required": ["radius"]},
// {"required": ["length", "width"]}]}), the cases of each variant: an
// object is valid for variant i alone when it holds i's names and, for
// every other variant j, lacks one of j's names that i does not require.
// Each case is a least choice of such names to leave out (a minimal
// hitting set of those differences), written with them absent
// (view.absent) and as an object (view.objectsOnly: any other value is
// valid for every variant, so for none alone). A variant whose names
// include another's has no case. So the oneOf is exact. nil when the
// variants are not of that form, when the cases would be more than
// maxExclusiveCases, when v's objects are an enum's (which absent names do
// not filter), or beside dependentRequired, dependentSchemas or
// dependencies (which may require an absent name back). Annotations beside
// required are allowed.
func (c *compiler) exclusiveVariants(v *view, oneOf int) [][][]string {
	d := c.d
	if d.Kind(oneOf) != pyjson.Array || d.Nodes[oneOf].Len < 2 || d.Nodes[oneOf].Len > maxDiscriminated ||
		c.has(v, func(ks *schema.Keys) bool { return ks.Enum >= 0 || ks.Const >= 0 }) ||
		c.hasDependencies(v) || c.hasDependentSchemas(v) {
		// (dependencies may require an absent name back: not followed)
		return nil
	}
	var reqs [][]string
	ok := true
	d.Elements(oneOf, func(e, _ int) bool {
		var names []string
		found := false
		ok = d.Kind(e) == pyjson.Object && d.DuplicateKey(e) < 0
		if ok {
			d.Members(e, func(k, val int) bool {
				switch d.Str(k) {
				case "required":
					found = d.Kind(val) == pyjson.Array
					if found {
						d.Elements(val, func(r, _ int) bool {
							if ok = d.Kind(r) == pyjson.String; ok && !slices.Contains(names, d.Str(r)) {
								names = append(names, d.Str(r))
								ok = len(names) <= maxExclusiveNames
							}
							return ok
						})
					}
					return ok && found
				case "description", "title", "$comment", "examples", "default":
					return true
				}
				ok = false
				return false
			})
		}
		ok = ok && found
		reqs = append(reqs, names)
		return ok
	})
	if !ok {
		return nil
	}
	cases := make([][][]string, len(reqs))
	total := 0
	for i, own := range reqs {
		var diffs [][]string // each other variant's names i does not require
		for j, other := range reqs {
			if j == i {
				continue
			}
			var diff []string
			for _, name := range other {
				if !slices.Contains(own, name) {
					diff = append(diff, name)
				}
			}
			diffs = append(diffs, diff) // empty: an object valid for i is for j too
		}
		choices, ok := leastChoices(diffs, maxExclusiveCases-total)
		if !ok {
			return nil
		}
		cases[i] = choices
		total += len(choices)
	}
	return cases
}

// An exclusiveCase is names an object holds and names it lacks, so that
// it is valid for one variant of a oneOf alone (exclusiveNotCases), and
// the types members it holds may not have (typedVariantCases).
type exclusiveCase struct {
	present, absent []string
	cuts            []exclusion
	// byKind: the case fails another variant by the kind of a member's
	// value (typedVariantCases, gap decision 311), which a tool's
	// arguments, read back by their declared schemas, don't follow.
	byKind bool
}

// exclusiveNotCases is exclusiveVariants for variants that also forbid
// names together by a not of required, directly or in an allOf (gap
// decision 216): {"oneOf": [{"required": ["length", "width"], "not":
// {"required": ["radius"]}}, {"required": ["radius"], "not": {"required":
// ["length", "width"]}}]}, a function-calling shape. Variant i holds
// names R_i and lacks a name of each of its sets N_i; an object fails
// variant j when it lacks one of R_j or holds every name of one of N_j.
// The cases of variant i are the least choices of names present and
// absent (R_i present) that meet every one of those conditions for i
// and fail every other variant, each written as an object: a value of
// another type meets every required and fails every not of required, so
// it is valid for the variants without a not, and with none of them or
// two, for no variant alone. nil when the variants are not of that form,
// when none has a not (that is exclusiveVariants) or one alone has none,
// beside what exclusiveVariants refuses, or past maxExclusiveCases
// cases.
func (c *compiler) exclusiveNotCases(v *view, oneOf int) [][]exclusiveCase {
	d := c.d
	if d.Kind(oneOf) != pyjson.Array || d.Nodes[oneOf].Len < 2 || d.Nodes[oneOf].Len > maxDiscriminated ||
		c.has(v, func(ks *schema.Keys) bool { return ks.Enum >= 0 || ks.Const >= 0 }) ||
		c.hasDependencies(v) || c.hasDependentSchemas(v) {
		return nil
	}
	type variant struct {
		required []string
		nots     [][]string
	}
	var read func(e, depth int, into *variant) bool
	read = func(e, depth int, into *variant) bool {
		if depth > 4 || d.Kind(e) != pyjson.Object || d.DuplicateKey(e) >= 0 {
			return false
		}
		ok := true
		names := func(list int) (out []string) {
			if d.Kind(list) != pyjson.Array {
				ok = false
				return nil
			}
			d.Elements(list, func(r, _ int) bool {
				if ok = d.Kind(r) == pyjson.String; ok && !slices.Contains(out, d.Str(r)) {
					out = append(out, d.Str(r))
					ok = len(out) <= maxExclusiveNames
				}
				return ok
			})
			return out
		}
		d.Members(e, func(k, val int) bool {
			switch d.Str(k) {
			case "required":
				for _, n := range names(val) {
					if !slices.Contains(into.required, n) {
						into.required = append(into.required, n)
					}
				}
				ok = ok && len(into.required) <= maxExclusiveNames
			case "not":
				// only {"required": [...]}, of one name at least
				ok = d.Kind(val) == pyjson.Object && d.Nodes[val].Len == 1 && d.DuplicateKey(val) < 0
				if ok {
					d.Members(val, func(k2, list int) bool {
						ok = d.Str(k2) == "required"
						if set := names(list); ok && len(set) > 0 {
							into.nots = append(into.nots, set)
						} else {
							ok = false
						}
						return false
					})
				}
			case "allOf":
				ok = d.Kind(val) == pyjson.Array
				d.Elements(val, func(m, _ int) bool {
					ok = ok && read(m, depth+1, into)
					return ok
				})
			case "description", "title", "$comment", "examples", "default":
			default:
				ok = false
			}
			return ok
		})
		return ok
	}
	var vs []variant
	nots, plain := 0, 0
	ok := true
	d.Elements(oneOf, func(e, _ int) bool {
		var x variant
		ok = read(e, 0, &x)
		vs = append(vs, x)
		nots += len(x.nots)
		if len(x.nots) == 0 {
			plain++
		}
		return ok
	})
	if !ok || nots == 0 || plain == 1 {
		// (A value that is not an object fails every not of required,
		// and meets every required: with one variant without a not, it
		// is valid for that one alone, which the cases, objects, leave
		// out. With none or two, it is valid for none alone.)
		return nil
	}
	out := make([][]exclusiveCase, len(vs))
	total := 0
	for i, own := range vs {
		// What the object must do: each condition a list of options,
		// an option a name to hold (all of them) or to lack.
		type option struct {
			hold []string
			lack string
		}
		var conds [][]option
		for _, set := range own.nots {
			var opts []option
			for _, n := range set {
				opts = append(opts, option{lack: n})
			}
			conds = append(conds, opts)
		}
		for j, other := range vs {
			if j == i {
				continue
			}
			var opts []option
			for _, n := range other.required {
				opts = append(opts, option{lack: n})
			}
			for _, set := range other.nots {
				opts = append(opts, option{hold: set})
			}
			conds = append(conds, opts)
		}
		cases := []exclusiveCase{{present: slices.Clone(own.required)}}
		for _, opts := range conds {
			var next []exclusiveCase
			for _, cs := range cases {
				met := slices.ContainsFunc(opts, func(o option) bool {
					if o.hold == nil {
						return slices.Contains(cs.absent, o.lack)
					}
					return !slices.ContainsFunc(o.hold, func(n string) bool { return !slices.Contains(cs.present, n) })
				})
				if met {
					next = append(next, cs)
					continue
				}
				for _, o := range opts {
					if o.hold == nil {
						if !slices.Contains(cs.present, o.lack) {
							next = append(next, exclusiveCase{present: cs.present, absent: append(slices.Clip(cs.absent), o.lack)})
						}
						continue
					}
					if !slices.ContainsFunc(o.hold, func(n string) bool { return slices.Contains(cs.absent, n) }) {
						held := slices.Clip(cs.present)
						for _, n := range o.hold {
							if !slices.Contains(held, n) {
								held = append(held, n)
							}
						}
						next = append(next, exclusiveCase{present: held, absent: cs.absent})
					}
				}
			}
			if len(next) > 16*maxExclusiveCases {
				return nil
			}
			cases = leastCases(next)
		}
		if total += len(cases); total > maxExclusiveCases {
			return nil
		}
		out[i] = cases
	}
	return out
}

// leastCases returns cases without those that hold and lack every name
// another case does (its objects are the other's already), or that equal
// an earlier one.
func leastCases(cases []exclusiveCase) []exclusiveCase {
	within := func(a, b []string) bool { // every name of a is in b
		return !slices.ContainsFunc(a, func(n string) bool { return !slices.Contains(b, n) })
	}
	var out []exclusiveCase
	for i, a := range cases {
		redundant := false
		for j, b := range cases {
			if i != j && within(b.present, a.present) && within(b.absent, a.absent) &&
				(!within(a.present, b.present) || !within(a.absent, b.absent) || j < i) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, a)
		}
	}
	return out
}

// discriminatorCases reads a oneOf (node oneOf) of v whose variants ws
// each declare one property, the same name in every one, whose const or
// enum values are shown apart from every other variant's, and otherwise
// only require names (annotations and "type": "object" aside; none or
// two at least without it, so that no value but an object is valid for
// one variant alone), the
// function-calling shape {"oneOf": [{"properties": {"shape": {"const":
// "circle"}}, "required": ["radius"]}, {"properties": {"shape": {"const":
// "square"}}, "required": ["side"]}]} (gap decision 215). An object that
// holds the discriminator is valid for the one variant whose values hold
// its value, when it holds that variant's names: it fails the others by
// the value. One without it is valid for variant i alone when it holds
// i's names and, for every other variant j that does not require the
// discriminator, lacks one of j's names that i does not require
// (leastChoices, as exclusiveVariants). It returns the discriminator's
// name and, for each variant, its choices of names to leave out besides
// it (none when the variant requires it). ok is false for other shapes,
// beside an enum, const, dependencies or dependentSchemas of v, when v
// itself requires the name (decision 187 tells those apart), and past
// maxExclusiveCases cases.
func (c *compiler) discriminatorCases(v *view, oneOf int, ws []*view) (name string, absent [][][]string, ok bool) {
	d := c.d
	if d.Kind(oneOf) != pyjson.Array || len(ws) < 2 || len(ws) > maxDiscriminated || len(ws) != int(d.Nodes[oneOf].Len) ||
		c.has(v, func(ks *schema.Keys) bool { return ks.Enum >= 0 || ks.Const >= 0 }) ||
		c.hasDependencies(v) || c.hasDependentSchemas(v) {
		return "", nil, false
	}
	var reqs [][]string
	ok = true
	typed := 0 // the variants of "type": "object"
	d.Elements(oneOf, func(e, _ int) bool {
		var names []string
		ok = d.Kind(e) == pyjson.Object && d.DuplicateKey(e) < 0
		declared := false
		d.Members(e, func(k, val int) bool {
			switch d.Str(k) {
			case "properties":
				ok = d.Kind(val) == pyjson.Object && d.Nodes[val].Len == 1
				d.Members(val, func(key, _ int) bool {
					if name == "" {
						name = d.Str(key)
					}
					ok = ok && d.Str(key) == name
					return false
				})
				declared = true
			case "required":
				ok = d.Kind(val) == pyjson.Array
				d.Elements(val, func(r, _ int) bool {
					if ok = ok && d.Kind(r) == pyjson.String; ok && !slices.Contains(names, d.Str(r)) {
						names = append(names, d.Str(r))
						ok = len(names) <= maxExclusiveNames
					}
					return ok
				})
			case "type":
				ok = d.Kind(val) == pyjson.String && d.Str(val) == "object"
				typed++
			case "description", "title", "$comment", "examples", "default":
			default:
				ok = false
			}
			return ok
		})
		ok = ok && declared
		reqs = append(reqs, names)
		return ok
	})
	if !ok || typed == len(ws)-1 || c.requiresName(v, name) {
		// (One variant without a type admits the values of other types
		// alone: they are valid for it, which its cases, objects, leave
		// out. With two or more, such values are valid for two.)
		return "", nil, false
	}
	// The values apart, pair by pair.
	values := make([][]int, len(ws))
	for i, w := range ws {
		if values[i], ok = c.literalSet(c.memberValue(w, name)); !ok {
			return "", nil, false
		}
	}
	checks := 0
	for i := range values {
		for j := i + 1; j < len(values); j++ {
			if checks += len(values[i]) * len(values[j]); checks > maxLiteralPairs || c.anyMayEqual(values[i], values[j]) {
				return "", nil, false
			}
		}
	}
	absent = make([][][]string, len(reqs))
	total := len(reqs) // one case with the discriminator a variant
	for i, own := range reqs {
		if slices.Contains(own, name) {
			continue // never without it
		}
		var diffs [][]string
		for j, other := range reqs {
			if j == i || slices.Contains(other, name) {
				continue // (j's objects hold the name: fails without it)
			}
			var diff []string
			for _, n := range other {
				if !slices.Contains(own, n) {
					diff = append(diff, n)
				}
			}
			diffs = append(diffs, diff)
		}
		choices, fits := leastChoices(diffs, maxExclusiveCases-total)
		if !fits {
			return "", nil, false
		}
		absent[i] = choices
		total += len(choices)
	}
	return name, absent, true
}

// maxExclusiveCases caps the objects written for one oneOf of variants
// that only require names (exclusiveVariants): each is an object rule.
const maxExclusiveCases = 16

// maxExclusiveNames caps the names one variant of such a oneOf requires
// (exclusiveVariants, exclusiveNotCases, discriminatorCases): past it the
// oneOf goes the general way, so that reading a list of 40,000 names
// costs no more than reading it (a list's names are told apart one
// against the others read).
const maxExclusiveNames = 64

// maxDiscriminated caps the variants of a oneOf whose objects
// variantsOverlap compares pair by pair, and the pairs of values it
// compares for one property.
const (
	maxDiscriminated = 32
	maxLiteralPairs  = 4096
	// maxMemberTypeWork caps the schemas read for the types of required
	// members (requiresAgainst) for one oneOf: past it, they tell
	// nothing apart, as before decision 292.
	maxMemberTypeWork = 2048
)

// variantsOverlap reports whether a value may be valid for two variants
// of a oneOf (views, each allowing the types of sets), as far as the
// grammar can tell: two variants that allow a type in common overlap,
// unless that type is object alone and their objects are told apart by a
// property (discriminated). Then a value the grammar writes for one
// variant is valid for it alone, and oneOf is exact.
func (c *compiler) variantsOverlap(sets []typeSet, views []*view) bool {
	return c.overlappingVariants(sets, views) != ""
}

// overlappingVariants is variantsOverlap's answer, said for an error: ""
// when the variants are apart, otherwise which two the grammar can't tell
// apart and the types they share ("oneOf[0] and oneOf[2] both admit
// objects"), so that whoever wrote the schema knows where to look.
func (c *compiler) overlappingVariants(sets []typeSet, views []*view) string {
	if !overlap(sets) {
		return ""
	}
	if len(sets) > maxDiscriminated {
		return "more than " + strconv.Itoa(maxDiscriminated) + " variants, two of which admit " + typeNames(sharedType(sets))
	}
	c.memberTypeWork = maxMemberTypeWork
	checks := 0                    // literalsApart's, against maxLiteralPairs
	var facts []*closedFacts       // each view's, read once (not strict)
	apart := func(i, j int) bool { // closedApart, each view's facts read once
		if c.strict {
			return false
		}
		if facts == nil {
			facts = make([]*closedFacts, len(views))
		}
		for _, k := range [...]int{i, j} {
			if facts[k] == nil {
				facts[k] = c.closedFactsOf(views[k])
			}
		}
		return c.closedApart(facts[i], facts[j])
	}
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			shared := sets[i] & sets[j]
			if shared&tNum != 0 && c.numbersApart(views[i], views[j]) {
				shared &^= tNum // their ranges meet nowhere (decision 289)
			}
			if shared&tArr != 0 && c.arraysApart(views[i], views[j]) {
				shared &^= tArr // their elements' types apart, the empty array one's at most (decision 291)
			}
			if shared == 0 || shared == tObj && (c.discriminated(views[i], views[j]) || apart(i, j)) ||
				c.literalsApart(views[i], views[j], &checks) || c.literalsApart(views[j], views[i], &checks) {
				continue
			}
			return "oneOf[" + strconv.Itoa(i) + "] and oneOf[" + strconv.Itoa(j) + "] both admit " + typeNames(shared)
		}
	}
	return ""
}

// sharedType is the types the first two of sets that meet share (0: no
// two meet).
func sharedType(sets []typeSet) typeSet {
	var seen typeSet
	for _, s := range sets {
		if shared := seen & s; shared != 0 {
			return shared
		}
		seen |= s
	}
	return 0
}

// typeNames names the types of set for a message ("strings or objects").
func typeNames(set typeSet) string {
	var names []string
	for _, t := range [...]struct {
		set  typeSet
		name string
	}{{tNull, "null"}, {tBool, "booleans"}, {tNum, "numbers"}, {tInt, "integers"}, {tFrac, "numbers that are not integers"}, {tStr, "strings"}, {tArr, "arrays"}, {tObj, "objects"}} {
		if set&t.set == t.set {
			names = append(names, t.name)
			set &^= t.set
		}
	}
	switch len(names) {
	case 0:
		return "values"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// literalsApart reports whether every value a allows is among its const or
// enum (literalSet) and shown invalid for b (literalOutside): then no value
// is valid for both ({"const": "a"} against {"const": "b"}, {"enum":
// ["any"]} against {"pattern": "^[0-9]+$"}). checks counts the members
// read and the comparisons made, one per member and one per pair of
// members, up to maxLiteralPairs for a oneOf (past it: false).
func (c *compiler) literalsApart(a, b *view, checks *int) bool {
	if *checks > maxLiteralPairs {
		return false
	}
	members, ok := c.literalSet(a)
	if !ok || b.never {
		return ok
	}
	set := c.types(b)
	values, listed := c.literalSet(b)
	*checks += len(members) + len(values) // reading them
	var lo, hi *bound
	bounded := false
	noEmpty := emptyExcluded(a)
	// Strings against a list of strings: those the list lacks are
	// outside it at one comparison each (decision 293).
	var listedStrings map[string]bool
	if listed {
		listedStrings = stringSet(c.d, values)
	}
	for _, m := range members {
		if listedStrings != nil && c.d.Kind(m) == pyjson.String && !listedStrings[c.d.Str(m)] {
			if *checks++; *checks > maxLiteralPairs {
				return false
			}
			continue // not among b's values
		}
		if *checks += 1 + len(values); *checks > maxLiteralPairs {
			return false
		}
		if noEmpty && isEmptyArray(c.d, m) {
			continue // not written for a (decision 291)
		}
		if !c.literalOutside(b, m, set, values, listed, &lo, &hi, &bounded) {
			return false
		}
	}
	return true
}

// literalOutside reports whether the JSON value m is shown invalid for v
// (its types set, its const or enum values when listed): of a type v does
// not allow, not among the values, a number outside its bounds (lo and hi,
// read at the first number: bounded), or a string its patterns, formats or
// lengths rule out, or any value valueValid finds invalid for a schema of
// v (decision 207). What can't be checked (a pattern the translator
// refuses, a keyword valueValid leaves undecided) counts as valid.
func (c *compiler) literalOutside(v *view, m int, set typeSet, values []int, listed bool, lo, hi **bound, bounded *bool) bool {
	d := c.d
	if !admits(d, set, m) || listed && !c.anyMayEqual([]int{m}, values) {
		return true
	}
	switch d.Kind(m) {
	case pyjson.String:
		if !c.stringIn(v, d.Str(m), false) {
			return true
		}
	case pyjson.Number:
		if _, rounded, huge := parseBound(string(d.Raw(m)), true); !rounded && !huge {
			if !*bounded {
				*lo, *hi = c.viewBounds(v)
				*bounded = true
			}
			if !within(string(d.Raw(m)), *lo, *hi) {
				return true
			}
		}
	}
	return c.shownInvalid(v, m)
}

// shownInvalid reports whether the JSON value m is invalid for a schema of
// v as v writes it (its distributed combinators left out: a oneOf variant's
// view holds the oneOf's schema, whose values the variant's grammar does
// not check against the other variants), or holds a name v's objects are
// written without, as valueValid decides it (decision 207): an undecided
// check shows nothing.
func (c *compiler) shownInvalid(v *view, m int) bool {
	d := c.d
	if d.Kind(m) == pyjson.Object {
		for _, name := range v.absent {
			if c.lookup(m, name) >= 0 {
				return true
			}
		}
	}
	if v.objectsOnly && d.Kind(m) != pyjson.Object {
		return true
	}
	if d.Kind(m) == pyjson.Object {
		for _, name := range v.present {
			if c.lookup(m, name) < 0 {
				return true
			}
		}
	}
	c.writtenValue, c.writtenNodes = m, c.writtenNodes[:0]
	for _, n := range v.nodes {
		c.writtenNodes = append(c.writtenNodes, n.node)
	}
	defer func() { c.writtenValue, c.writtenNodes = -1, c.writtenNodes[:0] }()
	for _, n := range v.nodes {
		if c.valueValidSkipping(n.node, m, 0, n.done|skipExpanded) == invalid {
			return true
		}
	}
	return false
}

// discriminated reports whether no object is valid for both views a and
// b: one requires a property that the other forbids, or whose values its
// const or enum allows none of (a discriminator: {"kind": {"const":
// "circle"}} against {"kind": {"const": "square"}}).
func (c *compiler) discriminated(a, b *view) bool {
	return c.requiresAgainst(a, b) || c.requiresAgainst(b, a)
}

// closedApart reports whether, not strict, the objects the grammar writes
// for each of two views (their closedFacts a and b) are invalid for the
// other because the other requires a name they can't hold (gap decision
// 233): an object that declares properties is written closed to its
// declared and required names (the documented default), so {"oneOf":
// [{"properties": {"login": ...}, "required": ["login"]}, {"properties":
// {"password": ...}, "required": ["password"]}]} writes {"login": ...} or
// {"password": ...}, each valid for its variant alone, though under the
// schema's own meaning (strict: open objects) an object may hold both
// names.
func (c *compiler) closedApart(a, b *closedFacts) bool {
	return !c.strict && c.closedAgainst(a, b) && c.closedAgainst(b, a)
}

// closedAgainst reports whether a requires a name that no object written
// for b holds (closedWithout): b's objects are then invalid for a.
func (c *compiler) closedAgainst(a, b *closedFacts) bool {
	return b.view.never || slices.ContainsFunc(a.required, func(name string) bool { return c.closedWithout(b, name) })
}

// closedFacts is what closedApart reads of a variant's view, once for a
// oneOf (closedFactsOf): the names its schemas require (at most
// maxExclusiveNames of them, each a condition of its own), and, when its
// objects are written closed, the names they may hold besides those its
// schemas declare (held: the required and present ones).
type closedFacts struct {
	view     *view
	required []string
	held     map[string]bool
	closed   bool
}

// closedFactsOf reads v for closedApart. v's objects are written closed
// to the names its schemas declare or require when there is at least one
// such name (an object that declares none is written open: freeMember).
// Conservatively not closed where a schema of v may add names otherwise:
// patternProperties, dependentRequired (a dependent is written beside its
// trigger, declared or not), an anyOf or oneOf not yet distributed (its
// variants declare names of their own), a keyword the compiler reports
// (dependentSchemas, if, unevaluatedProperties, ...), or membership of an
// anyOf (whose variants' names an object closed by default may also hold:
// siblingMembers); nor a wide view, nor one whose required lists are
// longer than maxExclusiveNames (not read for this).
func (c *compiler) closedFactsOf(v *view) *closedFacts {
	d := c.d
	f := &closedFacts{view: v, held: map[string]bool{}}
	if c.strict || len(v.nodes) >= wideView {
		return f
	}
	add := func(name string) {
		if !f.held[name] {
			f.held[name] = true
			if len(f.required) < maxExclusiveNames {
				f.required = append(f.required, name)
			}
		}
	}
	for _, name := range v.present {
		add(name)
	}
	closed, names := true, len(v.present) > 0
	for _, n := range v.nodes {
		ks := n.ks
		if n.other || n.mayOther || ks.PatternProperties >= 0 || ks.DependentRequired >= 0 ||
			ks.AnyOf >= 0 && n.done&doneAnyOf == 0 || ks.OneOf >= 0 && n.done&doneOneOf == 0 {
			closed = false // (a combinator not yet distributed may declare names)
		}
		if _, ok := c.anyOfSiblings(n.node); ok {
			closed = false
		}
		if ks.Properties >= 0 {
			if d.Kind(ks.Properties) != pyjson.Object {
				closed = false
			} else {
				names = names || d.Nodes[ks.Properties].Len > 0
			}
		}
		if ks.Required >= 0 {
			if d.Kind(ks.Required) != pyjson.Array || d.Nodes[ks.Required].Len > maxExclusiveNames {
				closed = false // (a long list is not read for this)
				continue
			}
			d.Elements(ks.Required, func(e, _ int) bool {
				if names = true; d.Kind(e) == pyjson.String {
					add(d.Str(e))
				}
				return true
			})
		}
	}
	f.closed = closed && names
	return f
}

// closedWithout reports whether, not strict, no object written for the
// view of f holds member name: its objects are written closed (f.closed),
// and name is none its schemas declare or require, or one it is written
// without (absent).
func (c *compiler) closedWithout(f *closedFacts, name string) bool {
	v := f.view
	if slices.Contains(v.absent, name) {
		return true
	}
	if !f.closed || f.held[name] {
		return false
	}
	for _, n := range v.nodes {
		if ps := n.ks.Properties; ps >= 0 && c.ptr.Child(c.d, ps, name) >= 0 {
			return false
		}
	}
	return true
}

// requiresAgainst reports whether a requires a property that no object of
// b can hold with a value a allows: b's listed values and a's differ, or
// each of a's is invalid for b's schema of the property (decision 207).
func (c *compiler) requiresAgainst(a, b *view) bool {
	d := c.d
	found := false
	for _, n := range a.nodes {
		if n.ks.Required < 0 || d.Kind(n.ks.Required) != pyjson.Array {
			continue
		}
		d.Elements(n.ks.Required, func(e, _ int) bool {
			if c.stop(a.path) {
				return false // a cap passed: the compile fails
			}
			if d.Kind(e) != pyjson.String {
				return true
			}
			name := d.Str(e)
			if slices.Contains(b.absent, name) {
				found = true // b's objects are written without it
				return false
			}
			vb := c.memberValue(b, name)
			if vb.never {
				found = true
				return false
			}
			va := c.memberValue(a, name)
			if c.memberTypeWork > 0 {
				work := 0
				apart := c.variantTypes(va, &work)&c.variantTypes(vb, &work) == 0
				c.memberTypeWork -= 2 + work
				if apart {
					found = true // of types apart (decision 292)
					return false
				}
			}
			la, okA := c.literalSet(va)
			if !okA {
				return true
			}
			lb, okB := c.literalSet(vb)
			if okB && (len(la)*len(lb) <= maxLiteralPairs && !c.anyMayEqual(la, lb) || stringsApart(d, la, lb)) {
				found = true
				return false
			}
			// Each of a's values shown invalid for b's (decision 207).
			found = len(la) <= maxLiteralPairs && !slices.ContainsFunc(la, func(m int) bool { return !c.shownInvalid(vb, m) })
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// literalSet is the values of the first const or enum among v's schemas
// that may equal a value of each other const and enum of v (anyMayEqual):
// every value valid for v is among them. ok is false when none has one.
// So a variant's {"const": "circle"} beside its siblings' {"enum":
// ["circle", "square"]} is "circle", whichever comes first, and a const
// beside an enum in one schema is the const if the enum may hold it.
// Past maxLiteralPairs comparisons the list is kept as it is (still
// every valid value).
func (c *compiler) literalSet(v *view) (values []int, ok bool) {
	values, ok, _ = c.literalSetOf(v)
	return values, ok
}

// literalSetOf is literalSet, and whether every const and enum of v was
// compared (exact: within maxLiteralPairs, so that the values are those
// every const and enum may hold, gap decision 298).
func (c *compiler) literalSetOf(v *view) (values []int, ok, exact bool) {
	d := c.d
	lists := func(n vnode, fn func(list []int) bool) {
		if n.ks.Const >= 0 && !fn([]int{n.ks.Const}) {
			return
		}
		if n.ks.Enum >= 0 && d.Kind(n.ks.Enum) == pyjson.Array {
			var list []int
			d.Elements(n.ks.Enum, func(e, _ int) bool {
				list = append(list, e)
				return true
			})
			fn(list)
		}
	}
	checks := 0
	exact = true
	for _, n := range v.nodes {
		lists(n, func(list []int) bool {
			if !ok {
				values, ok = list, true
				return true
			}
			if checks += len(values) * len(list); checks > maxLiteralPairs {
				exact = false
				return false
			}
			values = slices.DeleteFunc(slices.Clip(values), func(m int) bool { return !c.anyMayEqual([]int{m}, list) })
			return true
		})
		if !exact {
			break
		}
	}
	return values, ok, exact
}

// anyMayEqual reports whether a value of as may equal one of bs, as JSON
// Schema compares values (numbers by value): only values shown to differ
// count as different.
func (c *compiler) anyMayEqual(as, bs []int) bool {
	for _, a := range as {
		for _, b := range bs {
			if c.mayEqual(a, b) {
				return true
			}
		}
	}
	return false
}

// mayEqual reports whether JSON values a and b may be equal: false only
// when they are shown to differ (kinds, strings, short plain numbers;
// arrays and objects are taken as maybe equal).
func (c *compiler) mayEqual(a, b int) bool {
	d := c.d
	ka, kb := d.Kind(a), d.Kind(b)
	if ka != kb {
		return false
	}
	switch ka {
	case pyjson.String:
		return d.Str(a) == d.Str(b)
	case pyjson.Number:
		ra, rb := string(d.Raw(a)), string(d.Raw(b))
		if ra == rb {
			return true
		}
		if len(ra) > 40 || len(rb) > 40 || strings.ContainsAny(ra, "eE") || strings.ContainsAny(rb, "eE") {
			return true
		}
		x, okA := new(big.Rat).SetString(ra)
		y, okB := new(big.Rat).SetString(rb)
		return !okA || !okB || x.Cmp(y) == 0
	}
	return true // true, false, null (kinds alike), arrays and objects
}

// has reports whether any schema of v has a keyword f finds.
func (c *compiler) has(v *view, f func(*schema.Keys) bool) bool {
	for i := range v.nodes {
		if f(v.nodes[i].ks) {
			return true
		}
	}
	return false
}

// constrainsType reports whether ks holds a keyword that constrains values
// of some type (and so makes an untyped schema more than any JSON).
func constrainsType(ks *schema.Keys) bool {
	for _, n := range [...]int{ks.Properties, ks.Required, ks.AdditionalProperties, ks.Items, ks.PrefixItems,
		ks.MinItems, ks.MaxItems, ks.MinLength, ks.MaxLength, ks.Minimum, ks.Maximum,
		ks.ExclusiveMinimum, ks.ExclusiveMaximum, ks.Pattern, ks.Format, ks.PatternProperties,
		ks.MinProperties, ks.MaxProperties, ks.DependentRequired, ks.PropertyNames, ks.Contains} {
		if n >= 0 {
			return true
		}
	}
	return false
}

// viewLiterals is the enum and const values of v, when it has any: the
// members of every enum and const alike, of the types v admits, and within
// the bounds it sets on strings and numbers. Other keywords are not checked
// against the members: they are reported.
func (c *compiler) viewLiterals(v *view, set typeSet, ctx textContext, xml bool) (*expr, bool) {
	d := c.d
	var members []int // the node of each value, from the first enum or const
	var texts []string
	path := ""
	first := true
	for _, n := range v.nodes {
		for _, kw := range [...]struct {
			node   int
			isEnum bool
		}{{n.ks.Enum, true}, {n.ks.Const, false}} {
			if kw.node < 0 {
				continue
			}
			var these []int
			if !kw.isEnum {
				these = []int{kw.node}
			} else if d.Kind(kw.node) == pyjson.Array {
				d.Elements(kw.node, func(e, _ int) bool { these = append(these, e); return true })
			} else {
				c.drop(n.path+".enum", "enum")
				continue
			}
			kwPath := n.path + ".const"
			if kw.isEnum {
				kwPath = n.path + ".enum"
			}
			var tt []string
			for _, m := range these {
				if !c.spend(kwPath, len(d.Raw(m))+32) {
					return nil, true
				}
				tt = append(tt, string(d.AppendPython(nil, m)))
			}
			if first {
				members, texts, first = these, tt, false
				path = n.path + ".enum"
				if !kw.isEnum {
					path = n.path + ".const"
				}
				continue
			}
			// Keep the members this enum or const also holds.
			var keepM []int
			var keepT []string
			held := c.listedValues(these, tt)
			for j, t := range texts {
				// (equal as JSON Schema compares: 1.0 is 1)
				if held(members[j], t) {
					keepM, keepT = append(keepM, members[j]), append(keepT, t)
				}
			}
			members, texts = keepM, keepT
		}
	}
	if first {
		return nil, false
	}
	if size := listBytes(texts); size > maxListRetry {
		if !c.dropLists {
			c.bigLists++ // written; Compile may try again without (decision 232)
		} else {
			// A long list took the grammar past an engine's cap: the
			// values are left to the other keywords, and it is reported.
			for _, n := range v.nodes {
				if n.ks.Enum >= 0 {
					c.loosen(n.path+".enum", "enum", "its values ("+itoa(size)+" bytes) would take the grammar past what an engine takes")
				}
				if n.ks.Const >= 0 {
					c.loosen(n.path+".const", "const", "its value ("+itoa(size)+" bytes) would take the grammar past what an engine takes")
				}
			}
			return nil, false
		}
	}
	// The other keywords that constrain values of each type.
	for _, n := range v.nodes {
		ks := n.ks
		for _, kw := range [...]struct {
			node int
			name string
		}{{ks.Properties, "properties"}, {ks.Required, "required"}, {ks.AdditionalProperties, "additionalProperties"},
			{ks.Items, "items"}, {ks.PrefixItems, "prefixItems"}, {ks.MinItems, "minItems"}, {ks.MaxItems, "maxItems"},
			{ks.Pattern, "pattern"}, {ks.Format, "format"}, {ks.PatternProperties, "patternProperties"},
			{ks.DependentRequired, "dependentRequired"}, {ks.PropertyNames, "propertyNames"},
			{ks.MinProperties, "minProperties"}, {ks.MaxProperties, "maxProperties"}, {ks.UniqueItems, "uniqueItems"}} {
			if kw.node >= 0 {
				c.drop(n.path+"."+kw.name, kw.name)
			}
		}
		if ks.Contains >= 0 {
			c.dropContains(n.node, n.path, "the members of an enum or const are not checked against it")
		}
		for _, kw := range [...]otherKeyword{kwDependentSchemas, kwDependencies} {
			if c.otherKey(&n, kw) >= 0 {
				c.drop(n.path+"."+unenforced[kw], unenforced[kw]) // dropUnenforced leaves them to objects
			}
		}
		// unevaluatedProperties and unevaluatedItems: a listed object's or
		// array's members are not checked against them here (decision
		// 207's check leaves them undecided); dropUnenforced leaves them
		// to objects and arrays.
		for _, kw := range [...]struct {
			kw   otherKeyword
			kind pyjson.Kind
		}{{kwUnevaluatedProperties, pyjson.Object}, {kwUnevaluatedItems, pyjson.Array}} {
			if c.otherKey(&n, kw.kw) >= 0 && slices.ContainsFunc(members, func(m int) bool { return d.Kind(m) == kw.kind }) {
				c.drop(n.path+"."+unenforced[kw.kw], unenforced[kw.kw])
			}
		}
	}
	lo, hi := c.viewLengths(v, "Length")
	nlo, nhi := c.viewBounds(v)
	var alts []*expr
	cost := 0
	excluded, _ := v.excludedValues()
	noEmpty := emptyExcluded(v)
	mults := c.positiveMultiples(v)
	for j, m := range members {
		if !admits(d, set, m) || slices.ContainsFunc(excluded, func(x int) bool { return c.literalEqual(x, m) }) ||
			noEmpty && isEmptyArray(d, m) {
			continue
		}
		switch d.Kind(m) {
		case pyjson.String:
			if n := len([]rune(d.Str(m))); n < lo || hi >= 0 && n > hi {
				continue
			}
		case pyjson.Number:
			if !within(string(d.Raw(m)), nlo, nhi) || !multiples(mults, string(d.Raw(m))) {
				continue
			}
		}
		before := len(alts)
		alts = c.appendListed(alts, m, texts[j], ctx, xml)
		for _, a := range alts[before:] {
			// What the alternatives cost an engine, summed as they are
			// made: past the cap the compile stops here, not after the
			// last of 24,000 members.
			if cost += expandedCost(a) + 1; cost > maxExpanded {
				c.listOver = true // (Compile may try again without the long lists)
				c.fail(path, overExpandedText)
				return nil, true
			}
		}
	}
	if len(alts) == 0 {
		c.impossible(path, "no value can be written: every member is ruled out by the type or holds a Harmony marker")
		return nil, true
	}
	return alt(alts...), true
}

// integralSpellings returns the two ways Python's json.dumps writes the
// whole number lit, an int's and a float's (2 and 2.0), beside lit's own
// spelling, which the grammar matches too: JSON Schema compares numbers
// by value, so an enum member 2.0 admits 2 and the other way round. None
// for other numbers, and for magnitudes from 10^16 on, which a float
// writes with an exponent.
func integralSpellings(lit string) []string {
	if plainInt(lit) {
		// The common case, without a rational: an integer written
		// plainly is its int's spelling.
		return []string{lit, lit + ".0"}
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok || !r.IsInt() || new(big.Int).Abs(r.Num()).Cmp(big.NewInt(1e16)) >= 0 {
		return nil
	}
	n := r.Num().String()
	return []string{n, n + ".0"}
}

// plainInt reports whether lit is an integer as Python's json.dumps writes
// an int below 10^16 in magnitude: an optional minus, then digits without
// leading zeros, at most 16 of them ("-0" is not: its int is 0).
func plainInt(lit string) bool {
	digits := strings.TrimPrefix(lit, "-")
	if digits == "" || len(digits) > 16 || digits[0] == '0' && (len(digits) > 1 || len(lit) > 1) {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// admits reports whether a value of node m is of a type in set.
func admits(d *pyjson.Doc, set typeSet, m int) bool {
	return set&valueType(d, m) != 0
}

// valueType is the type of the JSON value m, a set of one (an integral
// number's is tInt, another number's tFrac).
func valueType(d *pyjson.Doc, m int) typeSet {
	switch d.Kind(m) {
	case pyjson.Null:
		return tNull
	case pyjson.True, pyjson.False:
		return tBool
	case pyjson.Number:
		if isIntegral(string(d.Raw(m))) {
			return tInt
		}
		return tFrac
	case pyjson.String:
		return tStr
	case pyjson.Array:
		return tArr
	case pyjson.Object:
		return tObj
	}
	return 0
}

// within reports whether the number literal lit lies within lo and hi.
func within(lit string, lo, hi *bound) bool {
	if lo == nil && hi == nil {
		return true
	}
	v, rounded, huge := parseBound(lit, true)
	if huge || rounded {
		return lo == nil && hi == nil
	}
	return withinBounds(v, lo, hi)
}

// viewLengths merges a pair of count keywords over v (minLength and
// maxLength with what "Length", minItems and maxItems with "Items"): the
// greatest minimum and the least maximum (-1: none).
func (c *compiler) viewLengths(v *view, what string) (lo, hi int) {
	hi = -1
	for _, n := range v.nodes {
		minNode, maxNode := countNodes(n.ks, what)
		if minNode < 0 && maxNode < 0 {
			continue
		}
		l, h := c.counts(minNode, maxNode, n.path, what)
		lo = max(lo, l)
		if h >= 0 && (hi < 0 || h < hi) {
			hi = h
		}
	}
	return lo, hi
}

// noLength reports whether lo and hi, v's merged minWHAT and maxWHAT
// (viewLengths), admit no length, and then records why (impossible): no
// string, array or object (what) of v can be written.
func (c *compiler) noLength(v *view, what string, lo, hi int) bool {
	if hi < 0 || lo <= hi {
		return false
	}
	c.impossible(v.path, "min"+what+" is greater than max"+what)
	return true
}

// countNodes returns the keywords minWHAT and maxWHAT of ks (what:
// "Length", "Items" or "Properties").
func countNodes(ks *schema.Keys, what string) (minNode, maxNode int) {
	switch what {
	case "Items":
		return ks.MinItems, ks.MaxItems
	case "Properties":
		return ks.MinProperties, ks.MaxProperties
	}
	return ks.MinLength, ks.MaxLength
}

// memberCounts reports the minProperties and maxProperties of v, which
// the members written do not count (declaredMembers).
func (c *compiler) memberCounts(v *view) {
	for _, n := range v.nodes {
		for _, kw := range [...]struct {
			node int
			name string
		}{{n.ks.MinProperties, "minProperties"}, {n.ks.MaxProperties, "maxProperties"}} {
			if kw.node >= 0 {
				c.loosen(n.path+"."+kw.name, kw.name, "the number of an object's declared properties present is not counted")
			}
		}
	}
}

// viewBounds merges the numeric bounds of v: the tightest of each side.
func (c *compiler) viewBounds(v *view) (lo, hi *bound) {
	for i := range v.nodes {
		l, h := c.bounds(v.nodes[i].ks, v.nodes[i].path)
		lo, hi = tighter(lo, l, true), tighter(hi, h, false)
	}
	return lo, hi
}

// viewNumber is a number, or with integers an integer, within v's bounds.
func (c *compiler) viewNumber(v *view, integers bool) *expr {
	lo, hi := c.viewBounds(v)
	var cut []*big.Rat // the numbers a discriminator's conditions list (ifCases)
	if excluded, path := v.excludedValues(); len(excluded) > 0 {
		for _, m := range excluded {
			if c.d.Kind(m) == pyjson.Number {
				x, _, _ := parseBound(string(c.d.Raw(m)), true) // (comparableLiteral: 40 characters, no exponent)
				cut = append(cut, x)
			}
		}
		if len(cut) > 0 && (!integers && lo == nil && hi == nil || c.has(v, func(ks *schema.Keys) bool { return ks.Mult >= 0 })) {
			c.loosen(path, "if", "a number without bounds, or with multipleOf, is not cut around the values the conditions list")
			cut = nil
		}
	}
	if len(v.notCut) > 0 || len(cut) > 0 {
		return c.numbersExcept(v, lo, hi, integers, append(slices.Clip(v.notCut), cut...))
	}
	k, whole := c.multipleOf(v, integers)
	if whole && k > 0 {
		switch {
		case lo == nil && hi == nil:
			return c.multiplesOf(k)
		case k == 1:
			return c.integer(lo, hi, v.path) // the whole numbers in the range
		}
		if e, ok := c.boundedMultiples(k, lo, hi, v.path); ok {
			if e == nil {
				c.impossible(v.path, "no multiple of multipleOf lies within minimum and maximum")
			}
			return e
		}
		for _, n := range v.nodes {
			if n.ks.Mult >= 0 {
				c.loosen(n.path+".multipleOf", "multipleOf", "beside minimum or maximum, the multiples are told apart by an automaton past its limits")
			}
		}
	}
	if !whole && !integers {
		// A multipleOf, but not a whole one: a decimal one (decision 220).
		if e, done := c.decimalNumber(v, lo, hi); done {
			return e
		}
	}
	if integers {
		return c.integer(lo, hi, v.path)
	}
	return c.number(lo, hi, v.path)
}

// collectNotNumbers finds the nots of v that its numbers enforce, in
// both modes (gap decision 223): a view of numbers without enum, const or
// multipleOf beside (whose values or multiples are not checked against
// the not), of integers only or with a minimum or a maximum (an unbounded
// number is written with an exponent, which spells each value many ways:
// a bounded one is written without), and each not an enum or const
// (notNumbers) whose members of other types are of types the view does
// not admit. Together at most maxNotNumbers values; the other nots stay
// reported.
func (c *compiler) collectNotNumbers(v *view) {
	set := c.types(v)
	if set&tNum == 0 || c.has(v, func(ks *schema.Keys) bool { return ks.Enum >= 0 || ks.Const >= 0 || ks.Mult >= 0 }) {
		return
	}
	bounded := false // (read once, and only for a view with a not)
	total := 0
	for _, n := range v.nodes {
		if n.ks.Not < 0 || slices.Contains(c.notNodes, n.node) {
			continue
		}
		if _, exact := notTypes(c.d, n.node); exact {
			continue
		}
		xs, others, ok := c.notNumbers(n.node)
		if !ok || others&set != 0 || total+len(xs) > maxNotNumbers {
			continue
		}
		if set&tFrac != 0 && !bounded {
			if lo, hi := c.viewBounds(v); lo == nil && hi == nil {
				return
			}
			bounded = true
		}
		total += len(xs)
		c.notNodes = append(c.notNodes, n.node)
		v.notCut = append(v.notCut, xs...)
	}
}

// numbersExcept is the numbers (with integers, the integers) between lo
// and hi but those cut lists (the view's nots' and its conditions'): the
// range cut around each of those values, a range each piece. A bounded
// range is written without an exponent, so a value cut out has no
// spelling left in it (3, 3.0, 3.00).
func (c *compiler) numbersExcept(v *view, lo, hi *bound, integers bool, cut []*big.Rat) *expr {
	var xs []*big.Rat
	for _, x := range cut {
		if !integers || x.IsInt() {
			xs = append(xs, x)
		}
	}
	slices.SortFunc(xs, (*big.Rat).Cmp)
	xs = slices.CompactFunc(xs, func(x, y *big.Rat) bool { return x.Cmp(y) == 0 })
	if integers {
		return c.integersExcept(v, lo, hi, xs)
	}
	var alts []*expr
	from := lo // nil: no least
	for _, x := range xs {
		if !withinBounds(x, lo, hi) {
			continue
		}
		if to := (&bound{x, false}); nonEmpty(from, to) {
			alts = append(alts, c.number(from, to, v.path))
		}
		from = &bound{x, false}
	}
	if nonEmpty(from, hi) {
		alts = append(alts, c.number(from, hi, v.path))
	}
	if len(alts) == 0 {
		c.impossible(v.path, "every number within minimum and maximum is one that not, or the conditions of if, rule out")
		return nil
	}
	return alt(alts...)
}

// withinBounds reports whether x lies within lo and hi (nil: unbounded).
func withinBounds(x *big.Rat, lo, hi *bound) bool {
	if lo != nil {
		if cmp := x.Cmp(lo.v); cmp < 0 || cmp == 0 && !lo.incl {
			return false
		}
	}
	if hi != nil {
		if cmp := x.Cmp(hi.v); cmp > 0 || cmp == 0 && !hi.incl {
			return false
		}
	}
	return true
}

// nonEmpty reports whether some number lies within lo and hi.
func nonEmpty(lo, hi *bound) bool {
	if lo == nil || hi == nil {
		return true
	}
	cmp := lo.v.Cmp(hi.v)
	return cmp < 0 || cmp == 0 && lo.incl && hi.incl
}

// integersExcept is the integers between lo and hi but xs (sorted, each
// once, whole): the range cut around each, a range each piece (intRange).
func (c *compiler) integersExcept(v *view, lo, hi *bound, xs []*big.Rat) *expr {
	a, b, ok := intBounds(lo, hi)
	if !ok {
		c.impossible(v.path, "no integer lies within minimum and maximum")
		return nil
	}
	one := big.NewInt(1)
	var alts []*expr
	from := a // nil: no least
	for _, r := range xs {
		x := r.Num()
		if a != nil && x.Cmp(a) < 0 || b != nil && x.Cmp(b) > 0 {
			continue
		}
		if to := new(big.Int).Sub(x, one); from == nil || from.Cmp(to) <= 0 {
			alts = append(alts, intRange(from, to))
		}
		from = new(big.Int).Add(x, one)
	}
	if from == nil || b == nil || from.Cmp(b) <= 0 {
		alts = append(alts, intRange(from, b))
	}
	if len(alts) == 0 {
		c.impossible(v.path, "every integer within minimum and maximum is one that not, or the conditions of if, rule out")
		return nil
	}
	return alt(alts...)
}

// decimalNumber is the numbers between lo and hi that are multiples of
// v's multipleOf when it is decimal (gap decision 220): a power of ten
// below 1, or j times one (without bounds, or under strict beside them);
// done is false when it is neither (the keyword is then reported), or
// past the automaton's limits (then reported here).
func (c *compiler) decimalNumber(v *view, lo, hi *bound) (e *expr, done bool) {
	if k, ok := c.decimalPlaces(v); ok {
		return c.decimalMultiples(lo, hi, k, v.path), true
	}
	j, k, ok := c.decimalMultiple(v)
	switch {
	case !ok:
		return nil, false
	case lo == nil && hi == nil && int(j)*(k+2) <= maxDecimalRules:
		return c.decimalRemaindersOf(j, k), true
	case c.strict:
		grid := c.decimalMultiples(lo, hi, k, v.path)
		if grid == nil {
			return nil, true // no multiple of 10^-k in the bounds (reported)
		}
		e, ok := c.groupAutomaton([]stringGroup{{values: []*expr{grid}, multiple: j, decimals: k, hi: -1}}, nil, true, v.path)
		if ok {
			if e == nil {
				c.impossible(v.path, "no multiple of multipleOf lies within minimum and maximum")
			}
			return e, true
		}
		for _, n := range v.nodes {
			if n.ks.Mult >= 0 {
				c.loosen(n.path+".multipleOf", "multipleOf", "its multiples are told apart by an automaton past its limits")
			}
		}
	}
	return nil, false
}

// viewString is a string within v's lengths: JSON in ctx, or with raw the
// raw text of an argument.
func (c *compiler) viewString(v *view, ctx textContext, raw bool) *expr {
	lo, hi := c.viewLengths(v, "Length")
	if c.noLength(v, "Length", lo, hi) {
		return nil
	}
	// The texts the view's not rules out (decision 198).
	var negs []*expr
	var negNodes []int
	if len(v.notStrings) > 0 {
		for _, n := range v.nodes {
			if slices.Contains(v.notStrings, n.node) {
				neg, _, _ := c.notString(n.node)
				negs, negNodes = append(negs, neg), append(negNodes, n.node)
			}
		}
	}
	// The strings a discriminator's conditions list (ifCases): the value
	// nodes name them in the shape's key.
	if excluded, _ := v.excludedValues(); len(excluded) > 0 {
		for _, m := range excluded {
			if c.d.Kind(m) == pyjson.String {
				negs, negNodes = append(negs, lit(c.d.Str(m))), append(negNodes, m)
			}
		}
	}
	misread := raw && c.rawMisread != 0
	if misread {
		// Left out by the string automaton, strict or not.
		negs, negNodes = append(negs, spellings(c.rawMisread)), append(negNodes, -1-int(c.rawMisread))
		c.misreadAuto = true
	}
	shape, counted := c.stringShape(v, ctx, raw, lo, hi, negs, negNodes)
	c.misreadAuto = false
	if misread && shape == nil && c.err == nil {
		c.loosenCast(v) // past the automaton's limits: an error (strict)
	}
	if shape != nil || c.err != nil {
		if (lo > 0 || hi >= 0) && !counted {
			why := "a string's length is not enforced beside a pattern or a format"
			if c.strict {
				// Strict tried the length automaton (decision 197).
				why = "a string's length beside a pattern or a format is counted by an automaton, and this one would be past its limits"
			}
			// Only the side that binds: a minLength of 0 beside a
			// maxLength constrains nothing.
			c.loosenLengths(v, lo > 0, hi >= 0, why)
		}
		return shape
	}
	if hi >= 0 && c.xgrammar && !c.strict {
		// Left out for xgrammar (Spec.XGrammar, gap decision 266).
		c.loosenLengths(v, false, true, xgrammarLengthWhy)
		hi = -1
	}
	if lo > chunkFrom || hi > chunkFrom {
		return c.longString(v, ctx, raw, lo, hi)
	}
	if lo == 0 && hi < 0 {
		if raw {
			return c.rawText()
		}
		return c.quotedString(ctx)
	}
	return c.shortString(v, ctx, raw, lo, hi)
}

// loosenLengths loosens (c.loosen) the minLength and the maxLength of each
// schema of v that has them, those asked for.
func (c *compiler) loosenLengths(v *view, minLength, maxLength bool, why string) {
	for _, n := range v.nodes {
		if minLength && n.ks.MinLength >= 0 {
			c.loosen(n.path+".minLength", "minLength", why)
		}
		if maxLength && n.ks.MaxLength >= 0 {
			c.loosen(n.path+".maxLength", "maxLength", why)
		}
	}
}

// xgrammarLengthWhy is why a string's maxLength is left out for xgrammar.
const xgrammarLengthWhy = "xgrammar (vLLM, SGLang) checks nearly every token of the vocabulary inside a string of counted characters, about 0.1 s a token"

// chunkFrom is the greatest string length written as one repetition of a
// character: a longer one is written in chunks (longString), which costs
// an engine about the square root of the length where a repetition costs
// the length (llama.cpp writes S{0,n} out as n rules).
const chunkFrom = 64

// shortString is a string of v of lo to hi characters, both at most
// chunkFrom (hi < 0: no upper bound): one repetition of a character, a
// rule per length pair and form, written once per grammar however many
// strings share it, that spends the repetition budget once. Past the
// budget the lengths are loosened (reported; an error under strict).
// For xgrammar a JSON string's bounded characters are chains instead
// (xgrammarCounted).
func (c *compiler) shortString(v *view, ctx textContext, raw bool, lo, hi int) *expr {
	key := "short" + strconv.FormatBool(raw) + ":" + strconv.Itoa(lo) + "," + strconv.Itoa(hi)
	if r, ok := c.memo[key]; ok {
		return r
	}
	if !c.spendRepetitions(v, max(lo, hi), "Length") {
		if raw {
			return c.rawText()
		}
		return c.quotedString(ctx)
	}
	var body *expr
	switch {
	case hi < 0 && raw:
		var ok bool
		if body, ok = c.rawAtLeast(lo); !ok {
			body = seq(rep(c.stringCharRule(raw), lo, lo), c.stringRun(raw))
		}
	case hi < 0:
		body = seq(rep(c.stringCharRule(raw), lo, lo), c.stringRun(raw))
	case c.xgrammar && !raw:
		body = c.xgrammarCounted(lo, hi)
	default:
		body = rep(c.stringCharRule(raw), lo, hi)
	}
	e := ref(c.g.rule("bounded", body))
	if !raw {
		e = seq(lit(`"`), e, lit(`"`))
	}
	c.memo[key] = e
	return e
}

// xgrammarCounted is lo to hi characters of a JSON string (hi at most
// chunkFrom) written for xgrammar (Spec.XGrammar; a schema that is not
// strict has its maxLength left out before): a chain of rules, one a
// character, each with the character's choice written in (a class and the
// escape) and the next link after each, the optional links shared by every
// length of the grammar. Counted as a repetition of the character's rule,
// as for llama.cpp, the EBNF writes the same chain with the rule in each
// link, past whose end xgrammar can decide no token ahead: 380 ms a token's
// mask inside a string of at most 64 characters, 12 to 16 ms so, for about
// 3.5 s more to compile once (gap decision 267).
func (c *compiler) xgrammarCounted(lo, hi int) *expr {
	esc, ok := c.memo["xgesc"]
	if !ok {
		esc = ref(c.g.rule("esc", jsonEscape()))
		c.memo["xgesc"] = esc
	}
	// link is a character, then next (nil: nothing).
	link := func(next *expr) *expr {
		if next == nil {
			return alt(stringClass, esc)
		}
		return alt(seq(stringClass, next), seq(esc, next))
	}
	var tail *expr // up to hi-lo characters
	for k := 1; k <= hi-lo; k++ {
		key := "xgopt:" + strconv.Itoa(k)
		r, ok := c.memo[key]
		if !ok {
			r = ref(c.g.rule("xg-opt", opt(link(tail))))
			c.memo[key] = r
		}
		tail = r
	}
	for k := 1; k <= lo; k++ {
		key := "xgneed:" + strconv.Itoa(k) + "," + strconv.Itoa(hi-lo)
		r, ok := c.memo[key]
		if !ok {
			r = ref(c.g.rule("xg-need", link(tail)))
			c.memo[key] = r
		}
		tail = r
	}
	if tail == nil {
		return lit("")
	}
	return tail
}

// xgrammarLong is lo to hi characters of a JSON string, hi past chunkFrom,
// written for xgrammar (Spec.XGrammar) with the chains of xgrammarCounted:
// a unit of s characters (s the greatest power of chunkFrom under hi: the
// chain of chunkFrom itself, or chunkFrom units of the power below one
// after another) then lo-s to hi-s more, or (when lo is under s) lo to s-1
// characters, each length one way, a rule per unit of each length pair;
// with lo 0 the shorter ones are a link of the chain of chunkFrom. Written
// in chunks as for llama.cpp (a character's rule in each place of a
// chunk), xgrammar decides no token ahead inside it and checks nearly the
// whole vocabulary at each: about 0.15 s a token's mask at 300 characters,
// 16 ms so (gap decision 271). With units of units, a string of
// 1,048,576 characters takes about 200 rules a length pair, and xgrammar
// keeps a level for each unit it is inside, a few hundred at most (gap
// decision 272).
func (c *compiler) xgrammarLong(lo, hi int) *expr {
	if hi <= chunkFrom {
		return c.xgrammarCounted(lo, hi)
	}
	key := "xglong:" + strconv.Itoa(lo) + "," + strconv.Itoa(hi)
	if r, ok := c.memo[key]; ok {
		return r
	}
	unit, s := c.xgrammarUnit(hi)
	longer := seq(unit, c.xgrammarLong(max(lo-s, 0), hi-s))
	body := longer
	if lo < s {
		body = alt(c.xgrammarLong(lo, s-1), longer)
	}
	r := ref(c.g.rule("xg-long", body))
	c.memo[key] = r
	return r
}

// xgrammarUnit is exactly s characters of a JSON string for xgrammarLong,
// s the greatest power of chunkFrom under hi: the chain of chunkFrom
// characters (xgrammarCounted), or chunkFrom units of the power below one
// after another in one rule, once per grammar.
func (c *compiler) xgrammarUnit(hi int) (*expr, int) {
	unit, s := c.xgrammarCounted(chunkFrom, chunkFrom), chunkFrom
	for s*chunkFrom < hi {
		key := "xgunit:" + strconv.Itoa(s*chunkFrom)
		r, ok := c.memo[key]
		if !ok {
			parts := make([]*expr, chunkFrom)
			for i := range parts {
				parts[i] = unit
			}
			r = ref(c.g.rule("xg-unit", seq(parts...)))
			c.memo[key] = r
		}
		unit, s = r, s*chunkFrom
	}
	return unit, s
}

// stringCharRule is a reference to the rule of stringChar(raw), once per
// grammar; a raw argument's character is its class itself, which
// xgrammar counts as one element (gap decisions 265 and 266: a rule
// holding it is written out as a chain in EBNF, 1.7 s to compile and 2.4
// ms a token's mask inside [^<]{0,40}, against 1.3 s and 0.46 ms).
func (c *compiler) stringCharRule(raw bool) *expr {
	if raw {
		return stringChar(true)
	}
	const key = "stringchar"
	char, ok := c.memo[key]
	if !ok {
		char = ref(c.g.rule("char", stringChar(raw)))
		c.memo[key] = char
	}
	return char
}

// stringRun is any number of characters of a bounded string: a JSON
// string's as the characters that stand for themselves repeated, then an
// escape and the run again or nothing (run ::= [^...]* (escape run)?),
// a rule once per grammar; a raw argument's, its class repeated. Not the
// character's rule repeated (char*, the same language): xgrammar (vLLM,
// SGLang) reads a repetition of a rule of several forms as one more level
// of recursion a character, and took 61 ms a token to mask inside a
// string with minLength alone (gap decision 263).
func (c *compiler) stringRun(raw bool) *expr {
	if raw {
		return star(stringChar(true))
	}
	run, ok := c.memo["stringrun"]
	if !ok {
		r := c.g.declare("run")
		run = ref(r)
		c.g.define(r, seq(star(stringClass), opt(seq(jsonEscape(), run))))
		c.memo["stringrun"] = run
	}
	return run
}

// stringClass is the characters of a bounded JSON string that stand for
// themselves: any but the quote, the backslash, control characters and
// "<" (written escaped, so that no marker can be written in the string).
var stringClass = freeze(class(true, runeRange{0, 0x1f}, runeRange{'"', '"'}, runeRange{'<', '<'}, runeRange{'\\', '\\'}))

// stringChar is one character of a bounded string: a raw argument's (any
// but "<"), or a JSON string's (any that stands for itself but "<", or an
// escape), so that no marker can be written in it.
func stringChar(raw bool) *expr {
	if raw {
		return class(true, runeRange{'<', '<'})
	}
	return alt(stringClass, jsonEscape())
}

// maxShapeCost caps what one pattern or format may cost an engine
// (expandedCost): past it, it is not enforced (reported).
const maxShapeCost = maxExpanded / 4

// stringShape is the expression of a string of v that its pattern or its
// format asks for (the pattern first when it has both: the other is
// reported), written in ctx as JSON or, with raw, as an argument's raw
// text: nil when v has neither, or when neither can be enforced (then
// reported). With lengths (lo > 0 or hi >= 0) it is the shape's values of
// those lengths when lengthBounded can write them (counted is then true).
// Each pattern or format is a rule, once per grammar, context and lengths.
func (c *compiler) stringShape(v *view, ctx textContext, raw bool, lo, hi int, negs []*expr, negNodes []int) (shape *expr, counted bool) {
	d := c.d
	var value *expr
	var key, path, kw string
	// Under strict, the other patterns and formats, which the string
	// automaton enforces together (decision 201), and where each is.
	var more []*expr
	var morePaths, moreKws, keys []string
	// Under strict, the lookahead assertions at the start of a pattern,
	// as more values and nots of the automaton (decision 230), and the
	// patterns that hold them.
	var aheadNegs []*expr
	var aheadPaths []string
	for _, n := range v.nodes {
		// Whether this schema's pattern is enforced: a custom format
		// beside it is its name (decision 275).
		patternHeld := false
		for _, k := range [...]struct {
			node int
			name string
		}{{n.ks.Pattern, "pattern"}, {n.ks.Format, "format"}} {
			if k.node < 0 {
				continue
			}
			p := n.path + "." + k.name
			if d.Kind(k.node) != pyjson.String {
				c.drop(p, k.name)
				continue
			}
			text := d.Str(k.node)
			if value != nil && !c.strict {
				c.loosen(p, k.name, "only one pattern or format of a string is enforced, and "+kw+" at "+path+" is")
				continue
			}
			if len(more) == maxStringShapes-1 {
				// Each would be translated, and the automaton refuse them
				// all in the end (decision 218).
				c.fail(p, "more than "+strconv.Itoa(maxStringShapes)+" patterns and formats constrain one string, and strict enforces at most "+strconv.Itoa(maxStringShapes)+" together; merge them into fewer patterns or turn strict off")
				return nil, false
			}
			var e *expr
			if k.name == "pattern" {
				var err error
				if e, err = c.patternOf(text); err != nil {
					var rest *expr
					var musts, negs []*expr
					if isLookaheadRefusal(err) {
						rest, musts, negs, err = c.lookaheadsOf(text)
					}
					if err != nil {
						c.loosen(p, k.name, err.Error())
						continue
					}
					e = rest
					if !c.strict {
						// The rest is enforced, the assertions reported.
						c.loosen(p, k.name, "its lookahead assertions are enforced under strict only")
					} else {
						for _, m := range musts {
							more, morePaths, moreKws = append(more, m), append(morePaths, p), append(moreKws, k.name)
						}
						aheadNegs = append(aheadNegs, negs...)
						aheadPaths = append(aheadPaths, p)
					}
				}
			} else if e = formatExpr(text); e == nil {
				def := definedFormat(text)
				if def == "" && patternHeld {
					// A format JSON Schema does not define, beside the
					// pattern that spells its strings (as zod writes
					// "cuid" or "e164"): an annotation, which 2020-12
					// has no validator fail on; reported, under strict
					// too (decision 275). (Not strict, the pattern's
					// value already stands, and it was reported above.)
					c.report(p, k.name)
					continue
				}
				why := "the format " + strconv.Quote(text) + " is not one the grammar knows"
				if def != "" && def != text {
					why += " (did you mean " + strconv.Quote(def) + "?)"
				}
				c.loosen(p, k.name, why)
				continue
			} else if why := formatLoose(text); why != "" {
				// Enforced as far as it goes, and reported.
				if c.loosen(p, k.name, why); c.err != nil {
					return nil, false
				}
			}
			patternHeld = patternHeld || k.name == "pattern"
			if value != nil {
				more, morePaths, moreKws = append(more, e), append(morePaths, p), append(moreKws, k.name)
				keys = append(keys, "&"+k.name+":"+text)
				continue
			}
			value = e
			key, path, kw = k.name+":"+text, p, k.name
		}
	}
	if len(aheadNegs) > 0 {
		negs = append(slices.Clip(negs), aheadNegs...)
	}
	if value == nil && len(negs) == 0 {
		return nil, false
	}
	key += strings.Join(keys, "")
	if len(negs) > 0 || len(more) > 0 {
		shape, ok := c.negatedShape(v, ctx, raw, lo, hi, append([]*expr{value}, more...), key, path, kw, negs, negNodes)
		if !ok && c.err == nil {
			for _, p := range aheadPaths {
				c.loosen(p, "pattern", "its lookahead assertions are told apart by an automaton past its limits")
			}
		}
		if ok || c.err != nil || len(more) == 0 {
			return shape, ok
		}
		// Past the automaton's limits: the first pattern or format
		// alone, the others reported (an error: strict).
		for i, p := range morePaths {
			c.loosen(p, moreKws[i], "the automaton that would enforce it together with "+kw+" at "+path+" is past its limits, or the grammar's budget for such automata is spent, so only that one is enforced")
		}
		if c.err != nil {
			return nil, false
		}
	}
	var automaton bool // lengths the length automaton counts (decision 197)
	if lo > 0 || hi >= 0 {
		// Every value of the shape within the lengths (minLength 1 beside
		// a date-time): they hold by themselves.
		el, eh := lengthRange(value)
		counted = lo <= el && (hi < 0 || eh >= 0 && eh <= hi)
	}
	if !counted && (lo > 0 || hi >= 0) && lo <= MaxCount && hi <= MaxCount {
		if bounded, ok := lengthBounded(value, lo, hi); ok {
			value, counted = bounded, true
		} else {
			automaton = c.strict
		}
		if counted || automaton {
			key += "|" + strconv.Itoa(lo) + "," + strconv.Itoa(hi)
		}
	}
	memoKey := "shape" + strconv.Itoa(int(ctx)) + strconv.FormatBool(raw) + key
	if r, ok := c.memo[memoKey]; ok {
		return r, counted || automaton
	}
	if automaton {
		if e, ok := c.stringAutomaton(value, nil, lo, hi, raw, path); ok {
			r := ref(c.g.rule(kw, e)) // nil (no value can be written) is a rule of nothing
			c.memo[memoKey] = r
			return r, true
		}
		// The lengths are reported (an error: strict): the shape
		// alone, under its own key.
		memoKey = memoKey[:strings.LastIndexByte(memoKey, '|')]
		if r, ok := c.memo[memoKey]; ok {
			return r, false
		}
	}
	var e *expr
	switch {
	case value == nil:
	case kw == "format" && !counted && raw:
		e = formatRaw(strings.TrimPrefix(key, "format:")) // encoded once per process
	case kw == "format" && !counted:
		e = seq(lit(`"`), formatJSON(strings.TrimPrefix(key, "format:")), lit(`"`))
	case raw:
		e = c.rawShape(value)
	default:
		e = seq(lit(`"`), jsonChars(value), lit(`"`))
	}
	if e != nil && expandedCost(e) > maxShapeCost {
		c.loosen(path, kw, "it would cost an engine more than "+itoa(maxShapeCost)+" elements")
		return nil, false
	}
	r := ref(c.g.rule(kw, e)) // nil (no value can be written) is a rule of nothing
	c.memo[memoKey] = r
	return r, counted
}

// rawShape is a pattern's values as a raw argument's text (rawChars: no
// "<", decision 129), but for a tail that matches everything (the end of
// ^a, unanchored), written as the raw text itself, "<" allowed and the
// markers kept out (decision 306): the head holds no "<", so the raw
// text's automaton is at its start there.
func (c *compiler) rawShape(value *expr) *expr {
	if value.kind == kSeq && len(value.items) > 1 && matchesEverything(value.items[len(value.items)-1]) {
		head := rawChars(seq(value.items[:len(value.items)-1]...))
		if head == nil {
			return nil
		}
		return seq(head, c.rawText())
	}
	return rawChars(value)
}

// negatedShape is stringShape for a view whose not rules out texts
// (negs, the nots of the schemas negNodes; decision 198), or whose
// patterns and formats are several (decision 201): the strings of the
// lengths that are values of every one of values (the patterns and
// formats read; nil ones left out) and of none of negs, by the string
// automaton (counted true). Where it can't be built, each not is reported
// (an error: only strict has negs), and ok is false.
func (c *compiler) negatedShape(v *view, ctx textContext, raw bool, lo, hi int, values []*expr, key, path, kw string, negs []*expr, negNodes []int) (*expr, bool) {
	b := []byte(key + "|not")
	for _, n := range negNodes {
		b = strconv.AppendInt(append(b, ','), int64(n), 10)
	}
	key = string(b)
	memoKey := "shape" + strconv.Itoa(int(ctx)) + strconv.FormatBool(raw) + key + "|" + strconv.Itoa(lo) + "," + strconv.Itoa(hi)
	if r, ok := c.memo[memoKey]; ok {
		return r, true
	}
	if path == "" {
		path, kw = v.path, "string"
	}
	g := stringGroup{lo: lo, hi: hi}
	for _, e := range values {
		if e != nil {
			g.values = append(g.values, e)
		}
	}
	e, ok := c.groupAutomaton([]stringGroup{g}, negs, raw, path)
	if !ok {
		for _, n := range v.nodes {
			if slices.Contains(negNodes, n.node) {
				c.loosen(n.path+".not", "not", "the strings it rules out are told apart by an automaton past its limits")
			}
		}
		if excluded, at := v.excludedValues(); len(excluded) > 0 {
			c.loosen(at, "if", "the strings the conditions list are told apart by an automaton past its limits")
		}
		return nil, false
	}
	r := ref(c.g.rule(kw, e)) // nil (no string qualifies) is a rule of nothing
	c.memo[memoKey] = r
	return r, true
}

// maxStringShapes caps the patterns and formats of one string that strict
// enforces together (by the string automaton, decision 201): an allOf of
// 10,000 patterns translated each of them before the automaton refused
// them, 200 ms and 500 MB (decision 218).
const maxStringShapes = 64

// longString is a string of v of lo to hi characters (hi < 0: no upper
// bound) where lo or hi is past chunkFrom: JSON in ctx, or with raw the
// raw text of an argument. Written as one repetition, such a length would
// cost an engine an element per character (llama.cpp writes S{0,n} out as
// n rules). Instead it is written in chunks of B characters, B the square
// root of the greatest length rounded up (chunkedRep), about 28B elements
// in all where a repetition of n characters is 13n. A rule per length
// pair, context and form, written once per grammar however many strings
// share it, spends the repetition budget once (repetitionCost: what its
// rules cost an engine in the budget's units; a string of MaxLength takes
// it all).
func (c *compiler) longString(v *view, ctx textContext, raw bool, lo, hi int) *expr {
	key := "long" + strconv.Itoa(int(ctx)) + strconv.FormatBool(raw) + ":" + strconv.Itoa(lo) + "," + strconv.Itoa(hi)
	if r, ok := c.memo[key]; ok {
		return r
	}
	b := chunkSize(max(lo, hi))
	if !c.spendRepetitions(v, c.repetitionCost(lo, hi), "Length") {
		if raw {
			return c.rawText()
		}
		return c.quotedString(ctx)
	}
	if c.xgrammar && !raw && hi >= 0 {
		e := seq(lit(`"`), c.xgrammarLong(lo, hi), lit(`"`))
		c.memo[key] = e
		return e
	}
	// The character and the chunk are rules once per grammar.
	char := c.stringCharRule(raw)
	chunkKey := "chunk" + strconv.FormatBool(raw) + strconv.Itoa(b)
	chunk, ok := c.memo[chunkKey]
	if !ok {
		chunk = ref(c.g.rule("chunk", rep(char, b, b)))
		c.memo[chunkKey] = chunk
	}
	var run *expr
	if hi < 0 {
		run = c.stringRun(raw)
	}
	e := ref(c.g.rule("long", chunkedRep(char, chunk, run, b, lo, hi)))
	if !raw {
		e = seq(lit(`"`), e, lit(`"`))
	}
	c.memo[key] = e
	return e
}

// chunkedRep is el repeated lo to hi times (hi < 0: no upper bound, the
// tail of any number written run when not nil) with chunk, el repeated b
// times: the exact part is chunk{lo/b} el{lo%b} and
// the optional part of up to m (m = hi-lo) is chunk{0,q-1} el{0,b-1} |
// chunk{q} el{0,r}, q and r the quotient and remainder of m by b (el{rest,
// rest+m} when m < b). Each count is written one way, and each count of
// the repetitions is under 2b. With b the square root of the greatest
// count, it costs an engine about 28b elements where el{lo,hi} costs 13 a
// count.
func chunkedRep(el, chunk, run *expr, b, lo, hi int) *expr {
	chunks, rest := rep(chunk, lo/b, lo/b), lo%b
	switch m := hi - lo; {
	case hi < 0 && run != nil:
		return seq(chunks, rep(el, rest, rest), run)
	case hi < 0:
		return seq(chunks, rep(el, rest, -1))
	case m < b:
		return seq(chunks, rep(el, rest, rest+m))
	default:
		q, r := m/b, m%b
		return seq(chunks, rep(el, rest, rest), alt(seq(rep(chunk, 0, q-1), rep(el, 0, b-1)), seq(rep(chunk, q, q), rep(el, 0, r))))
	}
}

// repeated is el repeated lo to hi times (hi < 0: no upper bound), part
// of a count pair whose greatest count is whole: one repetition when whole
// is at most chunkFrom, else in chunks (chunkedRep) of el made a rule, so
// that a count costs an engine about its square root, as the budget
// counts it (repetitionCost).
func (c *compiler) repeated(el *expr, lo, hi, whole int) *expr {
	if whole <= chunkFrom {
		return rep(el, lo, hi)
	}
	b := chunkSize(whole)
	r := ref(c.g.rule("item", el))
	return chunkedRep(r, ref(c.g.rule("chunk", rep(r, b, b))), nil, b, lo, hi)
}

// chunkSize is the chunk of chunkedRep for counts up to n: the square root
// of n, rounded up.
func chunkSize(n int) int {
	b := 1
	for b*b < n {
		b++
	}
	return b
}

// repetitionCost is what the count pair lo, hi (hi < 0: no upper bound)
// spends of the repetition budget: its greatest count for one repetition;
// past chunkFrom, what the chunks (chunkedRep, the chunk's rule included)
// cost an engine (expandedCost) in optional counts of one repetition (13
// elements each), at most the whole budget, so that one string of
// MaxLength can still be enforced.
func repetitionCost(lo, hi int) int {
	n := max(lo, hi)
	if n <= chunkFrom {
		return n
	}
	b, r := chunkSize(n), ref(0)
	elements := expandedCost(chunkedRep(r, r, nil, b, lo, hi)) + expandedCost(rep(r, b, b)) + 2*ruleCost
	return min((elements+12)/13, maxRepetitions)
}

// repetitionCost is repetitionCost(lo, hi), worked out once per count
// pair: once the budget is spent, every later string or array of a pair
// past chunkFrom asks again, and building its chunks to cost them took a
// third of the compile of 8,000 strings of 300 length pairs (gap decision
// 319).
func (c *compiler) repetitionCost(lo, hi int) int {
	if max(lo, hi) <= chunkFrom {
		return repetitionCost(lo, hi)
	}
	if c.repCosts == nil {
		c.repCosts = map[[2]int]int{}
	}
	n, ok := c.repCosts[[2]int{lo, hi}]
	if !ok {
		n = repetitionCost(lo, hi)
		c.repCosts[[2]int{lo, hi}] = n
	}
	return n
}

// budget spends the grammar's repetition budget on a count pair: past it,
// the counts are loosened (reported; an error under strict) and the
// repetition is unbounded.
func (c *compiler) budget(v *view, lo, hi int, what string) (int, int, bool) {
	if lo == 0 && hi < 0 {
		return 0, -1, false
	}
	if c.spendRepetitions(v, c.repetitionCost(lo, hi), what) {
		return lo, hi, true
	}
	return 0, -1, false
}

// spendRepetitions spends n of the grammar's repetition budget on v's
// count pair (minWHAT, maxWHAT) and reports whether it could: past the
// budget, the counts are loosened (reported; an error under strict).
func (c *compiler) spendRepetitions(v *view, n int, what string) bool {
	if c.reps+n <= c.repLimit {
		c.reps += n
		return true
	}
	why := c.repetitionsWhy()
	for _, nd := range v.nodes {
		minNode, maxNode := countNodes(nd.ks, what)
		if minNode >= 0 {
			c.loosen(nd.path+".min"+what, "min"+what, why)
		}
		if maxNode >= 0 {
			c.loosen(nd.path+".max"+what, "max"+what, why)
		}
	}
	return false
}

// repetitionsWhy is why a count is loosened past the repetition budget.
func (c *compiler) repetitionsWhy() string {
	if c.repLimit < maxRepetitions {
		return "with its counts, the grammar takes more than " + itoa(maxExpanded) + " elements once an engine expands its repetitions"
	}
	return "the grammar's repetition counts add up to more than " + itoa(maxRepetitions)
}

// tupleItems reports whether ks's items is the array form of drafts 4 to
// 2019-09 (a schema per position, as prefixItems; additionalItems for the
// elements past them), without a prefixItems beside it.
func tupleItems(d *pyjson.Doc, ks *schema.Keys) bool {
	return ks.Items >= 0 && ks.PrefixItems < 0 && d.Kind(ks.Items) == pyjson.Array
}

// viewArray is a JSON array valid for every schema of v: at each position
// the prefixItems or items of each that apply there, the greatest
// minItems and the least maxItems.
func (c *compiler) viewArray(v *view, ctx textContext) *expr {
	d := c.d
	lo, hi := c.viewLengths(v, "Items")
	if emptyExcluded(v) {
		lo = max(lo, 1) // (decision 291)
	}
	if c.noLength(v, "Items", lo, hi) {
		return nil
	}
	prefixLen := 0
	for _, n := range v.nodes {
		if n.ks.PrefixItems >= 0 && d.Kind(n.ks.PrefixItems) == pyjson.Array {
			prefixLen = max(prefixLen, int(d.Nodes[n.ks.PrefixItems].Len))
		}
		if tupleItems(d, n.ks) {
			prefixLen = max(prefixLen, int(d.Nodes[n.ks.Items].Len))
		} else if n.ks.Items >= 0 && d.Kind(n.ks.Items) == pyjson.Array {
			c.drop(n.path+".items", "items") // beside prefixItems: no meaning
		}
	}
	if hi >= 0 {
		prefixLen = min(prefixLen, hi)
	}
	// The elements of the prefixItems (and older items) arrays, read
	// once: looking each up by position is quadratic in the prefix.
	var elements map[int][]int
	nth := func(arr, i int) int {
		es, ok := elements[arr]
		if !ok {
			if elements == nil {
				elements = map[int][]int{}
			}
			es = elementsOf(d, arr)
			elements[arr] = es
		}
		return es[i]
	}
	// live are the schemas of v that may give an element a schema at the
	// position at is asked about next, or after it, in their order: at is
	// asked about positions in increasing order, and a schema whose prefix
	// ends before a position and that has nothing for the elements after
	// it is passed over from there on. Looking at every schema for every
	// position was quadratic: 8,000 positions beside an allOf of 8,000
	// one-element prefixes took 0.4 s.
	live := make([]int, 0, len(v.nodes))
	for j := range v.nodes {
		live = append(live, j)
	}
	after := func(n *vnode, i int) bool { // a schema for an element past position i
		ks := n.ks
		switch {
		case ks.PrefixItems >= 0 && d.Kind(ks.PrefixItems) == pyjson.Array && i+1 < int(d.Nodes[ks.PrefixItems].Len):
			return true
		case tupleItems(d, ks):
			return i+1 < int(d.Nodes[ks.Items].Len) || d.Lookup(n.node, "additionalItems") >= 0
		}
		return ks.Items >= 0 && d.Kind(ks.Items) != pyjson.Array
	}
	// at is the view of the element at position i (i == prefixLen: every
	// element past the prefix).
	at := func(i int) *view {
		w := &view{root: rootNone}
		kept := live[:0]
		for _, j := range live {
			n := &v.nodes[j]
			if after(n, i) {
				kept = append(kept, j)
			}
			ks := n.ks
			if ks.PrefixItems >= 0 && d.Kind(ks.PrefixItems) == pyjson.Array && i < int(d.Nodes[ks.PrefixItems].Len) {
				c.addTo(w, nth(ks.PrefixItems, i), n.path+".prefixItems["+strconv.Itoa(i)+"]")
				continue
			}
			if tupleItems(d, ks) {
				if i < int(d.Nodes[ks.Items].Len) {
					c.addTo(w, nth(ks.Items, i), n.path+".items["+strconv.Itoa(i)+"]")
				} else if ai := d.Lookup(n.node, "additionalItems"); ai >= 0 {
					c.addTo(w, ai, n.path+".additionalItems")
				}
				continue
			}
			if ks.Items >= 0 && d.Kind(ks.Items) != pyjson.Array {
				c.addTo(w, ks.Items, n.path+".items")
			}
		}
		live = kept
		if w.path == "" {
			w.path = v.path + ".items"
		}
		return w
	}
	prefix := make([]*expr, prefixLen)
	for i := range prefixLen {
		w := at(i)
		prefix[i] = c.value(w, ctx, false)
		if w.never || c.err != nil {
			// No element can be written here, so none past it: they
			// are not built (what arrayOf writes after this one is
			// never reached).
			prefix = prefix[:i+1]
			break
		}
		if 3*(i+1) > maxExpanded {
			// Each element written costs an engine three elements at
			// least (", " and its value): the prefix can't fit, and
			// the compile stops before building the rest of it.
			c.fail(v.path+".prefixItems", overExpandedText)
			return nil
		}
	}
	var item *expr // nil: no element past the prefix
	rest := at(prefixLen)
	if u, ok := c.unevaluatedItemsOf(v); ok && u >= 0 && !c.has(v, func(ks *schema.Keys) bool { return ks.Items >= 0 }) {
		// The elements past the prefixes are unevaluated.
		c.addTo(rest, u, c.rootPath(v)+".unevaluatedItems")
	}
	if !rest.never {
		item = c.value(rest, ctx, false)
	}
	if len(c.uniquePending) > c.uniqueFrom && prefixLen == 0 && !rest.never {
		if _, ok := c.containsOf(v); !ok {
			if e, ok := c.uniqueArray(rest, lo, hi, ctx); ok {
				c.uniquePending = c.uniquePending[:c.uniqueFrom]
				return e
			}
		}
	}
	if cn, ok := c.containsOf(v); ok {
		array, done, l, h := c.containsArray(v, cn, prefixLen, rest, item, lo, hi, ctx)
		if done {
			return array
		}
		lo, hi = l, h
	}
	lo, hi, _ = c.budget(v, lo, hi, "Items")
	return c.arrayOf(prefix, item, lo, hi, v.path)
}

// maxUniqueValues caps the distinct values uniqueArray keeps apart: it
// writes a rule per set of values already written (2^8 = 256 rules), and
// its cost to an engine is capped too (7 values fit).
const maxUniqueValues = 8

// uniqueArray is an array of lo to hi (hi < 0: no bound) distinct
// elements of w when w's values are a list of at most maxUniqueValues
// distinct values (enum or const, each checked against w as
// checkedLiterals checks them), in any order: a rule per set of the
// values already written, which offers the others and, from lo on, the
// end (gap decision 211). ok is false when w's values are not such a
// list, or a value can't be decided.
func (c *compiler) uniqueArray(w *view, lo, hi int, ctx textContext) (*expr, bool) {
	d := c.d
	list := -1
	for _, n := range w.nodes {
		switch {
		case n.ks.Enum >= 0 && d.Kind(n.ks.Enum) == pyjson.Array:
			list = n.ks.Enum
		case n.ks.Const >= 0:
			list = -2 - n.ks.Const
		default:
			continue
		}
		break
	}
	if list == -1 || len(w.absent) > 0 || len(w.present) > 0 {
		return nil, false
	}
	var members []int
	if list <= -2 {
		members = []int{-2 - list}
	} else {
		d.Elements(list, func(e, _ int) bool { members = append(members, e); return len(members) <= 4*maxUniqueValues })
	}
	// The valid members, grouped by value (1 and 1.0 are one value).
	var classes [][]int
	for _, m := range members {
		if c.spent() || len(members) > 4*maxUniqueValues {
			return nil, false
		}
		switch c.listedValid(w, m) {
		case undecided:
			return nil, false
		case invalid:
			continue
		}
		class := len(classes)
		for i, cl := range classes {
			same := c.sameValue(cl[0], m, 0)
			if same == undecided {
				return nil, false
			}
			if same == valid {
				class = i
				break
			}
		}
		if class == len(classes) {
			classes = append(classes, nil)
		}
		classes[class] = append(classes[class], m)
	}
	k := len(classes)
	if k == 0 || k > maxUniqueValues {
		return nil, false
	}
	// What the rules cost an engine (a rule per set, an alternative of
	// four elements per value it offers), within a share of the caps.
	if cost := (1 << k) * (ruleCost + 5*k); cost > maxShapeCost/2 || cost > (maxExpanded-c.g.expanded)/4 {
		return nil, false
	}
	elems := make([]*expr, k)
	for i, cl := range classes {
		var alts []*expr
		for _, m := range cl {
			alts = c.appendListed(alts, m, string(d.AppendPython(nil, m)), ctx, false)
		}
		if len(alts) == 0 {
			return nil, false // a value the context can't hold (a marker)
		}
		elems[i] = ref(c.g.rule("value", alt(alts...)))
		if !c.spend(w.path, 64*len(alts)) {
			return nil, true
		}
	}
	if hi < 0 || hi > k {
		hi = k
	}
	if lo > hi {
		c.impossible(w.path, "no array can be written: minItems asks for more distinct elements than the items allow")
		return nil, true
	}
	// rules[s]: the rest of an array whose elements so far are the set s.
	rules := make([]int, 1<<k)
	for s := 1; s < 1<<k; s++ {
		if n := bits.OnesCount(uint(s)); n <= hi {
			rules[s] = c.g.declare("unique")
		}
	}
	for s := 1; s < 1<<k; s++ {
		n := bits.OnesCount(uint(s))
		if n > hi {
			continue
		}
		var alts []*expr
		if n < hi {
			for i := range k {
				if s&(1<<i) == 0 {
					alts = append(alts, seq(lit(", "), elems[i], ref(rules[s|1<<i])))
				}
			}
		}
		if n >= lo {
			alts = append(alts, empty())
		}
		c.g.define(rules[s], alt(alts...))
	}
	var first []*expr
	if hi > 0 {
		for i := range k {
			first = append(first, seq(elems[i], ref(rules[1<<i])))
		}
	}
	if lo == 0 {
		first = append(first, empty())
	}
	return seq(lit("["), alt(first...), lit("]")), true
}

// arrayOf is a JSON array of the prefix's elements, then elements of item
// (nil: none), with lo to hi elements (hi -1: no bound).
func (c *compiler) arrayOf(prefix []*expr, item *expr, lo, hi int, path string) *expr {
	if hi >= 0 && len(prefix) > hi {
		prefix = prefix[:hi]
	}
	if len(prefix) == 0 && lo == 0 && hi < 0 && item != nil && item.proto != nil {
		for ctx := range textContext(2) {
			if item == jsonProto(ctx).ref(0) {
				return shapes(ctx).array // built once
			}
		}
	}
	// from(i) is the rest of the array after i elements, each rest
	// element led by ", ".
	var from func(i int) *expr
	from = func(i int) *expr {
		if hi >= 0 && i >= hi {
			return empty()
		}
		if i < len(prefix) {
			next := seq(lit(", "), prefix[i], from(i+1))
			if i >= lo {
				return alt(next, empty())
			}
			return next
		}
		if item == nil {
			if i < lo {
				return nil
			}
			return empty()
		}
		more := -1
		if hi >= 0 {
			more = hi - i
		}
		return c.repeated(seq(lit(", "), item), max(0, lo-i), more, max(lo, hi))
	}
	var first *expr
	switch {
	case hi == 0:
	case len(prefix) > 0:
		first = seqOrNil(prefix[0], from(1))
	case item != nil:
		first = seqOrNil(item, from(1))
	}
	var body *expr
	switch {
	case first == nil && lo > 0:
		c.impossible(path, "no array can be written: minItems asks for more elements than the schema allows")
		return nil
	case first == nil:
		body = empty()
	case lo == 0:
		body = opt(first)
	default:
		body = first
	}
	return seq(lit("["), body, lit("]"))
}

// seqOrNil is seq(a, b), or nil when either matches nothing.
func seqOrNil(a, b *expr) *expr {
	if a == nil || b == nil {
		return nil
	}
	return seq(a, b)
}

// objectMembers reads the object keywords of v: its declared properties in
// order, each with the view of its value (memberValue), whether it is
// required, the required names no schema declares, and the view of any
// other member (never when some schema forbids them).
func (c *compiler) objectMembers(v *view) (names []string, values []*view, required []bool, extra *view) {
	d := c.d
	// Sized for the declared names, up to the cap on them (a map grown
	// one name at a time cost a tenth of a wide object's compile).
	declared := 0
	for _, n := range v.nodes {
		if ps := n.ks.Properties; ps >= 0 && d.Kind(ps) == pyjson.Object {
			declared += int(d.Nodes[ps].Len)
		}
	}
	declared = min(declared, maxObjectMembers+1)
	index := make(map[string]int, declared)
	names = make([]string, 0, declared)
	req := map[string]bool{}
	var reqOrder []string
	for _, n := range v.nodes {
		ks := n.ks
		if ks.Properties >= 0 && d.Kind(ks.Properties) == pyjson.Object {
			d.Members(ks.Properties, func(k, _ int) bool {
				name := d.Str(k)
				if !c.spend(n.path, len(name)+64) {
					return false
				}
				if _, ok := index[name]; !ok {
					index[name] = len(names)
					names = append(names, name)
				}
				return true
			})
		}
		if ks.Required >= 0 && d.Kind(ks.Required) == pyjson.Array {
			d.Elements(ks.Required, func(e, _ int) bool {
				if d.Kind(e) == pyjson.String && !req[d.Str(e)] {
					req[d.Str(e)] = true
					reqOrder = append(reqOrder, d.Str(e))
				}
				return len(reqOrder) <= maxObjectMembers
			})
		}
	}
	for _, name := range reqOrder {
		if _, ok := index[name]; !ok {
			// Written as a key, as a declared name is (decision 219: a
			// required name of 15 MB was written out before a cap saw it).
			if !c.spend(v.path, len(name)+64) {
				break
			}
			index[name] = len(names)
			names = append(names, name)
		}
	}
	if len(names) > maxObjectMembers {
		// Each member is its key's text and its value at least: past
		// the cap, whatever the values, before building them.
		c.fail(v.path, tooManyMembersText)
		return nil, nil, nil, &view{path: v.path, root: rootNone} // (not compiled: the compile fails)
	}
	values = make([]*view, 0, len(names))
	required = make([]bool, 0, len(names))
	for _, name := range names {
		if c.stop(v.path) {
			break // a cap passed: the compile fails
		}
		values = append(values, c.memberValue(v, name))
		required = append(required, req[name])
	}
	names = names[:len(values)]
	return names, values, required, c.otherMembers(v)
}

// tooManyMembersText is the error of an object past maxObjectMembers.
var tooManyMembersText = "the object declares or requires more than " + itoa(maxObjectMembers) + " names, which take more than " + itoa(maxExpanded) + " elements once an engine expands the grammar; simplify the schema"

// maxObjectMembers caps the names one object declares or requires: each
// member costs an engine seven elements at least (", \"\": " and its
// value), so past maxExpanded/7 no grammar of the object fits, and the
// compile stops before it reads the members' schemas (a required list of
// 40,000 names took 80 ms to refuse after building them).
const maxObjectMembers = maxExpanded / 7

// memberValue is the view of member name's value in an object of v: in
// each schema, the property's schema where it declares name and the
// schemas of its patternProperties whose patterns match name (both apply),
// else its additionalProperties.
func (c *compiler) memberValue(v *view, name string) *view {
	w := &view{root: rootNone}
	if len(v.nodes) < wideView {
		for i := range v.nodes {
			c.memberIn(w, &v.nodes[i], name)
		}
	} else {
		c.nodesFor(v, name, func(n *vnode) { c.memberIn(w, n, name) })
	}
	if w.path == "" {
		w.path = v.path + ".required"
	}
	for _, x := range v.excluded {
		if x.name == name && name != "" {
			w.excluded = append(w.excluded, exclusion{name: "", values: x.values, path: x.path, types: x.types})
		}
	}
	return w
}

// memberIn adds to w what schema n says of member name's value.
func (c *compiler) memberIn(w *view, n *vnode, name string) {
	d, ks := c.d, n.ks
	if ks.Properties >= 0 && d.Kind(ks.Properties) == pyjson.Object {
		if s := c.ptr.Child(d, ks.Properties, name); s >= 0 {
			c.addTo(w, s, n.path+".properties."+name)
			// A declared name a pattern matches takes both schemas.
			c.patternValues(w, n.ks.PatternProperties, n.path, name)
			return
		}
	}
	if c.patternValues(w, n.ks.PatternProperties, n.path, name) {
		return
	}
	if ks.AdditionalProperties >= 0 {
		c.addTo(w, ks.AdditionalProperties, n.path+".additionalProperties")
	}
}

// wideView is the number of schemas from which a view's members are
// looked up through an index of the names its schemas declare
// (memberIndex), not schema by schema, and its schemas in a set (has):
// an allOf of 3,000 objects of one property each looked at every schema
// for every name, 9 million lookups (gap decision 218).
//
// A variable only so that TestWideViewsIndexed can compare both ways.
var wideView = 16

// A memberIndex is, for a wide view, where each name is declared and
// which schemas say something of every member (additionalProperties) or
// of the names their patterns match (patternProperties): the only schemas
// a member's value depends on.
type memberIndex struct {
	nodes      int // len(view.nodes) when it was built
	declared   map[string][]int32
	additional []int32
	patterned  []int32
	// loosened: the matching work was spent, and the patterns reported
	// (nodesFor).
	loosened bool
}

// nodesFor calls f, in the view's order, with each schema of v that may
// say something of member name: those declaring it, and those with
// additionalProperties or patternProperties. Once the grammar's matching
// work is spent no name is matched against a pattern (patternValues), so
// the schemas with patterns are reported once and left out: an allOf of
// 3,000 schemas with a pattern each looked at every one for every name
// after that (gap decision 218).
func (c *compiler) nodesFor(v *view, name string, f func(n *vnode)) {
	if v.wide == nil {
		v.wide = &wideSets{}
	}
	x := v.wide.index
	if x == nil || x.nodes != len(v.nodes) {
		d := c.d
		x = &memberIndex{nodes: len(v.nodes), declared: map[string][]int32{}}
		for i, n := range v.nodes {
			if n.ks.Properties >= 0 && d.Kind(n.ks.Properties) == pyjson.Object {
				d.Members(n.ks.Properties, func(k, _ int) bool {
					name := d.Str(k)
					if at := x.declared[name]; len(at) == 0 || at[len(at)-1] != int32(i) {
						x.declared[name] = append(at, int32(i))
					}
					return true
				})
			}
			if n.ks.AdditionalProperties >= 0 {
				x.additional = append(x.additional, int32(i))
			}
			if n.ks.PatternProperties >= 0 {
				x.patterned = append(x.patterned, int32(i))
			}
		}
		v.wide.index = x
	}
	patterned := x.patterned
	if c.matchWork > maxMatchWork {
		if !x.loosened {
			x.loosened = true
			for _, i := range x.patterned {
				if n := &v.nodes[i]; c.d.Kind(n.ks.PatternProperties) == pyjson.Object {
					c.loosenPatternsOnce(n.ks.PatternProperties, n.path)
				}
			}
		}
		patterned = nil
	}
	// Merge the three ordered lists.
	lists := [3][]int32{x.declared[name], x.additional, patterned}
	for {
		next := int32(-1)
		for _, l := range lists {
			if len(l) > 0 && (next < 0 || l[0] < next) {
				next = l[0]
			}
		}
		if next < 0 {
			return
		}
		for k := range lists {
			if len(lists[k]) > 0 && lists[k][0] == next {
				lists[k] = lists[k][1:]
			}
		}
		f(&v.nodes[next])
	}
}

// patternValues adds to w (nil: to none, only matching) the schemas of
// patternProperties (node pp, -1: none, of the schema at path) whose
// patterns match name, and reports whether one did: then additionalProperties does not apply to name. A
// pattern that can't be checked against name (one the translator refuses,
// or the matching work spent) is taken as not matching, and reported (an
// error under strict).
func (c *compiler) patternValues(w *view, pp int, path, name string) bool {
	d := c.d
	if pp < 0 || d.Kind(pp) != pyjson.Object {
		return false
	}
	if c.matchWork > maxMatchWork {
		// Spent: each name after this would cost every pattern again
		// (names times patterns, gap decision 218), so the patterns are
		// reported once for the schema at path and applied to no name.
		c.loosenPatternsOnce(pp, path)
		return false
	}
	matched := false
	d.Members(pp, func(k, s int) bool {
		// The pattern's path, made only where it is used: most patterns
		// don't match most names.
		at := func() string { return path + ".patternProperties." + d.Str(k) }
		var match, decided bool
		if e := c.namePattern(k); e != nil {
			match, decided = c.exprMatches(e, name)
		} else if e = c.aheadName(k); e != nil && c.strict {
			// Decision 288: under strict, where the key automaton reads
			// such patterns; not strict, the pattern is reported as
			// before (applied, a recursive schema's grammar grew past
			// the cap).
			match, decided = c.aheadMatches(e, name, at())
		} else {
			c.loosen(at(), "patternProperties", "the pattern can't be translated, so the name "+strconv.Quote(name)+" can't be checked against it")
			return true
		}
		switch {
		case !decided:
			c.loosen(at(), "patternProperties", "the name "+strconv.Quote(name)+" can't be checked against it (a count past 1000, or the grammar's matching work spent)")
		case match:
			if w != nil {
				c.addTo(w, s, at())
			}
			matched = true
		}
		return true
	})
	return matched
}

// loosenPatternsOnce reports each pattern of patternProperties (node pp
// of the schema at path) as not checked against the names left, once per
// schema and path, when the matching work is spent.
func (c *compiler) loosenPatternsOnce(pp int, path string) {
	key := patternsAt{pp, path}
	if c.patternsLoosened[key] {
		return
	}
	if c.patternsLoosened == nil {
		c.patternsLoosened = map[patternsAt]bool{}
	}
	c.patternsLoosened[key] = true
	c.d.Members(pp, func(k, _ int) bool {
		c.loosen(path+".patternProperties."+c.d.Str(k), "patternProperties", "the names can't all be checked against it (the grammar's matching work spent)")
		return c.err == nil
	})
}

// patternsAt is a patternProperties node and the path of its schema.
type patternsAt struct {
	pp   int
	path string
}

// otherMembers is the view of the values of an object's members its
// schemas don't declare: their additionalProperties.
func (c *compiler) otherMembers(v *view) *view {
	extra := &view{path: v.path + ".additionalProperties", root: rootNone}
	for _, n := range v.nodes {
		if n.ks.AdditionalProperties >= 0 {
			c.addTo(extra, n.ks.AdditionalProperties, n.path+".additionalProperties")
		}
	}
	return extra
}

// hasDependencies reports whether a schema of v has dependentRequired (or
// dependencies with array entries).
func (c *compiler) hasDependencies(v *view) bool {
	for i := range v.nodes {
		if nodes, _ := c.requiredDeps(&v.nodes[i]); nodes[0] >= 0 || nodes[1] >= 0 {
			return true
		}
	}
	return false
}

// declares reports whether a schema of v declares property name.
func (c *compiler) declares(v *view, name string) bool {
	if len(v.nodes) >= wideView {
		found := false
		c.nodesFor(v, name, func(n *vnode) {
			found = found || n.ks.Properties >= 0 && c.d.Kind(n.ks.Properties) == pyjson.Object && c.ptr.Child(c.d, n.ks.Properties, name) >= 0
		})
		return found
	}
	for _, n := range v.nodes {
		if n.ks.Properties >= 0 && c.d.Kind(n.ks.Properties) == pyjson.Object && c.ptr.Child(c.d, n.ks.Properties, name) >= 0 {
			return true
		}
	}
	return false
}

// viewObject is a JSON object valid for every schema of v: the declared
// properties in their order, the required ones present, separated as the
// renderer writes JSON (", " and ": "). An object that declares no
// property has any members valid for additionalProperties. An object that
// declares properties is closed: other members are left out, which the
// schema allows unless additionalProperties is false, so that is reported
// (under strict, an error).
func (c *compiler) viewObject(v *view, ctx textContext, xml bool) *expr {
	if lo, hi := c.viewLengths(v, "Properties"); c.noLength(v, "Properties", lo, hi) {
		return nil
	}
	if len(v.notRequired) > 0 {
		// Nots of required: an object that lacks a name of each set, a
		// case for each least choice of names (decisions 199 and 205).
		choices, _ := leastChoices(v.notRequired, maxExclusiveCases)
		var cases []*expr
		for _, absent := range choices {
			w := &view{nodes: slices.Clone(v.nodes), path: v.path, root: v.root, absent: append(slices.Clip(v.absent), absent...), objectsOnly: v.objectsOnly, present: v.present, excluded: v.excluded}
			w.copyLinks(v)
			cases = append(cases, c.dependentObjects(w, ctx, xml))
		}
		return alt(cases...)
	}
	return c.dependentObjects(v, ctx, xml)
}

// requireNames makes each name of present a required member of an
// object of v (a member added, with the value v's schemas give it, where
// none is declared); ok is false when one can't be there, so no object
// of the case is.
func (c *compiler) requireNames(v *view, present, names []string, values []*view, required []bool) ([]string, []*view, []bool, bool) {
	for _, name := range present {
		i := slices.Index(names, name)
		if i < 0 {
			i = len(names)
			names, values, required = append(names, name), append(values, c.memberValue(v, name)), append(required, false)
		}
		if values[i].never {
			return names, values, required, false
		}
		required[i] = true
	}
	return names, values, required, true
}

// leaveOut removes the members of absent; ok is false when one is
// required, so no object of the case is.
func leaveOut(absent, names []string, values []*view, required []bool) ([]string, []*view, []bool, bool) {
	for _, name := range absent {
		if i := slices.Index(names, name); i >= 0 {
			if required[i] {
				return names, values, required, false
			}
			names, values, required = slices.Delete(names, i, i+1), slices.Delete(values, i, i+1), slices.Delete(required, i, i+1)
		}
	}
	return names, values, required, true
}

// objectBody is viewObject for one case of dependentSchemas: the names of
// present must be there, those of absent must not.
func (c *compiler) objectBody(v *view, ctx textContext, xml bool, present, absent []string) *expr {
	absent = append(slices.Clip(absent), v.absent...)
	present = append(slices.Clip(present), v.present...)
	names, values, required, extra := c.objectMembers(v)
	_, unevaluated := c.unevaluatedPropertiesOf(v)
	if unevaluated >= 0 {
		// The members no schema declares are unevaluated: they take
		// unevaluatedProperties (those named below too, once named).
		c.addTo(extra, unevaluated, c.rootPath(v)+".unevaluatedProperties")
	}
	names, values, required, ok := c.requireNames(v, present, names, values, required)
	if !ok {
		return nil // a trigger that can't be there: no object of this case
	}
	hadNames := len(names) > 0
	if c.hasDependencies(v) {
		// A trigger whose dependent the case leaves out can't be there
		// either (dependentRequired: {"a": ["b"]} with b absent).
		absent = c.absentTriggers(v, absent)
	}
	if names, values, required, ok = leaveOut(absent, names, values, required); !ok {
		return nil // required and absent: no object of this case
	}
	var deps []dependency
	if c.hasDependencies(v) {
		names, values, required, deps = c.dependentMembers(v, names, values, required, extra, absent)
	}
	if unevaluated >= 0 {
		// (the names of present and of dependentRequired too: before,
		// those were written unchecked)
		path := c.rootPath(v) + ".unevaluatedProperties"
		for i, name := range names {
			if !c.declares(v, name) {
				c.addTo(values[i], unevaluated, path)
			}
		}
	}
	closed := c.unevaluatedClosed(v)
	if closed {
		// unevaluatedProperties: false, and nothing but properties
		// evaluates members: a name no schema declares is unevaluated,
		// so never valid (gap decision 300). Required (or present in
		// this case), no object; otherwise left out.
		for i, name := range names {
			if c.declares(v, name) {
				continue
			}
			if required[i] {
				c.impossible(v.path+".required", "requires "+name+", which no schema declares and unevaluatedProperties forbids")
				return nil
			}
			values[i].never = true
		}
	}
	if len(names) > 0 && !c.strict && !extra.never && !closed && !c.has(v, func(ks *schema.Keys) bool { return ks.MaxProperties >= 0 }) && !c.hasDependencies(v) {
		// (Not beside dependencies: dependentMembers, before, left out
		// the triggers the object could not hold, and a sibling's name
		// added here would escape them: decision 305.)
		names, values, required = c.siblingMembers(v, names, values, required)
	}
	if closed {
		names, values, required = c.evaluatedSiblings(v, names, values, required, len(deps) == 0)
	}
	for _, name := range v.absent {
		// (the members added from siblings, too; never with deps, whose
		// entries index names: exclusiveVariants)
		if i := slices.Index(names, name); i >= 0 && len(deps) == 0 {
			if required[i] {
				return nil
			}
			names, values, required = slices.Delete(names, i, i+1), slices.Delete(values, i, i+1), slices.Delete(required, i, i+1)
		}
	}
	if len(names) == 0 && !hadNames {
		member := c.freeMember(v, extra, ctx, absent)
		if member != nil && c.triggersBeside(v, absent) {
			c.dropDependentRequired(v)
		}
		lo, hi := c.viewLengths(v, "Properties")
		lo, hi, _ = c.budget(v, lo, hi, "Properties")
		if member == nil || hi == 0 {
			if lo > 0 {
				c.impossible(v.path, "no object can be written: minProperties asks for more members than the schema allows")
				return nil
			}
			return lit("{}")
		}
		if member == shapes(ctx).member && lo == 0 && hi < 0 {
			return shapes(ctx).object // built once
		}
		more := -1
		if hi > 0 {
			more = hi - 1
		}
		members := seq(member, c.repeated(seq(lit(", "), member), max(lo-1, 0), more, max(lo, hi)))
		if lo == 0 {
			members = opt(members)
		}
		return seq(lit("{"), members, lit("}"))
	}
	keys := c.keyNames(v)
	rest, why, none := c.patternMembers(v, append(slices.Clip(names), absent...), keys, ctx)
	if rest == nil && !none {
		if why != "" {
			c.patternPropertiesBeside(v, why)
		}
		rest = c.extras(v, extra, append(slices.Clip(names), absent...), keys, ctx, false)
	}
	body, ok := c.declaredMembers(v, names, values, required, deps, keys, rest != nil,
		func(name string) bool {
			var buf [64]byte
			return !containsForbidden(string(pyjson.AppendQuoted(buf[:0], name)), ctx)
		},
		func(name string, value *view) *expr {
			var buf [64]byte
			return seq(lit(string(append(pyjson.AppendQuoted(buf[:0], name), ": "...))), c.value(value, ctx, false))
		}, ", ", rest)
	if !ok {
		return nil
	}
	return seq(lit("{"), body, lit("}"))
}

// declaredMembers is the members of an object's declared properties (an
// argument list's too), in order, separated by sep and followed by rest
// (chainRules), in the cases dependentRequired (deps) asks for (one
// without it), any one of them: writable says whether a name can be
// written, mk makes its member; keys is the view of propertyNames (nil:
// none), which a name must pass. A required name that can't be written is an error;
// an optional property that can't be present is left out; a required one
// that no schema declares and one forbids makes the object impossible (ok
// false). minProperties and maxProperties are checked against them (open:
// other members may follow).
func (c *compiler) declaredMembers(v *view, names []string, values []*view, required []bool, deps []dependency, keys *view, open bool,
	writable func(string) bool, mk func(name string, value *view) *expr, sep string, rest *otherMembers) (body *expr, ok bool) {
	nreq := 0
	for _, r := range required {
		if r {
			nreq++
		}
	}
	lo, hi := c.viewLengths(v, "Properties")
	countsHold := lo <= nreq && (hi < 0 || !open && hi >= len(names))
	var exprs []*expr // with deps, each member's (nil: it can't be present)
	var can []bool
	var ms []member // without deps, the one case
	if len(deps) > 0 {
		exprs, can = make([]*expr, len(names)), make([]bool, len(names))
	}
	// Without dependencies, what the chain of members (chainRules) will
	// cost an engine is counted as the members are made, so that a chain
	// past maxExpanded stops the compile at the member that takes it
	// there, not once every member's value is compiled (gap decision
	// 322): once the members are certain to be written in that chain,
	// that is when the counts hold or are too many for countedChain.
	top := lo
	if hi >= 0 {
		top = hi
	}
	pending, named := 0, 0 // (named: the names' part of pending, chainNameCost)
	for i, name := range names {
		if c.stop(v.path) {
			return nil, false // a cap passed: no use compiling the rest
		}
		if !writable(name) {
			if required[i] {
				c.impossible(values[i].path, "a required property whose name can't be written")
				return nil, false
			}
			continue
		}
		if !c.keyIn(keys, name) {
			if required[i] {
				c.impossible(keys.path, "rules out "+strconv.Quote(name)+", which the object requires")
				return nil, false
			}
			continue
		}
		if values[i].never {
			if !required[i] {
				continue // can't be present
			}
			if !c.declares(v, name) {
				c.impossible(v.path+".required", "requires "+name+", which properties does not declare and additionalProperties forbids")
				return nil, false
			}
		}
		if len(deps) == 0 {
			ms = append(ms, member{mk(name, values[i]), required[i]})
			pending += chainMemberCost(ms[len(ms)-1].e, sep)
			named += chainNameCost(name, sep)
			if c.g.expanded+pending > maxExpanded && (countsHold || (len(ms)+1)*(top+1) > maxCountedRules) {
				c.chainOver(v, named, names[i+1:], values[i+1:], keys, writable, sep)
				return nil, false
			}
			continue
		}
		exprs[i], can[i] = mk(name, values[i]), true
	}
	if len(deps) == 0 {
		if !countsHold {
			// Not strict, an object closed by default may be what keeps
			// the count from being met: then the counts are reported, as
			// before, rather than the object made impossible.
			if body, ok := c.countedChain(ms, sep, rest, lo, hi); ok && (body != nil || c.strict || c.g.over != "") {
				if body == nil && c.g.over == "" {
					c.impossible(v.path, "no object can be written: minProperties and maxProperties ask for a number of members the schema does not allow")
				}
				return body, body != nil
			}
			c.memberCounts(v)
		}
		return c.chainRules(ms, sep, rest), true
	}
	if !countsHold {
		c.memberCounts(v)
	}
	var cases []*expr
	for _, st := range c.memberCases(v, required, can, deps) {
		ms = ms[:0]
		for i, s := range st {
			if s != absent && exprs[i] != nil {
				ms = append(ms, member{exprs[i], s == mustBe})
			}
		}
		cases = append(cases, c.chainRules(ms, sep, rest))
	}
	return alt(cases...), true
}

// chainMemberCost is the least a member whose expression is e costs an
// engine in chainRules: its rule, the separator and e.
func chainMemberCost(e *expr, sep string) int {
	return ruleCost + utf8.RuneCountInString(sep) + expandedCost(e)
}

// chainNameCost is the least a member of name costs an engine in
// chainRules whatever its value: its rule, the separator, the name
// between quotes, a colon, and one element at least for the value.
func chainNameCost(name, sep string) int {
	return ruleCost + utf8.RuneCountInString(sep) + utf8.RuneCountInString(name) + 4
}

// chainOver fails the compile at object v, whose chain of members is past
// maxExpanded (declaredMembers): named, the names of the members made so
// far, and names and values those still to make. When the members' names
// alone are past it, the values written as any JSON would not bring the
// grammar under it, so Compile does not compile once more with them
// loosened (namesOver).
func (c *compiler) chainOver(v *view, named int, names []string, values []*view, keys *view, writable func(string) bool, sep string) {
	for i, name := range names {
		if named > maxExpanded {
			break
		}
		if !values[i].never && writable(name) && c.keyAllowed(keys, name, false) {
			named += chainNameCost(name, sep)
		}
	}
	c.namesOver = named > maxExpanded
	c.g.overExpanded, c.g.over = true, overExpandedText
	c.fail(v.path, overExpandedText)
}

// extras is what may follow the declared members of an object whose
// schemas are v (extra the view of other members' values, names the
// declared names): nothing when the schemas forbid other members. When
// they allow them, objects are closed by default: nothing, and reported
// (under strict an error would stand in the way of every schema that does
// not say additionalProperties: false, so strict asks for the schema's own
// meaning instead): under strict, members whose keys are none of the
// declared names, each valid for extra. An argument list (args) is an
// object too, its members arguments.
func (c *compiler) extras(v *view, extra *view, names []string, keys *view, ctx textContext, args bool) *otherMembers {
	if extra.never || c.unevaluatedClosed(v) {
		return nil
	}
	if !c.strict {
		c.report(v.path+".additionalProperties", "additionalProperties")
		return nil
	}
	declared := func(k string) bool { return slices.Contains(names, k) }
	var key *expr
	switch finite, ok := c.finiteKeys(keys); {
	case keys == nil && args:
		key = c.keyExcept(names, false, v.path)
	case keys == nil:
		key = c.keyExcept(names, true, v.path)
	case !ok && len(keys.keysOut()) > 0:
		// Any key but the declared names and those propertyNames
		// rules out (decision 314).
		key = c.keyExcept(append(slices.Clip(names), keys.keysOut()...), !args, v.path)
	case !ok:
		c.dropPropertyNames(v, "other members' keys can't be kept both from the declared names and to propertyNames, unless an enum or const lists them")
		key = c.keyExcept(names, !args, v.path)
	case args:
		var alts []*expr
		for _, k := range finite {
			if writableKey(k) && !declared(k) {
				alts = append(alts, lit(k))
			}
		}
		key = alt(alts...)
	default:
		key = c.keyLiterals(finite, declared, ctx)
	}
	if key == nil {
		return nil // no other key
	}
	var member *expr
	sep := ", "
	if args {
		sep = syntax.ArgumentSeparator
		c.argCast, c.casting = c.argCastOf(""), true // (another name: additionalProperties, decision 209)
		c.argView, c.argWholeRead = extra, false
		value := c.value(extra, inArgument, true)
		c.casting = false
		member = seq(lit(syntax.ParamOpen), key, lit(syntax.ParamNameEnd+"\n"), value, lit("\n"+syntax.ParamClose))
	} else {
		member = seq(key, lit(": "), c.value(extra, ctx, false))
	}
	return c.moreMembers(member, sep)
}

// otherMembers is what may follow an object's declared members when other
// members may (additionalProperties, patternProperties): any number of
// member, each after sep (declaredMembers' rest).
type otherMembers struct {
	member *expr
	sep    string
	more   *expr // the rule of any number of them, each after sep
}

// moreMembers is the other members of an object, each member.
func (c *compiler) moreMembers(member *expr, sep string) *otherMembers {
	return &otherMembers{member: member, sep: sep, more: ref(c.g.rule("more", star(seq(lit(sep), member))))}
}

// after is the other members once a member was written (each starts with
// the separator), alone those of an object that has no other.
func (o *otherMembers) after() *expr { return o.more }
func (o *otherMembers) alone() *expr { return opt(seq(o.member, o.more)) }

// unevaluatedClosed reports whether the view's root schema says
// unevaluatedProperties: false, which forbids the members its own schemas
// do not declare: with the view holding exactly the schemas the root leads
// to, the declared members of the view. (unevaluatedProperties elsewhere
// is reported, by dropUnenforced.)
func (c *compiler) unevaluatedClosed(v *view) bool {
	closed := false
	root := c.evalRoot(v)
	for _, n := range v.nodes {
		if n.ks.PatternProperties >= 0 || n.ks.AdditionalProperties >= 0 && c.d.Kind(n.ks.AdditionalProperties) != pyjson.False {
			return false // they evaluate the other members
		}
		for _, kw := range [...]otherKeyword{kwIf, kwThen, kwElse, kwDependentSchemas, kwDependencies, kwDynamicRef, kwRecursiveRef} {
			if k := c.otherKey(&n, kw); k >= 0 && (kw != kwDynamicRef || c.resolveDynamic(n.node, k) < 0) {
				return false // they may evaluate members the grammar does not see
			}
		}
		if n.node == root {
			u := c.otherKey(&n, kwUnevaluatedProperties)
			closed = u >= 0 && c.d.Kind(u) == pyjson.False
		} else if u := c.otherKey(&n, kwUnevaluatedProperties); u >= 0 && anySchema(c.d, u) {
			return false // it evaluates every member
		}
	}
	return closed
}

// freeMember is a member of an object that declares no property: any key
// and a value valid for additionalProperties (extra), nil when none is
// allowed. patternProperties are enforced when there is one pattern and
// its schema says additionalProperties: false beside it (the keys are the
// pattern's, the values its schema's: a map keyed by a pattern), and under
// strict by the key automaton (decision 196); otherwise a key the patterns
// match may have any value, and they are reported.
func (c *compiler) freeMember(v *view, extra *view, ctx textContext, except []string) *expr {
	pats := c.patternsOf(v)
	keys := c.keyNames(v)
	anyKey := c.keyOf(keys, ctx)
	if len(except) > 0 {
		// Keys that must not be there (dependentSchemas' triggers
		// absent); beside patterns, the key automaton keeps them out.
		switch {
		case keys != nil && len(keys.keysOut()) > 0 && len(pats) == 0:
			if _, finite := c.finiteKeys(keys); !finite {
				anyKey = c.keyExcept(append(slices.Clip(except), keys.keysOut()...), true, v.path)
			} else {
				c.loosenExcept(v, keys, except, "the keys of an object of free members are kept from names it must not hold only without propertyNames")
			}
		case keys != nil:
			c.loosenExcept(v, keys, except, "the keys of an object of free members are kept from names it must not hold only without propertyNames")
		case len(pats) == 0:
			anyKey = c.keyExcept(except, true, v.path)
		}
	}
	if len(pats) == 0 {
		if extra.never || c.unevaluatedClosed(v) {
			return nil
		}
		value := c.value(extra, ctx, false)
		if s := shapes(ctx); anyKey == s.quoted && value == jsonProto(ctx).ref(0) {
			return s.member // built once
		}
		return seq(anyKey, lit(": "), value)
	}
	p := pats[0]
	if keys == nil && c.strict && (len(except) > 0 || !c.onlyPattern(v, pats) || c.namePattern(p.key) == nil) {
		// Several patterns, or other members beside them: under strict,
		// the key automaton tells them apart.
		if member, ok := c.keyAutomaton(v, pats, except, ctx); ok {
			return member
		}
		if len(except) > 0 {
			c.loosenExcept(v, nil, except, "the keys of an object of free members are kept from names it must not hold beside patternProperties only when the patterns can be told apart (gap decision 196)")
		}
	}
	if c.onlyPattern(v, pats) {
		value := c.namePattern(p.key)
		if value == nil && !c.strict {
			// Not strict, a pattern with lookahead assertions: the keys
			// of the pattern without them (every key it matches, and
			// more), each with the pattern's schema; the pattern reported
			// (decision 288).
			if value = c.aheadRest(p.key); value != nil {
				c.loosen(v.nodes[p.owner].path+".patternProperties."+c.d.Str(p.key), "patternProperties", "its lookahead assertions are enforced under strict only")
			}
		}
		if value != nil {
			var key *expr
			if names, finite := c.finiteKeys(keys); keys == nil || !finite {
				if keys != nil {
					c.dropPropertyNames(v, "the keys of a map keyed by a pattern are the pattern's, and only names listed by an enum or const are checked against it")
				}
				key = ref(c.g.rule("key", seq(lit(`"`), jsonChars(value), lit(`"`))))
			} else {
				key = c.keyLiterals(names, func(k string) bool {
					match, decided := c.exprMatches(value, k)
					if !decided {
						c.dropPropertyNames(v, "the name "+strconv.Quote(k)+" can't be checked against the pattern (a count past 1000, or the grammar's matching work spent)")
					}
					return !match || !decided
				}, ctx)
			}
			return seq(key, lit(": "), c.value(c.viewOf(p.schema, p.path), ctx, false))
		}
	}
	c.loosen(v.nodes[p.owner].path+".patternProperties", "patternProperties",
		"only one pattern beside additionalProperties: false is enforced; a key the patterns match may hold any value")
	return seq(anyKey, lit(": "), c.anyJSON(ctx))
}

// A propertyPattern is one pattern of an object's patternProperties: its
// node (a key, translated once by namePattern), its schema, the path of
// that schema and which schema of the view holds it.
type propertyPattern struct {
	key    int
	schema int
	path   string
	owner  int
}

// loosenExcept reports the keywords that ask the free members of v's
// objects to leave out the names of except, when the keys can't be kept
// from them (keys: the keys propertyNames allows, nil: any): the triggers
// of dependentSchemas and dependentRequired a case leaves out, the names a
// not of required, a oneOf's exclusive variants (decision 200) or a
// discriminator's cases (decision 206) leave out. Names the keys rule out
// anyway need nothing.
func (c *compiler) loosenExcept(v *view, keys *view, except []string, why string) {
	if keys != nil && !slices.ContainsFunc(except, func(name string) bool { return c.keyAllowed(keys, name, false) }) {
		return
	}
	c.loosenDependentSchemas(v, why)
	triggers := false // a trigger of dependentRequired left out (absentTriggers)
	c.eachDependency(v, func(trigger string, _ []string) { triggers = triggers || slices.Contains(except, trigger) })
	for _, n := range v.nodes {
		if triggers {
			nodes, names := c.requiredDeps(&n)
			for i, dr := range nodes {
				if dr >= 0 {
					c.loosen(n.path+"."+names[i], names[i], why)
				}
			}
		}
		if _, _, ok := c.notRequired(n.node); ok && n.ks.Not >= 0 {
			c.loosen(n.path+".not", "not", why)
		}
		if n.done&doneOneOf != 0 && len(v.absent) > 0 {
			c.loosen(n.path+".oneOf", "oneOf", why)
		}
		if n.done&doneIf != 0 {
			c.loosen(n.path+".if", "if", why)
		}
	}
}

// patternsOf is the patterns of v's patternProperties, in order; a
// patternProperties that is not an object is dropped.
func (c *compiler) patternsOf(v *view) []propertyPattern {
	d := c.d
	var pats []propertyPattern
	for i, n := range v.nodes {
		pp := n.ks.PatternProperties
		if pp < 0 {
			continue
		}
		if d.Kind(pp) != pyjson.Object {
			c.drop(n.path+".patternProperties", "patternProperties")
			continue
		}
		d.Members(pp, func(k, val int) bool {
			pats = append(pats, propertyPattern{k, val, n.path + ".patternProperties." + d.Str(k), i})
			return true
		})
	}
	return pats
}

// matchesEverything reports whether pattern expression e (patternExpr's)
// matches every string, as far as its shape shows: any characters
// repeated, or a sequence of such a part and parts that match the empty
// text, or an alternation with such a branch. An unanchored pattern that
// can match the empty text ("^[a-z]*", ".*") is one: every name matches
// it, so no member is additional to it.
func matchesEverything(e *expr) bool {
	switch e.kind {
	case kRep:
		it := e.items[0]
		return e.min == 0 && e.max < 0 && (it.kind == kClass && it.neg && len(it.rs) == 1 && it.rs[0] == runeRange{0xD800, 0xDFFF} || matchesEverything(it))
	case kAlt:
		return slices.ContainsFunc(e.items, matchesEverything)
	case kSeq:
		set := &ruleSet{}
		found := false
		for _, it := range e.items {
			switch {
			case !found && matchesEverything(it):
				found = true
			case hasRef(it) || !set.nullableExpr(it, nil):
				return false
			}
		}
		return found
	}
	return false
}

// onlyPattern reports whether the members of v's objects that no
// property declares are exactly those pats names: one pattern, and no
// other schema of v constrains other members. Each such member is then
// one whose key the pattern matches and whose value is valid for the
// pattern's schema. The pattern's schema says additionalProperties: false
// beside it; or, not strict, the object's other members are left out by
// the default that closes objects (decision 103), and that is reported as
// for any closed object.
func (c *compiler) onlyPattern(v *view, pats []propertyPattern) bool {
	if len(pats) != 1 {
		return false
	}
	p := pats[0]
	owner := v.nodes[p.owner].ks.AdditionalProperties
	closed := owner >= 0 && c.d.Kind(owner) == pyjson.False
	if e := c.namePattern(p.key); e != nil && matchesEverything(e) {
		closed = true // every key matches: none is additional
	}
	if !closed && c.strict {
		return false
	}
	for i, n := range v.nodes {
		if i != p.owner && n.ks.AdditionalProperties >= 0 && c.d.Kind(n.ks.AdditionalProperties) != pyjson.True {
			return false
		}
	}
	if !closed {
		c.report(v.nodes[p.owner].path+".additionalProperties", "additionalProperties")
	}
	return true
}

// patternMembers is what may follow the declared members of an object
// (names, with the names dependentSchemas keeps out) whose schemas name
// its other members by a pattern, when the grammar can write exactly
// those (onlyPattern): members whose keys the pattern matches, each valid
// for the pattern's schema, after the declared ones. When it can't (more
// patterns, other members allowed too, propertyNames beside it, a pattern
// it can't translate, a declared name the pattern matches, whose key other
// members could not be kept from writing), under strict the key automaton
// writes them (decision 196; none when it allows no other member); else
// rest is nil and why says why: the object's declared members then stand
// alone, and patternProperties is reported (patternPropertiesBeside). All
// are nil, "" and false without patternProperties.
func (c *compiler) patternMembers(v *view, names []string, keys *view, ctx textContext) (rest *otherMembers, why string, none bool) {
	if !c.has(v, func(ks *schema.Keys) bool { return ks.PatternProperties >= 0 }) {
		return nil, "", false
	}
	if keys != nil {
		return nil, "the grammar writes the declared properties of an object, and the members a pattern names only without propertyNames beside it", false
	}
	pats := c.patternsOf(v)
	// automaton is the other members when the single pattern's rule below
	// does not apply: the key automaton's, or nil and why when it can't
	// be built either.
	automaton := func(why string) (*otherMembers, string, bool) {
		member, ok := c.keyAutomaton(v, pats, names, ctx)
		switch {
		case !ok:
			return nil, why, false
		case member == nil:
			return nil, "", true
		}
		return c.moreMembers(member, ", "), "", false
	}
	if !c.onlyPattern(v, pats) {
		return automaton("the grammar writes the declared properties of an object, and the members a pattern names only for one pattern with additionalProperties: false beside it, or for patterns the key automaton tells apart (gap decision 196)")
	}
	p := pats[0]
	e := c.namePattern(p.key)
	if e == nil {
		// A pattern with lookahead assertions: under strict, the key
		// automaton reads it (decision 288).
		return automaton("the pattern can't be translated")
	}
	var key *expr
	if matchesEverything(e) {
		// Every name matches: the other members' keys are any but the
		// declared names.
		key = c.keyExcept(names, true, v.path)
	} else {
		for _, name := range names {
			switch match, decided := c.exprMatches(e, name); {
			case !decided:
				return automaton("the declared name " + strconv.Quote(name) + " can't be checked against the pattern (a count past 1000, or the grammar's matching work spent)")
			case match:
				return automaton("the pattern matches the declared name " + strconv.Quote(name) + ", so the keys of other members can't be kept from naming it")
			}
		}
		key = ref(c.g.rule("key", seq(lit(`"`), jsonChars(e), lit(`"`))))
	}
	return c.moreMembers(seq(key, lit(": "), c.value(c.viewOf(p.schema, p.path), ctx, false)), ", "), "", false
}

// patternPropertiesBeside reports the patternProperties of an object that
// declares properties, when the grammar writes the declared properties
// only (why, from patternMembers).
func (c *compiler) patternPropertiesBeside(v *view, why string) {
	for _, n := range v.nodes {
		if n.ks.PatternProperties >= 0 {
			c.loosen(n.path+".patternProperties", "patternProperties", why)
		}
	}
}

// castConstrained reports whether v constrains values of a type of kinds
// beyond the type itself: a raw argument's string branch writes texts the
// parser reads as such values (decision 209), which may then be invalid.
func (c *compiler) castConstrained(v *view, kinds typeSet) bool {
	if kinds == 0 {
		return false
	}
	return c.has(v, func(ks *schema.Keys) bool {
		switch {
		case kinds&tNum != 0 && (ks.Minimum >= 0 || ks.Maximum >= 0 || ks.ExclusiveMinimum >= 0 || ks.ExclusiveMaximum >= 0 || ks.Mult >= 0):
			return true
		case kinds&tObj != 0 && (ks.Properties >= 0 || ks.Required >= 0 || ks.AdditionalProperties >= 0 || ks.PatternProperties >= 0 ||
			ks.MinProperties >= 0 || ks.MaxProperties >= 0 || ks.PropertyNames >= 0 || ks.DependentRequired >= 0):
			return true
		case kinds&tArr != 0 && (ks.Items >= 0 || ks.PrefixItems >= 0 || ks.MinItems >= 0 || ks.MaxItems >= 0 || ks.UniqueItems >= 0 || ks.Contains >= 0):
			return true
		}
		return kinds != 0 && ks.Not >= 0
	}) || kinds != 0 && slices.ContainsFunc(v.nodes, func(n vnode) bool { return n.other }) ||
		// A value a condition's case leaves out (view.excluded; gap
		// decision 330): the raw texts that spell it are no string's.
		slices.ContainsFunc(v.excluded, func(x exclusion) bool {
			return x.name == "" && (x.types&kinds != 0 || slices.ContainsFunc(x.values, func(m int) bool {
				t := valueType(c.d, m)
				if t&tNum != 0 {
					t = tNum // (a whole number spells an integer and a number)
				}
				return t&kinds != 0
			}))
		})
}

// constrainedKinds is the types of kinds whose values v constrains
// (castConstrained, one type at a time).
func (c *compiler) constrainedKinds(v *view, kinds typeSet) typeSet {
	var out typeSet
	for _, k := range [...]typeSet{tNull, tBool, tInt, tFrac, tArr, tObj} {
		if kinds&k != 0 && c.castConstrained(v, k) {
			out |= k
		}
	}
	return out
}

// constrainsStrings reports whether v constrains strings: a length, a
// pattern or a format, a not of strings, or strings a condition rules out.
func (c *compiler) constrainsStrings(v *view) bool {
	if len(v.notStrings) > 0 || c.has(v, func(ks *schema.Keys) bool { return keywordTypes(ks)&tStr != 0 }) {
		return true
	}
	excluded, _ := v.excludedValues()
	return slices.ContainsFunc(excluded, func(m int) bool { return c.d.Kind(m) == pyjson.String })
}

// spellings is the raw argument texts the parser reads as a value of one
// of kinds (cast.go's appendCast, spellsKind), JSON white space around:
// null, true or false, an integer literal, a number that is not one (1.5,
// 1e3; with tInt, any number), and a text that opens an object or an
// array, whether or not the rest parses (so a few strings that are not
// JSON, such as "[x", are left out too).
func spellings(kinds typeSet) *expr {
	var alts []*expr
	if kinds&tNull != 0 {
		alts = append(alts, lit("null"))
	}
	if kinds&tBool != 0 {
		alts = append(alts, lit("true"), lit("false"))
	}
	digits := plus(class(false, runeRange{'0', '9'}))
	whole := seq(opt(lit("-")), alt(lit("0"), seq(class(false, runeRange{'1', '9'}), star(class(false, runeRange{'0', '9'})))))
	exp := seq(chars(false, "eE"), opt(chars(false, "+-")), digits)
	switch kinds & tNum {
	case tNum:
		alts = append(alts, numberExpr)
	case tInt:
		alts = append(alts, whole)
	case tFrac:
		alts = append(alts, seq(whole, alt(seq(lit("."), digits, opt(exp)), exp)))
	}
	anyText := star(class(true))
	if kinds&tObj != 0 {
		alts = append(alts, seq(lit("{"), anyText))
	}
	if kinds&tArr != 0 {
		alts = append(alts, seq(lit("["), anyText))
	}
	space := star(chars(false, " \t\r\n"))
	return seq(space, alt(alts...), space)
}

// loosenCast reports the type of a raw argument whose strings the parser
// may read as values of another type its schema constrains.
func (c *compiler) loosenCast(v *view) {
	path := v.path
	for _, n := range v.nodes {
		if n.ks.Type >= 0 {
			path = n.path
			break
		}
	}
	c.loosen(path+".type", "type", "a raw argument's text that spells another of its types is read back as that type (DECISIONS.md, Parsing), and this schema constrains values of that type")
}

// maxListRetry is the most bytes of values an enum or const keeps when a
// grammar past maxExpanded is compiled once more without its long lists
// (Compile, gap decision 232).
const maxListRetry = 4096

// listBytes is the bytes of texts together.
func listBytes(texts []string) int {
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	return n
}

// namesOut is a view's namesOut: the names, and a set of them when they
// are many, for keyAllowed to look a name up in (each declared and listed
// name is: a scan would be quadratic).
type namesOut struct {
	list []string
	set  map[string]bool
}

// keysOut returns the names of v's namesOut (nil: none).
func (v *view) keysOut() []string {
	if v.namesOut == nil {
		return nil
	}
	return v.namesOut.list
}
