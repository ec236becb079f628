package grammar

import (
	"strconv"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
	"github.com/beamharmony/harmony/internal/syntax"
)

// textContext says where a JSON value is written, which decides what its
// strings may not contain: in the final message's content, no marker; in a
// tool call's argument, no marker and no </rfl:parameter> either.
type textContext uint8

const (
	inContent textContext = iota
	inArgument
)

// forbidden returns the strings no text written in ctx may contain.
func forbidden(ctx textContext) []string {
	fs := append([]string(nil), syntax.Markers[:]...)
	if ctx == inArgument {
		fs = append(fs, syntax.ParamClose)
	}
	return fs
}

// containsForbidden reports whether s holds one of the strings of ctx.
func containsForbidden(s string, ctx textContext) bool {
	for _, f := range forbidden(ctx) {
		if indexOf(s, f) >= 0 {
			return true
		}
	}
	return false
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// jsonControl is the characters a JSON string holds only escaped.
func jsonControl() *expr {
	return class(false, runeRange{0, 0x1f}, runeRange{'"', '"'}, runeRange{'\\', '\\'})
}

// jsonEscape is one escape sequence after the backslash's absence: \" \\
// \/ \b \f \n \r \t, or \u and four hex digits that are not a surrogate
// (so that each escape is exactly one character, for minLength and
// maxLength).
func jsonEscape() *expr {
	hex := class(false, runeRange{'0', '9'}, runeRange{'a', 'f'}, runeRange{'A', 'F'})
	nonSurrogateStart := alt(
		seq(class(false, runeRange{'0', '9'}, runeRange{'a', 'c'}, runeRange{'A', 'C'}, runeRange{'e', 'f'}, runeRange{'E', 'F'}), hex, hex, hex),
		seq(chars(false, "dD"), class(false, runeRange{'0', '7'}), hex, hex),
	)
	return seq(lit(`\`), alt(chars(false, `"\/bfnrt`), seq(lit("u"), nonSurrogateStart)))
}

// strings returns the rule of a JSON string's contents in ctx: any text
// without the forbidden strings, escapes included.
func (c *compiler) stringText(ctx textContext) *textLang {
	if c.text[ctx] == nil {
		t := &textLang{forbidden: forbidden(ctx), excluded: jsonControl(), escape: jsonEscape()}
		name := "str"
		if ctx == inArgument {
			name = "argstr"
		}
		t.build(&c.g, name)
		c.text[ctx] = t
	}
	return c.text[ctx]
}

// anyJSON returns a reference to the rule of any JSON value in ctx.
func (c *compiler) anyJSON(ctx textContext) *expr {
	if c.any[ctx] > 0 {
		return ref(c.any[ctx])
	}
	name := "json"
	if ctx == inArgument {
		name = "argjson"
	}
	value := c.g.declare(name)
	c.any[ctx] = value
	str := seq(lit(`"`), ref(c.stringText(ctx).rules[0]), lit(`"`))
	strRule := ref(c.g.rule(name+"-string", str))
	member := seq(strRule, lit(": "), ref(value))
	obj := seq(lit("{"), opt(seq(member, star(seq(lit(", "), member)))), lit("}"))
	arr := seq(lit("["), opt(seq(ref(value), star(seq(lit(", "), ref(value))))), lit("]"))
	c.g.define(value, alt(
		ref(c.g.rule(name+"-object", obj)),
		ref(c.g.rule(name+"-array", arr)),
		strRule,
		c.numberRule(),
		lit("true"), lit("false"), lit("null"),
	))
	return ref(value)
}

// numberRule is any JSON number.
func (c *compiler) numberRule() *expr {
	if c.numRule == 0 {
		digits := plus(class(false, runeRange{'0', '9'}))
		c.numRule = c.g.rule("number", seq(
			c.integerExpr(),
			opt(seq(lit("."), digits)),
			opt(seq(chars(false, "eE"), opt(chars(false, "+-")), digits)),
		))
	}
	return ref(c.numRule)
}

// integerExpr is any integer as JSON writes it: no leading zeros, no "-0".
func (c *compiler) integerExpr() *expr {
	return alt(lit("0"), seq(opt(lit("-")), class(false, runeRange{'1', '9'}), star(class(false, runeRange{'0', '9'}))))
}

// jsonValue returns the expression of a JSON value valid for schema node s
// in ctx; path names s for errors and dropped keywords.
func (c *compiler) jsonValue(s int, ctx textContext, path string) *expr {
	key := memoKey{s, ctx, false}
	if r, ok := c.memo[key]; ok {
		return ref(r)
	}
	if c.stop(path) || c.check(path) != nil {
		return nothing()
	}
	r := c.g.declare(c.nameFor(path))
	c.memo[key] = r
	c.paths[r] = path
	c.depth++
	body := c.jsonBody(s, ctx, path)
	c.depth--
	c.g.define(r, body)
	if body != nil && body.kind == kRef && body.proto == nil && body.rule != r {
		// An alias: callers refer to its target, so that alternatives
		// that alias one rule are merged as one.
		c.memo[key] = body.rule
		return body
	}
	return ref(r)
}

func (c *compiler) jsonBody(s int, ctx textContext, path string) *expr {
	d := c.d
	switch d.Kind(s) {
	case pyjson.True:
		return c.anyJSON(ctx)
	case pyjson.False:
		return nil
	case pyjson.Object:
	default:
		return c.anyJSON(ctx)
	}
	ks := schema.KeysOf(d, s)
	c.dropUnenforced(s, &ks, path)
	e := c.jsonKeys(s, &ks, ctx, path)
	return e
}

// jsonKeys is jsonBody after the keywords ks of object schema s were read.
func (c *compiler) jsonKeys(s int, ks *schema.Keys, ctx textContext, path string) *expr {
	d := c.d
	switch {
	case ks.Ref >= 0:
		target := c.ptr.Resolve(d, c.root, ks.Ref)
		if target < 0 {
			c.drop(path+".$ref", "$ref")
			return c.anyJSON(ctx)
		}
		return c.jsonValue(target, ctx, path+".$ref")
	case ks.AllOf >= 0 && d.Kind(ks.AllOf) == pyjson.Array && d.Nodes[ks.AllOf].Len == 1:
		return c.jsonValue(firstElement(d, ks.AllOf), ctx, path+".allOf[0]")
	case ks.Enum >= 0:
		return c.literals(ks, ks.Enum, true, ctx, path+".enum", false)
	case ks.Const >= 0:
		return c.literals(ks, ks.Const, false, ctx, path+".const", false)
	case ks.AnyOf >= 0 || ks.OneOf >= 0:
		v, kw := ks.AnyOf, "anyOf"
		if v < 0 {
			v, kw = ks.OneOf, "oneOf"
		}
		if d.Kind(v) != pyjson.Array {
			return c.anyJSON(ctx)
		}
		var alts []*expr
		d.Elements(v, func(e, pos int) bool {
			alts = append(alts, c.jsonValue(e, ctx, path+"."+kw+"["+strconv.Itoa(pos)+"]"))
			return true
		})
		return alt(alts...)
	case ks.Type >= 0:
		var alts []*expr
		schema.Types(d, ks.Type, func(t schema.Type) bool {
			alts = append(alts, c.jsonTyped(ks, t, ctx, path))
			return true
		})
		return alt(alts...)
	case ks.Properties >= 0 || ks.AdditionalProperties >= 0 || ks.Required >= 0:
		return c.jsonTyped(ks, schema.TypeObject, ctx, path)
	case ks.Items >= 0 || ks.PrefixItems >= 0:
		return c.jsonTyped(ks, schema.TypeArray, ctx, path)
	}
	return c.anyJSON(ctx)
}

func firstElement(d *pyjson.Doc, arr int) int {
	first := -1
	d.Elements(arr, func(e, _ int) bool { first = e; return false })
	return first
}

// jsonTyped is a JSON value of type t with the keywords ks.
func (c *compiler) jsonTyped(ks *schema.Keys, t schema.Type, ctx textContext, path string) *expr {
	switch t {
	case schema.TypeString:
		return c.jsonString(ks, ctx, path)
	case schema.TypeInteger:
		return c.integer(ks, path)
	case schema.TypeNumber:
		return c.number(ks, path)
	case schema.TypeBoolean:
		return alt(lit("true"), lit("false"))
	case schema.TypeNull:
		return lit("null")
	case schema.TypeArray:
		return c.array(ks, ctx, path)
	case schema.TypeObject:
		return c.object(ks, ctx, path)
	}
	return c.anyJSON(ctx)
}

// jsonString is a JSON string with minLength and maxLength. Bounded strings
// are written character by character and without a raw "<" (it may be
// escaped as \u003c), which keeps any marker out without an automaton.
func (c *compiler) jsonString(ks *schema.Keys, ctx textContext, path string) *expr {
	lo, hi, bounded := c.lengths(ks, ks.MinLength, ks.MaxLength, path, "Length")
	if !bounded {
		return seq(lit(`"`), ref(c.stringText(ctx).rules[0]), lit(`"`))
	}
	char := alt(class(true, runeRange{0, 0x1f}, runeRange{'"', '"'}, runeRange{'<', '<'}, runeRange{'\\', '\\'}), jsonEscape())
	return seq(lit(`"`), rep(ref(c.g.rule("char", char)), lo, hi), lit(`"`))
}

// literals is the enum (members of array v) or const (value v) as JSON
// texts, Python style as the renderer writes them. Members that would hold
// a forbidden string, or that a type keyword rules out, are left out;
// raw writes string members as raw text (an XML argument).
func (c *compiler) literals(ks *schema.Keys, v int, isEnum bool, ctx textContext, path string, raw bool) *expr {
	d := c.d
	var alts []*expr
	add := func(m int) {
		if ks.Type >= 0 && !typeAdmits(d, ks.Type, m) {
			return
		}
		var text string
		if raw && d.Kind(m) == pyjson.String {
			text = d.Str(m)
		} else {
			text = string(d.AppendPython(nil, m))
		}
		if !c.spend(path, len(text)+64) || containsForbidden(text, ctx) {
			return
		}
		alts = append(alts, lit(text))
	}
	if !isEnum {
		add(v)
	} else if d.Kind(v) == pyjson.Array {
		d.Elements(v, func(m, _ int) bool { add(m); return true })
	} else {
		return c.anyJSON(ctx)
	}
	if c.err != nil {
		return nil
	}
	if len(alts) == 0 {
		c.fail(path, "no value can be written: every member is ruled out by the type or holds a Harmony marker")
		return nil
	}
	return alt(alts...)
}

// typeAdmits reports whether the type keyword t admits the JSON value m.
func typeAdmits(d *pyjson.Doc, t, m int) bool {
	ok := false
	schema.Types(d, t, func(ty schema.Type) bool {
		switch ty {
		case schema.TypeUnknown:
			ok = true
		case schema.TypeString:
			ok = d.Kind(m) == pyjson.String
		case schema.TypeNull:
			ok = d.Kind(m) == pyjson.Null
		case schema.TypeBoolean:
			ok = d.Kind(m) == pyjson.True || d.Kind(m) == pyjson.False
		case schema.TypeNumber:
			ok = d.Kind(m) == pyjson.Number
		case schema.TypeInteger:
			ok = d.Kind(m) == pyjson.Number && isIntegral(string(d.Raw(m)))
		case schema.TypeArray:
			ok = d.Kind(m) == pyjson.Array
		case schema.TypeObject:
			ok = d.Kind(m) == pyjson.Object
		}
		return !ok
	})
	return ok
}

// array is a JSON array with prefixItems, items, minItems and maxItems.
func (c *compiler) array(ks *schema.Keys, ctx textContext, path string) *expr {
	d := c.d
	lo, hi, _ := c.lengths(ks, ks.MinItems, ks.MaxItems, path, "Items")
	var prefix []*expr
	if ks.PrefixItems >= 0 && d.Kind(ks.PrefixItems) == pyjson.Array {
		d.Elements(ks.PrefixItems, func(e, pos int) bool {
			prefix = append(prefix, c.jsonValue(e, ctx, path+".prefixItems["+strconv.Itoa(pos)+"]"))
			return true
		})
	}
	var item *expr // nil: no element past the prefix
	switch {
	case ks.Items < 0:
		item = c.anyJSON(ctx)
	case d.Kind(ks.Items) == pyjson.False:
	case d.Kind(ks.Items) == pyjson.Array: // draft 4 tuple form
		c.drop(path+".items", "items")
		item = c.anyJSON(ctx)
	default:
		item = c.jsonValue(ks.Items, ctx, path+".items")
	}
	if hi >= 0 && len(prefix) > hi {
		prefix = prefix[:hi]
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
		return rep(seq(lit(", "), item), max(0, lo-i), more)
	}
	var first *expr
	switch {
	case hi == 0:
		first = nil
	case len(prefix) > 0:
		first = seqOrNil(prefix[0], from(1))
	case item != nil:
		first = seqOrNil(item, from(1))
	}
	var body *expr
	switch {
	case first == nil && lo > 0:
		c.fail(path, "no array can be written: minItems asks for more elements than the schema allows")
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

// object is a JSON object: the declared properties in their order, the
// required ones present, separated as the renderer writes JSON (", " and
// ": "). Without properties, an object of any members valid for
// additionalProperties (none when it is false).
func (c *compiler) object(ks *schema.Keys, ctx textContext, path string) *expr {
	d := c.d
	members := c.members(ks, path, func(name string, v int, p string) *expr {
		key := string(pyjson.AppendQuoted(nil, name))
		if containsForbidden(key, ctx) {
			return nil
		}
		var value *expr
		if v < 0 {
			value = c.anyJSON(ctx)
		} else {
			value = c.jsonValue(v, ctx, p)
		}
		return seq(lit(key+": "), value)
	})
	if members != nil {
		return seq(lit("{"), c.chainRules(members, ", "), lit("}"))
	}
	// No properties: free members, unless additionalProperties is false.
	ap := ks.AdditionalProperties
	if ap >= 0 && d.Kind(ap) == pyjson.False {
		return lit("{}")
	}
	value := c.anyJSON(ctx)
	if ap >= 0 && d.Kind(ap) == pyjson.Object {
		value = c.jsonValue(ap, ctx, path+".additionalProperties")
	}
	key := seq(lit(`"`), ref(c.stringText(ctx).rules[0]), lit(`"`))
	member := seq(key, lit(": "), value)
	return seq(lit("{"), opt(seq(member, star(seq(lit(", "), member)))), lit("}"))
}
