package harmony

import (
	"bytes"
	"hash/maphash"
	"strconv"
	"strings"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// maxSchemaDepth is how deep below a tool's parameters a schema may nest;
// each property, items, variant and $ref is one level (DECISIONS.md).
const maxSchemaDepth = 64

// trainedBash is the declaration the template writes for a bash tool whose
// only parameter is a command string (page: Built-in tools).
const trainedBash = `// Execute a bash command. The output contains the command's stdout and stderr.
// Commands time out after 10 minutes. You can set a shorter timeout within the bash command.
type bash = (_: {
// The command to execute
command: string,
}) => any;`

// Names that builtin_tools may hold (page: Built-in tools).
var builtinNames = [...]string{"search", "browse"}

// classifyTools validates the tools and builtin_tools and decides which
// tools are declared in the system message.
func (r *renderer) classifyTools() error {
	tools := r.opts.Tools
	named := newBuiltinSet(r.opts.BuiltinTools) // builtin_tools names search, browse
	if len(r.opts.BuiltinTools) > 0 {
		var present builtinSet // tools has search, browse
		for i := range tools {
			present = present.with(tools[i].Function.Name)
		}
		for j, name := range r.opts.BuiltinTools {
			if !isBuiltinName(name) {
				return errAt("builtin_tools["+strconv.Itoa(j)+"]", quote(name)+
					" is not a built-in tool; only search and browse are (a bash tool with one command parameter is built in automatically)")
			}
			if !present.has(name) {
				return errAt("builtin_tools["+strconv.Itoa(j)+"]", quote(name)+" is not in tools; builtin_tools names tools from tools")
			}
		}
	}
	if cap(r.s.builtin) < len(tools) {
		r.s.builtin = make([]bool, len(tools))
	}
	r.builtin = r.s.builtin[:len(tools)]
	clear(r.builtin)
	for len(r.s.schemas) < len(tools) {
		r.s.schemas = append(r.s.schemas, pyjson.Doc{})
	}
	for len(r.s.views) < len(tools) {
		r.s.views = append(r.s.views, tape{})
	}
	for i := range tools {
		t := &tools[i]
		if t.Type != "" && t.Type != "function" {
			return errAt(toolPath(i)+".type", "unsupported tool type "+quote(t.Type)+"; only function tools can be declared")
		}
		if err := checkToolName(t.Function.Name); err != nil {
			return errAt(toolPath(i)+".function.name", err.Error())
		}
		if mk := FindMarker(t.Function.Description); mk != "" {
			return errAt(toolPath(i)+".function.description", "must not contain the marker "+mk)
		}
		if err := r.parseParameters(i); err != nil {
			return err
		}
		r.builtin[i] = named.has(t.Function.Name) ||
			(t.Function.Name == "bash" && isTrainedBashShape(r.s.views[i]))
	}
	return nil
}

func isBuiltinName(name string) bool { return name == builtinNames[0] || name == builtinNames[1] }

// builtinSet is a set of the names builtin_tools may hold (search, browse),
// so that builtin_tools and tools are matched in linear time however long
// both are.
type builtinSet uint8

// builtinSet returns the set of the built-in names among names.
func newBuiltinSet(names []string) builtinSet {
	var s builtinSet
	for _, n := range names {
		s = s.with(n)
	}
	return s
}

// with adds name to the set when it is a built-in name.
func (s builtinSet) with(name string) builtinSet {
	for i, b := range builtinNames {
		if name == b {
			s |= 1 << i
		}
	}
	return s
}

// has reports whether name is in the set.
func (s builtinSet) has(name string) bool { return s&builtinSet(0).with(name) != 0 }

// parseParameters makes r.s.views[i] the tape of tools[i]'s parameters,
// parsed into scratch space. Absent parameters parse as null.
func (r *renderer) parseParameters(i int) error {
	f := &r.opts.Tools[i].Function
	raw := f.Parameters
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = nullJSON
	}
	d := &r.s.schemas[i]
	if err := d.Parse(raw); err != nil {
		return errAt(toolPath(i)+".function.parameters", err.Error())
	}
	r.s.views[i] = tape{d, 0}
	v := r.s.views[i]
	if k := v.doc.Kind(v.root); k != pyjson.Object && k != pyjson.Null {
		return errAt(toolPath(i)+".function.parameters", "must be a JSON Schema object, got "+k.String())
	}
	return nil
}

var nullJSON = []byte("null")

// isTrainedBashShape reports whether parameters (at v) have exactly one
// property, command, whose schema is {"type": "string"} plus at most a
// description and a title: the shape the template replaces with Beam's own
// bash definition.
func isTrainedBashShape(v tape) bool {
	d := v.doc
	props := d.Lookup(v.root, "properties")
	if props < 0 || d.Kind(props) != pyjson.Object || d.Nodes[props].Len != 1 {
		return false
	}
	if !d.StringEqual(props+1, "command") {
		return false
	}
	cmd := props + 2
	if d.Kind(cmd) != pyjson.Object {
		return false
	}
	ok, typed := true, false
	d.Members(cmd, func(k, v int) bool {
		switch {
		case d.StringEqual(k, "type"):
			typed = d.StringEqual(v, "string")
			ok = typed
		case d.StringEqual(k, "description"), d.StringEqual(k, "title"):
		default:
			ok = false
		}
		return ok
	})
	return ok && typed
}

// toolSection writes "# Tools" and the declarations of the tools that go in
// the system message (builtin) or the developer message (!builtin),
// preceded by sep. It writes nothing when there are none.
func (r *renderer) toolSection(builtin bool, sep string) error {
	first := true
	buf := r.buf
	for i := range r.opts.Tools {
		if r.builtin[i] != builtin {
			continue
		}
		if first {
			buf = append(buf, sep...)
			buf = append(buf, "# Tools\n\n"...)
			first = false
		} else {
			buf = append(buf, "\n\n"...)
		}
		var err error
		if buf, err = r.declareTool(buf, i); err != nil {
			r.buf = buf
			return err
		}
	}
	r.buf = buf
	return nil
}

// declareTool appends tools[i] as a TypeScript declaration to buf.
//
// The writer passes the output buffer by value and returns it, keeping it
// in locals: a store of the buffer through a pointer would cost a GC write
// barrier at each append while the collector marks.
func (r *renderer) declareTool(buf []byte, i int) ([]byte, error) {
	t := &r.opts.Tools[i]
	if t.Function.Name == "bash" && isTrainedBashShape(r.s.views[i]) {
		return append(buf, trainedBash...), nil
	}
	s := r.s
	s.ts.reset()
	w := tsWriter{d: s.views[i].doc, root: s.views[i].root, tool: i,
		members: s.members[:0], refs: s.refs, path: s.path[:0], scratch: s.comment,
		c: &s.ts, start: len(buf), spentBefore: r.declSpent, work: r.refWork}
	w.refs.Reset()
	buf, err := w.declaration(buf, t.Function.Name, t.Function.Description)
	if err == nil {
		err = w.checkSize(buf)
	}
	r.declSpent, r.refWork = w.spent(buf), w.work
	s.members, s.refs, s.path, s.comment = w.members, w.refs, w.path, w.scratch
	return buf, err
}

// DeclareTool returns the TypeScript declaration the template writes for
// tool, as it appears under "# Tools" (the trained definition for a bash
// tool with one command parameter).
func DeclareTool(tool Tool) (string, error) {
	r := renderer{opts: &Options{Tools: []Tool{tool}}, s: getScratch()}
	defer r.release()
	if err := r.classifyTools(); err != nil {
		return "", err
	}
	buf, err := r.declareTool(r.buf, 0)
	r.buf = buf
	if err != nil {
		return "", err
	}
	return string(r.buf), nil
}

// tsWriter turns one tool's JSON Schema into TypeScript (DECISIONS.md,
// TypeScript declarations). Its methods append to the buffer they are
// passed and return it; it keeps, for the union being written, the spans
// of its members in that buffer so that repeated members are left out.
type tsWriter struct {
	d       *pyjson.Doc
	root    int         // node of the parameters schema, the root for $ref
	tool    int         // index of the tool in tools, for error paths
	members []member    // members of the open unions, innermost last
	base    int         // index in members where the innermost union starts
	union   int         // the innermost union's number
	unions  int         // unions opened so far
	refs    schema.Refs // $ref targets on the current path
	path    []pathStep
	scratch []byte // decoded comment text
	c       *tsCache

	// What declaring costs, against maxDeclarationBytes and maxRefWork:
	// start is where this tool's declaration starts in buf, spentBefore
	// what the request's earlier tools spent, dropped the bytes written
	// and taken back (repeated union members), work the schema values
	// the request's $ref expansions walked.
	start, spentBefore, dropped, work int

	// For reusing expansions (see ref): maxDepth is the longest path seen
	// since the innermost expansion began.
	maxDepth int
	rec      []recording // expansions recording their members
}

// member is one member of an open union: its text in buf and, in a union
// of unionIndexAt members or more, its hash and the previous member of the
// union with the same hash (-1 when none).
type member struct {
	Span
	hash uint64
	prev int32
}

// recording is an expansion of a $ref that records the members it adds
// to the union numbered union (see ref).
type recording struct{ union int }

// reuseExpansions is false only in tests that compare reuse with walking
// every expansion.
var reuseExpansions = true

// comparisons, when set by a test, counts the union members compared with
// a new member.
var comparisons *int

// maxDeclarationBytes bounds the TypeScript that declaring the tools of
// one request takes: the declarations, plus repeated union members that
// are written and then left out, plus the copies kept of $ref expansions
// for reuse. Every $ref is written out in full where it is used, so a
// small schema whose definitions refer to each other twice per level
// would otherwise declare gigabytes (docs/gap-decisions.md). 4 MiB, about
// a million tokens, is beyond any model's context, and writing it takes
// tens of milliseconds (docs/benchmark-history.md).
const maxDeclarationBytes = 4 << 20

// maxRefWork bounds how many schema values the $ref expansions of one
// request walk: each expansion of a target counts every value under the
// target. An expansion that does not depend on the path it is reached by
// is walked once per indent and then reused, which costs no work.
const maxRefWork = 1 << 18

// tsCache is the TypeScript writer's memory that outlives one union: the
// index of large unions, $ref resolutions and reusable expansions. It
// lives in the pooled scratch space and is reset for each tool.
type tsCache struct {
	union    map[unionKey]int32 // large unions' members by hash: the latest member
	resolved map[int32]int32    // $ref string node: its target, or -1
	ptr      schema.Pointers
	expanded map[expansionKey]int32 // reusable expansions: index in entries
	entries  []expansion
	arena    []byte // recorded member texts
	texts    []recorded
}

// recorded is a member an expansion recorded: its text in arena and the
// union it was added to. An expansion's texts may be interleaved with those
// of expansions inside it that added to other unions (an object's
// properties).
type recorded struct {
	Span
	union int32
}

type unionKey struct {
	base int32
	hash uint64
}

type expansionKey struct{ target, indent int32 }

// expansion is an expansion of a $ref target kept for reuse: the members
// it added (those of texts[first:last] recorded in union) and how many
// levels its deepest path went below the $ref.
type expansion struct{ first, last, union, depth int32 }

// reset forgets the previous tool's nodes, keeping the memory.
func (c *tsCache) reset() {
	clear(c.union)
	clear(c.resolved)
	c.ptr.Reset()
	clear(c.expanded)
	c.entries, c.arena, c.texts = c.entries[:0], c.arena[:0], c.texts[:0]
}

// spent returns what declaring the request's tools has cost so far,
// counted against maxDeclarationBytes, with buf the output so far.
func (w *tsWriter) spent(buf []byte) int {
	return w.spentBefore + len(buf) - w.start + w.dropped + len(w.c.arena)
}

// checkSize returns an error once declaring has cost more than
// maxDeclarationBytes.
func (w *tsWriter) checkSize(buf []byte) error {
	if w.spent(buf) <= maxDeclarationBytes {
		return nil
	}
	return w.sizeError()
}

// sizeError is checkSize's error, apart for typeOf, which tests spent
// itself on the hot path.
func (w *tsWriter) sizeError() error {
	return errAt(toolPath(w.tool)+".function.parameters", "declaring the tools takes more than "+
		strconv.Itoa(maxDeclarationBytes>>20)+" MiB of TypeScript (each $ref is written out in full wherever it is used); "+
		"simplify the schema or share fewer definitions")
}

// pathStep is one step from the parameters down to the schema being
// written, kept to name it in an error.
type pathStep struct {
	kind stepKind
	node int // key node (property) or variant index
}

type stepKind uint8

const (
	stepProperty stepKind = iota
	stepItems
	stepAnyOf
	stepOneOf
	stepRef
)

// errAt returns an error at the current schema path plus field.
func (w *tsWriter) errAt(field, msg string) error {
	var b strings.Builder
	b.WriteString(toolPath(w.tool) + ".function.parameters")
	for _, s := range w.path {
		switch s.kind {
		case stepProperty:
			b.WriteString(".properties.")
			b.WriteString(w.d.Str(s.node))
		case stepItems:
			b.WriteString(".items")
		case stepAnyOf:
			b.WriteString(".anyOf[" + strconv.Itoa(s.node) + "]")
		case stepOneOf:
			b.WriteString(".oneOf[" + strconv.Itoa(s.node) + "]")
		case stepRef:
			b.WriteString(".$ref")
		}
	}
	if field != "" {
		b.WriteString("." + field)
	}
	return errAt(b.String(), msg)
}

func (w *tsWriter) push(kind stepKind, node int) error {
	w.path = append(w.path, pathStep{kind, node})
	w.maxDepth = max(w.maxDepth, len(w.path))
	if len(w.path) > maxSchemaDepth {
		return w.errAt("", "schema nested deeper than "+strconv.Itoa(maxSchemaDepth)+" levels")
	}
	return nil
}

func (w *tsWriter) pop() { w.path = w.path[:len(w.path)-1] }

// declaration writes the tool's comment lines and its type.
func (w *tsWriter) declaration(buf []byte, name, description string) ([]byte, error) {
	buf = appendCommentLines(buf, "", description)
	buf = append(buf, "type "...)
	buf = append(buf, name...)
	d := w.d
	// properties and required in one pass (the last of a repeated key, as
	// Lookup).
	props, required := -1, -1
	if d.Kind(w.root) == pyjson.Object {
		var tmp [16]byte
		for k, end := d.Children(w.root); k < end; {
			v := k + 1
			switch string(d.KeyText(k, tmp[:0])) {
			case "properties":
				props = v
			case "required":
				required = v
			}
			k = d.Next(v)
		}
	}
	if props < 0 || d.Kind(props) != pyjson.Object || d.Nodes[props].Len == 0 {
		return append(buf, " = () => any;"...), nil
	}
	buf = append(buf, " = (_: "...)
	buf, err := w.object(buf, required, props, "")
	if err != nil {
		return buf, err
	}
	return append(buf, ") => any;"...), nil
}

func appendCommentLines[T string | []byte](dst []byte, indent string, text T) []byte {
	for start := 0; start < len(text); {
		end := len(text)
		if k := indexNewline(text[start:]); k >= 0 {
			end = start + k
		}
		dst = append(dst, indent...)
		dst = append(dst, "//"...)
		if end > start {
			dst = append(dst, ' ')
			dst = append(dst, text[start:end]...)
		}
		dst = append(dst, '\n')
		if end == len(text) {
			break
		}
		start = end + 1
		if start == len(text) {
			// A trailing newline leaves one empty last line.
			dst = append(dst, indent...)
			dst = append(dst, "//\n"...)
		}
	}
	return dst
}

// indexNewline is bytes.IndexByte or strings.IndexByte for text.
func indexNewline[T string | []byte](text T) int {
	switch t := any(text).(type) {
	case string:
		return strings.IndexByte(t, '\n')
	case []byte:
		return bytes.IndexByte(t, '\n')
	}
	return -1
}

// commentNode writes the string at node v as comment lines, each line
// "indent// line" (an empty line "indent//"), checking it for markers.
// Non-string and empty values write nothing.
func (w *tsWriter) commentNode(buf []byte, indent string, v int, field string) ([]byte, bool, error) {
	if v < 0 {
		return buf, false, nil
	}
	n := &w.d.Nodes[v]
	if n.Kind != pyjson.String || n.End-n.Start == 2 {
		return buf, false, nil
	}
	raw := w.d.Src[n.Start+1 : n.End-1]
	if n.Escaped {
		// Decode into the scratch space after the output, then write.
		start := len(buf)
		buf = w.d.AppendString(buf, v)
		w.scratch = append(w.scratch[:0], buf[start:]...)
		buf = buf[:start]
		raw = w.scratch
	}
	if mk := findMarkerBytes(raw); mk != "" {
		return buf, false, w.errAt(field, "must not contain the marker "+mk)
	}
	return appendCommentLines(buf, indent, raw), true, nil
}

// object writes the object schema whose properties are at node props, an
// object, and whose required list is at node required, with its properties
// at indent.
func (w *tsWriter) object(buf []byte, required, props int, indent string) ([]byte, error) {
	d := w.d
	buf = append(buf, "{\n"...)
	var req map[string]bool // a long required list, as a set
	if required >= 0 && d.Kind(required) == pyjson.Array && d.Nodes[required].Len > 16 && d.Nodes[props].Len > 16 {
		req = make(map[string]bool, d.Nodes[required].Len)
		for e, end := d.Children(required); e < end; e = d.Next(e) {
			if d.Kind(e) == pyjson.String {
				req[d.Str(e)] = true
			}
		}
	}
	var err error
	hint := -1 // where the search of required starts: after the last found
	for k, end := d.Children(props); k < end; {
		p := k + 1
		if err = w.push(stepProperty, k); err != nil {
			return buf, err
		}
		var isReq bool
		if req != nil {
			isReq = req[d.Str(k)]
		} else {
			isReq, hint = isRequired(d, required, k, hint)
		}
		buf, err = w.property(buf, k, p, indent, isReq)
		w.pop()
		if err != nil {
			return buf, err
		}
		k = d.Next(p)
	}
	buf = append(buf, indent...)
	return append(buf, '}'), nil
}

// isRequired reports whether the required list at node required (-1 when
// absent) names the property whose key node is key. The search starts at
// element node hint (-1: the first) and wraps around; it returns the hint
// for the next property, the element after the one found, so that a list
// in the order of the properties finds each name first.
func isRequired(d *pyjson.Doc, required, key, hint int) (bool, int) {
	if required < 0 || d.Kind(required) != pyjson.Array {
		return false, hint
	}
	first, end := d.Children(required)
	if hint < first || hint >= end {
		hint = first
	}
	kn := &d.Nodes[key]
	keyRaw := d.Src[kn.Start:kn.End]
	for e, stop := hint, end; ; {
		if e == stop {
			if stop == hint {
				return false, hint
			}
			e, stop = first, hint
			continue
		}
		en := &d.Nodes[e]
		if en.Kind == pyjson.String && (bytes.Equal(d.Src[en.Start:en.End], keyRaw) ||
			(en.Escaped || kn.Escaped) && d.Str(e) == d.Str(key)) {
			return true, int(en.Next)
		}
		e = int(en.Next)
	}
}

// property writes one property: its title, description and examples as
// comments, then "name?: type," and its default.
func (w *tsWriter) property(buf []byte, k, p int, indent string, required bool) ([]byte, error) {
	d := w.d
	ks := schema.KeysOf(d, p)
	buf, ok, err := w.commentNode(buf, indent, ks.Title, "title")
	if err != nil {
		return buf, err
	}
	if ok {
		buf = append(buf, indent...)
		buf = append(buf, "//\n"...)
	}
	if buf, _, err = w.commentNode(buf, indent, ks.Description, "description"); err != nil {
		return buf, err
	}
	buf = w.examples(buf, ks.Examples, indent)
	buf = append(buf, indent...)
	buf = w.propertyName(buf, k)
	if !required {
		buf = append(buf, '?')
	}
	buf = append(buf, ": "...)
	inner := deeper(indent)
	saved := w.openUnion()
	if buf, err = w.typeOf(buf, &ks, inner); err != nil {
		return buf, err
	}
	if ks.Nullable >= 0 && d.Kind(ks.Nullable) == pyjson.True && !w.unionHas(buf, nullText) {
		buf = append(buf, " | null"...)
	}
	w.closeUnion(saved)
	buf = append(buf, ',')
	if def := ks.Default; def >= 0 {
		buf = append(buf, " // default: "...)
		if d.Kind(def) == pyjson.String && ks.Enum >= 0 {
			buf = d.AppendString(buf, def)
		} else {
			buf = d.AppendPython(buf, def)
		}
	}
	return append(buf, '\n'), nil
}

var nullText = []byte("null")

// indents holds the indents of the first levels of nesting, so that going
// one level deeper is a slice of it rather than a concatenation.
const indents = "                                                                " +
	"                                                                "

// deeper returns indent and four spaces more.
func deeper(indent string) string {
	if n := len(indent) + 4; n <= len(indents) && indent == indents[:len(indent)] {
		return indents[:n]
	}
	return indent + "    "
}

func (w *tsWriter) examples(buf []byte, ex int, indent string) []byte {
	d := w.d
	if ex < 0 || d.Kind(ex) != pyjson.Array || d.Nodes[ex].Len == 0 {
		return buf
	}
	buf = append(buf, indent...)
	buf = append(buf, "// Examples:\n"...)
	for e, end := d.Children(ex); e < end; e = d.Next(e) {
		buf = append(buf, indent...)
		buf = append(buf, "// - "...)
		buf = d.AppendPython(buf, e)
		buf = append(buf, '\n')
	}
	return buf
}

// propertyName writes a property's name: as is when it is an identifier,
// else as a JSON string.
func (w *tsWriter) propertyName(buf []byte, k int) []byte {
	if n := &w.d.Nodes[k]; !n.Escaped {
		if name := w.d.Src[n.Start+1 : n.End-1]; isIdentifier(name) {
			return append(buf, name...)
		}
		return w.d.AppendPython(buf, k)
	}
	start := len(buf)
	buf = w.d.AppendString(buf, k)
	if !isIdentifier(buf[start:]) {
		buf = w.d.AppendPython(buf[:start], k)
	}
	return buf
}

func isIdentifier(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for i, c := range b {
		letter := c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// openUnion starts a new union and returns what closeUnion restores.
func (w *tsWriter) openUnion() union {
	saved := union{w.base, w.union}
	w.base = len(w.members)
	w.unions++
	w.union = w.unions
	return saved
}

// union identifies an open union: where its members start and its number.
type union struct{ base, id int }

// closeUnion ends the innermost union and returns its member count.
func (w *tsWriter) closeUnion(saved union) int {
	// An indexed union's entries stay in the index until the next tool:
	// no later union has its number.
	n := len(w.members) - w.base
	w.members = w.members[:w.base]
	w.base, w.union = saved.base, saved.id
	return n
}

// unionIndexAt is the size from which a union's members are found through
// a hash index rather than by comparing with each, so that a union of n
// members is written in O(n) (an enum of 100,000 members, say).
const unionIndexAt = 16

var seed = maphash.MakeSeed()

// unionHas reports whether the innermost union, whose members' texts are
// in buf, has a member with text.
func (w *tsWriter) unionHas(buf, text []byte) bool {
	if len(w.members)-w.base < unionIndexAt {
		for _, m := range w.members[w.base:] {
			if comparisons != nil {
				*comparisons++
			}
			if m.End-m.Start == len(text) && bytes.Equal(buf[m.Start:m.End], text) {
				return true
			}
		}
		return false
	}
	return w.indexed(buf, text, maphash.Bytes(seed, text))
}

// indexed reports whether the innermost union, which is indexed, has a
// member with text, whose hash is h.
func (w *tsWriter) indexed(buf, text []byte, h uint64) bool {
	i, ok := w.c.union[unionKey{int32(w.union), h}]
	for ok && i >= 0 {
		if comparisons != nil {
			*comparisons++
		}
		m := &w.members[i]
		if bytes.Equal(buf[m.Start:m.End], text) {
			return true
		}
		i = m.prev
	}
	return false
}

// beginMember starts a member of the innermost union and returns where the
// member's text starts.
func (w *tsWriter) beginMember(buf []byte) (_ []byte, sepAt, start int) {
	sepAt = len(buf)
	if len(w.members) > w.base {
		buf = append(buf, " | "...)
	}
	return buf, sepAt, len(buf)
}

// endMember records the member written since beginMember, or removes it
// when an earlier member of the union has the same text.
func (w *tsWriter) endMember(buf []byte, sepAt, start int) []byte {
	text := buf[start:]
	if n := len(w.rec); n > 0 && w.rec[n-1].union == w.union {
		at := len(w.c.arena)
		w.c.arena = append(w.c.arena, text...)
		w.c.texts = append(w.c.texts, recorded{Span{at, len(w.c.arena)}, int32(w.union)})
	}
	n := len(w.members) - w.base
	if n < unionIndexAt {
		if w.unionHas(buf, text) {
			w.dropped += len(buf) - sepAt
			return buf[:sepAt]
		}
		w.members = append(w.members, member{Span: Span{start, len(buf)}, prev: -1})
		if n+1 == unionIndexAt {
			// The union grows large: index its members.
			if w.c.union == nil {
				w.c.union = make(map[unionKey]int32)
			}
			for i := w.base; i < len(w.members); i++ {
				w.index(buf, i)
			}
		}
		return buf
	}
	h := maphash.Bytes(seed, text)
	if w.indexed(buf, text, h) {
		w.dropped += len(buf) - sepAt
		return buf[:sepAt]
	}
	w.members = append(w.members, member{Span: Span{start, len(buf)}, hash: h})
	w.index(buf, len(w.members)-1)
	return buf
}

// index adds members[i] to the index of its union.
func (w *tsWriter) index(buf []byte, i int) {
	m := &w.members[i]
	if m.hash == 0 {
		m.hash = maphash.Bytes(seed, buf[m.Start:m.End])
	}
	key := unionKey{int32(w.union), m.hash}
	prev, ok := w.c.union[key]
	if !ok {
		prev = -1
	}
	m.prev = prev
	w.c.union[key] = int32(i)
}

// scalar adds a member with fixed text.
func (w *tsWriter) scalar(buf []byte, text string) []byte {
	buf, sepAt, start := w.beginMember(buf)
	buf = append(buf, text...)
	return w.endMember(buf, sepAt, start)
}

// typ adds the members of schema s's type to the innermost union. indent
// is the indent of the properties of an object written here. The first
// matching rule of the renderer's order decides (schema.Keys.Rule).
func (w *tsWriter) typ(buf []byte, s int, indent string) ([]byte, error) {
	ks := schema.KeysOf(w.d, s)
	return w.typeOf(buf, &ks, indent)
}

// typeOf is typ for a schema whose keywords ks were read already.
func (w *tsWriter) typeOf(buf []byte, ks *schema.Keys, indent string) ([]byte, error) {
	if w.spent(buf) > maxDeclarationBytes {
		return buf, w.sizeError()
	}
	d := w.d
	switch ks.Rule(d) {
	case schema.RuleRef:
		return w.ref(buf, ks.Ref, indent)
	case schema.RuleEnum:
		return w.literals(buf, ks.Enum), nil
	case schema.RuleConst:
		buf, sepAt, start := w.beginMember(buf)
		buf = d.AppendPython(buf, ks.Const)
		return w.endMember(buf, sepAt, start), nil
	case schema.RuleAnyOf:
		return w.variants(buf, ks.AnyOf, stepAnyOf, indent)
	case schema.RuleOneOf:
		return w.variants(buf, ks.OneOf, stepOneOf, indent)
	case schema.RuleType:
		t := ks.Type
		if d.Kind(t) != pyjson.Array || d.Nodes[t].Len == 0 {
			return w.named(buf, ks, schema.TypeName(d, t), indent)
		}
		var err error
		for e, end := d.Children(t); e < end; e = d.Next(e) {
			if buf, err = w.named(buf, ks, schema.TypeName(d, e), indent); err != nil {
				return buf, err
			}
		}
		return buf, nil
	case schema.RuleProperties:
		return w.objectType(buf, ks, indent)
	}
	return w.scalar(buf, "any"), nil
}

// named adds the member for type t of the schema whose keywords ks are.
func (w *tsWriter) named(buf []byte, ks *schema.Keys, t schema.Type, indent string) ([]byte, error) {
	switch t {
	case schema.TypeString:
		return w.scalar(buf, "string"), nil
	case schema.TypeInteger, schema.TypeNumber:
		return w.scalar(buf, "number"), nil
	case schema.TypeBoolean:
		return w.scalar(buf, "boolean"), nil
	case schema.TypeNull:
		return w.scalar(buf, "null"), nil
	case schema.TypeArray:
		return w.array(buf, ks.Items, indent)
	case schema.TypeObject:
		return w.objectType(buf, ks, indent)
	}
	return w.scalar(buf, "any"), nil
}

// objectType adds an object member: the full object when it has
// properties, else "object".
func (w *tsWriter) objectType(buf []byte, ks *schema.Keys, indent string) ([]byte, error) {
	props := ks.Properties
	if props < 0 || w.d.Kind(props) != pyjson.Object || w.d.Nodes[props].Len == 0 {
		return w.scalar(buf, "object"), nil
	}
	buf, sepAt, start := w.beginMember(buf)
	// A nested union collects the object's own property types.
	saved := w.openUnion()
	buf, err := w.object(buf, ks.Required, props, indent)
	w.closeUnion(saved)
	if err != nil {
		return buf, err
	}
	return w.endMember(buf, sepAt, start), nil
}

// array adds "{items}[]", with the items in parentheses when they are a
// union, and "any[]" without items.
func (w *tsWriter) array(buf []byte, items int, indent string) ([]byte, error) {
	d := w.d
	if items < 0 || d.Kind(items) != pyjson.Object {
		return w.scalar(buf, "any[]"), nil
	}
	buf, sepAt, start := w.beginMember(buf)
	if err := w.push(stepItems, 0); err != nil {
		return buf, err
	}
	buf = append(buf, '(')
	saved := w.openUnion()
	buf, err := w.typ(buf, items, indent)
	n := w.closeUnion(saved)
	w.pop()
	if err != nil {
		return buf, err
	}
	if n > 1 {
		buf = append(buf, ')')
	} else {
		copy(buf[start:], buf[start+1:])
		buf = buf[:len(buf)-1]
	}
	buf = append(buf, "[]"...)
	return w.endMember(buf, sepAt, start), nil
}

// literals adds each enum member as a JSON literal; an empty enum admits
// no value and is written "never".
func (w *tsWriter) literals(buf []byte, enum int) []byte {
	d := w.d
	if d.Kind(enum) != pyjson.Array {
		return w.scalar(buf, "any")
	}
	if d.Nodes[enum].Len == 0 {
		return w.scalar(buf, "never")
	}
	for e, end := d.Children(enum); e < end; e = d.Next(e) {
		var sepAt, start int
		buf, sepAt, start = w.beginMember(buf)
		buf = d.AppendPython(buf, e)
		buf = w.endMember(buf, sepAt, start)
	}
	return buf
}

// variants adds the members of each anyOf/oneOf variant to the union.
func (w *tsWriter) variants(buf []byte, v int, kind stepKind, indent string) ([]byte, error) {
	d := w.d
	if d.Kind(v) != pyjson.Array || d.Nodes[v].Len == 0 {
		return w.scalar(buf, "any"), nil
	}
	pos := 0
	for e, end := d.Children(v); e < end; e = d.Next(e) {
		if err := w.push(kind, pos); err != nil {
			return buf, err
		}
		var err error
		buf, err = w.typ(buf, e, indent)
		w.pop()
		if err != nil {
			return buf, err
		}
		pos++
	}
	return buf, nil
}

// ref resolves a local $ref and adds its target's members. A ref that is
// not local, cannot be resolved, or recurs on the current path is "any".
//
// A target is written out in full wherever it is used, so a schema whose
// definitions each refer twice to the next one doubles its declaration at
// every level. Each expansion records the members it adds; when nothing
// in it met a $ref that recurs above the target, the expansion cannot
// depend on the path that reached it (a $ref below would recur above only
// if the target were in a cycle, which the expansion would have met), and
// the next use of the target at the same indent adds the recorded members
// again instead of walking the schema. maxDeclarationBytes and maxRefWork
// bound what remains: the output itself, and the expansions of targets in
// cycles.
func (w *tsWriter) ref(buf []byte, ref int, indent string) ([]byte, error) {
	target := w.resolve(ref)
	if target < 0 {
		return w.scalar(buf, "any"), nil
	}
	if w.refs.Recurs(target) {
		return w.scalar(buf, "any"), nil
	}
	key := expansionKey{int32(target), int32(len(indent))}
	if e, ok := w.c.expanded[key]; ok && reuseExpansions {
		x := w.c.entries[e]
		if deepest := len(w.path) + int(x.depth); deepest <= maxSchemaDepth {
			// Reuse; a path that would now go too deep is walked again
			// instead, to report the error where it occurs.
			w.maxDepth = max(w.maxDepth, deepest)
			for i := x.first; i < x.last; i++ {
				t := w.c.texts[i]
				if t.union != x.union {
					continue
				}
				var sepAt, start int
				buf, sepAt, start = w.beginMember(buf)
				buf = append(buf, w.c.arena[t.Start:t.End]...)
				buf = w.endMember(buf, sepAt, start)
			}
			return buf, w.checkSize(buf)
		}
	}
	w.work += w.d.Next(target) - target
	if w.work > maxRefWork {
		return buf, errAt(toolPath(w.tool)+".function.parameters", "expanding $ref walks more than "+
			strconv.Itoa(maxRefWork)+" schema values (each $ref is written out in full wherever it is used); "+
			"simplify the schema or share fewer definitions")
	}
	above := len(w.path)
	if err := w.push(stepRef, 0); err != nil {
		return buf, err
	}
	frame := w.refs.Push(target)
	maxDepth := w.maxDepth
	w.maxDepth = len(w.path)
	w.rec = append(w.rec, recording{w.union})
	first := len(w.c.texts)
	buf, err := w.typ(buf, target, indent)
	w.rec = w.rec[:len(w.rec)-1]
	if err != nil {
		return buf, err
	}
	if w.refs.Pop(frame) {
		if w.c.expanded == nil {
			w.c.expanded = make(map[expansionKey]int32)
		}
		w.c.expanded[key] = int32(len(w.c.entries))
		w.c.entries = append(w.c.entries, expansion{int32(first), int32(len(w.c.texts)), int32(w.union), int32(w.maxDepth - above)})
	}
	w.maxDepth = max(maxDepth, w.maxDepth)
	w.pop()
	return buf, nil
}

// resolve returns the target of the $ref string at node ref, or -1;
// each ref node is resolved once.
func (w *tsWriter) resolve(ref int) int {
	if t, ok := w.c.resolved[int32(ref)]; ok {
		return int(t)
	}
	t := w.c.ptr.Resolve(w.d, w.root, ref)
	if w.c.resolved == nil {
		w.c.resolved = make(map[int32]int32)
	}
	w.c.resolved[int32(ref)] = int32(t)
	return t
}
