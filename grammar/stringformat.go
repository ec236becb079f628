package grammar

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
)

// This file gives the JSON Schema formats the grammar enforces as
// expressions over a string value's characters (like patternExpr's; the
// encoders jsonChars and rawChars write them as JSON or raw text). What
// each enforces is documented on its function and in docs/gap-decisions.md
// (entries 125 to 134).

// formatNames are the formats the grammar knows, as docs/serve.md lists
// them (TestServeDocFormats).
var formatNames = []string{"date", "time", "date-time", "duration", "uuid", "email", "hostname", "ipv4", "ipv6",
	"uri", "uri-reference", "iri", "iri-reference", "uri-template", "json-pointer", "relative-json-pointer"}

// formatExpr returns the expression of the string values valid for format
// name, or nil for a format it does not know (one of formatNames). Each is
// built once per process and shared (expressions are never changed once
// built).
func formatExpr(name string) *expr { return cachedFormat(name, 0) }

// formatJSON is jsonChars(formatExpr(name)) and formatRaw
// rawChars(formatExpr(name)), each built once per process: the text of
// the format's values in a JSON string, and as a raw argument value.
func formatJSON(name string) *expr { return cachedFormat(name, 1) }

func formatRaw(name string) *expr { return cachedFormat(name, 2) }

var formatCache struct {
	sync.Mutex
	exprs  map[string]*[3]*expr // by name: the value, JSON and raw expressions
	values map[*expr]bool       // the value expressions
}

// isFormatValue reports whether e is the value expression of a format,
// as formatExpr returns it.
func isFormatValue(e *expr) bool {
	formatCache.Lock()
	defer formatCache.Unlock()
	return formatCache.values[e]
}

func cachedFormat(name string, form int) *expr {
	formatCache.Lock()
	defer formatCache.Unlock()
	if c, ok := formatCache.exprs[name]; ok {
		return c[form]
	}
	e := groupReps(buildFormat(name))
	if e == nil {
		return nil
	}
	c := &[3]*expr{freeze(e), freeze(jsonChars(e)), freeze(rawChars(e))}
	if formatCache.exprs == nil {
		formatCache.exprs, formatCache.values = map[string]*[3]*expr{}, map[*expr]bool{}
	}
	formatCache.exprs[name] = c
	formatCache.values[c[0]] = true
	return c[form]
}

// formatLoose is why formatExpr(name) holds some strings that are not
// valid for the format ("" where it holds exactly the valid ones): the
// compiler reports such a format where it enforces it, an error under
// strict (decision 221).
func formatLoose(name string) string {
	if name == "hostname" {
		return "the total length of a host name (253 characters) and the Punycode of its xn-- labels are not checked"
	}
	return ""
}

// definedFormats are the formats JSON Schema 2020-12 defines (the
// validation vocabulary, section 7.3), those formatExpr enforces and the
// three it does not (idn-email, idn-hostname, regex).
var definedFormats = [...]string{"date-time", "date", "time", "duration", "email", "idn-email",
	"hostname", "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference",
	"uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex"}

// definedFormat is the format JSON Schema defines that name spells, apart
// from case and the separators - _ . and space ("datetime", "UUID",
// "ip_v4"), or "" when it spells none: a custom format.
func definedFormat(name string) string {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch r {
			case '-', '_', '.', ' ':
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	n := norm(name)
	for _, f := range definedFormats {
		if norm(f) == n {
			return f
		}
	}
	return ""
}

// buildFormat builds formatExpr's expression.
func buildFormat(name string) *expr {
	switch name {
	case "date":
		return formatDate()
	case "time":
		return formatTime()
	case "date-time":
		return seq(formatDate(), chars(false, "Tt"), formatTime())
	case "duration":
		return formatDuration()
	case "uuid":
		h := formatHex()
		return seq(rep(h, 8, 8), lit("-"), rep(h, 4, 4), lit("-"), rep(h, 4, 4), lit("-"), rep(h, 4, 4), lit("-"), rep(h, 12, 12))
	case "email":
		return formatEmail()
	case "hostname":
		return formatHostname()
	case "ipv4":
		return formatIPv4()
	case "ipv6":
		return formatIPv6()
	case "uri":
		return formatURI()
	case "uri-reference":
		return alt(formatURI(), formatRelativeRef())
	case "iri":
		return iriSyntax().absolute()
	case "iri-reference":
		u := iriSyntax()
		return alt(u.absolute(), u.relative())
	case "uri-template":
		return formatURITemplate()
	case "json-pointer":
		return formatJSONPointer()
	case "relative-json-pointer":
		// draft-bhutton-relative-json-pointer-00 (JSON Schema 2020-12's):
		// a non-negative integer, an optional index manipulation (+N or
		// -N), then "#" or a JSON Pointer.
		positive := seq(digitRange('1', '9'), star(formatDigit()))
		nonNegative := alt(lit("0"), positive)
		return seq(nonNegative, opt(seq(chars(false, "+-"), positive)), alt(lit("#"), formatJSONPointer()))
	}
	return nil
}

func formatDigit() *expr { return digitRange('0', '9') }

func formatHex() *expr {
	return class(false, runeRange{'0', '9'}, runeRange{'A', 'F'}, runeRange{'a', 'f'})
}

// formatTwoDigits is the numbers lo to hi (0 to 99), written with two
// digits: the tens whose units run 0 to 9 share one class.
func formatTwoDigits(lo, hi int) *expr {
	var alts []*expr
	first, last := lo/10, hi/10
	if first == last {
		return seq(lit(string(rune('0'+first))), digitRange(byte('0'+lo%10), byte('0'+hi%10)))
	}
	if lo%10 != 0 {
		alts = append(alts, seq(lit(string(rune('0'+first))), digitRange(byte('0'+lo%10), '9')))
		first++
	}
	full := last
	if hi%10 != 9 {
		full--
	}
	if first <= full {
		alts = append(alts, seq(digitRange(byte('0'+first), byte('0'+full)), formatDigit()))
	}
	if hi%10 != 9 {
		alts = append(alts, seq(lit(string(rune('0'+last))), digitRange('0', byte('0'+hi%10))))
	}
	return alt(alts...)
}

func formatPad2(n int) string { return fmt.Sprintf("%02d", n) }

// formatDate is RFC 3339's full-date, YYYY-MM-DD, with the days of each
// month: 29 February only in leap years of the Gregorian calendar (years
// divisible by 4 but not by 100, or by 400; year 0000 included).
func formatDate() *expr {
	year := rep(formatDigit(), 4, 4)
	leapYear := alt(
		// The last two digits a multiple of 4 but not 00...
		seq(formatDigit(), formatDigit(), alt(seq(chars(false, "02468"), chars(false, "48")), seq(chars(false, "13579"), chars(false, "26")), seq(chars(false, "2468"), lit("0")))),
		// ... or a century whose first two digits are a multiple of 4.
		seq(alt(seq(chars(false, "02468"), chars(false, "048")), seq(chars(false, "13579"), chars(false, "26"))), lit("00")),
	)
	day28 := alt(seq(lit("0"), digitRange('1', '9')), seq(lit("1"), formatDigit()), seq(lit("2"), digitRange('0', '8')))
	day30 := alt(day28, lit("29"), lit("30"))
	day31 := alt(day30, lit("31"))
	return alt(
		seq(year, lit("-"), alt(lit("01"), lit("03"), lit("05"), lit("07"), lit("08"), lit("10"), lit("12")), lit("-"), day31),
		seq(year, lit("-"), alt(lit("04"), lit("06"), lit("09"), lit("11")), lit("-"), day30),
		seq(year, lit("-02-"), day28),
		seq(leapYear, lit("-02-29")),
	)
}

// formatTime is RFC 3339's full-time: hh:mm:ss, an optional fraction of a
// second, and an offset (Z, z, or +hh:mm / -hh:mm). A leap second (60) is
// allowed only where it can be one: at 23:59 UTC. The hour is checked
// exactly against the offset; the minute exactly when the offset has no
// minutes (then it must be 59), and otherwise only as 00 to 58 (the exact
// minute, 59 plus or minus the offset's minutes, would cross with the hour
// and cost thousands of alternatives), so 01:28:60+01:30 is accepted.
func formatTime() *expr {
	frac := opt(seq(lit("."), plus(formatDigit())))
	hour := formatTwoDigits(0, 23)
	minute := formatTwoDigits(0, 59)
	offset := alt(chars(false, "Zz"), seq(chars(false, "+-"), hour, lit(":"), minute))
	normal := seq(hour, lit(":"), minute, lit(":"), formatTwoDigits(0, 59), frac, offset)
	// A leap second at local time hh:mm is 23:59 UTC when:
	//   offset ±oh:00: mm = 59 and oh = hh+1 (+) or 23-hh (-), mod 24;
	//   offset ±oh:om, om > 0: mm = om-1 (+) or 59-om (-), and oh = hh
	//   (+) or 23-hh (-).
	minute58 := formatTwoDigits(0, 58)
	offsetMinute := formatTwoDigits(1, 59)
	var leaps []*expr
	for hh := range 24 {
		whole := []*expr{
			seq(lit("+" + formatPad2((hh+1)%24) + ":00")),
			seq(lit("-" + formatPad2(23-hh) + ":00")),
		}
		if hh == 23 {
			whole = append(whole, chars(false, "Zz"))
		}
		leaps = append(leaps, seq(lit(formatPad2(hh)+":"), alt(
			seq(lit("59:60"), frac, alt(whole...)),
			seq(minute58, lit(":60"), frac, alt(lit("+"+formatPad2(hh)), lit("-"+formatPad2(23-hh))), lit(":"), offsetMinute),
		)))
	}
	return alt(normal, alt(leaps...))
}

// formatDuration is the ISO 8601 duration of RFC 3339's Appendix A (which JSON
// Schema names): P then years, months, days (each followed by the next
// smaller unit or nothing), and/or T and hours, minutes, seconds in the
// same way, or weeks alone. Integers only, uppercase designators.
func formatDuration() *expr {
	num := plus(formatDigit())
	second := seq(num, lit("S"))
	minute := seq(num, lit("M"), opt(second))
	hour := seq(num, lit("H"), opt(minute))
	durTime := seq(lit("T"), alt(hour, minute, second))
	day := seq(num, lit("D"))
	month := seq(num, lit("M"), opt(day))
	year := seq(num, lit("Y"), opt(month))
	durDate := seq(alt(day, month, year), opt(durTime))
	week := seq(num, lit("W"))
	return seq(lit("P"), alt(durDate, durTime, week))
}

// formatIPv4 is a dotted quad of decimal octets 0 to 255, without leading
// zeros.
func formatIPv4() *expr {
	octet := alt(
		formatDigit(),
		seq(digitRange('1', '9'), formatDigit()),
		seq(lit("1"), formatDigit(), formatDigit()),
		seq(lit("2"), digitRange('0', '4'), formatDigit()),
		seq(lit("25"), digitRange('0', '5')),
	)
	return seq(octet, rep(seq(lit("."), octet), 3, 3))
}

// formatIPv6 is RFC 4291's text forms, as RFC 3986's IPv6address writes them:
// eight groups of 1 to 4 hex digits, one run of groups compressed to ::,
// and the last two groups possibly an IPv4 address. No zone identifier.
func formatIPv6() *expr {
	h16 := rep(formatHex(), 1, 4)
	h16c := seq(h16, lit(":"))
	ls32 := alt(seq(h16, lit(":"), h16), formatIPv4())
	// before(n) is up to n+1 groups before the "::".
	before := func(n int) *expr { return opt(seq(rep(h16c, 0, n), h16)) }
	return alt(
		seq(rep(h16c, 6, 6), ls32),
		seq(lit("::"), rep(h16c, 5, 5), ls32),
		seq(opt(h16), lit("::"), rep(h16c, 4, 4), ls32),
		seq(before(1), lit("::"), rep(h16c, 3, 3), ls32),
		seq(before(2), lit("::"), rep(h16c, 2, 2), ls32),
		seq(before(3), lit("::"), h16c, ls32),
		seq(before(4), lit("::"), ls32),
		seq(before(5), lit("::"), h16),
		seq(before(6), lit("::")),
	)
}

// formatHostname is RFC 1123 host names: dot-separated labels of letters,
// digits and hyphens, each 1 to 63 characters, not starting or ending
// with a hyphen; no trailing dot. The total length (253) is not enforced,
// nor what IDNA asks of xn-- labels.
func formatHostname() *expr {
	alnum := class(false, runeRange{'0', '9'}, runeRange{'A', 'Z'}, runeRange{'a', 'z'})
	ldh := class(false, runeRange{'-', '-'}, runeRange{'0', '9'}, runeRange{'A', 'Z'}, runeRange{'a', 'z'})
	label := seq(alnum, opt(seq(rep(ldh, 0, 61), alnum)))
	return seq(label, star(seq(lit("."), label)))
}

// formatEmail is a practical subset of RFC 5321's Mailbox: a dot-atom local
// part (RFC 5322 atext, dots only between atoms) or a quoted string
// (printable ASCII, backslash pairs), "@", then a host name (as hostname)
// or an address literal: [IPv4] or [IPv6:IPv6]. No length limits, no
// comments or folding white space, no general address literals, ASCII
// only (no internationalized addresses).
func formatEmail() *expr {
	atext := class(false,
		runeRange{'!', '!'}, runeRange{'#', '\''}, runeRange{'*', '+'}, runeRange{'-', '-'},
		runeRange{'/', '9'}, runeRange{'=', '='}, runeRange{'?', '?'}, runeRange{'A', 'Z'},
		runeRange{'^', '~'})
	atom := plus(atext)
	dotAtom := seq(atom, star(seq(lit("."), atom)))
	qtext := class(false, runeRange{' ', '!'}, runeRange{'#', '['}, runeRange{']', '~'})
	quoted := seq(lit(`"`), star(alt(qtext, seq(lit(`\`), class(false, runeRange{' ', '~'})))), lit(`"`))
	domain := alt(formatHostname(), seq(lit("["), formatIPv4(), lit("]")), seq(lit("[IPv6:"), formatIPv6(), lit("]")))
	return seq(alt(dotAtom, quoted), lit("@"), domain)
}

// uriSyntax is the character sets that tell RFC 3986's URIs from RFC
// 3987's IRIs: an IRI's unreserved characters add ucschar (most of
// Unicode past ASCII), and its query iprivate (the private-use planes).
// Everything else is one grammar.
type uriSyntax struct {
	unreserved charSet
	private    charSet // in a query only
}

// uriASCII is RFC 3986's syntax, and iriSyntax RFC 3987's.
func uriASCII() uriSyntax { return uriSyntax{unreserved: formatUnreserved()} }

func iriSyntax() uriSyntax {
	return uriSyntax{unreserved: formatUnreserved().union(formatUCSChar()), private: formatIPrivate()}
}

// The sets of RFC 3986's URI syntax.
func formatUnreserved() charSet {
	return setOf(runeRange{'0', '9'}, runeRange{'A', 'Z'}, runeRange{'a', 'z'}).union(setChars("-._~"))
}

func formatSubDelims() charSet { return setChars("!$&'()*+,;=") }

// formatUCSChar is RFC 3987's ucschar: the characters past ASCII an IRI
// writes as themselves (no controls, no surrogates, no private use, no
// noncharacters at the ends of planes).
func formatUCSChar() charSet {
	rs := []runeRange{{0xA0, 0xD7FF}, {0xF900, 0xFDCF}, {0xFDF0, 0xFFEF}}
	for plane := rune(1); plane <= 13; plane++ {
		rs = append(rs, runeRange{plane << 16, plane<<16 | 0xFFFD})
	}
	rs = append(rs, runeRange{0xE1000, 0xEFFFD})
	return setOf(rs...)
}

// formatIPrivate is RFC 3987's iprivate: the private-use characters.
func formatIPrivate() charSet {
	return setOf(runeRange{0xE000, 0xF8FF}, runeRange{0xF0000, 0xFFFFD}, runeRange{0x100000, 0x10FFFD})
}

func formatPercentEncoded() *expr { return seq(lit("%"), formatHex(), formatHex()) }

// char is one character of the sets unreserved, sub-delims and extra, or a
// percent-encoded octet.
func (u uriSyntax) char(extra charSet) *expr {
	return alt(u.unreserved.union(formatSubDelims()).union(extra).expr(), formatPercentEncoded())
}

// formatURI is RFC 3986's URI: scheme ":" hier-part ["?" query] ["#" fragment].
// ASCII only (an IRI's other characters must be percent-encoded).
func formatURI() *expr { return uriASCII().absolute() }

// absolute is the syntax's URI (or IRI).
func (u uriSyntax) absolute() *expr {
	scheme := seq(class(false, runeRange{'A', 'Z'}, runeRange{'a', 'z'}),
		star(class(false, runeRange{'+', '+'}, runeRange{'-', '.'}, runeRange{'0', '9'}, runeRange{'A', 'Z'}, runeRange{'a', 'z'})))
	segment := star(u.char(setChars(":@")))
	segmentNz := plus(u.char(setChars(":@")))
	pathAbempty := star(seq(lit("/"), segment))
	hier := alt(
		seq(lit("//"), u.authority(), pathAbempty),
		seq(lit("/"), opt(seq(segmentNz, pathAbempty))), // path-absolute
		seq(segmentNz, pathAbempty),                     // path-rootless
		empty(),                                         // path-empty
	)
	return seq(scheme, lit(":"), hier, u.queryFragment())
}

// formatRelativeRef is RFC 3986's relative-ref: a relative-part (a network
// path, an absolute path, a path whose first segment has no colon, or
// nothing), then ["?" query] ["#" fragment].
func formatRelativeRef() *expr { return uriASCII().relative() }

// relative is the syntax's relative reference.
func (u uriSyntax) relative() *expr {
	segment := star(u.char(setChars(":@")))
	segmentNz := plus(u.char(setChars(":@")))
	pathAbempty := star(seq(lit("/"), segment))
	part := alt(
		seq(lit("//"), u.authority(), pathAbempty),
		seq(lit("/"), opt(seq(segmentNz, pathAbempty))),
		seq(plus(u.char(setChars("@"))), pathAbempty), // path-noscheme
		empty(),
	)
	return seq(part, u.queryFragment())
}

// queryFragment is ["?" query] ["#" fragment]; an IRI's query (not its
// fragment) may hold private-use characters too.
func (u uriSyntax) queryFragment() *expr {
	fragment := u.char(setChars(":@/?"))
	query := fragment
	if len(u.private) > 0 {
		query = alt(u.private.expr(), fragment)
	}
	return seq(opt(seq(lit("?"), star(query))), opt(seq(lit("#"), star(fragment))))
}

// authority is [userinfo "@"] host [":" port]; the host an IP literal
// (an IPv6 address or an IPvFuture in brackets) or a reg-name (which holds
// every IPv4 address too).
func (u uriSyntax) authority() *expr {
	userinfo := star(u.char(setChars(":")))
	ipFuture := seq(chars(false, "vV"), plus(formatHex()), lit("."), plus(formatUnreserved().union(formatSubDelims()).union(setChars(":")).expr()))
	ipLiteral := seq(lit("["), alt(formatIPv6(), ipFuture), lit("]"))
	host := alt(ipLiteral, star(u.char(nil)))
	return seq(opt(seq(userinfo, lit("@"))), host, opt(seq(lit(":"), star(formatDigit()))))
}

// formatURITemplate is RFC 6570's URI-Template: literals (any character
// but controls, space, '"', '%' outside a percent-encoded octet, '<',
// '>', '\', '^', '`', '{', '|' and '}'; an apostrophe is allowed, as the
// JSON Schema Test Suite has it, where the RFC's ABNF leaves %x27 out) and
// expressions: "{", an optional operator, then variable names (letters,
// digits, "_" or percent-encoded octets, dots only between them), each
// with an optional prefix length (1 to 9999) or explode ("*"), separated
// by commas, then "}".
func formatURITemplate() *expr {
	literal := alt(setOf(runeRange{0x21, 0x21}, runeRange{0x23, 0x24}, runeRange{0x26, 0x3B},
		runeRange{0x3D, 0x3D}, runeRange{0x3F, 0x5B}, runeRange{0x5D, 0x5D}, runeRange{0x5F, 0x5F},
		runeRange{0x61, 0x7A}, runeRange{0x7E, 0x7E}).union(formatUCSChar()).union(formatIPrivate()).expr(),
		formatPercentEncoded())
	varchar := alt(class(false, runeRange{'0', '9'}, runeRange{'A', 'Z'}, runeRange{'_', '_'}, runeRange{'a', 'z'}), formatPercentEncoded())
	varname := seq(varchar, star(seq(opt(lit(".")), varchar)))
	modifier := alt(seq(lit(":"), digitRange('1', '9'), rep(formatDigit(), 0, 3)), lit("*"))
	varspec := seq(varname, opt(modifier))
	operator := chars(false, "+#./;?&=,!@|")
	expression := seq(lit("{"), opt(operator), varspec, star(seq(lit(","), varspec)), lit("}"))
	return star(alt(literal, expression))
}

// formatJSONPointer is RFC 6901's JSON Pointer: "/"-led reference tokens in
// which "~" is only written as ~0 or ~1.
func formatJSONPointer() *expr {
	unescaped := setChars("/~").complement().expr()
	token := star(alt(unescaped, seq(lit("~"), chars(false, "01"))))
	return star(seq(lit("/"), token))
}
