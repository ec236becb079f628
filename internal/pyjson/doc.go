// Package pyjson reads JSON into a flat, order-preserving tape and writes
// JSON the way Python's json.dumps(ensure_ascii=False) does.
//
// Beam's chat template is Jinja running in Python, so every JSON value it
// writes into a prompt (non-string tool arguments, schema defaults, enum
// members, examples) has Python's spelling: ", " and ": " separators, object
// keys in insertion order, no HTML escaping and non-ASCII text written as is.
// Go's encoding/json sorts map keys, loses number literals ("3.0" becomes 3)
// and writes compact separators, so the renderer cannot use it for that.
//
// A Doc keeps the source bytes and a tape of Nodes, one per value, in document
// order. Parsing allocates only the tape (reused across Parse calls), and
// every accessor writes into a caller's buffer, so rendering a tool schema or
// an argument object costs no allocation per value.
package pyjson
