// Package syntax holds the words of the Beam Harmony format that more than
// one package writes or reads: the markers, the header words and the XML
// argument tags. The renderer and parser (package harmony, syntax.go) and
// the grammar compiler (package grammar) take them from here, so that what
// one writes the others read.
package syntax

// The markers (page: Messages). Each is one token of Beam's vocabulary.
const (
	Start     = "<|start|>"
	End       = "<|end|>"
	Message   = "<|message|>"
	Channel   = "<|channel|>"
	Constrain = "<|constrain|>"
	Call      = "<|call|>"
	Return    = "<|return|>"
)

// Markers lists every marker.
var Markers = [...]string{Start, End, Message, Channel, Constrain, Call, Return}

// The words of a message header:
//
//	<|start|>SPEAKER[ to=NAME]<|channel|>CHANNEL[ <|constrain|>xml]<|message|>
const (
	Assistant       = "assistant"
	ChannelAnalysis = "analysis"
	ChannelFinal    = "final"
	// RecipientPrefix starts the word naming a message's recipient.
	RecipientPrefix = "to="
	// FormatXML is the only argument format, the word after <|constrain|>.
	FormatXML = "xml"
	// CallHeaderEnd follows "to=NAME" in a tool call's header.
	CallHeaderEnd = Channel + ChannelAnalysis + " " + Constrain + FormatXML + Message
)

// The XML tags of a tool call's arguments (page: Tool calls), each
// argument written as
//
//	<rfl:parameter name="KEY">\nVALUE\n</rfl:parameter>
//
// and the arguments joined by ArgumentSeparator.
const (
	ParamOpen         = `<rfl:parameter name="`
	ParamNameEnd      = `">`
	ParamClose        = `</rfl:parameter>`
	ArgumentSeparator = "\n"
)
