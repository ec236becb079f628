package harmony

import (
	"bytes"
	"strconv"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// MarkerUse is a marker found in a string of a request that the prompt
// would carry as is. The model would read it as a format token (a message
// boundary, say) rather than as text.
type MarkerUse struct {
	// Path names the value in the request's JSON shape, as in RenderError:
	// "messages[1].content",
	// "messages[1].tool_calls[0].function.arguments.city",
	// "tools[0].function.parameters.properties.cabin.enum[2]". For a
	// marker in an object key (Key set), Path names the object.
	Path string
	// Key is the object key holding the marker: a schema's property name
	// or a key inside an argument value; "" when the marker is in the
	// value at Path.
	Key string
	// Marker is the first marker found, such as "<|end|>".
	Marker string
}

// String returns "path: contains the marker M" or
// `path: key "K" contains the marker M`.
func (u MarkerUse) String() string { return u.Path + ": " + u.Text() }

// Text is String without the path.
func (u MarkerUse) Text() string {
	if u.Key != "" {
		return "key " + quote(u.Key) + " contains the marker " + u.Marker
	}
	return "contains the marker " + u.Marker
}

// MarkerUses returns every string of a request that Render writes into
// the prompt as is and that holds a marker, messages first and then tools,
// each in the order the prompt writes them: message
// content (every role; also that of a late system or developer message,
// which Render drops, as DECISIONS.md's serving rule refuses it), tool-call argument values at any depth and the
// keys inside them, and the schema fields a tool's declaration writes from
// its parameters: property names, enum and const members, defaults and
// examples, at any depth and through $ref. Render itself refuses a marker
// in the other strings it writes (reasoning, model_identity, tool names
// and tool messages' names, descriptions, titles, argument names), so
// those are not listed here. It returns nil, without allocating, when
// there are none.
//
// Without a tokenizer that encodes such text as ordinary text, a server
// must refuse these (DECISIONS.md, Names and markers); Lint warns about
// each.
func MarkerUses(messages []Message, opts *Options) []MarkerUse {
	var uses []MarkerUse
	for i := range messages {
		m := &messages[i]
		if mk := FindMarker(m.Content); mk != "" {
			uses = append(uses, MarkerUse{Path: messagePath(i) + ".content", Marker: mk})
		}
		for j := range m.ToolCalls {
			uses = argumentMarkers(uses, &m.ToolCalls[j].Function, i, j)
		}
	}
	if opts != nil {
		for i := range opts.Tools {
			uses = schemaMarkers(uses, &opts.Tools[i].Function, i)
		}
	}
	return uses
}

// MarkerUses returns the request's marker uses; see MarkerUses.
func (r *Request) MarkerUses() []MarkerUse { return MarkerUses(r.Messages, &r.Options) }

// mayHoldMarker reports whether some string of the JSON text raw may
// decode to text holding a marker: only when raw holds "<|" or a \u
// escape (which can spell < or |).
func mayHoldMarker(raw []byte) bool {
	return bytes.Contains(raw, []byte(markerOpen)) || bytes.Contains(raw, []byte(`\u`))
}

// withTape calls fn with the tape of raw, parsed into a pooled document.
// Invalid JSON is left for Render to report.
func withTape(raw []byte, fn func(d *pyjson.Doc, root int)) {
	d := docPool.Get().(*pyjson.Doc)
	defer releaseDoc(d)
	if d.Parse(raw) == nil {
		fn(d, 0)
	}
}

// argumentMarkers adds the markers in a call's argument values and in the
// keys inside them. The argument names themselves are Render's to check.
func argumentMarkers(uses []MarkerUse, f *FunctionCall, i, j int) []MarkerUse {
	if !mayHoldMarker(f.Arguments) {
		return uses
	}
	withTape(f.Arguments, func(d *pyjson.Doc, root int) {
		s := markerScan{d: d, root: root, uses: uses, base: argumentsPath{i, j}.String()}
		d.Members(root, func(_, v int) bool {
			s.enter(v, -1)
			s.subtree(v)
			s.leave()
			return true
		})
		uses = s.uses
	})
	return uses
}

// schemaMarkers adds the markers in the fields of a tool's parameters that
// its declaration writes.
func schemaMarkers(uses []MarkerUse, f *Function, i int) []MarkerUse {
	if !mayHoldMarker(f.Parameters) {
		return uses
	}
	return scanDeclaration(f, i, markerScan{uses: uses}).uses
}

// scanDeclaration walks with s what the declaration of tool i (function
// f) writes of its parameters: their properties, unless the tool is the
// trained bash, declared with Beam's own definition. It returns s after
// the walk.
func scanDeclaration(f *Function, i int, s markerScan) markerScan {
	withTape(f.Parameters, func(d *pyjson.Doc, root int) {
		if f.Name == "bash" && isTrainedBashShape(tape{d, root}) {
			return
		}
		s.d, s.root, s.base = d, root, toolPath(i)+".function.parameters"
		s.keywords(root)
		if props := d.Lookup(root, "properties"); props >= 0 {
			s.enter(props, -1)
			s.properties(props)
			s.leave()
		}
	})
	return s
}

// markerScan walks the strings of one JSON document that reach the
// prompt and collects those holding a marker. It keeps the path from the
// root to the value being walked, so that naming a use costs the depth of
// the value, and the walk stays linear however many uses it finds.
type markerScan struct {
	d    *pyjson.Doc
	root int
	base string // the path of root
	uses []MarkerUse
	path []step // from root to the value being walked
	// seen holds the $ref targets walked already: each is walked once,
	// however many times and at whatever depth the declaration writes it.
	seen    []int
	seenSet map[int]bool
	// refs, when set, collects the $refs the declaration writes that
	// name nothing (UnresolvedRefs).
	refs *[]RefUse
	// misspelt, when set, collects a warning for each key of a schema
	// the declaration writes that looks like a misspelt keyword or
	// annotation it writes (schema.MisspeltDeclared).
	misspelt *[]Warning
	ptr      schema.Pointers
	buf      [128]byte
}

// step is one step of a path: into node, a member's value (pos -1, its
// key is the node before it) or the element at pos of an array.
type step struct{ node, pos int }

func (s *markerScan) enter(node, pos int) { s.path = append(s.path, step{node, pos}) }
func (s *markerScan) leave()              { s.path = s.path[:len(s.path)-1] }

// subtree checks every string and key under node v, the last step of the
// path.
func (s *markerScan) subtree(v int) {
	d := s.d
	switch d.Kind(v) {
	case pyjson.String:
		s.check(v, false)
	case pyjson.Object:
		d.Members(v, func(k, val int) bool {
			s.check(k, true)
			s.enter(val, -1)
			s.subtree(val)
			s.leave()
			return true
		})
	case pyjson.Array:
		d.Elements(v, func(e, pos int) bool {
			s.enter(e, pos)
			s.subtree(e)
			s.leave()
			return true
		})
	}
}

// check adds a use when string node n, the value at the end of the path
// or a key of the object there, holds a marker.
func (s *markerScan) check(n int, key bool) {
	d := s.d
	raw := d.Raw(n)
	text := raw[1 : len(raw)-1]
	if d.Nodes[n].Escaped {
		text = d.AppendString(s.buf[:0], n)
	}
	mk := findMarkerBytes(text)
	if mk == "" {
		return
	}
	u := MarkerUse{Path: string(s.appendPath(nil)), Marker: mk}
	if key {
		u.Key = d.Str(n)
	}
	s.uses = append(s.uses, u)
}

// appendPath appends the JSON path of the value at the end of the walk.
func (s *markerScan) appendPath(path []byte) []byte {
	path = append(path, s.base...)
	for _, st := range s.path {
		if st.pos < 0 {
			path = append(path, '.')
			path = s.d.AppendString(path, st.node-1)
		} else {
			path = append(path, '[')
			path = strconv.AppendInt(path, int64(st.pos), 10)
			path = append(path, ']')
		}
	}
	return path
}

// properties checks an object's property names and properties, in the
// order tsWriter.object writes them: examples, type, default.
func (s *markerScan) properties(props int) {
	d := s.d
	if d.Kind(props) != pyjson.Object {
		return
	}
	d.Members(props, func(k, p int) bool {
		s.check(k, true)
		s.enter(p, -1)
		s.keywords(p)
		ks := schema.KeysOf(d, p)
		if ks.Examples >= 0 && d.Kind(ks.Examples) == pyjson.Array {
			s.member(ks.Examples, s.subtree)
		}
		s.typeOf(&ks)
		if ks.Default >= 0 {
			s.member(ks.Default, s.subtree)
		}
		s.leave()
		return true
	})
}

// member walks v, a member's value of the node at the end of the path,
// with walk.
func (s *markerScan) member(v int, walk func(int)) {
	s.enter(v, -1)
	walk(v)
	s.leave()
}

// typeOf follows the renderer's rule order (schema.Keys.Rule), as
// tsWriter.typeOf does: the rule that decides the schema whose keywords ks
// are, at the end of the path, decides what of it is written.
func (s *markerScan) typeOf(ks *schema.Keys) {
	d := s.d
	switch ks.Rule(d) {
	case schema.RuleRef:
		s.ref(ks.Ref)
	case schema.RuleEnum:
		if d.Kind(ks.Enum) == pyjson.Array {
			s.member(ks.Enum, s.subtree)
		}
	case schema.RuleConst:
		s.member(ks.Const, s.subtree)
	case schema.RuleAnyOf:
		s.member(ks.AnyOf, s.variants)
	case schema.RuleOneOf:
		s.member(ks.OneOf, s.variants)
	case schema.RuleType:
		items, object := false, false
		schema.Types(d, ks.Type, func(t schema.Type) bool {
			items = items || t == schema.TypeArray
			object = object || t == schema.TypeObject
			return true
		})
		if items && ks.Items >= 0 && d.Kind(ks.Items) == pyjson.Object {
			s.member(ks.Items, s.typ)
		}
		if object && ks.Properties >= 0 {
			s.member(ks.Properties, s.properties)
		}
	case schema.RuleProperties:
		s.member(ks.Properties, s.properties)
	}
}

func (s *markerScan) typ(v int) {
	s.keywords(v)
	ks := schema.KeysOf(s.d, v)
	s.typeOf(&ks)
}

// keywords adds to s.misspelt, when set, the keys of schema v, at the end
// of the path, that look like misspelt keywords.
func (s *markerScan) keywords(v int) {
	if s.misspelt == nil || s.d.Kind(v) != pyjson.Object {
		return
	}
	d := s.d
	d.Members(v, func(k, val int) bool {
		name := d.KeyText(k, s.buf[:0])
		if t := schema.MisspeltDeclared(name, d.Kind(val)); t != "" {
			at := keyPath(string(s.appendPath(nil)), string(name))
			*s.misspelt = append(*s.misspelt, Warning{at, "looks like the keyword " + t + " misspelt; JSON Schema ignores a key it does not know, so the prompt declares the value without it"})
		}
		return true
	})
}

// variants walks the variants of the anyOf or oneOf array v.
func (s *markerScan) variants(v int) {
	s.d.Elements(v, func(e, pos int) bool {
		s.enter(e, pos)
		s.typ(e)
		s.leave()
		return true
	})
}

// ref walks a $ref's target the first time it is met, with the path the
// pointer names.
func (s *markerScan) ref(ref int) {
	d := s.d
	target := s.ptr.Resolve(d, s.root, ref)
	if target < 0 {
		if s.refs != nil {
			*s.refs = append(*s.refs, RefUse{Path: string(s.appendPath(nil)) + ".$ref", Ref: string(d.Raw(ref))})
		}
		return
	}
	if s.walked(target) {
		return
	}
	saved := s.path
	s.path = s.pointerPath(d.Str(ref), saved[len(saved):])
	s.typ(target)
	s.path = saved
}

// pointerPath appends to path the steps of the resolvable local pointer
// ptr from the root.
func (s *markerScan) pointerPath(ptr string, path []step) []step {
	node := s.root
	schema.Tokens(ptr, func(tok string) bool {
		pos := -1
		if s.d.Kind(node) == pyjson.Array {
			pos, _ = strconv.Atoi(tok)
		}
		node = s.ptr.Child(s.d, node, tok)
		path = append(path, step{node, pos})
		return true
	})
	return path
}

// walked reports whether target was walked already, and marks it walked.
func (s *markerScan) walked(target int) bool {
	if s.seenSet != nil {
		if s.seenSet[target] {
			return true
		}
		s.seenSet[target] = true
		return false
	}
	for _, t := range s.seen {
		if t == target {
			return true
		}
	}
	s.seen = append(s.seen, target)
	if len(s.seen) > 16 {
		s.seenSet = make(map[int]bool, 2*len(s.seen))
		for _, t := range s.seen {
			s.seenSet[t] = true
		}
	}
	return false
}

// RefUse is a $ref of a tool's parameters that the declaration writes and
// that names nothing: a local pointer ("#/$defs/X") to nothing in the
// schema, or a reference that is not a local pointer (another document,
// an $anchor, not a string). The prompt declares such a value any.
type RefUse struct {
	Path string // the JSON path of the $ref: tools[0].function.parameters.properties.x.$ref
	Ref  string // the $ref's value as JSON: "#/$defs/Missing"
}

// UnresolvedRefs returns the $refs of the tools' parameters that the
// declaration writes and that name nothing, in the order it writes them;
// Lint warns about each.
func UnresolvedRefs(opts *Options) []RefUse {
	if opts == nil {
		return nil
	}
	var refs []RefUse
	for i := range opts.Tools {
		if f := &opts.Tools[i].Function; bytes.Contains(f.Parameters, []byte(`"$ref"`)) {
			scanDeclaration(f, i, markerScan{refs: &refs})
		}
	}
	return refs
}
