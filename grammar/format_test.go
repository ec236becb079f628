package grammar

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// schemaGen draws random JSON Schemas from the keywords the grammar
// enforces.
type schemaGen struct {
	rng  *rand.Rand
	defs []string
}

func (g *schemaGen) pick(n int) int { return g.rng.IntN(n) }

func (g *schemaGen) schema(depth int) string {
	if depth > 3 {
		return g.scalar()
	}
	switch g.pick(10) {
	case 0, 1:
		return g.object(depth)
	case 2:
		return g.array(depth)
	case 3:
		// Disjoint variants, so that oneOf's "exactly one" holds.
		kw := []string{"anyOf", "oneOf"}[g.pick(2)]
		return fmt.Sprintf(`{"%s": [%s, {"type": "null"}, {"type": "boolean"}]}`, kw, g.object(depth+1))
	case 4:
		if len(g.defs) > 0 {
			return fmt.Sprintf(`{"$ref": "#/$defs/%s"}`, g.defs[g.pick(len(g.defs))])
		}
		return g.scalar()
	case 5:
		return fmt.Sprintf(`{"type": ["%s", "null"]%s}`, []string{"string", "integer", "number"}[g.pick(3)], g.stringBounds())
	default:
		return g.scalar()
	}
}

func (g *schemaGen) stringBounds() string {
	switch g.pick(3) {
	case 0:
		return fmt.Sprintf(`, "minLength": %d`, g.pick(4))
	case 1:
		lo := g.pick(3)
		return fmt.Sprintf(`, "minLength": %d, "maxLength": %d`, lo, lo+g.pick(5))
	}
	return ""
}

func (g *schemaGen) numberBounds(integer bool) string {
	num := func() string {
		if integer || g.pick(2) == 0 {
			return fmt.Sprint(g.pick(2001) - 1000)
		}
		return fmt.Sprintf("%d.%d", g.pick(41)-20, g.pick(1000))
	}
	var parts []string
	lo := ""
	if g.pick(2) == 0 {
		lo = num()
		parts = append(parts, fmt.Sprintf(`"%s": %s`, []string{"minimum", "exclusiveMinimum"}[g.pick(2)], lo))
	}
	if g.pick(2) == 0 {
		hi := num()
		if lo != "" {
			var a, b float64
			fmt.Sscan(lo, &a)
			fmt.Sscan(hi, &b)
			if b <= a+1 {
				hi = fmt.Sprint(int(a) + 2 + g.pick(50))
			}
		}
		parts = append(parts, fmt.Sprintf(`"%s": %s`, []string{"maximum", "exclusiveMaximum"}[g.pick(2)], hi))
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}

func (g *schemaGen) scalar() string {
	switch g.pick(8) {
	case 0:
		return `{"type": "string"` + g.stringBounds() + `}`
	case 1:
		return `{"type": "integer"` + g.numberBounds(true) + `}`
	case 2:
		return `{"type": "number"` + g.numberBounds(false) + `}`
	case 3:
		return `{"type": "boolean"}`
	case 4:
		return `{"enum": ["a", "b <|end|>", 3, null, [1], {"k": "v"}]}`
	case 5:
		return `{"const": "x\"y\\\\z"}`
	case 6:
		return `{"type": "string", "enum": ["red", "green", 7]}`
	}
	return `{}`
}

func (g *schemaGen) object(depth int) string {
	n := g.pick(4)
	var props, req []string
	for i := range n {
		name := []string{"a", "b c", "ключ", "q\"uote", "<|x|>"}[i%5] + fmt.Sprint(i)
		props = append(props, fmt.Sprintf(`%q: %s`, name, g.schema(depth+1)))
		if g.pick(2) == 0 {
			req = append(req, fmt.Sprintf("%q", name))
		}
	}
	extra := ""
	switch g.pick(3) {
	case 0:
		extra = `, "additionalProperties": false`
	case 1:
		if n == 0 {
			extra = `, "additionalProperties": ` + g.scalar()
		}
	}
	return fmt.Sprintf(`{"type": "object", "properties": {%s}, "required": [%s]%s}`, strings.Join(props, ", "), strings.Join(req, ", "), extra)
}

func (g *schemaGen) array(depth int) string {
	lo := g.pick(3)
	bounds := fmt.Sprintf(`, "minItems": %d`, lo)
	if g.pick(2) == 0 {
		bounds += fmt.Sprintf(`, "maxItems": %d`, lo+g.pick(3))
	}
	if g.pick(3) == 0 {
		return fmt.Sprintf(`{"type": "array", "prefixItems": [%s, %s], "items": %s%s}`, g.scalar(), g.scalar(), g.schema(depth+1), bounds)
	}
	return fmt.Sprintf(`{"type": "array", "items": %s%s}`, g.schema(depth+1), bounds)
}

// root returns a schema with recursive $defs.
func (g *schemaGen) root() string {
	g.defs = nil
	defs := `"Tree": {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}, "maxItems": 2}}, "required": ["v"], "additionalProperties": false}`
	g.defs = []string{"Tree"}
	body := g.schema(0)
	return `{"$defs": {` + defs + `}, "allOf": [` + body + `]}`
}

const finalHeader = "<|start|>assistant<|channel|>final<|message|>"

// Every text drawn from a response-format grammar is a reasoning message,
// then a final message whose content validates against the schema (a kept
// JSON Schema validator), and parses back to that content.
func TestFormatGrammarProperty(t *testing.T) {
	gen := &schemaGen{rng: rand.New(rand.NewPCG(3, 4))}
	compiled := 0
	for i := range 300 {
		raw := gen.root()
		g, err := Compile(context.Background(), &Spec{Format: &Format{Schema: json.RawMessage(raw)}})
		if err != nil {
			continue // a schema no value satisfies (bounds drawn at random)
		}
		compiled++
		v := validator(t, json.RawMessage(raw))
		s := newSampler(g, rand.New(rand.NewPCG(uint64(i), 9)))
		for j := range 20 {
			text := s.Sample()
			at := strings.Index(text, finalHeader)
			if at < 0 || !g.Matches(text) {
				t.Fatalf("schema %d sample %d: %q", i, j, text)
			}
			content := text[at+len(finalHeader):]
			if err := validate(t, v, content); err != nil {
				t.Fatalf("schema %s\nsample %q: %v", raw, content, err)
			}
			res, err := harmony.Parse(text+"<|return|>", nil)
			if err != nil || res.Message.Content != content {
				t.Fatalf("schema %d sample %d: parse %v %+v", i, j, err, res)
			}
		}
	}
	if compiled < 200 {
		t.Errorf("only %d of 300 random schemas compiled", compiled)
	}
}
