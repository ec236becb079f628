package tokenizer_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/beamharmony/harmony/internal/cputime"
	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

// BenchmarkEncode compares, on the same texts, this package (ids only, as
// a server or a dataset pipeline asks) and npm tiktoken (Rust compiled to
// WASM, under node; its time is the metric node-ns/op, measured by node
// itself); the conformance module's BenchmarkEncode adds
// github.com/tiktoken-go/tokenizer's o200k_base on the same texts
// (conformance/tiktoken). Marker text is encoded as ordinary text by all.
func BenchmarkEncode(b *testing.B) {
	tk := beam(b)
	texts := benchTexts(b)
	for _, name := range []string{"prose", "code", "prompt", "multilingual"} {
		text := texts[name]
		b.Run(name+"/harmony", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var ids []int
			cpu := cputime.Start()
			for b.Loop() {
				ids = tk.AppendEncodeOrdinary(ids[:0], text)
			}
			cpu.Report(b, len(text))
			b.ReportMetric(float64(len(ids)), "tokens")
		})
		b.Run(name+"/npm-tiktoken-wasm", func(b *testing.B) {
			benchNode(b, text)
		})
	}
}

// benchNode runs testdata/oracle/bench.mjs on text for b.N iterations and
// reports node's own time per encoding.
func benchNode(b *testing.B, text string) {
	if _, err := os.Stat(filepath.Join(oracleDir, "node_modules", "tiktoken", "package.json")); err != nil {
		b.Skip("npm tiktoken is not installed (npm ci in tokenizer/testdata/oracle)")
	}
	f := filepath.Join(b.TempDir(), "text.txt")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	cmd := exec.Command("node", "bench.mjs", f, strconv.Itoa(b.N))
	cmd.Dir = oracleDir
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("node bench.mjs: %v", err)
	}
	var r struct {
		NsPerOp    float64 `json:"ns_per_op"`
		CPUNsPerOp float64 `json:"cpu_ns_per_op"`
		Tokens     int     `json:"tokens"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(r.NsPerOp, "node-ns/op")
	b.ReportMetric(r.CPUNsPerOp, "cpu-ns/op")
	b.ReportMetric(float64(len(text))/r.CPUNsPerOp*1e3, "cpu-MB/s")
	b.ReportMetric(float64(r.Tokens), "tokens")
}

// BenchmarkEncodeParallel encodes the three texts from GOMAXPROCS
// goroutines sharing one Tokenizer (run with -cpu 1,2 to see the scaling).
func BenchmarkEncodeParallel(b *testing.B) {
	tk := beam(b)
	texts := benchTexts(b)
	all := texts["prose"] + texts["code"] + texts["prompt"]
	b.SetBytes(int64(len(all)))
	cpu := cputime.Start()
	defer func() { cpu.Report(b, len(all)) }()
	b.RunParallel(func(pb *testing.PB) {
		var ids []int
		for pb.Next() {
			ids = tk.AppendEncodeOrdinary(ids[:0], texts["prose"])
			ids = tk.AppendEncodeOrdinary(ids[:0], texts["code"])
			ids = tk.AppendEncodeOrdinary(ids[:0], texts["prompt"])
		}
	})
}

// BenchmarkEncodeDeepSeek encodes, ids only, with Beam's vocabulary under
// o200k's pre-tokenizer (one hand-written scanner) and under DeepSeek V3's
// (three Splits on hand-written matchers; the regexp2 row runs the same
// patterns on regexp2, as every pattern without a scanner did before), on
// the three texts and a multilingual one. Issue 19 asks for DeepSeek at
// least half of o200k's speed.
func BenchmarkEncodeDeepSeek(b *testing.B) {
	fast, slow := deepseekLike(b)
	texts := benchTexts(b)
	for _, name := range []string{"prose", "code", "prompt", "multilingual"} {
		text := texts[name]
		for _, c := range []struct {
			name string
			tk   *tokenizer.Tokenizer
		}{{"o200k", beam(b)}, {"deepseek", fast}, {"deepseek-regexp2", slow}} {
			b.Run(name+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				var ids []int
				cpu := cputime.Start()
				for b.Loop() {
					ids = c.tk.AppendEncodeOrdinary(ids[:0], text)
				}
				cpu.Report(b, len(text))
				b.ReportMetric(float64(len(ids)), "tokens")
			})
		}
	}
}

// BenchmarkEncodeBatch encodes the three texts as two pieces (the first
// halves of the three, then the second halves, cut at a line break) with
// EncodeOrdinaryBatch, on one goroutine (GOMAXPROCS 1) and on two
// (GOMAXPROCS 2): the same work, so the ratio of the two ns/op is the
// scaling. Only wall time scales; the CPU time per op stays about the same.
func BenchmarkEncodeBatch(b *testing.B) {
	tk := beam(b)
	texts := benchTexts(b)
	var first, second strings.Builder
	for _, name := range []string{"prose", "code", "prompt"} {
		s := texts[name]
		cut := strings.IndexByte(s[len(s)/2:], '\n') + len(s)/2 + 1
		first.WriteString(s[:cut])
		second.WriteString(s[cut:])
	}
	pieces := []string{first.String(), second.String()}
	n := len(pieces[0]) + len(pieces[1])
	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("goroutines=%d", procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			b.SetBytes(int64(n))
			cpu := cputime.Start()
			for b.Loop() {
				tk.EncodeOrdinaryBatch(pieces)
			}
			cpu.Report(b, n)
		})
	}
}

// BenchmarkEncodeBatchOne encodes the three texts joined, one text, with
// EncodeOrdinaryBatch on one goroutine and on two: the batch cuts a long
// text into spans, so a single text is encoded on both cores too.
func BenchmarkEncodeBatchOne(b *testing.B) {
	tk := beam(b)
	texts := benchTexts(b)
	one := []string{texts["prose"] + texts["code"] + texts["prompt"]}
	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("goroutines=%d", procs), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			b.SetBytes(int64(len(one[0])))
			cpu := cputime.Start()
			for b.Loop() {
				tk.EncodeOrdinaryBatch(one)
			}
			cpu.Report(b, len(one[0]))
		})
	}
}

// BenchmarkEncodeOffsets is Encode with character offsets, on the prompt.
func BenchmarkEncodeOffsets(b *testing.B) {
	tk := beam(b)
	text := benchTexts(b)["prompt"]
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	cpu := cputime.Start()
	for b.Loop() {
		tk.Encode(text)
	}
	cpu.Report(b, len(text))
}

// BenchmarkLongWord encodes one word with no split point (the heap merge);
// ns/op divided by the length (the B/s column) stays flat as it grows.
func BenchmarkLongWord(b *testing.B) {
	tk := beam(b)
	for _, n := range []int{1 << 10, 1 << 14, 1 << 17, 1 << 20} {
		text := strings.Repeat("ab", n/2)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			cpu := cputime.Start()
			for b.Loop() {
				tk.AppendEncodeOrdinary(nil, text)
			}
			cpu.Report(b, n)
		})
	}
}

// BenchmarkLoad loads Beam's tokenizer.json (12 MB, 199,998 tokens, 446,189
// merges) and reports the heap it keeps.
func BenchmarkLoad(b *testing.B) {
	dir, err := tokgen.BeamDir()
	if err != nil {
		b.Fatal(err)
	}
	var keep *tokenizer.Tokenizer
	var before, after runtime.MemStats
	var cpu time.Duration
	for b.Loop() {
		keep = nil
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := cputime.Process()
		keep, err = tokenizer.Load(dir)
		cpu += cputime.Process() - c
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "heap-MB")
	runtime.KeepAlive(keep)
}

// benchTexts returns the benchmark inputs (tokgen.BenchTexts).
func benchTexts(b *testing.B) map[string]string {
	b.Helper()
	texts, err := tokgen.BenchTexts("..")
	if err != nil {
		b.Fatal(err)
	}
	return texts
}
