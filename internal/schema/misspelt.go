package schema

import (
	"strings"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/spell"
)

// JSON Schema ignores a keyword it does not know, so a misspelt one
// (emum, additonalProperties, minLenght, a key left with its colon,
// "type:") constrains nothing and the value it meant to constrain is
// free. Real-world schemas hold such keys (JSONSchemaBench's MaskBench:
// 58 of 11,305 schemas). Misspelt takes a key for a misspelt keyword when
// it is not a keyword of any draft nor a common annotation, it is close
// to one of the keywords that constrain values (misspeltTargets): within
// one edit for keys of up to 7 bytes, two for longer ones (insertions,
// deletions, substitutions, swaps; case ignored), only by substitutions
// for keys of up to 4 bytes, with the keyword's first letter (case
// ignored: every misspelling found in MaskBench keeps it, and it keeps
// the comparisons few); its value is of a kind that keyword takes;
// and it is not a keyword with a prefix of its own (_format, $type,
// axPattern: a keyword turned off, or an extension's own). The grammar
// reports such a key when not strict (the keyword it meant is not
// enforced) and refuses it under strict, naming the keyword it is close
// to; lint warns about one in a tool's declaration (gap decision 257).

// misspeltTargets are the keywords that constrain values, which a
// misspelt key is compared with, each with the kinds of value it takes: a
// key whose value is of another kind is not that keyword misspelt
// ("multiple": true is an annotation, not multipleOf).
var misspeltTargets = [...]struct {
	name  string
	kinds kindSet
}{
	{"type", kStr | kArr}, {"enum", kArr}, {"const", kAny}, {"anyOf", kArr}, {"oneOf", kArr},
	{"allOf", kArr}, {"not", kSchema}, {"then", kSchema}, {"else", kSchema},
	{"properties", kObj}, {"patternProperties", kObj}, {"additionalProperties", kSchema},
	{"propertyNames", kSchema}, {"required", kArr | kBool}, {"minProperties", kNum}, {"maxProperties", kNum},
	{"dependentRequired", kObj}, {"dependentSchemas", kObj}, {"dependencies", kObj},
	{"items", kSchema | kArr}, {"prefixItems", kArr}, {"additionalItems", kSchema}, {"contains", kSchema},
	{"minContains", kNum}, {"maxContains", kNum}, {"minItems", kNum}, {"maxItems", kNum},
	{"uniqueItems", kBool}, {"unevaluatedItems", kSchema}, {"unevaluatedProperties", kSchema},
	{"minLength", kNum}, {"maxLength", kNum}, {"pattern", kStr}, {"format", kStr},
	{"minimum", kNum}, {"maximum", kNum}, {"exclusiveMinimum", kNum | kBool},
	{"exclusiveMaximum", kNum | kBool}, {"multipleOf", kNum},
	{"$ref", kStr}, {"$dynamicRef", kStr},
}

// kindSet is a set of the kinds of JSON values, by pyjson.Kind.
type kindSet uint8

const (
	kBool   kindSet = 1<<pyjson.False | 1<<pyjson.True
	kNum    kindSet = 1 << pyjson.Number
	kStr    kindSet = 1 << pyjson.String
	kArr    kindSet = 1 << pyjson.Array
	kObj    kindSet = 1 << pyjson.Object
	kSchema         = kObj | kBool // a schema
	kAny            = kBool | kNum | kStr | kArr | kObj | 1<<pyjson.Null
)

// maxMisspeltKey is the longest key compared: past the longest target
// and its two edits, nothing is close.
const maxMisspeltKey = len("unevaluatedProperties") + 2

// knownKeyword reports whether name is a keyword of some draft of JSON
// Schema (draft 3 to 2020-12, hyper-schema's links aside) or one of the
// annotations real-world schemas write (OpenAPI's).
func knownKeyword(name string) bool {
	switch name {
	case "$schema", "$id", "id", "$ref", "$defs", "definitions", "$anchor", "$dynamicRef",
		"$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "$vocabulary", "$comment",
		"type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
		"properties", "patternProperties", "additionalProperties", "propertyNames", "required",
		"minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
		"unevaluatedProperties", "items", "prefixItems", "additionalItems", "contains",
		"minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems",
		"minLength", "maxLength", "pattern", "format", "contentMediaType", "contentEncoding",
		"contentSchema", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
		"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
		// Draft 3.
		"extends", "disallow", "divisibleBy", "optional",
		// OpenAPI's.
		"nullable", "example", "discriminator", "xml", "externalDocs":
		return true
	}
	return false
}

// declaredAnnotations are the annotations the prompt's TypeScript
// declaration writes beside a property (as comments), which
// MisspeltDeclared compares a key with too: a misspelt description
// (decription, descrption: the commonest misspellings in MaskBench's
// schemas) hides the property's documentation from the model.
var declaredAnnotations = [...]struct {
	name  string
	kinds kindSet
}{
	{"title", kStr}, {"description", kStr}, {"examples", kArr}, {"default", kAny},
}

// Misspelt returns the keyword the key name, whose value is of
// kind v, was probably meant to be, or "" when it is none (see above).
// A keyword's name costs no allocation: most keys are keywords.
func Misspelt(name []byte, v pyjson.Kind) string {
	return misspelt(name, v, false)
}

// MisspeltDeclared is Misspelt with the annotations the declaration
// writes (declaredAnnotations) among the keywords compared.
func MisspeltDeclared(name []byte, v pyjson.Kind) string {
	return misspelt(name, v, true)
}

// MayBeMisspelt reports whether Misspelt compares the key name with the
// keywords at all: it is no keyword, of a length a misspelling can have,
// and has no prefix of a key turned off or of an extension. It costs no
// allocation; the comparisons it stands for cost up to a microsecond, so
// that a caller bounding its work counts these keys.
func MayBeMisspelt(name []byte) bool {
	if len(name) < 3 || len(name) > maxMisspeltKey || knownKeyword(string(name)) {
		return false
	}
	switch name[0] {
	case '_', '@', '#', '/', '-':
		return false
	}
	return name[0] != 'x' || name[1] != '-'
}

func misspelt(name []byte, v pyjson.Kind, annotations bool) string {
	if !MayBeMisspelt(name) {
		return ""
	}
	key := string(name)
	limit := 1
	if len(key) > 7 {
		limit = 2
	}
	best, bestDist := "", limit+1
	try := func(t string, kinds kindSet) {
		if kinds&(1<<v) == 0 || fold(t[0]) != fold(key[0]) {
			return // another kind of value, or another first letter
		}
		if len(t) > len(key)+limit || len(key) > len(t)+limit || len(key) <= 4 && len(t) != len(key) {
			return
		}
		if len(key) > len(t) && strings.EqualFold(key[len(key)-len(t):], t) {
			return // a keyword with a prefix of its own
		}
		if !spell.Within(key, t, bestDist-1) {
			return
		}
		if d := spell.Distance(key, t); d < bestDist {
			best, bestDist = t, d
		}
	}
	for _, t := range misspeltTargets {
		try(t.name, t.kinds)
	}
	if annotations {
		for _, t := range declaredAnnotations {
			try(t.name, t.kinds)
		}
	}
	return best
}

// fold is c with an ASCII capital made small.
func fold(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Extension reports whether the key name is no keyword of any draft and
// can be no misspelling of one either (MayBeMisspelt is false): a key
// turned off or an extension's own (_format, x-order, @type), or one too
// short or too long to be a keyword misspelt. JSON Schema ignores such a
// key, so it constrains nothing, as an annotation does. It costs no
// allocation and no comparison with the keywords.
func Extension(name string) bool {
	return !knownKeyword(name) && !MayBeMisspelt([]byte(name))
}
