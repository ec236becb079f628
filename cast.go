package harmony

import (
	"math"
	"strconv"
	"strings"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// Casting arguments by schema (DECISIONS.md, Parsing). A value is written
// as is into the prompt when it is a string and as JSON otherwise, so the
// parser reads it back as the first non-string type of its property whose
// JSON spelling is the value's text, and as a string when none fits.

// castKind is a non-string JSON type an argument can be cast to.
type castKind uint8

const (
	castNull castKind = iota
	castBoolean
	castInteger
	castNumber
	castObject
	castArray
	numCastKinds
)

var castKindNames = [numCastKinds]string{"null", "boolean", "integer", "number", "object", "array"}

// argType is the set of types a property admits: its non-string types in
// schema order, and whether a string fits.
type argType struct {
	kinds [numCastKinds]castKind
	n     uint8
	str   bool
}

// stringArg is the type of every argument when there is no schema.
var stringArg = argType{str: true}

func (t *argType) add(k castKind) {
	for _, have := range t.kinds[:t.n] {
		if have == k {
			return
		}
	}
	t.kinds[t.n] = k
	t.n++
}

// merge adds the types of u, in u's order, as if u's schema had been read
// here.
func (t *argType) merge(u *argType) {
	for _, k := range u.kinds[:u.n] {
		t.add(k)
	}
	t.str = t.str || u.str
}

// addAny admits every type: a schema that does not constrain the value.
func (t *argType) addAny() {
	for k := castKind(0); k < numCastKinds; k++ {
		t.add(k)
	}
	t.str = true
}

// streams reports whether every value is a string, so that the value can
// be sent as it arrives.
func (t *argType) streams() bool { return t.n == 0 && t.str }

// String names the types, such as "integer or boolean".
func (t *argType) String() string {
	var b strings.Builder
	for i, k := range t.kinds[:t.n] {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString(castKindNames[k])
	}
	if t.n == 0 {
		b.WriteString("nothing (an empty enum)")
	}
	return b.String()
}

// castArgument appends the JSON of the argument text raw cast to t and
// reports whether raw fits one of t's types. Non-string types are tried in
// order on raw without surrounding whitespace, then string; a value that
// fits nothing is appended as a string.
func castArgument(dst []byte, raw string, t *argType, scratch *pyjson.Doc) ([]byte, bool) {
	if t.n > 0 {
		s := trimJSONSpace(raw)
		for _, k := range t.kinds[:t.n] {
			if out, ok := appendCast(dst, s, k, scratch); ok {
				return out, true
			}
		}
	}
	return pyjson.AppendQuoted(dst, raw), t.str
}

// appendCast appends s as kind k when writing that value back as JSON
// gives s again; objects and arrays take any valid JSON of their kind.
func appendCast(dst []byte, s string, k castKind, scratch *pyjson.Doc) ([]byte, bool) {
	switch k {
	case castNull:
		return append(dst, s...), s == "null"
	case castBoolean:
		return append(dst, s...), s == "true" || s == "false"
	case castInteger:
		return append(dst, s...), pyjson.IsIntegerLiteral(s)
	case castNumber:
		return append(dst, s...), isFiniteNumber(s)
	}
	open := byte('{')
	want := pyjson.Object
	if k == castArray {
		open, want = '[', pyjson.Array
	}
	if len(s) == 0 || s[0] != open {
		return dst, false
	}
	if err := scratch.Parse([]byte(s)); err != nil || scratch.Kind(0) != want || !finiteNumbers(scratch) {
		return dst, false
	}
	return scratch.AppendPython(dst, 0), true
}

// isFiniteNumber reports whether s is a JSON number literal that a reader
// using doubles does not turn into infinity (DECISIONS.md: no NaN or
// Infinity). Integer literals of any size are exact in Python and fit.
func isFiniteNumber(s string) bool {
	if s == "" || pyjson.NumberLen([]byte(s)) != len(s) {
		return false
	}
	if pyjson.IsIntegerLiteral(s) {
		return true
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil || !math.IsInf(f, 0)
}

// finiteNumbers reports whether every number in d is finite.
func finiteNumbers(d *pyjson.Doc) bool {
	for i := range d.Nodes {
		if d.Nodes[i].Kind == pyjson.Number && !isFiniteNumber(string(d.Raw(i))) {
			return false
		}
	}
	return true
}

// trimJSONSpace removes JSON whitespace (space, tab, CR, LF) around s.
func trimJSONSpace(s string) string {
	return strings.Trim(s, " \t\r\n")
}

// toolSchema is one tool's parsed parameters schema.
type toolSchema struct {
	doc   *pyjson.Doc
	props int // node of the properties object, or -1
	extra int // node of an additionalProperties schema object, or -1

	// What resolving $refs learnt, kept for the tool's next arguments:
	// pointer resolutions, and the types of targets whose resolution
	// cannot depend on the path that reached them, by target and depth.
	ptr      schema.Pointers
	resolved map[int32]int32
	refTypes map[[2]int32]argType
	// slow holds the types of properties that took many steps to
	// resolve, so that each argument of theirs does not pay again.
	slow map[string]argType
}

// newToolSchema parses a tool's parameters. Invalid or absent parameters
// give a schema without properties.
func newToolSchema(params []byte) *toolSchema {
	ts := &toolSchema{props: -1, extra: -1}
	d, err := pyjson.ParseBytes(params)
	if err != nil {
		return ts
	}
	ts.doc = d
	root := 0
	if ref := d.Lookup(0, "$ref"); ref >= 0 && d.Lookup(0, "properties") < 0 {
		root = ts.ptr.Resolve(d, 0, ref)
	}
	if root >= 0 {
		if p := d.Lookup(root, "properties"); p >= 0 && d.Kind(p) == pyjson.Object {
			ts.props = p
		}
		if a := d.Lookup(root, "additionalProperties"); a >= 0 && d.Kind(a) == pyjson.Object {
			ts.extra = a
		}
	}
	return ts
}

// argType returns the types property name admits, and false when the
// schema has no such property (its values stay strings). A name the
// properties do not declare takes the additionalProperties schema, when
// that is a schema.
func (ts *toolSchema) argType(name string) (argType, bool) {
	v := -1
	if ts.props >= 0 {
		v = ts.ptr.Child(ts.doc, ts.props, name) // indexed when there are many
	}
	if v < 0 {
		v = ts.extra
	}
	if v < 0 {
		return stringArg, false
	}
	if t, ok := ts.slow[name]; ok {
		return t, true
	}
	r := typeResolver{d: ts.doc, ts: ts}
	var t argType
	r.add(&t, v, 0)
	if n := ts.doc.Lookup(v, "nullable"); n >= 0 && ts.doc.Kind(n) == pyjson.True {
		t.add(castNull)
	}
	if r.steps > 64 {
		if ts.slow == nil {
			ts.slow = make(map[string]argType)
		}
		ts.slow[name] = t
	}
	return t, true
}

// typeResolver collects the types a schema admits, by the renderer's rule
// order (schema.Keys.Rule): $ref, enum, const, anyOf, oneOf, type,
// properties without type (an object); anything else admits every type, as
// the declaration writes "any". enum and const admit the types of their
// members (membership is not checked).
//
// A target whose resolution met no $ref recurring above it admits the same
// types wherever it is reached at the same depth, and is resolved once
// (as tsWriter.ref reuses expansions); past maxRefWork steps, which only a
// schema that cannot be rendered needs, a schema admits every type.
type typeResolver struct {
	d     *pyjson.Doc
	ts    *toolSchema
	refs  schema.Refs // $ref targets on the current path
	steps int
}

func (r *typeResolver) add(t *argType, s, depth int) {
	d := r.d
	r.steps++
	if depth > maxSchemaDepth || r.steps > maxRefWork {
		t.addAny()
		return
	}
	ks := schema.KeysOf(d, s)
	switch ks.Rule(d) {
	case schema.RuleRef:
		r.addRef(t, ks.Ref, depth)
	case schema.RuleEnum:
		if d.Kind(ks.Enum) != pyjson.Array {
			t.addAny()
		}
		d.Elements(ks.Enum, func(m, _ int) bool { addValueKind(t, d, m); return true })
	case schema.RuleConst:
		addValueKind(t, d, ks.Const)
	case schema.RuleAnyOf, schema.RuleOneOf:
		v := ks.AnyOf
		if v < 0 {
			v = ks.OneOf
		}
		if d.Kind(v) != pyjson.Array || d.Nodes[v].Len == 0 {
			t.addAny() // written "any"
		}
		d.Elements(v, func(m, _ int) bool { r.add(t, m, depth+1); return true })
	case schema.RuleType:
		schema.Types(d, ks.Type, func(ty schema.Type) bool { addType(t, ty); return true })
	case schema.RuleProperties:
		t.add(castObject)
	default:
		t.addAny()
	}
}

func (r *typeResolver) addRef(t *argType, ref, depth int) {
	ts := r.ts
	target, ok := ts.resolved[int32(ref)]
	if !ok {
		target = int32(ts.ptr.Resolve(r.d, 0, ref))
		if ts.resolved == nil {
			ts.resolved = make(map[int32]int32)
		}
		ts.resolved[int32(ref)] = target
	}
	if target < 0 || r.refs.Recurs(int(target)) {
		t.addAny()
		return
	}
	key := [2]int32{target, int32(depth)}
	if sub, ok := ts.refTypes[key]; ok {
		t.merge(&sub)
		return
	}
	frame := r.refs.Push(int(target))
	var sub argType
	r.add(&sub, int(target), depth+1)
	if r.refs.Pop(frame) && r.steps <= maxRefWork {
		if ts.refTypes == nil {
			ts.refTypes = make(map[[2]int32]argType)
		}
		ts.refTypes[key] = sub
	}
	t.merge(&sub)
}

// addType adds the cast of one type name; an unknown name admits every
// type, as it renders "any".
func addType(t *argType, ty schema.Type) {
	switch ty {
	case schema.TypeString:
		t.str = true
	case schema.TypeNull:
		t.add(castNull)
	case schema.TypeBoolean:
		t.add(castBoolean)
	case schema.TypeInteger:
		t.add(castInteger)
	case schema.TypeNumber:
		t.add(castNumber)
	case schema.TypeObject:
		t.add(castObject)
	case schema.TypeArray:
		t.add(castArray)
	default:
		t.addAny()
	}
}

// addValueKind adds the type of the JSON value at node v (an enum member or
// a const).
func addValueKind(t *argType, d *pyjson.Doc, v int) {
	switch d.Kind(v) {
	case pyjson.Null:
		t.add(castNull)
	case pyjson.True, pyjson.False:
		t.add(castBoolean)
	case pyjson.Number:
		if pyjson.IsIntegerLiteral(string(d.Raw(v))) {
			t.add(castInteger)
		} else {
			t.add(castNumber)
		}
	case pyjson.String:
		t.str = true
	case pyjson.Array:
		t.add(castArray)
	case pyjson.Object:
		t.add(castObject)
	}
}
