package split

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// translate rewrites an Oniguruma pattern (the onig crate's default syntax,
// ONIG_SYNTAX_ONIGURUMA, which reads patterns as Ruby does; UTF-8 and Unicode
// classes) into regexp2's default (.NET) syntax with the same matches. It accepts only constructs whose meaning it
// knows in both engines:
//
//   - literals, escaped punctuation, \t \n \r \f \v \a \e, \xHH (ASCII),
//     \x{H...} and \uHHHH (code points);
//   - . (any character but \n in both);
//   - \s \S (Unicode White_Space in both), \d \D (Nd in both), \h \H (Ruby's
//     hexadecimal digit, spelled out), \w \W (Oniguruma's Unicode word
//     class, Alphabetic|Mark|Decimal_Number|Connector_Punctuation and ²³¹¼½¾,
//     spelled out: wordBody);
//   - \p{X}, \p{^X}, \P{X} for a general category (not C, whose Oniguruma set
//     includes unassigned code points) or a script, by short or long name;
//   - classes follow Unicode 16.0, the version of Oniguruma's tables in
//     Hugging Face's tokenizers: \p{X}, \d and \w add the code points
//     Unicode 16.0 assigns beyond Go's tables (unicode_added.go); a negated
//     one of them inside a class, and a category or script from which
//     Unicode 16.0 moves code points (Mn), are refused;
//   - ^ and $ (always line anchors in Ruby syntax; ^ does not match after a
//     final newline), \A \z \Z \G;
//   - groups ( ), (?: ), (?= ), (?! ), (?<= ), (?<! ), (?> ), named groups;
//   - * + ? {n} {n,} {n,m} {,m}, lazy, and possessive for * + ? only: an
//     interval followed by + is a nested repeat (x{1,3}+ is (?:x{1,3})+),
//     and a fixed interval followed by ? is optional (x{2}? is (?:x{2})?);
//   - character classes with ranges and the escapes above;
//   - (?i) and (?i:...) over ASCII literals and classes without quantifiers
//     (Oniguruma also folds multi-character sequences such as ss and ß; a
//     pair of letters that can fold that way is refused).
//
// Everything else is a *PatternError naming the construct.
func translate(pattern string) (string, error) {
	t := &translator{src: pattern, fresh: true}
	if err := t.run(); err != nil {
		return "", err
	}
	return t.out.String(), nil
}

type openGroup struct {
	fold  bool
	start int
}

type translator struct {
	src string
	i   int // read offset in src
	out strings.Builder

	// groups holds, for every open group, whether case folding was on
	// before it opened (restored at its close) and where it starts in out.
	groups []openGroup
	// atomStart is where the last atom written starts in out.
	atomStart int
	fold      bool // (?i) in force
	// atom reports that the last thing written can take a quantifier;
	// prevLit is the last literal written in fold scope (0 after anything
	// else), to refuse multi-character folds.
	atom    bool
	prevLit rune
	// fresh reports that nothing has been written since the start of the
	// pattern, of a group or of an alternative.
	fresh bool
}

func (t *translator) errAt(off int, format string, args ...any) error {
	return &PatternError{Pattern: t.src, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// multiFold lists the ASCII letter pairs that Oniguruma's case-insensitive
// matching also matches as one character (ß, ﬅ, ﬆ, ﬀ, ﬁ, ﬂ, ﬃ, ﬄ) and
// regexp2's simple folding does not.
var multiFold = map[[2]rune]bool{
	{'s', 's'}: true, {'s', 't'}: true, {'f', 'f'}: true, {'f', 'i'}: true, {'f', 'l'}: true,
}

func (t *translator) run() error {
	for t.i < len(t.src) {
		off := t.i
		c, size := utf8.DecodeRuneInString(t.src[t.i:])
		if c == utf8.RuneError && size == 1 {
			return t.errAt(off, "invalid UTF-8")
		}
		t.i += size
		lit := rune(0)
		fresh := false
		tokStart := t.out.Len()
		switch c {
		case '\\':
			r, err := t.escape(off)
			if err != nil {
				return err
			}
			lit = r
		case '(':
			if err := t.group(off); err != nil {
				return err
			}
			t.atom = false
			fresh = true
		case ')':
			if len(t.groups) == 0 {
				return t.errAt(off, "unmatched )")
			}
			g := t.groups[len(t.groups)-1]
			t.fold = g.fold
			t.groups = t.groups[:len(t.groups)-1]
			t.out.WriteByte(')')
			t.atom = true
			tokStart = g.start
		case '|':
			t.out.WriteByte('|')
			t.atom = false
			fresh = true
		case '[':
			if err := t.class(off); err != nil {
				return err
			}
			t.atom = true
		case '.':
			t.out.WriteString(`[^\n]`)
			t.atom = true
		case '^':
			// Oniguruma's begin-line: the start of the text, or after a
			// newline that is not the last character.
			t.out.WriteString(`(?:\A|(?<=\n)(?!\z))`)
			t.atom = false
		case '$':
			// Oniguruma's end-line: the end of the text or before a newline.
			t.out.WriteString(`(?=\n|\z)`)
			t.atom = false
		case '*', '+', '?':
			if err := t.quantifier(off, string(c)); err != nil {
				return err
			}
		case '{':
			q, ok := t.interval()
			if !ok {
				lit = '{'
				t.literal('{')
				break
			}
			if err := t.quantifier(off, q); err != nil {
				return err
			}
		default:
			lit = c
			t.literal(c)
		}
		t.fresh = fresh
		if t.atom {
			t.atomStart = tokStart
		}
		if lit != 0 && t.fold {
			if lit >= utf8.RuneSelf {
				return t.errAt(off, "case-insensitive non-ASCII literal %q (Oniguruma's Unicode case folding is not regexp2's)", lit)
			}
			l := unicode.ToLower(lit)
			if multiFold[[2]rune{t.prevLit, l}] {
				return t.errAt(off, "case-insensitive %q after %q (Oniguruma also matches it as one character, as in ß or ﬁ)", lit, t.prevLit)
			}
			t.prevLit = l
		} else {
			t.prevLit = 0
		}
	}
	if len(t.groups) != 0 {
		return t.errAt(-1, "missing )")
	}
	return nil
}

// literal writes c so that regexp2 matches it literally.
func (t *translator) literal(c rune) {
	if strings.ContainsRune(`\.+*?()|[]{}^$#`, c) {
		t.out.WriteByte('\\')
	}
	t.out.WriteRune(c)
	t.atom = true
}

// quantifier writes q (already read) after checking its suffix.
func (t *translator) quantifier(off int, q string) error {
	if !t.atom {
		return t.errAt(off, "quantifier %s without anything to repeat", q)
	}
	if t.fold {
		return t.errAt(off, "quantifier %s in case-insensitive scope (Oniguruma may fold several characters into one)", q)
	}
	t.out.WriteString(q)
	if t.i < len(t.src) {
		switch t.src[t.i] {
		case '?':
			t.i++
			if q[0] == '{' && !strings.Contains(q, ",") {
				// Oniguruma reads a fixed interval as greedy only: x{n}? is
				// (?:x{n})?.
				t.wrapAtom("?")
			} else {
				t.out.WriteByte('?')
			}
		case '+':
			t.i++
			if q[0] == '{' {
				// Only *+, ++ and ?+ are possessive; x{n,m}+ is a nested
				// repeat, (?:x{n,m})+.
				t.wrapAtom("+")
			} else {
				t.out.WriteByte('+')
			}
		}
	}
	if t.i < len(t.src) && strings.IndexByte("*+?{", t.src[t.i]) >= 0 {
		if _, ok := (&translator{src: t.src, i: t.i + 1}).interval(); t.src[t.i] != '{' || ok {
			return t.errAt(t.i, "nested quantifier")
		}
	}
	t.atom = false
	return nil
}

// wrapAtom turns the last atom and its quantifier into a group quantified
// by q.
func (t *translator) wrapAtom(q string) {
	out := t.out.String()
	t.out.Reset()
	t.out.WriteString(out[:t.atomStart])
	t.out.WriteString("(?:")
	t.out.WriteString(out[t.atomStart:])
	t.out.WriteString(")")
	t.out.WriteString(q)
}

// interval reads an interval after '{' and returns it in regexp2's spelling;
// ok is false (and nothing is read) when the brace is a literal.
func (t *translator) interval() (q string, ok bool) {
	end := strings.IndexByte(t.src[t.i:], '}')
	if end < 0 {
		return "", false
	}
	body := t.src[t.i : t.i+end]
	lo, hi, comma := body, "", false
	if k := strings.IndexByte(body, ','); k >= 0 {
		lo, hi, comma = body[:k], body[k+1:], true
	}
	digits := func(s string) bool {
		if s == "" || len(s) > 6 {
			return false
		}
		for _, c := range []byte(s) {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	switch {
	case !comma && digits(lo):
		q = "{" + lo + "}"
	case comma && digits(lo) && hi == "":
		q = "{" + lo + ",}"
	case comma && digits(lo) && digits(hi):
		a, _ := strconv.Atoi(lo)
		b, _ := strconv.Atoi(hi)
		if a > b {
			return "", false
		}
		q = "{" + lo + "," + hi + "}"
	case comma && lo == "" && digits(hi):
		q = "{0," + hi + "}" // Oniguruma's {,n}
	default:
		return "", false
	}
	t.i += end + 1
	return q, true
}

// group handles what follows '('.
func (t *translator) group(off int) error {
	t.groups = append(t.groups, openGroup{t.fold, t.out.Len()})
	rest := t.src[t.i:]
	if !strings.HasPrefix(rest, "?") {
		t.out.WriteByte('(')
		return nil
	}
	for _, p := range []string{"?:", "?=", "?!", "?<=", "?<!", "?>"} {
		if strings.HasPrefix(rest, p) {
			t.out.WriteString("(" + p)
			t.i += len(p)
			return nil
		}
	}
	if strings.HasPrefix(rest, "?<") || strings.HasPrefix(rest, "?'") {
		closer := byte('>')
		if rest[1] == '\'' {
			closer = '\''
		}
		end := strings.IndexByte(rest[2:], closer)
		if end < 1 || !isName(rest[2:2+end]) {
			return t.errAt(off, "malformed group name")
		}
		// A named group: the name matters only to back-references, which
		// are refused, so it becomes a plain group.
		t.out.WriteString("(?:")
		t.i += 2 + end + 1
		return nil
	}
	// Option groups: only i.
	j := 1
	on := true
	fold := t.fold
	for j < len(rest) && rest[j] != ':' && rest[j] != ')' {
		switch rest[j] {
		case '-':
			on = false
		case 'i':
			fold = on
		default:
			return t.errAt(off, "option (?%c) (only (?i) is supported)", rest[j])
		}
		j++
	}
	if j >= len(rest) || j == 1 {
		return t.errAt(off, "construct (%s", clip(rest))
	}
	t.i += j + 1
	if rest[j] == ')' {
		// (?i) applies to the end of the enclosing group: nothing opens.
		// After other text, Ruby syntax makes the rest of the group,
		// alternatives included, one group ("a(?i)b|c" is "a(?i:b|c)"),
		// where .NET does not.
		if !t.fresh {
			return t.errAt(off, "(?%s) after the start of a group or alternative", rest[1:j])
		}
		t.groups = t.groups[:len(t.groups)-1]
		if fold {
			t.out.WriteString("(?i)")
		} else {
			t.out.WriteString("(?-i)")
		}
		t.fold = fold
		t.atom = false
		return nil
	}
	if fold {
		t.out.WriteString("(?i:")
	} else {
		t.out.WriteString("(?-i:")
	}
	t.fold = fold
	return nil
}

func isName(s string) bool {
	for i, c := range s {
		if c != '_' && !unicode.IsLetter(c) && (i == 0 || !unicode.IsDigit(c)) {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 8 {
		return s[:8] + "..."
	}
	return s
}

// escape handles what follows a backslash outside a class. It returns the
// literal character written, or 0 when the escape is not a literal.
func (t *translator) escape(off int) (rune, error) {
	if t.i >= len(t.src) {
		return 0, t.errAt(off, "trailing backslash")
	}
	c, size := utf8.DecodeRuneInString(t.src[t.i:])
	t.i += size
	t.atom = true
	switch c {
	case 's', 'S':
		t.out.WriteString(`\` + string(c))
		return 0, nil
	case 'd':
		t.out.WriteString(`[\d` + addedBody("Nd") + `]`)
		return 0, nil
	case 'D':
		t.out.WriteString(`[^\d` + addedBody("Nd") + `]`)
		return 0, nil
	case 'w':
		t.out.WriteString(`[` + wordBody() + `]`)
		return 0, t.noFoldClass(off)
	case 'W':
		t.out.WriteString(`[^` + wordBody() + `]`)
		return 0, t.noFoldClass(off)
	case 'h':
		t.out.WriteString(`[0-9a-fA-F]`)
		return 0, nil
	case 'H':
		t.out.WriteString(`[^0-9a-fA-F]`)
		return 0, nil
	case 'p', 'P':
		canon, negate, err := t.property(off, c == 'P')
		if err != nil {
			return 0, err
		}
		switch body := addedBody(canon); {
		case body == "" && negate:
			t.out.WriteString(`\P{` + canon + `}`)
		case body == "":
			t.out.WriteString(`\p{` + canon + `}`)
		case negate:
			t.out.WriteString(`[^\p{` + canon + `}` + body + `]`)
		default:
			t.out.WriteString(`[\p{` + canon + `}` + body + `]`)
		}
		return 0, t.noFoldClass(off)
	case 'A', 'z', 'Z', 'G':
		t.out.WriteString(`\` + string(c))
		t.atom = false
		return 0, nil
	case 't', 'n', 'r', 'f', 'v', 'a', 'e':
		t.out.WriteString(`\` + string(c))
		return map[rune]rune{'t': '\t', 'n': '\n', 'r': '\r', 'f': '\f', 'v': '\v', 'a': '\a', 'e': 0x1b}[c], nil
	case 'x', 'u':
		r, err := t.codePoint(off, c)
		if err != nil {
			return 0, err
		}
		t.literal(r)
		return r, nil
	case 'b', 'B':
		return 0, t.errAt(off, `word boundary \%c`, c)
	}
	if c < utf8.RuneSelf && (c >= '0' && c <= '9' || unicode.IsLetter(c)) {
		return 0, t.errAt(off, `escape \%c (back-references, octal and Oniguruma-only escapes are not supported)`, c)
	}
	t.literal(c)
	return c, nil
}

// noFoldClass refuses a class in case-insensitive scope.
func (t *translator) noFoldClass(off int) error {
	if t.fold {
		return t.errAt(off, "character class escape in case-insensitive scope")
	}
	return nil
}

// codePoint reads the code point of \xHH, \x{H...} or \uHHHH (kind is x or
// u, already read).
func (t *translator) codePoint(off int, kind rune) (rune, error) {
	var hex string
	switch {
	case kind == 'x' && strings.HasPrefix(t.src[t.i:], "{"):
		end := strings.IndexByte(t.src[t.i:], '}')
		if end < 0 {
			return 0, t.errAt(off, `unterminated \x{`)
		}
		hex = strings.TrimSpace(t.src[t.i+1 : t.i+end])
		t.i += end + 1
	case kind == 'x':
		n := 0
		for n < 2 && t.i+n < len(t.src) && isHex(t.src[t.i+n]) {
			n++
		}
		hex = t.src[t.i : t.i+n]
		t.i += n
		if v, err := strconv.ParseUint(hex, 16, 8); err == nil && v >= 0x80 {
			return 0, t.errAt(off, `\x%s is a raw byte in Oniguruma, not a character`, hex)
		}
	default:
		if t.i+4 > len(t.src) {
			return 0, t.errAt(off, `\u needs four hexadecimal digits`)
		}
		hex = t.src[t.i : t.i+4]
		t.i += 4
	}
	v, err := strconv.ParseUint(hex, 16, 32)
	if hex == "" || err != nil || v > unicode.MaxRune || v >= 0xD800 && v <= 0xDFFF {
		return 0, t.errAt(off, "invalid code point %q", hex)
	}
	return rune(v), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// property reads {Name} after \p or \P and returns the name regexp2 knows
// and whether the class is negated.
func (t *translator) property(off int, negate bool) (string, bool, error) {
	if !strings.HasPrefix(t.src[t.i:], "{") {
		return "", false, t.errAt(off, `\p without braces`)
	}
	end := strings.IndexByte(t.src[t.i:], '}')
	if end < 0 {
		return "", false, t.errAt(off, `unterminated \p{`)
	}
	name := t.src[t.i+1 : t.i+end]
	t.i += end + 1
	if strings.HasPrefix(name, "^") {
		negate = !negate
		name = name[1:]
	}
	canon, ok := propertyNames()[looseName(name)]
	if !ok {
		return "", false, t.errAt(off, `property \p{%s} (only general categories but C, and scripts, are supported)`, name)
	}
	if changed[canon] {
		return "", false, t.errAt(off, `property \p{%s} (Unicode %s, the version of Hugging Face's tables, moves code points out of it that Go's tables have in it)`, name, addedVersion)
	}
	return canon, negate, nil
}

// wordBody is Oniguruma's \w inside a class, as Hugging Face's tokenizers
// build it (measured over every code point with tokenizers 0.23.2):
// Alphabetic (Letter, Letter_Number, Other_Alphabetic), Mark,
// Decimal_Number and Connector_Punctuation at Unicode 16.0, and the Latin-1
// superscripts and fractions ²³¹¼½¾, which Oniguruma's own table for the
// first 256 code points counts as word characters. Other numbers (①) and
// Join_Control are not in it. Built on first use, as propertyNames is: most
// programs never translate a pattern.
var wordBody = sync.OnceValue(func() string {
	return `\p{L}` + addedBody("L") + `\p{Nl}` + addedBody("Nl") + rangesBody(unicode.Other_Alphabetic) + addedBody("Other_Alphabetic") +
		`\p{M}` + addedBody("M") + `\p{Nd}` + addedBody("Nd") + `\p{Pc}` + addedBody("Pc") + "\u00b2\u00b3\u00b9\u00bc-\u00be"
})

// addedBody returns, as members of a character class, the code points
// Unicode 16.0 adds to the category or script name beyond Go's tables
// (unicode_added.go), which regexp2 reads: a pattern translated for regexp2
// classes characters as Oniguruma in Hugging Face's tokenizers does.
func addedBody(name string) string {
	tab := added[name]
	if tab == nil {
		return ""
	}
	return rangesBody(tab)
}

// rangesBody writes the code points of tab as members of a character class.
func rangesBody(tab *unicode.RangeTable) string {
	var b strings.Builder
	for lo, hi := range rangesOf(tab) {
		b.WriteRune(lo)
		if hi > lo {
			b.WriteByte('-')
			b.WriteRune(hi)
		}
	}
	return b.String()
}

// looseName folds a property name as Oniguruma compares them: case, spaces,
// hyphens and underscores do not count.
func looseName(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == ' ' || c == '_' || c == '-' {
			continue
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// propertyNames maps loose property names to the names regexp2 knows: the
// general categories (short and long names) and the scripts of Go's unicode
// package. C (Other) is left out: Oniguruma's includes unassigned code
// points, Go's does not. The map is built on first use: most programs
// never translate a pattern, and a map of strings built at init would be
// marked by every garbage collection of theirs.
var propertyNames = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for name := range unicode.Scripts {
		m[looseName(name)] = name
	}
	for name := range unicode.Categories {
		if name != "C" {
			m[looseName(name)] = name
		}
	}
	for alias, name := range unicode.CategoryAliases {
		if name != "C" {
			m[looseName(alias)] = name
		}
	}
	return m
})

// class handles a character class after '['.
func (t *translator) class(off int) error {
	t.out.WriteByte('[')
	if strings.HasPrefix(t.src[t.i:], "^") {
		t.out.WriteByte('^')
		t.i++
	}
	if strings.HasPrefix(t.src[t.i:], "]") {
		return t.errAt(off, "] first in a character class")
	}
	for {
		if t.i >= len(t.src) {
			return t.errAt(off, "unterminated character class")
		}
		coff := t.i
		c, size := utf8.DecodeRuneInString(t.src[t.i:])
		if c == utf8.RuneError && size == 1 {
			return t.errAt(coff, "invalid UTF-8")
		}
		t.i += size
		switch {
		case c == ']':
			t.out.WriteByte(']')
			return nil
		case c == '[':
			return t.errAt(coff, "[ inside a character class (a nested class or POSIX bracket)")
		case c == '&' && strings.HasPrefix(t.src[t.i:], "&"):
			return t.errAt(coff, "class intersection &&")
		case c == '\\':
			if err := t.classEscape(coff); err != nil {
				return err
			}
		case c == '-':
			t.out.WriteByte('-')
		default:
			if t.fold && c >= utf8.RuneSelf {
				return t.errAt(coff, "case-insensitive non-ASCII class member %q", c)
			}
			t.classLiteral(c)
		}
	}
}

func (t *translator) classLiteral(c rune) {
	if strings.ContainsRune(`\]^-[`, c) {
		t.out.WriteByte('\\')
	}
	t.out.WriteRune(c)
}

// classEscape handles a backslash inside a class.
func (t *translator) classEscape(off int) error {
	if t.i >= len(t.src) {
		return t.errAt(off, "trailing backslash")
	}
	c, size := utf8.DecodeRuneInString(t.src[t.i:])
	t.i += size
	switch c {
	case 's', 'S', 't', 'n', 'r', 'f', 'v', 'a', 'e':
		t.out.WriteString(`\` + string(c))
	case 'd':
		t.out.WriteString(`\d` + addedBody("Nd"))
	case 'D':
		if addedBody("Nd") != "" {
			return t.errAt(off, `\D inside a character class (Unicode %s adds digits that Go's tables lack, and a class cannot leave them out)`, addedVersion)
		}
		t.out.WriteString(`\D`)
	case 'b':
		t.out.WriteString(`\x08`) // backspace inside a class, in both engines
	case 'w':
		if t.fold {
			return t.errAt(off, `\w in case-insensitive scope`)
		}
		t.out.WriteString(wordBody())
	case 'h':
		t.out.WriteString(`0-9a-fA-F`)
	case 'W', 'H':
		return t.errAt(off, `\%c inside a character class`, c)
	case 'p', 'P':
		if t.fold {
			return t.errAt(off, "property in case-insensitive scope")
		}
		canon, negate, err := t.property(off, c == 'P')
		if err != nil {
			return err
		}
		body := addedBody(canon)
		switch {
		case negate && body != "":
			return t.errAt(off, `negated property \%c{%s} inside a character class (Unicode %s adds code points to it that Go's tables lack, and a class cannot leave them out)`, c, canon, addedVersion)
		case negate:
			t.out.WriteString(`\P{` + canon + `}`)
		default:
			t.out.WriteString(`\p{` + canon + `}` + body)
		}
	case 'x', 'u':
		r, err := t.codePoint(off, c)
		if err != nil {
			return err
		}
		if t.fold && r >= utf8.RuneSelf {
			return t.errAt(off, "case-insensitive non-ASCII class member %q", r)
		}
		t.classLiteral(r)
	default:
		if c < utf8.RuneSelf && (c >= '0' && c <= '9' || unicode.IsLetter(c)) {
			return t.errAt(off, `escape \%c inside a character class`, c)
		}
		t.classLiteral(c)
	}
	return nil
}
