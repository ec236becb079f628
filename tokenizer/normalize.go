package tokenizer

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

var normForms = map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}

// span is a byte range of the original text.
type span struct{ start, end int32 }

// normalizeString applies the normalizers to s (for added tokens' content).
func (t *Tokenizer) normalizeString(s string) string {
	for _, f := range t.norms {
		s = f.String(s)
	}
	return s
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

// normalizeAligned normalizes text segment by segment (norm.Iter stops at
// boundaries where normalization can restart), aligning each output
// character with the input characters of its segment.
func normalizeAligned(f norm.Form, text string, align []span) (string, []span) {
	var it norm.Iter
	it.InitString(f, text)
	out := make([]byte, 0, len(text))
	outAlign := make([]span, 0, len(text))
	var inChars, outChars []int // byte starts of the segment's characters
	for !it.Done() {
		start := it.Pos()
		seg := it.Next()
		end := it.Pos()
		inChars = inChars[:0]
		for i := start; i < end; {
			inChars = append(inChars, i)
			_, n := utf8.DecodeRuneInString(text[i:])
			i += n
		}
		outChars = outChars[:0]
		for i := 0; i < len(seg); {
			outChars = append(outChars, i)
			_, n := utf8.DecodeRune(seg[i:])
			i += n
		}
		// The first output characters replace the input characters, the
		// first of them absorbing any surplus; extra output characters copy
		// the alignment before them.
		surplus := len(inChars) - len(outChars)
		for k, os := range outChars {
			oe := len(seg)
			if k+1 < len(outChars) {
				oe = outChars[k+1]
			}
			var a span
			switch {
			case k < len(inChars) && surplus > 0:
				if k == 0 {
					a = align[inChars[0]]
				} else {
					a = align[inChars[k+surplus]]
				}
			case k < len(inChars):
				a = align[inChars[k]]
			default:
				a = outAlign[len(outAlign)-1]
			}
			for j := os; j < oe; j++ {
				outAlign = append(outAlign, a)
			}
		}
		out = append(out, seg...)
	}
	return string(out), outAlign
}
