package grammar

import (
	"slices"
	"strings"
	"sync"
	"unicode"
)

// A charSet is a set of characters, Unicode scalar values (never a
// surrogate): sorted ranges that neither overlap nor touch. The pattern
// translator and the value encoders compute with sets, and write one as a
// class (or a literal, for a single character) only at the end.
type charSet []runeRange

const (
	surrogateLo = 0xD800
	surrogateHi = 0xDFFF
)

// setOf is the set of the characters of rs, in any order; surrogates and
// values past unicode.MaxRune are left out.
func setOf(rs ...runeRange) charSet {
	var out []runeRange
	for _, r := range rs {
		lo, hi := max(r.lo, 0), min(r.hi, unicode.MaxRune)
		if lo > hi {
			continue
		}
		// Cut the surrogates out.
		if lo < surrogateLo && hi >= surrogateLo {
			out = append(out, runeRange{lo, surrogateLo - 1})
			lo = surrogateLo
		}
		if lo >= surrogateLo && lo <= surrogateHi {
			lo = surrogateHi + 1
		}
		if lo <= hi {
			out = append(out, runeRange{lo, hi})
		}
	}
	slices.SortFunc(out, func(a, b runeRange) int { return int(a.lo - b.lo) })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r.lo <= merged[n-1].hi+1 {
			merged[n-1].hi = max(merged[n-1].hi, r.hi)
			continue
		}
		merged = append(merged, r)
	}
	return charSet(merged)
}

// setChars is the set of the characters of s.
func setChars(s string) charSet {
	var rs []runeRange
	for _, c := range s {
		rs = append(rs, runeRange{c, c})
	}
	return setOf(rs...)
}

// setAll is every character.
func setAll() charSet { return setOf(runeRange{0, unicode.MaxRune}) }

func (s charSet) union(t charSet) charSet {
	return setOf(append(append([]runeRange(nil), s...), t...)...)
}

// complement is every character not in s.
func (s charSet) complement() charSet {
	var out []runeRange
	next := rune(0)
	for _, r := range s {
		if r.lo > next {
			out = append(out, runeRange{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, runeRange{next, unicode.MaxRune})
	}
	return setOf(out...)
}

func (s charSet) minus(t charSet) charSet {
	return s.intersect(t.complement())
}

func (s charSet) intersect(t charSet) charSet {
	var out []runeRange
	i, j := 0, 0
	for i < len(s) && j < len(t) {
		lo, hi := max(s[i].lo, t[j].lo), min(s[i].hi, t[j].hi)
		if lo <= hi {
			out = append(out, runeRange{lo, hi})
		}
		if s[i].hi < t[j].hi {
			i++
		} else {
			j++
		}
	}
	return charSet(out)
}

func (s charSet) has(c rune) bool {
	_, found := slices.BinarySearchFunc(s, c, func(r runeRange, c rune) int {
		switch {
		case r.hi < c:
			return -1
		case r.lo > c:
			return 1
		}
		return 0
	})
	return found
}

// expr is the expression of one character of s: nil when s is empty (the
// empty language, as in expr.go), a literal for a single character, a
// class otherwise. A set that holds the last character is written as the
// negation of its complement (plus the surrogates when the complement is
// empty, so that no class is written empty).
func (s charSet) expr() *expr {
	switch {
	case len(s) == 0:
		return nil
	case len(s) == 1 && s[0].lo == s[0].hi:
		return lit(string(s[0].lo))
	case s[len(s)-1].hi == unicode.MaxRune:
		c := s.complement()
		if len(c) == 0 {
			return class(true, runeRange{surrogateLo, surrogateHi})
		}
		return class(true, c...)
	}
	return class(false, s...)
}

// setOfClass is the set of characters class expression e matches.
func setOfClass(e *expr) charSet {
	s := setOf(e.rs...)
	if e.neg {
		return s.complement()
	}
	return s
}

// The character classes of ECMA-262's regular expressions.

func digitSet() charSet { return setOf(runeRange{'0', '9'}) }

func wordSet() charSet {
	return setOf(runeRange{'0', '9'}, runeRange{'A', 'Z'}, runeRange{'_', '_'}, runeRange{'a', 'z'})
}

// spaceSet is ECMA-262's WhiteSpace and LineTerminator: tab, vertical
// tab, form feed, space, no-break space, the byte order mark, the other
// Space_Separator characters, line feed, carriage return, and the line
// and paragraph separators.
func spaceSet() charSet {
	return setOf(
		runeRange{'\t', '\r'}, // \t \n \v \f \r
		runeRange{' ', ' '},
		runeRange{0xA0, 0xA0},
		runeRange{0x1680, 0x1680},
		runeRange{0x2000, 0x200A},
		runeRange{0x2028, 0x2029},
		runeRange{0x202F, 0x202F},
		runeRange{0x205F, 0x205F},
		runeRange{0x3000, 0x3000},
		runeRange{0xFEFF, 0xFEFF},
	)
}

// lineTerminators are the characters "." does not match.
func lineTerminators() charSet {
	return setOf(runeRange{'\n', '\n'}, runeRange{'\r', '\r'}, runeRange{0x2028, 0x2029})
}

// setOfTable is the set of a Unicode range table.
func setOfTable(t *unicode.RangeTable) charSet {
	var rs []runeRange
	for _, r := range t.R16 {
		rs = appendStride(rs, rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	for _, r := range t.R32 {
		rs = appendStride(rs, rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	return setOf(rs...)
}

func appendStride(rs []runeRange, lo, hi, stride rune) []runeRange {
	if stride == 1 {
		return append(rs, runeRange{lo, hi})
	}
	for c := lo; c <= hi; c += stride {
		rs = append(rs, runeRange{c, c})
	}
	return rs
}

// generalCategories maps ECMA-262's General_Category values (long names,
// short names and aliases, as in Unicode's PropertyValueAliases.txt) to
// the short names of Go's unicode.Categories. "Cn" (unassigned) and "LC"
// are computed.
var generalCategories = map[string]string{
	"L": "L", "Letter": "L",
	"LC": "LC", "Cased_Letter": "LC",
	"Lu": "Lu", "Uppercase_Letter": "Lu",
	"Ll": "Ll", "Lowercase_Letter": "Ll",
	"Lt": "Lt", "Titlecase_Letter": "Lt",
	"Lm": "Lm", "Modifier_Letter": "Lm",
	"Lo": "Lo", "Other_Letter": "Lo",
	"M": "M", "Mark": "M", "Combining_Mark": "M",
	"Mn": "Mn", "Nonspacing_Mark": "Mn",
	"Mc": "Mc", "Spacing_Mark": "Mc",
	"Me": "Me", "Enclosing_Mark": "Me",
	"N": "N", "Number": "N",
	"Nd": "Nd", "Decimal_Number": "Nd", "digit": "Nd",
	"Nl": "Nl", "Letter_Number": "Nl",
	"No": "No", "Other_Number": "No",
	"P": "P", "Punctuation": "P", "punct": "P",
	"Pc": "Pc", "Connector_Punctuation": "Pc",
	"Pd": "Pd", "Dash_Punctuation": "Pd",
	"Ps": "Ps", "Open_Punctuation": "Ps",
	"Pe": "Pe", "Close_Punctuation": "Pe",
	"Pi": "Pi", "Initial_Punctuation": "Pi",
	"Pf": "Pf", "Final_Punctuation": "Pf",
	"Po": "Po", "Other_Punctuation": "Po",
	"S": "S", "Symbol": "S",
	"Sm": "Sm", "Math_Symbol": "Sm",
	"Sc": "Sc", "Currency_Symbol": "Sc",
	"Sk": "Sk", "Modifier_Symbol": "Sk",
	"So": "So", "Other_Symbol": "So",
	"Z": "Z", "Separator": "Z",
	"Zs": "Zs", "Space_Separator": "Zs",
	"Zl": "Zl", "Line_Separator": "Zl",
	"Zp": "Zp", "Paragraph_Separator": "Zp",
	"C": "C", "Other": "C",
	"Cc": "Cc", "Control": "Cc", "cntrl": "Cc",
	"Cf": "Cf", "Format": "Cf",
	"Cs": "Cs", "Surrogate": "Cs",
	"Co": "Co", "Private_Use": "Co",
	"Cn": "Cn", "Unassigned": "Cn",
}

// categorySet is the set of General_Category short name gc (a value of
// generalCategories).
func categorySet(gc string) charSet {
	switch gc {
	case "LC":
		return setOfTable(unicode.Lu).union(setOfTable(unicode.Ll)).union(setOfTable(unicode.Lt))
	case "Cn":
		// Go's newer tables have Cn; otherwise it is what no other
		// two-letter category (they partition the assigned characters)
		// holds.
		if t, ok := unicode.Categories["Cn"]; ok {
			return setOfTable(t)
		}
		var assigned charSet
		for name, t := range unicode.Categories {
			if len(name) == 2 && name != "LC" {
				assigned = assigned.union(setOfTable(t))
			}
		}
		return assigned.complement()
	case "C":
		s := categorySet("Cn")
		for _, t := range []*unicode.RangeTable{unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs} {
			s = s.union(setOfTable(t))
		}
		return s
	}
	return setOfTable(unicode.Categories[gc])
}

// propertySet is the set of a Unicode property escape's contents (what
// \p{...} holds): a General_Category value (optionally as
// General_Category=X or gc=X), a script (Script=X or sc=X, by the names
// of Go's unicode.Scripts), a binary property of Go's unicode.Properties,
// or Any, ASCII and Assigned. ok is false for anything else
// (Script_Extensions included).
func propertySet(name string) (charSet, bool) {
	propertyMu.Lock()
	defer propertyMu.Unlock()
	if s, ok := propertySets[name]; ok {
		return s, true
	}
	s, ok := computeProperty(name)
	if ok {
		propertySets[name] = s
	}
	return s, ok
}

// propertySets caches the sets of the property names seen (valid names
// only, so at most a few hundred); callers never change a set.
var (
	propertyMu   sync.Mutex
	propertySets = map[string]charSet{}
)

func computeProperty(name string) (charSet, bool) {
	key, value, hasValue := strings.Cut(name, "=")
	if hasValue {
		switch key {
		case "General_Category", "gc":
			if gc, ok := generalCategories[value]; ok {
				return categorySet(gc), true
			}
		case "Script", "sc":
			if t, ok := unicode.Scripts[value]; ok {
				return setOfTable(t), true
			}
		}
		return nil, false
	}
	switch name {
	case "Any":
		return setAll(), true
	case "ASCII":
		return setOf(runeRange{0, 0x7F}), true
	case "Assigned":
		return categorySet("Cn").complement(), true
	}
	if gc, ok := generalCategories[name]; ok {
		return categorySet(gc), true
	}
	if t, ok := unicode.Properties[name]; ok {
		return setOfTable(t), true
	}
	if long, ok := emojiAliases[name]; ok {
		name = long
	}
	if rs, ok := emojiProperties[name]; ok {
		return setOf(rs...), true
	}
	return nil, false
}

// emojiAliases are ECMA-262's short names of the emoji properties
// (emoji.go, gap decision 287).
var emojiAliases = map[string]string{
	"EComp": "Emoji_Component", "EMod": "Emoji_Modifier", "EBase": "Emoji_Modifier_Base",
	"EPres": "Emoji_Presentation", "ExtPict": "Extended_Pictographic",
}

//go:generate go run gen_emoji.go /usr/share/unicode/emoji/emoji-data.txt
