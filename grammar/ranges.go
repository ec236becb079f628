package grammar

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
)

// Numbers in a range. Bounds are exact decimals (math/big), so any bound a
// schema writes is honoured exactly; the numbers written are plain
// decimals without an exponent.

var digit = class(false, runeRange{'0', '9'})

// bound is one side of a range: a value, and whether it is included.
type bound struct {
	v    *big.Rat
	incl bool
}

// maxRangeDigits caps the digits a numeric bound is enforced with, in its
// integer part and in its fraction alike. The grammar of a range is linear
// in the bounds' digits, and every engine expands its repetitions, so a
// bound such as 1e300 or 1e-300 is not spelled out: a bound with a longer
// integer part is left out (that side is unbounded), a longer fraction is
// rounded outward to this many digits (the range grows by less than
// 10^-24), and either is reported (an error under strict).
const maxRangeDigits = 24

// bounds reads minimum/exclusiveMinimum and maximum/exclusiveMaximum (the
// numeric form of draft 6 on; the boolean form of draft 4 is honoured too).
func (c *compiler) bounds(ks *schema.Keys, path string) (lo, hi *bound) {
	d := c.d
	num := func(n int, kw string, isLo bool) *bound {
		if n < 0 || d.Kind(n) != pyjson.Number {
			if n >= 0 && d.Kind(n) != pyjson.True && d.Kind(n) != pyjson.False {
				c.drop(path+"."+kw, kw)
			}
			return nil
		}
		v, rounded, huge := parseBound(string(d.Raw(n)), isLo)
		switch {
		case huge:
			c.loosen(path+"."+kw, kw, "its integer part has more than "+itoa(maxRangeDigits)+" digits")
			return nil
		case rounded:
			c.loosen(path+"."+kw, kw, "it has more than "+itoa(maxRangeDigits)+" digits after the point")
			return &bound{v, true}
		}
		return &bound{v, !strings.HasPrefix(kw, "exclusive")}
	}
	min, max := num(ks.Minimum, "minimum", true), num(ks.Maximum, "maximum", false)
	// Draft 4: exclusiveMinimum: true makes minimum exclusive.
	if min != nil && ks.ExclusiveMinimum >= 0 && d.Kind(ks.ExclusiveMinimum) == pyjson.True {
		min.incl = false
	}
	if max != nil && ks.ExclusiveMaximum >= 0 && d.Kind(ks.ExclusiveMaximum) == pyjson.True {
		max.incl = false
	}
	lo = tighter(min, num(ks.ExclusiveMinimum, "exclusiveMinimum", true), true)
	hi = tighter(max, num(ks.ExclusiveMaximum, "exclusiveMaximum", false), false)
	return lo, hi
}

// tighter is the tighter of two lower (isLo) or upper bounds; nil is none.
func tighter(cur, b *bound, isLo bool) *bound {
	if b == nil {
		return cur
	}
	if cur == nil {
		return b
	}
	cmp := b.v.Cmp(cur.v)
	if (isLo && cmp > 0) || (!isLo && cmp < 0) || (cmp == 0 && !b.incl) {
		return b
	}
	return cur
}

// parseBound reads a JSON number literal as an exact rational without ever
// computing a power of ten larger than maxRangeDigits digits: huge when its
// integer part is longer than that; a fraction longer than that is rounded
// outward (down for a lower bound, up for an upper one) and reported as
// rounded.
func parseBound(lit string, isLo bool) (v *big.Rat, rounded, huge bool) {
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimPrefix(lit, "-")
	mant, expText, _ := strings.Cut(strings.ToLower(lit), "e")
	intText, fracText, _ := strings.Cut(mant, ".")
	exp := 0
	if expText != "" {
		e, err := strconv.Atoi(strings.TrimPrefix(expText, "+"))
		if err != nil || e > 1<<20 || e < -(1<<20) {
			// Past any digit count: zero for a large negative
			// exponent, huge for a large positive one.
			if strings.HasPrefix(expText, "-") {
				e = -(1 << 20)
			} else {
				e = 1 << 20
			}
		}
		exp = e
	}
	// The value is digits x 10^exp, digits without leading or trailing
	// zeros.
	digits := strings.TrimLeft(intText+fracText, "0")
	exp -= len(fracText)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	digits = trimmed
	if digits == "" {
		return new(big.Rat), false, false
	}
	if len(digits)+exp > maxRangeDigits {
		return nil, false, true
	}
	// Upward rounding of a positive bound is downward of its negation.
	up := isLo == neg
	if -exp > maxRangeDigits {
		cut := -exp - maxRangeDigits // digits to cut from the end
		if cut >= len(digits) {
			digits = ""
		} else {
			digits = digits[:len(digits)-cut]
		}
		exp = -maxRangeDigits
		rounded = true
	}
	n := new(big.Int)
	if digits != "" {
		n.SetString(digits, 10)
	}
	if rounded && up {
		n.Add(n, big.NewInt(1))
	}
	v = new(big.Rat).SetInt(n)
	switch {
	case exp > 0:
		v.Mul(v, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp)), nil)))
	case exp < 0:
		v.Quo(v, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-exp)), nil)))
	}
	if neg {
		v.Neg(v)
	}
	return v, rounded, false
}

// integer is a JSON integer within lo and hi (nil: unbounded).
func (c *compiler) integer(lo, hi *bound, path string) *expr {
	if lo == nil && hi == nil {
		return c.integerExpr()
	}
	a, b, ok := intBounds(lo, hi)
	if !ok {
		c.impossible(path, "no integer lies within minimum and maximum")
		return nil
	}
	return intRange(a, b)
}

// intBounds returns the least and greatest integers within lo and hi (nil:
// unbounded); ok is false when there is none.
func intBounds(lo, hi *bound) (a, b *big.Int, ok bool) {
	if lo != nil {
		a = ceil(lo.v)
		if !lo.incl && new(big.Rat).SetInt(a).Cmp(lo.v) == 0 {
			a.Add(a, big.NewInt(1))
		}
	}
	if hi != nil {
		b = floor(hi.v)
		if !hi.incl && new(big.Rat).SetInt(b).Cmp(hi.v) == 0 {
			b.Sub(b, big.NewInt(1))
		}
	}
	return a, b, a == nil || b == nil || a.Cmp(b) <= 0
}

func floor(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	_ = m
	return q // DivMod rounds toward negative infinity for a positive divisor
}

func ceil(r *big.Rat) *big.Int {
	f := floor(r)
	if new(big.Rat).SetInt(f).Cmp(r) != 0 {
		f.Add(f, big.NewInt(1))
	}
	return f
}

// intRange is the integers from a to b (nil: unbounded), as JSON writes
// them.
func intRange(a, b *big.Int) *expr {
	zero := big.NewInt(0)
	var alts []*expr
	// Negative integers: "-" and a magnitude from max(1, -b) to -a.
	if a == nil || a.Sign() < 0 {
		var magLo, magHi *big.Int
		magLo = big.NewInt(1)
		if b != nil && b.Sign() < 0 {
			magLo = new(big.Int).Neg(b)
		}
		if a != nil {
			magHi = new(big.Int).Neg(a)
		}
		alts = append(alts, seq(lit("-"), natRange(magLo.String(), str(magHi))))
	}
	// Non-negative integers from max(0, a) to b.
	if b == nil || b.Sign() >= 0 {
		from := zero
		if a != nil && a.Sign() > 0 {
			from = a
		}
		alts = append(alts, natRange(from.String(), str(b)))
	}
	return alt(alts...)
}

func str(b *big.Int) string {
	if b == nil {
		return ""
	}
	return b.String()
}

// natRange is the natural numbers from a to b ("" for unbounded), decimal
// strings without leading zeros.
func natRange(a, b string) *expr {
	if a == "0" {
		if b == "0" {
			return lit("0")
		}
		return alt(lit("0"), natRange("1", b))
	}
	var alts []*expr
	top := b
	if b == "" || len(b) > len(a) {
		top = strings.Repeat("9", len(a))
	}
	alts = append(alts, sameLength(a, top))
	if b == "" {
		// Every longer number.
		alts = append(alts, seq(class(false, runeRange{'1', '9'}), rep(digit, len(a), -1)))
		return alt(alts...)
	}
	if len(a)+1 < len(b) {
		// Every number of a length strictly between theirs.
		alts = append(alts, seq(class(false, runeRange{'1', '9'}), rep(digit, len(a), len(b)-2)))
	}
	if len(b) > len(a) {
		alts = append(alts, sameLength("1"+strings.Repeat("0", len(b)-1), b))
	}
	return alt(alts...)
}

// sameLength is the digit strings of one length from a to b (a <= b),
// leading zeros allowed after the first position of a and b alike. Each
// call recurses into at most one side that is not all zeros or all nines,
// so the expression is linear in the length.
func sameLength(a, b string) *expr {
	if a == b {
		return lit(a)
	}
	if strings.Trim(a[1:], "0") == "" && strings.Trim(b[1:], "9") == "" {
		return seq(digitRange(a[0], b[0]), rep(digit, len(a)-1, len(a)-1))
	}
	if len(a) == 1 {
		return digitRange(a[0], b[0])
	}
	n := len(a) - 1
	if a[0] == b[0] {
		return seq(lit(a[:1]), sameLength(a[1:], b[1:]))
	}
	var alts []*expr
	alts = append(alts, seq(lit(a[:1]), sameLength(a[1:], strings.Repeat("9", n))))
	if a[0]+1 <= b[0]-1 {
		alts = append(alts, seq(digitRange(a[0]+1, b[0]-1), rep(digit, n, n)))
	}
	alts = append(alts, seq(lit(b[:1]), sameLength(strings.Repeat("0", n), b[1:])))
	return alt(alts...)
}

// number is a JSON number within lo and hi (nil: unbounded): without
// bounds any number; with bounds a plain decimal (no exponent) in the
// range.
func (c *compiler) number(lo, hi *bound, path string) *expr {
	if lo == nil && hi == nil {
		return c.numberRule()
	}
	if lo != nil && hi != nil {
		cmp := lo.v.Cmp(hi.v)
		if cmp > 0 || cmp == 0 && !(lo.incl && hi.incl) {
			c.impossible(path, "no number lies within minimum and maximum")
			return nil
		}
	}
	return signedMagnitudes(lo, hi, -1, &bound{new(big.Rat), false})
}

// signedMagnitudes is the numbers between lo and hi (nil: unbounded): the
// magnitudes (with room, as magnitudes) from max(lo, 0) to hi, and "-"
// before those from max(-hi, least) to -lo, least the smallest negative
// magnitude (0 excluded, so that no spelling of -0 is written; 10^-k for
// decimal multiples).
func signedMagnitudes(lo, hi *bound, room int, least *bound) *expr {
	var alts []*expr
	if hi == nil || hi.v.Sign() >= 0 {
		from := &bound{new(big.Rat), true}
		if lo != nil && lo.v.Sign() >= 0 {
			from = lo
		}
		alts = append(alts, magnitudes(from, hi, room))
	}
	if lo == nil || lo.v.Sign() < 0 {
		from := least
		if hi != nil && hi.v.Sign() < 0 {
			from = &bound{new(big.Rat).Neg(hi.v), hi.incl}
		}
		var to *bound
		if lo != nil {
			to = &bound{new(big.Rat).Neg(lo.v), lo.incl}
		}
		alts = append(alts, seq(lit("-"), magnitudes(from, to, room)))
	}
	return alt(alts...)
}

// magnitudes is the non-negative decimals I or I.F between lo and hi (nil:
// unbounded), written without leading zeros; with room >= 0, only those
// whose digits after the first room of F are zeros (multiples of
// 10^-room, decimalMultiples), the bounds then holding at most room
// fraction digits.
func magnitudes(lo, hi *bound, room int) *expr {
	li, lf := decimal(lo.v)
	var alts []*expr
	if hi == nil {
		// I = li with F past lf; I > li with any F.
		alts = append(alts, withFraction(lit(li), fracAbove(lf, lo.incl, room)))
		next := new(big.Int)
		next.SetString(li, 10)
		next.Add(next, big.NewInt(1))
		alts = append(alts, withFraction(natRange(next.String(), ""), anyFraction(room)))
		return alt(alts...)
	}
	hiInt, hf := decimal(hi.v)
	if li == hiInt {
		return withFraction(lit(li), fracBetween(lf, lo.incl, hf, hi.incl, room))
	}
	alts = append(alts, withFraction(lit(li), fracAbove(lf, lo.incl, room)))
	a, _ := new(big.Int).SetString(li, 10)
	b, _ := new(big.Int).SetString(hiInt, 10)
	a.Add(a, big.NewInt(1))
	b.Sub(b, big.NewInt(1))
	if a.Cmp(b) <= 0 {
		alts = append(alts, withFraction(natRange(a.String(), b.String()), anyFraction(room)))
	}
	alts = append(alts, withFraction(lit(hiInt), fracBelow(hf, hi.incl, room)))
	return alt(alts...)
}

// decimal splits a non-negative rational into its integer digits and its
// fraction digits; a fraction that does not end (1/3) is cut after 40
// digits, which rounds the bound toward its integer part by less than
// 10^-40.
func decimal(r *big.Rat) (intPart, frac string) {
	s := r.FloatString(40)
	intPart, frac, _ = strings.Cut(s, ".")
	return intPart, strings.TrimRight(frac, "0")
}

// A fraction is a set of digit strings F (the digits after the point; ""
// for none). frac says whether "" belongs and which non-empty strings do.
type frac struct {
	empty    bool
	nonEmpty *expr // nil: none
}

// anyFraction is every F (with room >= 0: whose digits past the first
// room are zeros).
func anyFraction(room int) frac {
	switch {
	case room < 0:
		return frac{true, plus(digit)}
	case room == 0:
		return frac{true, plus(lit("0"))}
	}
	return frac{true, seq(digit, digitsTail(room-1))}
}

// digitsTail is any digits (room < 0), or any digits whose digits past
// the first room are zeros: up to room digits, or room digits and zeros,
// an unambiguous choice by length.
func digitsTail(room int) *expr {
	switch {
	case room < 0:
		return star(digit)
	case room == 0:
		return star(lit("0"))
	}
	return alt(rep(digit, 0, room), seq(rep(digit, room, room), plus(lit("0"))))
}

// positiveTail is the F with a digit other than 0 (with room >= 0: among
// the first room, zeros after them).
func positiveTail(room int) *expr {
	if room < 0 {
		return seq(star(digit), class(false, runeRange{'1', '9'}), star(digit))
	}
	var alts []*expr
	for p := range room {
		alts = append(alts, seq(rep(lit("0"), p, p), class(false, runeRange{'1', '9'}), digitsTail(room-p-1)))
	}
	return alt(alts...) // nil (none) for room 0
}

// less is room after one more digit (unlimited stays so).
func less(room int) int {
	if room < 0 {
		return room
	}
	return room - 1
}

// withFraction is the integer part followed by the fraction: ".F" for each
// non-empty F, nothing for "".
func withFraction(i *expr, f frac) *expr {
	var alts []*expr
	if f.empty {
		alts = append(alts, i)
	}
	if f.nonEmpty != nil {
		alts = append(alts, seq(i, lit("."), f.nonEmpty))
	}
	return alt(alts...)
}

// zeros reports whether f holds only zeros (or nothing).
func zeros(f string) bool { return strings.Trim(f, "0") == "" }

// fracAbove is the fractions 0.F >= 0.f (incl) or > 0.f (room: as
// magnitudes).
func fracAbove(f string, incl bool, room int) frac {
	if zeros(f) {
		if incl {
			return anyFraction(room)
		}
		// 0.F > 0: some digit is not zero.
		return frac{false, positiveTail(room)}
	}
	d := f[0]
	rest := fracAbove(f[1:], incl, less(room))
	var alts []*expr
	if d < '9' {
		alts = append(alts, seq(digitRange(d+1, '9'), digitsTail(less(room))))
	}
	// F starts with d: F' = the rest compared with f[1:]; an F' of ""
	// means F is exactly "d".
	if rest.empty {
		alts = append(alts, lit(string(d)))
	}
	if rest.nonEmpty != nil {
		alts = append(alts, seq(lit(string(d)), rest.nonEmpty))
	}
	return frac{false, alt(alts...)}
}

// fracBelow is the fractions 0.F <= 0.f (incl) or < 0.f (room: as
// magnitudes).
func fracBelow(f string, incl bool, room int) frac {
	if zeros(f) {
		if incl {
			return frac{true, plus(lit("0"))}
		}
		return frac{false, nil}
	}
	d := f[0]
	rest := fracBelow(f[1:], incl, less(room))
	var alts []*expr
	if d > '0' {
		alts = append(alts, seq(digitRange('0', d-1), digitsTail(less(room))))
	}
	if rest.empty {
		alts = append(alts, lit(string(d)))
	}
	if rest.nonEmpty != nil {
		alts = append(alts, seq(lit(string(d)), rest.nonEmpty))
	}
	return frac{true, alt(alts...)}
}

// fracBetween is the fractions between 0.lo and 0.hi (lo <= hi), each
// bound included or not (room: as magnitudes).
func fracBetween(lo string, loIncl bool, hi string, hiIncl bool, room int) frac {
	if zeros(lo) {
		if loIncl {
			return fracBelow(hi, hiIncl, room)
		}
		return fracPositiveBelow(hi, hiIncl, room)
	}
	if zeros(hi) {
		return frac{false, nil} // lo > 0 = hi
	}
	if lo[0] == hi[0] {
		rest := fracBetween(lo[1:], loIncl, hi[1:], hiIncl, less(room))
		var alts []*expr
		if rest.empty {
			alts = append(alts, lit(lo[:1]))
		}
		if rest.nonEmpty != nil {
			alts = append(alts, seq(lit(lo[:1]), rest.nonEmpty))
		}
		return frac{false, alt(alts...)}
	}
	var alts []*expr
	above := fracAbove(lo[1:], loIncl, less(room))
	if above.empty {
		alts = append(alts, lit(lo[:1]))
	}
	if above.nonEmpty != nil {
		alts = append(alts, seq(lit(lo[:1]), above.nonEmpty))
	}
	if lo[0]+1 <= hi[0]-1 {
		alts = append(alts, seq(digitRange(lo[0]+1, hi[0]-1), digitsTail(less(room))))
	}
	below := fracBelow(hi[1:], hiIncl, less(room))
	if below.empty {
		alts = append(alts, lit(hi[:1]))
	}
	if below.nonEmpty != nil {
		alts = append(alts, seq(lit(hi[:1]), below.nonEmpty))
	}
	return frac{false, alt(alts...)}
}

// fracPositiveBelow is the fractions 0 < 0.F <= 0.hi (incl) or < 0.hi
// (room: as magnitudes).
func fracPositiveBelow(hi string, incl bool, room int) frac {
	if zeros(hi) {
		return frac{false, nil}
	}
	d := hi[0]
	if d == '0' {
		rest := fracPositiveBelow(hi[1:], incl, less(room))
		if rest.nonEmpty == nil {
			return frac{false, nil}
		}
		return frac{false, seq(lit("0"), rest.nonEmpty)}
	}
	var alts []*expr
	if nonZero := positiveTail(less(room)); nonZero != nil {
		alts = append(alts, seq(lit("0"), nonZero))
	}
	if d > '1' {
		alts = append(alts, seq(digitRange('1', d-1), digitsTail(less(room))))
	}
	below := fracBelow(hi[1:], incl, less(room))
	if below.empty {
		alts = append(alts, lit(string(d)))
	}
	if below.nonEmpty != nil {
		alts = append(alts, seq(lit(string(d)), below.nonEmpty))
	}
	return frac{false, alt(alts...)}
}
