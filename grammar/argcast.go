package grammar

import (
	"slices"
	"strings"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// The types a raw argument is read back as (gap decision 209).
//
// The parser casts an argument's raw text by the type the renderer shows
// for its property (DECISIONS.md, Parsing; the root package's cast.go): the
// first of $ref, enum, const, anyOf/oneOf, type and properties decides,
// reading the parameters' own properties and additionalProperties only,
// and the text becomes the first of those non-string types whose JSON
// spelling it is, else a string. The grammar applies every keyword, so a
// value it writes could be read back as another type: {"type": "integer",
// "$ref": "#/$defs/object"} shows an object, and 3 is read as the string
// "3"; a property only an allOf declares is not shown at all, and its
// values are read as strings. argCast is what the parser reads, and
// arguments keeps each argument's types to it.

// argCast is what the parser casts a raw argument to: kinds are the
// grammar's types its text may be read as (an integer property's texts
// are integers, a number's are integers and fractions), str whether a
// string fits. any: every type, as for a property of no schema.
type argCast struct {
	kinds typeSet
	str   bool
}

var castAny = argCast{kinds: tAll &^ tStr, str: true}

// allowed is the types a raw argument of c can be written as: texts the
// parser reads back as a value of that type.
func (a argCast) allowed() typeSet {
	if a.str {
		return a.kinds | tStr
	}
	return a.kinds
}

// argCastOf returns what the parser casts the raw argument name of the
// tool whose parameters are loaded (c.d) to, as cast.go's toolSchema
// reads it: the root (its $ref's target when it has no properties), the
// property there, else additionalProperties when that is a schema object,
// else a string. name "" is any name the properties do not declare (no
// argument's name is empty).
func (c *compiler) argCastOf(name string) argCast {
	d := c.d
	if !c.argRead {
		// The parameters' root, properties and additionalProperties, read
		// once a tool.
		c.argRead, c.argProps, c.argExtra = true, -1, -1
		root := 0
		if ref := d.Lookup(0, "$ref"); ref >= 0 && d.Lookup(0, "properties") < 0 {
			root = c.ptr.Resolve(d, 0, ref)
		}
		if root >= 0 && d.Kind(root) == pyjson.Object {
			if p := d.Lookup(root, "properties"); p >= 0 && d.Kind(p) == pyjson.Object {
				c.argProps = p
			}
			if a := d.Lookup(root, "additionalProperties"); a >= 0 && d.Kind(a) == pyjson.Object {
				c.argExtra = a
			}
		}
	}
	v := -1
	if c.argProps >= 0 && name != "" {
		v = c.ptr.Child(d, c.argProps, name) // indexed when there are many
	}
	if v < 0 {
		v = c.argExtra
	}
	if v < 0 {
		return argCast{str: true}
	}
	var st castWalk
	out := c.castOfSchema(v, 0, &st)
	if n := d.Lookup(v, "nullable"); n >= 0 && d.Kind(n) == pyjson.True {
		out.kinds |= tNull
	}
	return out
}

// castWalk is castOfSchema's state: the $ref targets on the path (one
// met again: any type) and the steps taken (past maxCastWork: any).
type castWalk struct {
	refs  []int
	steps int
}

// maxCastWork and maxCastDepth are cast.go's maxRefWork and
// maxSchemaDepth: past them a schema admits every type.
const (
	maxCastWork  = 1 << 18
	maxCastDepth = 64
)

// castOfSchema is cast.go's typeResolver.add for schema s.
func (c *compiler) castOfSchema(s, depth int, st *castWalk) argCast {
	d := c.d
	st.steps++
	if depth > maxCastDepth || st.steps > maxCastWork {
		return castAny
	}
	var ks *schema.Keys
	if d.Kind(s) == pyjson.Object {
		ks = &c.keysOf(s).ks // (the view's, read once)
	} else {
		return castAny // not a schema object: "any", as cast.go reads it
	}
	var out argCast
	switch ks.Rule(d) {
	case schema.RuleRef:
		target := c.localRef(ks.Ref) // (c.root is the document's, 0)
		if target < 0 || slices.Contains(st.refs, target) {
			return castAny
		}
		st.refs = append(st.refs, target)
		out = c.castOfSchema(target, depth+1, st)
		st.refs = st.refs[:len(st.refs)-1]
	case schema.RuleEnum:
		if d.Kind(ks.Enum) != pyjson.Array {
			return castAny
		}
		d.Elements(ks.Enum, func(m, _ int) bool { out = out.with(valueCast(d, m)); return true })
	case schema.RuleConst:
		out = valueCast(d, ks.Const)
	case schema.RuleAnyOf, schema.RuleOneOf:
		v := ks.AnyOf
		if v < 0 {
			v = ks.OneOf
		}
		if d.Kind(v) != pyjson.Array || d.Nodes[v].Len == 0 {
			return castAny
		}
		d.Elements(v, func(m, _ int) bool { out = out.with(c.castOfSchema(m, depth+1, st)); return true })
	case schema.RuleType:
		schema.Types(d, ks.Type, func(ty schema.Type) bool {
			switch ty {
			case schema.TypeString:
				out.str = true
			case schema.TypeNull:
				out.kinds |= tNull
			case schema.TypeBoolean:
				out.kinds |= tBool
			case schema.TypeInteger:
				out.kinds |= tInt
			case schema.TypeNumber:
				out.kinds |= tNum
			case schema.TypeObject:
				out.kinds |= tObj
			case schema.TypeArray:
				out.kinds |= tArr
			default:
				out = castAny
				return false
			}
			return true
		})
	case schema.RuleProperties:
		out.kinds = tObj
	default:
		return castAny
	}
	return out
}

func (a argCast) with(b argCast) argCast {
	return argCast{kinds: a.kinds | b.kinds, str: a.str || b.str}
}

// valueCast is cast.go's addValueKind: the type of an enum member or const.
func valueCast(d *pyjson.Doc, m int) argCast {
	switch d.Kind(m) {
	case pyjson.Null:
		return argCast{kinds: tNull}
	case pyjson.True, pyjson.False:
		return argCast{kinds: tBool}
	case pyjson.Number:
		if pyjson.IsIntegerLiteral(string(d.Raw(m))) {
			return argCast{kinds: tInt}
		}
		return argCast{kinds: tNum}
	case pyjson.String:
		return argCast{str: true}
	case pyjson.Array:
		return argCast{kinds: tArr}
	case pyjson.Object:
		return argCast{kinds: tObj}
	}
	return argCast{}
}

// castKeeps reports whether the parser reads the listed value m, written
// as a raw argument, back as itself: of a type it casts to, and for a
// string, not spelling one of the other types it tries first ("3" where an
// integer fits is read as 3).
func (c *compiler) castKeeps(m int) bool {
	d := c.d
	if !admits(d, c.argCast.allowed(), m) {
		return false
	}
	if d.Kind(m) != pyjson.String {
		return true
	}
	return !spellsKind(d.Str(m), c.argCast.kinds)
}

// spellsKind reports whether the raw argument text s is read as a value of
// one of kinds (cast.go's appendCast, JSON whitespace around it ignored):
// null, a boolean, an integer literal, a number literal, or (kept out
// whether or not it parses) a text opening an object or an array.
func spellsKind(s string, kinds typeSet) bool {
	t := strings.Trim(s, " \t\r\n")
	switch {
	case kinds&tNull != 0 && t == "null",
		kinds&tBool != 0 && (t == "true" || t == "false"),
		kinds&tInt != 0 && pyjson.IsIntegerLiteral(t),
		kinds&tFrac != 0 && t != "" && pyjson.NumberLen([]byte(t)) == len(t),
		kinds&tObj != 0 && strings.HasPrefix(t, "{"),
		kinds&tArr != 0 && strings.HasPrefix(t, "["):
		return true
	}
	return false
}

// wholeTypes of an argument (decision 306): the types whose every value
// is valid for the argument's schemas, so that a raw text the parser
// reads as such a value needs no check. A string branch of a variant
// leaves out the texts read as a type its own view rules out, unless that
// type is whole for the argument: {"anyOf": [{"type": "string"}, {"type":
// "null"}]} writes the text null in its string branch, read as null,
// valid; {"anyOf": [{"type": "string"}, {"type": "integer", "minimum":
// 10}]} does not write 3 there.

// argWholeTypes is wholeSchemaTypes of every schema of the argument's
// view (c.argView), read once an argument.
func (c *compiler) argWholeTypes() typeSet {
	if !c.argWholeRead {
		c.argWholeRead, c.argWhole = true, tAll
		work := 0
		if c.argView == nil || c.argView.never {
			c.argWhole = 0
		} else {
			for _, n := range c.argView.nodes {
				c.argWhole &= c.wholeSchemaTypes(n.node, 3, &work)
			}
		}
	}
	return c.argWhole
}

// wholeSchemaTypes is a subset of the types whose every value is valid
// for schema s: its type, less the types its keywords constrain, through
// $ref, allOf, anyOf, oneOf and a not of types depth levels down; none
// for a keyword it does not read (if, enum, a misspelt one), a key
// written twice, or past maxTypeWork schemas.
func (c *compiler) wholeSchemaTypes(s, depth int, work *int) typeSet {
	d := c.d
	switch d.Kind(s) {
	case pyjson.True:
		return tAll
	case pyjson.Object:
	default:
		return 0
	}
	if *work++; *work > maxTypeWork || depth < 0 || d.DuplicateKey(s) >= 0 {
		return 0
	}
	set := tAll
	d.Members(s, func(k, m int) bool {
		switch key := d.Str(k); key {
		case "type":
			set &= typesOf(d, m)
		case "minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType", "contentSchema":
			set &^= tStr
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
			set &^= tNum
		case "properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties",
			"propertyNames", "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties":
			set &^= tObj
		case "items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains",
			"minContains", "maxContains", "unevaluatedItems":
			set &^= tArr
		case "$ref":
			if target := c.resolveRef(s, m); target >= 0 && target != s {
				set &= c.wholeSchemaTypes(target, depth-1, work)
			} else {
				set = 0
			}
		case "allOf", "anyOf", "oneOf":
			if d.Kind(m) != pyjson.Array || d.Nodes[m].Len == 0 {
				set = 0
				break
			}
			var all, some, once, twice, admitted typeSet = tAll, 0, 0, 0, 0
			d.Elements(m, func(e, _ int) bool {
				w := c.wholeSchemaTypes(e, depth-1, work)
				all &= w
				some |= w
				if key == "oneOf" {
					// A type whole for one variant and admitted by no
					// other: each value of it is valid for that one only.
					t := c.schemaTypes(e, depth-1, work)
					twice |= admitted & t
					admitted |= t
					once |= w
				}
				return true
			})
			switch key {
			case "allOf":
				set &= all
			case "anyOf":
				set &= some
			default:
				set &= once &^ twice
			}
		case "not":
			if excluded, exact := notTypes(d, s); exact {
				set &^= excluded
			} else {
				set = 0
			}
		case "$defs", "definitions", "$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "nullable":
		default:
			if !annotation(key) {
				set = 0 // enum, const, if, ...: not read
			}
		}
		return set != 0
	})
	return set
}
