package grammar

import (
	"context"
	"testing"

	"github.com/beamharmony/harmony/internal/cputime"
)

// BenchmarkCompileSuite compiles every schema of the JSON Schema Test
// Suite as a response format (not strict), one after the other: the
// workload of bench/run's comparison with llama.cpp's converter, as one
// figure whose allocations per op don't depend on the machine's load. It
// reports the CPU time per op too (cpu-ns/op), which counts the work done
// where ns/op also counts the waits for a core on a busy machine.
func BenchmarkCompileSuite(b *testing.B) {
	var specs []*Spec
	for _, f := range loadSuite(b) {
		for _, c := range f.cases {
			specs = append(specs, &Spec{Format: &Format{Schema: c.Schema}})
		}
	}
	b.ReportAllocs()
	clock := cputime.Start()
	for b.Loop() {
		for _, s := range specs {
			Compile(context.Background(), s)
		}
	}
	clock.Report(b, 0)
}

// BenchmarkCompileCPU is BenchmarkCompileTypical and
// BenchmarkCompileRealistic with their CPU time per op.
func BenchmarkCompileCPU(b *testing.B) {
	for _, c := range []struct {
		name string
		spec *Spec
	}{
		{"typical", &Spec{Tools: []Tool{propertyTools[0]}, Choice: Required}},
		{"realistic", &Spec{Tools: realisticTools(b), Choice: Required, Parallel: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			clock := cputime.Start()
			for b.Loop() {
				if _, err := Compile(context.Background(), c.spec); err != nil {
					b.Fatal(err)
				}
			}
			clock.Report(b, 0)
		})
	}
}
