package grammar

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The set operations agree with sets of characters counted one by one,
// around the edges that matter: the surrogates and the last character.
func TestCharSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	points := []rune{0, 1, 'a', 'z', 0xD7FE, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xE001, 0xFFFF, 0x10000, unicode.MaxRune - 1, unicode.MaxRune}
	randomSet := func() ([]runeRange, map[rune]bool) {
		var rs []runeRange
		in := map[rune]bool{}
		for range rng.IntN(4) {
			lo := points[rng.IntN(len(points))]
			hi := points[rng.IntN(len(points))]
			if lo > hi {
				lo, hi = hi, lo
			}
			rs = append(rs, runeRange{lo, hi})
		}
		for _, c := range points {
			for _, r := range rs {
				if c >= r.lo && c <= r.hi && (c < surrogateLo || c > surrogateHi) {
					in[c] = true
				}
			}
		}
		return rs, in
	}
	for range 2000 {
		ra, a := randomSet()
		rb, b := randomSet()
		sa, sb := setOf(ra...), setOf(rb...)
		for i, r := range sa {
			if r.lo > r.hi || i > 0 && r.lo <= sa[i-1].hi+1 || r.lo <= surrogateHi && r.hi >= surrogateLo {
				t.Fatalf("setOf(%v) = %v: not sorted, apart and without surrogates", ra, sa)
			}
		}
		valid := func(c rune) bool { return c < surrogateLo || c > surrogateHi }
		for _, c := range points {
			checks := map[string][2]bool{
				"set":        {sa.has(c), a[c]},
				"union":      {sa.union(sb).has(c), a[c] || b[c]},
				"intersect":  {sa.intersect(sb).has(c), a[c] && b[c]},
				"minus":      {sa.minus(sb).has(c), a[c] && !b[c]},
				"complement": {sa.complement().has(c), !a[c] && valid(c)},
			}
			for op, v := range checks {
				if v[0] != v[1] {
					t.Fatalf("%s of %v and %v at %U: %v", op, ra, rb, c, v[0])
				}
			}
			if e := sa.expr(); valid(c) {
				if got := e != nil && (e.kind == kLit && e.text == string(c) || e.kind == kClass && e.has(c)); got != a[c] {
					t.Fatalf("expr of %v at %U: %v", ra, c, got)
				}
			}
		}
	}
	if e := setAll().expr(); e.kind != kClass || len(e.rs) == 0 || !e.neg {
		t.Error("every character is not a negated class of the surrogates")
	}
	if setOf().expr() != nil || setOf(runeRange{surrogateLo, surrogateHi}).expr() != nil {
		t.Error("an empty set has an expression")
	}
	if s, ok := propertySet("Script=Greek"); !ok || !s.has('α') || s.has('a') {
		t.Error("Script=Greek")
	}
	if _, ok := propertySet("Greek"); ok {
		t.Error("a bare script name is a property (ECMA-262 wants Script=)")
	}
	if s, ok := propertySet("Cn"); !ok || s.has('a') || !s.has(0x0378) {
		t.Error("Cn")
	}
	if s, ok := propertySet("C"); !ok || !s.has(0) || !s.has(0x0378) || s.has('a') {
		t.Error("C")
	}
	if s, ok := propertySet("LC"); !ok || !s.has('a') || !s.has('A') || s.has('1') {
		t.Error("LC")
	}
}

// The emoji properties of \p{...} (gap decision 287) are Unicode 15.0's
// (Go's tables' version): each property's count of characters is the
// "Total elements" emoji-data.txt gives, and characters of each kind fall
// where UTS #51 puts them; ECMA-262's short names name the same sets.
func TestEmojiProperties(t *testing.T) {
	for name, total := range map[string]int{
		"Emoji": 1424, "Emoji_Presentation": 1205, "Emoji_Modifier": 5, "Emoji_Modifier_Base": 134,
		"Emoji_Component": 146, "Extended_Pictographic": 3537,
	} {
		s, ok := propertySet(name)
		if !ok {
			t.Fatalf("\\p{%s}: unknown", name)
		}
		n := 0
		for _, r := range s {
			n += int(r.hi-r.lo) + 1
		}
		if n != total {
			t.Errorf("\\p{%s}: %d characters, want %d", name, n, total)
		}
	}
	for alias, long := range emojiAliases {
		a, _ := propertySet(alias)
		l, _ := propertySet(long)
		if !slices.Equal(a, l) {
			t.Errorf("\\p{%s} is not \\p{%s}", alias, long)
		}
	}
	for _, c := range []struct {
		r  rune
		in string // the properties that hold it, of Emoji, EPres, EMod, EBase, EComp, ExtPict
	}{
		{'😀', "Emoji EPres ExtPict"}, {'#', "Emoji EComp"}, {0x1F3FB, "Emoji EPres EMod EComp"},
		{'☝', "Emoji EBase ExtPict"}, {'©', "Emoji ExtPict"}, {0x1F1E6, "Emoji EPres EComp"},
		{0x200D, "EComp"}, {'a', ""}, {0x1FFFD, "ExtPict"},
	} {
		var in []string
		for _, name := range []string{"Emoji", "EPres", "EMod", "EBase", "EComp", "ExtPict"} {
			if s, _ := propertySet(name); s.has(c.r) {
				in = append(in, name)
			}
		}
		if got := strings.Join(in, " "); got != c.in {
			t.Errorf("U+%04X: in %q, want %q", c.r, got, c.in)
		}
	}
}
