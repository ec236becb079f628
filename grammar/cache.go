package grammar

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"sync"
)

// Cache holds compiled grammars by spec, so that a gateway compiles each
// distinct (tools, choice, parallel, format) once. It holds at most its
// budget of bytes of them (their text, their EBNF once a caller has asked
// for it, and reports; a cached grammar keeps nothing else), dropping the
// least recently used. A Cache is safe for concurrent use.
type Cache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	items    map[[32]byte]*cacheEntry
	clock    uint64
}

type cacheEntry struct {
	key   [32]byte
	g     *Grammar
	err   error
	used  uint64
	bytes int
}

// NewCache returns a cache of at most maxBytes of grammars (at least one
// grammar is kept, whatever its size).
func NewCache(maxBytes int) *Cache {
	return &Cache{maxBytes: maxBytes, items: map[[32]byte]*cacheEntry{}}
}

// Compile returns Compile(ctx, spec), from the cache when the same spec
// was compiled before. Errors are cached too, but not ctx's.
func (c *Cache) Compile(ctx context.Context, spec *Spec) (*Grammar, error) {
	if !spec.Constrained() {
		return nil, nil
	}
	key := specKey(spec)
	c.mu.Lock()
	c.clock++
	if e, ok := c.items[key]; ok {
		e.used = c.clock
		c.mu.Unlock()
		return e.result()
	}
	c.mu.Unlock()
	g, err := Compile(ctx, spec)
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	e := &cacheEntry{key: key, err: err, bytes: 256}
	if g != nil {
		// Only what a caller reads is kept: the text and the reports.
		g = &Grammar{text: g.text, Dropped: g.Dropped, ebnf: &ebnfMemo{forms: g.xgForms()}}
		g.ebnf.written = func(n int) { c.grew(e, n) }
		e.g = g
		e.bytes += len(g.text) + 8*len(g.ebnf.forms)
		for _, d := range g.Dropped {
			e.bytes += len(d.Path) + len(d.Keyword) + 32
		}
	}
	if err != nil {
		e.bytes += len(err.Error())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.items[key]; ok {
		// Compiled meanwhile by another caller.
		old.used = c.clock
		return old.result()
	}
	c.evict(e.bytes, nil)
	c.clock++
	e.used = c.clock
	c.items[key] = e
	c.bytes += e.bytes
	return e.result()
}

// evict drops the least recently used grammars, other than keep, until
// more bytes fit in the budget (or no other grammar is left). c.mu is held.
func (c *Cache) evict(more int, keep *cacheEntry) {
	for c.bytes+more > c.maxBytes {
		var oldest [32]byte
		least, found := ^uint64(0), false
		for k, o := range c.items {
			if o != keep && o.used < least {
				oldest, least, found = k, o.used, true
			}
		}
		if !found {
			return
		}
		c.bytes -= c.items[oldest].bytes
		delete(c.items, oldest)
	}
}

// grew counts the n bytes of e's EBNF, written after e was cached, making
// room for them as for a new grammar. An entry dropped meanwhile counts
// nothing: its bytes left the budget with it.
func (c *Cache) grew(e *cacheEntry, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items[e.key] != e {
		return
	}
	c.evict(n, e)
	e.bytes += n
	c.bytes += n
}

// result is the entry's grammar and error. The grammar is the caller's
// own copy (its text is shared: a string can't change), so that no caller
// can change what the cache hands the next one.
func (e *cacheEntry) result() (*Grammar, error) {
	if e.g == nil {
		return nil, e.err
	}
	return &Grammar{text: e.g.text, Dropped: slices.Clone(e.g.Dropped), ebnf: e.g.ebnf}, e.err
}

// Bytes is the size of the grammars held, as the budget counts it.
func (c *Cache) Bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Len is the number of grammars held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// specKey hashes everything a grammar depends on, each part length-prefixed.
func specKey(s *Spec) [32]byte {
	h := sha256.New()
	var n [8]byte
	part := func(b []byte) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	flag := func(v bool) {
		if v {
			part([]byte{1})
		} else {
			part([]byte{0})
		}
	}
	part([]byte{byte(s.Choice)})
	part([]byte(s.Name))
	flag(s.Parallel)
	binary.LittleEndian.PutUint64(n[:], uint64(len(s.Tools)))
	h.Write(n[:])
	for _, t := range s.Tools {
		part([]byte(t.Name))
		part(t.Parameters)
		flag(t.Strict)
	}
	flag(s.Format != nil)
	if s.Format != nil {
		flag(s.Format.Schema != nil)
		part(s.Format.Schema)
		flag(s.Format.Strict)
	}
	flag(s.XGrammar)
	var key [32]byte
	h.Sum(key[:0])
	return key
}
