package grammar

import (
	"github.com/beamharmony/harmony/internal/syntax"
)

// textContext says where a JSON value is written, which decides what its
// strings may not contain: in the final message's content, no marker; in a
// tool call's argument, no marker and no </rfl:parameter> either.
type textContext uint8

const (
	inContent textContext = iota
	inArgument
)

// forbidden returns the strings no text written in ctx may contain.
func forbidden(ctx textContext) []string { return forbiddenIn[ctx] }

var forbiddenIn = [2][]string{
	inContent:  syntax.Markers[:],
	inArgument: append(append([]string(nil), syntax.Markers[:]...), syntax.ParamClose),
}

// containsForbidden reports whether s holds one of the strings of ctx.
func containsForbidden(s string, ctx textContext) bool {
	for _, f := range forbidden(ctx) {
		if indexOf(s, f) >= 0 {
			return true
		}
	}
	return false
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// jsonControl is the characters a JSON string holds only escaped.
func jsonControl() *expr { return jsonControlExpr }

var jsonControlExpr = class(false, runeRange{0, 0x1f}, runeRange{'"', '"'}, runeRange{'\\', '\\'})

// jsonEscape is one escape sequence after the backslash's absence: \" \\
// \/ \b \f \n \r \t, or \u and four hex digits that are not a surrogate
// (so that each escape is exactly one character, for minLength and
// maxLength).
func jsonEscape() *expr { return jsonEscapeExpr }

var jsonEscapeExpr = freeze(func() *expr {
	hex := class(false, runeRange{'0', '9'}, runeRange{'a', 'f'}, runeRange{'A', 'F'})
	nonSurrogateStart := alt(
		seq(class(false, runeRange{'0', '9'}, runeRange{'a', 'c'}, runeRange{'A', 'C'}, runeRange{'e', 'f'}, runeRange{'E', 'F'}), hex, hex, hex),
		seq(chars(false, "dD"), class(false, runeRange{'0', '7'}), hex, hex),
	)
	return seq(lit(`\`), alt(chars(false, `"\/bfnrt`), seq(lit("u"), nonSurrogateStart)))
}())

// strings returns the rule of a JSON string's contents in ctx: any text
// without the forbidden strings, escapes included.
func (c *compiler) stringText(ctx textContext) *textLang {
	if c.text[ctx] == nil {
		t := &textLang{forbidden: forbidden(ctx), excluded: jsonControl(), escape: jsonEscape()}
		name := "str"
		if ctx == inArgument {
			name = "argstr"
		}
		t.build(&c.g, name)
		c.text[ctx] = t
	}
	return c.text[ctx]
}

// anyJSON returns a reference to the rule of any JSON value in ctx:
//
//	json ::= json-object | json-array | json-string | number | "true" | "false" | "null"
//	json-string ::= "\"" str-0 "\""
//	json-object ::= "{" (json-string ": " json (", " json-string ": " json)*)? "}"
//	json-array ::= "[" (json (", " json)*)? "]"
//
// (argjson-... and argstr-0 in an argument). Most grammars hold these
// rules, so their expressions are laid out by hand in one allocation, as
// seq and alt would build them.
func (c *compiler) anyJSON(ctx textContext) *expr {
	if c.any[ctx] > 0 {
		return c.anyRef[ctx]
	}
	name := "json"
	if ctx == inArgument {
		name = "argjson"
	}
	n := &anyJSONNodes{}
	e, it := n.e[:0], n.it[:0]
	node := func(x expr) *expr {
		e = append(e, x)
		return &e[len(e)-1]
	}
	items := func(xs ...*expr) []*expr {
		at := len(it)
		it = append(it, xs...)
		return it[at:len(it):len(it)]
	}
	refTo := func(r int) *expr { return node(expr{kind: kRef, rule: r}) }
	value := c.g.declare(name)
	c.any[ctx] = value
	v := refTo(value)
	c.anyRef[ctx] = v
	text := c.stringText(ctx).state(0)
	strRule := c.g.declare(name + "-string")
	c.g.define(strRule, node(expr{kind: kSeq, items: items(litQuote, text, litQuote)}))
	s := refTo(strRule)
	rep := func(x *expr, max int) *expr { return node(expr{kind: kRep, items: items(x), max: max}) }
	seqOf := func(xs ...*expr) *expr { return node(expr{kind: kSeq, items: items(xs...)}) }
	obj := seqOf(lit("{"), rep(seqOf(s, litColon, v, rep(seqOf(litComma, s, litColon, v), -1)), 1), lit("}"))
	arr := seqOf(lit("["), rep(seqOf(v, rep(seqOf(litComma, v), -1)), 1), lit("]"))
	objRule := c.g.declare(name + "-object")
	c.g.define(objRule, obj)
	arrRule := c.g.declare(name + "-array")
	c.g.define(arrRule, arr)
	c.numberRule()
	c.g.define(value, node(expr{kind: kAlt, items: items(refTo(objRule), refTo(arrRule), s, refTo(c.numRule),
		lit("true"), lit("false"), lit("null"))}))
	return v
}

// anyJSONNodes holds the expressions of anyJSON's rules (18 and their 32
// items; past them append would allocate apart, still correct).
type anyJSONNodes struct {
	e  [18]expr
	it [32]*expr
}

// numberRule is any JSON number.
func (c *compiler) numberRule() *expr {
	if c.numRule == 0 {
		c.numRule = c.g.rule("number", numberExpr)
	}
	return ref(c.numRule)
}

// numberExpr is any JSON number, built once (expressions are never
// changed once built, so grammars share them).
var numberExpr = freeze(func() *expr {
	digits := plus(class(false, runeRange{'0', '9'}))
	return seq(
		integerExpr,
		opt(seq(lit("."), digits)),
		opt(seq(chars(false, "eE"), opt(chars(false, "+-")), digits)),
	)
}())

// integerExpr is any integer as JSON writes it: no leading zeros, no "-0".
var integerExpr = freeze(alt(lit("0"), seq(opt(lit("-")), class(false, runeRange{'1', '9'}), star(class(false, runeRange{'0', '9'})))))

func (c *compiler) integerExpr() *expr { return integerExpr }

// jsonValue returns the expression of a JSON value valid for schema node s
// in ctx; path names s for errors and dropped keywords.
func (c *compiler) jsonValue(s int, ctx textContext, path string) *expr {
	return c.value(c.viewOf(s, path), ctx, false)
}
