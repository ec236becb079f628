package grammar

import "unicode/utf8"

// lengthBounded returns the values of value expression e (as patternExpr
// and formatExpr build them) whose length in characters is lo to hi (hi
// < 0: no upper bound), and true; or false when that can't be written
// without counting across parts. It can when each alternative of e is a
// sequence of parts of fixed length and at most one repetition of a part
// of fixed length: ^[a-z]+$ with maxLength 8 is [a-z]{1,8},
// ^[A-Z][a-z]*$ with minLength 3 is [A-Z][a-z]{2,}, ^(ab)*$ with
// maxLength 5 is (ab){0,2}, ^a with maxLength 4 is a and up to 3
// characters. A pattern anchored at neither end can't (the text before
// and after it are two counted parts), nor can time (its fraction and
// offset). The result is nil (and true) when no value has such a length;
// its repetition bounds are not capped (the caller weighs them).
func lengthBounded(e *expr, lo, hi int) (*expr, bool) {
	if e == nil {
		return nil, true
	}
	if e.kind == kAlt {
		alts := make([]*expr, 0, len(e.items))
		for _, it := range e.items {
			b, ok := lengthBounded(it, lo, hi)
			if !ok {
				return nil, false
			}
			alts = append(alts, b)
		}
		return groupReps(alt(alts...)), true
	}
	items := []*expr{e}
	if e.kind == kSeq {
		items = e.items
	}
	fixed, varying := 0, -1
	for i, it := range items {
		if n, ok := fixedLength(it); ok {
			fixed += n
			continue
		}
		if varying >= 0 || it.kind != kRep {
			return nil, false
		}
		if _, ok := fixedLength(it.items[0]); !ok {
			return nil, false
		}
		varying = i
	}
	within := func(n int) bool { return n >= lo && (hi < 0 || n <= hi) }
	if varying < 0 {
		if within(fixed) {
			return e, true
		}
		return nil, true
	}
	r := items[varying]
	step, _ := fixedLength(r.items[0])
	if step == 0 {
		// A repetition of the empty text is the empty text.
		if within(fixed) {
			return e, true
		}
		return nil, true
	}
	kmin := max(r.min, ceilDiv(lo-fixed, step))
	kmax := r.max
	if hi >= 0 {
		if hi < fixed {
			return nil, true
		}
		if m := (hi - fixed) / step; kmax < 0 || m < kmax {
			kmax = m
		}
	}
	if kmax >= 0 && kmax < kmin {
		return nil, true
	}
	out := append([]*expr(nil), items...)
	out[varying] = rep(r.items[0], kmin, kmax)
	return groupReps(seq(out...)), true
}

// ceilDiv is a/b rounded up, for b > 0 (0 for a <= 0).
func ceilDiv(a, b int) int {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// fixedLength is the length in characters of every text of e, when they
// all have one (lengthRange's least and greatest are one).
func fixedLength(e *expr) (int, bool) {
	lo, hi := lengthRange(e)
	return lo, lo == hi
}

// lengthRange is the least and the greatest length in characters of the
// texts of e (hi -1: no greatest), as far as its form shows: a language
// that holds no text (an empty class) counts as its form does, so the
// range may be wider than the texts', never narrower. Lengths stop
// growing at maxLengthRange, past every count the grammar enforces.
func lengthRange(e *expr) (lo, hi int) {
	switch e.kind {
	case kLit:
		n := utf8.RuneCountInString(e.text)
		return n, n
	case kClass:
		return 1, 1
	case kSeq:
		for _, it := range e.items {
			l, h := lengthRange(it)
			lo = min(lo+l, maxLengthRange)
			if hi >= 0 {
				hi = min(hi+h, maxLengthRange)
				if h < 0 {
					hi = -1
				}
			}
		}
		return lo, hi
	case kAlt:
		lo = maxLengthRange
		for _, it := range e.items {
			l, h := lengthRange(it)
			lo = min(lo, l)
			if hi >= 0 && (h < 0 || h > hi) {
				hi = h
			}
		}
		return lo, hi
	case kRep:
		l, h := lengthRange(e.items[0])
		lo = min(l*min(e.min, maxLengthRange), maxLengthRange)
		switch {
		case e.max < 0 && h != 0, h < 0:
			return lo, -1
		case e.max < 0:
			return lo, 0
		}
		return lo, min(h*min(e.max, maxLengthRange), maxLengthRange)
	}
	return 0, -1 // a rule reference: anything
}

// maxLengthRange is where lengthRange stops counting (past MaxLength,
// so that the bounds of every enforced length compare exactly).
const maxLengthRange = 2 * MaxLength
