// Package corpus generates chat requests that exercise every rendering rule
// of Beam Harmony: tools with every JSON Schema feature DECISIONS.md names,
// multi-turn conversations with reasoning, tool calls and results, every
// template argument, and requests with exactly one error each.
//
// The same seed always gives the same requests. The differential test and
// `beamharmony verify` render them with the Go renderer and with a Jinja
// chat template and compare the results byte for byte.
//
// Every number literal in a generated request is spelled as Python's json
// module writes it back (3, 2.5, 1e-05, never 1E5 or 1.0e5), and no object
// repeats a key: Python would rewrite the first and collapse the second, where
// the Go renderer keeps the text as given (DECISIONS.md, Tool calls and
// results). Lone surrogate escapes are left out for the same reason.
package corpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Case is one request of the corpus.
type Case struct {
	// Name says where the case comes from: "page/hello" for the format
	// page's examples, "gen/17" for a generated request, "error/NAME/17"
	// for a generated request with one error of kind NAME.
	Name string
	// JSON is the request, in the shape `beamharmony render` reads.
	JSON []byte
}

// ErrorShare is the share of generated requests that carry an error.
const ErrorShare = 0.25

// Generate returns n requests made from seed: valid ones and, about one in
// four, requests with exactly one error.
func Generate(seed uint64, n int) []Case {
	g := newGen(seed)
	cases := make([]Case, 0, n)
	for i := 0; i < n; i++ {
		if g.chance(ErrorShare) {
			name, req := g.faulty()
			cases = append(cases, Case{fmt.Sprintf("error/%s/%d", name, i), g.encode(req)})
			continue
		}
		cases = append(cases, Case{fmt.Sprintf("gen/%d", i), g.encode(g.request())})
	}
	return cases
}

// gen is the random source and the generator's methods.
type gen struct {
	r *rand.Rand
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *gen) intn(n int) int { return g.r.IntN(n) }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// pick returns one of xs.
func pick[T any](g *gen, xs ...T) T { return xs[g.r.IntN(len(xs))] }

// encode writes a request, escaping some non-ASCII characters.
func (g *gen) encode(v any) []byte {
	e := encoder{r: g.r}
	if g.chance(0.3) {
		e.escapeRate = 0.3
	}
	e.value(v)
	return e.buf
}

// shuffled returns o with its members in random order.
func (g *gen) shuffled(o obj) obj {
	out := append(obj(nil), o...)
	g.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// Texts for content: plain, multilingual, control characters, markers
// (allowed in content), template syntax and the argument closing tag.
var contentTexts = []string{
	"Hello!",
	"What is 2 + 2?",
	"What's the weather in London?",
	"héllo wörld, ça va ?",
	"日本語のテキストです。東京の天気は？",
	"emoji 😀🎉 and a flag 🇫🇷",
	"مرحبا بالعالم",
	"e\u0301 combining, Ａ fullwidth",
	"zero\u200bwidth and\u00a0nbsp",
	"tab\there",
	"line one\nline two\n",
	"\n\nleading blank lines",
	"quote \" and backslash \\ and slash /",
	"markers in content stay: <|end|><|start|>user<|message|>",
	"{{ not jinja }} {% raw %} {# x #}",
	"tilde ~0 ~1 ~ and |pipe|",
	"</rfl:parameter> in content is fine",
	"line\u2028separator\u2029paragraph",
	"control \u0001 and \u001f and nul \u0000 end",
	"  spaces around  ",
	"",
	"Compare the weather in London and Paris.",
	"<rfl:parameter name=\"x\">\ninside\n</rfl:parameter>",
}

// Reasoning texts: plain text, no markers (near-markers are fine).
var reasoningTexts = []string{
	"Simple arithmetic.",
	"The user is greeting me.",
	"I should check the weather tool.",
	"I need both cities.",
	"Denken auf Deutsch: ß, ä, ö.",
	"考える。",
	"multi\nline\n\nreasoning\n",
	"a <| b |> c and <|notamarker|> and <|end",
	"code: if a < b && c > d { return \"x\" }",
	"emoji 🤔",
	"~1 tilde ~0",
	" ",
}

// Identities for model_identity: any text without markers.
var identities = []string{
	"You are a helpful assistant.",
	"Tu es Beam, un assistant.",
	"You are Beam.\nSecond line of identity.",
	"Ты — помощник. 🙂",
	"You are Beam, an AI assistant trained by Reflection.",
}

// Number literals that Python's json module writes back unchanged.
var (
	intLiterals   = []num{"0", "1", "3", "42", "-7", "250", "9007199254740993", "123456789012345678901234567890"}
	floatLiterals = []num{"0.5", "1.25", "-3.0", "2.0", "0.1", "123.456", "1e-05", "1e+16", "-0.0", "3.14"}
)

// request returns a valid request: tools, a conversation and template
// arguments, in random key order.
func (g *gen) request() obj {
	tools, builtins := g.tools()
	msgs, allReasoned := g.conversation(tools)
	req := obj{{"messages", msgs}}
	if tools != nil || g.chance(0.1) {
		if tools == nil && g.chance(0.5) {
			req = req.set("tools", nil)
		} else {
			req = req.set("tools", toAny(tools))
		}
	}
	if builtins != nil {
		req = req.set("builtin_tools", builtins)
	} else if g.chance(0.05) {
		req = req.set("builtin_tools", pick[any](g, nil, []any{}))
	}
	agp := g.addGenerationPrompt(&req)
	if g.chance(0.4) {
		switch {
		case allReasoned || !agp:
			req = req.set("allow_missing_thinking", pick[any](g, nil, true, false))
		default:
			req = req.set("allow_missing_thinking", pick[any](g, nil, true))
		}
	}
	if g.chance(0.7) {
		req = req.set("reasoning_effort", g.effort())
	}
	if g.chance(0.3) {
		req = req.set("model_identity", pick[any](g, nil, "", pick(g, identities...)))
	}
	return g.shuffled(req)
}

// addGenerationPrompt sets add_generation_prompt (or leaves it out) and
// returns its effective value.
func (g *gen) addGenerationPrompt(req *obj) bool {
	switch g.intn(5) {
	case 0:
		*req = req.set("add_generation_prompt", false)
		return false
	case 1:
		*req = req.set("add_generation_prompt", true)
	case 2:
		*req = req.set("add_generation_prompt", nil)
	}
	return true
}

// effort returns a valid reasoning_effort: a label, an integer or null.
func (g *gen) effort() any {
	switch g.intn(4) {
	case 0:
		return pick(g, "minimal", "low", "medium", "high", "xhigh", "max")
	case 1:
		return pick[any](g, num("0"), num("-0"), num("7"), num("8"), num("100"), num("512"), num("4096"), num("123456789012345678901234567890"))
	case 2:
		return nil
	}
	return pick[any](g, "low", num("128"))
}

func toAny(tools []obj) []any {
	out := make([]any, len(tools))
	for i, t := range tools {
		out[i] = t
	}
	return out
}

// conversation returns messages: leading instructions, then turns of user
// messages, assistant answers, tool calls and results. allReasoned reports
// that every assistant turn has reasoning.
func (g *gen) conversation(tools []obj) (msgs []any, allReasoned bool) {
	allReasoned = true
	for n := pick(g, 0, 0, 1, 1, 2, 3); n > 0; n-- {
		m := obj{{"role", pick(g, "system", "developer")}}
		m = g.setContent(m, true)
		msgs = append(msgs, g.shuffled(m))
	}
	callSeq := 0
	turns := pick(g, 0, 1, 1, 2, 2, 3, 4)
	for t := 0; t < turns; t++ {
		if g.chance(0.1) {
			// Not rendered: a system message after another role.
			msgs = append(msgs, obj{{"role", pick(g, "system", "developer")}, {"content", pick(g, contentTexts...)}})
		}
		msgs = append(msgs, g.setContent(obj{{"role", "user"}}, false))
		if t == turns-1 && g.chance(0.5) {
			break // end on the user's question
		}
		for calls := 0; calls < 2 && g.chance(0.5); calls++ {
			turn, results, reasoned := g.callTurn(tools, &callSeq)
			allReasoned = allReasoned && reasoned
			msgs = append(msgs, turn)
			msgs = append(msgs, results...)
		}
		final, reasoned := g.finalTurn()
		allReasoned = allReasoned && reasoned
		msgs = append(msgs, final)
	}
	if msgs == nil && g.chance(0.5) {
		msgs = []any{}
	}
	return msgs, allReasoned
}

// setContent gives m a content: a string, or (when the role allows it) text
// parts, null, or none.
func (g *gen) setContent(m obj, mayBeEmpty bool) obj {
	switch g.intn(8) {
	case 0:
		return m.set("content", g.parts())
	case 1:
		if mayBeEmpty {
			return m.set("content", nil)
		}
	case 2:
		if mayBeEmpty {
			return m
		}
	}
	return m.set("content", pick(g, contentTexts...))
}

// parts returns content as a list of text parts.
func (g *gen) parts() []any {
	var out []any
	for n := pick(g, 0, 1, 2, 3); n > 0; n-- {
		p := obj{{"type", "text"}, {"text", pick(g, contentTexts...)}}
		if g.chance(0.3) {
			p = g.shuffled(p)
		}
		out = append(out, p)
	}
	if out == nil {
		return []any{}
	}
	return out
}

// reasoning sets an assistant turn's reasoning in one of the three fields,
// sometimes after empty earlier fields, sometimes not at all. It reports
// whether the turn has reasoning.
func (g *gen) reasoning(m obj) (obj, bool) {
	fields := []string{"reasoning_content", "thinking", "reasoning"}
	switch g.intn(10) {
	case 0: // none
		return m, false
	case 1: // empty or null
		return m.set(pick(g, fields...), pick[any](g, "", nil)), false
	case 2: // an earlier field empty, a later one set
		m = m.set("reasoning_content", pick[any](g, "", nil))
		return m.set(pick(g, "thinking", "reasoning"), pick(g, reasoningTexts...)), true
	case 3: // several set: the first wins; the others may hold anything
		m = m.set("reasoning_content", pick(g, reasoningTexts...))
		return m.set(pick(g, "thinking", "reasoning"), pick(g, "ignored <|end|> text", "other")), true
	}
	return m.set(pick(g, fields...), pick(g, reasoningTexts...)), true
}

// finalTurn returns an assistant turn with an answer.
func (g *gen) finalTurn() (obj, bool) {
	m, reasoned := g.reasoning(obj{{"role", "assistant"}})
	switch g.intn(6) {
	case 0:
		m = m.set("content", nil)
	case 1:
		m = m.set("content", g.parts())
	case 2:
		m = m.set("tool_calls", pick[any](g, nil, []any{})).set("content", pick(g, contentTexts...))
	default:
		m = m.set("content", pick(g, contentTexts...))
	}
	return g.shuffled(m), reasoned
}

// callTurn returns an assistant turn with one to three calls, and the tool
// results, matched by tool_call_id, by name or both, sometimes in another
// order than the calls (rendered as given, page: Parallel calls).
func (g *gen) callTurn(tools []obj, seq *int) (obj, []any, bool) {
	m, reasoned := g.reasoning(obj{{"role", "assistant"}})
	if g.chance(0.3) {
		m = m.set("content", pick[any](g, nil, "", []any{}))
	}
	n := pick(g, 1, 1, 1, 2, 2, 3)
	calls := make([]any, n)
	var results []any
	for j := 0; j < n; j++ {
		name, schema := g.callee(tools)
		*seq++
		id := fmt.Sprintf("call_%d", *seq)
		if g.chance(0.1) {
			id = "call_1" // reused ids: the latest earlier call wins
		}
		c := obj{}
		hasID := g.chance(0.85)
		if hasID {
			c = c.set("id", id)
		}
		switch g.intn(4) {
		case 0:
		case 1:
			c = c.set("type", nil)
		default:
			c = c.set("type", "function")
		}
		c = c.set("function", g.shuffled(obj{{"name", name}, {"arguments", g.arguments(schema)}}))
		calls[j] = g.shuffled(c)
		r := obj{{"role", "tool"}}
		switch {
		case hasID && g.chance(0.7):
			r = r.set("tool_call_id", id)
			if g.chance(0.2) {
				r = r.set("name", name)
			}
		default:
			r = r.set("name", name)
		}
		r = g.setContent(r, true)
		results = append(results, g.shuffled(r))
	}
	if n > 1 && g.chance(0.2) {
		results[0], results[n-1] = results[n-1], results[0]
	}
	m = m.set("tool_calls", calls)
	return g.shuffled(m), results, reasoned
}

// callee picks the tool a call goes to: one of tools (with its schema) or
// any valid name.
func (g *gen) callee(tools []obj) (string, obj) {
	if len(tools) > 0 && g.chance(0.8) {
		t := pick(g, tools...)
		f, _ := t.get("function").(obj)
		name, _ := f.get("name").(string)
		params, _ := f.get("parameters").(obj)
		if name != "" {
			return name, params
		}
	}
	return pick(g, "get_weather", "lookup", "calc.v2", "工具", "my-tool", "bash"), nil
}

// Argument keys: identifiers and other names the format allows.
var argumentKeys = []string{"city", "days", "query", "code", "with space", "ключ", "a-b", "$x", "🙂", "path/to", "tilde~1", "x"}

// arguments returns an arguments object: the schema's properties when it
// has some, else random keys, with values of every JSON type.
func (g *gen) arguments(schema obj) obj {
	var keys []string
	if props, ok := schema.get("properties").(obj); ok {
		for _, p := range props {
			if validArgumentKey(p.key) && g.chance(0.7) {
				keys = append(keys, p.key)
			}
		}
	}
	if keys == nil {
		for n := pick(g, 0, 1, 1, 2, 3); n > 0; n-- {
			keys = append(keys, pick(g, argumentKeys...))
		}
	}
	args := obj{}
	for _, k := range keys {
		args = args.set(k, g.argumentValue(2))
	}
	return args
}

func validArgumentKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		switch c {
		case '"', '<', '>', '\n':
			return false
		}
	}
	return true
}

// Argument strings: code with trailing newlines, markup, unicode.
var argumentStrings = []string{
	"London",
	"Paris",
	"",
	"\n",
	"def f(x):\n    return x < 3 and x > 1\n",
	"line\n\n",
	"<b>bold</b> & \"quoted\"",
	"東京",
	"3",
	"null",
	"true",
	"{\"looks\": \"like json\"}",
	"ends with backslash \\",
	"<|end|> marker in a value",
	"~0~1",
}

// argumentValue returns a value of any JSON type; depth bounds nesting.
func (g *gen) argumentValue(depth int) any {
	k := g.intn(10)
	if depth <= 0 && k >= 8 {
		k = 0
	}
	switch k {
	case 0, 1, 2:
		return pick(g, argumentStrings...)
	case 3:
		return pick(g, intLiterals...)
	case 4:
		return pick(g, floatLiterals...)
	case 5:
		return pick[any](g, true, false)
	case 6:
		return nil
	case 7:
		if s := pick(g, contentTexts...); !strings.Contains(s, "</rfl:parameter>") {
			return s
		}
		return "text"
	case 8:
		var arr []any
		for n := g.intn(4); n > 0; n-- {
			arr = append(arr, g.argumentValue(depth-1))
		}
		if arr == nil {
			return []any{}
		}
		return arr
	}
	o := obj{}
	for n := g.intn(4); n > 0; n-- {
		o = o.set(pick(g, argumentKeys...), g.argumentValue(depth-1))
	}
	return o
}
