package grammar

import (
	"strings"
	"sync"

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
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
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

// stringText returns the language of a JSON string's contents in ctx, its
// rules added to the grammar: any text without the forbidden strings,
// escapes included.
func (c *compiler) stringText(ctx textContext) *textLang {
	if c.text[ctx] == nil {
		c.text[ctx] = stringLang(ctx)
		c.g.instantiate(c.text[ctx].p)
	}
	return c.text[ctx]
}

// stringLang is the language of a JSON string's contents in ctx, its
// rules shared (str-N, argstr-N in an argument), built once.
func stringLang(ctx textContext) *textLang {
	l := &stringLangs[ctx]
	l.once.Do(func() {
		t := &textLang{forbidden: forbidden(ctx), excluded: jsonControl(), escape: jsonEscape()}
		name := "str"
		if ctx == inArgument {
			name = "argstr"
		}
		t.share(name)
		l.t = t
	})
	return l.t
}

var stringLangs [2]struct {
	once sync.Once
	t    *textLang
}

// anyJSON returns a reference to the rule of any JSON value in ctx:
//
//	json ::= json-object | json-array | json-string | number | "true" | "false" | "null"
//	json-string ::= "\"" str-0 "\""
//	json-object ::= "{" (json-string ": " json (", " json-string ": " json)*)? "}"
//	json-array ::= "[" (json (", " json)*)? "]"
//
// (argjson-... and argstr-0 in an argument). Most grammars hold these
// rules, so they are built and written once per process (a proto, like
// number's). They are written after root, the string
// contents' rules between the first and the others when they come with
// them, number's after them when it does.
func (c *compiler) anyJSON(ctx textContext) *expr {
	if c.anyRef[ctx] != nil {
		return c.anyRef[ctx]
	}
	p := jsonProto(ctx)
	if c.text[ctx] == nil {
		c.g.place(p, 0, 1)
		c.stringText(ctx)
		c.g.place(p, 1, len(p.names))
	} else {
		c.g.instantiate(p)
	}
	c.numberRule()
	c.anyRef[ctx] = p.ref(0)
	return c.anyRef[ctx]
}

// jsonProto returns the rules of any JSON value in ctx, built once.
func jsonProto(ctx textContext) *proto {
	jsonProtos[ctx].once.Do(func() {
		name := "json"
		if ctx == inArgument {
			name = "argjson"
		}
		p := newProto(name, []string{name, name + "-string", name + "-object", name + "-array"})
		v, s := p.ref(0), p.ref(1)
		str, num := stringLang(ctx).p, numberProto()
		member := seq(s, litColon, v)
		p.bodies = []*expr{
			alt(p.ref(2), p.ref(3), s, num.ref(0), lit("true"), lit("false"), lit("null")),
			seq(litQuote, str.ref(0), litQuote),
			seq(lit("{"), opt(seq(member, star(seq(litComma, member)))), lit("}")),
			seq(lit("["), opt(seq(v, star(seq(litComma, v)))), lit("]")),
		}
		p.deps = []*proto{str, num}
		jsonProtos[ctx].p = p
	})
	return jsonProtos[ctx].p
}

// anyShapes are expressions of any JSON that many views of a grammar
// build alike, built once per context: a string, an array, an object's
// member and an object.
type anyShapes struct {
	quoted, array, member, object *expr
}

var anyShapesIn [2]struct {
	once sync.Once
	s    anyShapes
}

// shapes returns the anyShapes of ctx, as viewString, arrayOf, freeMember
// and objectBody build them.
func shapes(ctx textContext) *anyShapes {
	a := &anyShapesIn[ctx]
	a.once.Do(func() {
		v := jsonProto(ctx).ref(0)
		a.s.quoted = seq(litQuote, stringLang(ctx).state(0), litQuote)
		a.s.array = seq(lit("["), opt(seq(v, rep(seq(lit(", "), v), 0, -1))), lit("]"))
		a.s.member = seq(a.s.quoted, lit(": "), v)
		a.s.object = seq(lit("{"), opt(seq(a.s.member, rep(seq(lit(", "), a.s.member), 0, -1))), lit("}"))
	})
	return &a.s
}

// quotedString is a JSON string of any contents in ctx, its rules added to
// the grammar.
func (c *compiler) quotedString(ctx textContext) *expr {
	c.stringText(ctx)
	return shapes(ctx).quoted
}

var jsonProtos [2]struct {
	once sync.Once
	p    *proto
}

// numberRule is a reference to the rule of any JSON number, added to the
// grammar (a proto of one rule: number).
func (c *compiler) numberRule() *expr {
	p := numberProto()
	c.g.instantiate(p)
	return p.ref(0)
}

// numberProto is the rule of any JSON number, built once.
var numberProto = sync.OnceValue(func() *proto {
	p := newProto("number", []string{"number"})
	p.bodies = []*expr{numberExpr}
	return p
})

// numberExpr is any JSON number, built once (expressions are never
// changed once built, so grammars share them): a minus sign before a zero
// too (-0.5, and -0, which JSON allows), where an integer has none.
var numberExpr = freeze(func() *expr {
	digits := plus(class(false, runeRange{'0', '9'}))
	return seq(
		opt(lit("-")),
		alt(lit("0"), seq(class(false, runeRange{'1', '9'}), star(class(false, runeRange{'0', '9'})))),
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
