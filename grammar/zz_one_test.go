package grammar

import (
	"context"
	"os"
	"testing"
)

func TestZZOne(t *testing.T) {
	for _, strict := range []bool{false, true} {
		g, err := Compile(context.Background(), &Spec{Format: &Format{Schema: []byte(os.Getenv("S")), Strict: strict}})
		if err != nil {
			t.Logf("strict %v err: %v", strict, err)
			continue
		}
		t.Logf("strict %v dropped: %v", strict, g.Dropped)
	}
}
