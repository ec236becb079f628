package metrics

import (
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"time"
)

// AddRuntime registers the Go runtime's families (go_*) and, where the
// system tells them (Linux's /proc), the process's (process_*), under the
// names, types and units Prometheus client libraries use, read at each
// scrape.
func (r *Registry) AddRuntime() {
	r.GaugeFunc("go_goroutines", "Goroutines that exist now.", func() float64 { return float64(runtime.NumGoroutine()) })
	r.GaugeFunc("go_threads", "Operating system threads the Go runtime created.", func() float64 {
		n, _ := runtime.ThreadCreateProfile(nil)
		return float64(n)
	})
	r.GaugeVec("go_info", "The Go version that built the program, in the label; the value is 1.", "version").With(runtime.Version()).Set(1)
	r.summary("go_gc_duration_seconds", "Stop-the-world pauses of the garbage collector: minimum, quartiles and maximum of the recent ones; count and sum of all.",
		[]float64{0, 0.25, 0.5, 0.75, 1}, func() ([]float64, uint64, float64) {
			st := debug.GCStats{PauseQuantiles: make([]time.Duration, 5)}
			debug.ReadGCStats(&st)
			q := make([]float64, len(st.PauseQuantiles))
			for i, d := range st.PauseQuantiles {
				q[i] = d.Seconds()
			}
			return q, uint64(st.NumGC), st.PauseTotal.Seconds()
		})
	r.GaugeFunc("go_memstats_last_gc_time_seconds", "When the last garbage collection ended, in seconds since 1970 (0 before the first).", func() float64 {
		var st debug.GCStats
		debug.ReadGCStats(&st)
		return float64(st.LastGC.UnixNano()) / 1e9
	})
	const (
		heapObjects    = "/memory/classes/heap/objects:bytes"
		heapUnused     = "/memory/classes/heap/unused:bytes"
		heapFree       = "/memory/classes/heap/free:bytes"
		heapReleased   = "/memory/classes/heap/released:bytes"
		heapStacks     = "/memory/classes/heap/stacks:bytes"
		tinyAllocs     = "/gc/heap/tiny/allocs:objects"
		mspanInuse     = "/memory/classes/metadata/mspan/inuse:bytes"
		mcacheInuse    = "/memory/classes/metadata/mcache/inuse:bytes"
		runtimeGauge   = false
		runtimeCounter = true
	)
	// Each family is the sum of runtime/metrics values: the equivalences
	// runtime/metrics documents for runtime.MemStats' fields, without
	// stopping the world as ReadMemStats does.
	for _, m := range []struct {
		name, help string
		counter    bool
		sum        []string
	}{
		{"go_gc_gogc_percent", "The garbage collector's GOGC percentage.", runtimeGauge, []string{"/gc/gogc:percent"}},
		{"go_gc_gomemlimit_bytes", "The Go runtime's soft memory limit (GOMEMLIMIT).", runtimeGauge, []string{"/gc/gomemlimit:bytes"}},
		{"go_sched_gomaxprocs_threads", "GOMAXPROCS: the threads that may run Go code at the same time.", runtimeGauge, []string{"/sched/gomaxprocs:threads"}},
		{"go_memstats_alloc_bytes", "Bytes of heap objects allocated and not yet freed (MemStats.Alloc).", runtimeGauge, []string{heapObjects}},
		{"go_memstats_alloc_bytes_total", "Bytes allocated for heap objects since the start, freed or not (MemStats.TotalAlloc).", runtimeCounter, []string{"/gc/heap/allocs:bytes"}},
		{"go_memstats_buck_hash_sys_bytes", "Bytes of the profiling bucket hash table (MemStats.BuckHashSys).", runtimeGauge, []string{"/memory/classes/profiling/buckets:bytes"}},
		{"go_memstats_frees_total", "Heap objects freed since the start (MemStats.Frees).", runtimeCounter, []string{"/gc/heap/frees:objects", tinyAllocs}},
		{"go_memstats_gc_sys_bytes", "Bytes of garbage collection metadata (MemStats.GCSys).", runtimeGauge, []string{"/memory/classes/metadata/other:bytes"}},
		{"go_memstats_heap_alloc_bytes", "Bytes of heap objects allocated and not yet freed (MemStats.HeapAlloc).", runtimeGauge, []string{heapObjects}},
		{"go_memstats_heap_idle_bytes", "Bytes of heap spans holding no object (MemStats.HeapIdle).", runtimeGauge, []string{heapReleased, heapFree}},
		{"go_memstats_heap_inuse_bytes", "Bytes of heap spans holding at least one object (MemStats.HeapInuse).", runtimeGauge, []string{heapObjects, heapUnused}},
		{"go_memstats_heap_objects", "Heap objects allocated and not yet freed (MemStats.HeapObjects).", runtimeGauge, []string{"/gc/heap/objects:objects"}},
		{"go_memstats_heap_released_bytes", "Bytes of heap memory returned to the operating system (MemStats.HeapReleased).", runtimeGauge, []string{heapReleased}},
		{"go_memstats_heap_sys_bytes", "Bytes of heap memory obtained from the operating system (MemStats.HeapSys).", runtimeGauge, []string{heapObjects, heapUnused, heapReleased, heapFree}},
		{"go_memstats_mallocs_total", "Heap objects allocated since the start (MemStats.Mallocs).", runtimeCounter, []string{"/gc/heap/allocs:objects", tinyAllocs}},
		{"go_memstats_mcache_inuse_bytes", "Bytes of mcache structures in use (MemStats.MCacheInuse).", runtimeGauge, []string{mcacheInuse}},
		{"go_memstats_mcache_sys_bytes", "Bytes obtained from the operating system for mcache structures (MemStats.MCacheSys).", runtimeGauge, []string{mcacheInuse, "/memory/classes/metadata/mcache/free:bytes"}},
		{"go_memstats_mspan_inuse_bytes", "Bytes of mspan structures in use (MemStats.MSpanInuse).", runtimeGauge, []string{mspanInuse}},
		{"go_memstats_mspan_sys_bytes", "Bytes obtained from the operating system for mspan structures (MemStats.MSpanSys).", runtimeGauge, []string{mspanInuse, "/memory/classes/metadata/mspan/free:bytes"}},
		{"go_memstats_next_gc_bytes", "The heap size the next garbage collection aims at (MemStats.NextGC).", runtimeGauge, []string{"/gc/heap/goal:bytes"}},
		{"go_memstats_other_sys_bytes", "Bytes of other runtime allocations (MemStats.OtherSys).", runtimeGauge, []string{"/memory/classes/other:bytes"}},
		{"go_memstats_stack_inuse_bytes", "Bytes of stack spans in use (MemStats.StackInuse).", runtimeGauge, []string{heapStacks}},
		{"go_memstats_stack_sys_bytes", "Bytes of stack memory obtained from the operating system (MemStats.StackSys).", runtimeGauge, []string{heapStacks, "/memory/classes/os-stacks:bytes"}},
		{"go_memstats_sys_bytes", "Bytes of memory the Go runtime obtained from the operating system (MemStats.Sys).", runtimeGauge, []string{"/memory/classes/total:bytes"}},
	} {
		fn := func() float64 { return readRuntime(m.sum) }
		if m.counter {
			r.CounterFunc(m.name, m.help, fn)
		} else {
			r.GaugeFunc(m.name, m.help, fn)
		}
	}
	r.addProcess()
}

// readRuntime returns the sum of the runtime/metrics values named.
func readRuntime(names []string) float64 {
	samples := make([]rtmetrics.Sample, len(names))
	for i, n := range names {
		samples[i].Name = n
	}
	rtmetrics.Read(samples)
	var sum float64
	for _, s := range samples {
		switch s.Value.Kind() {
		case rtmetrics.KindUint64:
			sum += float64(s.Value.Uint64())
		case rtmetrics.KindFloat64:
			sum += s.Value.Float64()
		}
	}
	return sum
}
