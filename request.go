package harmony

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// Request is a conversation with its template arguments, in the JSON shape
// the command line reads:
//
//	{"messages": [...], "tools": [...], "add_generation_prompt": true,
//	 "reasoning_effort": "high", "model_identity": "...",
//	 "builtin_tools": ["search"], "allow_missing_thinking": false}
//
// Every key but messages is optional. add_generation_prompt and
// allow_missing_thinking default to true, as in the template. Two shapes of
// OpenAI's wire form and of stored datasets are decoded here, not by the
// renderer (DECISIONS.md, Training data): a call's function.arguments given
// as a JSON string holding an object (DecodeArguments), and tools given as
// a JSON string holding the list (a blank string is no tools).
//
// Keys outside the wire shape, of the request, of each message, text part,
// tool call and tool, are kept as unknown keys: Lint warns about each one, suggesting the key it was
// probably meant to be, and with Strict the render methods refuse them.
type Request struct {
	Messages []Message
	Options

	unknown []unknownKey // keys ParseRequest did not read, in order
}

// ParseRequest decodes a request. Every error is a *RenderError whose Path
// names the offending value, such as "messages[2].content[0].type", or
// "request" for the document as a whole (invalid JSON or UTF-8).
//
// data is retained: the Arguments and Parameters of the result are
// sub-slices of it. The result is plain data: Render reads Arguments and
// Parameters as they are when it runs, so they (or data) may be edited in
// place or replaced.
func ParseRequest(data []byte) (*Request, error) {
	d := docPool.Get().(*pyjson.Doc)
	defer releaseDoc(d)
	// Parse validates UTF-8 itself; the input is checked again only to
	// word that error for a whole request.
	if err := d.Parse(data); err != nil {
		if !utf8.Valid(data) {
			return nil, &RenderError{Path: "request", Msg: "not valid UTF-8", kind: syntaxError(err)}
		}
		return nil, errJSON("request", err)
	}
	// One copy of the text lets every unescaped string share it.
	d.Text = string(data)
	r := new(Request)
	if err := r.decode(d); err != nil {
		return nil, err
	}
	return r, nil
}

// ParseMessages decodes a JSON list of messages, each as ParseRequest
// decodes the messages of a request. Every error is a *RenderError whose
// Path names the offending value, such as "messages[2].content[0].type",
// or "messages" for the list as a whole (invalid JSON or UTF-8, not a
// list). Keys a message has that the format does not read are left out
// (Lint reads them from a Request). data is retained, as by ParseRequest.
//
// The list is read one message at a time, so that its parse holds one
// message, not the whole list: a list of a million numbers fails at the
// first without a tape of them all.
func ParseMessages(data []byte) ([]Message, error) {
	return parseMessages(data, nil)
}

// ParseMessagesUnread is ParseMessages that also calls unread, in order,
// with the path of each member the format does not read and whose value
// holds something: a key of a message, of a text part, of a tool call or
// of its function, such as "messages[2].audio" or
// "messages[0].content[1].cache_control". A server that renders requests
// can so report what a client sent and the prompt left out. A value that
// holds nothing (null, [] or {}) is left out, as the absence it stands
// for: OpenAI's clients send "refusal": null and "annotations": [] back.
// When unread returns false it is called no more, and the rest of the
// list is decoded without naming its members: a server that lists the
// first few stops there. unread is not called for a list that fails to
// decode past the message that fails.
func ParseMessagesUnread(data []byte, unread func(path string) bool) ([]Message, error) {
	return parseMessages(data, &keyNotes{unread: unread})
}

func parseMessages(data []byte, notes *keyNotes) ([]Message, error) {
	d := docPool.Get().(*pyjson.Doc)
	defer releaseDoc(d)
	if messages, err, ok := decodeEach(d, data, notes); ok {
		return messages, err
	}
	// Not a well-formed list: the errors ParseRequest gives.
	if err := d.Parse(data); err != nil {
		if !utf8.Valid(data) {
			return nil, &RenderError{Path: "messages", Msg: "not valid UTF-8", kind: syntaxError(err)}
		}
		return nil, errJSON("messages", err)
	}
	if d.Kind(0) != pyjson.Array {
		return nil, errAt("messages", "must be a list of messages, got "+kindName(d.Kind(0)))
	}
	d.Text = string(data)
	return decodeMessageList(d, 0, notes)
}

// decodeEach is ParseMessages for a well-formed list: each element is
// parsed on its own onto d's tape and decoded there. The first message
// that does not decode is the error, once the rest of the list is seen to
// be well formed (a syntax error anywhere wins, as in a parse of the
// whole). ok is false when data is not a well-formed list of at most
// pyjson.MaxDepth levels.
func decodeEach(d *pyjson.Doc, data []byte, notes *keyNotes) (messages []Message, err error, ok bool) {
	if !utf8.Valid(data) { // ParseValue reads valid UTF-8 only
		return nil, nil, false
	}
	pos := pyjson.SkipSpace(data, 0)
	if pos == len(data) || data[pos] != '[' {
		return nil, nil, false
	}
	if pos = pyjson.SkipSpace(data, pos+1); pos < len(data) && data[pos] == ']' {
		return []Message{}, nil, pyjson.SkipSpace(data, pos+1) == len(data)
	}
	text := string(data) // one copy, shared by every unescaped string
	var calls []ToolCall // room for the messages' tool calls
	messages = make([]Message, 0, leadingObjects(data, pos))
	for k := 0; pos < len(data); k++ {
		size, perr := d.ParseValue(data[pos:])
		if perr != nil || len(d.Nodes) >= pyjson.MaxDepth-1 && tapeDepth(d) >= pyjson.MaxDepth {
			return nil, nil, false // in a list, one level less than a document
		}
		if err == nil {
			d.Text = text[pos:]
			messages = append(messages, Message{})
			if e := decodeMessage(d, 0, &messages[k], &calls, notes, k); e != nil {
				messages, err = nil, prefixPath(messagePath(k), e)
			}
		}
		if pos = pyjson.SkipSpace(data, pos+size); pos == len(data) {
			break
		}
		switch data[pos] {
		case ']':
			return messages, err, pyjson.SkipSpace(data, pos+1) == len(data)
		case ',':
			pos = pyjson.SkipSpace(data, pos+1)
		default:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// leadingObjects counts the objects that the list whose first element is
// at data[pos] starts with, up to its end or its first element of another
// kind: the room decodeEach makes for its messages, so that they are
// decoded in place rather than copied as the slice grows. It skips
// strings with pyjson.ScanString and reads no more of the list than it
// must; on malformed text the count is only a guess, and the decoding
// reports the error.
func leadingObjects(data []byte, pos int) int {
	n, depth := 0, 0
	for i := pos; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			if depth == 0 {
				return n // a string element
			}
			for i = pyjson.ScanString(data, i+1); i < len(data) && data[i] != '"'; i = pyjson.ScanString(data, i+1) {
				if data[i] == '\\' {
					i++
				}
			}
		case '{':
			if depth == 0 {
				n++
			}
			depth++
		case '[':
			if depth == 0 {
				return n // a list element
			}
			depth++
		case '}', ']':
			if depth == 0 {
				return n // the list's end
			}
			depth--
		case ' ', '\t', '\n', '\r', ',', ':':
		default:
			if depth == 0 {
				return n // a number, true, false or null
			}
		}
	}
	return n
}

// tapeDepth returns the deepest nesting of arrays and objects on d's tape.
func tapeDepth(d *pyjson.Doc) int {
	var ends []int32 // where each open container ends
	deepest := 0
	for i := range d.Nodes {
		for len(ends) > 0 && int32(i) >= ends[len(ends)-1] {
			ends = ends[:len(ends)-1]
		}
		if k := d.Nodes[i].Kind; k == pyjson.Array || k == pyjson.Object {
			ends = append(ends, d.Nodes[i].Next)
			deepest = max(deepest, len(ends))
		}
	}
	return deepest
}

// decodeMessageList decodes the list of messages at node list of d,
// noting the keys it does not read in notes when that is not nil.
func decodeMessageList(d *pyjson.Doc, list int, notes *keyNotes) ([]Message, error) {
	// Decoded in place, into the new slice's zero values: a copy would
	// cost a barrier per pointer.
	messages := make([]Message, d.Nodes[list].Len)
	var err error
	var calls []ToolCall // room for the messages' tool calls
	d.Elements(list, func(e, pos int) bool {
		if err = decodeMessage(d, e, &messages[pos], &calls, notes, pos); err != nil {
			err = prefixPath(messagePath(pos), err)
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return messages, nil
}

// docPool keeps the growing tapes of ParseRequest's and the decoders'
// parses.
var docPool = sync.Pool{New: func() any { return new(pyjson.Doc) }}

// releaseDoc returns d to docPool without the text it read.
func releaseDoc(d *pyjson.Doc) {
	d.Src, d.Text = nil, ""
	docPool.Put(d)
}

// UnmarshalJSON decodes a request; see ParseRequest.
func (r *Request) UnmarshalJSON(data []byte) error {
	p, err := ParseRequest(append([]byte(nil), data...))
	if err != nil {
		return err
	}
	*r = *p
	return nil
}

func (r *Request) decode(d *pyjson.Doc) error {
	if d.Kind(0) != pyjson.Object {
		return errAt("request", `must be a JSON object with "messages"`)
	}
	*r = Request{Options: Options{AddGenerationPrompt: true}}
	msgs := d.Lookup(0, "messages")
	if msgs < 0 || d.Kind(msgs) != pyjson.Array {
		return errAt("messages", "required, a list of messages")
	}
	messages, err := decodeMessageList(d, msgs, &keyNotes{unknown: &r.unknown})
	if err != nil {
		return err
	}
	r.Messages = messages
	d.Members(0, func(k, v int) bool {
		err = r.decodeOption(d, k, v)
		return err == nil
	})
	return err
}

func (r *Request) decodeOption(d *pyjson.Doc, k, v int) error {
	var buf [32]byte
	switch string(d.KeyText(k, buf[:0])) {
	case "tools":
		return r.decodeTools(d, v)
	case "add_generation_prompt":
		return optBool(d, v, "add_generation_prompt", &r.AddGenerationPrompt)
	case "allow_missing_thinking":
		allow := true
		err := optBool(d, v, "allow_missing_thinking", &allow)
		r.RequireReasoning = !allow
		return err
	case "reasoning_effort":
		r.ReasoningEffort = effortFromJSON(d, v)
	case "model_identity":
		s, err := optString(d, v, "model_identity")
		r.ModelIdentity = s
		return err
	case "builtin_tools":
		return r.decodeBuiltins(d, v)
	case "messages":
	default:
		r.unknown = append(r.unknown, newUnknownKey("", string(d.KeyText(k, nil)), requestKeys))
	}
	return nil
}

func (r *Request) decodeTools(d *pyjson.Doc, v int) error {
	switch d.Kind(v) {
	case pyjson.Null:
		return nil
	case pyjson.Array:
	case pyjson.String:
		return r.decodeToolsText(d.Str(v))
	default:
		return errAt("tools", "must be a list of tools, got "+d.Kind(v).String())
	}
	r.Tools = make([]Tool, 0, d.Nodes[v].Len)
	var err error
	d.Elements(v, func(e, pos int) bool {
		var t Tool
		if err = decodeTool(d, e, &t, &r.unknown, pos); err != nil {
			err = prefixPath(toolPath(pos), err)
			return false
		}
		r.Tools = append(r.Tools, t)
		return true
	})
	return err
}

// decodeToolsText reads tools sent as a JSON string holding the list, as
// datasets often store them (a Parquet string column holds the same). A
// blank string is no tools, like null.
func (r *Request) decodeToolsText(s string) error {
	text := bytes.TrimSpace([]byte(s))
	if len(text) == 0 {
		return nil
	}
	d, err := pyjson.ParseBytes(text)
	if err != nil {
		var se *pyjson.SyntaxError
		what := err.Error()
		if errors.As(err, &se) {
			what = "at byte " + strconv.Itoa(se.Offset) + " of the string: " + se.Msg
		}
		return errAt("tools", "not valid JSON ("+what+"); a string must hold the JSON text of a list of tools")
	}
	if k := d.Kind(0); k != pyjson.Array && k != pyjson.Null {
		return errAt("tools", "must be a list of tools, got "+kindName(k)+" as JSON text in a string")
	}
	return r.decodeTools(d, 0)
}

func (r *Request) decodeBuiltins(d *pyjson.Doc, v int) error {
	switch d.Kind(v) {
	case pyjson.Null:
		return nil
	case pyjson.Array:
	default:
		return errAt("builtin_tools", "must be a list of tool names, got "+d.Kind(v).String())
	}
	var err error
	d.Elements(v, func(e, pos int) bool {
		if d.Kind(e) != pyjson.String {
			err = errAt(fmt.Sprintf("builtin_tools[%d]", pos), "must be a tool name, got "+d.Kind(e).String())
			return false
		}
		r.BuiltinTools = append(r.BuiltinTools, d.Str(e))
		return true
	})
	return err
}

func optBool(d *pyjson.Doc, v int, field string, dst *bool) error {
	switch d.Kind(v) {
	case pyjson.True:
		*dst = true
	case pyjson.False:
		*dst = false
	case pyjson.Null:
	default:
		return errAt(field, "must be true or false, got "+d.Kind(v).String())
	}
	return nil
}
