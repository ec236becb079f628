package grammar

import (
	"context"
	"strings"
	"testing"
)

// A JSON string's language writes its escape once, as a rule of its own
// that each state refers to, not once a state: in the content's strings
// and in an argument's JSON strings alike.
func TestStringEscapeWrittenOnce(t *testing.T) {
	const escape = `"\\" ([\u0022\u002f\u005cbfnrt] | "u" (`
	for _, c := range []struct {
		name  string
		spec  *Spec
		langs []string
	}{
		{"content", &Spec{Format: &Format{}}, []string{"str"}},
		{"content and argument", &Spec{Tools: []Tool{{Name: "f", Parameters: []byte(`{"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}}`)}},
			Format: &Format{}}, []string{"str", "argstr"}},
	} {
		g, err := Compile(context.Background(), c.spec)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := strings.Count(g.text, escape); n != len(c.langs) {
			t.Errorf("%s: the escape written %d times, want %d", c.name, n, len(c.langs))
		}
		for _, l := range c.langs {
			if !strings.Contains(g.text, "\n"+l+"-esc ::= "+escape) || !strings.Contains(g.text, " "+l+"-esc "+l+"-0 ") {
				t.Errorf("%s: no rule %s-esc referred to by the states", c.name, l)
			}
		}
	}
}
