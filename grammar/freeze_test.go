package grammar

import "testing"

// thawed is a copy of e without any frozen facts, for computing them again.
func thawed(e *expr) *expr {
	c := *e
	c.lib = nil
	c.items = make([]*expr, len(e.items))
	for i, it := range e.items {
		c.items[i] = thawed(it)
	}
	return &c
}

// A frozen expression's facts are the ones every grammar would compute
// from the expression itself: its text (alone and nested), its cost, its
// nullability and productivity, and the leftmost walk's visits; a sequence
// that keeps it as one item writes what the flattened sequence writes.
func TestFrozenFacts(t *testing.T) {
	frozen := map[string]*expr{"jsonEscape": jsonEscapeExpr, "number": numberExpr, "integer": integerExpr}
	for _, name := range []string{"date", "time", "date-time", "duration", "uuid", "email", "hostname",
		"ipv4", "ipv6", "uri", "uri-reference", "json-pointer", "relative-json-pointer"} {
		frozen[name] = formatExpr(name)
		frozen[name+" json"] = formatJSON(name)
		frozen[name+" raw"] = formatRaw(name)
	}
	for name, e := range frozen {
		if e.lib == nil {
			t.Errorf("%s: not frozen", name)
			continue
		}
		plain := thawed(e)
		set := &ruleSet{}
		for _, nested := range []bool{false, true} {
			if got, want := string(appendExpr(nil, nil, e, nested)), string(appendExpr(nil, nil, plain, nested)); got != want {
				t.Errorf("%s (nested %v): written %q, want %q", name, nested, got, want)
			}
		}
		if got, want := expandedCost(e), expandedCost(plain); got != want {
			t.Errorf("%s: cost %d, want %d", name, got, want)
		}
		if got, want := set.nullableExpr(e, nil), set.nullableExpr(plain, nil); got != want {
			t.Errorf("%s: nullable %v, want %v", name, got, want)
		}
		if got, want := set.productiveExpr(e, nil), set.productiveExpr(plain, nil); got != want {
			t.Errorf("%s: productive %v, want %v", name, got, want)
		}
		// The walk as analyzeRules counts it, over a rule of each.
		walk := func(body *expr) int {
			rs := &ruleSet{bodies: []*expr{body}}
			return analyzeRules(rs, refGraph(rs, 0)).visits[0]
		}
		if got, want := walk(e), walk(plain); got != want {
			t.Errorf("%s: leftmost walk %d, want %d", name, got, want)
		}
		in := seq(lit(`"`), e, lit(`"`))
		flat := seq(lit(`"`), plain, lit(`"`))
		if got, want := string(appendExpr(nil, nil, in, false)), string(appendExpr(nil, nil, flat, false)); got != want {
			t.Errorf("%s in a sequence: written %q, want %q", name, got, want)
		}
		if got, want := expandedCost(in), expandedCost(flat); got != want {
			t.Errorf("%s in a sequence: cost %d, want %d", name, got, want)
		}
		if got, want := walk(in), walk(flat); got != want {
			t.Errorf("%s in a sequence: leftmost walk %d, want %d", name, got, want)
		}
	}
}

// anyJSON lays its expressions out by hand: they are the ones seq and alt
// build, in a few allocations.
func TestAnyJSONExprs(t *testing.T) {
	for _, ctx := range []textContext{inContent, inArgument} {
		c := &compiler{}
		v := c.anyJSON(ctx)
		name := map[textContext]string{inContent: "json", inArgument: "argjson"}[ctx]
		value, strRule, obj, arr := v.rule, c.g.names[name+"-string"], c.g.names[name+"-object"], c.g.names[name+"-array"]
		str := c.stringText(ctx).state(0)
		member := seq(ref(strRule), lit(": "), ref(value))
		want := map[int]*expr{
			strRule: seq(lit(`"`), str, lit(`"`)),
			obj:     seq(lit("{"), opt(seq(member, star(seq(lit(", "), member)))), lit("}")),
			arr:     seq(lit("["), opt(seq(ref(value), star(seq(lit(", "), ref(value))))), lit("]")),
			value:   alt(ref(obj), ref(arr), ref(strRule), ref(c.numRule), lit("true"), lit("false"), lit("null")),
		}
		for r, w := range want {
			if got, want := string(appendExpr(nil, c.g.nameOf, c.g.rules[r].body, false)), string(appendExpr(nil, c.g.nameOf, w, false)); got != want {
				t.Errorf("%s: %s, want %s", c.g.rules[r].name, got, want)
			}
		}
		// Its allocations, beside those of the rules' names and text.
		setup := func() *compiler {
			c := &compiler{}
			c.g.buf = make([]byte, 0, 4096)
			c.g.rules = make([]rule, 0, 128)
			c.g.spans = make([]span, 0, 128)
			c.stringText(ctx)
			c.numberRule()
			return c
		}
		base := testing.AllocsPerRun(20, func() { setup() })
		with := testing.AllocsPerRun(20, func() { setup().anyJSON(ctx) })
		if n := with - base; n > 8 {
			t.Errorf("%v allocations", n)
		}
	}
}
