package grammar

import (
	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// member is one property of an object being written: its expression and
// whether it must be present.
type member struct {
	e        *expr
	required bool
}

// members returns the declared properties of an object schema, in their
// order, each written by mk (nil: its name can't be written), plus the
// required names that no property declares (any value). It returns nil
// when the schema declares neither properties nor required names.
func (c *compiler) members(ks *schema.Keys, path string, mk func(name string, v int, path string) *expr) []member {
	d := c.d
	props := ks.Properties
	if props >= 0 && d.Kind(props) != pyjson.Object {
		props = -1
	}
	required := map[string]bool{}
	var requiredOrder []string
	if ks.Required >= 0 && d.Kind(ks.Required) == pyjson.Array {
		d.Elements(ks.Required, func(e, _ int) bool {
			if d.Kind(e) == pyjson.String && !required[d.Str(e)] {
				required[d.Str(e)] = true
				requiredOrder = append(requiredOrder, d.Str(e))
			}
			return true
		})
	}
	if (props < 0 || d.Nodes[props].Len == 0) && len(required) == 0 {
		return nil
	}
	out := []member{}
	declared := map[string]bool{}
	if props >= 0 {
		d.Members(props, func(k, _ int) bool {
			name := d.Str(k)
			if !c.spend(path, len(name)+64) {
				return false
			}
			if declared[name] {
				return true // a repeated key: the first place, the last schema
			}
			declared[name] = true
			v := c.ptr.Child(d, props, name) // the last schema of a repeated key
			e := mk(name, v, path+".properties."+name)
			if e == nil {
				if required[name] {
					c.fail(path+".properties."+name, "a required property whose name can't be written")
				}
				return true
			}
			out = append(out, member{e, required[name]})
			return true
		})
	}
	closed := ks.AdditionalProperties >= 0 && d.Kind(ks.AdditionalProperties) == pyjson.False
	for _, name := range requiredOrder {
		if declared[name] {
			continue
		}
		if closed {
			c.fail(path+".required", "requires "+name+", which properties does not declare and additionalProperties forbids")
			continue
		}
		v := -1
		if ap := ks.AdditionalProperties; ap >= 0 && d.Kind(ap) == pyjson.Object {
			v = ap
		}
		e := mk(name, v, path+".required")
		if e == nil {
			c.fail(path+".required", "a required property whose name can't be written")
			continue
		}
		out = append(out, member{e, true})
	}
	return out
}

// chainRules writes members in order, separated by sep: each required
// member present, each optional one present or not. A rule per member,
// next(i), is what may follow once something was written, from member i
// on; the first member written is one alternative of a single rule, up to
// the first required one. The grammar stays linear in the number of
// members.
func (c *compiler) chainRules(ms []member, sep string) *expr {
	n := len(ms)
	if n == 0 {
		return empty()
	}
	next := make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		next[i] = c.g.declare("m")
	}
	at := func(i int) *expr {
		if i == n {
			return empty()
		}
		return ref(next[i])
	}
	for i := n - 1; i >= 0; i-- {
		m := ms[i]
		withNext := seq(lit(sep), m.e, at(i+1))
		if m.required {
			c.g.define(next[i], withNext)
		} else {
			c.g.define(next[i], alt(withNext, at(i+1)))
		}
	}
	var firsts []*expr
	required := false
	for i, m := range ms {
		firsts = append(firsts, seq(m.e, at(i+1)))
		if m.required {
			required = true
			break
		}
	}
	if !required {
		firsts = append(firsts, empty())
	}
	return ref(c.g.rule("m", alt(firsts...)))
}
