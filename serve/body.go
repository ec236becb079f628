package serve

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// decodeBody reads a request body, or a piece of one, into dst: a pointer
// to a struct whose fields are all json.RawMessage, string or *string (chatRequest, messagesBody, anthropicMessage, ...), or
// to a slice of such structs. It is the first pass over a body, which
// splits it into the fields each API then reads on its own, and the pass
// over each message and content block.
//
// It gives what json.Unmarshal(body, dst) gives, field for field and error
// for error (TestDecodeBodyMatchesEncodingJSON, FuzzDecodeBody), in one
// pass of the tape parser, each raw field a piece of body rather than a
// copy. A body that is not the plain case goes to json.Unmarshal, whose
// rules and error messages then decide: invalid JSON, a key written with
// an escape, a key that matches a field only in encoding/json's
// case-insensitive way, a key twice, a string field holding an escape or
// another kind of value, a list of structs holding something other than
// objects. encoding/json
// scans a body twice (a validity check, then the decode) and copies every
// raw value, which for a long conversation was most of the gateway's time
// before rendering.
func decodeBody(body []byte, dst any) error {
	return decodeBodyUnread(body, dst, nil)
}

// decodeBodyUnread is decodeBody that also collects in unread, when it is
// not nil, the members dst has no field for whose value holds something: of
// the object, or of each object of the list (unreadMember.elem), each
// once. Matching is encoding/json's, case folding included. A member whose
// value holds nothing (null, [] or {}) is not collected: it asks for
// nothing, and OpenAI's clients send "refusal": null and "annotations": []
// back with every turn. But an empty object or list of a member whose
// presence asks (asksWhenEmpty) is collected.
func decodeBodyUnread(body []byte, dst any, unread *unreadSet) error {
	v := reflect.ValueOf(dst).Elem()
	v.SetZero()
	mark := unread.mark()
	if splitBody(body, dst, unread) {
		return nil
	}
	unread.reset(mark)
	v.SetZero()
	if err := json.Unmarshal(body, dst); err != nil {
		return err
	}
	if unread == nil {
		return nil
	}
	t := v.Type()
	if t.Kind() != reflect.Slice {
		unreadMembers(body, memberNamesOf(t), unread, 0)
		return nil
	}
	// The slow path's list (escapes, repeated keys, invalid UTF-8 that
	// encoding/json reads): its elements as encoding/json splits them.
	var elems []json.RawMessage
	_ = json.Unmarshal(body, &elems)
	names := memberNamesOf(t.Elem())
	for i, elem := range elems {
		unreadMembers(elem, names, unread, i)
	}
	return nil
}

// splitBody is decodeBody's plain case: it fills dst, which must be zero,
// and reports true, or reports false when body is not the plain case,
// leaving dst in an unspecified state. With unread, it collects the
// members dst has no field for, as decodeBodyUnread does.
func splitBody(body []byte, dst any, unread *unreadSet) bool {
	v := reflect.ValueOf(dst).Elem()
	if v.Kind() == reflect.Slice {
		return splitList(body, v, unread)
	}
	fs := bodyFieldsOf(v.Type())
	return fs != nil && decodeBodyFast(body, v, fs, unread)
}

// decodeRequestBody is decodeBody for a request's top-level object that
// also returns the members dst has no field for (unread), in the order
// they come, each once, so that the API can report what it accepted
// without using it. At most maxUnread are listed; more is true when the
// body has others besides.
func decodeRequestBody(body []byte, dst any) (unread []string, more bool, err error) {
	var u unreadSet
	if err := decodeBodyUnread(body, dst, &u); err != nil {
		return nil, false, err
	}
	for _, m := range u.list {
		unread = append(unread, m.key)
	}
	return unread, u.more, nil
}

// unreadMember is a member of a decoded object that its struct has no
// field for: elem is the object's place in the list decoded (0 for an
// object), key the member's name, unescaped.
type unreadMember struct {
	elem int
	key  string
}

// unreadSet collects unread members: at most maxUnread, more set when
// there were others. Its methods do nothing on a nil set.
type unreadSet struct {
	list []unreadMember
	more bool
}

// asksWhenEmpty reports whether key names a member whose presence asks for
// something even with an empty object or list: OpenAI Chat's
// web_search_options, whose {} asks for a web search with the default
// options. null still asks for nothing.
func asksWhenEmpty(key []byte) bool {
	return asciiEqualFold("web_search_options", key)
}

// unreadValue reports whether a member key the struct has no field for,
// of value raw, is to be collected: its value holds something, or its
// presence asks (asksWhenEmpty) and it is not null.
func unreadValue(key, raw []byte) bool {
	if !pyjson.HoldsNothingText(raw) {
		return true
	}
	return len(raw) > 0 && raw[0] != 'n' && asksWhenEmpty(key)
}

// acceptedNoOp is the member of any object that counts as read although
// the gateway has nothing to do for it, as its client wants
// (docs/gap-decisions.md 111 and 244): cache_control, a prompt-caching
// breakpoint, since llama.cpp, vLLM and SGLang reuse a shared prefix
// without marks.
const acceptedNoOp = "cache_control"

// add collects key of the object elem, unless it is collected already or
// is acceptedNoOp.
func (u *unreadSet) add(elem int, key []byte) {
	if u == nil || asciiEqualFold(acceptedNoOp, key) {
		return
	}
	for _, m := range u.list {
		if m.elem == elem && m.key == string(key) {
			return
		}
	}
	if len(u.list) == maxUnread {
		u.more = true
		return
	}
	u.list = append(u.list, unreadMember{elem, string(key)})
}

// unreadMark is what an unreadSet held at a point, to go back to.
type unreadMark struct {
	n    int
	more bool
}

func (u *unreadSet) mark() unreadMark {
	if u == nil {
		return unreadMark{}
	}
	return unreadMark{len(u.list), u.more}
}

func (u *unreadSet) reset(m unreadMark) {
	if u != nil {
		u.list, u.more = u.list[:m.n], m.more
	}
}

// maxUnread bounds the unread members an unreadSet collects.
const maxUnread = 32

// unreadMembers collects in u the members of body, a valid JSON object,
// that names has no field for and whose value holds something, as those
// of the object elem. The body is valid (json.Unmarshal read it), so it
// is skimmed (pyjson.SkimMembers), not parsed, and no key is kept that is
// not collected: a body of many keys costs no more than its text.
func unreadMembers(body []byte, names *bodyFields, u *unreadSet, elem int) {
	pyjson.SkimMembers(body, func(quoted, value []byte) bool {
		key, ok := pyjson.KeyString(quoted)
		if !ok {
			return false
		}
		if _, found := names.byName[key]; !found && !names.foldsToField([]byte(key)) && unreadValue([]byte(key), value) {
			u.add(elem, []byte(key))
		}
		return true
	})
}

// splitList is splitBody for v, a slice of structs, from a JSON list of
// objects.
func splitList(body []byte, v reflect.Value, unread *unreadSet) bool {
	t := v.Type().Elem()
	if t.Kind() != reflect.Struct {
		return false
	}
	fs := bodyFieldsOf(t)
	if fs == nil || !utf8.Valid(body) {
		return false
	}
	// The list checked first, without a tape: well formed, of objects
	// only, before a slice for them all is made (a list of a million
	// numbers fails here, at little cost). Then each element is parsed on
	// its own: the tape holds one element, not the list.
	n := 0
	if !eachRawElement(body, func(e []byte) bool {
		n++
		return e[0] == '{'
	}) {
		return false
	}
	d := bodyDocs.Get().(*pyjson.Doc)
	defer releaseBodyDoc(d)
	list := reflect.MakeSlice(v.Type(), n, n)
	pos := pyjson.SkipSpace(body, pyjson.SkipSpace(body, 0)+1) // the first element: the list is well formed
	for i := range n {
		size, err := d.ParseValue(body[pos:])
		if err != nil || !decodeObject(d, 0, list.Index(i), fs, unread, i) {
			return false
		}
		if pos = pyjson.SkipSpace(body, pos+size); body[pos] == ',' {
			pos = pyjson.SkipSpace(body, pos+1)
		}
	}
	v.Set(list)
	return true
}

// bodyFields are the JSON names of a body struct's fields (those of
// embedded structs included, as encoding/json promotes them).
type bodyFields struct {
	byName map[string]bodyField
}

type bodyField struct {
	index []int
	kind  fieldKind
}

// fieldKind is the type of a body struct's field.
type fieldKind uint8

const (
	rawField       fieldKind = iota // json.RawMessage
	stringField                     // string
	stringPtrField                  // *string
)

var bodyFieldCache sync.Map // reflect.Type -> *bodyFields (nil: not a body struct)

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	stringType     = reflect.TypeFor[string]()
	stringPtrType  = reflect.TypeFor[*string]()
)

// bodyFieldsOf returns the fields of t, a struct, or nil when t is not a
// struct or has a field only json.Unmarshal can fill: of another type,
// untagged, tagged with an option, or embedded under a tag of its own.
func bodyFieldsOf(t reflect.Type) *bodyFields {
	if t.Kind() != reflect.Struct {
		return nil
	}
	if fs, ok := bodyFieldCache.Load(t); ok {
		return fs.(*bodyFields)
	}
	fs := &bodyFields{byName: map[string]bodyField{}}
	for _, f := range reflect.VisibleFields(t) {
		tag := f.Tag.Get("json")
		if f.Anonymous && f.Type.Kind() == reflect.Struct && tag == "" {
			continue // its fields are listed after it, promoted
		}
		switch {
		case !f.IsExported() || tag == "" || tag == "-" || strings.Contains(tag, ",") || len(f.Index) > 2:
			fs = nil
		case f.Type == rawMessageType:
			fs.byName[tag] = bodyField{f.Index, rawField}
		case f.Type == stringType:
			fs.byName[tag] = bodyField{f.Index, stringField}
		case f.Type == stringPtrType:
			fs.byName[tag] = bodyField{f.Index, stringPtrField}
		default:
			fs = nil
		}
		if fs == nil {
			break
		}
	}
	bodyFieldCache.Store(t, fs)
	return fs
}

var memberNameCache sync.Map // reflect.Type -> *bodyFields

// memberNamesOf returns the JSON names of t's fields as encoding/json
// reads them, whatever their types (only byName's keys are set): the
// members a struct decoded with json.Unmarshal reads.
func memberNamesOf(t reflect.Type) *bodyFields {
	if fs, ok := memberNameCache.Load(t); ok {
		return fs.(*bodyFields)
	}
	fs := &bodyFields{byName: map[string]bodyField{}}
	if t.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(t) {
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			switch {
			case f.Anonymous && f.Type.Kind() == reflect.Struct && name == "",
				!f.IsExported() && !f.Anonymous, tag == "-":
				continue
			case name == "":
				name = f.Name
			}
			fs.byName[name] = bodyField{}
		}
	}
	memberNameCache.Store(t, fs)
	return fs
}

// foldsToField reports whether key, which names no field exactly, could
// still name one under encoding/json's case-insensitive matching.
func (fs *bodyFields) foldsToField(key []byte) bool {
	for _, c := range key {
		if c >= 0x80 {
			return true // Unicode folding (the Kelvin sign, the long s): leave it to encoding/json
		}
	}
	for name := range fs.byName {
		if asciiEqualFold(name, key) {
			return true
		}
	}
	return false
}

// asciiEqualFold is strings.EqualFold for name and key, key holding ASCII
// only, without converting key to a string.
func asciiEqualFold(name string, key []byte) bool {
	if len(name) != len(key) {
		return false
	}
	for i := range len(key) {
		a, b := name[i], key[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// bodyDocs are the tapes of bodies being split, reused.
var bodyDocs = sync.Pool{New: func() any { return new(pyjson.Doc) }}

// maxPooledBodyNodes bounds the tape a pooled Doc keeps.
const maxPooledBodyNodes = 1 << 16

// decodeBodyFast fills v from body in the plain case and reports whether
// it could; with unread, it appends the keys v has no field for. It reads the top-level object member by member, parsing one
// value at a time into a reused tape, so that the tape holds the largest
// value rather than the whole body, and a body with more members than a
// plain one has stops early.
func decodeBodyFast(body []byte, v reflect.Value, fs *bodyFields, unread *unreadSet) bool {
	if !utf8.Valid(body) {
		return false // ParseValue reads valid UTF-8 only
	}
	d := bodyDocs.Get().(*pyjson.Doc)
	defer releaseBodyDoc(d)
	pos := pyjson.SkipSpace(body, 0)
	if pos >= len(body) || body[pos] != '{' {
		return false
	}
	pos = pyjson.SkipSpace(body, pos+1)
	if pos < len(body) && body[pos] == '}' {
		return pyjson.SkipSpace(body, pos+1) == len(body)
	}
	var keys [maxPlainMembers][]byte
	for n := 0; ; n++ {
		if n == maxPlainMembers || pos >= len(body) || body[pos] != '"' {
			return false
		}
		size, err := d.ParseValue(body[pos:])
		if err != nil || d.Nodes[0].Escaped {
			return false
		}
		key := body[pos+1 : pos+size-1]
		for _, k := range keys[:n] {
			if string(k) == string(key) {
				return false
			}
		}
		keys[n] = key
		if pos = pyjson.SkipSpace(body, pos+size); pos >= len(body) || body[pos] != ':' {
			return false
		}
		if pos = pyjson.SkipSpace(body, pos+1); pos >= len(body) {
			return false
		}
		// encoding/json refuses a body nested deeper than pyjson.MaxDepth,
		// this value one level less. A raw field's value, or a member's
		// that no field reads, is skipped without a tape, so that a large
		// one (the messages) costs no tape of its parts; a string field's
		// is parsed, for its escapes.
		f, found := fs.byName[string(key)]
		if !found || f.kind == rawField {
			var depth int
			if size, depth, err = pyjson.SkipValue(body[pos:]); err != nil || depth >= pyjson.MaxDepth {
				return false
			}
			raw := body[pos : pos+size : pos+size]
			switch {
			case found:
				v.FieldByIndex(f.index).SetBytes(raw)
			case fs.foldsToField(key):
				return false
			case unreadValue(key, raw):
				unread.add(0, key)
			}
		} else if size, err = d.ParseValue(body[pos:]); err != nil || !setField(d, 0, f, v) {
			return false
		}
		if pos = pyjson.SkipSpace(body, pos+size); pos >= len(body) {
			return false
		}
		switch body[pos] {
		case '}':
			return pyjson.SkipSpace(body, pos+1) == len(body)
		case ',':
			pos = pyjson.SkipSpace(body, pos+1)
		default:
			return false
		}
	}
}

// setField stores the value at node val in v's field f, as json.Unmarshal
// would, and reports false when only json.Unmarshal can: a string field
// holding something else than a string or null, or a string with an
// escape (encoding/json's unquoting decides those).
func setField(d *pyjson.Doc, val int, f bodyField, v reflect.Value) bool {
	fv := v.FieldByIndex(f.index)
	switch f.kind {
	case stringField, stringPtrField:
		switch d.Kind(val) {
		case pyjson.Null:
			return true // the field stays zero: "" or nil
		case pyjson.String:
			if d.Nodes[val].Escaped {
				return false
			}
			raw := d.Raw(val)
			s := string(raw[1 : len(raw)-1]) // valid UTF-8: Parse checked it
			if f.kind == stringField {
				fv.SetString(s)
			} else {
				fv.Set(reflect.ValueOf(&s))
			}
			return true
		}
		return false
	}
	raw := d.Raw(val)
	fv.SetBytes(raw[:len(raw):len(raw)])
	return true
}

// splitNode is splitBody for the value at node i of a parsed document,
// collecting in unread (when not nil) the members dst has no field for;
// when it reports false, unread is as it was.
func splitNode(d *pyjson.Doc, i int, dst any, unread *unreadSet) bool {
	v := reflect.ValueOf(dst).Elem()
	fs := bodyFieldsOf(v.Type())
	mark := unread.mark()
	if fs != nil && decodeObject(d, i, v, fs, unread, 0) {
		return true
	}
	unread.reset(mark)
	return false
}

// maxPlainMembers bounds the members of a plain object: the bodies have a
// few dozen fields at most. One with more is left to json.Unmarshal, which
// skips unknown members without keeping anything of them, so that a body
// of a million keys costs no map of its keys here.
const maxPlainMembers = 64

// decodeObject fills v from the object at node obj in the plain case and
// reports whether it could, collecting in unread the members v has no
// field for, as those of the object elem.
func decodeObject(d *pyjson.Doc, obj int, v reflect.Value, fs *bodyFields, unread *unreadSet, elem int) bool {
	if d.Kind(obj) != pyjson.Object || d.Nodes[obj].Len > maxPlainMembers || d.DuplicateKey(obj) >= 0 {
		return false
	}
	ok := true
	d.Members(obj, func(k, val int) bool {
		raw := d.Raw(k)
		key := raw[1 : len(raw)-1]
		f, found := fs.byName[string(key)]
		switch {
		case d.Nodes[k].Escaped:
			ok = false
		case !found:
			if ok = !fs.foldsToField(key); ok && (!d.HoldsNothing(val) || d.Nodes[val].Kind != pyjson.Null && asksWhenEmpty(key)) {
				unread.add(elem, key)
			}
		default:
			ok = setField(d, val, f, v)
		}
		return ok
	})
	return ok
}

// rawElements is json.Unmarshal(raw, &list) for a list of
// json.RawMessage, without the copies: the elements of the JSON list raw,
// or false when raw is not one (or not UTF-8, which the APIs refuse
// before). Each element is skipped without a tape (pyjson.SkipValue), so
// that a long list costs its slice only.
func rawElements(raw json.RawMessage) ([]json.RawMessage, bool) {
	// The count is not known before: the elements are gathered in a
	// pooled list, then copied into one of their number.
	scratch := elementLists.Get().(*[]json.RawMessage)
	defer func() {
		clear(*scratch)
		if cap(*scratch) <= maxPooledElements {
			*scratch = (*scratch)[:0]
			elementLists.Put(scratch)
		}
	}()
	if !eachRawElement(raw, func(e []byte) bool {
		*scratch = append(*scratch, e)
		return true
	}) {
		return nil, false
	}
	return append([]json.RawMessage{}, *scratch...), true
}

// elementLists are rawElements' scratch lists, reused; one grown past
// maxPooledElements is let go.
var elementLists = sync.Pool{New: func() any { return new([]json.RawMessage) }}

const maxPooledElements = 1 << 12

// eachRawElement calls fn with the text of each element of the JSON list
// raw, in order, and reports whether raw is a well-formed list of valid
// UTF-8, not nested deeper than encoding/json reads (pyjson.MaxDepth, the
// list's level included), and fn returned true for every element. An
// element's text is a piece of raw that cannot grow into the next.
func eachRawElement(raw []byte, fn func(elem []byte) bool) bool {
	if !utf8.Valid(raw) {
		return false
	}
	pos := pyjson.SkipSpace(raw, 0)
	if pos == len(raw) || raw[pos] != '[' {
		return false
	}
	if pos = pyjson.SkipSpace(raw, pos+1); pos < len(raw) && raw[pos] == ']' {
		return pyjson.SkipSpace(raw, pos+1) == len(raw)
	}
	for {
		size, depth, err := pyjson.SkipValue(raw[pos:])
		if err != nil || depth >= pyjson.MaxDepth || !fn(raw[pos:pos+size:pos+size]) {
			return false
		}
		if pos = pyjson.SkipSpace(raw, pos+size); pos >= len(raw) {
			return false
		}
		switch raw[pos] {
		case ']':
			return pyjson.SkipSpace(raw, pos+1) == len(raw)
		case ',':
			pos = pyjson.SkipSpace(raw, pos+1)
		default:
			return false
		}
	}
}

// releaseBodyDoc returns d to bodyDocs, unless its tape grew too large to
// keep.
func releaseBodyDoc(d *pyjson.Doc) {
	d.Src, d.Text = nil, ""
	if cap(d.Nodes) <= maxPooledBodyNodes {
		bodyDocs.Put(d)
	}
}
