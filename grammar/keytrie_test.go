package grammar

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// Under strict, the keys of an open object's other members are none of its
// declared names (keyExcept's trie), and the tries of a grammar share a
// rule for every node that accepts the same rest of a key, across objects
// too. Random objects whose names share prefixes and tails, several in
// one schema, each with integer properties and string members besides:
// a JSON Schema validator judges objects of declared and other members,
// the other keys drawn from every object's names and their neighbours.
func TestKeyTriesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 196))
	pieces := []string{"a", "b", "ab", "ba", "name", "id", "Id", "x"}
	word := func() string {
		w := ""
		for range 1 + rng.IntN(3) {
			w += pieces[rng.IntN(len(pieces))]
		}
		return w
	}
	checked, schemas := 0, 0
	for range 150 {
		var objects [][]string
		var props []string
		for o := range 2 + rng.IntN(4) {
			var names []string
			for range 1 + rng.IntN(5) {
				if w := word(); !slices.Contains(names, w) {
					names = append(names, w)
				}
			}
			objects = append(objects, names)
			var decl []string
			for _, n := range names {
				decl = append(decl, strconv.Quote(n)+`: {"type": "integer"}`)
			}
			props = append(props, `"o`+strconv.Itoa(o)+`": {"type": "object", "properties": {`+strings.Join(decl, ", ")+`}, "additionalProperties": {"type": "string"}}`)
		}
		schema := `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "additionalProperties": false}`
		g, err := compileFormat(schema, true)
		if err != nil {
			t.Fatalf("%s: %v", schema, err)
		}
		schemas++
		validator := validatorFor(t, schema)
		var pool []string
		for _, names := range objects {
			for _, n := range names {
				pool = append(pool, n, n[:len(n)-1], n+"a", "b"+n)
			}
		}
		for range 40 {
			o := rng.IntN(len(objects))
			var members []string
			for _, n := range objects[o] {
				if rng.IntN(2) == 0 {
					members = append(members, strconv.Quote(n)+": 1")
				}
			}
			for range rng.IntN(3) {
				if k := pool[rng.IntN(len(pool))]; k != "" {
					members = append(members, strconv.Quote(k)+`: "s"`)
				}
			}
			content := `{"o` + strconv.Itoa(o) + `": {` + strings.Join(members, ", ") + `}}`
			if _, err := unmarshalInstance(content); err != nil {
				t.Fatal(err)
			}
			matched, valid := verdicts(t, g, validator, content)
			if matched != valid && !(valid && duplicateKeys(content)) {
				t.Errorf("%s: %s: the grammar says %v, the validator %v", schema, content, matched, valid)
			}
			checked++
		}
	}
	t.Logf("%d schemas, %d objects checked", schemas, checked)
}

// duplicateKeys reports whether an object of content holds a key twice
// (which a validator reads as its last value, and the grammar does not
// write: gap decision 208).
func duplicateKeys(content string) bool {
	dec := json.NewDecoder(strings.NewReader(content))
	var stack []map[string]bool
	expectKey := []bool{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, map[string]bool{})
				expectKey = append(expectKey, true)
				continue
			case '}':
				stack, expectKey = stack[:len(stack)-1], expectKey[:len(expectKey)-1]
			case '[':
				stack = append(stack, nil)
				expectKey = append(expectKey, false)
				continue
			case ']':
				stack, expectKey = stack[:len(stack)-1], expectKey[:len(expectKey)-1]
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1] != nil && expectKey[n-1] {
				if stack[n-1][v] {
					return true
				}
				stack[n-1][v] = true
				expectKey[n-1] = false
				continue
			}
		}
		if n := len(expectKey); n > 0 && stack[n-1] != nil {
			expectKey[n-1] = true
		}
	}
}

// The raw keys of strict tools' arguments share their tries' rules too:
// each tool's other arguments are named like none of its own, and may be
// named like another tool's.
func TestRawKeyTriesShared(t *testing.T) {
	var tools []Tool
	declared := [][]string{{"city", "country"}, {"city", "units"}, {"count", "unit"}}
	for i, names := range declared {
		var decl []string
		for _, n := range names {
			decl = append(decl, strconv.Quote(n)+`: {"type": "string"}`)
		}
		tools = append(tools, Tool{Name: "f" + strconv.Itoa(i), Strict: true,
			Parameters: json.RawMessage(`{"type": "object", "properties": {` + strings.Join(decl, ", ") + `}}`)})
	}
	g, err := Compile(context.Background(), &Spec{Tools: tools, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	all := []string{"city", "country", "units", "count", "unit", "cit", "countr", "unitss", "c"}
	for i, names := range declared {
		call := analysisPrefix + "<|start|>assistant to=f" + strconv.Itoa(i) + "<|channel|>analysis <|constrain|>xml<|message|>"
		for _, other := range all {
			var args string
			for _, n := range names {
				args += xmlArg(n, "v") + "\n"
			}
			args += xmlArg(other, "w")
			want := !slices.Contains(names, other)
			if g.Matches(call+args) != want {
				t.Errorf("f%d with the other argument %q: in the grammar %v, want %v", i, other, !want, want)
			}
		}
	}
}

// The trie keeps other keys from naming declared names that hold
// characters a JSON key writes escaped (gap decision 313), and so does
// the key automaton where patterns are beside (every other schema): random names
// of pieces with quotes, backslashes, control characters and "<", the
// declared members spelled as the grammar writes them, the others with
// the key's one spelling (jsonCharText), judged by a JSON Schema
// validator.
func TestKeyTrieEscapesAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 313))
	pieces := []string{"a", "b", "<", `"`, `\`, "\n", "\x01", "\t", ">", "é", "/"}
	word := func() string {
		w := ""
		for range 1 + rng.IntN(3) {
			w += pieces[rng.IntN(len(pieces))]
		}
		return w
	}
	checked, schemas := 0, 0
	for range 200 {
		var names, decl []string
		for range 1 + rng.IntN(5) {
			if w := word(); !slices.Contains(names, w) {
				names = append(names, w)
				decl = append(decl, string(pyjson.AppendQuoted(nil, w))+`: {"type": "integer"}`)
			}
		}
		schema := `{"type": "object", "properties": {` + strings.Join(decl, ", ") + `}, "additionalProperties": {"type": "string"}}`
		if schemas%2 == 1 {
			// Beside patterns, the key automaton keeps the names out.
			schema = schema[:len(schema)-1] + `, "patternProperties": {"^<": {"type": "string", "maxLength": 1}, "\\\\": {"type": "boolean"}}}`
		}
		g, err := compileFormat(schema, true)
		if err != nil {
			t.Fatalf("%s: %v", schema, err)
		}
		schemas++
		validator := validatorFor(t, schema)
		var pool []string
		for _, n := range names {
			r := []rune(n)
			pool = append(pool, n, string(r[:len(r)-1]), n+pieces[rng.IntN(len(pieces))], pieces[rng.IntN(len(pieces))]+n)
		}
		for range 40 {
			var members []string
			for _, n := range names {
				if rng.IntN(2) == 0 {
					members = append(members, string(pyjson.AppendQuoted(nil, n))+": 1")
				}
			}
			for range rng.IntN(3) {
				if k := pool[rng.IntN(len(pool))]; k != "" {
					members = append(members, keyText(k)+": "+[]string{`"s"`, `true`, `"st"`}[rng.IntN(3)])
				}
			}
			content := `{` + strings.Join(members, ", ") + `}`
			matched, valid := verdicts(t, g, validator, content)
			if matched != valid && !(valid && duplicateKeys(content)) {
				t.Errorf("%s: %s: the grammar says %v, the validator %v", schema, content, matched, valid)
			}
			checked++
		}
	}
	if checked < 8000 {
		t.Errorf("%d objects checked, want 8,000", checked)
	}
	t.Logf("%d schemas, %d objects checked", schemas, checked)
}

// A tool's other arguments are named like none of its declared ones, a
// backslash in a raw key being a character as any other (gap decision
// 313; the trie stopped at it before).
func TestRawKeyBackslash(t *testing.T) {
	g, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Strict: true,
		Parameters: json.RawMessage(`{"type": "object", "properties": {"a\\b": {"type": "string"}}}`)}}, Choice: Required})
	if err != nil {
		t.Fatal(err)
	}
	call := analysisPrefix + "<|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|>" + xmlArg(`a\b`, "v") + "\n"
	for other, want := range map[string]bool{`a\b`: false, `a\`: true, `a\bc`: true, `a/b`: true} {
		if got := g.Matches(call + xmlArg(other, "w")); got != want {
			t.Errorf("the other argument %q: %v, want %v", other, got, want)
		}
	}
}

// keyText is name as a JSON key the grammar writes it outside the declared
// members: each character in its one spelling (jsonCharText, "<" as
// \u003c), quoted.
func keyText(name string) string {
	b := []byte{'"'}
	for _, r := range name {
		b = append(b, jsonCharText(r)...)
	}
	return string(append(b, '"'))
}
