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

// anyJSON's rules are a proto, built once: its rules are those of the
// package doc, referring to the string contents' and number's protos.
func TestAnyJSONExprs(t *testing.T) {
	for _, ctx := range []textContext{inContent, inArgument} {
		p := jsonProto(ctx)
		name := map[textContext]string{inContent: "json", inArgument: "argjson"}[ctx]
		want := name + ` ::= ` + name + `-object | ` + name + `-array | ` + name + `-string | number | "true" | "false" | "null"
` + name + `-string ::= "\"" ` + stringLang(ctx).p.names[0] + ` "\""
` + name + `-object ::= "{" (` + name + `-string ": " ` + name + ` (", " ` + name + `-string ": " ` + name + `)*)? "}"
` + name + `-array ::= "[" (` + name + ` (", " ` + name + `)*)? "]"
`
		if got, _ := p.written(); got != want {
			t.Errorf("%s's rules:\n%s\nwant\n%s", name, got, want)
		}
		// Adding them to a grammar allocates nothing but the grammar's
		// own bookkeeping.
		c := &compiler{}
		c.stringText(ctx)
		c.numberRule()
		if n := testing.AllocsPerRun(20, func() { c.anyRef[ctx] = nil; c.anyJSON(ctx) }); n > 1 {
			t.Errorf("%v allocations", n)
		}
	}
}
