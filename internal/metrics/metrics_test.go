package metrics

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func exposition(t *testing.T, r *Registry) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := r.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestExposition checks the text format, rule by rule, on small registries.
func TestExposition(t *testing.T) {
	for _, tt := range []struct {
		name  string
		build func(r *Registry)
		want  string
	}{
		{"a counter counts; integers are written without a decimal point", func(r *Registry) {
			c := r.Counter("c_total", "Things.")
			c.Inc()
			c.Add(2)
		}, "# HELP c_total Things.\n# TYPE c_total counter\nc_total 3\n"},
		{"numbers are the shortest decimal that reads back, in exponent form from 1e21 or 7 digits", func(r *Registry) {
			r.Counter("a_total", "").Add(0.1)
			r.Counter("b_total", "").Add(1 << 20)
			r.Counter("c_total", "").Add(2000033)
			r.Counter("d_total", "").Add(262144)
		}, "# HELP a_total \n# TYPE a_total counter\na_total 0.1\n" +
			"# HELP b_total \n# TYPE b_total counter\nb_total 1.048576e+06\n" +
			"# HELP c_total \n# TYPE c_total counter\nc_total 2.000033e+06\n" +
			"# HELP d_total \n# TYPE d_total counter\nd_total 262144\n"},
		{"a gauge goes up and down; negative zero is 0; infinities and NaN are named", func(r *Registry) {
			g := r.Gauge("g", "Level.")
			g.Inc()
			g.Dec()
			g.Dec()
			r.Gauge("z", "").Set(math.Copysign(0, -1))
			r.Gauge("inf", "").Set(math.Inf(+1))
			r.Gauge("ninf", "").Set(math.Inf(-1))
			r.Gauge("nan", "").Set(math.NaN())
		}, "# HELP g Level.\n# TYPE g gauge\ng -1\n" +
			"# HELP inf \n# TYPE inf gauge\ninf +Inf\n" +
			"# HELP nan \n# TYPE nan gauge\nnan NaN\n" +
			"# HELP ninf \n# TYPE ninf gauge\nninf -Inf\n" +
			"# HELP z \n# TYPE z gauge\nz 0\n"},
		{"label values escape backslash, double quote and line feed", func(r *Registry) {
			r.CounterVec("c_total", "", "v").With("a\"b\\c\nd").Inc()
		}, "# HELP c_total \n# TYPE c_total counter\nc_total{v=\"a\\\"b\\\\c\\nd\"} 1\n"},
		{"help escapes backslash and line feed, not double quote", func(r *Registry) {
			r.Gauge("g", "A \"quoted\" C:\\path\nnext line.")
		}, "# HELP g A \"quoted\" C:\\\\path\\nnext line.\n# TYPE g gauge\ng 0\n"},
		{"families in name order, whatever the registration order; one with no series is left out", func(r *Registry) {
			r.Gauge("b", "")
			r.CounterVec("c_total", "", "x")
			r.Gauge("a", "")
		}, "# HELP a \n# TYPE a gauge\na 0\n# HELP b \n# TYPE b gauge\nb 0\n"},
		{"labels in name order; series ordered by values in that order", func(r *Registry) {
			v := r.CounterVec("r_total", "", "endpoint", "code")
			v.With("/b", "200").Inc()
			v.With("/a", "500").Inc()
			v.With("/a", "200").Add(2)
			v.With("/c", "1000")
		}, "# HELP r_total \n# TYPE r_total counter\n" +
			"r_total{code=\"1000\",endpoint=\"/c\"} 0\n" +
			"r_total{code=\"200\",endpoint=\"/a\"} 2\n" +
			"r_total{code=\"200\",endpoint=\"/b\"} 1\n" +
			"r_total{code=\"500\",endpoint=\"/a\"} 1\n"},
		{"histogram buckets are cumulative, a value on a bound is in its bucket, +Inf holds everything", func(r *Registry) {
			h := r.Histogram("h_seconds", "Time.", []float64{0.5, 1, 2.5})
			for _, v := range []float64{0.5, 0.7, 1, 3, 100} {
				h.Observe(v)
			}
		}, "# HELP h_seconds Time.\n# TYPE h_seconds histogram\n" +
			"h_seconds_bucket{le=\"0.5\"} 1\n" +
			"h_seconds_bucket{le=\"1\"} 3\n" +
			"h_seconds_bucket{le=\"2.5\"} 3\n" +
			"h_seconds_bucket{le=\"+Inf\"} 5\n" +
			"h_seconds_sum 105.2\n" +
			"h_seconds_count 5\n"},
		{"a histogram's le comes after its labels; an unobserved series is at 0; NaN counts in +Inf only", func(r *Registry) {
			v := r.HistogramVec("t", "", []float64{16, 1 << 20, math.Inf(+1)}, "endpoint")
			v.With("/b").Observe(math.NaN())
			v.With("/a")
		}, "# HELP t \n# TYPE t histogram\n" +
			"t_bucket{endpoint=\"/a\",le=\"16\"} 0\n" +
			"t_bucket{endpoint=\"/a\",le=\"1.048576e+06\"} 0\n" +
			"t_bucket{endpoint=\"/a\",le=\"+Inf\"} 0\n" +
			"t_sum{endpoint=\"/a\"} 0\n" +
			"t_count{endpoint=\"/a\"} 0\n" +
			"t_bucket{endpoint=\"/b\",le=\"16\"} 0\n" +
			"t_bucket{endpoint=\"/b\",le=\"1.048576e+06\"} 0\n" +
			"t_bucket{endpoint=\"/b\",le=\"+Inf\"} 1\n" +
			"t_sum{endpoint=\"/b\"} NaN\n" +
			"t_count{endpoint=\"/b\"} 1\n"},
		{"a gauge series can be read from a function at each scrape", func(r *Registry) {
			n := 2
			v := r.GaugeVec("open", "", "replica")
			v.Func(func() float64 { return float64(n) }, "a")
			v.With("b").Set(1)
			n = 5
		}, "# HELP open \n# TYPE open gauge\nopen{replica=\"a\"} 5\nopen{replica=\"b\"} 1\n"},
		{"a summary writes its quantiles, sum and count", func(r *Registry) {
			r.summary("s_seconds", "Pauses.", []float64{0, 0.5, 1}, func() ([]float64, uint64, float64) {
				return []float64{0.001, 0.002, 0.25}, 7, 0.5
			})
		}, "# HELP s_seconds Pauses.\n# TYPE s_seconds summary\n" +
			"s_seconds{quantile=\"0\"} 0.001\n" +
			"s_seconds{quantile=\"0.5\"} 0.002\n" +
			"s_seconds{quantile=\"1\"} 0.25\n" +
			"s_seconds_sum 0.5\n" +
			"s_seconds_count 7\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			tt.build(r)
			if got := exposition(t, r); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestBatch checks that a histogram observed through batches is written
// as the same histogram observed value by value, and that a batch's
// values appear only once flushed.
func TestBatch(t *testing.T) {
	bounds := []float64{0.001, 0.0025, 0.06, 0.1, 1}
	// Sums of these values are exact whatever their grouping.
	batches := [][]float64{{0, 0.25, 0.5}, {0.75, 1, 2.5, 3}, {}, {100, 0.125, 0, 0.001}}
	one, batched := NewRegistry(), NewRegistry()
	h := one.HistogramVec("h", "help", bounds, "endpoint")
	bh := batched.HistogramVec("h", "help", bounds, "endpoint")
	b := bh.With("/a").Batch()
	for i, vs := range batches {
		for _, v := range vs {
			h.With("/a").Observe(v)
			b.Observe(v)
		}
		if i == 1 && !strings.Contains(exposition(t, batched), "h_count{endpoint=\"/a\"} 3\n") {
			t.Error("the first batch is not exported after its Flush, or the second is before its own")
		}
		b.Flush()
	}
	b.Flush()
	var nilBatch *Batch
	nilBatch.Flush()
	if got, want := exposition(t, batched), exposition(t, one); got != want {
		t.Errorf("batched\n%s\nwant\n%s", got, want)
	}
	if s := bh.With("/a"); s.Count() != 11 || s.Sum() != 108.126 {
		t.Errorf("count %d, sum %v; want 11, 108.126", s.Count(), s.Sum())
	}
}

// TestConcurrent updates every kind from many goroutines while scraping;
// run with -race. The totals are exact.
func TestConcurrent(t *testing.T) {
	r := NewRegistry()
	c := r.CounterVec("c_total", "", "a", "b")
	g := r.Gauge("g", "")
	h := r.HistogramVec("h", "", []float64{1, 2}, "e")
	const goroutines, n = 8, 2000
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			label := strconv.Itoa(i % 2)
			b := h.With(label).Batch()
			for j := range n {
				c.With("x", label).Inc()
				c.With("y", "z").Add(0.5)
				g.Inc()
				h.With(label).Observe(float64(j % 3))
				b.Observe(1)
				if j%500 == 0 {
					b.Flush()
					_ = exposition(t, r)
				}
			}
			b.Flush()
		}()
	}
	wg.Wait()
	out := exposition(t, r)
	for _, want := range []string{
		`c_total{a="x",b="0"} 8000`, `c_total{a="x",b="1"} 8000`, `c_total{a="y",b="z"} 8000`,
		"g 16000", `h_count{e="0"} 16000`, `h_bucket{e="1",le="1"} 13336`,
	} {
		if !strings.Contains(out, "\n"+want+"\n") {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestNoAllocation checks the hot path: finding a known series and
// updating it allocates nothing.
func TestNoAllocation(t *testing.T) {
	r := NewRegistry()
	c1 := r.CounterVec("one_total", "", "a")
	c2 := r.CounterVec("two_total", "", "a", "b")
	h := r.HistogramVec("h", "", []float64{1, 2, 4}, "a")
	g := r.Gauge("g", "")
	a, b := "/v1/chat/completions", strings.Repeat("x", 3)
	c1.With(a)
	c2.With(a, b)
	batch := h.With(a).Batch()
	for _, tt := range []struct {
		name string
		f    func()
	}{
		{"one label", func() { c1.With(a).Inc() }},
		{"two labels", func() { c2.With(a, b).Add(3) }},
		{"histogram", func() { h.With(a).Observe(1.5) }},
		{"batch", func() { batch.Observe(0.5) }},
		{"flush", func() { batch.Observe(3); batch.Flush() }},
		{"gauge", func() { g.Inc(); g.Dec() }},
	} {
		if n := testing.AllocsPerRun(100, tt.f); n != 0 {
			t.Errorf("%s: %v allocations, want 0", tt.name, n)
		}
	}
}

// TestRegisterRefuses checks the programming errors a registration or a
// lookup panics on.
func TestRegisterRefuses(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    func(r *Registry)
	}{
		{"the same name twice", func(r *Registry) { r.Gauge("g", ""); r.Counter("g", "") }},
		{"a name with a dash", func(r *Registry) { r.Gauge("a-b", "") }},
		{"a name starting with a digit", func(r *Registry) { r.Gauge("1a", "") }},
		{"a label with a colon", func(r *Registry) { r.CounterVec("c_total", "", "a:b") }},
		{"a reserved label", func(r *Registry) { r.CounterVec("c_total", "", "__name") }},
		{"le on a histogram", func(r *Registry) { r.HistogramVec("h", "", []float64{1}, "le") }},
		{"a label twice", func(r *Registry) { r.CounterVec("c_total", "", "a", "a") }},
		{"three labels", func(r *Registry) { r.CounterVec("c_total", "", "a", "b", "c") }},
		{"bounds not increasing", func(r *Registry) { r.Histogram("h", "", []float64{1, 1}) }},
		{"too few label values", func(r *Registry) { r.CounterVec("c_total", "", "a", "b").With("x") }},
		{"a counter going down", func(r *Registry) { r.Counter("c_total", "").Add(-1) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.f(NewRegistry())
		})
	}
}

// TestServeHTTP checks the response: its Content-Type, and gzip when the
// client accepts it.
func TestServeHTTP(t *testing.T) {
	r := NewRegistry()
	r.CounterVec("c_total", "Things.", "a").With("b").Inc()
	want := exposition(t, r)
	for _, tt := range []struct {
		acceptEncoding string
		gzipped        bool
	}{
		{"", false},
		{"gzip", true},
		{"br, GZIP;q=0.5", true},
		{"gzip;q=0", false},
		{"identity", false},
	} {
		req := httptest.NewRequest("GET", "/metrics", nil)
		req.Header.Set("Accept-Encoding", tt.acceptEncoding)
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		if ct := rec.Header().Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8; escaping=underscores" {
			t.Errorf("%q: Content-Type %q", tt.acceptEncoding, ct)
		}
		body := rec.Body.Bytes()
		if got := rec.Header().Get("Content-Encoding") == "gzip"; got != tt.gzipped {
			t.Errorf("%q: gzipped %v, want %v", tt.acceptEncoding, got, tt.gzipped)
		}
		if tt.gzipped {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if string(body) != want {
			t.Errorf("%q: body\n%s\nwant\n%s", tt.acceptEncoding, body, want)
		}
	}
}

// TestRuntime checks the Go runtime's and the process's families: their
// names and types, and values read from the runtime.
func TestRuntime(t *testing.T) {
	r := NewRegistry()
	r.AddRuntime()
	runtime.GC()
	out := exposition(t, r)
	types := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (\w+) (\w+)$`).FindAllStringSubmatch(out, -1) {
		types[m[1]] = m[2]
	}
	want := map[string]string{"go_gc_duration_seconds": "summary", "go_goroutines": "gauge", "go_threads": "gauge", "go_info": "gauge",
		"go_gc_gogc_percent": "gauge", "go_gc_gomemlimit_bytes": "gauge", "go_sched_gomaxprocs_threads": "gauge",
		"go_memstats_alloc_bytes_total": "counter", "go_memstats_mallocs_total": "counter", "go_memstats_frees_total": "counter",
		"go_memstats_heap_inuse_bytes": "gauge", "go_memstats_sys_bytes": "gauge", "go_memstats_last_gc_time_seconds": "gauge"}
	if runtime.GOOS == "linux" {
		for _, name := range []string{"process_resident_memory_bytes", "process_virtual_memory_bytes", "process_start_time_seconds",
			"process_open_fds", "process_max_fds", "process_virtual_memory_max_bytes"} {
			want[name] = "gauge"
		}
		want["process_cpu_seconds_total"] = "counter"
	}
	for name, typ := range want {
		if types[name] != typ {
			t.Errorf("%s: type %q, want %q", name, types[name], typ)
		}
	}
	goFamilies, processFamilies := 0, 0
	for name := range types {
		if strings.HasPrefix(name, "go_") {
			goFamilies++
		} else if strings.HasPrefix(name, "process_") {
			processFamilies++
		}
	}
	if wantProcess := map[bool]int{true: 7}[runtime.GOOS == "linux"]; goFamilies != 29 || processFamilies != wantProcess || len(types) != goFamilies+processFamilies {
		t.Errorf("%d go_ families (want 29), %d process_ families (want %d):\n%s", goFamilies, processFamilies, wantProcess, out)
	}
	value := func(series string) float64 {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("no %s", series)
			return math.NaN()
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for _, tt := range []struct {
		series string
		ok     func(float64) bool
	}{
		{`go_info{version="` + runtime.Version() + `"}`, func(v float64) bool { return v == 1 }},
		{"go_goroutines", func(v float64) bool { return v >= 1 }},
		{"go_sched_gomaxprocs_threads", func(v float64) bool { return v == float64(runtime.GOMAXPROCS(0)) }},
		{"go_gc_duration_seconds_count", func(v float64) bool { return v >= 1 && v <= float64(ms.NumGC) }},
		{"go_memstats_sys_bytes", func(v float64) bool { return math.Abs(v-float64(ms.Sys)) < 0.2*float64(ms.Sys) }},
		{"go_memstats_heap_sys_bytes", func(v float64) bool { return math.Abs(v-float64(ms.HeapSys)) < 0.2*float64(ms.HeapSys) }},
		{"go_memstats_mallocs_total", func(v float64) bool { return v > 0 && v <= float64(ms.Mallocs) }},
	} {
		if v := value(tt.series); !tt.ok(v) {
			t.Errorf("%s = %v; MemStats: Sys %d, HeapSys %d, Mallocs %d, NumGC %d", tt.series, v, ms.Sys, ms.HeapSys, ms.Mallocs, ms.NumGC)
		}
	}
	if runtime.GOOS == "linux" {
		if v := value("process_resident_memory_bytes"); v < 1<<20 {
			t.Errorf("resident memory %v", v)
		}
		if v := value("process_open_fds"); v < 3 {
			t.Errorf("open fds %v", v)
		}
	}
}
