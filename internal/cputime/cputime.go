// Package cputime reads the CPU time the process has used, for benchmarks
// on a shared machine: it counts the work done (user and system time of
// every thread, the garbage collector's included), where wall time also
// counts the waits for a core.
package cputime

import (
	"testing"
	"time"
)

// A Clock measures the CPU time of a benchmark's loop.
type Clock struct{ start time.Duration }

// Start starts a Clock.
func Start() Clock { return Clock{Process()} }

// Report adds cpu-ns/op and, for an operation on n bytes (n > 0),
// cpu-MB/s to b's results.
func (c Clock) Report(b *testing.B, n int) {
	per := float64(Process()-c.start) / float64(b.N)
	b.ReportMetric(per, "cpu-ns/op")
	if n > 0 {
		b.ReportMetric(float64(n)/per*1e3, "cpu-MB/s")
	}
}
