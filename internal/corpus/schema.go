package corpus

import "fmt"

// tools returns zero to four tools and, when some of them are the trained
// search and browse, the builtin_tools naming them (or nil).
func (g *gen) tools() ([]obj, []any) {
	var tools []obj
	var builtins []any
	for n := pick(g, 0, 0, 1, 1, 2, 3, 4); n > 0; n-- {
		switch g.intn(13) {
		case 12:
			tools = append(tools, g.deepTool(1+g.intn(64)))
		case 0:
			tools = append(tools, pageTool(pick(g, "search", "browse")))
			if g.chance(0.8) {
				name := tools[len(tools)-1].get("function").(obj).get("name")
				builtins = append(builtins, name)
				if g.chance(0.1) {
					builtins = append(builtins, name) // repeats are allowed (gap 10)
				}
			}
		case 1:
			tools = append(tools, g.bashTool())
		case 2:
			tools = append(tools, pageTool(pick(g, "get_weather", "search_flights")))
		case 3:
			// A search with another definition: built in only when named.
			t := g.tool("search")
			tools = append(tools, t)
			if g.chance(0.5) {
				builtins = append(builtins, "search")
			}
		default:
			// A middle dot (U+00B7) is neither whitespace nor a format
			// character, and no look-alike of a role: a valid name that
			// takes the template's slow path for unusual names.
			tools = append(tools, g.tool(pick(g, "lookup", "get_time", "calc.v2", "工具", "my-tool", "t", "Ünïcode", "dup", "dup", "a\u00b7b", "x.y-z_1")))
		}
	}
	if builtins == nil && g.chance(0.1) {
		builtins = []any{}
	}
	return tools, builtins
}

// tool returns a function tool with a random schema.
func (g *gen) tool(name string) obj {
	f := obj{{"name", name}}
	switch g.intn(6) {
	case 0:
	case 1:
		f = f.set("description", pick[any](g, nil, ""))
	default:
		f = f.set("description", pick(g, descriptions...))
	}
	if params, ok := g.parameters(); ok {
		f = f.set("parameters", params)
	}
	t := obj{}
	switch g.intn(5) {
	case 0:
	case 1:
		t = t.set("type", nil)
	default:
		t = t.set("type", "function")
	}
	return t.set("function", g.shuffled(f))
}

// Descriptions and titles: one line, several lines, empty lines.
var descriptions = []string{
	"Get the current weather for a city.",
	"Line one.\nLine two.",
	"First paragraph.\n\nSecond paragraph.",
	"\nstarts with an empty line",
	"ends with an empty line\n",
	"Unicode: ünïcödé, 中文, 🙂",
	"Has \"quotes\", a | pipe and a ~ tilde.",
	"Code: `a < b` and <tag>.",
	"  indented text",
	"Near markers: <|foo|> and <| end |>",
}

// parameters returns a tool's parameters schema, or false to leave the key
// out. Most have properties; some are empty in one of the ways that give
// "() => any".
func (g *gen) parameters() (any, bool) {
	switch g.intn(14) {
	case 0:
		return nil, false
	case 1:
		return nil, true
	case 2:
		return obj{}, true
	case 3:
		return obj{{"type", "object"}, {"properties", obj{}}}, true
	}
	s := &schemaGen{g: g}
	root := obj{{"type", "object"}}
	if g.chance(0.5) {
		s.defsKey = pick(g, "$defs", "definitions")
		s.defs = fixDefs(s.definitions(), s.defsKey)
		root = root.set(s.defsKey, s.defs)
	}
	props, required := s.properties(0)
	root = root.set("properties", props)
	if required != nil {
		root = root.set("required", required)
	}
	if g.chance(0.2) {
		root = root.set("description", pick(g, "The root's description is not rendered.", "not rendered, not checked: <|call|>"))
	}
	if g.chance(0.2) {
		root = root.set("additionalProperties", false)
	}
	if g.chance(0.1) {
		root = root.del("type")
	}
	return g.shuffled(root), true
}

// schemaGen generates schemas inside one tool's parameters, which may hold
// definitions to refer to.
type schemaGen struct {
	g       *gen
	defs    obj    // the definitions, when the parameters have some
	defsKey string // "$defs" or "definitions"
}

// Property names: identifiers, and names written as JSON strings.
var propertyNames = []string{
	"city", "days", "unit", "query", "limit", "_private", "$ref", "camelCase", "x1",
	"content-type", "2fa", "with space", "ключ", "a.b", "quote\"d", "", "tilde~name", "slash/name", "🙂",
}

// properties returns 1 to 4 distinct properties and the required names
// (sometimes not a list, sometimes naming absent properties).
func (s *schemaGen) properties(depth int) (obj, any) {
	g := s.g
	props := obj{}
	var names []any
	for n := 1 + g.intn(4); n > 0; n-- {
		name := pick(g, propertyNames...)
		if props.get(name) != nil {
			continue
		}
		props = props.set(name, s.property(depth+1))
		if g.chance(0.5) {
			names = append(names, name)
		}
	}
	switch g.intn(10) {
	case 0:
		return props, nil
	case 1:
		return props, pick[any](g, "city", obj{{"city", true}}, []any{"missing", num("1")})
	}
	if names == nil {
		return props, []any{}
	}
	return props, names
}

// property returns a property's schema: a type, decorated with the keys
// that are read from the property itself.
func (s *schemaGen) property(depth int) any {
	g := s.g
	t := s.schema(depth)
	o, ok := t.(obj)
	if !ok {
		return t
	}
	if g.chance(0.35) {
		o = o.set("description", pick(g, descriptions...))
	}
	if g.chance(0.15) {
		o = o.set("title", pick[any](g, "Title", "", "Multi\nline title", 5))
	}
	if g.chance(0.15) {
		o = o.set("examples", pick[any](g, []any{"JFK", "LHR"}, []any{num("1"), num("2.5"), nil, true}, []any{obj{{"a", []any{num("1")}}}}, []any{}, "not a list"))
	}
	if g.chance(0.25) {
		o = o.set("default", s.defaultValue())
	}
	if g.chance(0.15) {
		o = o.set("nullable", pick[any](g, true, true, false, "true"))
	}
	if g.chance(0.15) {
		o = o.set(pick(g, "format", "minimum", "pattern", "additionalProperties", "maxItems"), pick[any](g, "date", num("0"), "^a+$", false))
	}
	if g.chance(0.5) {
		o = g.shuffled(o)
	}
	return o
}

// defaultValue returns a default of any kind.
func (s *schemaGen) defaultValue() any {
	g := s.g
	switch g.intn(9) {
	case 0:
		return pick(g, "economy", "text with \"quotes\"", "ünï", "", "multi\nline")
	case 1:
		return pick(g, intLiterals...)
	case 2:
		return pick(g, floatLiterals...)
	case 3:
		return pick[any](g, true, false)
	case 4:
		return nil
	case 5:
		return []any{num("1"), num("2")}
	case 6:
		return obj{{"a", "b"}, {"n", num("1.5")}}
	case 7:
		return []any{}
	}
	return "content"
}

// schema returns a schema of a random kind. depth is the nesting level so
// far; deeper levels choose leaves more often.
func (s *schemaGen) schema(depth int) any {
	g := s.g
	leaf := depth >= 4 || g.chance(float64(depth)*0.2)
	k := g.intn(20)
	if leaf && k >= 12 {
		k = g.intn(12)
	}
	switch k {
	case 0, 1, 2, 3:
		return obj{{"type", pick(g, "string", "string", "integer", "number", "boolean", "null", "mystery")}}
	case 4:
		return s.enum()
	case 5:
		return obj{{"const", s.defaultValue()}}
	case 6:
		return s.typeArray(depth, true)
	case 7:
		return pick[any](g, obj{}, obj{{"allOf", []any{obj{{"type", "string"}}}}}, obj{{"not", obj{{"type", "null"}}}}, true, obj{{"type", obj{}}}, obj{{"type", []any{}}})
	case 8:
		return obj{{"type", "array"}}
	case 9:
		return obj{{"type", "object"}}
	case 10, 11:
		if s.defs != nil {
			return s.ref()
		}
		return obj{{"type", "string"}, {"format", "date-time"}}
	case 12, 13:
		items := s.schema(depth + 1)
		if g.chance(0.1) {
			items = pick[any](g, true, []any{obj{{"type", "string"}}})
		}
		return obj{{"type", "array"}, {"items", items}}
	case 14, 15:
		props, required := s.properties(depth)
		o := obj{{"type", "object"}, {"properties", props}}
		if required != nil {
			o = o.set("required", required)
		}
		if g.chance(0.2) {
			o = o.del("type") // properties without type: an object
		}
		return g.shuffled(o)
	case 16, 17:
		return s.union(depth)
	case 18:
		return s.typeArray(depth, false)
	}
	return s.conflicting(depth)
}

// enum returns an enum of strings, numbers, mixed members, a null member,
// repeats, an empty list, or a non-list.
func (s *schemaGen) enum() obj {
	g := s.g
	var members any
	switch g.intn(7) {
	case 0, 1:
		members = []any{"economy", "business", "first"}
	case 2:
		members = []any{num("1"), num("2"), num("3.5")}
	case 3:
		members = []any{"a", num("1"), nil, true, obj{{"k", "v"}}, []any{"x"}}
	case 4:
		members = []any{"same", "same", "ünï", "with \"quote\""}
	case 5:
		members = []any{}
	default:
		members = "not a list"
	}
	o := obj{{"enum", members}}
	if g.chance(0.5) {
		o = o.set("type", pick(g, "string", "integer"))
	}
	return g.shuffled(o)
}

// typeArray returns a type list such as ["string", "null"], with
// properties or items for the object and array members.
func (s *schemaGen) typeArray(depth int, simple bool) obj {
	g := s.g
	if simple {
		return obj{{"type", pick[any](g,
			[]any{"string", "null"}, []any{"integer", "number"}, []any{"null", "string"},
			[]any{"string", "integer", "boolean"}, []any{"string", num("1")}, []any{"null", "null"})}}
	}
	o := obj{{"type", pick[any](g, []any{"object", "null"}, []any{"array", "null"}, []any{"object", "array", "string"})}}
	props, required := s.properties(depth)
	o = o.set("properties", props)
	if required != nil {
		o = o.set("required", required)
	}
	return o.set("items", s.schema(depth+1))
}

// union returns an anyOf or oneOf: Optional[X], nested unions, repeated
// members, an empty list or a non-list.
func (s *schemaGen) union(depth int) obj {
	g := s.g
	word := pick(g, "anyOf", "anyOf", "oneOf")
	switch g.intn(8) {
	case 0:
		return obj{{word, []any{s.schema(depth + 1), obj{{"type", "null"}}}}}
	case 1:
		return obj{{word, []any{obj{{"type", []any{"string", "null"}}}, obj{{"type", "null"}}}}}
	case 2:
		return obj{{word, pick[any](g, []any{}, "not a list", obj{})}}
	case 3:
		inner := obj{{pick(g, "anyOf", "oneOf"), []any{obj{{"type", "integer"}}, obj{{"type", "string"}}}}}
		return obj{{word, []any{inner, obj{{"type", "number"}}, obj{{"type", "string"}}}}}
	}
	var variants []any
	for n := 1 + g.intn(3); n > 0; n-- {
		v := s.schema(depth + 1)
		if o, ok := v.(obj); ok && g.chance(0.3) {
			// Variant descriptions are not rendered, so not checked for markers.
			v = o.set("description", pick(g, "variant descriptions are not rendered", "not rendered: <|end|>"))
		}
		variants = append(variants, v)
	}
	return obj{{word, variants}}
}

// conflicting returns a schema with keys of several rules, to check that
// the first matching rule wins ($ref, enum, const, anyOf, oneOf, type,
// properties).
func (s *schemaGen) conflicting(depth int) obj {
	g := s.g
	o := obj{}
	for _, k := range []string{"$ref", "enum", "const", "anyOf", "oneOf", "type", "properties"} {
		if !g.chance(0.4) {
			continue
		}
		switch k {
		case "$ref":
			if s.defs != nil {
				o = o.set(k, s.ref().get("$ref"))
			}
		case "enum":
			o = o.set(k, []any{"e1", "e2"})
		case "const":
			o = o.set(k, "c")
		case "anyOf", "oneOf":
			o = o.set(k, []any{obj{{"type", "boolean"}}, obj{{"type", "integer"}}})
		case "type":
			o = o.set(k, pick[any](g, "string", "object", []any{"integer", "null"}))
		case "properties":
			props, _ := s.properties(depth)
			o = o.set(k, props)
		}
	}
	return g.shuffled(o)
}

// definitions returns the definitions of a parameters document: plain
// types, an enum, a recursive tree, mutually recursive types, names that
// need ~0 and ~1 or percent-escapes in a pointer, and a list to index into.
func (s *schemaGen) definitions() obj {
	g := s.g
	inner := &schemaGen{g: g} // definitions refer to each other by fixed refs only
	return obj{
		{"Address", obj{{"type", "object"}, {"properties", obj{
			{"street", obj{{"type", "string"}, {"description", "Street and number"}}},
			{"zip", obj{{"type", []any{"string", "null"}}}},
		}}, {"required", []any{"street"}}}},
		{"Color", obj{{"type", "string"}, {"enum", []any{"red", "green"}}}},
		{"Tree", obj{{"type", "object"}, {"properties", obj{
			{"value", obj{{"type", "integer"}}},
			{"children", obj{{"type", "array"}, {"items", obj{{"$ref", "#/" + "DEFS" + "/Tree"}}}}},
		}}}},
		{"A", obj{{"anyOf", []any{obj{{"type", "string"}}, obj{{"$ref", "#/DEFS/B"}}}}}},
		{"B", obj{{"type", "object"}, {"properties", obj{{"a", obj{{"$ref", "#/DEFS/A"}}}}}}},
		{"with/slash", obj{{"type", "boolean"}}},
		{"tilde~name", obj{{"type", "number"}}},
		{"with space", obj{{"type", "integer"}}},
		{"per%cent", obj{{"type", "null"}}},
		{"a<b>", obj{{"type", "string"}, {"maxLength", 3}}},
		{"List", []any{obj{{"type", "string"}}, obj{{"type", "integer"}}, true}},
		{"Random", inner.schema(2)},
		// Never referenced, so never rendered: its markers are no error.
		{"Unused", obj{{"type", "object"}, {"properties", obj{{"x", obj{{"type", "string"}, {"description", "<|start|>"}, {"title", "<|end|>"}}}}}}},
	}
}

// ref returns a {"$ref": ...} schema: to a definition, the root, a
// property, through ~0 and ~1 escapes, percent-escapes or an array index, or one that does
// not resolve (rendered any).
func (s *schemaGen) ref() obj {
	g := s.g
	d := s.defsKey
	target := pick(g,
		"#/"+d+"/Address", "#/"+d+"/Color", "#/"+d+"/Tree", "#/"+d+"/A", "#/"+d+"/B",
		"#/"+d+"/with~1slash", "#/"+d+"/tilde~0name", "#/"+d+"/List/1", "#/"+d+"/List/01",
		"#/"+d+"/List/+0", "#/"+d+"/List/-0", "#/"+d+"/List/2", "#/"+d+"/List/3", "#/"+d+"/Random",
		"#", "#/properties", "#/"+d+"/Missing", "http://example.com/schema.json", "#/"+d+"/Address/properties/street",
		"#/"+d+"/List/x", "#/"+d+"/List/1.0", "#/"+d, "#/", "",
		// Percent-escapes of printable ASCII are decoded first, then ~1 and ~0;
		// any other % stays ("per%cent": %ce is not printable ASCII).
		"#/"+d+"/with%20space", "#/"+d+"/per%25cent", "#/"+d+"/per%cent", "#/"+d+"/a%3Cb%3e",
		"#/"+d+"/List%2F1", "#%2F"+d+"/Color", "#/"+d+"/with%7E1slash", "#/"+d+"/%C3%A9", "#%41",
	)
	if g.chance(0.05) {
		return obj{{"$ref", num("5")}}
	}
	return obj{{"$ref", target}}
}

// fixDefs rewrites the placeholder DEFS in the definitions' own refs.
func fixDefs(defs obj, key string) obj {
	out := make(obj, len(defs))
	for i, m := range defs {
		out[i] = member{m.key, replaceDefs(m.val, key)}
	}
	return out
}

func replaceDefs(v any, key string) any {
	switch v := v.(type) {
	case obj:
		out := make(obj, len(v))
		for i, m := range v {
			if s, ok := m.val.(string); ok && m.key == "$ref" {
				out[i] = member{m.key, replacePrefix(s, "#/DEFS/", "#/"+key+"/")}
				continue
			}
			out[i] = member{m.key, replaceDefs(m.val, key)}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = replaceDefs(x, key)
		}
		return out
	}
	return v
}

func replacePrefix(s, old, new string) string {
	if len(s) >= len(old) && s[:len(old)] == old {
		return new + s[len(old):]
	}
	return s
}

// bashTool returns a bash tool: the trained shape (replaced by Beam's own
// definition, page: Built-in tools) or one of the shapes that stay as
// written.
func (g *gen) bashTool() obj {
	command := obj{{"type", "string"}}
	variant := g.intn(8)
	if g.chance(0.5) {
		description := "Shell command"
		if variant >= 5 && g.chance(0.3) {
			// Replaced by the trained definition, so a marker here is no error.
			description = "replaced <|end|>"
		}
		command = command.set("description", description)
	}
	if g.chance(0.3) {
		command = command.set("title", "Command")
	}
	props := obj{{"command", command}}
	switch variant {
	case 0:
		command = command.set("enum", []any{"ls", "pwd"})
		props = obj{{"command", command}}
	case 1:
		props = props.set("timeout", obj{{"type", "integer"}})
	case 2:
		props = obj{{"command", obj{{"type", []any{"string"}}}}}
	case 3:
		props = obj{{"command", command.set("default", "ls")}}
	case 4:
		props = obj{{"cmd", command}}
	}
	params := obj{{"type", "object"}, {"properties", g.shuffled(props)}}
	if g.chance(0.7) {
		params = params.set("required", []any{"command"})
	}
	f := obj{{"name", "bash"}, {"description", "Run a shell command in the sandbox."}, {"parameters", params}}
	return obj{{"type", "function"}, {"function", f}}
}

// depthChain returns a property schema nested levels deep (counting the
// property itself), going down through properties, items, variants and
// refs; defs receives the definitions the refs need.
func (g *gen) depthChain(levels int, defsKey string, defs *obj) any {
	var leaf any = obj{{"type", "string"}}
	// Built from the bottom up; each wrapper adds one level.
	cur := leaf
	for l := levels - 1; l > 0; l-- {
		switch g.intn(5) {
		case 0:
			cur = obj{{"type", "object"}, {"properties", obj{{"p", cur}}}}
		case 1:
			cur = obj{{"type", "array"}, {"items", cur}}
		case 2:
			cur = obj{{"anyOf", []any{cur}}}
		case 3:
			cur = obj{{"oneOf", []any{obj{{"type", "null"}}, cur}}}
		default:
			name := fmt.Sprintf("D%d", l)
			*defs = defs.set(name, cur)
			cur = obj{{"$ref", "#/" + defsKey + "/" + name}}
		}
	}
	return cur
}
