// Package schema is the one walk over a tool's JSON Schema that every part
// of the module follows: the TypeScript declarations the renderer writes,
// the marker scan that finds the strings those declarations carry, the
// casting of parsed arguments, and the grammar compiler of constrained
// generation. It reads schemas from a pyjson.Doc and holds no state of its
// own beyond what a walk needs:
//
//   - Keys reads a schema object's keywords in one pass (KeysOf);
//   - Keys.Rule is the renderer's rule order (DECISIONS.md, TypeScript
//     declarations), written here once: the first present of $ref, enum,
//     const, anyOf, oneOf, type and properties decides what a schema is;
//   - Pointers resolves local JSON pointers ("#/$defs/X"), indexing wide
//     objects and arrays so that many pointers into one large $defs cost
//     linear time, and Tokens decodes a pointer's steps;
//   - Refs is the stack of $ref targets on a walk's path: a target met
//     again on its own path recurs (a cycle), and a target whose walk met
//     no recurrence above it does not depend on the path that reached it,
//     so its result may be reused.
package schema

import (
	"strconv"
	"strings"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// Keys holds the node indexes of one schema object's keywords, -1 for each
// that is absent. When a keyword repeats, the last one wins, as in Python.
type Keys struct {
	Ref, Enum, Const, AnyOf, OneOf, AllOf, Not, Type int

	// Objects.
	Properties, Required, AdditionalProperties, PatternProperties  int
	MinProperties, MaxProperties, PropertyNames, DependentRequired int

	// Arrays.
	Items, PrefixItems, MinItems, MaxItems, UniqueItems, Contains int

	// Strings and numbers.
	MinLength, MaxLength, Pattern, Format                      int
	Minimum, Maximum, ExclusiveMinimum, ExclusiveMaximum, Mult int

	// Annotations the declarations write, and OpenAPI's nullable.
	Title, Description, Examples, Default, Nullable int

	// Defs is $defs, Definitions the older definitions.
	Defs, Definitions int
}

// none is Keys with every keyword absent.
var none = func() (k Keys) {
	k.each(func(_ string, p *int) { *p = -1 })
	return k
}()

// each calls fn with each keyword's JSON name and its field.
func (k *Keys) each(fn func(name string, p *int)) {
	for _, f := range [...]struct {
		name string
		p    *int
	}{
		{"$ref", &k.Ref}, {"enum", &k.Enum}, {"const", &k.Const}, {"anyOf", &k.AnyOf}, {"oneOf", &k.OneOf},
		{"allOf", &k.AllOf}, {"not", &k.Not}, {"type", &k.Type},
		{"properties", &k.Properties}, {"required", &k.Required}, {"additionalProperties", &k.AdditionalProperties},
		{"patternProperties", &k.PatternProperties}, {"minProperties", &k.MinProperties}, {"maxProperties", &k.MaxProperties},
		{"propertyNames", &k.PropertyNames}, {"dependentRequired", &k.DependentRequired},
		{"items", &k.Items}, {"prefixItems", &k.PrefixItems}, {"minItems", &k.MinItems}, {"maxItems", &k.MaxItems},
		{"uniqueItems", &k.UniqueItems}, {"contains", &k.Contains},
		{"minLength", &k.MinLength}, {"maxLength", &k.MaxLength}, {"pattern", &k.Pattern}, {"format", &k.Format},
		{"minimum", &k.Minimum}, {"maximum", &k.Maximum}, {"exclusiveMinimum", &k.ExclusiveMinimum},
		{"exclusiveMaximum", &k.ExclusiveMaximum}, {"multipleOf", &k.Mult},
		{"title", &k.Title}, {"description", &k.Description}, {"examples", &k.Examples}, {"default", &k.Default},
		{"nullable", &k.Nullable}, {"$defs", &k.Defs}, {"definitions", &k.Definitions},
	} {
		fn(f.name, f.p)
	}
}

// KeysOf reads the keywords of schema s; a schema that is not an object has
// none. Unknown keywords are passed over (see Unknown).
func KeysOf(d *pyjson.Doc, s int) (ks Keys) {
	ks = none
	nodes := d.Nodes
	if nodes[s].Kind != pyjson.Object {
		return ks
	}
	var buf [24]byte
	for k, end := d.Children(s); k < end; {
		n := &nodes[k]
		var name []byte
		if n.Escaped {
			name = d.AppendString(buf[:0], k)
		} else {
			name = d.Src[n.Start+1 : n.End-1]
		}
		if p := ks.field(name); p != nil {
			*p = k + 1
		}
		k = int(nodes[k+1].Next)
	}
	return ks
}

// keyName returns the text of key node k, unescaped into buf when needed.
func keyName(d *pyjson.Doc, k int, buf []byte) []byte {
	if d.Nodes[k].Escaped {
		return d.AppendString(buf, k)
	}
	name := d.Raw(k)
	return name[1 : len(name)-1]
}

// field returns the field of keyword name, or nil for a keyword Keys does
// not hold. The switch is on the render path: it compiles to a jump on the
// string, with no allocation.
func (k *Keys) field(name []byte) *int {
	switch string(name) {
	case "$ref":
		return &k.Ref
	case "enum":
		return &k.Enum
	case "const":
		return &k.Const
	case "anyOf":
		return &k.AnyOf
	case "oneOf":
		return &k.OneOf
	case "allOf":
		return &k.AllOf
	case "not":
		return &k.Not
	case "type":
		return &k.Type
	case "properties":
		return &k.Properties
	case "required":
		return &k.Required
	case "additionalProperties":
		return &k.AdditionalProperties
	case "patternProperties":
		return &k.PatternProperties
	case "minProperties":
		return &k.MinProperties
	case "maxProperties":
		return &k.MaxProperties
	case "propertyNames":
		return &k.PropertyNames
	case "dependentRequired":
		return &k.DependentRequired
	case "items":
		return &k.Items
	case "prefixItems":
		return &k.PrefixItems
	case "minItems":
		return &k.MinItems
	case "maxItems":
		return &k.MaxItems
	case "uniqueItems":
		return &k.UniqueItems
	case "contains":
		return &k.Contains
	case "minLength":
		return &k.MinLength
	case "maxLength":
		return &k.MaxLength
	case "pattern":
		return &k.Pattern
	case "format":
		return &k.Format
	case "minimum":
		return &k.Minimum
	case "maximum":
		return &k.Maximum
	case "exclusiveMinimum":
		return &k.ExclusiveMinimum
	case "exclusiveMaximum":
		return &k.ExclusiveMaximum
	case "multipleOf":
		return &k.Mult
	case "title":
		return &k.Title
	case "description":
		return &k.Description
	case "examples":
		return &k.Examples
	case "default":
		return &k.Default
	case "nullable":
		return &k.Nullable
	case "$defs":
		return &k.Defs
	case "definitions":
		return &k.Definitions
	}
	return nil
}

// Rule says what decides a schema's type, by the renderer's rule order
// (DECISIONS.md, TypeScript declarations).
type Rule uint8

// The rules, in the order they are tried.
const (
	// RuleAny: the schema is not an object, or none of the rules below
	// applies (properties that are not an object included): any value.
	RuleAny Rule = iota
	// RuleRef: $ref; its target decides.
	RuleRef
	// RuleEnum: enum's members (an enum that is not an array: any value).
	RuleEnum
	// RuleConst: const's value.
	RuleConst
	// RuleAnyOf: anyOf's variants.
	RuleAnyOf
	// RuleOneOf: oneOf's variants.
	RuleOneOf
	// RuleType: type, a name or a list of names.
	RuleType
	// RuleProperties: an object with properties, without type.
	RuleProperties
)

// Rule returns the rule that decides the type of the schema whose keywords
// k are (KeysOf of a non-object schema has no keyword: RuleAny). The first
// present of $ref, enum, const, anyOf, oneOf, type and properties (an
// object) decides; the others are not read.
func (k *Keys) Rule(d *pyjson.Doc) Rule {
	switch {
	case k.Ref >= 0:
		return RuleRef
	case k.Enum >= 0:
		return RuleEnum
	case k.Const >= 0:
		return RuleConst
	case k.AnyOf >= 0:
		return RuleAnyOf
	case k.OneOf >= 0:
		return RuleOneOf
	case k.Type >= 0:
		return RuleType
	case k.Properties >= 0 && d.Kind(k.Properties) == pyjson.Object:
		return RuleProperties
	}
	return RuleAny
}

// Type is a JSON Schema type name.
type Type uint8

// The type names; TypeUnknown stands for any other name, or a value that is
// not a name, and admits any value.
const (
	TypeUnknown Type = iota
	TypeString
	TypeInteger
	TypeNumber
	TypeBoolean
	TypeNull
	TypeArray
	TypeObject
)

// TypeName reads the type name at string node n.
func TypeName(d *pyjson.Doc, n int) Type {
	if d.Kind(n) != pyjson.String {
		return TypeUnknown
	}
	var buf [16]byte
	switch string(keyName(d, n, buf[:0])) {
	case "string":
		return TypeString
	case "integer":
		return TypeInteger
	case "number":
		return TypeNumber
	case "boolean":
		return TypeBoolean
	case "null":
		return TypeNull
	case "array":
		return TypeArray
	case "object":
		return TypeObject
	}
	return TypeUnknown
}

// Types calls fn with each type of the type keyword at node t, a name or an
// array of names, until fn returns false. Anything else, a member that is
// not a name and an empty array each give TypeUnknown (any value), as the
// declarations write them.
func Types(d *pyjson.Doc, t int, fn func(Type) bool) {
	switch d.Kind(t) {
	case pyjson.String:
		fn(TypeName(d, t))
	case pyjson.Array:
		if d.Nodes[t].Len == 0 {
			fn(TypeUnknown)
			return
		}
		d.Elements(t, func(e, _ int) bool { return fn(TypeName(d, e)) })
	default:
		fn(TypeUnknown)
	}
}

// Tokens calls fn with each reference token of the local JSON pointer ptr
// ("#/$defs/X" gives "$defs" then "X"), decoded, and stops when fn returns
// false. ptr is a URI fragment as a $ref writes it: its percent-escapes of
// printable ASCII are decoded first (UnescapeFragment: "#/$defs/a%20b"
// names "a b", "#/a%2Fb" is "a" then "b", as RFC 6901 section 6 reads a
// fragment), then each token's ~1 is / and ~0 is ~. It reports false when
// ptr is not a local pointer ("#" or "#/..." once decoded); "#" has no
// tokens.
func Tokens(ptr string, fn func(tok string) bool) bool {
	if !strings.HasPrefix(ptr, "#") {
		return false
	}
	frag := UnescapeFragment(ptr[1:])
	if frag == "" {
		return true
	}
	if frag[0] != '/' {
		return false
	}
	for rest, more := frag[1:], true; more; {
		var tok string
		tok, rest, more = strings.Cut(rest, "/")
		if strings.IndexByte(tok, '~') >= 0 {
			tok = unescapeToken(tok)
		}
		if !fn(tok) {
			break
		}
	}
	return true
}

// UnescapeFragment decodes the percent-escapes of printable ASCII in a
// URI fragment (%20 to %7E, hex digits of either case), left to right; any
// other % stays as written: an escape of a control character or of a byte
// of a multi-byte character, and a % not followed by two hex digits. The
// chat template decodes pointers by the same rule (its PERCENT table),
// which is as far as every Jinja engine can go: none can make a character
// from the bytes of its UTF-8 encoding. So the prompt and the grammar read
// every $ref alike.
func UnescapeFragment(frag string) string {
	i := strings.IndexByte(frag, '%')
	if i < 0 {
		return frag
	}
	b := make([]byte, 0, len(frag))
	b = append(b, frag[:i]...)
	for ; i < len(frag); i++ {
		if c, ok := percentASCII(frag, i); ok {
			b = append(b, c)
			i += 2
			continue
		}
		b = append(b, frag[i])
	}
	return string(b)
}

// percentASCII reports the character s[i:i+3] escapes when it is % and
// two hex digits of a printable ASCII character (0x20 to 0x7E).
func percentASCII(s string, i int) (byte, bool) {
	if s[i] != '%' || i+2 >= len(s) {
		return 0, false
	}
	c, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
	return byte(c), err == nil && c >= 0x20 && c <= 0x7E
}

// unescapeToken decodes a JSON pointer's reference token in one pass: ~1 is
// /, ~0 is ~, and any other ~ stays (two strings.ReplaceAll took most of a
// compile of thousands of long pointers).
func unescapeToken(tok string) string {
	var b strings.Builder
	b.Grow(len(tok))
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c == '~' && i+1 < len(tok) && (tok[i+1] == '0' || tok[i+1] == '1') {
			if tok[i+1] == '1' {
				c = '/'
			}
			i++
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Pointers resolves local JSON pointers in one document, indexing the
// members of wide objects and arrays on first use, so that resolving many
// pointers into one large $defs costs linear time. The zero value is
// ready; it allocates only for wide containers.
type Pointers struct {
	// Each wide container's index, made at its size once: a wide object's
	// members by key, a wide array's elements by position.
	objects map[int32]map[string]int32
	arrays  map[int32][]int32
	size    int // members and elements indexed
}

// Reset forgets every index, for the next document.
func (p *Pointers) Reset() {
	clear(p.objects)
	clear(p.arrays)
	p.size = 0
}

// Size is the number of indexed members, for callers that pool a Pointers
// and drop it when it grew large.
func (p *Pointers) Size() int { return p.size }

// Resolve resolves the local JSON pointer in string node ref ("#",
// "#/$defs/X", "#/definitions/X/properties/y", "#/anyOf/0", ...) against the
// schema at node root, or returns -1 (not a string, not local, or naming
// nothing).
func (p *Pointers) Resolve(d *pyjson.Doc, root, ref int) int {
	if d.Kind(ref) != pyjson.String {
		return -1
	}
	node := root
	if !Tokens(d.Str(ref), func(tok string) bool {
		node = p.Child(d, node, tok)
		return node >= 0
	}) {
		return -1
	}
	return node
}

// wideAt is the size from which child lookups in an object or array go
// through an index.
const wideAt = 32

// Child returns the value of member tok of object node, the element at the
// decimal index tok of array node, or -1. When a key repeats, the last one
// wins, as in Python.
func (p *Pointers) Child(d *pyjson.Doc, node int, tok string) int {
	switch d.Kind(node) {
	case pyjson.Object:
		if d.Nodes[node].Len < wideAt {
			return d.Lookup(node, tok)
		}
		members, ok := p.objects[int32(node)]
		if !ok {
			members = p.indexObject(d, node)
		}
		if c, ok := members[tok]; ok {
			return int(c)
		}
	case pyjson.Array:
		idx, ok := Index(d, node, tok)
		if !ok {
			return -1
		}
		if d.Nodes[node].Len < wideAt {
			return elementAt(d, node, idx)
		}
		elems, ok := p.arrays[int32(node)]
		if !ok {
			elems = p.indexArray(d, node)
		}
		return int(elems[idx])
	}
	return -1
}

// Index reads tok as an index of array node: a decimal in range.
func Index(d *pyjson.Doc, node int, tok string) (int, bool) {
	idx, err := strconv.Atoi(tok)
	if err != nil || idx < 0 || idx >= int(d.Nodes[node].Len) {
		return 0, false
	}
	return idx, true
}

// indexObject indexes the members of object node by key; when a key
// repeats, the last one wins.
func (p *Pointers) indexObject(d *pyjson.Doc, node int) map[string]int32 {
	if p.objects == nil {
		p.objects = make(map[int32]map[string]int32)
	}
	members := make(map[string]int32, d.Nodes[node].Len)
	d.Members(node, func(k, v int) bool {
		members[d.Str(k)] = int32(v)
		return true
	})
	p.objects[int32(node)] = members
	p.size += len(members)
	return members
}

// indexArray indexes the elements of array node by position.
func (p *Pointers) indexArray(d *pyjson.Doc, node int) []int32 {
	if p.arrays == nil {
		p.arrays = make(map[int32][]int32)
	}
	elems := make([]int32, 0, d.Nodes[node].Len)
	d.Elements(node, func(e, _ int) bool {
		elems = append(elems, int32(e))
		return true
	})
	p.arrays[int32(node)] = elems
	p.size += len(elems)
	return elems
}

// elementAt returns the element of array arr at idx.
func elementAt(d *pyjson.Doc, arr, idx int) int {
	found := -1
	d.Elements(arr, func(e, pos int) bool {
		if pos == idx {
			found = e
		}
		return found < 0
	})
	return found
}

// NoHit is Refs' LowHit when no target recurred.
const NoHit = int(^uint(0) >> 1)

// Refs is the stack of $ref targets on the path of a walk, which finds
// cycles and tells when a target's result may be reused.
//
// A walk that meets a $ref asks Recurs first: a target already on the
// path is a cycle, which the walk must not follow. Otherwise it calls Push,
// walks the target, and calls Pop, which reports whether the walk of the
// target met no target recurring above it. Such a result cannot depend on
// the path that reached the target (a $ref below it could recur above only
// if the target were in a cycle, which its walk would have met), so the
// walk may keep it and reuse it wherever the target is met again in the
// same context.
type Refs struct {
	stack []int
	// lowHit is the lowest index in stack that a recurring target had
	// since the innermost target's walk began (NoHit when none).
	lowHit int
}

// Frame is what Push saved, for Pop.
type Frame struct{ pos, lowHit int }

// Reset empties the stack, keeping its memory.
func (r *Refs) Reset() { r.stack, r.lowHit = r.stack[:0], NoHit }

// Len is the number of targets on the path.
func (r *Refs) Len() int { return len(r.stack) }

// Recurs reports whether target is on the path, and if so records the
// recurrence for Pop.
func (r *Refs) Recurs(target int) bool {
	for i, t := range r.stack {
		if t == target {
			r.lowHit = min(r.lowHit, i)
			return true
		}
	}
	return false
}

// Push puts target on the path before its walk.
func (r *Refs) Push(target int) Frame {
	if r.stack == nil {
		r.lowHit = NoHit
	}
	f := Frame{len(r.stack), r.lowHit}
	r.stack = append(r.stack, target)
	r.lowHit = NoHit
	return f
}

// Pop takes the target of f off the path after its walk, and reports
// whether its result is independent of the path (reusable).
func (r *Refs) Pop(f Frame) (reusable bool) {
	reusable = r.lowHit > f.pos
	r.lowHit = min(f.lowHit, r.lowHit)
	r.stack = r.stack[:f.pos]
	return reusable
}
