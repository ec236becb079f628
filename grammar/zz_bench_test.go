package grammar

import (
	"context"
	"testing"
)

func BenchmarkCompileTypical(b *testing.B) {
	spec := &Spec{Tools: []Tool{propertyTools[0]}, Choice: Required}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(context.Background(), spec); err != nil {
			b.Fatal(err)
		}
	}
}
