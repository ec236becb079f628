package serve

import (
	"encoding/binary"
	"math"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
)

// Prefix-aware routing (issue 21). The gateway renders the exact prompt, so
// it knows what each engine replica has in its prefix cache: the prompts
// it sent there. It hashes every prompt in fixed blocks, chained (a
// block's hash covers everything before it, as engines' prefix caches key
// their blocks), remembers which replica last received each block chain,
// and sends a request to the replica that holds the longest prefix of its
// prompt, unless that replica is busier than the least busy one by more
// than a margin. docs/routing.md compares this with other routers.

// Default block sizes: token ids are hashed in blocks of
// DefaultRouteBlockTokens (vLLM's and SGLang's page size), rendered text,
// without a tokenizer, in blocks of DefaultRouteBlockBytes (about as many
// tokens).
const (
	DefaultRouteBlockTokens = 16
	DefaultRouteBlockBytes  = 64
	// DefaultRouteTableEntries bounds the block table: each entry costs
	// about 40 bytes, so the table stays under about 20 MB.
	DefaultRouteTableEntries = 1 << 19
	// DefaultRouteLoadMargin is how many more open requests than the least
	// busy replica the prefix's replica may have and still be chosen.
	DefaultRouteLoadMargin = 4
)

// blockHashes returns the chained hashes of the prompt's full blocks: ids
// ([]int) in blocks of tokens, text (string) in blocks of bytes. A trailing
// partial block is not hashed: engines cache whole blocks only.
func blockHashes(prompt any, blockTokens, blockBytes int, dst []uint64) []uint64 {
	var prev uint64
	var buf [8 + 4*64]byte
	switch p := prompt.(type) {
	case []int:
		if blockTokens <= 0 || blockTokens > 64 {
			blockTokens = DefaultRouteBlockTokens
		}
		for start := 0; start+blockTokens <= len(p); start += blockTokens {
			binary.LittleEndian.PutUint64(buf[:8], prev)
			n := 8
			for _, id := range p[start : start+blockTokens] {
				binary.LittleEndian.PutUint32(buf[n:], uint32(id))
				n += 4
			}
			prev = xxhash.Sum64(buf[:n])
			dst = append(dst, prev)
		}
	case string:
		if blockBytes <= 0 {
			blockBytes = DefaultRouteBlockBytes
		}
		d := xxhash.New()
		for start := 0; start+blockBytes <= len(p); start += blockBytes {
			d.Reset()
			binary.LittleEndian.PutUint64(buf[:8], prev)
			d.Write(buf[:8])
			d.WriteString(p[start : start+blockBytes])
			prev = d.Sum64()
			dst = append(dst, prev)
		}
	}
	return dst
}

// blockTable maps block-chain hashes to the replica that last received
// them. It holds at most max entries in two generations: new and touched
// entries go to the current one; when it is half full, it becomes the
// previous one and the old previous one is dropped. An entry not used
// during two generations (max/2 new or touched entries each) is forgotten,
// so memory stays bounded and stale placements expire.
type blockTable struct {
	mu        sync.Mutex
	max       int
	cur, prev map[uint64]int32
}

func newBlockTable(max int) *blockTable {
	if max < 2 {
		max = 2
	}
	return &blockTable{max: max, cur: map[uint64]int32{}, prev: map[uint64]int32{}}
}

// longest returns the replica holding the longest prefix of hashes and the
// number of blocks it holds, or -1 and 0. Only the hashes are compared:
// a chain hash names its whole prefix.
func (t *blockTable) longest(hashes []uint64) (replica, blocks int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(hashes) - 1; i >= 0; i-- {
		if r, ok := t.cur[hashes[i]]; ok {
			return int(r), i + 1
		}
		if r, ok := t.prev[hashes[i]]; ok {
			return int(r), i + 1
		}
	}
	return -1, 0
}

// record notes that replica received the blocks.
func (t *blockTable) record(hashes []uint64, replica int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, h := range hashes {
		if len(t.cur) >= t.max/2 {
			t.prev, t.cur = t.cur, make(map[uint64]int32, t.max/2)
		}
		t.cur[h] = int32(replica)
	}
}

// forget drops every block placed on replica (it went down: its cache
// is gone).
func (t *blockTable) forget(replica int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range []map[uint64]int32{t.cur, t.prev} {
		for h, r := range m {
			if int(r) == replica {
				delete(m, h)
			}
		}
	}
}

// size is the number of entries held.
func (t *blockTable) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.cur) + len(t.prev)
}

// replica is one engine behind the gateway.
type replica struct {
	base    string
	weight  float64
	open    atomic.Int64 // requests sent and not finished
	healthy atomic.Bool
	fails   atomic.Int32 // consecutive failed probes or requests
}

// convTable remembers which replica each recent conversation (by key) was
// placed on, and how many recent conversations each replica holds, so
// that new conversations go where the fewest are: an engine caches a
// bounded number of prompts (llama.cpp one per slot), and conversations
// piled on one replica evict each other. Bounded and aged like
// blockTable: two generations of at most max/2 keys each.
type convTable struct {
	mu        sync.Mutex
	max       int
	cur, prev map[uint64]int32
	count     []int // live conversations per replica (in cur or prev)
}

func newConvTable(max int) *convTable {
	return &convTable{max: max, cur: map[uint64]int32{}, prev: map[uint64]int32{}}
}

// place records that conversation key lives on replica.
func (t *convTable) place(key uint64, replica int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.count) <= replica {
		t.count = append(t.count, 0)
	}
	if r, ok := t.cur[key]; ok {
		t.count[r]--
	} else if r, ok := t.prev[key]; ok {
		t.count[r]--
		delete(t.prev, key)
	}
	if len(t.cur) >= t.max/2 {
		for _, r := range t.prev {
			t.count[r]--
		}
		t.prev, t.cur = t.cur, make(map[uint64]int32, t.max/2)
	}
	t.cur[key] = int32(replica)
	t.count[replica]++
}

// lookup returns the replica conversation key was last placed on.
func (t *convTable) lookup(key uint64) (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.cur[key]; ok {
		return int(r), true
	}
	r, ok := t.prev[key]
	return int(r), ok
}

// load returns how many recent conversations replica holds.
func (t *convTable) load(replica int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if replica < len(t.count) {
		return t.count[replica]
	}
	return 0
}

// forget drops the conversations of a replica that went down.
func (t *convTable) forget(replica int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range []map[uint64]int32{t.cur, t.prev} {
		for k, r := range m {
			if int(r) == replica {
				delete(m, k)
			}
		}
	}
	if replica < len(t.count) {
		t.count[replica] = 0
	}
}

// Routing decisions, as metrics and logs name them: one label per kind.
const (
	routePrefix       = "prefix"       // the replica holding the longest prefix
	routeConversation = "conversation" // no prefix of its own known: the replica the conversation was placed on
	routeLoad         = "load"         // the chosen replica was too busy: the least busy one
	routeHash         = RouteNewHash   // a new conversation: the replica its key hashes to
	routeFewest       = RouteNewFewest // a new conversation: the replica holding the fewest recent ones
	routeFallback     = "fallback"     // no healthy replica: any replica
	routeRetry        = "retry"        // the chosen replica failed before answering: another one
)

// router picks a replica for each request.
type router struct {
	replicas []*replica
	table    *blockTable
	convs    *convTable
	margin   int64
	cfg      Routing
}

// newRouter returns a router without replicas (add them) for cfg.
func newRouter(cfg Routing) *router {
	if cfg.BlockTokens <= 0 || cfg.BlockTokens > 64 {
		cfg.BlockTokens = DefaultRouteBlockTokens
	}
	if cfg.BlockBytes <= 0 {
		cfg.BlockBytes = DefaultRouteBlockBytes
	}
	if cfg.TableEntries <= 0 {
		cfg.TableEntries = DefaultRouteTableEntries
	}
	switch {
	case cfg.LoadMargin == 0:
		cfg.LoadMargin = DefaultRouteLoadMargin
	case cfg.LoadMargin < 0:
		cfg.LoadMargin = 0
	}
	if cfg.ProbeInterval <= 0 {
		cfg.ProbeInterval = DefaultProbeInterval
	}
	return &router{table: newBlockTable(cfg.TableEntries), convs: newConvTable(max(cfg.TableEntries/64, 64)),
		margin: int64(cfg.LoadMargin), cfg: cfg}
}

// add adds a replica, healthy until a probe or a request says otherwise.
func (rt *router) add(base string, weight float64) {
	if weight <= 0 {
		weight = 1
	}
	r := &replica{base: base, weight: weight}
	r.healthy.Store(true)
	rt.replicas = append(rt.replicas, r)
}

// pick returns the replica for a prompt with block hashes and a
// conversation key, leaving out the replicas in tried, and the decision.
// A prefix shorter than minBlocks (what every conversation shares, such as
// the system prompt and the tools) does not count as the conversation's:
// the key decides then, so that conversations spread over the replicas
// and each one's later turns find its own longer prefix.
func (rt *router) pick(hashes []uint64, key uint64, minBlocks int, tried []int) (int, string) {
	ok := func(i int) bool {
		for _, t := range tried {
			if t == i {
				return false
			}
		}
		return rt.replicas[i].healthy.Load()
	}
	least, leastOpen := -1, int64(math.MaxInt64)
	for i, r := range rt.replicas {
		if !ok(i) {
			continue
		}
		// Weighted load: open requests per unit of weight.
		if open := int64(float64(r.open.Load()) / r.weight); open < leastOpen {
			least, leastOpen = i, open
		}
	}
	if least < 0 {
		// No healthy replica left: an untried one, healthy or not, the
		// one the conversation key hashes to, so that conversations keep
		// spreading over the replicas as they would when healthy (the
		// first untried replica took every request before).
		if i := rt.rendezvous(key, func(i int) bool { return !contains(tried, i) }); i >= 0 {
			return i, routeFallback
		}
		return 0, routeFallback
	}
	decision := ""
	if len(tried) > 0 {
		decision = routeRetry
	}
	p, n := rt.table.longest(hashes)
	found := routePrefix
	if p < 0 || n <= minBlocks {
		// No prefix of the conversation's own in the table (its blocks
		// may have aged out, or the prompt was cut at another block
		// boundary): the replica the conversation was placed on.
		var known bool
		if p, known = rt.convs.lookup(key); !known {
			p = -1
		}
		found = routeConversation
	}
	if p < 0 || !ok(p) {
		// A new conversation, as far as this gateway knows. By default
		// (RouteNewHash) the replica the conversation key hashes to
		// (rendezvous hashing, weighted), so that every gateway sends it
		// to the same engine without sharing state. With RouteNewFewest
		// the replica holding the fewest recent conversations per unit of
		// weight (the key's hash breaks ties), so that conversations
		// spread evenly over the engines' caches.
		p, found = rt.rendezvous(key, ok), routeHash
		if rt.cfg.NewConversations == RouteNewFewest {
			best := math.Inf(1)
			h0 := p
			for i, r := range rt.replicas {
				if !ok(i) {
					continue
				}
				if l := float64(rt.convs.load(i)) / r.weight; l < best || l == best && i == h0 {
					best, p = l, i
				}
			}
			found = routeFewest
		}
	}
	// Whichever it is, if that replica is much busier than the least busy
	// one, the least busy one.
	r := rt.replicas[p]
	if int64(float64(r.open.Load())/r.weight) <= leastOpen+rt.margin {
		return p, orDecision(decision, found)
	}
	return least, orDecision(decision, routeLoad)
}

func orDecision(first, second string) string {
	if first != "" {
		return first
	}
	return second
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// rendezvous returns the replica with the highest weighted score for key
// among those ok admits (highest random weight hashing): each key goes to
// one replica, and removing a replica moves only its own keys.
func (rt *router) rendezvous(key uint64, ok func(int) bool) int {
	best, bestScore := -1, math.Inf(-1)
	var buf [16]byte
	for i, r := range rt.replicas {
		if !ok(i) {
			continue
		}
		binary.LittleEndian.PutUint64(buf[:8], key)
		binary.LittleEndian.PutUint64(buf[8:], xxhash.Sum64String(r.base))
		h := xxhash.Sum64(buf[:])
		// A uniform draw in (0, 1), scaled by the weight: -w / ln(u).
		u := (float64(h>>11) + 0.5) / float64(1<<53)
		if score := -r.weight / math.Log(u); score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}
