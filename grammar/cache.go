package grammar

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"
)

// Cache holds compiled grammars by spec, so that a gateway compiles each
// distinct (tools, choice, parallel, format) once. It keeps at most its
// size of them, dropping the least recently used. A Cache is safe for
// concurrent use.
type Cache struct {
	mu    sync.Mutex
	size  int
	items map[[32]byte]*cacheEntry
	clock uint64
}

type cacheEntry struct {
	g    *Grammar
	err  error
	used uint64
}

// NewCache returns a cache of at most size grammars (at least 1).
func NewCache(size int) *Cache {
	return &Cache{size: max(size, 1), items: map[[32]byte]*cacheEntry{}}
}

// Compile returns Compile(spec), from the cache when the same spec was
// compiled before. Errors are cached too.
func (c *Cache) Compile(spec *Spec) (*Grammar, error) {
	if !spec.Constrained() {
		return nil, nil
	}
	key := specKey(spec)
	c.mu.Lock()
	c.clock++
	if e, ok := c.items[key]; ok {
		e.used = c.clock
		c.mu.Unlock()
		return e.g, e.err
	}
	c.mu.Unlock()
	g, err := Compile(spec)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.items) >= c.size {
		var oldest [32]byte
		least := ^uint64(0)
		for k, e := range c.items {
			if e.used < least {
				oldest, least = k, e.used
			}
		}
		delete(c.items, oldest)
	}
	c.items[key] = &cacheEntry{g, err, c.clock}
	return g, err
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
	var key [32]byte
	h.Sum(key[:0])
	return key
}
