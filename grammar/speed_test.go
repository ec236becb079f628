package grammar

import (
	"context"
	"testing"
)

// BenchmarkCompileSuite compiles every schema of the JSON Schema Test
// Suite as a response format (not strict), one after the other: the
// workload of bench/run's comparison with llama.cpp's converter, as one
// figure whose allocations per op don't depend on the machine's load.
func BenchmarkCompileSuite(b *testing.B) {
	var specs []*Spec
	for _, f := range loadSuite(b) {
		for _, c := range f.cases {
			specs = append(specs, &Spec{Format: &Format{Schema: c.Schema}})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range specs {
			Compile(context.Background(), s)
		}
	}
}
