package harmony

import "strconv"

// DefaultMaxBufferedBytes is the cap on the bytes a parser holds at once
// when ParseOptions.MaxBufferedBytes is 0 (DECISIONS.md, Parsing: limits).
const DefaultMaxBufferedBytes = 4 << 20

// ParseOptions configure Parse and NewStreamParser.
type ParseOptions struct {
	// Prefix is the prompt the generation continues. Empty means a prompt
	// ending in "<|start|>assistant", the generation prompt.
	Prefix string
	// Tools are used to cast arguments to their schema's types; nil
	// leaves every argument a string (page: Response template).
	Tools []Tool
	// MaxBufferedBytes caps the bytes held at once; 0 means
	// DefaultMaxBufferedBytes.
	MaxBufferedBytes int
}

// Parsed is the result of parsing one generation.
type Parsed struct {
	// Message has Role "assistant", Reasoning (thinking), Content and
	// ToolCalls, whose Arguments are a JSON object text in Python's
	// json.dumps style and which have no ID.
	Message Message
	// Warnings report what parsed but may not be what the model meant,
	// such as a value that fits none of its property's types, or text
	// after the end marker.
	Warnings []string
	// End is MarkerReturn or MarkerCall, or "" when the input ended
	// without either.
	End string
	// Rest is the text after <|call|> or <|return|>, not parsed.
	Rest string
}

// ParseError reports generated text that does not follow the format.
type ParseError struct {
	// Offset is the byte offset in the generation where the error was
	// found.
	Offset int
	// Msg says what is wrong.
	Msg string
}

// Error returns "offset N: msg".
func (e *ParseError) Error() string {
	return "offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// Parse parses one complete generation. On an error it returns the part
// parsed so far beside a *ParseError.
func Parse(generated string, opts *ParseOptions) (*Parsed, error) {
	p := NewStreamParser(opts)
	_, _ = p.Feed(generated, nil)
	_, res, err := p.Finish(nil)
	return res, err
}
