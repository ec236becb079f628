// Command report reads the raw output of bench/run (Go benchmark files,
// the Jinja2 timing and the grammar compilers' per-schema times in
// bench/out) and prints issue 19's bounds, and issue 33's for the grammar,
// as one table: each measure, its bound, the two figures it compares, their ratio
// and whether the bound is met. Each figure is the median over the runs of
// that benchmark in the files; a benchmark missing from them is reported
// as not measured, never as met.
//
// Usage (from the repository root, after bench/run):
//
//	go run ./bench/report [-dir bench/out]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	dir := flag.String("dir", "bench/out", "the directory bench/run wrote")
	flag.Parse()
	res, err := load(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	fmt.Print(table(res, rows))
}

// results holds every sample of every metric: samples[benchmark][unit].
type results struct {
	samples map[string]map[string][]float64
	// jinja holds, for each key of the Jinja2 timings (microseconds),
	// one sample per jinja*.json file: bench/run times the template in
	// rounds, each right after a round of the renderer's benchmarks.
	jinja map[string][]float64
	// suites holds the per-schema compile times of the JSON Schema Test
	// Suite (suite-go.json from grammar/suite_times_test.go,
	// suite-llamacpp.json from bench/grammar/llamacpp_times.py), by
	// compiler and schema; a file missing leaves its compiler out.
	suites map[string]map[string]suiteTime
}

// suiteTime is one schema's entry in a suite-*.json file.
type suiteTime struct {
	Ns       float64 `json:"ns"`
	Compiled bool    `json:"compiled"`
}

// suiteFiles are the compilers' per-schema times bench/run writes.
var suiteFiles = map[string]string{"go": "suite-go.json", "llamacpp": "suite-llamacpp.json"}

// suffix is the -GOMAXPROCS suffix of a benchmark name.
var suffix = regexp.MustCompile(`-\d+$`)

// load reads every *.txt file of dir in the Go benchmark format, and
// every jinja*.json file (jinja.json, or jinja-1.json, jinja-2.json, ...:
// one per round of the template's timing).
func load(dir string) (*results, error) {
	r := &results{samples: map[string]map[string][]float64{}, jinja: map[string][]float64{}, suites: map[string]map[string]suiteTime{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := r.readBench(f); err != nil {
			return nil, err
		}
	}
	rounds, err := filepath.Glob(filepath.Join(dir, "jinja*.json"))
	if err != nil {
		return nil, err
	}
	for _, f := range rounds {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var times map[string]float64
		if err := json.Unmarshal(data, &times); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		for k, v := range times {
			r.jinja[k] = append(r.jinja[k], v)
		}
	}
	for compiler, name := range suiteFiles {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var entries []struct {
			Name string `json:"name"`
			suiteTime
		}
		if err := json.Unmarshal(data, &entries); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		byName := map[string]suiteTime{}
		for _, e := range entries {
			byName[e.Name] = e.suiteTime
		}
		r.suites[compiler] = byName
	}
	return r, nil
}

// readBench adds the samples of one benchmark output file: lines
// "BenchmarkName-2  N  value unit  value unit ...".
func (r *results) readBench(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		name := suffix.ReplaceAllString(fields[0], "")
		if r.samples[name] == nil {
			r.samples[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			r.samples[name][fields[i+1]] = append(r.samples[name][fields[i+1]], v)
		}
	}
	return sc.Err()
}

// median returns the median sample of the benchmark's unit, or NaN.
func (r *results) median(name, unit string) float64 { return median(r.samples[name][unit]) }

// median is the median of samples, or NaN when there are none.
func median(samples []float64) float64 {
	s := append([]float64(nil), samples...)
	if len(s) == 0 {
		return math.NaN()
	}
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// matching returns the benchmark names that match the pattern, sorted.
func (r *results) matching(pattern string) []string {
	re := regexp.MustCompile(pattern)
	var names []string
	for n := range r.samples {
		if re.MatchString(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// figure is one side of a comparison: a value and what it is.
type figure struct {
	value float64
	what  string
}

// row is one measure of issue 19: compute returns its two figures (a
// NaN when not measured) and the ratio to hold against the bound.
type row struct {
	measure string
	bound   string
	compute func(r *results) (ours, ref figure, ratio float64, met bool)
}

// atLeast is a row whose ratio ref/ours (a speed-up) must be at least min.
func atLeast(measure string, min float64, ours, ref func(*results) figure) row {
	return row{measure, fmt.Sprintf(">= %gx", min), func(r *results) (figure, figure, float64, bool) {
		o, f := ours(r), ref(r)
		ratio := f.value / o.value
		return o, f, ratio, ratio >= min
	}}
}

// atMost is a row whose ratio ours/ref (a cost) must be at most max.
func atMost(measure string, max float64, ours, ref func(*results) figure) row {
	return row{measure, fmt.Sprintf("<= %gx", max), func(r *results) (figure, figure, float64, bool) {
		o, f := ours(r), ref(r)
		ratio := o.value / f.value
		return o, f, ratio, ratio <= max
	}}
}

// bench is a figure read from a benchmark's median, scaled.
func bench(name, unit string, scale float64, what string) func(*results) figure {
	return func(r *results) figure { return figure{r.median(name, unit) * scale, what} }
}

// fastest is the lowest median among the benchmarks matching pattern.
func fastest(pattern, unit string, scale float64, what string) func(*results) figure {
	return func(r *results) figure {
		best, bestName := math.NaN(), ""
		for _, n := range r.matching(pattern) {
			if v := r.median(n, unit); !math.IsNaN(v) && (math.IsNaN(best) || v < best) {
				best, bestName = v, n
			}
		}
		return figure{best * scale, what + " (" + strings.TrimPrefix(bestName[strings.LastIndex(bestName, "/")+1:], "Benchmark") + ")"}
	}
}

// jinja is the Jinja2 template's CPU time of a request group: the median
// over the rounds of the timing (each round's figure is itself a median).
func jinja(key string) func(*results) figure {
	return func(r *results) figure { return figure{median(r.jinja[key]), "us CPU, Jinja2"} }
}

var rows = []row{
	atLeast("Render, realistic request, vs Jinja2 (HF environment)", 150,
		bench("BenchmarkRender", "ns/op", 1e-3, "us"), jinja("realistic_cpu_us")),
	atLeast("DecodeAndRender vs Jinja2", 40,
		bench("BenchmarkDecodeAndRender", "ns/op", 1e-3, "us"), jinja("realistic_cpu_us")),
	atLeast("stream parse, 64 KiB code argument, 4-byte chunks, vs the fastest Ollama parser", 10,
		bench("BenchmarkVsOllama/code-argument/beam", "ns/op", 1e-3, "us"),
		fastest(`^BenchmarkVsOllama/code-argument/ollama-`, "ns/op", 1e-3, "us")),
	atLeast("stream parse, reasoning + answer, vs the fastest Ollama parser", 10,
		bench("BenchmarkVsOllama/reasoning-answer/beam", "ns/op", 1e-3, "us"),
		fastest(`^BenchmarkVsOllama/reasoning-answer/ollama-`, "ns/op", 1e-3, "us")),
	atLeast("stream parse, reasoning + answer 64 KiB, vs the fastest Ollama parser", 10,
		bench("BenchmarkVsOllama/reasoning-answer-64KiB/beam", "ns/op", 1e-3, "us"),
		fastest(`^BenchmarkVsOllama/reasoning-answer-64KiB/ollama-`, "ns/op", 1e-3, "us")),
	atMost("gateway CPU per streamed token vs a bare relay: answer", 1.15,
		bench("BenchmarkGatewayStream/answer/gateway", "cpu-ns/token", 1, "cpu-ns/token"),
		bench("BenchmarkGatewayStream/answer/relay", "cpu-ns/token", 1, "cpu-ns/token")),
	atMost("gateway CPU per streamed token vs a bare relay: tool call", 1.15,
		bench("BenchmarkGatewayStream/tool_call/gateway", "cpu-ns/token", 1, "cpu-ns/token"),
		bench("BenchmarkGatewayStream/tool_call/relay", "cpu-ns/token", 1, "cpu-ns/token")),
	tokenizerRow("prose"), tokenizerRow("code"), tokenizerRow("prompt"), tokenizerRow("multilingual"),
	atLeast("tokenizer vs npm tiktoken (Rust in WASM), prose", 1,
		bench("BenchmarkEncode/prose/harmony", "cpu-ns/op", 1e-6, "cpu-ms"),
		bench("BenchmarkEncode/prose/npm-tiktoken-wasm", "cpu-ns/op", 1e-6, "cpu-ms")),
	deepseekRow("multilingual"), deepseekRow("prose"),
	atLeast("EncodeBatch, two pieces, 2 goroutines vs 1", 1.8,
		bench("BenchmarkEncodeBatch/goroutines=2", "ns/op", 1e-6, "ms"),
		bench("BenchmarkEncodeBatch/goroutines=1", "ns/op", 1e-6, "ms")),
	atMost("loading o200k's tokenizer.json (ms, bound 300 ms)", 1,
		bench("BenchmarkLoad", "ns/op", 1e-6, "ms"), constant(300, "ms bound")),
	atMost("tokenize command vs the package, same text", 1.5,
		bench("BenchmarkTokenize/command", "ns/op", 1e-6, "ms"),
		bench("BenchmarkTokenize/package", "ns/op", 1e-6, "ms")),
	atMost("dataset with a tokenizer to Parquet, 100 MB: peak RSS (bound 200 MB)", 1,
		bench("BenchmarkDatasetTokens100MB", "peak-MB", 1, "MB"), constant(200, "MB bound")),
	atLeast("grammar.Compile vs llama.cpp's converter, JSON Schema Test Suite (issue 33): median", 10,
		suitePercentile("go", 0.5, "us"), suitePercentile("llamacpp", 0.5, "us, Python")),
	atLeast("grammar.Compile vs llama.cpp's converter, JSON Schema Test Suite (issue 33): p99", 10,
		suitePercentile("go", 0.99, "us"), suitePercentile("llamacpp", 0.99, "us, Python")),
}

// suitePercentile is the p-th percentile of a compiler's per-schema times
// (microseconds) over the schemas both compilers compiled, as
// bench/grammar/compare.py computes it: NaN when either file is missing.
func suitePercentile(compiler string, p float64, what string) func(*results) figure {
	return func(r *results) figure {
		ours, ref := r.suites["go"], r.suites["llamacpp"]
		var times []float64
		for name, e := range ours {
			if o, ok := ref[name]; ok && e.Compiled && o.Compiled {
				times = append(times, r.suites[compiler][name].Ns/1e3)
			}
		}
		if len(times) == 0 {
			return figure{math.NaN(), what}
		}
		sort.Float64s(times)
		return figure{times[min(len(times)-1, int(p*float64(len(times))))], what}
	}
}

// tokenizerRow compares ids-only encoding with tiktoken-go on one text.
func tokenizerRow(text string) row {
	return atLeast("tokenizer vs tiktoken-go (o200k, ids only): "+text, 10,
		bench("BenchmarkEncode/"+text+"/harmony", "cpu-ns/op", 1e-6, "cpu-ms"),
		bench("BenchmarkEncode/"+text+"/tiktoken-go", "cpu-ns/op", 1e-6, "cpu-ms"))
}

// deepseekRow compares DeepSeek V3's pre-tokenizer with o200k's, the same
// vocabulary under both: DeepSeek's speed must be at least half of o200k's.
func deepseekRow(text string) row {
	return atLeast("DeepSeek V3 encode, speed relative to o200k's: "+text, 0.5,
		bench("BenchmarkEncodeDeepSeek/"+text+"/deepseek", "cpu-ns/op", 1e-6, "cpu-ms"),
		bench("BenchmarkEncodeDeepSeek/"+text+"/o200k", "cpu-ns/op", 1e-6, "cpu-ms"))
}

// constant is a fixed figure: the bound itself.
func constant(v float64, what string) func(*results) figure {
	return func(*results) figure { return figure{v, what} }
}

// table formats the rows as Markdown.
func table(r *results, rows []row) string {
	var b strings.Builder
	b.WriteString("| measure | bound | ours | reference | ratio | met |\n| --- | --- | ---: | ---: | ---: | --- |\n")
	for _, row := range rows {
		ours, ref, ratio, met := row.compute(r)
		verdict := "no"
		switch {
		case math.IsNaN(ratio):
			verdict = "not measured"
		case met:
			verdict = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", row.measure, row.bound, show(ours), show(ref), showRatio(ratio), verdict)
	}
	return b.String()
}

func show(f figure) string {
	if math.IsNaN(f.value) {
		return "-"
	}
	return strconv.FormatFloat(f.value, 'f', digits(f.value), 64) + " " + f.what
}

func showRatio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 2, 64) + "x"
}

// digits keeps three significant figures.
func digits(v float64) int {
	switch {
	case v >= 100:
		return 0
	case v >= 10:
		return 1
	}
	return 2
}
