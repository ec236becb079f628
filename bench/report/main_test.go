package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The table takes medians from benchmark files, divides the right way, and
// says "not measured", never "yes", when a figure is missing.
func TestTable(t *testing.T) {
	dir := t.TempDir()
	bench := `goos: linux
BenchmarkRender-2   	 100	 12000 ns/op	 27000 B/op	 1 allocs/op
BenchmarkRender-2   	 100	 14000 ns/op	 27000 B/op	 1 allocs/op
BenchmarkRender-2   	 100	 90000 ns/op	 27000 B/op	 1 allocs/op
BenchmarkGatewayStream/answer/relay-2 	 10	 5 ns/op	 2000 cpu-ns/token
BenchmarkGatewayStream/answer/gateway-2 	 10	 5 ns/op	 2400 cpu-ns/token
BenchmarkVsOllama/reasoning-answer/beam 	 10	 20000 ns/op
BenchmarkVsOllama/reasoning-answer/ollama-a 	 10	 180000 ns/op
BenchmarkVsOllama/reasoning-answer/ollama-b 	 10	 170000 ns/op
BenchmarkVsOllama/reasoning-answer-64KiB/beam 	 10	 250000 ns/op
BenchmarkVsOllama/reasoning-answer-64KiB/ollama-a 	 10	 2600000 ns/op
BenchmarkVsOllama/reasoning-answer-64KiB/ollama-b 	 10	 3000000 ns/op
`
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(bench), 0o644); err != nil {
		t.Fatal(err)
	}
	// Three rounds of the template's timing: the median round counts,
	// not the first, the last or the mean.
	for i, us := range []string{"2600", "2100", "1900"} {
		name := filepath.Join(dir, "jinja-"+strconv.Itoa(i+1)+".json")
		if err := os.WriteFile(name, []byte(`{"realistic_cpu_us": `+us+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Per-schema compile times: only the schemas both compiled count
	// (c compiled by the converter only, d by neither).
	suiteGo := `[{"name": "a#0", "ns": 1000, "compiled": true}, {"name": "b#0", "ns": 2000, "compiled": true},
		{"name": "c#0", "ns": 1, "compiled": false}, {"name": "d#0", "ns": 1, "compiled": false}]`
	suiteLlama := `[{"name": "a#0", "ns": 30000, "compiled": true}, {"name": "b#0", "ns": 10000, "compiled": true},
		{"name": "c#0", "ns": 90000, "compiled": true}, {"name": "d#0", "ns": 1, "compiled": false}]`
	for name, data := range map[string]string{"suite-go.json": suiteGo, "suite-llamacpp.json": suiteLlama} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := load(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := table(r, rows)
	for _, want := range []string{
		"| Render, realistic request, vs Jinja2 (HF environment) | >= 150x | 14.0 us | 2100 us CPU, Jinja2 | 150.00x | yes |",
		"| gateway CPU per streamed token vs a bare relay: answer | <= 1.15x | 2400 cpu-ns/token | 2000 cpu-ns/token | 1.20x | no |",
		"| DecodeAndRender vs Jinja2 | >= 40x | - | 2100 us CPU, Jinja2 | - | not measured |",
		// Each size compares with its own fastest Ollama parser, never the other size's.
		"| stream parse, reasoning + answer, vs the fastest Ollama parser | >= 10x | 20.0 us | 170 us (ollama-b) | 8.50x | no |",
		"| stream parse, reasoning + answer 64 KiB, vs the fastest Ollama parser | >= 10x | 250 us | 2600 us (ollama-a) | 10.40x | yes |",
		// The median of two is the upper one (compare.py's index p*n).
		"| grammar.Compile vs llama.cpp's converter, JSON Schema Test Suite (issue 33): median | >= 10x | 2.00 us | 30.0 us, Python | 15.00x | yes |",
		"| grammar.Compile vs llama.cpp's converter, JSON Schema Test Suite (issue 33): p99 | >= 10x | 2.00 us | 30.0 us, Python | 15.00x | yes |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing row %q in\n%s", want, out)
		}
	}
}
