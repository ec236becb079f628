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
// JSON Schema keywords apply as JSON Schema 2020-12 applies them: a
// schema, its $ref's target and its allOf's members together, anyOf and
// oneOf variants each with their siblings, keywords of an untyped schema to
// the values of their type only. Enforced: type (names and lists), enum
// and const (of any JSON value; each listed value is checked against the
// whole schema, so beside them any keyword a validator checks holds),
// properties, required,
// additionalProperties (false, true or a schema), minProperties and
// maxProperties (counted member by member), items, prefixItems,
// minItems, maxItems, minLength, maxLength (beside a pattern or a format
// too: under strict, counted by an automaton where the parts of the
// pattern vary), pattern (ECMA-262, translated
// to the grammar; under strict, several patterns and formats of a string
// together, and lookahead assertions, except in a group that can match
// the empty text repeated without bound), format (date, time, date-time, duration, uuid, email,
// hostname, ipv4, ipv6, uri, uri-reference, iri, iri-reference,
// uri-template, json-pointer, relative-json-pointer; hostname loosely:
// its total length and Punycode labels are not checked, which is
// reported, an error under strict; a format JSON Schema does not define,
// beside a pattern in the same schema, is the pattern's name: the pattern
// is enforced and the format reported, under strict too), minimum, maximum, exclusiveMinimum and
// exclusiveMaximum (exact decimal bounds), dependentRequired (where the
// object's members are written by name), dependentSchemas (one case of
// the object per choice of up to 4 triggers present),
// unevaluatedProperties on an object's own schema (false: with the other
// anyOf variants that match; a schema: for the members no schema
// declares; nothing where everything is evaluated), unevaluatedItems on
// an array's own schema
// (for the elements past every prefixItems when no schema has items),
// patternProperties (one pattern; under strict, several, the keys of
// other members read by one automaton that knows which patterns each
// matches), propertyNames (a string schema,
// for free keys and declared names; a not of listed names also beside
// declared ones), contains and minContains (as a count
// from below, or the length where every element counts), if/then/else
// where the condition is known without the value (no if, if true or
// false, branches admitting anything; under strict, a discriminator's
// conditions, a case each, and one for the values none lists), not (of
// types, of anything or of nothing; of an enum or const among integers
// or bounded numbers; under strict, of a
// pattern, enum or const of strings, and of required; through a $ref),
// multipleOf (whole numbers up to 64; beside bounds, 1, and under strict
// the others by an automaton; powers of ten below 1, with or without
// bounds, and j times one, j up to 64, without bounds or under strict
// beside them; for integers, a
// fraction p/q as the multiples of p;
// any, on enum and const members), anyOf, oneOf
// (exactly when its variants' types are disjoint, read through their
// enum, const and nested anyOf and oneOf, a type two variants admit whole
// being no variant's, ranges of numbers that meet nowhere apart, and
// arrays whose elements' types, or lists of strings, are apart, [] left
// out where two variants admit it; their objects told
// apart, their literals apart, they only require names (or forbid them
// by a not of required), or under strict
// they only constrain or list strings (through $ref and allOf too), beside
// the values of a type one variant alone admits; objects only where two variants constrain
// objects alone; by cases for a discriminator no variant requires beside
// required names, for variants closed to names of their own, or for
// closed variants whose shared names are the same or told apart; lists of
// literals that share values, each without the shared ones; else as
// anyOf, reported), allOf, and $ref/$defs, recursive ones included ($id-relative
// and $anchor refs too, $id read as the schema's dialect reads it, and
// $dynamicRef where its target can't depend on the path taken). A format
// on a value that can't be a string constrains nothing. An object that declares properties is closed unless the
// spec is strict (then it is open as its schema says); closing it is
// reported. What a grammar can't enforce (other not, other uniqueItems, other
// multipleOf,
// maxContains, other patternProperties, a key that looks like a misspelt
// keyword, such as emum, ...) is never dropped in silence:
// under Strict, Compile fails with an *Error naming the keyword's path;
// otherwise the keyword is left out and listed in Grammar.Dropped.
//
// Compiling is bounded, so that no request can exhaust the gateway or
// stall an engine: the work is linear in the schemas, stops when its
// context ends, and stops at the first cap passed (the JSON values of the
// schemas, counted before they are parsed; MaxRules, MaxBytes, and
// the grammar's cost to an engine once it expands the repetitions, as
// measured with llama.cpp's grammar loader), with an *Error naming the
// schema being compiled. Numeric bounds are enforced exactly up to 24
// digits on either side of the point, larger ones loosened and reported;
// counts past 64 are written in chunks of about their square root, a
// string's length pair is one rule however many strings share it, and
// what the counts cost an engine is capped, each count past it loosened
// and reported (a grammar its counts would take past the engine's cap is
// compiled once more without them; not strict, one its schemas take past
// it, once more with the schemas met past half of the cap written as any
// JSON value, each reported). Before a grammar is returned it is
// checked as an engine would meet it: a schema nothing satisfies, a $ref cycle that consumes
// nothing (left recursion) and alternatives nested so that llama.cpp's
// check for left recursion would cost more than a cap (estimated as that
// check runs, in the order the rules are written) are errors naming the
// schema; rules nothing refers to are not written. Rules are written where
// their names first appear, which keeps that check linear, and a repeated
// group that llama.cpp's parser would refuse is written as a rule of its
// own.
//
// Markers are written as literal strings, never as token references: a
// grammar matches text, whatever the tokens that spell it. The words of
// the format come from the same definitions the renderer and the parser
// use (internal/syntax), and the schema walk is the renderer's
// (internal/schema).
//
// # API
//
//   - [Compile] turns a [Spec] (the request's [Tool]s, its [Choice] of
//     [Auto], [Required] and the rest, a tool's name, parallel calls, a
//     response [Format]) into a [Grammar]: [Grammar.GBNF] for llama.cpp,
//     [Grammar.EBNF] for vLLM and SGLang (the same language, written
//     without what xgrammar matches otherwise: ebnf.go), and the keywords
//     it left out, each a [Dropped].
//   - A [Cache] ([NewCache]) compiles each distinct spec once, within a
//     budget of bytes; each caller gets its own copy of the grammar.
//   - An [Error] (the root package's RenderError) names the JSON path of
//     what can't be honoured; the caps are [MaxRules] and its group.
package grammar
