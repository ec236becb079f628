package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestJSONSchemaBench checks the compiler on real-world schemas: the
// files of JSONSchemaBench's MaskBench (github.com/guidance-ai/jsonschemabench,
// maskbench/data: about 11,000 schemas from GitHub, Kubernetes, Snowplow,
// the Washington Post, JSON Schema Store, Glaive's and Berkeley's function
// calls, each with valid and invalid instances), which are not vendored
// here. It runs only with -jsonschemabench DIR, DIR holding those files.
//
// Every schema is compiled as a response format, not strict and strict,
// and every instance up to maxCheckedInstance bytes checked as
// TestJSONSchemaTestSuite checks the official suite's; it is compiled as
// a tool's parameters too, both modes, for the checks of a compile. It
// fails when a compile fails with an error that is
// not *Error, allocates more than 64 MiB, writes a grammar llama.cpp would
// refuse or whose left-recursion check costs more than the compiler
// estimated (llamacheck_test.go), or when an instance breaks what
// the compiler promises: under strict, a valid instance rejected or an
// invalid one accepted; not strict, an invalid instance accepted with no
// keyword reported dropped, or a valid one rejected for another reason
// than an undeclared property (objects are closed by default, decision
// 103) or a schema refused that some valid instance satisfies. Those are
// listed, with the counts, in the log, and in -jsonschemabench-out FILE.
// The wall-clock times of the compiles are reported, never asserted.
var (
	benchDir = flag.String("jsonschemabench", "", "check the compiler on the JSONSchemaBench (MaskBench) files in `DIR`")
	benchOut = flag.String("jsonschemabench-out", "", "write TestJSONSchemaBench's counts and violations into `FILE`")
)

// add adds the counts of o to c.
func (c *suiteCounts) add(o *suiteCounts) {
	c.schemas += o.schemas
	c.compiled += o.compiled
	c.refused += o.refused
	c.validAccepted += o.validAccepted
	c.validRejected += o.validRejected
	c.validReordered += o.validReordered
	c.invalidRejected += o.invalidRejected
	c.invalidAccepted += o.invalidAccepted
	c.invalidExcused += o.invalidExcused
	c.skipped += o.skipped
	c.tooLong += o.tooLong
	c.violations += o.violations
	for k, n := range o.byKind {
		c.byKind[k] += n
	}
	for k, n := range o.byFile {
		c.byFile[k] += n
	}
}

// maxCheckedInstance is the longest instance TestJSONSchemaBench checks,
// in bytes of JSON: this package's test matcher, which finds every way a
// rule can match from every position, took 14 minutes on one of 15 KB. It
// leaves out 364 of the 37,011 instances (the median is 266 bytes).
const maxCheckedInstance = 4096

// loadBench reads the MaskBench files in dir: one case each, named by
// the file.
func loadBench(t testing.TB, dir string) []suiteFile {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no .json files in %s: %v", dir, err)
	}
	sort.Strings(paths)
	var files []suiteFile
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var c suiteCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if c.Schema == nil {
			t.Fatalf("%s: no schema", p)
		}
		c.Description = "-" // the file names it
		files = append(files, suiteFile{name: strings.TrimSuffix(filepath.Base(p), ".json"), cases: []suiteCase{c}})
	}
	return files
}

func TestJSONSchemaBench(t *testing.T) {
	if *benchDir == "" {
		t.Skip("checks real-world schemas only with -jsonschemabench DIR")
	}
	files := loadBench(t, *benchDir)

	// The cost of each compile, in the four modes.
	type cost struct {
		name  string
		wall  time.Duration
		bytes uint64
	}
	var costs []cost
	var ms runtime.MemStats
	for _, f := range files {
		// As a response format and as a tool's parameters (the argument
		// grammar), strict and not.
		for mode := range 4 {
			strict, tool := mode%2 == 1, mode >= 2
			spec := &Spec{Format: &Format{Schema: f.cases[0].Schema, Strict: strict}}
			if tool {
				spec = &Spec{Tools: []Tool{{Name: "f", Parameters: f.cases[0].Schema, Strict: strict}}, Choice: Required}
			}
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			start := time.Now()
			g, err := Compile(context.Background(), spec)
			wall := time.Since(start)
			runtime.ReadMemStats(&ms)
			name := f.name
			if tool {
				name += " (tool)"
			}
			if strict {
				name += " (strict)"
			}
			costs = append(costs, cost{name, wall, ms.TotalAlloc - before})
			var ge *Error
			if err != nil && !errors.As(err, &ge) {
				t.Errorf("%s: an error that is not *Error: %v", name, err)
			}
			if err != nil {
				continue
			}
			// As llama.cpp would load it (llamacheck_test.go).
			if rules, err := llamaParse(g.GBNF()); err != nil {
				t.Errorf("%s: llama.cpp would refuse the grammar: %v", name, err)
			} else if walk, recursive := llamaLeftRecursionCheck(rules); recursive || walk > g.leftmostWalk {
				t.Errorf("%s: llama.cpp's check for left recursion: recursive %v, cost %d, estimated %d", name, recursive, walk, g.leftmostWalk)
			}
		}
	}
	slices.SortFunc(costs, func(a, b cost) int { return int(a.wall - b.wall) })
	pct := func(p float64) cost { return costs[min(len(costs)-1, int(p*float64(len(costs))))] }
	var report strings.Builder
	fmt.Fprintf(&report, "compiles: %d; wall-clock median %v, p99 %v, max %v (%s)\n", len(costs), pct(0.5).wall, pct(0.99).wall, costs[len(costs)-1].wall, costs[len(costs)-1].name)
	slices.SortFunc(costs, func(a, b cost) int { return int(int64(a.bytes) - int64(b.bytes)) })
	fmt.Fprintf(&report, "allocated: median %d B, max %d B (%s)\n", pct(0.5).bytes, costs[len(costs)-1].bytes, costs[len(costs)-1].name)
	for _, c := range costs {
		if c.bytes > 64<<20 {
			t.Errorf("%s: the compile allocated %d bytes, over 64 MiB", c.name, c.bytes)
		}
	}

	// One file at a time, so that the slowest can be named.
	res := &suiteResult{counts: map[string]*suiteCounts{}}
	for _, m := range suiteModes {
		res.counts[m.name] = &suiteCounts{byKind: map[string]int{}, byFile: map[string]int{}}
	}
	for _, f := range files {
		start := time.Now()
		one := runSuite(t, []suiteFile{f}, maxCheckedInstance)
		if d := time.Since(start); d > 10*time.Second {
			t.Logf("%s: %v to check", f.name, d)
		}
		res.lines = append(res.lines, one.lines...)
		res.where = append(res.where, one.where...)
		for name, c := range one.counts {
			res.counts[name].add(c)
		}
	}
	for _, m := range suiteModes {
		c := res.counts[m.name]
		fmt.Fprintf(&report, "%s: %d schemas, %d compiled, %d refused; valid instances %d accepted, %d accepted in the declared order, %d rejected; invalid %d rejected, %d accepted with a keyword reported dropped, %d accepted with nothing reported; %d that can't be written, %d not checked (over %d bytes); violations %v\n",
			m.name, c.schemas, c.compiled, c.refused, c.validAccepted, c.validReordered, c.validRejected, c.invalidRejected, c.invalidExcused, c.invalidAccepted, c.skipped, c.tooLong, maxCheckedInstance, c.byKind)
	}
	// What the compiler promises (the closed object is the documented
	// default, not a violation).
	var broken []string
	for _, l := range res.lines {
		if !strings.HasSuffix(l, "|"+kindClosedObject) {
			broken = append(broken, l)
		}
	}
	fmt.Fprintf(&report, "violations of the promises: %d\n%s", len(broken), strings.Join(broken, "\n"))
	t.Log(report.String())
	if *benchOut != "" {
		out := report.String() + "\n" + strings.Join(res.lines, "\n") + "\n\nWhere each valid instance rejected stops matching:\n" + strings.Join(res.where, "\n") + "\n"
		if err := os.WriteFile(*benchOut, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(broken) > 0 {
		t.Errorf("%d violations of the compiler's promises (above)", len(broken))
	}
}
