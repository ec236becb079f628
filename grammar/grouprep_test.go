package grammar

import (
	"strings"
	"testing"
)

// groupReps keeps the language of a repetition of a repetition, merged or
// grouped, and leaves none in what it returns.
func TestGroupReps(t *testing.T) {
	bounds := [][2]int{{0, 1}, {1, 1}, {0, 2}, {1, 3}, {2, 2}, {2, 3}, {0, -1}, {1, -1}, {3, -1}, {0, 4}, {2, 5}}
	x := lit("a")
	n := 0
	for _, in := range bounds {
		for _, out := range bounds {
			inner := rep(x, in[0], in[1])
			if inner.kind != kRep {
				continue
			}
			nested := &expr{kind: kRep, items: []*expr{inner}, min: out[0], max: out[1]}
			if out[0] == 1 && out[1] == 1 {
				continue // rep never builds x{1}
			}
			got := groupReps(nested)
			checkExprWritable(t, got)
			ref := &Grammar{rules: []rule{{name: "root", body: nested}}}
			g := exprGrammar(t, got)
			for k := range 14 {
				n++
				s := strings.Repeat("a", k)
				if g.Matches(s) != ref.Matches(s) {
					t.Errorf("(a{%d,%d}){%d,%d} written %q: %d a's %v, want %v", in[0], in[1], out[0], out[1], g.text, k, g.Matches(s), ref.Matches(s))
				}
			}
		}
	}
	// Deeper: a repetition of a group of a repetition of a repetition.
	deep := &expr{kind: kRep, min: 0, max: -1, items: []*expr{seq(lit("b"), &expr{kind: kRep, min: 0, max: 1, items: []*expr{rep(x, 2, 3)}})}}
	got := groupReps(deep)
	checkExprWritable(t, got)
	if g := exprGrammar(t, got); !g.Matches("bbaabaaa") || g.Matches("ba") || !strings.Contains(g.text, `("a"{2,3})?`) {
		t.Errorf("written %q", g.text)
	}
	if e := seq(lit("x"), rep(x, 1, 4)); groupReps(e) != e {
		t.Error("an expression without nested repetitions copied")
	}
	t.Logf("%d texts", n)
}
