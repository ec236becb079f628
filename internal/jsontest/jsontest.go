// Package jsontest reads JSON with encoding/json alone, for the oracles
// of tests that check the project's own JSON readers (the tape parser,
// the gateway's body splitter, the library's message decoder): an
// independent reading to compare with.
package jsontest

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Member is one member of a JSON object.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Members returns the members of raw, a valid JSON object (spaces
// around it allowed), in order, each occurrence of a repeated key; nil
// when raw is not an object. Invalid JSON fails t.
func Members(t testing.TB, raw []byte) []Member {
	t.Helper()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []Member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, Member{tok.(string), v})
	}
	return out
}

// HoldsNothing reports whether raw is null, [] or {}, spaces aside: a
// value that asks for nothing.
func HoldsNothing(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case nil:
		return true
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}
