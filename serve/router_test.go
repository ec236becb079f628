package serve

import (
	"fmt"
	"strings"
	"testing"
)

// Block hashes are chained: the hash of a block depends on every block
// before it, only full blocks are hashed, and prompts that share a prefix
// share the hashes of its full blocks.
func TestBlockHashes(t *testing.T) {
	a := strings.Repeat("x", 64*3+10)
	b := strings.Repeat("x", 64*2) + strings.Repeat("y", 64+10)
	ha, hb := blockHashes(a, 0, 64, nil), blockHashes(b, 0, 64, nil)
	if len(ha) != 3 || len(hb) != 3 {
		t.Fatalf("%d and %d blocks, want 3 (the partial block is not hashed)", len(ha), len(hb))
	}
	if ha[0] != hb[0] || ha[1] != hb[1] || ha[2] == hb[2] {
		t.Errorf("shared prefix of two blocks: %x vs %x", ha, hb)
	}
	// The same block after a different prefix hashes differently.
	c := strings.Repeat("z", 64) + strings.Repeat("x", 64)
	if hc := blockHashes(c, 0, 64, nil); hc[1] == ha[1] {
		t.Error("a block's hash does not depend on the blocks before it")
	}
	ids := make([]int, 40)
	for i := range ids {
		ids[i] = i
	}
	hi := blockHashes(ids, 16, 0, nil)
	if len(hi) != 2 {
		t.Fatalf("40 ids in blocks of 16: %d blocks, want 2", len(hi))
	}
	ids2 := append(append([]int(nil), ids[:16]...), 99)
	if hi2 := blockHashes(append(ids2, ids[17:]...), 16, 0, nil); hi2[0] != hi[0] || hi2[1] == hi[1] {
		t.Error("token blocks: a change in block 2 must keep block 1's hash and change block 2's")
	}
	if h := blockHashes(strings.Repeat("x", 63), 0, 64, nil); len(h) != 0 {
		t.Error("a prompt shorter than a block has a block")
	}
}

// The table keeps at most its bound, forgets what two generations did not
// touch, and keeps what is used.
func TestBlockTableBounds(t *testing.T) {
	tb := newBlockTable(100)
	hot := []uint64{1 << 40}
	for i := range 1000 {
		tb.record([]uint64{uint64(i)}, i%3)
		if i%20 == 0 {
			tb.record(hot, 2) // used again and again
		}
		if n := tb.size(); n > 100 {
			t.Fatalf("table holds %d entries, bound 100", n)
		}
	}
	if r, n := tb.longest([]uint64{5}); r >= 0 || n != 0 {
		t.Errorf("an entry not touched for two generations is still there: %d", r)
	}
	if r, _ := tb.longest(hot); r != 2 {
		t.Errorf("an entry in use was forgotten: %d", r)
	}
	if r, n := tb.longest([]uint64{7, 999, 12345}); r != 999%3 || n != 2 {
		t.Errorf("longest prefix: replica %d, %d blocks; want %d, 2", r, n, 999%3)
	}
	tb.forget(2)
	if r, _ := tb.longest(hot); r >= 0 {
		t.Error("forget left a block of the replica")
	}
}

// The replica holding the longest prefix of a prompt wins over one
// holding a shorter prefix of it, wherever the two were recorded in the
// table and in which order: choosing the shortest is a mutation this test
// catches (issue 35 item 5).
func TestLongestPrefixWins(t *testing.T) {
	chain := []uint64{11, 22, 33, 44}
	for _, order := range []string{"short first", "long first"} {
		tb := newBlockTable(1 << 10)
		short, long := func() { tb.record(chain[:1], 0) }, func() { tb.record(chain[:3], 1) }
		if order == "short first" {
			short()
			long()
		} else {
			long()
			short()
		}
		// After "long first", block 11 is on replica 0 again: the long
		// prefix still holds blocks 22 and 33 on replica 1.
		r, n := tb.longest(chain)
		if r != 1 || n != 3 {
			t.Errorf("%s: replica %d with %d blocks; want replica 1 with 3", order, r, n)
		}
	}
	// Through the router: a second turn goes where its first turn's
	// longer prefix is, not where a shorter shared prefix was placed.
	rt := testRouter(3)
	conv := blockHashes(strings.Repeat("b", 64*4), 0, 64, nil)
	rt.table.record(conv[:1], 0) // a short prefix, shared with another conversation
	rt.table.record(conv[:3], 2) // this conversation's earlier turn
	rt.table.record(conv[:1], 0)
	if got, d := rt.pick(conv, 4242, 0, nil); got != 2 || d != routePrefix {
		t.Errorf("router: replica %d (%s); want 2 (prefix)", got, d)
	}
}

func testRouter(n int) *router {
	rt := newRouter(Routing{TableEntries: 1 << 10})
	for i := range n {
		rt.add(fmt.Sprintf("http://r%d:8000", i), 1)
	}
	return rt
}

// With RouteNewFewest, new conversations go to the replica holding the
// fewest recent ones, so that they fill the engines' caches evenly; by
// default, to the replica their key hashes to, whatever the others hold.
// Each is counted under its own decision label.
func TestRouterSpreadsConversations(t *testing.T) {
	rt := newRouter(Routing{TableEntries: 1 << 10, NewConversations: RouteNewFewest})
	for i := range 3 {
		rt.add(fmt.Sprintf("http://r%d:8000", i), 1)
	}
	for k := range uint64(12) {
		i, d := rt.pick(nil, k*0x9E3779B97F4A7C15, 0, nil)
		if d != routeFewest {
			t.Fatalf("fewest: decision %s, want %s", d, routeFewest)
		}
		rt.convs.place(k, i)
	}
	for i := range 3 {
		if n := rt.convs.load(i); n != 4 {
			t.Errorf("replica %d holds %d of 12 conversations, want 4", i, n)
		}
	}
	h := testRouter(3)
	for k := range uint64(50) {
		key := k * 0x9E3779B97F4A7C15
		i, d := h.pick(nil, key, 0, nil)
		if j := h.rendezvous(key, func(int) bool { return true }); i != j || d != routeHash {
			t.Fatalf("default: key %d went to %d (%s), its hash says %d", k, i, d, j)
		}
		h.convs.place(key, i)
	}
}

// The conversation table stays within its bound and keeps its counts
// right as generations turn over.
func TestConvTableBounds(t *testing.T) {
	ct := newConvTable(20)
	for k := range uint64(1000) {
		ct.place(k, int(k%2))
		total := ct.load(0) + ct.load(1)
		if total > 20 || total != len(ct.cur)+len(ct.prev) {
			t.Fatalf("after %d placements: counts %d+%d, entries %d", k+1, ct.load(0), ct.load(1), len(ct.cur)+len(ct.prev))
		}
	}
	ct.place(999, 1) // moving a live conversation keeps the total
	ct.forget(1)
	if ct.load(1) != 0 {
		t.Error("forget left conversations on the replica")
	}
}

// The routing decisions: the longest prefix's replica, unless it is too
// busy; a key's replica when no prefix is known; another replica on retry;
// any replica when none is healthy.
func TestRouterDecisions(t *testing.T) {
	rt := testRouter(3)
	conv := blockHashes(strings.Repeat("a", 64*4), 0, 64, nil)
	first, d := rt.pick(conv[:2], 7, 0, nil)
	if d != routeHash {
		t.Fatalf("unknown prompt: decision %s, want hash", d)
	}
	again, _ := rt.pick(conv[:2], 7, 0, nil)
	if again != first {
		t.Error("the same key went to another replica")
	}
	rt.table.record(conv[:2], first)
	// The next turn extends the prompt: the prefix's replica, whatever the
	// key says.
	if got, d := rt.pick(conv, 12345, 0, nil); got != first || d != routePrefix {
		t.Errorf("next turn: replica %d (%s), want %d (prefix)", got, d, first)
	}
	// A prefix no longer than the shared part does not count: the key
	// decides.
	if _, d := rt.pick(conv, 12345, 2, nil); d != routeHash {
		t.Errorf("a match within the shared blocks decided: %s, want hash", d)
	}
	// A conversation this gateway placed, whose blocks are gone: its
	// replica, counted apart from a prefix.
	rt.convs.place(99, first)
	if got, d := rt.pick(nil, 99, 0, nil); got != first || d != routeConversation {
		t.Errorf("known conversation without blocks: replica %d (%s), want %d (conversation)", got, d, first)
	}
	// Busy beyond the margin: the least busy replica, recorded as load.
	rt.replicas[first].open.Store(DefaultRouteLoadMargin + 1)
	if got, d := rt.pick(conv, 12345, 0, nil); got == first || d != routeLoad {
		t.Errorf("busy prefix replica: %d (%s), want another (load)", got, d)
	}
	rt.replicas[first].open.Store(DefaultRouteLoadMargin)
	if got, _ := rt.pick(conv, 12345, 0, nil); got != first {
		t.Error("a prefix replica within the margin was not chosen")
	}
	rt.replicas[first].open.Store(0)
	// Retry leaves out what was tried.
	if got, d := rt.pick(conv, 12345, 0, []int{first}); got == first || d != routeRetry {
		t.Errorf("retry: %d (%s)", got, d)
	}
	// Unhealthy replicas are left out; with none healthy, any is tried.
	rt.replicas[first].healthy.Store(false)
	if got, _ := rt.pick(conv, 12345, 0, nil); got == first {
		t.Error("an unhealthy replica was chosen")
	}
	for _, r := range rt.replicas {
		r.healthy.Store(false)
	}
	if _, d := rt.pick(conv, 1, 0, nil); d != routeFallback {
		t.Errorf("no healthy replica: %s, want fallback", d)
	}
	// Then each conversation goes where its key hashes, as a new one would
	// when healthy: conversations still spread, and a retry leaves out
	// what was tried.
	all := func(int) bool { return true }
	used := map[int]bool{}
	for key := range uint64(30) {
		got, _ := rt.pick(nil, key, 0, nil)
		if want := rt.rendezvous(key, all); got != want {
			t.Errorf("fallback of key %d: replica %d, want %d (its hash)", key, got, want)
		}
		used[got] = true
		if again, d := rt.pick(nil, key, 0, []int{got}); again == got || d != routeFallback {
			t.Errorf("fallback retry of key %d: replica %d (%s) after %d", key, again, d, got)
		}
	}
	if len(used) != len(rt.replicas) {
		t.Errorf("with every replica out, 30 conversations went to %d of %d replicas", len(used), len(rt.replicas))
	}
}

// Rendezvous hashing spreads keys over replicas by weight, and removing a
// replica moves only its keys.
func TestRendezvous(t *testing.T) {
	rt := testRouter(3)
	rt.replicas[2].weight = 2
	all := func(int) bool { return true }
	count := make([]int, 3)
	where := map[uint64]int{}
	for k := range uint64(8000) {
		i := rt.rendezvous(k*0x9E3779B97F4A7C15, all)
		count[i]++
		where[k] = i
	}
	// Expected 2000, 2000, 4000.
	if count[0] < 1700 || count[0] > 2300 || count[2] < 3600 || count[2] > 4400 {
		t.Errorf("keys per replica %v, want about 2000, 2000, 4000", count)
	}
	without1 := func(i int) bool { return i != 1 }
	moved := 0
	for k, was := range where {
		now := rt.rendezvous(k*0x9E3779B97F4A7C15, without1)
		if was != 1 && now != was {
			moved++
		}
	}
	if moved != 0 {
		t.Errorf("removing replica 1 moved %d keys of other replicas", moved)
	}
}
