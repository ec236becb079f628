package tokenizer

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/beamharmony/harmony/internal/split"
)

var normForms = map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}

// span is a byte range of the original text.
type span struct{ start, end int32 }

// normalizeString applies the normalizers to s (for added tokens' content).
func (t *Tokenizer) normalizeString(s string) string {
	for _, f := range t.norms {
		if f.IsNormalString(s) {
			continue
		}
		var b []byte
		for _, e := range normStream(f, s) {
			b = utf8.AppendRune(b, e.c)
		}
		s = string(b)
	}
	return s
}

// unknownToHF reports a character that Go's normalization tables know and
// Hugging Face's (the unicode-normalization-alignments crate, Unicode 9.0,
// split.NormVersion) do not: there it has no decomposition, combining class
// 0 and no composition, so it is left as it is and stops reordering and
// composition across it (gap decision 51). What Go's tables leave unchanged,
// Hugging Face's do too (theirs are a subset), so a text Go finds normal
// needs no second look.
func unknownToHF(r rune) bool {
	// Unicode 9.0 assigned every code point below U+0378.
	return r >= 0x0378 && unicode.Is(split.NormUnknown, r)
}

// normalize applies the normalizers to text, whose first byte is at base in
// the original input. When nothing changes it returns text and a nil
// alignment (each byte belongs to its own character's span). Otherwise it
// returns the normalized text and, for each of its bytes, the span of the
// original input it came from, following Hugging Face's transform rule: a
// character that replaces several (a composition) takes the span of the
// first of them, a character added by a decomposition takes the span of the
// one before it, and the rest keep their own.
func (t *Tokenizer) normalize(text string, base int) (string, []span) {
	var align []span
	for _, f := range t.norms {
		if f.IsNormalString(text) {
			continue
		}
		if align == nil {
			align = identityAlign(text, base)
		}
		text, align = normalizeAligned(f, text, align)
	}
	return text, align
}

// identityAlign gives each byte of text its character's span.
func identityAlign(text string, base int) []span {
	align := make([]span, len(text))
	for i := 0; i < len(text); {
		_, n := utf8.DecodeRuneInString(text[i:])
		for j := i; j < i+n; j++ {
			align[j] = span{int32(base + i), int32(base + i + n)}
		}
		i += n
	}
	return align
}

// normalizeAligned normalizes text and aligns each output byte with the
// input, as Hugging Face's NormalizedString does (gap decision 57): the
// normalizer yields each output character with a change (0: it takes the
// place of the next input character; +1: it is new; -N: it takes the next
// input character's place and N more input characters go), and the
// alignment follows the changes by position. The change stream is the one
// of the unicode-normalization-alignments crate Hugging Face uses: a
// character's decomposition yields 0 then +1 for each further character,
// canonical reordering carries the changes along, and a composition adds
// the absorbed character's change less one to the starter's.
func normalizeAligned(f norm.Form, text string, align []span) (string, []span) {
	stream := normStream(f, text)
	out := make([]byte, 0, len(text)+8)
	outAlign := make([]span, 0, len(text)+8)
	off := 0 // input bytes consumed
	consume := func() {
		if off < len(text) {
			_, n := utf8.DecodeRuneInString(text[off:])
			off += n
		}
	}
	for _, e := range stream {
		var a span
		switch {
		case e.change > 0 && off > 0:
			a = align[off-1]
		case e.change > 0:
			a = span{align[0].start, align[0].start}
		case off < len(align):
			a = align[off]
		default:
			a = align[len(align)-1]
		}
		if e.change <= 0 {
			consume()
			for range -e.change {
				consume()
			}
		}
		n := len(out)
		out = utf8.AppendRune(out, e.c)
		for range len(out) - n {
			outAlign = append(outAlign, a)
		}
	}
	return string(out), outAlign
}

// changed is one output character of a normalizer and its change.
type changed struct {
	c      rune
	change int
}

// normStream returns f's output for text as a change stream.
func normStream(f norm.Form, text string) []changed {
	compat := f == norm.NFKC || f == norm.NFKD
	decomp := norm.NFD
	if compat {
		decomp = norm.NFKD
	}
	// Decomposition: each character's full decomposition, then canonical
	// ordering (a stable sort by combining class) of every run of
	// non-starters.
	var buf []changed
	var ccc []uint8
	pending := 0 // start of the unsorted run of non-starters
	sortPending := func() {
		run := buf[pending:]
		classes := ccc[pending:]
		// Insertion sort: stable, runs are short.
		for i := 1; i < len(run); i++ {
			for j := i; j > 0 && classes[j] < classes[j-1]; j-- {
				run[j], run[j-1] = run[j-1], run[j]
				classes[j], classes[j-1] = classes[j-1], classes[j]
			}
		}
		pending = len(buf)
	}
	for _, r := range text {
		if unknownToHF(r) {
			sortPending()
			buf = append(buf, changed{r, 0})
			ccc = append(ccc, 0)
			pending = len(buf)
			continue
		}
		first := true
		for _, d := range decomp.String(string(r)) {
			class := decomp.PropertiesString(string(d)).CCC()
			if class == 0 {
				sortPending()
			}
			change := 1
			if first {
				change = 0
			}
			first = false
			buf = append(buf, changed{d, change})
			ccc = append(ccc, class)
		}
	}
	sortPending()
	if f == norm.NFD || f == norm.NFKD {
		return buf
	}
	return recompose(buf, ccc)
}

// recompose composes a decomposed change stream as the crate's
// Recompositions does: a starter absorbs each following character that is
// not blocked from it and composes with it; blocked characters wait in a
// buffer and follow the starter.
func recompose(in []changed, ccc []uint8) []changed {
	out := make([]changed, 0, len(in))
	var composee *changed
	var held changed
	var waiting []changed
	lastCCC := -1 // -1: none since the composee
	flush := func() {
		if composee != nil {
			out = append(out, *composee)
		}
		out = append(out, waiting...)
		waiting = waiting[:0]
	}
	for i, e := range in {
		class := int(ccc[i])
		if composee == nil {
			if class != 0 {
				out = append(out, e)
				continue
			}
			held = e
			composee = &held
			continue
		}
		if lastCCC < 0 {
			if r, ok := compose(composee.c, e.c); ok {
				held = changed{r, composee.change + e.change - 1}
				continue
			}
			if class == 0 {
				out = append(out, *composee)
				held = e
				continue
			}
			waiting = append(waiting, e)
			lastCCC = class
			continue
		}
		if lastCCC >= class {
			if class == 0 {
				flush()
				held = e
				composee = &held
				lastCCC = -1
				continue
			}
			waiting = append(waiting, e)
			lastCCC = class
			continue
		}
		if r, ok := compose(composee.c, e.c); ok {
			held = changed{r, composee.change + e.change - 1}
			continue
		}
		waiting = append(waiting, e)
		lastCCC = class
	}
	flush()
	return out
}

// compose returns the primary composite of a and b, if there is one in
// Hugging Face's tables.
func compose(a, b rune) (rune, bool) {
	if unknownToHF(a) || unknownToHF(b) {
		return 0, false
	}
	var buf [8]byte
	n := utf8.EncodeRune(buf[:], a)
	n += utf8.EncodeRune(buf[n:], b)
	c := norm.NFC.Bytes(buf[:n])
	r, size := utf8.DecodeRune(c)
	if size != len(c) || r == a || unknownToHF(r) {
		return 0, false
	}
	return r, true
}
