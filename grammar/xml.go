package grammar

import (
	"strings"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
	"github.com/beamharmony/harmony/internal/syntax"
)

// arguments is a tool call's arguments in Beam's XML form, each
//
//	<rfl:parameter name="KEY">\nVALUE\n</rfl:parameter>
//
// joined by "\n": the declared properties in their order, the required ones
// present. A string value is raw text, any other JSON (as the renderer
// writes them).
func (c *compiler) arguments(t Tool, path string) *expr {
	if !c.load(t.Parameters, path, t.Strict, "t-"+t.Name) {
		return nil
	}
	d := c.d
	root := c.root
	// A root $ref without properties is followed, as casting does.
	if ref := d.Lookup(root, "$ref"); ref >= 0 && d.Lookup(root, "properties") < 0 {
		if target := c.ptr.Resolve(d, root, ref); target >= 0 {
			root = target
		}
	}
	ks := schema.KeysOf(d, root)
	c.dropUnenforced(root, &ks, path)
	members := c.members(&ks, path, func(name string, v int, p string) *expr {
		if !writableKey(name) {
			return nil
		}
		open := syntax.ParamOpen + name + syntax.ParamNameEnd + "\n"
		var value *expr
		if v < 0 {
			value = c.rawText()
		} else {
			value = c.xmlValue(v, p)
		}
		return seq(lit(open), value, lit("\n"+syntax.ParamClose))
	})
	if members != nil {
		return ref(c.g.rule(c.prefix+"-args", c.chainRules(members, syntax.ArgumentSeparator)))
	}
	ap := ks.AdditionalProperties
	if d.Kind(root) != pyjson.Object || ap >= 0 && d.Kind(ap) == pyjson.False || d.Kind(root) == pyjson.Object && d.Nodes[root].Len == 0 {
		// No parameters (or none allowed): no arguments. Parameters
		// absent, null or {} render as "() => any".
		return empty()
	}
	// Free arguments: keys without ", <, > or a newline, raw values.
	key := plus(class(true, runeRange{'"', '"'}, runeRange{'<', '<'}, runeRange{'>', '>'}, runeRange{'\n', '\n'}))
	value := c.rawText()
	if ap >= 0 && d.Kind(ap) == pyjson.Object {
		value = c.xmlValue(ap, path+".additionalProperties")
	}
	arg := seq(lit(syntax.ParamOpen), key, lit(syntax.ParamNameEnd+"\n"), value, lit("\n"+syntax.ParamClose))
	return opt(seq(arg, star(seq(lit(syntax.ArgumentSeparator), arg))))
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
	return ref(c.raw.rules[0])
}

// xmlValue is an argument value valid for schema node s: strings raw,
// other values as JSON.
func (c *compiler) xmlValue(s int, path string) *expr {
	key := memoKey{s, inArgument, true}
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
	body := c.xmlBody(s, path)
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

func (c *compiler) xmlBody(s int, path string) *expr {
	d := c.d
	switch d.Kind(s) {
	case pyjson.False:
		return nil
	case pyjson.Object:
	default:
		return c.rawText() // any value: raw text is a string, valid for any
	}
	ks := schema.KeysOf(d, s)
	c.dropUnenforced(s, &ks, path)
	var e *expr
	switch {
	case ks.Ref >= 0:
		target := c.ptr.Resolve(d, c.root, ks.Ref)
		if target < 0 {
			c.drop(path+".$ref", "$ref")
			return c.rawText()
		}
		e = c.xmlValue(target, path+".$ref")
	case ks.AllOf >= 0 && d.Kind(ks.AllOf) == pyjson.Array && d.Nodes[ks.AllOf].Len == 1:
		e = c.xmlValue(firstElement(d, ks.AllOf), path+".allOf[0]")
	case ks.Enum >= 0:
		e = c.literals(&ks, ks.Enum, true, inArgument, path+".enum", true)
	case ks.Const >= 0:
		e = c.literals(&ks, ks.Const, false, inArgument, path+".const", true)
	case ks.AnyOf >= 0 || ks.OneOf >= 0:
		v, kw := ks.AnyOf, "anyOf"
		if v < 0 {
			v, kw = ks.OneOf, "oneOf"
		}
		if d.Kind(v) != pyjson.Array {
			return c.rawText()
		}
		var alts []*expr
		d.Elements(v, func(m, pos int) bool {
			alts = append(alts, c.xmlValue(m, path+"."+kw+"["+itoa(pos)+"]"))
			return true
		})
		e = alt(alts...)
	case ks.Type >= 0:
		var alts []*expr
		schema.Types(d, ks.Type, func(t schema.Type) bool {
			switch t {
			case schema.TypeString:
				alts = append(alts, c.rawString(&ks, path))
			case schema.TypeUnknown:
				alts = append(alts, c.rawText())
			default:
				alts = append(alts, c.jsonTyped(&ks, t, inArgument, path))
			}
			return true
		})
		e = alt(alts...)
	case ks.Properties >= 0 || ks.Required >= 0:
		e = c.jsonTyped(&ks, schema.TypeObject, inArgument, path)
	default:
		return c.rawText()
	}
	return e
}

// rawString is a raw string value with minLength and maxLength: bounded
// strings are written without "<", which keeps markers and the closing tag
// out without an automaton.
func (c *compiler) rawString(ks *schema.Keys, path string) *expr {
	lo, hi, bounded := c.lengths(ks, ks.MinLength, ks.MaxLength, path, "Length")
	if !bounded {
		return c.rawText()
	}
	return rep(class(true, runeRange{'<', '<'}), lo, hi)
}
