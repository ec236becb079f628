package grammar

import (
	"encoding/binary"
	"strings"
)

// The encoders map an expression over a string's VALUE (its characters,
// as a pattern or a format describes them) to an expression over the text
// the grammar must match where that string is written: inside a JSON
// string's quotes (jsonChars), or as a raw XML argument value (rawChars).
// Both work character by character, so they map the value language
// exactly: a value is in e's language if and only if its text is in the
// encoded language. Their input is built of literals, classes, sequences,
// alternations and repetitions (never a rule reference: that panics), as
// patternExpr and formatExpr build them; nil stands for the empty
// language on both sides, as in expr.go. Shared subexpressions are
// encoded once, so the result's size is linear in the input's, and a
// subexpression the encoding leaves as it is (no character written
// specially) is returned itself, not copied: expressions are never
// changed once built, so input and output may share nodes.

// jsonSpecial is the characters a JSON string text never holds as
// themselves here: the control characters, the quote and the backslash
// (JSON requires them escaped), and "<", always written \u003c so that no
// marker (<|end|>, </rfl:parameter>, ...) can ever be formed.
func jsonSpecial() charSet {
	return setOf(runeRange{0, 0x1F}, runeRange{'"', '"'}, runeRange{'\\', '\\'}, runeRange{'<', '<'})
}

// jsonCharText is how one character is written inside a JSON string, in
// the one canonical way the grammar allows: the way Python's
// json.dumps(ensure_ascii=False) writes it (the renderer's JSON), except
// for "<", written \u003c. That is \" and \\, the short escapes \b \f \n
// \r \t, \u00XX with lowercase hex digits for the other control
// characters, and every other character as itself (the solidus, DEL,
// U+2028 and U+2029 included).
func jsonCharText(c rune) string {
	switch c {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '<':
		return `\u003c`
	}
	if c < 0x20 {
		const hex = "0123456789abcdef"
		return `\u00` + string(hex[c>>4]) + string(hex[c&0xF])
	}
	return string(c)
}

// jsonChars is the text of e's values inside a JSON string (between the
// quotes), each character written as jsonCharText writes it.
func jsonChars(e *expr) *expr {
	return groupReps(newCharEncoder(encJSONLit, encJSONClass).encode(e))
}

// rawChars is the text of e's values as a raw XML argument value: every
// character as itself, except that "<" is never written (bounded raw
// strings are how the grammar keeps markers and </rfl:parameter> out), so
// values that hold a "<" are left out. A pattern or format that requires
// a "<" then matches nothing in an argument (the result is nil).
func rawChars(e *expr) *expr {
	return groupReps(newCharEncoder(encRawLit, encRawClass).encode(e))
}

// A charEncoder encodes an expression's literals and classes with lit
// and class, which return their argument itself when it needs no change.
// Each expression is encoded once (memo), and so is each class's set of
// characters, whichever expression holds it (classes): a pattern writes
// a new class at each of its ".", and encoding one costs some set
// arithmetic (4,000 dots in each of 8 patterns took 170 MB).
type charEncoder struct {
	memo       map[*expr]*expr
	classes    map[string]encodedClass
	key        []byte
	seen       int // classes met
	lit, class func(*expr) *expr
}

// memoFrom is how many classes a pattern's parser or an encoder meets
// before it keeps them by their sets of characters.
const memoFrom = 16

func newCharEncoder(lit, class func(*expr) *expr) *charEncoder {
	return &charEncoder{memo: map[*expr]*expr{}, lit: lit, class: class}
}

// encode is e encoded, or nil when it matches nothing once encoded.
func (enc *charEncoder) encode(e *expr) *expr {
	if e == nil {
		return nil
	}
	if out, ok := enc.memo[e]; ok {
		return out
	}
	var out *expr
	switch e.kind {
	case kLit:
		out = enc.lit(e)
	case kClass:
		out = enc.encodeClass(e)
	case kSeq, kAlt:
		items := make([]*expr, len(e.items))
		same := true
		for i, it := range e.items {
			items[i] = enc.encode(it)
			if items[i] == nil && e.kind == kSeq {
				enc.memo[e] = nil
				return nil
			}
			same = same && items[i] == it
		}
		switch {
		case same:
			out = e
		case e.kind == kSeq:
			out = seq(items...)
		default:
			out = alt(items...)
		}
	case kRep:
		if x := enc.encode(e.items[0]); x == e.items[0] {
			out = e
		} else {
			out = rep(x, e.min, e.max)
		}
	default:
		panic("grammar: a rule reference in a value expression")
	}
	enc.memo[e] = out
	return out
}

// encodedClass is a class's encoding, or same when it is the class itself
// (a class that needs no change stays the expression it was, so that the
// expressions that hold it need no copy either).
type encodedClass struct {
	out  *expr
	same bool
}

// encodeClass is class e encoded, once per set of characters past the
// first few classes (memoFrom: below it, building the memo costs more
// than it saves).
func (enc *charEncoder) encodeClass(e *expr) *expr {
	if enc.seen++; enc.seen <= memoFrom {
		return enc.class(e)
	}
	k := enc.key[:0]
	if e.neg {
		k = append(k, '^')
	}
	k = appendRangesKey(k, e.rs)
	enc.key = k
	if c, ok := enc.classes[string(k)]; ok {
		if c.same {
			return e
		}
		return c.out
	}
	out := enc.class(e)
	if enc.classes == nil {
		enc.classes = map[string]encodedClass{}
	}
	enc.classes[string(k)] = encodedClass{out, out == e}
	return out
}

// appendRangesKey appends to k the ranges rs as bytes, a map key of a set
// of characters (charEncoder's and patternParser.setExpr's).
func appendRangesKey(k []byte, rs []runeRange) []byte {
	for _, r := range rs {
		k = binary.LittleEndian.AppendUint32(k, uint32(r.lo))
		k = binary.LittleEndian.AppendUint32(k, uint32(r.hi))
	}
	return k
}

// plainClass reports whether class e holds none of special's characters
// and no surrogate (and so is written as it is).
func plainClass(e *expr, special charSet) bool {
	if e.neg {
		return false
	}
	for _, r := range e.rs {
		if r.lo <= surrogateHi && r.hi >= surrogateLo {
			return false
		}
	}
	return len(setOf(e.rs...).intersect(special)) == 0
}

func encJSONLit(e *expr) *expr {
	if !strings.ContainsFunc(e.text, func(c rune) bool { return c < 0x20 || c == '"' || c == '\\' || c == '<' }) {
		return e
	}
	var b strings.Builder
	for _, c := range e.text {
		b.WriteString(jsonCharText(c))
	}
	return lit(b.String())
}

// encJSONClass is one character of class e as JSON text: the characters
// written as themselves in one class, the others as their escapes,
// grouped by their common prefix.
func encJSONClass(e *expr) *expr {
	if plainClass(e, jsonSpecial()) {
		return e
	}
	s := setOfClass(e)
	special := s.intersect(jsonSpecial())
	alts := []*expr{s.minus(jsonSpecial()).expr()}
	if len(special) == 0 {
		return alt(alts...)
	}
	var short, low, high []rune // after \ ; after \u000 ; after \u001
	for _, r := range special {
		for c := r.lo; c <= r.hi; c++ {
			t := jsonCharText(c)
			switch {
			case c == '<':
				alts = append(alts, lit(t))
			case len(t) == 2:
				short = append(short, rune(t[1]))
			case c < 0x10:
				low = append(low, rune(t[5]))
			default:
				high = append(high, rune(t[5]))
			}
		}
	}
	group := func(prefix string, cs []rune) {
		if len(cs) > 0 {
			alts = append(alts, seq(lit(prefix), setChars(string(cs)).expr()))
		}
	}
	group(`\`, short)
	group(`\u000`, low)
	group(`\u001`, high)
	return alt(alts...)
}

func encRawLit(e *expr) *expr {
	if strings.ContainsRune(e.text, '<') {
		return nil
	}
	return e
}

func encRawClass(e *expr) *expr {
	if plainClass(e, setChars("<")) {
		return e
	}
	return setOfClass(e).minus(setChars("<")).expr()
}
