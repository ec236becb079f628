package tokenizer

import (
	"context"
	"unicode"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/split"
)

// An Encoding is the result of Encode: the token ids with, for each token,
// the span of the input it came from.
type Encoding struct {
	// IDs are the token ids.
	IDs []int
	// Offsets are the [start, end) spans of the tokens in characters (Unicode
	// code points, the unit of Python's str), exactly as Hugging Face gives
	// them: a token holding part of a multi-byte character spans the whole
	// character (so neighbouring spans may overlap), an added token with
	// lstrip or rstrip includes the white space it absorbed, and a ByteLevel
	// post-processor with trim_offsets cuts leading and trailing spaces.
	Offsets [][2]int
	// ByteOffsets are the same spans in bytes of the UTF-8 input.
	ByteOffsets [][2]int
}

// CharToToken returns the index of the first token whose character span
// holds the character at index pos, or -1 when none does (a space cut by
// trim_offsets belongs to no token). It is Hugging Face's char_to_token.
func (e *Encoding) CharToToken(pos int) int {
	for i, o := range e.Offsets {
		if o[0] <= pos && pos < o[1] {
			return i
		}
	}
	return -1
}

// Encode encodes text as Hugging Face's tokenizer(text,
// add_special_tokens=False) does: added tokens (markers) found in the text
// become their ids, the rest goes through the normalizer, the
// pre-tokenizer and the model. The text should be valid UTF-8; an invalid
// byte is encoded as a byte and counts as one character.
//
// Encode has no time limit. A Split pattern that runs on the backtracking
// engine can take long on a hostile text (patterns that backtrack
// exponentially are refused by Load, polynomial ones are not); encode text
// from outside with EncodeContext.
func (t *Tokenizer) Encode(text string) *Encoding {
	e, _ := t.encodeOffsets(context.Background(), false, text, false)
	return e
}

// ErrTimeout is wrapped by the error of an encode bounded in time
// (EncodeContext and the other ...Context methods, and through them
// harmony.RenderTokens) when one search of a Split pattern takes
// longer than a second: a backtracking pattern on hostile text.
var ErrTimeout = split.ErrMatchTimeout

// EncodeContext is Encode bounded in time: it stops with ctx's error when
// ctx is done, and with an error wrapping ErrTimeout when one search of a
// Split pattern takes longer than a second.
func (t *Tokenizer) EncodeContext(ctx context.Context, text string) (*Encoding, error) {
	return t.encodeOffsets(ctx, true, text, false)
}

// EncodeOrdinary encodes text as ordinary text: added-token content in it
// (marker text such as "<|start|>") is not matched and goes through the
// model like any other text. Like Encode, it has no time limit.
func (t *Tokenizer) EncodeOrdinary(text string) *Encoding {
	e, _ := t.encodeOffsets(context.Background(), false, text, true)
	return e
}

// EncodeOrdinaryContext is EncodeOrdinary bounded in time as
// EncodeContext is.
func (t *Tokenizer) EncodeOrdinaryContext(ctx context.Context, text string) (*Encoding, error) {
	return t.encodeOffsets(ctx, true, text, true)
}

// AppendEncode appends the ids of Encode(text) to dst, without computing
// offsets.
func (t *Tokenizer) AppendEncode(dst []int, text string) []int {
	ids, _ := t.appendEncode(context.Background(), false, dst, text, false)
	return ids
}

// AppendEncodeOrdinary appends the ids of EncodeOrdinary(text) to dst,
// without computing offsets: the fast path for text between markers that a
// caller places itself.
func (t *Tokenizer) AppendEncodeOrdinary(dst []int, text string) []int {
	ids, _ := t.appendEncode(context.Background(), false, dst, text, true)
	return ids
}

// AppendEncodeOrdinaryContext is AppendEncodeOrdinary bounded in time as
// EncodeContext is; on an error it returns dst as it was. It makes a
// *Tokenizer a harmony.ContextTokenEncoder, which harmony.RenderTokens
// stops through.
func (t *Tokenizer) AppendEncodeOrdinaryContext(ctx context.Context, dst []int, text string) ([]int, error) {
	return t.appendEncode(ctx, true, dst, text, true)
}

func (t *Tokenizer) appendEncode(ctx context.Context, bounded bool, dst []int, text string, ordinary bool) ([]int, error) {
	n := len(dst)
	sk := sink{ids: dst}
	st := t.getState()
	st.start(ctx, bounded)
	t.encodeInto(st, &sk, text, ordinary)
	err := st.stop()
	t.putState(st)
	if err != nil {
		return dst[:n], err
	}
	return sk.ids, nil
}

// sink collects tokens; with offsets it also keeps their byte spans and,
// for trim_offsets, their token strings.
type sink struct {
	ids     []int
	offsets bool
	texted  bool // keep texts: a post-processor trims offsets
	spans   [][2]int
	texts   []string
}

func (t *Tokenizer) encodeOffsets(ctx context.Context, bounded bool, text string, ordinary bool) (*Encoding, error) {
	// Room for a token per three bytes: one allocation for most texts
	// (appends grow it past a million tokens).
	n := min(len(text)/3+16, 1<<20)
	sk := sink{offsets: true, texted: len(t.trims) > 0, ids: make([]int, 0, n), spans: make([][2]int, 0, n)}
	st := t.getState()
	st.start(ctx, bounded)
	t.encodeInto(st, &sk, text, ordinary)
	err := st.stop()
	t.putState(st)
	if err != nil {
		return nil, err
	}
	e := &Encoding{IDs: sk.ids, ByteOffsets: sk.spans}
	if len(e.IDs) == 0 {
		e.IDs, e.ByteOffsets = []int{}, [][2]int{}
	}
	e.Offsets = make([][2]int, len(e.IDs))
	var cc charCounter
	cc.s = text
	for i, o := range e.ByteOffsets {
		e.Offsets[i] = [2]int{cc.char(o[0]), cc.char(o[1])}
	}
	if len(t.trims) > 0 {
		for _, prefix := range t.trims {
			trimOffsets(e.Offsets, sk.texts, prefix)
		}
		var bc byteCounter
		bc.s = text
		for i, o := range e.Offsets {
			e.ByteOffsets[i] = [2]int{bc.byteAt(o[0]), bc.byteAt(o[1])}
		}
	}
	return e, nil
}

// encodeInto runs the pipeline: added tokens on the raw text, then the
// model on the text between them.
func (t *Tokenizer) encodeInto(st *state, sk *sink, text string, ordinary bool) {
	if ordinary || t.rawTrie.empty() {
		t.encodeText(st, sk, text, 0, ordinary)
		return
	}
	segs := t.splitAdded(st.segs[:0], &t.rawTrie, text)
	st.segs = segs[:0]
	for _, sg := range segs {
		if st.err != nil {
			break
		}
		if sg.tok >= 0 {
			sk.add(t.added[sg.tok].id, sg.start, sg.end, text[sg.start:sg.end])
			continue
		}
		t.encodeText(st, sk, text[sg.start:sg.end], sg.start, ordinary)
	}
	// Give the (possibly grown) buffer back for the next encoding.
	st.segs = segs[:0]
}

func (sk *sink) add(id, start, end int, text string) {
	sk.ids = append(sk.ids, id)
	if sk.offsets {
		sk.spans = append(sk.spans, [2]int{start, end})
		if sk.texted {
			sk.texts = append(sk.texts, text)
		}
	}
}

// encodeText normalizes a span of text that holds no raw added token (its
// first byte is at base in the input), matches the normalized added tokens
// in it, and encodes the rest with the model.
func (t *Tokenizer) encodeText(st *state, sk *sink, s string, base int, ordinary bool) {
	if s == "" {
		return
	}
	normed, align := s, []span(nil)
	if len(t.norms) > 0 {
		normed, align = t.normalize(s, base)
	}
	al := aligner{s: normed, base: base, align: align}
	if ordinary || t.normTrie.empty() {
		t.encodeModel(st, sk, &al, 0, len(normed))
		return
	}
	segs := t.splitAdded(nil, &t.normTrie, normed)
	for _, sg := range segs {
		if st.err != nil {
			return
		}
		if sg.tok >= 0 {
			start, _ := al.span(sg.start)
			_, end := al.span(sg.end - 1)
			sk.add(t.added[sg.tok].id, start, end, normed[sg.start:sg.end])
			continue
		}
		t.encodeModel(st, sk, &al, sg.start, sg.end)
	}
}

// aligner maps bytes of normalized text back to spans of the input.
type aligner struct {
	s     string
	base  int
	align []span // nil: the text is the input's own
}

// span returns the input span of the character holding normalized byte i.
func (a *aligner) span(i int) (int, int) {
	if a.align != nil {
		return int(a.align[i].start), int(a.align[i].end)
	}
	j := i
	for k := 0; k < 3 && j > 0 && !utf8.RuneStart(a.s[j]); k++ {
		j--
	}
	_, n := utf8.DecodeRuneInString(a.s[j:])
	if j+n <= i {
		j, n = i, 1
	}
	return a.base + j, a.base + j + n
}

// encodeModel pre-tokenizes normalized bytes [from, to) and encodes each
// piece with the model.
func (t *Tokenizer) encodeModel(st *state, sk *sink, al *aligner, from, to int) {
	switch {
	case t.scan != nil:
		t.encodeScanned(st, sk, al, from, to)
		return
	case t.finds != nil:
		t.encodeFound(st, sk, al, al.s[from:to], from, 0)
		return
	}
	t.preTokenize(st, al.s[from:to])
	if st.err != nil {
		return
	}
	for i, p := range st.pieces {
		if i&1023 == 1023 && st.stopped() {
			return
		}
		toks := t.bpe(st, p.s)
		for _, tk := range toks {
			if !sk.offsets {
				sk.ids = append(sk.ids, int(tk.id))
				continue
			}
			a := from + int(p.off)
			if int(tk.start) >= int(p.pre) {
				a += int(tk.start) - int(p.pre)
			}
			b := from + int(p.off)
			if int(tk.end)-1 >= int(p.pre) {
				b += int(tk.end) - 1 - int(p.pre)
			}
			start, _ := al.span(a)
			_, end := al.span(b)
			sk.add(int(tk.id), start, end, t.model.vocabR[tk.id])
		}
	}
}

// encodeScanned is encodeModel for a pre-tokenizer that is one
// hand-written scanner (t.scan): each match is a piece, encoded as soon as
// it is found.
func (t *Tokenizer) encodeScanned(st *state, sk *sink, al *aligner, from, to int) {
	scan, s := t.scan, al.s[from:to]
	for i, k := 0, 0; i < len(s); k++ {
		if k&1023 == 1023 && st.stopped() {
			break
		}
		e := scan(s, i)
		t.encodePieceAt(st, sk, al, from+i, s[i:e])
		i = e
	}
}

// encodeFound is encodeModel for a pre-tokenizer that is a sequence of
// Isolated Splits on hand-written matchers (t.finds): step k splits s
// (at byte at of al.s) into its matches and the gaps between them, each
// passed on to step k+1 as found; what the last step gives is a piece,
// encoded at once. It is preTokenize's result without its lists of
// matches and pieces.
func (t *Tokenizer) encodeFound(st *state, sk *sink, al *aligner, s string, at, k int) {
	if k == len(t.finds) {
		if st.found++; st.found&1023 == 1023 && st.stopped() {
			return
		}
		t.encodePieceAt(st, sk, al, at, s)
		return
	}
	find := t.finds[k]
	last := 0
	for last < len(s) && st.err == nil {
		start, end := find(s, last)
		if start < 0 {
			break
		}
		if start > last {
			t.encodeFound(st, sk, al, s[last:start], at+last, k+1)
		}
		t.encodeFound(st, sk, al, s[start:end], at+start, k+1)
		last = end
	}
	if last < len(s) && st.err == nil {
		t.encodeFound(st, sk, al, s[last:], at+last, k+1)
	}
}

// encodePieceAt encodes one non-empty piece that starts at byte at of
// al.s: its ids, and with offsets the input spans of its tokens.
func (t *Tokenizer) encodePieceAt(st *state, sk *sink, al *aligner, at int, w string) {
	if !sk.offsets {
		t.encodePiece(st, sk, w)
		return
	}
	for _, tk := range t.bpe(st, w) {
		start, _ := al.span(at + int(tk.start))
		_, end := al.span(at + int(tk.end) - 1)
		sk.add(int(tk.id), start, end, t.model.vocabR[tk.id])
	}
}

// encodePiece appends the ids of one non-empty piece.
func (t *Tokenizer) encodePiece(st *state, sk *sink, w string) {
	id, h, ok := t.model.whole(w)
	if ok {
		sk.ids = append(sk.ids, int(id))
		return
	}
	for _, tk := range t.merged(st, w, h) {
		sk.ids = append(sk.ids, int(tk.id))
	}
}

// whole returns the id of a piece that is one token without merging: a
// single byte of a byte-level model, or, with ignore_merges, any piece
// that is in the vocabulary. It also returns the piece's hash (keyHash),
// for the cache of merged pieces.
func (m *bpeModel) whole(w string) (int32, uint64, bool) {
	if len(w) == 1 && m.fast {
		return m.byteID[w[0]], 0, true
	}
	head, h := keyHash(w)
	if !m.ignoreMerges {
		return -1, h, false
	}
	// The vocabulary is keyed by raw bytes for a byte-level model, by the
	// token otherwise: either way, by the piece.
	id, ok := find(&m.vocab.keys, w, head, h)
	return id, h, ok
}

// bpe returns the model tokens of one piece.
func (t *Tokenizer) bpe(st *state, w string) []tok {
	if w == "" {
		return nil
	}
	id, h, ok := t.model.whole(w)
	if ok {
		st.one[0] = tok{id, 0, int32(len(w))}
		return st.one[:]
	}
	return t.merged(st, w, h)
}

// merged returns the model tokens of a piece (of hash h) that needs
// merging, from the state's cache when it holds the piece.
func (t *Tokenizer) merged(st *state, w string, h uint64) []tok {
	m := &t.model
	cacheable := len(w) < cacheWordLen
	if cacheable {
		if c, ok := st.cache.get(w, h); ok {
			return c
		}
	}
	st.sym.reset()
	m.initial(&st.sym, w)
	m.merge(&st.sym)
	n := len(st.sym.id)
	out := st.toks[:0]
	for i := range n {
		out = append(out, tok{st.sym.id[i], st.sym.start[i], st.sym.end[i]})
	}
	st.toks = out
	if cacheable {
		return st.cache.put(w, h, out)
	}
	return out
}

// charCounter converts byte positions to character indexes, moving a
// cursor through the text.
type charCounter struct {
	s    string
	b, c int
}

func (cc *charCounter) char(pos int) int {
	if pos >= cc.b {
		cc.c += utf8.RuneCountInString(cc.s[cc.b:pos])
	} else {
		cc.c -= utf8.RuneCountInString(cc.s[pos:cc.b])
	}
	cc.b = pos
	return cc.c
}

// byteCounter converts character indexes to byte positions.
type byteCounter struct {
	s    string
	b, c int
}

func (bc *byteCounter) byteAt(char int) int {
	for bc.c < char && bc.b < len(bc.s) {
		_, n := utf8.DecodeRuneInString(bc.s[bc.b:])
		bc.b += n
		bc.c++
	}
	for bc.c > char && bc.b > 0 {
		_, n := utf8.DecodeLastRuneInString(bc.s[:bc.b])
		bc.b -= n
		bc.c--
	}
	return bc.b
}

// trimOffsets is the ByteLevel post-processor's trim_offsets
// (process_offsets in Hugging Face's byte_level.rs), on character offsets:
// a token's leading and trailing characters that are 'Ġ' or white space
// are cut from its span, except a single leading one of the first token
// (or of a token at offset 0) when add_prefix_space is set.
func trimOffsets(offsets [][2]int, texts []string, addPrefixSpace bool) {
	for i, text := range texts {
		lead, trail := 0, 0
		for _, r := range text {
			if r != byteSpace && !unicode.IsSpace(r) {
				break
			}
			lead++
		}
		for j := len(text); j > 0; {
			r, n := utf8.DecodeLastRuneInString(text[:j])
			if r != byteSpace && !unicode.IsSpace(r) {
				break
			}
			trail++
			j -= n
		}
		o := &offsets[i]
		if lead > 0 {
			if (i == 0 || o[0] == 0) && addPrefixSpace && lead == 1 {
				lead = 0
			}
			o[0] = min(o[0]+lead, o[1])
		}
		if trail > 0 && o[1] >= trail {
			o[1] = max(o[1]-trail, o[0])
		}
	}
}
