package grammar

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// minProperties and maxProperties that the declared properties don't keep
// by themselves are counted member by member (gap decision 203).
func TestCountedMembers(t *testing.T) {
	checkStrictExact(t, []contentCase{
		{"at least one of optional properties", `{"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "minProperties": 1, "additionalProperties": false}`,
			[]string{`{"a": 1}`, `{"c": 1}`, `{"a": 1, "b": 2, "c": 3}`}, []string{`{}`}},
		{"exactly two, others included", `{"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "minProperties": 2, "maxProperties": 2}`,
			[]string{`{"a": 1, "c": 1}`, `{"a": 1, "x": 2}`, `{"x": 1, "y": 2}`}, []string{`{}`, `{"a": 1}`, `{"a": 1, "b": 2, "c": 3}`, `{"x": 1, "y": 2, "z": 3}`}},
		{"a required property and a maximum", `{"type": "object", "properties": {"a": {}}, "required": ["a"], "maxProperties": 1}`,
			[]string{`{"a": 1}`}, []string{`{"a": 1, "x": 2}`, `{}`}},
		{"more than the declared ones", `{"type": "object", "properties": {"a": {}}, "minProperties": 3}`,
			[]string{`{"a": 1, "x": 2, "y": 3}`, `{"x": 2, "y": 3, "z": 4, "w": 5}`}, []string{`{"a": 1}`, `{"a": 1, "x": 2}`}},
	})
	// Not strict, the object is closed by default: a minimum only other
	// members could reach is reported, not made impossible.
	g, err := compileFormat(`{"type": "object", "properties": {"a": {}}, "minProperties": 3}`, false)
	if err != nil || !strings.Contains(droppedPaths(g), "minProperties") {
		t.Errorf("not strict, closed by default: %v %v", g, err)
	}
	// A count no object of the schema has is a 400.
	if _, err := compileFormat(`{"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a", "b"], "additionalProperties": false, "maxProperties": 1}`, true); err == nil || !strings.Contains(err.Error(), "no object can be written") {
		t.Errorf("two required, at most one: %v", err)
	}
}

// droppedPaths lists g's dropped paths, for a test's message.
func droppedPaths(g *Grammar) string {
	if g == nil {
		return ""
	}
	var paths []string
	for _, d := range g.Dropped {
		paths = append(paths, d.Path)
	}
	return strings.Join(paths, " ")
}

// Counted members against a JSON Schema validator.
func TestCountedMembersAgainstValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 203))
	keys := []string{"a", "b", "c"}
	checked := 0
	for range 200 {
		var req []string
		for _, k := range keys {
			if rng.IntN(4) == 0 {
				req = append(req, strconv.Quote(k))
			}
		}
		schema := `{"type": "object", "properties": {"a": {}, "b": {"type": "integer"}, "c": {}}, "required": [` + strings.Join(req, ", ") + `]`
		lo, hi := rng.IntN(4), -1
		if lo > 0 {
			schema += `, "minProperties": ` + strconv.Itoa(lo)
		}
		if rng.IntN(2) == 0 {
			hi = lo + rng.IntN(3)
			schema += `, "maxProperties": ` + strconv.Itoa(hi)
		}
		switch rng.IntN(3) {
		case 0:
			schema += `, "additionalProperties": false`
		case 1:
			schema += `, "additionalProperties": {"type": "integer"}`
		}
		schema += `}`
		g, err := compileFormat(schema, true)
		if err != nil && !strings.Contains(err.Error(), "no object can be written") {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		validator := validatorFor(t, schema)
		for range 20 {
			content := randomObject(rng, append(keys, "x", "y"))
			agreeWithValidator(t, schema, g, validator, content)
			checked++
		}
	}
	if checked < 3000 {
		t.Errorf("only %d instances checked", checked)
	}
}
