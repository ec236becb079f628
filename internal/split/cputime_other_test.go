//go:build !linux

package split

// cpuSeconds returns 0: the benchmarks report CPU-time throughput on Linux
// only.
func cpuSeconds() float64 { return 0 }
