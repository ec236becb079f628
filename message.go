package harmony

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// Roles a Message may have. System and developer messages are equivalent:
// both become instructions (page: Instructions).
const (
	RoleSystem    = "system"
	RoleDeveloper = "developer"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one message of a conversation in the OpenAI / Hugging Face chat
// shape. Its JSON form is that wire shape: content may be a string, null or
// a list of text parts (joined with "\n"), and reasoning may arrive as
// reasoning_content, thinking or reasoning (the first non-empty one wins).
type Message struct {
	// Role is system, developer, user, assistant or tool.
	Role string
	// Content is the message text. For an assistant turn it is the final
	// answer; with tool calls it must be empty.
	Content string
	// Reasoning is an assistant turn's analysis text. The template renders
	// it as the turn's analysis message (page: Reasoning across turns).
	Reasoning string
	// ToolCalls are the calls an assistant turn made, in order.
	ToolCalls []ToolCall
	// ToolCallID links a tool result to the call it answers.
	ToolCallID string
	// Name is a tool result's speaker, the tool's name. When empty the
	// name is taken from the call whose ID equals ToolCallID.
	Name string
}

// ToolCall is one function call made by an assistant turn.
type ToolCall struct {
	// ID identifies the call for the tool result. It is not part of the
	// format: Beam matches results to calls by position.
	ID string
	// Type is "function" (or empty, meaning the same).
	Type string
	// Function names the tool and holds the arguments.
	Function FunctionCall
}

// FunctionCall is the function part of a ToolCall.
type FunctionCall struct {
	// Name is the tool's name, written as the call's recipient.
	Name string
	// Arguments is a JSON object. Its key order and number literals are
	// kept: each member becomes one rfl:parameter in the prompt. Decoding
	// a message (ParseRequest, UnmarshalJSON) turns a JSON string holding
	// an object, OpenAI's wire form, into that object (DecodeArguments); a
	// JSON string here is an error when rendering, as in the template.
	// Decoded arguments may be edited in place or replaced: Render writes
	// what the slice holds when it runs.
	Arguments json.RawMessage
}

// Tool is a function tool in the OpenAI shape
// {"type": "function", "function": {...}}.
type Tool struct {
	// Type is "function" (or empty, meaning the same).
	Type string
	// Function is the tool's definition.
	Function Function
}

// Function is a tool's definition: its name, its description and the JSON
// Schema of its parameters.
type Function struct {
	Name        string
	Description string
	// Parameters is a JSON Schema object, kept as written so that the
	// order of properties survives into the TypeScript declaration. Decoded
	// parameters may be edited in place or replaced: Render declares what
	// the slice holds when it runs.
	Parameters json.RawMessage
}

// tape is a parsed JSON value: node root of doc. The renderer parses each
// tool's parameters and each call's arguments into pooled tapes of its own
// when it renders them; decoded values keep no parse of their own, so that
// they are plain data, equal (reflect.DeepEqual) to the same literal.
type tape struct {
	doc  *pyjson.Doc
	root int
}

// UnmarshalJSON decodes the OpenAI / Hugging Face wire shape of a message.
// Arguments are copied: data is not retained.
func (m *Message) UnmarshalJSON(data []byte) error {
	d, err := parsePooled(data)
	defer releaseDoc(d)
	if err != nil {
		return errJSON("", err)
	}
	*m = Message{}
	return decodeMessage(d, 0, m, nil, nil, 0)
}

// keyNotes is where the message decoder notes the members it does not
// read: unknown keeps the keys outside the wire shape, of a message, a
// text part, a tool call or its function (ParseRequest's, for Lint and
// Strict); unread is called with the path of each member, of a message,
// a text part, a tool call or its function, whose value holds something
// (not null, [] or {}: ParseMessagesUnread's), until it returns false
// (done).
type keyNotes struct {
	unknown *[]unknownKey
	unread  func(path string) bool
	done    bool
}

// within is where in a message an object is: the message itself (field
// ""), or field[index] and then sub, such as content[1] or
// tool_calls[0].function. Its text is built only for a note.
type within struct {
	field string
	index int
	sub   string
}

// note notes key, of the object at w in message pos, whose value is at
// node v.
func (n *keyNotes) note(d *pyjson.Doc, k, v, pos int, w within) {
	switch {
	case n == nil:
	case n.unknown != nil:
		if w.field != "" && d.HoldsNothing(v) {
			return // the absence it stands for: datasets fill a struct's other fields with null
		}
		key := string(d.KeyText(k, nil))
		known := w.keys()
		if w.field != "" && slices.Contains(known, key) {
			return // a key of the wire shape the prompt has no use for: index, strict
		}
		*n.unknown = append(*n.unknown, newUnknownKey(w.path(pos), key, known))
	case n.unread != nil && !n.done && !d.HoldsNothing(v):
		n.done = !n.unread(keyPath(w.path(pos), string(d.KeyText(k, nil))))
	}
}

// path is the JSON path of the object at w in message pos.
func (w within) path(pos int) string {
	if w.field == "" {
		return messagePath(pos)
	}
	return messagePath(pos) + "." + w.field + "[" + strconv.Itoa(w.index) + "]" + w.sub
}

// keys are the keys of the wire shape of the object at w (unknown.go).
func (w within) keys() []string {
	switch {
	case w.field == "content":
		return partKeys
	case w.field == "tool_calls" && w.sub == "":
		return callKeys
	case w.field == "tool_calls":
		return callFunctionKeys
	}
	return messageKeys
}

// reading reports whether n notes the members of objects within
// messages (ParseRequest's unknown keys, or ParseMessagesUnread's unread
// members, until told to stop).
func (n *keyNotes) reading() bool {
	return n != nil && (n.unknown != nil || n.unread != nil && !n.done)
}

// UnmarshalJSON decodes a tool in the OpenAI shape. Parameters are copied:
// data is not retained.
func (t *Tool) UnmarshalJSON(data []byte) error {
	d, err := parsePooled(data)
	defer releaseDoc(d)
	if err != nil {
		return errJSON("", err)
	}
	return decodeTool(d, 0, t, nil, 0)
}

// parsePooled parses a private copy of data with a Doc from docPool, so
// that decoding one value after another (a gateway decodes each message
// of a request) reuses one tape instead of growing a new one each time.
// The decoders keep nothing of the Doc; releaseDoc gives it back.
func parsePooled(data []byte) (*pyjson.Doc, error) {
	d := docPool.Get().(*pyjson.Doc)
	return d, d.Parse(append([]byte(nil), data...))
}

// MarshalJSON writes the message in the wire shape, reasoning as thinking
// (the field the response template returns and the chat template reads),
// leaving out empty fields.
func (m Message) MarshalJSON() ([]byte, error) {
	return m.AppendJSON(nil), nil
}

// AppendJSON appends the message as JSON in Python's json.dumps style, the
// shape of the page's parse_response output: role, thinking, content,
// tool_calls, then tool_call_id and name when set.
func (m *Message) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"role": `...)
	dst = pyjson.AppendQuoted(dst, m.Role)
	if m.Reasoning != "" {
		dst = append(dst, `, "thinking": `...)
		dst = pyjson.AppendQuoted(dst, m.Reasoning)
	}
	if m.Content != "" {
		dst = append(dst, `, "content": `...)
		dst = pyjson.AppendQuoted(dst, m.Content)
	}
	if len(m.ToolCalls) > 0 {
		dst = append(dst, `, "tool_calls": [`...)
		for i := range m.ToolCalls {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = m.ToolCalls[i].AppendJSON(dst)
		}
		dst = append(dst, ']')
	}
	if m.ToolCallID != "" {
		dst = append(dst, `, "tool_call_id": `...)
		dst = pyjson.AppendQuoted(dst, m.ToolCallID)
	}
	if m.Name != "" {
		dst = append(dst, `, "name": `...)
		dst = pyjson.AppendQuoted(dst, m.Name)
	}
	return append(dst, '}')
}

// MarshalJSON writes the call in the wire shape with arguments as an object.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	return c.AppendJSON(nil), nil
}

// AppendJSON appends the call as JSON in Python's json.dumps style:
// {"id": ..., "type": "function", "function": {"name": ..., "arguments": {...}}},
// without id when it is empty (parsed calls have none).
func (c *ToolCall) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if c.ID != "" {
		dst = append(dst, `"id": `...)
		dst = pyjson.AppendQuoted(dst, c.ID)
		dst = append(dst, ", "...)
	}
	dst = append(dst, `"type": "function", "function": {"name": `...)
	dst = pyjson.AppendQuoted(dst, c.Function.Name)
	dst = append(dst, `, "arguments": `...)
	if len(c.Function.Arguments) == 0 {
		dst = append(dst, "{}"...)
	} else if s, err := pyjson.Python(c.Function.Arguments); err == nil {
		dst = append(dst, s...)
	} else {
		dst = pyjson.AppendQuoted(dst, string(c.Function.Arguments))
	}
	return append(dst, "}}"...)
}

// MarshalJSON writes the tool in the OpenAI shape.
func (t Tool) MarshalJSON() ([]byte, error) {
	dst := []byte(`{"type": "function", "function": {"name": `)
	dst = pyjson.AppendQuoted(dst, t.Function.Name)
	if t.Function.Description != "" {
		dst = append(dst, `, "description": `...)
		dst = pyjson.AppendQuoted(dst, t.Function.Description)
	}
	if len(t.Function.Parameters) > 0 {
		s, err := pyjson.Python(t.Function.Parameters)
		if err != nil {
			return nil, fmt.Errorf("function.parameters: %w", err)
		}
		dst = append(dst, `, "parameters": `...)
		dst = append(dst, s...)
	}
	return append(dst, "}}"...), nil
}

// decodeMessage reads the message object at node i of d. Arguments and
// parameters keep sub-slices of d.Src, so d.Src must not be reused. Keys
// it does not read are noted in notes, when it is not nil, as keys of
// messages[pos].
func decodeMessage(d *pyjson.Doc, i int, m *Message, calls *[]ToolCall, notes *keyNotes, pos int) error {
	if d.Kind(i) != pyjson.Object {
		return errAt("", "must be a JSON object, got "+d.Kind(i).String())
	}
	var err error
	rank := len(reasoningFields) // rank of the field m.Reasoning came from
	var buf [32]byte
	d.Members(i, func(k, v int) bool {
		switch string(d.KeyText(k, buf[:0])) {
		case "role":
			m.Role, err = optString(d, v, "role")
		case "content":
			m.Content, err = decodeContent(d, v, notes, pos)
		// The first non-empty of reasoning_content, thinking, reasoning
		// wins, wherever the keys stand in the object.
		case "reasoning_content":
			err = decodeReasoning(d, v, m, &rank, 0)
		case "thinking":
			err = decodeReasoning(d, v, m, &rank, 1)
		case "reasoning":
			err = decodeReasoning(d, v, m, &rank, 2)
		case "tool_calls":
			err = decodeToolCalls(d, v, m, calls, notes, pos)
		case "tool_call_id":
			m.ToolCallID, err = optString(d, v, "tool_call_id")
		case "name":
			m.Name, err = optString(d, v, "name")
		default:
			notes.note(d, k, v, pos, within{})
		}
		return err == nil
	})
	if err == nil && m.Role == RoleAssistant && rank < len(reasoningFields) {
		// Render checks this too, but names reasoning_content: only here
		// is the field known that the reasoning came from.
		err = checkReasoning(m.Reasoning, reasoningFields[rank])
	}
	return err
}

// checkReasoning refuses an assistant turn's reasoning that holds a
// marker, naming field, the JSON field it came from (DECISIONS.md,
// Assistant turns).
func checkReasoning(reasoning, field string) error {
	if mk := FindMarker(reasoning); mk != "" {
		return errAt(field, "contains the marker "+mk+"; reasoning must be plain text without Harmony headers")
	}
	return nil
}

// reasoningFields are the fields an assistant turn's reasoning is read
// from, in order of precedence (page: Assistant turns).
var reasoningFields = [...]string{"reasoning_content", "thinking", "reasoning"}

// decodeReasoning reads the reasoning field of rank r (its index in
// reasoningFields) at node v into m, when it is not empty and outranks the
// field *rank that m.Reasoning came from.
func decodeReasoning(d *pyjson.Doc, v int, m *Message, rank *int, r int) error {
	s, err := optString(d, v, reasoningFields[r])
	if s != "" && r < *rank {
		m.Reasoning, *rank = s, r
	}
	return err
}

func optString(d *pyjson.Doc, v int, field string) (string, error) {
	switch d.Kind(v) {
	case pyjson.Null:
		return "", nil
	case pyjson.String:
		return d.Str(v), nil
	}
	return "", errAt(field, "must be a string, got "+d.Kind(v).String())
}

// decodeContent reads content: a string, null, or a list of text parts
// joined with "\n" (DECISIONS.md, Messages and roles). A part's members
// other than type and text are noted in notes, as those of message pos.
func decodeContent(d *pyjson.Doc, v int, notes *keyNotes, msg int) (string, error) {
	switch d.Kind(v) {
	case pyjson.Null:
		return "", nil
	case pyjson.String:
		return d.Str(v), nil
	case pyjson.Array:
	default:
		return "", errAt("content", "must be a string, null or a list of text parts, got "+d.Kind(v).String())
	}
	var buf []byte
	var err error
	d.Elements(v, func(e, pos int) bool {
		if d.Kind(e) != pyjson.Object {
			err = errAt(partPath(pos), "must be a text part {\"type\": \"text\", \"text\": ...}")
			return false
		}
		if t := d.Lookup(e, "type"); t < 0 || !d.StringEqual(t, "text") {
			kind := "missing"
			if t >= 0 {
				kind = string(d.AppendPython(nil, t))
			}
			err = errAt(partPath(pos)+".type", "unsupported part type "+kind+"; Beam reads text parts only")
			return false
		}
		t := d.Lookup(e, "text")
		if t < 0 || d.Kind(t) != pyjson.String {
			err = errAt(partPath(pos)+".text", "must be a string")
			return false
		}
		if pos > 0 {
			buf = append(buf, '\n')
		}
		buf = d.AppendString(buf, t)
		if notes.reading() {
			noteOthers(d, e, notes, msg, within{"content", pos, ""}, "type", "text")
		}
		return true
	})
	return string(buf), err
}

func partPath(pos int) string { return "content[" + strconv.Itoa(pos) + "]" }

// newToolCalls returns an empty slice with room for exactly n calls: cut
// from the spare room of *calls, when calls is not nil, so that the calls
// of a whole request take a few allocations instead of one per message.
// Its capacity is n, so appending to one message's calls never writes over
// another's.
func newToolCalls(n int, calls *[]ToolCall) []ToolCall {
	if calls == nil || n == 0 {
		return make([]ToolCall, 0, n)
	}
	if cap(*calls)-len(*calls) < n {
		*calls = make([]ToolCall, 0, max(n, toolCallBlock))
	}
	s := *calls
	*calls = s[:len(s)+n]
	return s[len(s) : len(s) : len(s)+n]
}

// toolCallBlock is how many calls newToolCalls allocates room for at once.
const toolCallBlock = 16

// noteOthers notes the members of the object at node obj, within message
// msg at within, whose keys are not among known.
func noteOthers(d *pyjson.Doc, obj int, notes *keyNotes, msg int, w within, known ...string) {
	var buf [16]byte
	d.Members(obj, func(k, v int) bool {
		if !slices.Contains(known, string(d.KeyText(k, buf[:0]))) {
			notes.note(d, k, v, msg, w)
		}
		return true
	})
}

// decodeToolCalls reads tool_calls into m; the calls' members it does not
// read are noted in notes, as those of message msg.
func decodeToolCalls(d *pyjson.Doc, v int, m *Message, calls *[]ToolCall, notes *keyNotes, msg int) error {
	switch d.Kind(v) {
	case pyjson.Null:
		return nil
	case pyjson.Array:
	default:
		return errAt("tool_calls", "must be a list, got "+d.Kind(v).String())
	}
	// Decoded in place, as messages are, and stored in m once.
	tc := newToolCalls(int(d.Nodes[v].Len), calls)
	var err error
	d.Elements(v, func(e, pos int) bool {
		tc = tc[:pos+1]
		if err = decodeToolCall(d, e, &tc[pos], notes, msg, pos); err != nil {
			err = prefixPath("tool_calls["+strconv.Itoa(pos)+"]", err)
			return false
		}
		return true
	})
	m.ToolCalls = tc
	return err
}

// decodeToolCall reads the call at node e; with notes reading, the
// members of the call and of its function that it does not read are
// noted as those of tool_calls[pos] of message msg.
func decodeToolCall(d *pyjson.Doc, e int, c *ToolCall, notes *keyNotes, msg, pos int) error {
	if d.Kind(e) != pyjson.Object {
		return errAt("", "must be a JSON object, got "+d.Kind(e).String())
	}
	// One pass over each object finds its members (the last of a
	// repeated key wins, as with Lookup); they are then read in a fixed
	// order, so that the first error is the same whatever the key order.
	var buf [16]byte
	id, t, f := -1, -1, -1
	d.Members(e, func(k, v int) bool {
		switch string(d.KeyText(k, buf[:0])) {
		case "id":
			id = v
		case "type":
			t = v
		case "function":
			f = v
		default:
			if notes.reading() {
				notes.note(d, k, v, msg, within{"tool_calls", pos, ""})
			}
		}
		return true
	})
	var err error
	if id >= 0 {
		if c.ID, err = optString(d, id, "id"); err != nil {
			return err
		}
	}
	if t >= 0 {
		if c.Type, err = optString(d, t, "type"); err != nil {
			return err
		}
	}
	if f < 0 || d.Kind(f) != pyjson.Object {
		return errAt("function", "must be an object with name and arguments")
	}
	n, a := -1, -1
	d.Members(f, func(k, v int) bool {
		switch string(d.KeyText(k, buf[:0])) {
		case "name":
			n = v
		case "arguments":
			a = v
		default:
			if notes.reading() {
				notes.note(d, k, v, msg, within{"tool_calls", pos, ".function"})
			}
		}
		return true
	})
	if n >= 0 {
		if c.Function.Name, err = optString(d, n, "function.name"); err != nil {
			return err
		}
	}
	if a >= 0 {
		if d.Kind(a) == pyjson.String {
			return prefixPath("function.arguments", decodeArgumentsText(d.Str(a), &c.Function))
		}
		c.Function.Arguments = json.RawMessage(d.Raw(a))
	}
	return nil
}

// ErrArgumentsString is returned (wrapped in a *RenderError) for a call's
// function.arguments sent as a JSON string that does not hold the JSON
// text of an object.
var ErrArgumentsString = errors.New("function.arguments: a JSON string that does not hold a JSON object")

// DecodeArguments returns a call's arguments in the form Render takes: raw
// itself unless it is a JSON string, and for a string (OpenAI's wire form)
// the JSON text it holds, which must be an object. A string holding
// anything else, or text that is not JSON, is an error that says what it
// holds, wrapping ErrArgumentsString; its Path is empty, the caller knowing
// where the arguments stand.
//
// It is the one rule for arguments sent as a string: ParseRequest and the
// UnmarshalJSON methods apply it to every call they decode, and the gateway
// to the calls it builds. Render itself refuses a string, as the chat
// template does (page: Tool calls): decode first.
func DecodeArguments(raw json.RawMessage) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '"' {
		return raw, nil
	}
	d, err := pyjson.ParseBytes(trimmed)
	if err != nil {
		return nil, &RenderError{Msg: "not valid JSON (" + err.Error() + ")", kind: ErrArgumentsString}
	}
	var f FunctionCall
	if err := decodeArgumentsText(d.Str(0), &f); err != nil {
		return nil, err
	}
	return f.Arguments, nil
}

// decodeArgumentsText sets f's arguments to the object whose JSON text s
// holds (surrounding whitespace dropped).
func decodeArgumentsText(s string, f *FunctionCall) error {
	text := bytes.TrimSpace([]byte(s))
	d := docPool.Get().(*pyjson.Doc) // only to check the text: nothing of it is kept
	defer releaseDoc(d)
	if err := d.Parse(text); err != nil {
		what := "the string is empty"
		var se *pyjson.SyntaxError
		if errors.As(err, &se) && len(text) > 0 {
			what = "at byte " + strconv.Itoa(se.Offset) + " of the string: " + se.Msg
		}
		return &RenderError{kind: ErrArgumentsString,
			Msg: "not valid JSON (" + what + "); a string must hold the JSON text of an object, such as {\"city\": \"Paris\"}"}
	}
	if d.Kind(0) != pyjson.Object {
		return &RenderError{kind: ErrArgumentsString,
			Msg: "must be a JSON object, got " + kindName(d.Kind(0)) + " as JSON text in a string; a string must hold the JSON text of an object"}
	}
	f.Arguments = json.RawMessage(text)
	return nil
}

// kindName names a JSON kind with its article, in the words of the
// OpenAI-shaped errors ("a list", "an object", "null").
func kindName(k pyjson.Kind) string {
	switch k {
	case pyjson.Object:
		return "an object"
	case pyjson.Array:
		return "a list"
	case pyjson.String:
		return "a string"
	case pyjson.Number:
		return "a number"
	case pyjson.True, pyjson.False:
		return "a boolean"
	}
	return "null"
}

// decodeTool reads the tool at node i into t; with unknown not nil, the
// keys of the tool and of its function outside the wire shape are noted
// there, as those of tools[pos].
func decodeTool(d *pyjson.Doc, i int, t *Tool, unknown *[]unknownKey, pos int) error {
	if d.Kind(i) != pyjson.Object {
		return errAt("", "must be a JSON object, got "+d.Kind(i).String())
	}
	*t = Tool{}
	// One pass over each object finds its members (the last of a
	// repeated key wins, as with Lookup); they are then read in a fixed
	// order, so that the first error is the same whatever the key order.
	var buf [16]byte
	ty, f := -1, -1
	d.Members(i, func(k, v int) bool {
		switch string(d.KeyText(k, buf[:0])) {
		case "type":
			ty = v
		case "function":
			f = v
		default:
			noteToolKey(d, k, v, unknown, pos, "", toolKeys)
		}
		return true
	})
	var err error
	if ty >= 0 {
		if t.Type, err = optString(d, ty, "type"); err != nil {
			return err
		}
	}
	if f < 0 || d.Kind(f) != pyjson.Object {
		return errAt("function", "must be an object with name, description and parameters")
	}
	n, desc, p := -1, -1, -1
	d.Members(f, func(k, v int) bool {
		switch string(d.KeyText(k, buf[:0])) {
		case "name":
			n = v
		case "description":
			desc = v
		case "parameters":
			p = v
		case "strict", "return":
			// OpenAI's flag for constrained arguments, and the return type
			// Transformers' get_json_schema writes: the prompt is the same.
		default:
			noteToolKey(d, k, v, unknown, pos, ".function", functionKeys)
		}
		return true
	})
	if n >= 0 {
		if t.Function.Name, err = optString(d, n, "function.name"); err != nil {
			return err
		}
	}
	if desc >= 0 {
		if t.Function.Description, err = optString(d, desc, "function.description"); err != nil {
			return err
		}
	}
	if p >= 0 && d.Kind(p) != pyjson.Null {
		t.Function.Parameters = json.RawMessage(d.Raw(p))
	}
	return nil
}

// noteToolKey notes key k, whose value is node v, of the object at
// tools[pos] and then sub, in unknown (when not nil), unless the value
// holds nothing (null, [] or {}: the absence it stands for). The path is
// made only then: most tools have none.
func noteToolKey(d *pyjson.Doc, k, v int, unknown *[]unknownKey, pos int, sub string, known []string) {
	if unknown != nil && !d.HoldsNothing(v) {
		*unknown = append(*unknown, newUnknownKey(toolPath(pos)+sub, string(d.KeyText(k, nil)), known))
	}
}
