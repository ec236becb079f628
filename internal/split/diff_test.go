package split

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// known lists the patterns with hand-written scanners.
var known = []struct{ name, pattern string }{
	{"gpt2", PatternGPT2},
	{"cl100k", PatternCL100K},
	{"qwen2", PatternQwen2},
	{"o200k", PatternO200K},
	{"tekken", PatternTekken},
	{"qwen35", PatternQwen35},
	{"deepseek-digits", PatternDeepSeekDigits},
	{"deepseek-cjk", PatternDeepSeekCJK},
	{"deepseek-words", PatternDeepSeekWords},
}

// reference returns regexp2's matcher for pattern, built once per test
// binary.
var refs = map[string]*BacktrackMatcher{}

func reference(t testing.TB, pattern string) *BacktrackMatcher {
	t.Helper()
	if b := refs[pattern]; b != nil {
		return b
	}
	b, err := Backtrack(pattern)
	if err != nil {
		t.Fatal(err)
	}
	refs[pattern] = b
	return b
}

func scannerFor(t testing.TB, pattern string) Matcher {
	t.Helper()
	m := scanners[pattern]
	if m == nil {
		t.Fatalf("no scanner for %q", pattern)
	}
	return m
}

// diff returns "" when the scanner and regexp2 give the same matches on s,
// else a description of the first difference.
func diff(scan, ref Matcher, s string) string {
	got, want := spans(scan, s), spans(ref, s)
	for k := 0; k < len(got) || k < len(want); k++ {
		if k < len(got) && k < len(want) && got[k] == want[k] {
			continue
		}
		at := 0
		if k > 0 {
			at = want[k-1][1]
		}
		from, to := max(0, at-12), min(len(s), at+24)
		g, w := "(none)", "(none)"
		if k < len(got) {
			g = fmt.Sprintf("%q", s[got[k][0]:got[k][1]])
		}
		if k < len(want) {
			w = fmt.Sprintf("%q", s[want[k][0]:want[k][1]])
		}
		return fmt.Sprintf("match %d at byte %d (text %q): scanner %s, regexp2 %s", k, at, s[from:to], g, w)
	}
	return ""
}

// trickyCorpus holds texts that exercise every alternative and class edge.
var trickyCorpus = []string{
	"",
	"Hello, world! It's a test: 1234567 apples\n",
	"I'm, you're, he's, we've, they'll, I'd, don't, it's",
	"I'M, YOU'RE, HE'S, WE'VE, THEY'LL, I'D, DON'T, IT'S, mIxEd'Ll 'Re",
	"'s 't 're 've 'm 'll 'd '' ''s 'x 'S 'ſ 'ſt 'Ll 'lL ''re",
	"\r\n\r\n  \r\n\t\t\n   x\n\n\n/ \n/\n",
	"a\u00a0b\u00a0\u00a0c \u00a0 d\u2028e\u2029f\u0085g\ufeffh\u200bi\u3000j\u1680k\u202f",
	"tabs\t\tand\t spaces  \t  mixed\t",
	"Ǆǅǆ ǈ ǋ ᾈ ᾼ Ǳǲǳ",                                         // Lt
	"ʰʲ ˆˇ ー 々 〱 ꜀ ᵃᵇ",                                        // Lm
	"ªº ƻ ǀǁ א ב ع ก ข 日本語 ㄅ",                                 // Lo
	"e\u0301 a\u0308\u0304 \u0301\u0302 x\u20dd \u0903\u093f", // M (Mn, Me, Mc)
	"\u0301start \u0301Upper \u0301ALL",
	"0123 ٠١٢٣ ০১২ ²³¹ ½¾ Ⅰ Ⅱ Ⅻ ⅰ 〇 𝟘𝟙 ①②",
	"12345678901 1,234.56 v1.2.3 x86_64 3.14e-10",
	"😀😃 👍🏽 👨‍👩‍👧 🇫🇷 ✨🎉 emoji😀word word😀",
	"中文文本，包含标点。日本語のテキスト、カタカナ。한국어 텍스트입니다.",
	"func main() {\n\tfmt.Println(\"hi\")\n\treturn x+y*2 // comment\n}\n",
	"if (a && b || !c) { x = y[i] >> 2; } /* c */ #include <stdio.h>",
	"path/to/file.go //comment ///triple /// \n// \n/\n/x /X",
	"CamelCaseWord HTTPServer XMLHttpRequest iPhone eBay McDonald's ÉCOLE École",
	"ΑΒΓ αβγ ΣΊΣΥΦΟΣ σίσυφος ΐ Привет мир ПРИВЕТ",
	"      long   run       of         spaces          ",
	strings.Repeat(" ", 300) + "x" + strings.Repeat("\t", 100) + "\n" + strings.Repeat(" ", 50),
	"bad \xff bytes \xc3 here \xe2\x82 \xf0\x9f\x98 end\x80",
	"\xff\xfe'S\xffword\xff 12\xff3 \xff\xff \xc3\xa9\xc3",
	"\u00a0word \u2003word \tword \u3000word \u00a0'word",
	"\x00\x01\x1f\x7f control \x0b\x0c vt ff",
	"a'b a's a'S a'z a'  a'\n 'tis rock'n'roll o'clock",
	"ÀÉÎõü Ñandú Ǆemal ǅemal ǆemal",
	"word\r\nword\rword\nword\r\n\r\nword",
	" !!!\n\n?? ... ---- === *** \n/ /// ",
	"\u0345\u0345 x\u0345 X\u0345Y \u1dc0",
	"𐐀𐐨 𝐀𝐚 𝑨𝒂 𞤀𞤢 𠀀𠀁", // astral letters
	"Ⓐⓐ ⒜ ㉑ 🄰",
	"ſtate ſ 'ſ 'ſ's K K ﬁ ﬀ ß ẞ",
}

func TestScannersMatchRegexp2OnCorpus(t *testing.T) {
	for _, k := range known {
		scan, ref := scannerFor(t, k.pattern), reference(t, k.pattern)
		t.Run(k.name, func(t *testing.T) {
			for _, s := range trickyCorpus {
				if d := diff(scan, ref, s); d != "" {
					t.Errorf("%q: %s", s, d)
				}
			}
			all := strings.Join(trickyCorpus, "")
			if d := diff(scan, ref, all); d != "" {
				t.Errorf("joined corpus: %s", d)
			}
		})
	}
}

// alphabet is the random generator's alphabet: every class edge of the
// patterns.
var alphabet = []string{
	"a", "z", "A", "Z", "s", "S", "t", "T", "r", "R", "e", "E", "v", "V", "m", "M", "l", "L", "d", "D",
	"'", "'", "'", " ", " ", " ", "  ", "\t", "\n", "\r", "\r\n", "/", ".", ",", "!", "-", "_", "(", "\"",
	"0", "1", "9", "٣", "²", "½", "Ⅻ", "〇",
	"é", "É", "ǅ", "ʰ", "ー", "日", "א", "ſ", "K", "ß", "ﬁ",
	"\u0301", "\u20dd", "\u0903", "\u0345",
	"\u00a0", "\u0085", "\u2028", "\u2029", "\u3000", "\u200b", "\ufeff", "\u000b", "\u000c",
	"😀", "👍🏽", "\u200d", "𝐀", "𝐚", "𞤀", "𠀀",
	"\xff", "\xc3", "\xe2\x82", "\x80",
	// DeepSeek's classes: punctuation and symbols, the edges of its CJK
	// ranges (U+3040 to U+30FF, U+4E00 to U+9FA5), controls and format
	// characters that no alternative of its word pattern starts with.
	"$", "+", "^", "`", "~", "@", "[", "€", "©", "°", "¿", "«", "…", "‰", "\ufffd", "\u00ad",
	"\u303f", "\u3040", "ひ", "\u309f", "\u30a0", "カ", "\u30ff", "\u3100", "\u4dff", "一", "\u9fa5", "\u9fa6",
	"\x00", "\x1b", "\u200e", "\U000e0001", "\ue000",
}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// randomCount is the number of random texts per pattern in TestScanners
// MatchRegexp2Random (fewer under the race detector, which is slow).
func randomCount() int {
	if raceEnabled || testing.Short() {
		return 5000
	}
	return 50000
}

func TestScannersMatchRegexp2Random(t *testing.T) {
	for _, k := range known {
		scan, ref := scannerFor(t, k.pattern), reference(t, k.pattern)
		t.Run(k.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(k.pattern))))
			fails := 0
			n := randomCount()
			for range n {
				s := randomText(r, 1+r.IntN(24))
				if d := diff(scan, ref, s); d != "" {
					t.Errorf("%q: %s", s, d)
					if fails++; fails > 10 {
						t.Fatal("too many differences")
					}
				}
			}
			t.Logf("%d random texts, %d differences", n, fails)
		})
	}
}

// TestClassTable checks the scanners' class of every code point against
// regexp2's own classes: one regexp2 search per class over a text holding
// every code point once. Under the race detector (slow, and of no use here)
// or -short it skips the planes without assigned characters but private use
// (U+32400 to U+DFFFF and U+E1000 up).
func TestClassTable(t *testing.T) {
	quick := raceEnabled || testing.Short()
	var b strings.Builder
	var starts []int
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // not encodable in UTF-8
		}
		if quick && (r >= 0x32400 && r < 0xE0000 || r >= 0xE1000) {
			continue
		}
		starts = append(starts, b.Len())
		b.WriteRune(r)
	}
	all := b.String()
	for _, c := range []struct {
		name, pattern string
		has           func(f uint8) bool
	}{
		{"L", `\p{L}`, func(f uint8) bool { return f&cL != 0 }},
		{"N", `\p{N}`, func(f uint8) bool { return f&cN != 0 }},
		{"s", `\s`, func(f uint8) bool { return f&cS != 0 }},
		{"U", `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, func(f uint8) bool { return f&cU != 0 }},
		{"W", `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`, func(f uint8) bool { return f&cW != 0 }},
		{"NL", `[\r\n]`, func(f uint8) bool { return f&cNL != 0 }},
		{"other", `[^\s\p{L}\p{N}]`, other},
		{"prefix", `[^\r\n\p{L}\p{N}]`, prefix},
		{"PS", `[\p{P}\p{S}]`, func(f uint8) bool { return f&cPS != 0 }},
		{"M", `\p{M}`, mark},
		{"LM", `[\p{L}\p{M}]`, letterOrMark},
		{"deepseek prefix", `[^\r\n\p{L}\p{P}\p{S}]`, func(f uint8) bool { return f&(cNL|cL|cPS) == 0 }},
		{"other but marks", `[^\s\p{L}\p{M}\p{N}]`, otherMark},
	} {
		t.Run(c.name, func(t *testing.T) {
			ref, err := Backtrack(c.pattern)
			if err != nil {
				t.Fatal(err)
			}
			in := make([]bool, len(all)+1)
			for start := range All(ref, all) {
				in[start] = true
			}
			bad := 0
			for _, i := range starts {
				f, _ := class(all, i)
				if c.has(f) != in[i] {
					r, _ := utf8.DecodeRuneInString(all[i:])
					t.Errorf("U+%04X: scanner class %v, regexp2 %v", r, c.has(f), in[i])
					if bad++; bad > 10 {
						t.FailNow()
					}
				}
			}
		})
	}
}

// sweepContexts are the texts around each code point in the sweep: %c is
// the code point.
var sweepContexts = []string{
	"%c", "a%c", "%ca", "A%c", "%cA", " %c", "%c ", "'%c", "%c's", "%c'S", "1%c", "%c1",
	"\n%c", "%c\n", "  %c", "%c  ", "/%c", "%c/", "%c%c", ".%c.", "\u0301%c", "%c\u0301",
}

// sweepTexts builds, for one context, texts of at most 64 KiB holding the
// context around every code point of runes, joined. Both engines read the
// same text, so the joins are tested too.
func sweepTexts(ctx string, runes []rune) []string {
	var texts []string
	var b strings.Builder
	for _, r := range runes {
		b.WriteString(strings.ReplaceAll(ctx, "%c", string(r)))
		if b.Len() > 1<<16 {
			texts = append(texts, b.String())
			b.Reset()
		}
	}
	if b.Len() > 0 {
		texts = append(texts, b.String())
	}
	return texts
}

// sweepRunes returns every code point encodable in UTF-8 or, unless all,
// only the representatives: all of ASCII and Latin-1, the contraction folds,
// and the first code point of each run of code points with the same class
// and UTF-8 width (the scanners read nothing else of a character, and
// TestClassTable proves the class of every code point).
var sweepRunes = sync.OnceValues(func() (all, reps []rune) {
	prev := uint8(0xff)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		all = append(all, r)
		f := runeClass(r)
		if r < 0x100 || r == 'ſ' || r == 'K' || f != prev || r == 0x80 || r == 0x800 || r == 0xE000 || r == 0x10000 {
			reps = append(reps, r)
		}
		prev = f
	}
	return all, reps
})

func runeClass(r rune) uint8 {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	f, _ := class(string(buf[:n]), 0)
	return f
}

// TestScannersSweep runs a representative of every class run (with
// SPLIT_SWEEP=all: every code point, which takes minutes) through every
// scanner in every sweep context.
func TestScannersSweep(t *testing.T) {
	full := os.Getenv("SPLIT_SWEEP") == "all"
	for _, k := range known {
		scan, ref := scannerFor(t, k.pattern), reference(t, k.pattern)
		t.Run(k.name, func(t *testing.T) {
			if full {
				t.Parallel()
			}
			all, reps := sweepRunes()
			runes := reps
			if full {
				runes = all
			}
			texts := 0
			for _, ctx := range sweepContexts {
				for _, s := range sweepTexts(ctx, runes) {
					texts++
					if d := diff(scan, ref, s); d != "" {
						t.Fatalf("context %q: %s", ctx, d)
					}
				}
			}
			t.Logf("%d code points in %d contexts (%d texts): no difference", len(runes), len(sweepContexts), texts)
		})
	}
}

// TestScannersLongRuns compares the scanners with regexp2 on long runs of one
// class (a quadratic scanner would not finish).
func TestScannersLongRuns(t *testing.T) {
	n := 1 << 16
	if raceEnabled || testing.Short() {
		n = 1 << 12
	}
	var texts []string
	for _, unit := range []string{" ", "\t", "\n", "\r\n", " \n", "A", "a", "Aa", "1", "'", "'s", ".", "/", "\u0301", "ʰ", "日", "😀", "\xff", "\u00a0"} {
		texts = append(texts, strings.Repeat(unit, n/len(unit)), strings.Repeat(unit, n/len(unit))+"x", "x"+strings.Repeat(unit, n/len(unit))+" ")
	}
	for _, k := range known {
		scan, ref := scannerFor(t, k.pattern), reference(t, k.pattern)
		t.Run(k.name, func(t *testing.T) {
			for _, s := range texts {
				if d := diff(scan, ref, s); d != "" {
					t.Errorf("run of %q: %s", s[:4], d)
				}
			}
		})
	}
}

// TestScannersFindAtEveryOffset checks Find from every byte offset of the
// corpus, inside characters and invalid bytes included, against regexp2.
func TestScannersFindAtEveryOffset(t *testing.T) {
	for _, k := range known {
		scan, ref := scannerFor(t, k.pattern), reference(t, k.pattern)
		t.Run(k.name, func(t *testing.T) {
			for _, s := range trickyCorpus {
				if len(s) > 400 {
					continue
				}
				for pos := 0; pos <= len(s)+1; pos++ {
					gs, ge := scan.Find(s, pos)
					ws, we := ref.Find(s, pos)
					if gs != ws || (gs >= 0 && ge != we) {
						t.Errorf("Find(%q, %d) = %d, %d; regexp2 %d, %d", s, pos, gs, ge, ws, we)
					}
				}
			}
		})
	}
}
