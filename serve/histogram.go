package serve

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// batchHistogram is a histogram by endpoint whose observations a stream
// collects in a histBatch and adds in one step per batch of events it
// writes: the inter-token latency, observed once per token, costs a
// bucket search and an increment rather than a Prometheus observation
// (several atomic updates). It is exported like a prometheus.HistogramVec
// with the same name, help, buckets and label.
type batchHistogram struct {
	desc   *prometheus.Desc
	bounds []float64

	mu     sync.Mutex
	series map[string]*histSeries // by endpoint
	order  []string               // endpoints in the order they appeared
}

// histSeries is one endpoint's histogram.
type histSeries struct {
	mu     sync.Mutex
	counts []uint64 // observations per bucket, not cumulative; the last is +Inf
	sum    float64
}

func newBatchHistogram(name, help string, bounds []float64, label string) *batchHistogram {
	return &batchHistogram{
		desc:   prometheus.NewDesc(name, help, []string{label}, nil),
		bounds: bounds,
		series: make(map[string]*histSeries),
	}
}

// Describe implements prometheus.Collector.
func (h *batchHistogram) Describe(ch chan<- *prometheus.Desc) { ch <- h.desc }

// Collect implements prometheus.Collector.
func (h *batchHistogram) Collect(ch chan<- prometheus.Metric) {
	h.mu.Lock()
	order := h.order
	h.mu.Unlock()
	for _, endpoint := range order {
		h.mu.Lock()
		s := h.series[endpoint]
		h.mu.Unlock()
		buckets := make(map[float64]uint64, len(h.bounds))
		s.mu.Lock()
		var n uint64
		for i, b := range h.bounds {
			n += s.counts[i]
			buckets[b] = n
		}
		n += s.counts[len(h.bounds)]
		sum := s.sum
		s.mu.Unlock()
		ch <- prometheus.MustNewConstHistogram(h.desc, n, sum, buckets, endpoint)
	}
}

// batch returns a new batch of observations for endpoint's series, which
// appears (at zero) if it has not yet.
func (h *batchHistogram) batch(endpoint string) *histBatch {
	h.mu.Lock()
	s := h.series[endpoint]
	if s == nil {
		s = &histSeries{counts: make([]uint64, len(h.bounds)+1)}
		h.series[endpoint] = s
		h.order = append(h.order, endpoint)
	}
	h.mu.Unlock()
	return &histBatch{bounds: h.bounds, s: s, counts: make([]uint64, len(h.bounds)+1)}
}

// histBatch collects observations for a histSeries until add.
type histBatch struct {
	bounds []float64
	s      *histSeries
	counts []uint64
	sum    float64
	n      int
}

// Observe notes v, in the series once add is called.
func (b *histBatch) Observe(v float64) {
	i := 0
	for i < len(b.bounds) && v > b.bounds[i] {
		i++
	}
	b.counts[i]++
	b.sum += v
	b.n++
}

// add adds the batch's observations to the series and empties it.
func (b *histBatch) add() {
	if b == nil || b.n == 0 {
		return
	}
	b.s.mu.Lock()
	for i, c := range b.counts {
		b.s.counts[i] += c
	}
	b.s.sum += b.sum
	b.s.mu.Unlock()
	clear(b.counts)
	b.sum, b.n = 0, 0
}
