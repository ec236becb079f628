package harmony

// EventType is the kind of a streaming Event.
type EventType uint8

// The kinds of events (DECISIONS.md, Streaming events).
const (
	// EventRegionOpen starts a region: a reasoning or content message, or
	// a tool call.
	EventRegionOpen EventType = iota + 1
	// EventRegionChunk carries more text of the open region.
	EventRegionChunk
	// EventRegionClose ends the open region with its finished value.
	EventRegionClose
)

// String returns the event type as the page spells it: "region_open",
// "region_chunk" or "region_close".
func (t EventType) String() string {
	switch t {
	case EventRegionOpen:
		return "region_open"
	case EventRegionChunk:
		return "region_chunk"
	case EventRegionClose:
		return "region_close"
	}
	return "invalid"
}

// Event is one step of a streamed parse.
type Event struct {
	Type EventType
	// Field is "thinking", "content" or "tool_calls".
	Field string
	// Index is the tool call's position within the generation (tool_calls
	// only).
	Index int
	// Name is the tool's name (region_open of tool_calls).
	Name string
	// Text is a region_chunk's text; for tool_calls a fragment of the
	// arguments JSON object text.
	Text string
	// Value is a region_close's finished text (thinking and content).
	Value string
	// Call is a tool_calls region_close's finished call.
	Call *ToolCall
}

// AppendJSON appends the event as the page's event dict.
func (e *Event) AppendJSON(dst []byte) []byte {
	return dst
}

// StreamParser parses a generation as it arrives.
type StreamParser struct {
	opts ParseOptions
}

// NewStreamParser returns a parser for one generation.
func NewStreamParser(opts *ParseOptions) *StreamParser {
	p := &StreamParser{}
	if opts != nil {
		p.opts = *opts
	}
	return p
}

// Feed parses the next chunk and appends the events it makes certain.
func (p *StreamParser) Feed(chunk string, events []Event) ([]Event, error) {
	return events, nil
}

// Finish ends the input and returns the last events, the message and the
// error, if any.
func (p *StreamParser) Finish(events []Event) ([]Event, *Parsed, error) {
	return events, &Parsed{Message: Message{Role: RoleAssistant}}, nil
}
