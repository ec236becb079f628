package tokenizer

import (
	"context"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// EncodeBatch returns the ids of AppendEncode(nil, text) for each text, in
// order, encoding them on as many goroutines as GOMAXPROCS, the caller's
// among them. Each goroutine has its own scratch and cache of merged
// pieces: the goroutines share nothing they write but the index of the
// next job to take and the count of jobs left.
//
// A job is a text, or a span of a long one: when the pre-tokenizer is one
// hand-written scanner with no normalizer or added token to match (as for
// EncodeOrdinaryBatch with Beam's tokenizer), the texts are cut into
// spans, largest first, so that the goroutines finish together even when
// the texts are few, long or of uneven length; a single long text is
// encoded on every core. The ids are the same as encoding each text whole:
// encodeSpan says how the spans are joined.
//
// Once out of jobs, the other goroutines of a batch poll for the next
// batch for up to 100 microseconds before they exit, so that batches
// called one after another start on every core at once instead of waiting
// for the runtime to wake a thread: up to that much CPU time on each of
// GOMAXPROCS-1 cores after a batch.
func (t *Tokenizer) EncodeBatch(texts []string) [][]int {
	return t.encodeBatch(texts, false)
}

// EncodeOrdinaryBatch is EncodeBatch with AppendEncodeOrdinary: added-token
// content in the texts is encoded as ordinary text.
func (t *Tokenizer) EncodeOrdinaryBatch(texts []string) [][]int {
	return t.encodeBatch(texts, true)
}

func (t *Tokenizer) encodeBatch(texts []string, ordinary bool) [][]int {
	return t.encodeBatchWith(texts, ordinary, runtime.GOMAXPROCS(0), spanMin)
}

// Span limits: a text is cut into spans of at least spanMin bytes, and the
// encoding of a span looks for a piece start it shares with the next span
// among that span's first syncPieces pieces.
const (
	spanMin    = 2 << 10
	syncPieces = 64
)

// batchJob is one job of a batch: the span of texts[text] from byte from
// to the next job of the text (next), or to its end.
type batchJob struct {
	text, from int
	next       int // index of the text's next job, or -1

	// What the encoding of the job gives:
	ids []int
	// starts holds, for a span past the start of its text, where its
	// first syncPieces pieces start and len(ids) there.
	starts []spanStart
	// joinTo is the later job whose pieces this job's pieces met, at byte
	// joinAt (a piece start of both); -1 when the job ran to the end of
	// the text.
	joinTo, joinAt int
}

// spanStart is where a piece of a span starts, and how many ids of the
// span come before it.
type spanStart struct{ pos, ids int }

// encodeBatchWith is encodeBatch on up to workers goroutines, with spans
// of at least minSpan bytes (tests make them small).
func (t *Tokenizer) encodeBatchWith(texts []string, ordinary bool, workers, minSpan int) [][]int {
	out := make([][]int, len(texts))
	jobs := t.planBatch(texts, ordinary, workers, minSpan)
	if workers = min(workers, len(jobs)); workers <= 1 {
		// One job per text: workers was 1, or there is one text, whole.
		st := t.getState()
		for i, s := range texts {
			out[i] = t.encodeIDs(st, s, ordinary)
		}
		t.putState(st)
		return out
	}
	r := &batchRun{t: t, texts: texts, ordinary: ordinary, jobs: jobs, out: out,
		left: make([]atomic.Int32, len(texts)), first: make([]int, len(texts)),
		done: make(chan struct{})}
	for j := len(jobs) - 1; j >= 0; j-- {
		r.left[jobs[j].text].Add(1)
		r.first[jobs[j].text] = j
	}
	r.pending.Store(int64(len(jobs)))
	// Goroutines still lingering after an earlier batch take the jobs at
	// once (linger). For the other Ps, new goroutines join the caller: one
	// more than they can run, because the runtime keeps the goroutine
	// started last in a slot of this P (runnext) that another P takes
	// from only after a 3 us sleep (55-60 us in an execution trace on the
	// 2-core VM). The ones started before it are taken at once; the last
	// one runs when the caller waits, and usually finds no job left.
	batchPool.offer.Store(r)
	if need := workers - 1 - int(batchPool.lingering.Load()); need > 0 {
		for range need + 1 {
			go r.workThenLinger()
		}
	}
	st := r.work(nil)
	r.wait()
	batchPool.offer.CompareAndSwap(r, nil)
	// The caller's state goes back to the pool once every text is joined:
	// the ids of its spans live in it until then.
	if st != nil {
		t.putState(st)
	}
	return out
}

// batchRun is a batch being encoded: goroutines take its jobs in order
// until none is left.
type batchRun struct {
	t        *Tokenizer
	texts    []string
	ordinary bool
	jobs     []batchJob
	out      [][]int

	// left[i] counts the jobs of text i not yet done; the goroutine that
	// finishes the last one joins the text's spans (first[i] is the
	// text's first job).
	left  []atomic.Int32
	first []int
	next  atomic.Int64 // the next job to take
	// pending counts the jobs not done, joins included; done is closed
	// when it reaches 0.
	pending atomic.Int64
	done    chan struct{}
}

// work takes jobs until none is left, with the state st, or one from the
// pool if st is nil and there is a job; it returns the state. The ids of
// the spans it encodes stay in the state until the batch is done.
func (r *batchRun) work(st *state) *state {
	reset := false
	for {
		j := int(r.next.Add(1)) - 1
		if j >= len(r.jobs) {
			return st
		}
		if st == nil {
			st = r.t.getState()
		}
		if !reset {
			st.spans.reset()
			reset = true
		}
		r.t.runJob(st, r.texts, r.jobs, j, r.ordinary)
		if i := r.jobs[j].text; r.left[i].Add(-1) == 0 {
			r.out[i], _ = r.t.joinText(st, r.texts[i], r.jobs, r.first[i])
		}
		if r.pending.Add(-1) == 0 {
			close(r.done)
		}
	}
}

// workThenLinger is a goroutine a batch starts: it works, then lingers.
func (r *batchRun) workThenLinger() {
	linger(r, r.work(nil))
}

// batchPool is where the goroutines of a batch, once out of jobs, look
// for the next one: they linger, polling offer, for up to lingerFor, and
// then exit. A goroutine started to work wakes a parked
// thread, which takes 10-60 us on a VM; batches called one after another
// (a loop over a corpus, a benchmark) find the lingering goroutines
// running on the other Ps instead. A lingering goroutine also keeps its
// state, and with it the cache of merged pieces in its core's caches.
// What it costs is at most lingerFor of CPU time on each of GOMAXPROCS-1
// Ps after a batch. Only the batch offered last is seen: batches called
// at the same time from several goroutines start goroutines of their own,
// and a batch nobody joins is encoded by its caller alone.
var batchPool struct {
	offer     atomic.Pointer[batchRun] // the batch being handed out, if any
	lingering atomic.Int32             // goroutines polling offer
}

// lingerFor is how long a batch's goroutine, out of jobs, polls for the
// next batch before it exits.
const lingerFor = 100 * time.Microsecond

// linger polls batchPool.offer for up to lingerFor after the goroutine's
// last batch, works on any batch with jobs left, and starts over; it
// returns when none came, or at once when GOMAXPROCS-1 goroutines linger
// already. st, the state the goroutine used for last, is used again for a
// batch of the same tokenizer once last is done (until then its spans'
// ids may be read by last's join); it goes back to its pool when the
// goroutine exits, if last is done.
func linger(last *batchRun, st *state) {
	defer func() {
		if st != nil && last.pending.Load() == 0 {
			last.t.putState(st)
		}
	}()
	if int(batchPool.lingering.Add(1)) > runtime.GOMAXPROCS(0)-1 {
		batchPool.lingering.Add(-1)
		return
	}
	deadline := time.Now().Add(lingerFor)
	for k := 1; ; k++ {
		r := batchPool.offer.Load()
		if r != nil && r != last && r.next.Load() < int64(len(r.jobs)) && last.pending.Load() == 0 {
			batchPool.lingering.Add(-1)
			if st != nil && r.t != last.t {
				last.t.putState(st)
				st = nil
			}
			st, last = r.work(st), r
			if int(batchPool.lingering.Add(1)) > runtime.GOMAXPROCS(0)-1 {
				break
			}
			deadline = time.Now().Add(lingerFor)
			continue
		}
		if k&15 == 0 && time.Now().After(deadline) {
			break
		}
		runtime.Gosched()
	}
	batchPool.lingering.Add(-1)
}

// spinWait is how long the caller, out of jobs, polls for the others to
// finish before it parks: the last jobs are small, and being woken from
// a park costs the caller 10-30 us on a VM.
const spinWait = 50 * time.Microsecond

// wait returns when every job is done: it polls, yielding its P, for up
// to spinWait, then parks until done is closed.
func (r *batchRun) wait() {
	deadline := time.Now().Add(spinWait)
	for k := 0; r.pending.Load() != 0; k++ {
		if k&15 == 15 && time.Now().After(deadline) {
			<-r.done
			return
		}
		runtime.Gosched()
	}
}

// planBatch returns the jobs of a batch in the order they are handed out:
// one per text, unless the texts can be cut into spans (t.spannable) and
// workers > 1. Then the batch is cut as factoring cuts a parallel loop:
// each job holds 1/workers of the bytes not yet handed out (a whole text
// when it is no longer), and at least minSpan, so that the jobs shrink
// toward the end and the goroutines finish close together, whenever each
// starts. A cut is put after a line break near its place when there is
// one (the pieces on either side meet sooner there), at the start of a
// character otherwise.
func (t *Tokenizer) planBatch(texts []string, ordinary bool, workers, minSpan int) []batchJob {
	jobs := make([]batchJob, 0, len(texts))
	total := 0
	for _, s := range texts {
		total += len(s)
	}
	spans := workers > 1 && t.spannable(ordinary)
	for i, s := range texts {
		from := 0
		for {
			jobs = append(jobs, batchJob{text: i, from: from, next: -1, joinTo: -1})
			if !spans {
				break
			}
			size := max(minSpan, total/workers)
			if len(s)-from < size+minSpan {
				total -= len(s) - from
				break
			}
			cut := cutAt(s, from+size, minSpan/2)
			if cut >= len(s) {
				total -= len(s) - from
				break
			}
			total -= cut - from
			jobs[len(jobs)-1].next = len(jobs)
			from = cut
		}
	}
	return jobs
}

// spannable reports whether a text's encoding is the encoding of the
// pieces one scanner finds in it, so that spans of it can be encoded
// apart and joined (encodeSpan): no normalizer, and no added token to
// match.
func (t *Tokenizer) spannable(ordinary bool) bool {
	return t.scan != nil && len(t.norms) == 0 && (ordinary || t.rawTrie.empty() && t.normTrie.empty())
}

// cutAt returns where to cut s near byte i (i < len(s)): after the first
// line break in the next window bytes, or else at the first character
// start from i. It may return len(s).
func cutAt(s string, i, window int) int {
	if k := strings.IndexByte(s[i:min(len(s), i+window)], '\n'); k >= 0 {
		return i + k + 1
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// runJob encodes jobs[j], a whole text or a span of one.
func (t *Tokenizer) runJob(st *state, texts []string, jobs []batchJob, j int, ordinary bool) {
	jb := &jobs[j]
	s := texts[jb.text]
	if jb.from == 0 && jb.next < 0 {
		jb.ids = t.encodeIDs(st, s, ordinary)
		return
	}
	t.encodeSpan(st, s, jobs, j)
}

// encodeSpan encodes jobs[j], a span of s, with the scanner.
//
// The pieces of s are the matches of the scanner from 0 to the end, each
// starting where the last ended; since the scanner's match at i depends
// on s[i:] only, the matches from any piece start on are the same whoever
// scans them. A span starts at a character that need not be a piece
// start, so its own first pieces may be wrong; but once the pieces of the
// span before it and its own share a start, both go on alike from there.
// So the encoding of a span goes on past its end, scanning the next
// span's pieces beside its own (only scanning, not merging) until the two
// share a start: it stops there, and the join takes the next span's ids
// from that start on. When they share none among the next span's first
// syncPieces pieces, it gives up on that span and goes on to the one
// after, and so on to the end of s.
func (t *Tokenizer) encodeSpan(st *state, s string, jobs []batchJob, j int) {
	jb := &jobs[j]
	scan := t.scan
	end := len(s)
	if jb.next >= 0 {
		end = jobs[jb.next].from
	}
	if jb.from == 0 {
		end = len(s) // the join appends the later spans' ids to these
	}
	n := min((end-jb.from)/3+16, 1<<20)
	sk := sink{}
	if jb.from == 0 {
		sk.ids = make([]int, 0, n) // the text's ids, once joined
	} else {
		sk.ids = st.spans.ids(n)
		jb.starts = st.spans.starts()
	}
	st.start(context.Background(), false)
	defer st.stop()
	// k is the span whose pieces are scanned beside: they start at meet,
	// and u is the start of its piece number steps.
	k, meet, u, steps := jb.next, len(s), 0, 0
	if k >= 0 {
		meet, u = jobs[k].from, jobs[k].from
	}
	for i := jb.from; i < len(s); {
		if i >= meet {
			for u < i && steps < syncPieces-1 {
				u = scan(s, u)
				steps++
			}
			switch {
			case u == i:
				jb.ids, jb.joinTo, jb.joinAt = sk.ids, k, i
				return
			case u < i: // no shared start among the span's first pieces
				if k = jobs[k].next; k >= 0 {
					meet, u, steps = jobs[k].from, jobs[k].from, 0
				} else {
					meet = len(s)
				}
				continue
			}
		}
		if len(jb.starts) < cap(jb.starts) {
			jb.starts = append(jb.starts, spanStart{i, len(sk.ids)})
		}
		e := scan(s, i)
		t.encodePiece(st, &sk, s[i:e])
		i = e
	}
	jb.ids = sk.ids
}

// spanArena holds the ids and piece starts of the spans a goroutine
// encodes in a batch, until the batch's texts are joined, and keeps its
// memory for the next batch: a span's ids are copied into its text's at
// the join, so they need no allocation of their own.
type spanArena struct {
	idBuf    []int
	startBuf []spanStart
}

// arenaMax bounds the ids an arena keeps between batches.
const arenaMax = 1 << 20

// reset starts a batch: the spans of the last one are joined.
func (a *spanArena) reset() {
	a.idBuf, a.startBuf = a.idBuf[:0], a.startBuf[:0]
}

// ids returns an empty slice with room for n ids. A span whose ids
// outgrow it is appended to elsewhere; the arena's bytes are never
// written twice in a batch.
func (a *spanArena) ids(n int) []int {
	l := len(a.idBuf)
	if cap(a.idBuf)-l < n {
		if l+n > arenaMax {
			return make([]int, 0, n)
		}
		a.idBuf, l = make([]int, 0, min(arenaMax, max(2*cap(a.idBuf), 4*n))), 0
	}
	a.idBuf = a.idBuf[:l+n]
	return a.idBuf[l : l : l+n]
}

// starts returns an empty slice with room for syncPieces starts.
func (a *spanArena) starts() []spanStart {
	l := len(a.startBuf)
	if cap(a.startBuf)-l < syncPieces {
		a.startBuf, l = make([]spanStart, 0, max(2*cap(a.startBuf), 16*syncPieces)), 0
	}
	a.startBuf = a.startBuf[:l+syncPieces]
	return a.startBuf[l : l : l+syncPieces]
}

// joinText returns the ids of s from its jobs, the first at index j: the
// ids of each job up to where its pieces met a later job's, then that
// job's from the same piece start on. When the later job did not record
// that start (it met a job after it first, or the start is past its first
// syncPieces pieces), the rest of s is encoded here, from that start;
// resumed is then that start, and -1 otherwise.
func (t *Tokenizer) joinText(st *state, s string, jobs []batchJob, j int) (ids []int, resumed int) {
	ids = jobs[j].ids
	for jobs[j].joinTo >= 0 {
		at := jobs[j].joinAt
		k := jobs[j].joinTo
		// A job that met a later one at or before at goes on as that one.
		for jobs[k].joinTo >= 0 && jobs[k].joinAt <= at {
			k = jobs[k].joinTo
		}
		sts := jobs[k].starts
		m := sort.Search(len(sts), func(m int) bool { return sts[m].pos >= at })
		if m == len(sts) || sts[m].pos != at {
			return t.encodeFrom(st, ids, s, at), at
		}
		ids = append(ids, jobs[k].ids[sts[m].ids:]...)
		j = k
	}
	return ids, -1
}

// encodeFrom appends to ids the ids of the pieces of s from at, a piece
// start, to its end: encodeScanned's work from there (the scanner's
// pieces of s[at:] are those of s from at, since it never looks back).
func (t *Tokenizer) encodeFrom(st *state, ids []int, s string, at int) []int {
	sk := sink{ids: ids}
	st.start(context.Background(), false)
	t.encodeScanned(st, &sk, &aligner{s: s}, at, len(s))
	st.stop()
	return sk.ids
}

// encodeIDs encodes one text of a batch with the state st.
func (t *Tokenizer) encodeIDs(st *state, text string, ordinary bool) []int {
	// Three bytes a token or more: one allocation for most texts (appends
	// grow it past a million tokens).
	sk := sink{ids: make([]int, 0, min(len(text)/3+16, 1<<20))}
	st.start(context.Background(), false)
	t.encodeInto(st, &sk, text, ordinary)
	st.stop()
	return sk.ids
}
