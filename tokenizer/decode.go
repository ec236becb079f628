package tokenizer

import (
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/split"
)

// decoderKind is the kind of one decoder of the chain.
type decoderKind uint8

const (
	decByteLevel decoderKind = iota
	decByteFallback
	decFuse
	decStrip
	decReplace
)

// decoderStep is one decoder: Hugging Face's decoders each turn the list of
// token strings into a new list (decode_chain); the results are joined.
type decoderStep struct {
	kind        decoderKind
	content     rune // Strip
	start, stop int  // Strip
	matcher     split.Matcher
	replacement string // Replace
}

// Decode turns ids back into text as Transformers' decode(ids,
// skip_special_tokens=skipSpecial) does: each id becomes its token (ids
// outside the vocabulary are skipped), special added tokens are dropped when
// skipSpecial is set, the decoder chain joins the rest (a ByteLevel decoder
// maps the byte-level alphabet back to bytes; invalid UTF-8 becomes U+FFFD),
// and when tokenizer_config.json sets clean_up_tokenization_spaces, the
// spaces before punctuation and English contractions are removed.
func (t *Tokenizer) Decode(ids []int, skipSpecial bool) string {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		if i, ok := t.addedByID[id]; ok {
			if skipSpecial && t.added[i].special {
				continue
			}
			toks = append(toks, t.added[i].content)
			continue
		}
		if id >= 0 && id < len(t.model.vocabR) && t.model.vocabR[id] != "" {
			toks = append(toks, t.model.vocabR[id])
		}
	}
	var s string
	if !t.hasDecoder {
		s = strings.Join(toks, " ")
	} else {
		for _, d := range t.decoders {
			toks = d.decode(toks)
		}
		s = strings.Join(toks, "")
	}
	if t.cleanUp {
		s = cleanUpTokenization(s)
	}
	return s
}

func (d *decoderStep) decode(toks []string) []string {
	switch d.kind {
	case decByteLevel:
		var b []byte
		for _, tk := range toks {
			n := len(b)
			var ok bool
			if b, ok = byteLevelDecode(b, tk); !ok {
				b = append(b[:n], tk...)
			}
		}
		return []string{lossyUTF8(b)}
	case decByteFallback:
		out := toks[:0:0]
		var pending []byte
		flush := func() {
			if len(pending) == 0 {
				return
			}
			if utf8.Valid(pending) {
				out = append(out, string(pending))
			} else {
				for range pending {
					out = append(out, "\uFFFD")
				}
			}
			pending = pending[:0]
		}
		for _, tk := range toks {
			if b, ok := byteToken(tk); ok {
				pending = append(pending, b)
				continue
			}
			flush()
			out = append(out, tk)
		}
		flush()
		return out
	case decFuse:
		return []string{strings.Join(toks, "")}
	case decStrip:
		out := make([]string, len(toks))
		for i, tk := range toks {
			rs := []rune(tk)
			start := 0
			for j := 0; j < d.start && j < len(rs) && rs[j] == d.content; j++ {
				start = j + 1
			}
			stop := len(rs)
			for j := 0; j < d.stop && len(rs)-j-1 >= 0 && rs[len(rs)-j-1] == d.content; j++ {
				stop = len(rs) - j - 1
			}
			if stop < start {
				stop = start
			}
			out[i] = string(rs[start:stop])
		}
		return out
	case decReplace:
		out := make([]string, len(toks))
		var ms []match
		for i, tk := range toks {
			ms = findMatches(ms[:0], d.matcher, tk)
			var b strings.Builder
			for _, m := range ms {
				if m.hit {
					b.WriteString(d.replacement)
				} else {
					b.WriteString(tk[m.start:m.end])
				}
			}
			out[i] = b.String()
		}
		return out
	}
	return toks
}

// byteToken parses a byte-fallback token "<0xHH>".
func byteToken(tk string) (byte, bool) {
	if len(tk) != 6 || tk[:3] != "<0x" || tk[5] != '>' {
		return 0, false
	}
	var v byte
	for _, c := range []byte(tk[3:5]) {
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | (c - '0')
		case 'A' <= c && c <= 'F':
			v = v<<4 | (c - 'A' + 10)
		case 'a' <= c && c <= 'f':
			v = v<<4 | (c - 'a' + 10)
		default:
			return 0, false
		}
	}
	return v, true
}

// lossyUTF8 is Rust's String::from_utf8_lossy (and the WHATWG decoder): each
// maximal invalid subsequence becomes one U+FFFD.
func lossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || n > 1 {
			sb.Write(b[i : i+n])
			i += n
			continue
		}
		// Invalid: skip the lead byte and the continuation bytes that could
		// still have completed it.
		c := b[i]
		need, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case 0xC2 <= c && c <= 0xDF:
			need = 1
		case c == 0xE0:
			need, lo = 2, 0xA0
		case 0xE1 <= c && c <= 0xEC, c == 0xEE, c == 0xEF:
			need = 2
		case c == 0xED:
			need, hi = 2, 0x9F
		case c == 0xF0:
			need, lo = 3, 0x90
		case 0xF1 <= c && c <= 0xF3:
			need = 3
		case c == 0xF4:
			need, hi = 3, 0x8F
		}
		i++
		for k := 0; k < need && i < len(b); k++ {
			if b[i] < lo || b[i] > hi {
				break
			}
			lo, hi = 0x80, 0xBF
			i++
		}
		sb.WriteRune(utf8.RuneError)
	}
	return sb.String()
}

// cleanUpTokenization is Transformers' clean_up_tokenization.
func cleanUpTokenization(s string) string {
	for _, r := range [][2]string{
		{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
		{" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
	} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}
