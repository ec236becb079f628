package grammar

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// A schema with $id holds schema resources of their own, each with a base
// URI that the $refs inside it resolve against (JSON Schema 2020-12, 8.2):
// "#/$defs/inner" inside {"$id": "b.json", ...} names b.json's $defs, not
// the document root's, and "b.json" elsewhere names that subschema. A
// document without "$id" or anchors resolves its refs as local JSON
// pointers from the root, as before; one with them is indexed once: the
// resources by absolute URI, their $anchor and $dynamicAnchor names, and
// the base URI of each schema that holds a $ref or $dynamicRef. Refs to
// other documents resolve to nothing (reported as an unresolved $ref).

// rootBase is the base URI of a document whose root has no $id.
const rootBase = "https://schema.invalid/root.json"

// resourceIndex is the index of a document's schema resources.
type resourceIndex struct {
	ids  map[string]int   // absolute URI, without fragment: the resource's node
	base map[int]*url.URL // the base URI of each schema holding a $ref or $dynamicRef
	// anchors are the $anchor and $dynamicAnchor names, by resource URI
	// and name ("URI#name"); dynamic the schemas of each $dynamicAnchor
	// name, and rootDynamic those of the root's resource.
	anchors     map[string]int
	dynamic     map[string][]int
	rootDynamic map[string]int
	// resolved are the references resolved against a base URI so far,
	// by node.
	resolved map[int]resolution
}

// resolveRef returns the schema the $ref (node ref) of schema s names, -1
// when none.
func (c *compiler) resolveRef(s, ref int) int {
	node, _ := c.resolve(s, ref)
	return node
}

// resolve returns the schema the reference at node ref of schema s names
// (-1: none), and the URI of its resource with the fragment, when the
// fragment is a plain name (an anchor).
func (c *compiler) resolve(s, ref int) (node int, anchor string) {
	d := c.d
	if c.res == nil {
		c.res = &resourceIndex{}
		if bytes.Contains(d.Src, []byte(`"$id"`)) || bytes.Contains(d.Src, []byte(`nchor"`)) {
			c.res.build(d, c.root, c.refAlone, c.noDollarID)
		}
	}
	if c.res.ids == nil || d.Kind(ref) != pyjson.String {
		return c.localRef(ref), ""
	}
	base, ok := c.res.base[s]
	if !ok {
		return c.localRef(ref), ""
	}
	if r, ok := c.res.resolved[ref]; ok {
		return r.node, r.anchor
	}
	node, anchor = c.resolveURI(base, ref)
	if c.res.resolved == nil {
		c.res.resolved = map[int]resolution{}
	}
	c.res.resolved[ref] = resolution{node, anchor}
	return node, anchor
}

// localRef resolves the local pointer at node ref against the schema's
// root, once per node.
func (c *compiler) localRef(ref int) int {
	if target, ok := c.localRefs[ref]; ok {
		return target
	}
	target := c.ptr.Resolve(c.d, c.root, ref)
	if c.localRefs == nil {
		c.localRefs = map[int]int{}
	}
	c.localRefs[ref] = target
	return target
}

// resolution is where a reference resolved to.
type resolution struct {
	node   int
	anchor string
}

// resolveURI is resolve for a reference at node ref against base.
func (c *compiler) resolveURI(base *url.URL, ref int) (node int, anchor string) {
	d := c.d
	r, err := url.Parse(d.Str(ref))
	if err != nil {
		return -1, ""
	}
	abs := base.ResolveReference(r)
	frag := abs.Fragment
	abs.Fragment, abs.RawFragment = "", ""
	uri := abs.String()
	node, ok := c.res.ids[uri]
	if !ok {
		return -1, ""
	}
	// A pointer is read from the fragment as written, not as url.Parse
	// decoded it: schema.Tokens decodes the escapes of printable ASCII
	// only, as the chat template does for the prompt (decision 247).
	_, raw, _ := strings.Cut(d.Str(ref), "#")
	pointer := schema.UnescapeFragment(raw)
	if pointer == "" {
		return node, ""
	}
	if !strings.HasPrefix(pointer, "/") {
		if n, ok := c.res.anchors[uri+"#"+frag]; ok {
			return n, frag
		}
		return -1, ""
	}
	if !schema.Tokens("#"+raw, func(tok string) bool {
		node = c.ptr.Child(d, node, tok)
		return node >= 0
	}) {
		return -1, ""
	}
	return node, ""
}

// resolveDynamic returns the schema the $dynamicRef (node ref) of schema s
// names, -1 when the grammar can't tell. It resolves as $ref does; when
// that lands on a $dynamicAnchor of the fragment's name, the first schema
// of that name in the dynamic scope wins, which is the root's resource's
// when it has one (evaluation starts there), or the target itself when no
// other schema has the name; otherwise it depends on the path taken, and
// is -1.
func (c *compiler) resolveDynamic(s, ref int) int {
	node, name := c.resolve(s, ref)
	if node < 0 || name == "" {
		return node
	}
	if da := c.d.Lookup(node, "$dynamicAnchor"); da < 0 || c.d.Kind(da) != pyjson.String || c.d.Str(da) != name {
		return node // a plain $anchor: a static reference
	}
	if n, ok := c.res.rootDynamic[name]; ok {
		return n
	}
	if len(c.res.dynamic[name]) == 1 {
		return node
	}
	return -1
}

// build indexes the resources under root, walking the schemas (not the
// values of const, enum, default and examples).
//
// A legacy dialect (draft 3 to 7, refAlone) ignores a $ref's siblings, so
// a $id beside a $ref sets no base (generated draft-07 schemas write
// {"$id": "/properties/name", "$ref": "#/definitions/name"} everywhere); and
// draft 3 and 4 have no $id at all (their identifier is id, which is not
// read): with noDollarID, $id is ignored (gap decision 232).
func (x *resourceIndex) build(d *pyjson.Doc, root int, refAlone, noDollarID bool) {
	x.ids = map[string]int{}
	x.base = map[int]*url.URL{}
	x.anchors = map[string]int{}
	x.dynamic = map[string][]int{}
	x.rootDynamic = map[string]int{}
	start, _ := url.Parse(rootBase)
	var rootURI string
	// base is the base URI, and uri its text.
	var walk func(n int, base *url.URL, uri string)
	walk = func(n int, base *url.URL, uri string) {
		switch d.Kind(n) {
		case pyjson.Array:
			d.Elements(n, func(e, _ int) bool { walk(e, base, uri); return true })
			return
		case pyjson.Object:
		default:
			return
		}
		if id := d.Lookup(n, "$id"); id >= 0 && d.Kind(id) == pyjson.String && !noDollarID && !(refAlone && d.Lookup(n, "$ref") >= 0) {
			if u, err := url.Parse(d.Str(id)); err == nil {
				base = base.ResolveReference(u)
				base.Fragment, base.RawFragment = "", ""
				uri = base.String()
				if _, dup := x.ids[uri]; !dup {
					x.ids[uri] = n
				}
			}
		}
		if n == root {
			x.ids[rootBase] = n
			rootURI = uri
		}
		if d.Lookup(n, "$ref") >= 0 || d.Lookup(n, "$dynamicRef") >= 0 {
			x.base[n] = base
		}
		for _, kw := range [...]string{"$anchor", "$dynamicAnchor"} {
			a := d.Lookup(n, kw)
			if a < 0 || d.Kind(a) != pyjson.String {
				continue
			}
			name := d.Str(a)
			key := uri + "#" + name
			if _, dup := x.anchors[key]; !dup {
				x.anchors[key] = n
			}
			if kw == "$dynamicAnchor" {
				x.dynamic[name] = append(x.dynamic[name], n)
				if _, dup := x.rootDynamic[name]; uri == rootURI && !dup {
					x.rootDynamic[name] = n
				}
			}
		}
		d.Members(n, func(k, v int) bool {
			switch d.Str(k) {
			case "const", "enum", "default", "examples":
			default:
				walk(v, base, uri)
			}
			return true
		})
	}
	walk(root, start, rootBase)
}
