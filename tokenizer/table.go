package tokenizer

import "math/bits"

// keyTable maps byte strings to ids: an open-addressing hash table with
// linear probing, built once and read without locks. A slot holds a key's
// first eight bytes and its length, so that a lookup of a key of up to
// eight bytes (most tokens) reads one slot and nothing else; the bytes of
// longer keys past the eighth are compared in one shared string.
type keyTable struct {
	slots []keySlot
	tails []uint32 // per slot: the offset in rest of the key's bytes [8:]
	rest  string
	buf   []byte // rest while the table is built
	mask  uint64
	n     int
}

// keySlot is one slot; n == 0 marks an empty one (the empty key is never
// stored).
type keySlot struct {
	head uint64 // the key's first eight bytes, little endian, zero padded
	n    uint32
	id   int32
}

// key is what a keyTable looks up: a string, or bytes while loading.
type key interface{ ~string | ~[]byte }

// le64 reads s[i:i+8] as a little-endian word.
func le64[K key](s K, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// le32 reads s[i:i+4] as a little-endian word.
func le32[K key](s K, i int) uint64 {
	s = s[i : i+4]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

const (
	mulA = 0x9e3779b97f4a7c15
	mulB = 0xbf58476d1ce4e5b9
	mulC = 0x94d049bb133111eb
)

// keyHash returns the first eight bytes of a non-empty key (zero padded)
// and its hash.
func keyHash[K key](s K) (head, h uint64) {
	n := len(s)
	switch {
	case n >= 8:
		head = le64(s, 0)
		h = head
		i := 8
		for ; i+8 <= n; i += 8 {
			h = bits.RotateLeft64((h^le64(s, i))*mulB, 29)
		}
		if i < n {
			h = bits.RotateLeft64((h^le64(s, n-8))*mulC, 31)
		}
	case n >= 4:
		// Two overlapping loads: the shared bytes are the same on both sides.
		head = le32(s, 0) | le32(s, n-4)<<(8*(n-4))
		h = head
	default:
		head = uint64(s[0]) | uint64(s[n/2])<<(8*(n/2)) | uint64(s[n-1])<<(8*(n-1))
		h = head
	}
	h ^= uint64(n) * mulC
	h ^= h >> 32
	h *= mulA
	h ^= h >> 29
	return head, h
}

// newKeyTable sizes a table for n keys: at most three quarters full.
func newKeyTable(n int) keyTable {
	size := 16
	for size*3 < n*4 {
		size <<= 1
	}
	return keyTable{slots: make([]keySlot, size), tails: make([]uint32, size), mask: uint64(size - 1)}
}

// put adds k with id. A key already present takes the new id (a repeated
// token of a vocabulary keeps its last id, as a JSON object read into a map
// does); put then returns the id it had.
func put[K key](t *keyTable, k K, id int32) (old int32, replaced bool) {
	if len(k) == 0 {
		return -1, false
	}
	head, h := keyHash(k)
	i := h & t.mask
	for ; t.slots[i].n != 0; i = (i + 1) & t.mask {
		sl := &t.slots[i]
		if sl.head == head && int(sl.n) == len(k) && (len(k) <= 8 || string(t.buf[t.tails[i]:int(t.tails[i])+len(k)-8]) == string(k[8:])) {
			old, sl.id = sl.id, id
			return old, true
		}
	}
	t.slots[i] = keySlot{head: head, n: uint32(len(k)), id: id}
	if len(k) > 8 {
		t.tails[i] = uint32(len(t.buf))
		t.buf = append(t.buf, k[8:]...)
	}
	t.n++
	return -1, false
}

// done ends the building of the table.
func (t *keyTable) done() {
	t.rest = string(t.buf)
	t.buf = nil
}

// get returns the id of key.
func (t *keyTable) get(key string) (int32, bool) { return get(t, key) }

// get returns the id of k, a string or bytes.
func get[K key](t *keyTable, k K) (int32, bool) {
	if len(k) == 0 || len(t.slots) == 0 {
		return -1, false
	}
	head, h := keyHash(k)
	return find(t, k, head, h)
}

// find is get with the key's head and hash known.
func find[K key](t *keyTable, k K, head, h uint64) (int32, bool) {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		sl := &t.slots[i]
		if sl.n == 0 {
			return -1, false
		}
		if sl.head == head && int(sl.n) == len(k) {
			if len(k) <= 8 {
				return sl.id, true
			}
			if off := int(t.tails[i]); t.rest[off:off+len(k)-8] == string(k[8:]) {
				return sl.id, true
			}
		}
	}
}

// vocabulary maps the tokens of model.vocab, as tokenizer.json writes
// them, to their ids, in one keyTable: keyed by the raw bytes of each token
// for a byte-level model (the key encoding looks pieces up by), by the
// token itself otherwise.
type vocabulary struct {
	byteLevel bool
	keys      keyTable
	// odd holds, for a byte-level model, the tokens with a character
	// outside the byte-level alphabet (none in the usual vocabularies).
	odd map[string]int32
}

func newVocabulary(n int, byteLevel bool) vocabulary {
	return vocabulary{byteLevel: byteLevel, keys: newKeyTable(n)}
}

// put adds tok with id, returning the id a repeated token had. buf is
// scratch, returned grown.
func (v *vocabulary) put(tok string, id int32, buf []byte) (old int32, replaced bool, _ []byte) {
	if !v.byteLevel {
		old, replaced = put(&v.keys, tok, id)
		return old, replaced, buf
	}
	buf, ok := byteLevelDecode(buf[:0], tok)
	if ok && len(buf) > 0 {
		old, replaced = put(&v.keys, buf, id)
		return old, replaced, buf
	}
	if v.odd == nil {
		v.odd = map[string]int32{}
	}
	old, replaced = v.odd[tok]
	v.odd[tok] = id
	return old, replaced, buf
}

// id returns the id of a token as tokenizer.json writes it.
func (v *vocabulary) id(tok string) (int32, bool) {
	if !v.byteLevel {
		return v.keys.get(tok)
	}
	var scratch [64]byte
	buf, ok := byteLevelDecode(scratch[:0], tok)
	if !ok || len(buf) == 0 {
		id, ok := v.odd[tok]
		return id, ok
	}
	return get(&v.keys, buf)
}

// size is the number of distinct tokens.
func (v *vocabulary) size() int { return v.keys.n + len(v.odd) }

// pieceCache is an encoding state's cache of merged pieces: open
// addressing over the hashes keyHash gives, the pieces' bytes and tokens
// in two arenas. It holds at most cacheEntries pieces of under
// cacheWordLen bytes, then starts over.
type pieceCache struct {
	slots []cacheSlot
	keys  []byte
	toks  []tok
	n     int
}

// cacheSlot is one cached piece; h == 0 marks an empty slot.
type cacheSlot struct {
	h          uint64 // keyHash's hash, with the low bit set
	off, n     uint32 // the piece's bytes in keys
	tok, ntoks uint32 // its tokens in toks
}

const cacheSlots = 2 * cacheEntries

func (c *pieceCache) get(w string, h uint64) ([]tok, bool) {
	if c.slots == nil {
		return nil, false
	}
	h |= 1
	for i := h & (cacheSlots - 1); ; i = (i + 1) & (cacheSlots - 1) {
		sl := &c.slots[i]
		if sl.h == 0 {
			return nil, false
		}
		if sl.h == h && int(sl.n) == len(w) && string(c.keys[sl.off:sl.off+sl.n]) == w {
			return c.toks[sl.tok : sl.tok+sl.ntoks : sl.tok+sl.ntoks], true
		}
	}
}

// put caches the tokens of w (a piece not in the cache) and returns the
// cached copy.
func (c *pieceCache) put(w string, h uint64, toks []tok) []tok {
	if c.slots == nil {
		c.slots = make([]cacheSlot, cacheSlots)
	}
	if c.n >= cacheEntries {
		clear(c.slots)
		c.keys, c.toks, c.n = c.keys[:0], c.toks[:0], 0
	}
	h |= 1
	i := h & (cacheSlots - 1)
	for c.slots[i].h != 0 {
		i = (i + 1) & (cacheSlots - 1)
	}
	c.slots[i] = cacheSlot{h: h, off: uint32(len(c.keys)), n: uint32(len(w)), tok: uint32(len(c.toks)), ntoks: uint32(len(toks))}
	c.keys = append(c.keys, w...)
	c.toks = append(c.toks, toks...)
	c.n++
	return c.toks[len(c.toks)-len(toks):]
}

// pairTable maps a pair of token ids (a<<32 | b) to the merge of the pair
// (rank<<32 | new id): open addressing with linear probing, at most three
// quarters full (o200k's 446,189 merges fill 43% of 2^20 slots).
type pairTable struct {
	slots []pairSlot
	mask  uint64
	shift uint
	n     int
}

// pairSlot holds key+1 (0 marks an empty slot) and the value.
type pairSlot struct{ key, val uint64 }

func newPairTable(n int) pairTable {
	size, bits := 16, uint(4)
	for size*3 < n*4 {
		size <<= 1
		bits++
	}
	return pairTable{slots: make([]pairSlot, size), mask: uint64(size - 1), shift: 64 - bits}
}

// put sets the value of a pair; a repeated pair takes the new value, as
// Hugging Face's map of merges does.
func (t *pairTable) put(k, v uint64) {
	k++
	i := (k * mulA) >> t.shift
	for ; t.slots[i].key != 0; i = (i + 1) & t.mask {
		if t.slots[i].key == k {
			t.slots[i].val = v
			return
		}
	}
	t.slots[i] = pairSlot{k, v}
	t.n++
}

// putAll puts the pairs in order (a repeated pair keeps its last value),
// each key a pair and each val its value. A large table is filled in the
// order of the pairs' home slots (a stable counting sort on their top 12
// bits), front to back: put in the merges' order, each insertion was a
// cache and TLB miss somewhere in 16 MB.
func (t *pairTable) putAll(pairs []pairSlot) {
	const bucketBits = 12
	if 64-t.shift <= bucketBits+4 {
		for _, p := range pairs {
			t.put(p.key, p.val)
		}
		return
	}
	bucket := func(k uint64) uint64 { return ((k + 1) * mulA) >> (64 - bucketBits) }
	starts := make([]int, 1<<bucketBits+1)
	for _, p := range pairs {
		starts[bucket(p.key)+1]++
	}
	for b := 1; b < len(starts); b++ {
		starts[b] += starts[b-1]
	}
	sorted := make([]pairSlot, len(pairs))
	for _, p := range pairs {
		b := bucket(p.key)
		sorted[starts[b]] = p
		starts[b]++
	}
	for _, p := range sorted {
		t.put(p.key, p.val)
	}
}

func (t *pairTable) get(k uint64) (uint64, bool) {
	if t.n == 0 {
		return 0, false
	}
	k++
	for i := (k * mulA) >> t.shift; ; i = (i + 1) & t.mask {
		sl := &t.slots[i]
		if sl.key == k {
			return sl.val, true
		}
		if sl.key == 0 {
			return 0, false
		}
	}
}
