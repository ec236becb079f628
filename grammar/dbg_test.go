package grammar

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDbg(t *testing.T) {
	for _, p := range strings.Fields(os.Getenv("DBG")) {
		raw, _ := os.ReadFile("/work/maskbench/data/" + p + ".json")
		var c suiteCase
		json.Unmarshal(raw, &c)
		fmt.Printf("== %s\nschema: %.1500s\n", p, c.Schema)
		rank := declaredOrder(c.Schema)
		for _, strict := range []bool{true, false} {
			g, err := Compile(context.Background(), &Spec{Format: &Format{Schema: c.Schema, Strict: strict}})
			if err != nil {
				fmt.Println("strict", strict, "error:", err)
				continue
			}
			for _, in := range c.Tests {
				if !in.Valid {
					continue
				}
				cs, ord, _ := suiteContents(in.Data, rank)
				ok := false
				for _, x := range append(cs, ord...) {
					ok = ok || g.Matches(suiteText(x))
				}
				if !ok {
					x := suiteText(append(cs, ord...)[len(append(cs, ord...))-1])
					at := g.furthestMatch(x)
					fmt.Printf("strict %v REJECTS valid at %d: ...%s <HERE> %.80s\n", strict, at, x[max(0, at-300):at], x[at:])
					if os.Getenv("G") != "" {
						fmt.Println(g.GBNF()[4000:])
					}
				}
			}
		}
	}
}
