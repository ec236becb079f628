package grammar

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// A raw string argument with a minLength holds "<" where it does not begin
// a marker or the closing tag, as one without it does (gap decision 315):
// random values of pieces of the markers, the tag and "<", against what
// the raw text forbids and the count, for minimums up to the cap (7; for
// xgrammar 2, its grammar's EBNF read back too); past it the value keeps
// decision 129's form, without "<".
func TestRawMinLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 315))
	pieces := []string{"a", "<", "|", "/", "end", "|>", ">", "rfl:parameter", "start", "\n", "é", "<|", "</"}
	call := analysisPrefix + "<|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|>"
	checked, withLT := 0, 0
	for _, xg := range []bool{false, true} {
		limit := 7
		if xg {
			limit = 2
		}
		for lo := 0; lo <= limit+1; lo++ {
			params := `{"type": "object", "properties": {"s": {"type": "string", "minLength": ` + strconv.Itoa(lo) + `}}, "required": ["s"]}`
			g, err := Compile(context.Background(), &Spec{XGrammar: xg, Tools: []Tool{{Name: "f", Strict: true, Parameters: json.RawMessage(params)}}, Choice: Required})
			if err != nil {
				t.Fatal(err)
			}
			matches := g.Matches
			if xg {
				ebnf, err := parseWritten(g.EBNF())
				if err != nil {
					t.Fatal(err)
				}
				matches = func(text string) bool {
					in := g.Matches(text)
					if ebnf.Matches(text) != in {
						t.Errorf("xgrammar, minLength %d: %q: the EBNF says %v, the grammar %v", lo, text, !in, in)
					}
					return in
				}
			}
			for range 600 {
				v := ""
				for range rng.IntN(8) {
					v += pieces[rng.IntN(len(pieces))]
				}
				want := utf8.RuneCountInString(v) >= lo && !containsForbidden(v, inArgument)
				if lo > limit {
					want = want && !strings.Contains(v, "<") // (decision 129, past the cap)
				}
				if got := matches(call + xmlArg("s", v)); got != want {
					t.Errorf("xgrammar %v, minLength %d: %q: in the grammar %v, want %v", xg, lo, v, got, want)
				}
				checked++
				if want && strings.Contains(v, "<") {
					withLT++
				}
			}
		}
	}
	if withLT < 1000 {
		t.Errorf("%d values with \"<\" in the grammar, want 1,000 at least", withLT)
	}
	t.Logf("%d values checked, %d with \"<\" in the grammar", checked, withLT)
}
