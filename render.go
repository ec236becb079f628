package harmony

import (
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// DefaultModelIdentity is the first line of the system message unless
// Options.ModelIdentity replaces it.
const DefaultModelIdentity = "You are Beam, an AI assistant trained by Reflection."

const validChannels = "# Valid channels: analysis, final. Channel must be included for every message."

// Options are the chat template's arguments (page: Template arguments).
// The zero value renders like the template's defaults, except that
// AddGenerationPrompt is false as a Go zero value; Request sets it to true.
type Options struct {
	// Tools are declared as TypeScript: built-in ones in the system
	// message, the others in the developer message.
	Tools []Tool
	// ReasoningEffort is the effort line's value; unset means 512.
	ReasoningEffort ReasoningEffort
	// ModelIdentity replaces the system message's first line when not empty.
	ModelIdentity string
	// BuiltinTools names tools from Tools (only search and browse) to
	// declare in the system message.
	BuiltinTools []string
	// RequireReasoning is the template's allow_missing_thinking=false:
	// with AddGenerationPrompt, an assistant turn without reasoning is an
	// error instead of an empty analysis message. Set it when serving.
	RequireReasoning bool
	// AddGenerationPrompt ends the prompt with an open assistant header.
	AddGenerationPrompt bool
	// Strict makes a system or developer message after a message of
	// another role an error; by default it is dropped, as the template does.
	// With PlaceLateInstructions no such message is dropped, and Strict has
	// nothing to refuse there. A Request's render methods also refuse, in
	// strict mode, a key ParseRequest did not read (a misspelt option).
	Strict bool
	// PlaceLateInstructions renders the system and developer messages that
	// come after a message of another role (late instructions) instead of
	// dropping them, by the one rule the gateway, render, lint and dataset
	// share (docs/gap-decisions.md 110): one that comes before the first
	// assistant turn is joined to the instructions, in order; one that
	// comes after an assistant turn is written in its place as a user
	// message, LateInstructionsHeading followed by its content. The
	// output equals the template's for PlaceInstructions(messages), so
	// the checkpoint's template renders the same prompt from that list.
	PlaceLateInstructions bool
}

// Span is a half-open range [Start, End) of a prompt.
type Span struct {
	Start, End int
}

// Prompt is a rendered prompt with the spans of the assistant's output:
// each assistant turn from its first <|channel|> through its <|return|> or
// <|call|> (page: Training masks).
type Prompt struct {
	Text string
	// AssistantSpans are byte offsets into Text.
	AssistantSpans []Span
}

// CharSpans returns AssistantSpans as offsets in characters (Unicode code
// points), the convention of Hugging Face's assistant masks and Python
// string indexing.
func (p *Prompt) CharSpans() []Span {
	out := make([]Span, len(p.AssistantSpans))
	byteAt, charAt := 0, 0
	advance := func(to int) int {
		charAt += utf8.RuneCountInString(p.Text[byteAt:to])
		byteAt = to
		return charAt
	}
	for i, s := range p.AssistantSpans {
		out[i] = Span{advance(s.Start), advance(s.End)}
	}
	return out
}

// Render renders messages into Beam's prompt as the checkpoint's
// chat_template.jinja does.
func Render(messages []Message, opts *Options) (string, error) {
	r := renderer{opts: opts, s: getScratch()}
	defer r.release()
	if err := r.render(messages); err != nil {
		return "", err
	}
	return string(r.buf), nil
}

// RenderPrompt renders like Render and also returns the assistant spans.
func RenderPrompt(messages []Message, opts *Options) (*Prompt, error) {
	r := renderer{opts: opts, s: getScratch(), wantSpans: true}
	defer r.release()
	if err := r.render(messages); err != nil {
		return nil, err
	}
	return &Prompt{Text: string(r.buf), AssistantSpans: r.spans}, nil
}

// scratch is the memory a render reuses from one render to the next: the
// output buffer (the prompt string is its only copy), the JSON tapes and
// the TypeScript writer's stacks. The renderer itself lives on the stack,
// so that appending to its buffer costs no GC write barrier.
type scratch struct {
	out     []byte
	doc     pyjson.Doc            // the current call's arguments
	keys    [maxDirectKeys][2]int // argumentsDirect's keys, not zeroed per call
	schemas []pyjson.Doc          // tools' parameters parsed here (not decoded)
	views   []tape                // each tool's parameters: decoded or in schemas
	members []member
	ts      tsCache
	refs    schema.Refs
	path    []pathStep
	comment []byte
	builtin []bool
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooledBuffer bounds the output buffer pooled scratch keeps, so that
// one huge conversation does not pin its memory.
const maxPooledBuffer = 1 << 20

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// release returns the scratch space to the pool, keeping what grew.
func (r *renderer) release() {
	s := r.s
	if cap(r.buf) <= maxPooledBuffer {
		s.out = r.buf[:0]
	} else {
		s.out = nil
	}
	if cap(s.ts.arena) > maxPooledBuffer || len(s.ts.union)+s.ts.ptr.Size()+len(s.ts.expanded) > maxPooledBuffer/64 {
		s.ts = tsCache{} // a huge schema: don't pin its memory
	}
	s.doc.Src = nil
	for i := range s.schemas {
		s.schemas[i].Src = nil
	}
	clear(s.views)
	r.s = nil
	scratchPool.Put(s)
}

// Render renders the request's messages with its options.
func (r *Request) Render() (string, error) {
	if err := r.checkUnknownKeys(); err != nil {
		return "", err
	}
	return Render(r.Messages, &r.Options)
}

// RenderPrompt renders the request with its assistant spans.
func (r *Request) RenderPrompt() (*Prompt, error) {
	if err := r.checkUnknownKeys(); err != nil {
		return nil, err
	}
	return RenderPrompt(r.Messages, &r.Options)
}

// renderer holds the state of one rendering: the output, the spans, and
// scratch space reused across tools and arguments so that a render
// allocates little beyond its output.
type renderer struct {
	opts      *Options
	s         *scratch
	buf       []byte
	wantSpans bool
	spans     []Span
	// wantMarks asks for marks: the byte offset of every marker the
	// renderer itself writes (RenderTokens), as opposed to marker text
	// that content carries.
	wantMarks bool
	marks     []int
	builtin   []bool // per tool: declared in the system message
	// What declaring the tools has cost so far (tsWriter.spent, .work).
	declSpent, refWork int
	// callIndex maps the IDs of the calls in messages[:indexedTo] to the
	// name of the latest call with that ID (see callName).
	callIndex map[string]string
	indexedTo int
	// firstAssistant is the index of the first assistant message, or the
	// number of messages when there is none (PlaceLateInstructions).
	firstAssistant int
}

func (r *renderer) render(messages []Message) error {
	if r.opts == nil {
		r.opts = &Options{}
	}
	effort, err := r.opts.ReasoningEffort.Value()
	if err != nil {
		return err
	}
	if err := r.checkMessages(messages); err != nil {
		return err
	}
	r.firstAssistant = firstAssistant(messages)
	if err := r.classifyTools(); err != nil {
		return err
	}
	r.buf = r.s.out[:0]
	// A pooled buffer is as large as the largest prompt it held (up to
	// maxPooledBuffer): appends grow it if this one is larger. Only a new
	// one is sized, so that a first render allocates it once.
	if cap(r.buf) == 0 {
		r.buf = make([]byte, 0, estimateSize(messages, r.opts))
	}
	if err := r.systemMessage(effort); err != nil {
		return err
	}
	first, err := r.developerMessage(messages)
	if err != nil {
		return err
	}
	// The messages are written to a local slice, stored back once: a
	// store to r.buf per message would cost a GC write barrier each.
	buf := r.buf
	for i := first; i < len(messages); i++ {
		if buf, err = r.message(buf, messages, i); err != nil {
			r.buf = buf
			return err
		}
	}
	if r.opts.AddGenerationPrompt {
		buf = r.fixed(buf, "<|start|>assistant")
	}
	r.buf = buf
	return nil
}

// estimateSize guesses the prompt's length so that the output buffer is
// allocated once for typical conversations.
func estimateSize(messages []Message, opts *Options) int {
	n := 512
	for i := range messages {
		m := &messages[i]
		n += len(m.Content) + len(m.Reasoning) + 96
		for j := range m.ToolCalls {
			n += len(m.ToolCalls[j].Function.Arguments)*2 + 96
		}
	}
	for i := range opts.Tools {
		n += len(opts.Tools[i].Function.Description) + len(opts.Tools[i].Function.Parameters) + 64
	}
	return n
}

// checkMessages validates roles and runs the missing-reasoning check
// (page: Reasoning across turns), before anything is written.
func (r *renderer) checkMessages(messages []Message) error {
	seenOther := false
	for i := range messages {
		m := &messages[i]
		switch m.Role {
		case RoleSystem, RoleDeveloper:
			if seenOther && r.opts.Strict && !r.opts.PlaceLateInstructions {
				return errAt(messagePath(i)+".role", "a "+m.Role+
					" message after a message of another role is not rendered; put system and developer messages at the start (strict mode)")
			}
		case RoleUser, RoleTool:
			seenOther = true
		case RoleAssistant:
			seenOther = true
			if r.opts.RequireReasoning && r.opts.AddGenerationPrompt && m.Reasoning == "" {
				return errMissingReasoning(i)
			}
		case "":
			return errAt(messagePath(i)+".role", "missing; use system, developer, user, assistant or tool")
		default:
			return errAt(messagePath(i)+".role", "unknown role "+quote(m.Role)+"; use system, developer, user, assistant or tool")
		}
	}
	return nil
}

// systemMessage writes the identity, the effort line, the built-in tools and
// the channels line (DECISIONS.md, Messages and roles).
func (r *renderer) systemMessage(effort string) error {
	identity := r.opts.ModelIdentity
	if identity == "" {
		identity = DefaultModelIdentity
	} else if mk := FindMarker(identity); mk != "" {
		return errAt("model_identity", "must not contain the marker "+mk)
	}
	r.buf = r.fixed(r.buf, "<|start|>system<|message|>")
	r.buf = append(r.buf, identity...)
	r.buf = append(r.buf, "\n\nReasoning effort: "...)
	r.buf = append(r.buf, effort...)
	if err := r.toolSection(true, "\n\n"); err != nil {
		return err
	}
	r.buf = append(r.buf, "\n\n"...)
	r.buf = append(r.buf, validChannels...)
	r.buf = r.fixed(r.buf, "<|end|>")
	return nil
}

// developerMessage writes the instructions (the leading system and
// developer messages, joined) and the non-built-in tools. It returns the
// index of the first message after the instructions.
func (r *renderer) developerMessage(messages []Message) (int, error) {
	first := 0
	for first < len(messages) && isInstruction(&messages[first]) {
		first++
	}
	start := len(r.buf)
	r.buf = r.fixed(r.buf, "<|start|>developer<|message|># Instructions\n\n")
	body := len(r.buf)
	for i := 0; i < first; i++ {
		if i > 0 {
			r.buf = append(r.buf, "\n\n"...)
		}
		r.buf = append(r.buf, messages[i].Content...)
	}
	if r.opts.PlaceLateInstructions {
		// Late instructions before the first assistant turn join the
		// leading ones, as if they had been sent among them.
		joined := first
		for i := first; i < r.firstAssistant; i++ {
			if !isInstruction(&messages[i]) {
				continue
			}
			if joined > 0 {
				r.buf = append(r.buf, "\n\n"...)
			}
			r.buf = append(r.buf, messages[i].Content...)
			joined++
		}
	}
	if len(r.buf) == body {
		// No instruction text: no Instructions section.
		r.dropMarks(start)
		r.buf = r.fixed(r.buf[:start], "<|start|>developer<|message|>")
	}
	sep := "\n\n"
	if len(r.buf) == start+len("<|start|>developer<|message|>") {
		sep = ""
	}
	if err := r.toolSection(false, sep); err != nil {
		return 0, err
	}
	if len(r.buf) == start+len("<|start|>developer<|message|>") {
		r.dropMarks(start)
		r.buf = r.buf[:start] // neither instructions nor tools
		return first, nil
	}
	r.buf = r.fixed(r.buf, "<|end|>")
	return first, nil
}

func isInstruction(m *Message) bool { return m.Role == RoleSystem || m.Role == RoleDeveloper }

// message writes messages[i], which comes after the instructions.
func (r *renderer) message(buf []byte, messages []Message, i int) ([]byte, error) {
	m := &messages[i]
	switch m.Role {
	case RoleSystem, RoleDeveloper:
		// Not rendered (page: Instructions); Strict rejected it already.
		// With PlaceLateInstructions, one before the first assistant turn
		// is among the instructions, one after it a user message here.
		if !r.opts.PlaceLateInstructions || i < r.firstAssistant {
			return buf, nil
		}
		buf = r.fixedPadded(buf, &userHeader)
		buf = append(buf, LateInstructionsHeading...)
		buf = append(buf, m.Content...)
		return r.fixed(buf, "<|end|>"), nil
	case RoleUser:
		buf = r.fixedPadded(buf, &userHeader)
		buf = append(buf, m.Content...)
		return r.fixed(buf, "<|end|>"), nil
	case RoleAssistant:
		return r.assistant(buf, m, i)
	default: // RoleTool
		return r.toolResult(buf, messages, i)
	}
}

// The writing functions below take the output and return it extended, so
// that the hot appends work on a local slice (a field of the renderer
// would cost a GC write barrier per append).

// assistant writes one assistant turn: the analysis message, then either
// the final answer or the tool calls (page: Assistant turns).
func (r *renderer) assistant(buf []byte, m *Message, i int) ([]byte, error) {
	if err := checkReasoning(m.Reasoning, "reasoning_content"); err != nil {
		return buf, prefixPath(messagePath(i), err)
	}
	spanStart := len(buf) + len("<|start|>assistant")
	buf = r.fixedPadded(buf, &analysisHeader)
	buf = append(buf, m.Reasoning...)
	// Each message after the analysis writes the <|end|> before it.
	if len(m.ToolCalls) == 0 {
		buf = r.fixedPadded(buf, &finalHeader)
		buf = append(buf, m.Content...)
		buf = r.fixed(buf, "<|return|>")
	} else {
		if m.Content != "" {
			return buf, errAt(messagePath(i)+".content",
				"must be empty in an assistant turn with tool_calls; Beam writes no commentary before calls")
		}
		var err error
		for j := range m.ToolCalls {
			if buf, err = r.toolCall(buf, &m.ToolCalls[j], i, j, j == len(m.ToolCalls)-1); err != nil {
				return buf, err
			}
		}
	}
	if r.wantSpans {
		r.spans = append(r.spans, Span{spanStart, len(buf)})
	}
	return buf, nil
}

// toolCall writes one call message, after the <|end|> of the message
// before it; the last of a turn ends with <|call|>, the others with the
// <|end|> the next call writes (page: Parallel calls).
func (r *renderer) toolCall(buf []byte, c *ToolCall, i, j int, last bool) ([]byte, error) {
	if c.Type != "" && c.Type != "function" {
		return buf, errAt(callPath(i, j)+".type", "unsupported call type "+quote(c.Type)+"; only function calls exist")
	}
	if err := checkToolName(c.Function.Name); err != nil {
		return buf, errAt(callPath(i, j)+".function.name", err.Error())
	}
	buf = r.fixedPadded(buf, &callHeaderStart)
	buf = append(buf, c.Function.Name...)
	buf = r.fixedPadded(buf, &callHeaderRest)
	buf, err := r.arguments(buf, &c.Function, i, j)
	if err != nil {
		return buf, err
	}
	if last {
		buf = r.fixed(buf, "<|call|>")
	}
	return buf, nil
}

func callPath(i, j int) string {
	return messagePath(i) + ".tool_calls[" + strconv.Itoa(j) + "]"
}

// toolResult writes a tool message, addressed from the tool to the assistant.
func (r *renderer) toolResult(buf []byte, messages []Message, i int) ([]byte, error) {
	m := &messages[i]
	speaker := m.Name
	if speaker == "" {
		speaker = r.callName(messages, i, m.ToolCallID)
	} else if err := checkToolName(speaker); err != nil {
		return buf, errAt(messagePath(i)+".name", err.Error())
	}
	if speaker == "" {
		return buf, errAt(messagePath(i), errToolSpeakerText)
	}
	buf = r.fixed(buf, "<|start|>")
	buf = append(buf, speaker...)
	buf = r.fixedPadded(buf, &resultHeaderRest)
	buf = append(buf, m.Content...)
	buf = r.fixed(buf, "<|end|>")
	return buf, nil
}

// callName returns the function name of the latest call before messages[i]
// whose ID is id, or "". The search walks back from i over the nearest
// messages and calls, so a result right after its calls costs only the
// distance to them; a call further back is found through an index of the
// earlier calls, built as rendering moves on, so that many results
// answering an early call, or a turn of many parallel calls, cost linear
// time, not quadratic.
func (r *renderer) callName(messages []Message, i int, id string) string {
	if id == "" || i == 0 {
		return ""
	}
	steps := 0
	for k := i - 1; k >= 0 && steps <= nearCalls; k-- {
		steps++
		calls := messages[k].ToolCalls
		for j := len(calls) - 1; j >= 0 && steps <= nearCalls; j-- {
			// IDs of one length mostly differ in their last byte: it
			// spares a call to compare the rest.
			if c := &calls[j]; len(c.ID) == len(id) && c.ID[len(id)-1] == id[len(id)-1] && c.ID == id {
				return c.Function.Name
			}
			steps++
		}
	}
	if steps <= nearCalls {
		return "" // every earlier call was looked at
	}
	if r.callIndex == nil {
		r.callIndex = make(map[string]string)
	}
	for ; r.indexedTo < i; r.indexedTo++ {
		for _, c := range messages[r.indexedTo].ToolCalls {
			r.callIndex[c.ID] = c.Function.Name
		}
	}
	return r.callIndex[id]
}

// nearCalls is how many messages and calls callName looks at before it
// uses the index.
const nearCalls = 64

func quote(s string) string { return string(pyjson.AppendQuoted(nil, s)) }

// The renderer's marks: where each marker it writes itself lands, for
// RenderTokens (tokens.go), which turns them into marker ids.

// fixed appends s, text of the format itself (markers and the header words
// around them), and when token output is wanted records where each marker
// of s lands. Content never goes through fixed.
func (r *renderer) fixed(buf []byte, s string) []byte {
	if r.wantMarks {
		r.recordMarks(len(buf), s)
	}
	return append(buf, s...)
}

// paddedText is a text of the format padded to 64 bytes, so that
// fixedPadded copies it as one array, without a call to memmove.
type paddedText struct {
	b [64]byte
	s string
}

func padded(s string) paddedText {
	t := paddedText{s: s}
	if copy(t.b[:], s) != len(s) {
		panic("harmony: padded text longer than 64 bytes: " + s)
	}
	return t
}

// The longer texts of the message loop's headers.
var (
	userHeader       = padded("<|start|>user<|message|>")
	analysisHeader   = padded("<|start|>assistant<|channel|>analysis<|message|>")
	finalHeader      = padded("<|end|><|start|>assistant<|channel|>final<|message|>")
	callHeaderStart  = padded("<|end|>" + MarkerStart + RoleAssistant + " " + recipientPrefix)
	callHeaderRest   = padded(callHeaderEnd)
	resultHeaderRest = padded(resultHeaderEnd)
)

// fixedPadded is fixed for a padded text: when buf has room for the whole
// array, it is copied at once and buf cut to the text (the bytes past it
// land beyond len(buf), where the next append overwrites them).
func (r *renderer) fixedPadded(buf []byte, t *paddedText) []byte {
	if r.wantMarks {
		r.recordMarks(len(buf), t.s)
	}
	n := len(buf)
	if cap(buf)-n < len(t.b) {
		return append(buf, t.s...)
	}
	*(*[len(t.b)]byte)(buf[n : n+len(t.b)]) = t.b
	return buf[:n+len(t.s)]
}

// recordMarks records the offset of every marker in s, which is about to
// be written at offset at.
func (r *renderer) recordMarks(at int, s string) {
	for i := 0; i+minMarkerLen <= len(s); i++ {
		if mk := markerAt(s[i:]); mk != "" {
			r.marks = append(r.marks, at+i)
			i += len(mk) - 1
		}
	}
}

// dropMarks forgets the marks at or after offset at, whose text the
// renderer has just cut from its output.
func (r *renderer) dropMarks(at int) {
	n := len(r.marks)
	for n > 0 && r.marks[n-1] >= at {
		n--
	}
	r.marks = r.marks[:n]
}
