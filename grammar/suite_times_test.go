package grammar

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/beamharmony/harmony/internal/cputime"
)

// suitePasses is how many times BenchmarkSuiteTimes times the whole suite
// (and llamacpp_times.py the converter's).
const suitePasses = 3

var suiteTimes = flag.String("suite-times", "", "write the CPU time of compiling each test-suite schema (a response format, not strict) to this JSON file, for bench/grammar")

// BenchmarkSuiteTimes times grammar.Compile on every schema of the JSON
// Schema Test Suite, for bench/run's comparison with llama.cpp's
// converter: each schema is compiled in rounds of ten until the rounds
// took 2 ms and at least five ran, and its time is the least round's mean
// (the figure least disturbed by the rest of the machine) in CPU time of
// the process, as llamacpp_times.py measures the converter (on a busy
// machine, wall time also counts the waits for a core, which CPU time does
// not); wall_ns is the same in wall time. The suite is timed suitePasses
// times over and each schema keeps its least time: a garbage collection
// (or another process) can slow every round of one schema's 2 ms alike,
// which put a few schemas at 8 times their time in one pass and set the
// 99th percentile. It writes the file named by -suite-times (run it with
// -benchtime 1x: b.N is not used).
func BenchmarkSuiteTimes(b *testing.B) {
	if *suiteTimes == "" {
		b.Fatal("set -suite-times FILE")
	}
	t := b
	type entry struct {
		Name     string  `json:"name"`
		Ns       float64 `json:"ns"`
		WallNs   float64 `json:"wall_ns"`
		Compiled bool    `json:"compiled"`
	}
	var out []entry
	for pass := range suitePasses {
		k := 0
		for _, f := range loadSuite(t) {
			for i, c := range f.cases {
				spec := &Spec{Format: &Format{Schema: c.Schema}}
				_, err := Compile(context.Background(), spec)
				best, bestWall := time.Duration(1<<62), time.Duration(1<<62)
				for spent, rounds := time.Duration(0), 0; spent < 2*time.Millisecond || rounds < 5; rounds++ {
					start, cpu := time.Now(), cputime.Process()
					for range 10 {
						Compile(context.Background(), spec)
					}
					d, dcpu := time.Since(start), cputime.Process()-cpu
					spent += d
					best, bestWall = min(best, dcpu/10), min(bestWall, d/10)
				}
				e := entry{f.name + "#" + strconv.Itoa(i), float64(best.Nanoseconds()), float64(bestWall.Nanoseconds()), err == nil}
				if pass == 0 {
					out = append(out, e)
				} else {
					out[k].Ns, out[k].WallNs = min(out[k].Ns, e.Ns), min(out[k].WallNs, e.WallNs)
				}
				k++
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	data, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*suiteTimes, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
