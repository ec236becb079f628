package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// bpeModel is the "model" of type BPE.
type bpeModel struct {
	vocab  vocabulary // token (in the file's alphabet) to id
	vocabR []string   // id to token; "" where no token has the id
	// merges maps the pair (a<<32 | b) to (rank<<32 | new id).
	merges       pairTable
	ignoreMerges bool
	byteFallback bool
	fuseUnk      bool
	prefix       string // continuing_subword_prefix
	suffix       string // end_of_word_suffix
	unk          string // unk_token, "" when none
	hasUnk       bool
	unkID        int32 // unk's id, when hasUnk

	// byteLevel: the pre-tokenizer ends with ByteLevel, so a word is a run
	// of raw bytes and each byte is one character of the byte-level alphabet.
	byteLevel bool
	byteID    [256]int32 // id of each single byte; -1 when missing
	fast      bool       // byte-level, no prefix or suffix, every byte in the vocabulary
	fallback  [256]int32 // id of "<0xHH>"; -1 when missing
}

// load reads model (must be BPE).
func (m *bpeModel) load(o obj, md *modelData, byteLevel bool) error {
	typ, err := o.typ()
	if err != nil {
		return err
	}
	if typ != "BPE" {
		return o.unsupported(typ)
	}
	var dropout *float64
	if err := o.get("dropout", &dropout, false); err != nil {
		return err
	}
	if dropout != nil && *dropout != 0 {
		return fmt.Errorf("model.dropout %v is not supported (BPE dropout is random)", *dropout)
	}
	for _, f := range []struct {
		key string
		v   *bool
	}{{"ignore_merges", &m.ignoreMerges}, {"byte_fallback", &m.byteFallback}, {"fuse_unk", &m.fuseUnk}} {
		if err := o.get(f.key, f.v, false); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		key string
		v   *string
	}{{"continuing_subword_prefix", &m.prefix}, {"end_of_word_suffix", &m.suffix}, {"unk_token", &m.unk}} {
		if err := o.get(f.key, f.v, false); err != nil {
			return err
		}
	}
	m.hasUnk = !isNull(o.m["unk_token"])
	if isNull(json.RawMessage(md.members["vocab"])) {
		return errors.New("model.vocab is missing")
	}
	if isNull(json.RawMessage(md.members["merges"])) {
		return errors.New("model.merges is missing")
	}
	if md.vocabErr != nil {
		return fmt.Errorf("model.vocab: %v", md.vocabErr)
	}
	// One table for the vocabulary, keyed as encoding looks tokens up.
	m.byteLevel = byteLevel
	m.vocab = newVocabulary(len(md.vocab), byteLevel)
	maxID := int32(-1)
	var buf []byte
	var replaced []vocabEntry // a repeated token: the id it had
	for _, e := range md.vocab {
		var old int32
		var again bool
		old, again, buf = m.vocab.put(md.text(e.tok), e.id, buf)
		if again && old != e.id {
			replaced = append(replaced, vocabEntry{e.tok, old})
		}
		maxID = max(maxID, e.id)
	}
	m.vocab.keys.done()
	if m.hasUnk {
		id, ok := m.vocab.id(m.unk)
		if !ok {
			// Hugging Face fails later, on the first text that needs it.
			return fmt.Errorf("model.unk_token %q is not in model.vocab", m.unk)
		}
		m.unkID = id
	}
	// The id table is indexed by id: ids may leave gaps, but not so many
	// that a small file makes a huge table (a 3 KB file with the id
	// 2147483646 would take 32 GB).
	if limit := maxVocabID(m.vocab.size()); int(maxID) > limit {
		return fmt.Errorf("model.vocab: id %d is far past the vocabulary's %d entries (at most %d)", maxID, m.vocab.size(), limit)
	}
	m.vocabR = make([]string, maxID+1)
	for _, e := range md.vocab {
		m.vocabR[e.id] = md.text(e.tok)
	}
	for _, e := range replaced {
		if m.vocabR[e.id] == md.text(e.tok) {
			m.vocabR[e.id] = ""
		}
	}
	per := 1 // strRefs per merge
	if md.mergesPair {
		per = 2
	}
	pairs := make([]pairSlot, 0, len(md.merges)/per)
	rank := 0
	for k := 0; k+per <= len(md.merges); k += per {
		i := k / per
		var a, b string
		if md.mergesPair {
			a, b = md.text(md.merges[k]), md.text(md.merges[k+1])
		} else {
			a = md.text(md.merges[k])
		}
		if !md.mergesPair {
			if strings.HasPrefix(a, "#version") {
				continue
			}
			line := a
			var ok bool
			a, b, ok = strings.Cut(line, " ")
			if !ok || strings.IndexByte(b, ' ') >= 0 {
				return fmt.Errorf("model.merges[%d]: %q is not two tokens separated by one space", i, line)
			}
		}
		ia, ib, in, err := m.mergeIDs(a, b, buf)
		if err != nil {
			return fmt.Errorf("model.merges[%d]: %v", i, err)
		}
		pairs = append(pairs, pairSlot{uint64(ia)<<32 | uint64(ib), uint64(rank)<<32 | uint64(in)})
		rank++
	}
	if md.mergesErr != nil {
		return fmt.Errorf("model.merges%v", md.mergesErr)
	}
	m.merges = newPairTable(len(pairs))
	m.merges.putAll(pairs)
	for b := range m.fallback {
		m.fallback[b] = -1
		if id, ok := m.vocab.id(fmt.Sprintf("<0x%02X>", b)); ok {
			m.fallback[b] = id
		}
	}
	if byteLevel {
		m.initByteLevel()
	}
	return nil
}

// mergeIDs returns the ids of a merge's two tokens and of the token they
// make (a, then b without continuing_subword_prefix), as the vocabulary
// has them. For a byte-level model the three are looked up by their raw
// bytes, decoded into buf (scratch), without building strings.
func (m *bpeModel) mergeIDs(a, b string, buf []byte) (ia, ib, in int32, err error) {
	v := &m.vocab
	if v.byteLevel && m.prefix == "" {
		var okA, okB bool
		buf, okA = byteLevelDecode(buf[:0], a)
		na := len(buf)
		buf, okB = byteLevelDecode(buf, b)
		if okA && okB && na > 0 && len(buf) > na {
			var ok bool
			if ia, ok = get(&v.keys, buf[:na]); !ok {
				return 0, 0, 0, fmt.Errorf("token %q is not in model.vocab", a)
			}
			if ib, ok = get(&v.keys, buf[na:]); !ok {
				return 0, 0, 0, fmt.Errorf("token %q is not in model.vocab", b)
			}
			if in, ok = get(&v.keys, buf); !ok {
				return 0, 0, 0, fmt.Errorf("merged token %q is not in model.vocab", a+b)
			}
			return ia, ib, in, nil
		}
	}
	var ok bool
	if ia, ok = v.id(a); !ok {
		return 0, 0, 0, fmt.Errorf("token %q is not in model.vocab", a)
	}
	if ib, ok = v.id(b); !ok {
		return 0, 0, 0, fmt.Errorf("token %q is not in model.vocab", b)
	}
	if len(b) < len(m.prefix) {
		return 0, 0, 0, fmt.Errorf("token %q is shorter than continuing_subword_prefix", b)
	}
	merged := a + b[len(m.prefix):]
	if in, ok = v.id(merged); !ok {
		return 0, 0, 0, fmt.Errorf("merged token %q is not in model.vocab", merged)
	}
	return ia, ib, in, nil
}

// initByteLevel finds the ids of the single bytes.
func (m *bpeModel) initByteLevel() {
	m.fast = m.prefix == "" && m.suffix == ""
	for b := range m.byteID {
		m.byteID[b] = -1
		if id, ok := get(&m.vocab.keys, []byte{byte(b)}); ok {
			m.byteID[b] = id
		} else {
			m.fast = false
		}
	}
}

// tok is one model token of a word: its id and its byte span in the word.
type tok struct {
	id         int32
	start, end int32
}

// initial appends the word's first symbols (one per character, or per
// byte for byte-level models) to s, following Hugging Face's merge_word:
// continuing_subword_prefix before every character but the first,
// end_of_word_suffix after the last; a character missing from the
// vocabulary becomes its <0xHH> byte tokens (byte_fallback), else unk_token
// (fused with a preceding unk when fuse_unk), else is dropped.
func (m *bpeModel) initial(s *symbols, word string) {
	if m.fast {
		for i := 0; i < len(word); i++ {
			s.push(m.byteID[word[i]], int32(i), int32(i+1))
		}
		return
	}
	// The word in the model's alphabet, and for each of its characters the
	// span of the word bytes it stands for.
	type char struct {
		text       string
		start, end int32
	}
	var chars []char
	if m.byteLevel {
		var b [2]byte
		for i := 0; i < len(word); i++ {
			n := utf8.EncodeRune(b[:], byteRune[word[i]])
			chars = append(chars, char{string(b[:n]), int32(i), int32(i + 1)})
		}
	} else {
		for i, r := range word {
			n := utf8.RuneLen(r)
			if r == utf8.RuneError {
				_, n = utf8.DecodeRuneInString(word[i:])
			}
			chars = append(chars, char{word[i : i+n], int32(i), int32(i + n)})
		}
	}
	unk := int32(-1)
	var unkStart, unkEnd int32
	for i, c := range chars {
		text := c.text
		if i > 0 && m.prefix != "" {
			text = m.prefix + text
		}
		if i == len(chars)-1 && m.suffix != "" {
			text += m.suffix
		}
		if id, ok := m.vocab.id(text); ok {
			if unk >= 0 {
				s.push(unk, unkStart, unkEnd)
				unk = -1
			}
			s.push(int32(id), c.start, c.end)
			continue
		}
		if m.byteFallback {
			ok := true
			for j := 0; j < len(text); j++ {
				if m.fallback[text[j]] < 0 {
					ok = false
					break
				}
			}
			if ok {
				// Hugging Face gives each byte token a length of one byte of
				// the model's string; here all of them span the character.
				for j := 0; j < len(text); j++ {
					s.push(m.fallback[text[j]], c.start, c.end)
				}
				continue
			}
		}
		if m.hasUnk {
			id := m.unkID
			switch {
			case unk >= 0 && m.fuseUnk:
				unkEnd = c.end
			case unk >= 0:
				s.push(unk, unkStart, unkEnd)
				unk, unkStart, unkEnd = id, c.start, c.end
			default:
				unk, unkStart, unkEnd = id, c.start, c.end
			}
		}
	}
	if unk >= 0 {
		s.push(unk, unkStart, unkEnd)
	}
}

// symbols is a word being merged: parallel arrays, with a doubly linked
// list for the heap merge of long words.
type symbols struct {
	id         []int32
	start, end []int32
	prev, next []int32
	heap       []mergeEntry
}

func (s *symbols) reset() {
	s.id, s.start, s.end = s.id[:0], s.start[:0], s.end[:0]
}

func (s *symbols) push(id, start, end int32) {
	s.id = append(s.id, id)
	s.start = append(s.start, start)
	s.end = append(s.end, end)
}

// pair looks up the merge of two ids.
func (m *bpeModel) pair(a, b int32) (rank uint32, newID int32, ok bool) {
	v, ok := m.merges.get(uint64(uint32(a))<<32 | uint64(uint32(b)))
	return uint32(v >> 32), int32(uint32(v)), ok
}

// smallWord is the number of symbols up to which merging rescans the pairs
// (quadratic but cache friendly); longer words use a heap.
const smallWord = 48

// merge applies the merges to s: always the lowest-ranked adjacent pair,
// the leftmost on a tie, as Hugging Face's Word::merge_all does.
func (m *bpeModel) merge(s *symbols) {
	n := len(s.id)
	if n < 2 || m.merges.n == 0 {
		return
	}
	if n <= smallWord {
		m.mergeSmall(s)
		return
	}
	m.mergeHeap(s)
}

const noRank = ^uint32(0)

func (m *bpeModel) mergeSmall(s *symbols) {
	var ranks [smallWord]uint32
	var news [smallWord]int32
	n := len(s.id)
	for i := 0; i < n-1; i++ {
		r, nid, ok := m.pair(s.id[i], s.id[i+1])
		if !ok {
			r = noRank
		}
		ranks[i], news[i] = r, nid
	}
	for {
		best, bi := noRank, -1
		for i := 0; i < n-1; i++ {
			if ranks[i] < best {
				best, bi = ranks[i], i
			}
		}
		if bi < 0 {
			break
		}
		s.id[bi] = news[bi]
		s.end[bi] = s.end[bi+1]
		copy(s.id[bi+1:], s.id[bi+2:n])
		copy(s.start[bi+1:], s.start[bi+2:n])
		copy(s.end[bi+1:], s.end[bi+2:n])
		if bi+2 < n-1 {
			copy(ranks[bi+1:], ranks[bi+2:n-1])
			copy(news[bi+1:], news[bi+2:n-1])
		}
		n--
		if bi > 0 {
			r, nid, ok := m.pair(s.id[bi-1], s.id[bi])
			if !ok {
				r = noRank
			}
			ranks[bi-1], news[bi-1] = r, nid
		}
		if bi < n-1 {
			r, nid, ok := m.pair(s.id[bi], s.id[bi+1])
			if !ok {
				r = noRank
			}
			ranks[bi], news[bi] = r, nid
		}
	}
	s.id, s.start, s.end = s.id[:n], s.start[:n], s.end[:n]
}

// mergeEntry is a candidate merge in the heap: the pair starting at symbol
// pos, its rank and the id it makes.
type mergeEntry struct {
	rank  uint32
	pos   int32
	newID int32
}

func (e mergeEntry) less(f mergeEntry) bool {
	return e.rank < f.rank || e.rank == f.rank && e.pos < f.pos
}

func (s *symbols) heapPush(e mergeEntry) {
	s.heap = append(s.heap, e)
	h := s.heap
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (s *symbols) heapPop() mergeEntry {
	h := s.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		c := l
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			c = r
		}
		if !h[c].less(h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	s.heap = h
	return top
}

// mergeHeap is Word::merge_all: a priority queue of candidate merges over
// a linked list of symbols, O(n log n) in the word's length. An entry is
// stale when its symbol was merged away, has no right neighbour, or the
// pair there now makes another token.
func (m *bpeModel) mergeHeap(s *symbols) {
	n := len(s.id)
	s.prev = s.prev[:0]
	s.next = s.next[:0]
	s.heap = s.heap[:0]
	for i := 0; i < n; i++ {
		s.prev = append(s.prev, int32(i-1))
		nx := int32(i + 1)
		if i == n-1 {
			nx = -1
		}
		s.next = append(s.next, nx)
	}
	for i := 0; i < n-1; i++ {
		if r, nid, ok := m.pair(s.id[i], s.id[i+1]); ok {
			s.heapPush(mergeEntry{r, int32(i), nid})
		}
	}
	dead := s.start // a merged-away symbol gets start = -1
	for len(s.heap) > 0 {
		e := s.heapPop()
		p := e.pos
		if dead[p] < 0 || s.next[p] < 0 {
			continue
		}
		q := s.next[p]
		if _, nid, ok := m.pair(s.id[p], s.id[q]); !ok || nid != e.newID {
			continue
		}
		s.id[p] = e.newID
		s.end[p] = s.end[q]
		dead[q] = -1
		s.next[p] = s.next[q]
		if nq := s.next[q]; nq >= 0 {
			s.prev[nq] = p
		}
		if pp := s.prev[p]; pp >= 0 {
			if r, nid, ok := m.pair(s.id[pp], s.id[p]); ok {
				s.heapPush(mergeEntry{r, pp, nid})
			}
		}
		if nq := s.next[p]; nq >= 0 {
			if r, nid, ok := m.pair(s.id[p], s.id[nq]); ok {
				s.heapPush(mergeEntry{r, p, nid})
			}
		}
	}
	k := 0
	for i := 0; i < n; i++ {
		if dead[i] >= 0 {
			s.id[k], s.start[k], s.end[k] = s.id[i], s.start[i], s.end[i]
			k++
		}
	}
	s.id, s.start, s.end = s.id[:k], s.start[:k], s.end[:k]
}

// maxVocabID is the largest id a vocabulary of n entries may use: twice its
// size plus 65,536, room for any gaps a real vocabulary leaves.
func maxVocabID(n int) int { return 2*n + 1<<16 }
