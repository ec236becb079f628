package grammar

import (
	"math/big"
	"sync"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// multipleOf where the grammar can write its language: every number a
// multiple of k is a whole number when k is (and the grammar writes whole
// numbers as integers, gap decision 107), and the whole numbers whose
// decimal digits, read left to right, leave remainder 0 mod k are a
// regular language: one rule per remainder. So a view whose multipleOf
// values are all whole, at most maxMultiple together (their least common
// multiple), without minimum or maximum beside (whose ranges the grammar
// does not intersect with it), is written as those integers. For whole
// numbers only (type integer), a multipleOf p/q admits the multiples of
// p: one that divides 1 (0.5, 1e-8) admits them all. Elsewhere multipleOf
// stays reported (an error under strict); where the value can't be a
// number it constrains nothing.

// maxMultiple bounds the remainders, and so the rules, of multipleOf.
const maxMultiple = 64

// Decimal multiples (gap decision 220): a multipleOf of 10^-k (0.01 for
// money, 0.1, ...) is the numbers of at most k digits after the point
// that matter, the rest zeros: a regular language the range builder
// writes with or without minimum and maximum (magnitudes with room k), as
// it writes bounded numbers, without an exponent. Real-world schemas use
// 0.01 most (26 of the 32 multipleOf strict refused in JSONSchemaBench
// were 0.01 or 0.1).

// decimalPlaces returns k when every positive multipleOf of v is 10^-j
// for some j from 1 to maxRangeDigits, k the least of them (a multiple of
// 0.1 is one of 0.01), and false when one is anything else (or none is).
func (c *compiler) decimalPlaces(v *view) (k int, ok bool) {
	d := c.d
	k = -1
	for _, n := range v.nodes {
		m := n.ks.Mult
		if m < 0 {
			continue
		}
		if d.Kind(m) != pyjson.Number {
			return 0, false
		}
		j, ok := powerOfTenths(string(d.Raw(m)))
		if !ok {
			return 0, false
		}
		if k < 0 || j < k {
			k = j
		}
	}
	return k, k > 0
}

// powerOfTenths reads a JSON number that is 10^-j, 1 <= j <=
// maxRangeDigits, and returns j.
func powerOfTenths(raw string) (int, bool) {
	r, ok := new(big.Rat).SetString(raw)
	if !ok || r.Sign() <= 0 || !r.Num().IsInt64() || r.Num().Int64() != 1 {
		return 0, false
	}
	den := new(big.Int).Set(r.Denom())
	ten := big.NewInt(10)
	j := 0
	for den.Cmp(big.NewInt(1)) > 0 && j <= maxRangeDigits {
		q, m := new(big.Int).QuoRem(den, ten, new(big.Int))
		if m.Sign() != 0 {
			return 0, false
		}
		den, j = q, j+1
	}
	return j, j >= 1 && j <= maxRangeDigits && den.Cmp(big.NewInt(1)) == 0
}

// decimalMultiple returns j and k when the view's multipleOf, one value
// however many schemas say it, is j×10^-k with 2 <= j <= maxMultiple and
// 1 <= k <= maxRangeDigits (0.25 is 25×10^-2, 2.5 is 25×10^-1): under
// strict its multiples are the numbers of at most k fraction digits that
// matter (decimalMultiples) whose digits, read as a whole number with
// the point left out and k fraction digits, are a multiple of j: a
// remainder automaton (keyNFA.decimalMultiples) read together with them
// by the string automaton, as whole multiples beside bounds are (gap
// decisions 204 and 220).
func (c *compiler) decimalMultiple(v *view) (j int64, k int, ok bool) {
	d := c.d
	var m *big.Rat
	for _, n := range v.nodes {
		if n.ks.Mult < 0 {
			continue
		}
		if d.Kind(n.ks.Mult) != pyjson.Number {
			return 0, 0, false
		}
		r, good := new(big.Rat).SetString(string(d.Raw(n.ks.Mult)))
		if !good || r.Sign() <= 0 || m != nil && m.Cmp(r) != 0 {
			return 0, 0, false
		}
		m = r
	}
	if m == nil || m.IsInt() {
		return 0, 0, false
	}
	scaled := new(big.Rat).Set(m)
	for k = 1; k <= maxRangeDigits; k++ {
		scaled.Mul(scaled, big.NewRat(10, 1))
		if scaled.IsInt() {
			n := scaled.Num()
			if !n.IsInt64() || n.Int64() < 2 || n.Int64() > maxMultiple {
				return 0, 0, false
			}
			return n.Int64(), k, true
		}
	}
	return 0, 0, false
}

// decimalMultiples adds to a the numbers of decimalMultiple's j and k,
// from state from, and returns the state they end in: the integer part
// ("0", or digits without a leading zero, after an optional "-") and then
// each fraction digit move a remainder by j (multipleTable), up to k
// fraction digits and zeros after them; the end takes the remainders that
// the fraction digits not written (zeros) make 0.
func (a *keyNFA) decimalMultiples(j int64, k int, from int32) int32 {
	tab := multipleTable(j)
	end := a.add()
	pow := powersOfTen(j, k)
	states := func() []int32 {
		out := make([]int32, j)
		for r := range out {
			out[r] = a.add()
		}
		return out
	}
	sign := a.add()
	a.link(from, sign)
	a.link(a.step(from, setOf(runeRange{'-', '-'})), sign)
	whole := states() // the integer part read, by remainder
	a.link(a.step(sign, setOf(runeRange{'0', '0'})), whole[0])
	for _, m := range tab.start {
		a.link(a.step(sign, setOfClass(m.digits)), whole[m.to])
	}
	// frac[f] are the states after f fraction digits (frac[0]: after
	// the point, before a digit), by remainder.
	frac := make([][]int32, k+1)
	for f := range frac {
		frac[f] = states()
	}
	for r := range j {
		if pow[k]*r%j == 0 {
			a.link(whole[r], end)
		}
		a.link(a.step(whole[r], setOf(runeRange{'.', '.'})), frac[0][r])
		for f := range k {
			for _, m := range tab.from[r] {
				a.link(a.step(frac[f][r], setOfClass(m.digits)), frac[f+1][m.to])
			}
		}
		for f := 1; f <= k; f++ {
			if pow[k-f]*r%j == 0 {
				a.link(frac[f][r], end)
			}
		}
		a.link(a.step(frac[k][r], setOf(runeRange{'0', '0'})), frac[k][r])
	}
	// The integer part's digits after its first (no leading zero: "0"
	// takes no more, which the grid's expression says too).
	for r := range j {
		for _, m := range tab.from[r] {
			a.link(a.step(whole[r], setOfClass(m.digits)), whole[m.to])
		}
	}
	return end
}

// powersOfTen is 10^f mod j for f from 0 to k: what f zeros still to come
// multiply a remainder by.
func powersOfTen(j int64, k int) []int64 {
	pow := make([]int64, k+1)
	pow[0] = 1 % j
	for f := 1; f <= k; f++ {
		pow[f] = pow[f-1] * 10 % j
	}
	return pow
}

// maxDecimalRules caps the rules of decimalRemaindersOf: j remainders
// for the integer part and j for each of k+1 places after the point.
const maxDecimalRules = 512

// decimalRemaindersOf is, without bounds, the numbers that are multiples
// of j×10^-k (decimalMultiple), strict or not: a rule per remainder by j
// of the digits read, in the integer part and at each of the k places
// after the point (zeros after those), each ending where the places not
// written (zeros) make the remainder 0: the language of decimalMultiples'
// grid read with keyNFA.decimalMultiples, written directly.
func (c *compiler) decimalRemaindersOf(j int64, k int) *expr {
	key := "decimal-multiples:" + itoa(int(j)) + "," + itoa(k)
	if r, ok := c.memo[key]; ok {
		return r
	}
	tab := multipleTable(j)
	pow := powersOfTen(j, k)
	rules := func() []expr {
		out := make([]expr, j)
		for r := range out {
			out[r] = expr{kind: kRef, rule: c.g.declare("decimal-multiple")}
		}
		return out
	}
	whole := rules()
	frac := make([][]expr, k+1)
	for f := range frac {
		frac[f] = rules()
	}
	moves := func(ms []digitMove, to []expr) []*expr {
		var alts []*expr
		for _, m := range ms {
			alts = append(alts, seq(m.digits, &to[m.to]))
		}
		return alts
	}
	for r := range j {
		alts := append(moves(tab.from[r], whole), seq(lit("."), &frac[0][r]))
		if pow[k]*r%j == 0 {
			alts = append(alts, empty())
		}
		c.g.define(whole[r].rule, alt(alts...))
		for f := range k {
			alts := moves(tab.from[r], frac[f+1])
			if f > 0 && pow[k-f]*r%j == 0 {
				alts = append(alts, empty())
			}
			c.g.define(frac[f][r].rule, alt(alts...))
		}
		last := []*expr{seq(lit("0"), &frac[k][r])}
		if r == 0 {
			last = append(last, empty())
		}
		c.g.define(frac[k][r].rule, alt(last...))
	}
	// "0" takes no more digits: the point or the end, remainder 0.
	zero := seq(lit("0"), alt(empty(), seq(lit("."), &frac[0][0])))
	e := seq(opt(lit("-")), alt(zero, alt(moves(tab.start, whole)...)))
	r := ref(c.g.rule("decimal-multiples", e))
	c.memo[key] = r
	return r
}

// decimalMultipleDone reports whether viewNumber enforces v's multipleOf
// of j×10^-k (decimalMultiple), or, under strict, reports it there: without
// bounds, by decimalRemaindersOf, strict or not; beside them, under strict,
// by the string automaton.
func (c *compiler) decimalMultipleDone(v *view) bool {
	j, k, ok := c.decimalMultiple(v)
	if !ok {
		return false
	}
	if lo, hi := c.viewBounds(v); lo == nil && hi == nil && int(j)*(k+2) <= maxDecimalRules {
		return true
	}
	return c.strict
}

// decimalMultiples is the multiples of 10^-k between lo and hi (nil:
// unbounded): the bounds moved to the nearest multiples inside (so both
// are included and hold at most k fraction digits), the magnitudes of at
// most k digits that matter, "-" before the negative ones (from 10^-k),
// and where 0 is one, the spellings of -0 too (-0, -0.0, ...).
func (c *compiler) decimalMultiples(lo, hi *bound, k int, path string) *expr {
	unit := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
	// onGrid moves b to the nearest multiple of unit on its side.
	onGrid := func(b *bound, isLo bool) *bound {
		if b == nil {
			return nil
		}
		q := new(big.Rat).Quo(b.v, unit)
		n := new(big.Int).Quo(q.Num(), q.Denom()) // toward zero
		if q.IsInt() {
			if !b.incl {
				if isLo {
					n.Add(n, big.NewInt(1))
				} else {
					n.Sub(n, big.NewInt(1))
				}
			}
		} else if isLo && q.Sign() > 0 {
			n.Add(n, big.NewInt(1)) // up
		} else if !isLo && q.Sign() < 0 {
			n.Sub(n, big.NewInt(1)) // down
		}
		return &bound{new(big.Rat).Mul(new(big.Rat).SetInt(n), unit), true}
	}
	lo, hi = onGrid(lo, true), onGrid(hi, false)
	if lo != nil && hi != nil && lo.v.Cmp(hi.v) > 0 {
		c.impossible(path, "no multiple of multipleOf lies within minimum and maximum")
		return nil
	}
	alts := []*expr{signedMagnitudes(lo, hi, k, &bound{unit, true})}
	if (lo == nil || lo.v.Sign() <= 0) && (hi == nil || hi.v.Sign() >= 0) {
		// 0 is one: -0 too, as JSON writes a negative zero.
		alts = append(alts, seq(lit("-0"), opt(seq(lit("."), plus(lit("0"))))))
	}
	return alt(alts...)
}

// multipleOf returns the multiple the view's numbers must be of (1: any
// whole number; 0: no multipleOf) and whether the grammar enforces it
// exactly for a view of numbers (integers: whole numbers only): beside a
// minimum or maximum, for 1 (the whole numbers in the range), and under
// strict for the others, by an automaton (boundedMultiples, gap decision
// 204), which reports the keyword itself when it can't be built.
func (c *compiler) multipleOf(v *view, integers bool) (k int64, ok bool) {
	k, ok = c.wholeMultiple(v, integers)
	if !ok || k <= 1 || c.strict {
		return k, ok
	}
	if lo, hi := c.viewBounds(v); lo != nil || hi != nil {
		return 0, false
	}
	return k, true
}

// wholeMultiple is multipleOf without the bounds: the whole number every
// multipleOf of v divides (their least common multiple, at most
// maxMultiple), 1 for integers where each divides 1, 0 for none.
func (c *compiler) wholeMultiple(v *view, integers bool) (k int64, ok bool) {
	d := c.d
	k = 0
	for _, n := range v.nodes {
		m := n.ks.Mult
		if m < 0 {
			continue
		}
		if d.Kind(m) != pyjson.Number {
			return 0, false
		}
		r, good := new(big.Rat).SetString(string(d.Raw(m)))
		if !good || r.Sign() <= 0 {
			return 0, false
		}
		var whole int64
		switch {
		case r.IsInt() && r.Num().IsInt64() && r.Num().Int64() <= maxMultiple:
			whole = r.Num().Int64()
		case integers && r.Num().IsInt64() && r.Num().Int64() <= maxMultiple:
			// A whole number x is a multiple of p/q (in lowest terms)
			// exactly when p divides x: 1e-8 divides every one, 2.5
			// leaves the multiples of 5 (decision 220).
			whole = r.Num().Int64()
		default:
			return 0, false
		}
		if k == 0 {
			k = whole
		} else {
			k = lcm(k, whole)
		}
		if k > maxMultiple {
			return 0, false
		}
	}
	return k, true
}

// boundedMultiples is, under strict, the multiples of k (2 to maxMultiple)
// between lo and hi (not both nil), as JSON writes integers: the range's
// expression and the remainders' automaton read together by the string
// automaton (gap decision 204). ok is false past its limits.
func (c *compiler) boundedMultiples(k int64, lo, hi *bound, path string) (*expr, bool) {
	a, b, ok := intBounds(lo, hi)
	if !ok {
		return nil, true // no integer in the range
	}
	return c.groupAutomaton([]stringGroup{{values: []*expr{intRange(a, b)}, multiple: k, hi: -1}}, nil, true, path)
}

// multiples adds to a the whole numbers that are multiples of k, as JSON
// writes them ("0", or an optional "-" and digits without a leading zero
// whose remainder by k is 0), from state from, and returns the state they
// end in: a state per remainder, moves grouped by the remainder they lead
// to (multipleTable).
func (a *keyNFA) multiples(k int64, from int32) int32 {
	tab := multipleTable(k)
	end := a.add()
	a.link(a.step(from, setOf(runeRange{'0', '0'})), end)
	sign := a.add()
	a.link(from, sign)
	a.link(a.step(from, setOf(runeRange{'-', '-'})), sign)
	rem := make([]int32, k)
	for r := range rem {
		rem[r] = a.add()
	}
	for _, m := range tab.start {
		a.link(a.step(sign, setOfClass(m.digits)), rem[m.to])
	}
	for r, moves := range tab.from {
		for _, m := range moves {
			a.link(a.step(rem[r], setOfClass(m.digits)), rem[m.to])
		}
	}
	a.link(rem[0], end)
	return end
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int64) int64 { return a / gcd(a, b) * b }

// multiplesOf is the whole numbers that are multiples of k, as JSON writes
// integers: one rule per remainder of the digits read so far.
func (c *compiler) multiplesOf(k int64) *expr {
	key := "multiples:" + itoa(int(k))
	if r, ok := c.memo[key]; ok {
		return r
	}
	tab := multipleTable(k)
	if p := tab.rules; c.g.placeNamed(p) {
		// The grammar's first: its rules are the ones built once, named
		// as declaring them here would (multiple, multiple-2, ...).
		if k >= 2 {
			if c.g.next == nil {
				c.g.next = map[string]int{}
			}
			c.g.next["multiple"] = int(k) + 1
		}
		r := p.ref(int(k))
		c.memo[key] = r
		return r
	}
	refs := make([]expr, k)
	for s := range refs {
		refs[s] = expr{kind: kRef, rule: c.g.declare("multiple")}
	}
	var buf [10]*expr
	digits := func(moves []digitMove) []*expr {
		alts := buf[:0]
		for _, m := range moves {
			alts = append(alts, seq(m.digits, &refs[m.to]))
		}
		return alts
	}
	for s := range k {
		body := alt(digits(tab.from[s])...)
		if s == 0 {
			body = alt(empty(), body)
		}
		c.g.define(refs[s].rule, body)
	}
	e := alt(lit("0"), seq(opt(lit("-")), alt(digits(tab.start)...)))
	r := ref(c.g.rule("multiples", e))
	c.memo[key] = r
	return r
}

// digitMove is the digits that lead from one remainder to another, as a
// class.
type digitMove struct {
	to     int
	digits *expr
}

// multipleMoves are, for a k, the moves from each remainder (digits 0 to
// 9) and from the start (1 to 9), each grouped by the remainder it leads
// to, in the order of their first digit.
type multipleMoves struct {
	from  [][]digitMove
	start []digitMove
	// rules are multiplesOf's rules in a grammar that has no rule named
	// multiple or multiples yet, the last one multiples.
	rules *proto
}

var multipleTables [maxMultiple + 1]struct {
	once sync.Once
	t    *multipleMoves
}

// multipleTable returns the moves of k, built once per process.
func multipleTable(k int64) *multipleMoves {
	m := &multipleTables[k]
	m.once.Do(func() {
		moves := func(s int64, first byte) []digitMove {
			var order []int64
			by := map[int64][]rune{}
			for dgt := first; dgt <= 9; dgt++ {
				t := (10*s + int64(dgt)) % k
				if _, seen := by[t]; !seen {
					order = append(order, t)
				}
				by[t] = append(by[t], rune('0'+dgt))
			}
			var out []digitMove
			for _, t := range order {
				out = append(out, digitMove{int(t), freeze(chars(false, string(by[t])))})
			}
			return out
		}
		t := &multipleMoves{start: moves(0, 1)}
		for s := range k {
			t.from = append(t.from, moves(s, 0))
		}
		names := []string{"multiple"}
		for s := int64(1); s < k; s++ {
			names = append(names, "multiple-"+itoa(int(s)+1))
		}
		p := newProto("multiple", append(names, "multiples"))
		p.named = true
		digits := func(moves []digitMove) []*expr {
			var alts []*expr
			for _, m := range moves {
				alts = append(alts, seq(m.digits, p.ref(m.to)))
			}
			return alts
		}
		for s := range k {
			body := alt(digits(t.from[s])...)
			if s == 0 {
				body = alt(empty(), body)
			}
			p.bodies = append(p.bodies, body)
		}
		p.bodies = append(p.bodies, alt(lit("0"), seq(opt(lit("-")), alt(digits(t.start)...))))
		t.rules = p
		m.t = t
	})
	return m.t
}

// positiveMultiples returns the positive multipleOf values of v's
// schemas (one that isn't a positive number is left to the report of
// multipleOf), read once for a list of literals: read again for each, an
// enum of 16,000 numbers beside an allOf of as many schemas took 0.5 s.
func (c *compiler) positiveMultiples(v *view) []*big.Rat {
	d := c.d
	var ks []*big.Rat
	for _, n := range v.nodes {
		if m := n.ks.Mult; m >= 0 && d.Kind(m) == pyjson.Number {
			if k, ok := new(big.Rat).SetString(string(d.Raw(m))); ok && k.Sign() > 0 {
				ks = append(ks, k)
			}
		}
	}
	return ks
}

// multiples reports whether the number literal x is a multiple of every
// one of ks (positiveMultiples).
func multiples(ks []*big.Rat, x string) bool {
	if len(ks) == 0 {
		return true
	}
	val, ok := new(big.Rat).SetString(x)
	if !ok {
		return true
	}
	for _, k := range ks {
		if !new(big.Rat).Quo(val, k).IsInt() {
			return false
		}
	}
	return true
}
