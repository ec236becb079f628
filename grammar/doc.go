// Package grammar compiles what a client demands of Beam's next message
// (a tool call, a call to one tool, exactly one call, JSON for a schema)
// into a grammar over the text Beam writes after the generation prompt, for
// the engines' grammar-constrained decoding: GBNF for llama.cpp's server,
// xgrammar's EBNF for vLLM and SGLang.
//
// The grammar keeps Beam's reasoning: every grammar starts with an analysis
// message of free text (any text without a marker, not empty), and only
// then constrains the message the client asked for:
//
//   - tool calls in Beam's XML form, each argument valid for its property's
//     schema: a string value is raw text without a marker or
//     </rfl:parameter>, any other value JSON as the renderer writes it
//     (", " and ": " separators); required arguments present, in the
//     declared order; calls separated by <|end|> as the renderer writes
//     them; the grammar ends with the last call's arguments, where the
//     engine ends the generation with <|call|> (an end token to it);
//   - or a final message whose content is JSON valid for a schema; it ends
//     with the content, where engines end on the end-of-sequence token
//     <|return|>;
//   - under Auto with a strict tool, the calls or a final message of free
//     text (without a marker): a strict tool's calls follow its schema
//     even when the model chooses whether to call.
//
// JSON Schema keywords enforced: type (names and lists, null included),
// enum, const, properties, required, additionalProperties (false or a
// schema), items, prefixItems, minItems, maxItems, minLength, maxLength,
// minimum, maximum, exclusiveMinimum and exclusiveMaximum (integers and
// numbers, exact decimal bounds), anyOf, oneOf (as anyOf: variants should
// not overlap), a one-element allOf, and $ref/$defs, recursive ones
// included. Other keywords (pattern, format, not, uniqueItems,
// multipleOf, ...) can't be enforced: under Strict, Compile fails with an
// *Error naming the keyword's path; otherwise the keyword is left out and
// listed in Grammar.Dropped.
//
// Markers are written as literal strings, never as token references: a
// grammar matches text, whatever the tokens that spell it. The words of
// the format come from the same definitions the renderer and the parser
// use (internal/syntax), and the schema walk is the renderer's
// (internal/schema).
package grammar
