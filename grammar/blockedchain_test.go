package grammar

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestBlockedMemberChains: for xgrammar, an object of at least
// blockedChainMin properties has its chain of members written in blocks
// (gap decision 270), and the grammar, its GBNF and its EBNF read back
// match exactly what the chain in one piece matches: members in order,
// each optional one present or not, the required ones present, whatever
// the required members' places (none, first, last, in the middle, at a
// block's edges, every seventh) and with other members allowed after them
// or not. Texts in order, out of order, with a member twice, without a
// required one and with another member.
func TestBlockedMemberChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(270, 1))
	for _, n := range []int{blockedChainMin, 50, 64, 97, 150} {
		size := 0
		for size*size < n {
			size++
		}
		for _, req := range [][]int{nil, {0}, {n / 2}, {n - 1}, {size - 1, size}, {2 * size}, sevenths(n)} {
			for _, closed := range []bool{false, true} {
				name := fmt.Sprintf("n=%d required=%v closed=%v", n, req, closed)
				var props []string
				for i := range n {
					props = append(props, fmt.Sprintf(`"p%d": {"type": "boolean"}`, i))
				}
				var names []string
				for _, i := range req {
					names = append(names, fmt.Sprintf(`"p%d"`, i))
				}
				schema := `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "required": [` + strings.Join(names, ", ") + `]`
				if closed {
					schema += `, "additionalProperties": false`
				}
				schema += `}`
				var gs [2]*Grammar
				for i, xg := range []bool{false, true} {
					g, err := Compile(context.Background(), &Spec{Format: &Format{Schema: json.RawMessage(schema)}, XGrammar: xg})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					gs[i] = g
				}
				if gs[0].GBNF() == gs[1].GBNF() {
					t.Fatalf("%s: the grammar for xgrammar is not written in blocks", name)
				}
				ebnf, err := parseWritten(gs[1].EBNF())
				if err != nil {
					t.Fatalf("%s: the EBNF does not read back: %v", name, err)
				}
				in, out := 0, 0
				for k := range 120 {
					var members []int
					for i := range n {
						if slices.Contains(req, i) && k%10 != 0 || rng.IntN(4) == 0 {
							members = append(members, i)
						}
					}
					switch k % 6 {
					case 1: // two members out of order
						if len(members) >= 2 {
							j := rng.IntN(len(members) - 1)
							members[j], members[j+1] = members[j+1], members[j]
						}
					case 2: // a member twice
						if len(members) >= 1 {
							j := rng.IntN(len(members))
							members = slices.Insert(members, j, members[j])
						}
					}
					var parts []string
					for _, i := range members {
						parts = append(parts, fmt.Sprintf(`"p%d": %v`, i, rng.IntN(2) == 0))
					}
					if k%6 == 3 {
						parts = append(parts, `"other": 1`)
					}
					text := analysisPrefix + finalHeader + "{" + strings.Join(parts, ", ") + "}"
					want := gs[0].Matches(text)
					if got := gs[1].Matches(text); got != want {
						t.Errorf("%s: members %v: %v in blocks, %v in one chain", name, members, got, want)
					}
					if got := ebnf.Matches(text); got != want {
						t.Errorf("%s: members %v: the EBNF read back says %v, the grammar %v", name, members, got, want)
					}
					if want {
						in++
					} else {
						out++
					}
				}
				if in == 0 || out == 0 {
					t.Errorf("%s: %d texts in the grammar, %d out: the check checks little", name, in, out)
				}
			}
		}
	}
}

// sevenths is every seventh index below n.
func sevenths(n int) []int {
	var out []int
	for i := 0; i < n; i += 7 {
		out = append(out, i)
	}
	return out
}

// TestBlockedChainsPastACap: an object whose chain in blocks would take
// the grammar past a cap is compiled for xgrammar as for the other
// engines, in one chain: neither refused nor loosened where their grammar
// is not (gap decision 270). Past the cap in blocks only, and past it
// before the chain is written (the compile again that loosens the schemas
// writes no blocks).
func TestBlockedChainsPastACap(t *testing.T) {
	for _, c := range []struct {
		name, property string
		n              int
		blocked        bool // the first compile wrote blocks
	}{
		{"booleans", `{"type": "boolean"}`, 1400, true},
		{"loosened arrays", `{"type": "array", "items": {"type": "boolean"}, "maxItems": 8}`, 1091, false},
	} {
		var props []string
		for i := range c.n {
			props = append(props, fmt.Sprintf(`"p%d": %s`, i, c.property))
		}
		schema := json.RawMessage(`{"type": "object", "properties": {` + strings.Join(props, ", ") + `}}`)
		plain, err := Compile(context.Background(), &Spec{Format: &Format{Schema: schema}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		spec := &Spec{Format: &Format{Schema: schema}, XGrammar: true}
		if _, over, err := compile(context.Background(), spec, maxRepetitions, false, 0, nil); err == nil || over.blocked != c.blocked {
			t.Fatalf("%s: the first compile does (%v), or wrote blocks %v: the check checks something else", c.name, err, over.blocked)
		}
		xg, err := Compile(context.Background(), spec)
		if err != nil {
			t.Fatalf("%s: for xgrammar: %v", c.name, err)
		}
		if xg.GBNF() != plain.GBNF() || fmt.Sprint(xg.Dropped) != fmt.Sprint(plain.Dropped) {
			t.Errorf("%s: for xgrammar the grammar is not the one in one chain (%d and %d bytes, %d and %d dropped)", c.name, len(xg.GBNF()), len(plain.GBNF()), len(xg.Dropped), len(plain.Dropped))
		}
	}
}
