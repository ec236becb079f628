// Package metrics is a small registry of counters, gauges and histograms
// written in the Prometheus text exposition format, version 0.0.4: what the
// gateway's /metrics needs and no more.
//
// A family has at most two labels. A labelled family's series are found by
// their label values (With); a caller that keeps the returned series pays
// one atomic update per increment, and a lookup of a known label set does
// not allocate. Families are written sorted by name, each family's series
// sorted by their label values in the order of the label names, labels
// written in that order too: the order a Prometheus client library writes,
// so that a scrape reads the same bytes whichever wrote it.
package metrics

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ContentType is the media type of the exposition. The escaping parameter
// says how names outside the legacy character set would be written; this
// package accepts only legacy names, so it changes nothing, and it is what
// the gateway's previous exporter sent.
const ContentType = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"

// maxLabels is the most labels a family has: the gateway's families have
// at most two, and a fixed-size key keeps lookups free of allocation.
const maxLabels = 2

// labelValues are a series' label values, in the order the family's label
// names were given; unused places are empty.
type labelValues [maxLabels]string

// kind is a family's type, as the TYPE line names it.
type kind uint8

const (
	counterKind kind = iota
	gaugeKind
	histogramKind
	summaryKind
)

var kindNames = [...]string{counterKind: "counter", gaugeKind: "gauge", histogramKind: "histogram", summaryKind: "summary"}

// Registry holds metric families and writes them.
type Registry struct {
	mu       sync.Mutex
	families []*family // sorted by name
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

// family is one metric name with its help, type, label names and series.
type family struct {
	name, help string
	kind       kind
	labels     []string
	order      []int     // indices of labels, sorted by label name
	bounds     []float64 // a histogram's bucket upper bounds, ascending

	mu     sync.RWMutex
	series map[labelValues]any // *Counter, *Gauge or *Histogram

	// write, when set, writes the family's samples instead of series
	// (a summary read from the runtime at each scrape).
	write func(w *writer)
}

// register adds a family, panicking on an invalid or duplicate name: both
// are programming errors found by the first test that builds the registry.
func (r *Registry) register(name, help string, k kind, bounds []float64, labels []string) *family {
	if !validName(name, true) {
		panic("metrics: invalid metric name " + strconv.Quote(name))
	}
	if len(labels) > maxLabels {
		panic("metrics: " + name + " has more than two labels")
	}
	for i, l := range labels {
		if !validName(l, false) || strings.HasPrefix(l, "__") || l == "le" && k == histogramKind || l == "quantile" && k == summaryKind || slices.Contains(labels[:i], l) {
			panic("metrics: " + name + ": invalid label name " + strconv.Quote(l))
		}
	}
	for i := 1; i < len(bounds); i++ {
		if !(bounds[i-1] < bounds[i]) {
			panic("metrics: " + name + ": bucket bounds are not increasing")
		}
	}
	if n := len(bounds); n > 0 && math.IsInf(bounds[n-1], +1) {
		bounds = bounds[:n-1] // the +Inf bucket is always written
	}
	f := &family{name: name, help: help, kind: k, labels: slices.Clone(labels), bounds: slices.Clone(bounds),
		series: make(map[labelValues]any)}
	f.order = make([]int, len(labels))
	for i := range f.order {
		f.order[i] = i
	}
	slices.SortFunc(f.order, func(a, b int) int { return strings.Compare(labels[a], labels[b]) })
	r.mu.Lock()
	defer r.mu.Unlock()
	i, found := slices.BinarySearchFunc(r.families, name, func(f *family, name string) int { return strings.Compare(f.name, name) })
	if found {
		panic("metrics: " + name + " registered twice")
	}
	r.families = slices.Insert(r.families, i, f)
	return f
}

// validName reports whether s is a metric name (colons allowed) or a
// label name in the legacy character set.
func validName(s string, metric bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || metric && c == ':' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// get returns the series with values, created at zero the first time.
func (f *family) get(values []string) any {
	if len(values) != len(f.labels) {
		panic("metrics: " + f.name + " takes " + strconv.Itoa(len(f.labels)) + " label values, given " + strconv.Itoa(len(values)))
	}
	var k labelValues
	copy(k[:], values)
	f.mu.RLock()
	s, ok := f.series[k]
	f.mu.RUnlock()
	if ok {
		return s
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.series[k]; ok {
		return s
	}
	switch f.kind {
	case counterKind:
		s = new(Counter)
	case gaugeKind:
		s = new(Gauge)
	case histogramKind:
		s = &Histogram{bounds: f.bounds, counts: make([]uint64, len(f.bounds)+1)}
	}
	f.series[k] = s
	return s
}

// value is a float64 updated atomically, or read from a function.
type value struct {
	bits atomic.Uint64
	fn   func() float64
}

func (v *value) add(d float64) {
	for {
		old := v.bits.Load()
		if v.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

// Value returns the current value.
func (v *value) Value() float64 {
	if v.fn != nil {
		return v.fn()
	}
	return math.Float64frombits(v.bits.Load())
}

// Counter is a value that only goes up.
type Counter struct{ value }

// Inc adds 1.
func (c *Counter) Inc() { c.add(1) }

// Add adds d, which must not be negative.
func (c *Counter) Add(d float64) {
	if d < 0 {
		panic("metrics: a counter cannot decrease")
	}
	c.add(d)
}

// Gauge is a value that goes up and down.
type Gauge struct{ value }

// Set sets the gauge to v.
func (g *Gauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }

// Inc adds 1.
func (g *Gauge) Inc() { g.add(1) }

// Dec subtracts 1.
func (g *Gauge) Dec() { g.add(-1) }

// Histogram counts observations in buckets, with their sum.
type Histogram struct {
	bounds []float64
	mu     sync.Mutex
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
}

// bucket is the index of the first bucket whose upper bound is at least v
// (the last, +Inf, for NaN).
func bucket(bounds []float64, v float64) int {
	i := 0
	for i < len(bounds) && !(v <= bounds[i]) {
		i++
	}
	return i
}

// Observe adds v.
func (h *Histogram) Observe(v float64) {
	i := bucket(h.bounds, v)
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.mu.Unlock()
}

// Count returns the number of observations.
func (h *Histogram) Count() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var n uint64
	for _, c := range h.counts {
		n += c
	}
	return n
}

// Sum returns the sum of the observations.
func (h *Histogram) Sum() float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sum
}

// snapshot returns the cumulative bucket counts (the last is the total)
// and the sum.
func (h *Histogram) snapshot() ([]uint64, float64) {
	h.mu.Lock()
	cum := slices.Clone(h.counts)
	sum := h.sum
	h.mu.Unlock()
	for i := 1; i < len(cum); i++ {
		cum[i] += cum[i-1]
	}
	return cum, sum
}

// Batch returns a batch of observations for h: one goroutine notes values
// in it with no synchronization, and Flush adds them to h in one step.
func (h *Histogram) Batch() *Batch {
	return &Batch{h: h, counts: make([]uint64, len(h.bounds)+1)}
}

// Batch collects observations for a Histogram until Flush. It is for one
// goroutine; scrapes see its observations once flushed.
type Batch struct {
	h      *Histogram
	counts []uint64
	sum    float64
	n      int
}

// Observe notes v.
func (b *Batch) Observe(v float64) {
	b.counts[bucket(b.h.bounds, v)]++
	b.sum += v
	b.n++
}

// Flush adds the noted observations to the histogram and empties the batch.
func (b *Batch) Flush() {
	if b == nil || b.n == 0 {
		return
	}
	h := b.h
	h.mu.Lock()
	for i, c := range b.counts {
		h.counts[i] += c
	}
	h.sum += b.sum
	h.mu.Unlock()
	clear(b.counts)
	b.sum, b.n = 0, 0
}

// CounterVec is a counter family with labels.
type CounterVec struct{ f *family }

// With returns the series with the label values, in the order of the label
// names given to the registry.
func (v *CounterVec) With(values ...string) *Counter { return v.f.get(values).(*Counter) }

// GaugeVec is a gauge family with labels.
type GaugeVec struct{ f *family }

// With returns the series with the label values.
func (v *GaugeVec) With(values ...string) *Gauge { return v.f.get(values).(*Gauge) }

// Func makes the series with the label values read fn at each scrape.
func (v *GaugeVec) Func(fn func() float64, values ...string) {
	v.f.setFunc(&v.With(values...).value, fn)
}

// setFunc makes v read fn, under the lock a scrape reads it with.
func (f *family) setFunc(v *value, fn func() float64) {
	f.mu.Lock()
	v.fn = fn
	f.mu.Unlock()
}

// HistogramVec is a histogram family with labels.
type HistogramVec struct{ f *family }

// With returns the series with the label values.
func (v *HistogramVec) With(values ...string) *Histogram { return v.f.get(values).(*Histogram) }

// Counter registers a counter without labels.
func (r *Registry) Counter(name, help string) *Counter {
	return r.register(name, help, counterKind, nil, nil).get(nil).(*Counter)
}

// CounterFunc registers a counter without labels read from fn at each scrape.
func (r *Registry) CounterFunc(name, help string, fn func() float64) {
	f := r.register(name, help, counterKind, nil, nil)
	f.setFunc(&f.get(nil).(*Counter).value, fn)
}

// CounterVec registers a counter family with labels (at most two).
func (r *Registry) CounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{r.register(name, help, counterKind, nil, labels)}
}

// Gauge registers a gauge without labels.
func (r *Registry) Gauge(name, help string) *Gauge {
	return r.register(name, help, gaugeKind, nil, nil).get(nil).(*Gauge)
}

// GaugeFunc registers a gauge without labels read from fn at each scrape.
func (r *Registry) GaugeFunc(name, help string, fn func() float64) {
	f := r.register(name, help, gaugeKind, nil, nil)
	f.setFunc(&f.get(nil).(*Gauge).value, fn)
}

// GaugeVec registers a gauge family with labels (at most two).
func (r *Registry) GaugeVec(name, help string, labels ...string) *GaugeVec {
	return &GaugeVec{r.register(name, help, gaugeKind, nil, labels)}
}

// Histogram registers a histogram without labels, with buckets of the
// given upper bounds (ascending; +Inf is implied).
func (r *Registry) Histogram(name, help string, bounds []float64) *Histogram {
	return r.register(name, help, histogramKind, bounds, nil).get(nil).(*Histogram)
}

// HistogramVec registers a histogram family with labels (at most two).
func (r *Registry) HistogramVec(name, help string, bounds []float64, labels ...string) *HistogramVec {
	return &HistogramVec{r.register(name, help, histogramKind, bounds, labels)}
}

// summary registers a summary without labels whose samples fn returns at
// each scrape: the values at the quantiles, the count and the sum.
func (r *Registry) summary(name, help string, quantiles []float64, fn func() (values []float64, count uint64, sum float64)) {
	f := r.register(name, help, summaryKind, nil, nil)
	f.write = func(w *writer) {
		values, count, sum := fn()
		for i, q := range quantiles {
			w.sample(f, "", labelValues{}, "quantile", q, values[i])
		}
		w.sample(f, "_sum", labelValues{}, "", 0, sum)
		w.sample(f, "_count", labelValues{}, "", 0, float64(count))
	}
}

// WriteTo writes every family with at least one series in the text
// exposition format.
func (r *Registry) WriteTo(out io.Writer) (int64, error) {
	var w writer
	r.mu.Lock()
	families := slices.Clone(r.families)
	r.mu.Unlock()
	for _, f := range families {
		w.family(f)
	}
	n, err := out.Write(w.b)
	return int64(n), err
}

// ServeHTTP writes the exposition, compressed with gzip when the client
// accepts it.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var buf bytes.Buffer
	_, _ = r.WriteTo(&buf)
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Add("Vary", "Accept-Encoding")
	if acceptsGzip(req.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write(buf.Bytes())
		_ = zw.Close()
		return
	}
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	_, _ = w.Write(buf.Bytes())
}

// acceptsGzip reports whether an Accept-Encoding value lists gzip with a
// quality above 0.
func acceptsGzip(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		coding, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, found := strings.CutPrefix(strings.TrimSpace(params), "q=")
		if !found {
			return true
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(q), 64)
		return err == nil && v > 0
	}
	return false
}

// writer builds the exposition.
type writer struct{ b []byte }

// family writes f's HELP and TYPE lines and its series, or nothing when it
// has none.
func (w *writer) family(f *family) {
	type entry struct {
		values labelValues
		s      any
	}
	f.mu.RLock() // for the series' functions too (setFunc)
	defer f.mu.RUnlock()
	entries := make([]entry, 0, len(f.series))
	for k, s := range f.series {
		entries = append(entries, entry{k, s})
	}
	if len(entries) == 0 && f.write == nil {
		return
	}
	slices.SortFunc(entries, func(a, b entry) int {
		for _, i := range f.order {
			if c := strings.Compare(a.values[i], b.values[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	w.b = append(w.b, "# HELP "...)
	w.b = append(w.b, f.name...)
	w.b = append(w.b, ' ')
	w.b = appendEscaped(w.b, f.help, false)
	w.b = append(w.b, "\n# TYPE "...)
	w.b = append(w.b, f.name...)
	w.b = append(w.b, ' ')
	w.b = append(w.b, kindNames[f.kind]...)
	w.b = append(w.b, '\n')
	if f.write != nil {
		f.write(w)
		return
	}
	for _, e := range entries {
		switch s := e.s.(type) {
		case *Counter:
			w.sample(f, "", e.values, "", 0, s.Value())
		case *Gauge:
			w.sample(f, "", e.values, "", 0, s.Value())
		case *Histogram:
			cum, sum := s.snapshot()
			for i, n := range cum {
				le := math.Inf(+1)
				if i < len(f.bounds) {
					le = f.bounds[i]
				}
				w.sample(f, "_bucket", e.values, "le", le, float64(n))
			}
			w.sample(f, "_sum", e.values, "", 0, sum)
			w.sample(f, "_count", e.values, "", 0, float64(cum[len(cum)-1]))
		}
	}
}

// sample writes one line: the family's name with suffix, the series'
// labels, an extra label (le, quantile) unless extra is "", and v.
func (w *writer) sample(f *family, suffix string, values labelValues, extra string, extraValue, v float64) {
	w.b = append(w.b, f.name...)
	w.b = append(w.b, suffix...)
	if len(f.labels) > 0 || extra != "" {
		w.b = append(w.b, '{')
		for n, i := range f.order {
			if n > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, f.labels[i]...)
			w.b = append(w.b, `="`...)
			w.b = appendEscaped(w.b, values[i], true)
			w.b = append(w.b, '"')
		}
		if extra != "" {
			if len(f.labels) > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, extra...)
			w.b = append(w.b, `="`...)
			w.b = appendFloat(w.b, extraValue)
			w.b = append(w.b, '"')
		}
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, ' ')
	w.b = appendFloat(w.b, v)
	w.b = append(w.b, '\n')
}

// appendEscaped appends s with backslashes and line feeds escaped, and
// double quotes too in a label value.
func appendEscaped(b []byte, s string, quote bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat appends v as the format writes numbers: +Inf, -Inf, NaN, or
// the shortest decimal that reads back as v (0 for negative zero).
func appendFloat(b []byte, v float64) []byte {
	switch {
	case v == 0:
		return append(b, '0')
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, +1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
