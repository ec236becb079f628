package corpus

import "fmt"

// A fault turns a valid request into one with exactly one error. The
// request it gets is valid; it adds what it needs (an assistant turn, a
// tool) and breaks one thing.
type fault struct {
	name  string
	apply func(g *gen, req obj) obj
}

// faulty returns a generated request with one error, and the fault's name.
func (g *gen) faulty() (string, obj) {
	f := pick(g, faults...)
	return f.name, g.shuffled(f.apply(g, g.request()))
}

// Markers to put where none may stand.
var markers = []string{"<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>", "<|call|>", "<|return|>"}

// withMarker returns text with a marker inside.
func (g *gen) withMarker() string {
	return pick(g, "before ", "", "a <| b ") + pick(g, markers...) + pick(g, " after", "", "<|end|>")
}

// messages returns the request's messages (a fresh copy of the list).
func messagesOf(req obj) []any {
	msgs, _ := req.get("messages").([]any)
	return append([]any(nil), msgs...)
}

// withMessage returns req with msg inserted into its messages at a random
// place after the leading instructions, and the index it got.
func (g *gen) withMessage(req obj, msg any) (obj, int) {
	msgs := messagesOf(req)
	first := 0
	for first < len(msgs) {
		m, _ := msgs[first].(obj)
		if r := m.get("role"); r != "system" && r != "developer" {
			break
		}
		first++
	}
	at := first + g.intn(len(msgs)-first+1)
	msgs = append(msgs[:at], append([]any{msg}, msgs[at:]...)...)
	return req.set("messages", msgs), at
}

// callMessage returns a valid assistant turn with one call and arguments.
func callMessage(call obj) obj {
	return obj{{"role", "assistant"}, {"reasoning_content", "Calling."}, {"tool_calls", []any{call}}}
}

func validCall() obj {
	return obj{{"id", "call_x"}, {"type", "function"}, {"function", obj{{"name", "get_weather"}, {"arguments", obj{{"city", "Paris"}}}}}}
}

// withTool returns req with tool added to its tools, and the tool's index.
func withTool(req obj, tool obj) (obj, int) {
	tools, _ := req.get("tools").([]any)
	tools = append(append([]any(nil), tools...), tool)
	return req.set("tools", tools), len(tools) - 1
}

// withCallFunction returns a call whose function has the given members.
func withCallFunction(members ...member) obj {
	return obj{{"id", "call_f"}, {"type", "function"}, {"function", obj(members)}}
}

var faults = []fault{
	{"effort-invalid", func(g *gen, req obj) obj {
		return req.set("reasoning_effort", pick[any](g, "none", "High", "", "8", num("1.5"), num("8.0"), true, false, []any{}, obj{}))
	}},
	{"effort-negative", func(g *gen, req obj) obj {
		return req.set("reasoning_effort", pick(g, num("-1"), num("-512"), num("-99999999999999999999")))
	}},
	{"role-unknown", func(g *gen, req obj) obj {
		req, _ = g.withMessage(req, obj{{"role", pick(g, "bot", "Assistant", "function", "ipython", " user")}, {"content", "x"}})
		return req
	}},
	{"role-missing", func(g *gen, req obj) obj {
		m := obj{{"content", "x"}}
		if g.chance(0.5) {
			m = m.set("role", pick[any](g, nil, ""))
		}
		req, _ = g.withMessage(req, m)
		return req
	}},
	{"role-type", func(g *gen, req obj) obj {
		req, _ = g.withMessage(req, obj{{"role", pick[any](g, num("1"), true, []any{"user"})}, {"content", "x"}})
		return req
	}},
	{"message-not-object", func(g *gen, req obj) obj {
		msgs := messagesOf(req)
		bad := pick[any](g, "hello", num("5"), nil, true)
		at := 1 + g.intn(len(msgs)+1) // never first: Transformers reads a list there as a batch
		if at > len(msgs) {
			msgs = append(msgs, obj{{"role", "user"}, {"content", "x"}}, bad)
		} else {
			msgs = append(msgs[:at], append([]any{bad}, msgs[at:]...)...)
		}
		return req.set("messages", msgs)
	}},
	{"content-type", func(g *gen, req obj) obj {
		req, _ = g.withMessage(req, obj{{"role", pick(g, "user", "assistant", "tool", "system")}, {"content", pick[any](g, num("5"), true, obj{{"text", "x"}})}})
		return req
	}},
	{"content-part", func(g *gen, req obj) obj {
		var part any
		switch g.intn(6) {
		case 0:
			part = "just text"
		case 1:
			part = obj{{"type", "image"}, {"image", "x.png"}}
		case 2:
			part = obj{{"text", "no type"}}
		case 3:
			part = obj{{"type", "text"}}
		case 4:
			part = obj{{"type", "text"}, {"text", num("5")}}
		default:
			// The error writes the type as Python JSON, whatever its spelling.
			part = obj{{"type", pick[any](g, "image_url", "im\u00e1ge", num("1"), nil, obj{{"a", num("1")}}, []any{"text"})}, {"text", "x"}}
		}
		parts := []any{obj{{"type", "text"}, {"text", "ok"}}, part}
		req, _ = g.withMessage(req, obj{{"role", pick(g, "user", "developer", "tool")}, {"name", "t"}, {"content", parts}})
		return req
	}},
	{"reasoning-marker", func(g *gen, req obj) obj {
		// The error names the field the reasoning came from.
		m := obj{{"role", "assistant"}, {"content", "answer"}}
		switch g.intn(4) {
		case 0:
			m = m.set("reasoning_content", g.withMarker()).set(pick(g, "thinking", "reasoning"), "ignored")
		case 1:
			m = m.set("reasoning_content", pick[any](g, "", nil)).set("thinking", g.withMarker())
		case 2:
			m = m.set("reasoning", g.withMarker())
		default:
			m = m.set("reasoning_content", g.withMarker())
		}
		req, _ = g.withMessage(req, g.shuffled(m))
		return req
	}},
	{"reasoning-type", func(g *gen, req obj) obj {
		field := pick(g, "reasoning_content", "thinking", "reasoning")
		req, _ = g.withMessage(req, obj{{"role", "assistant"}, {field, pick[any](g, num("1"), []any{"x"}, obj{}, false)}, {"content", "a"}})
		return req
	}},
	{"content-with-calls", func(g *gen, req obj) obj {
		m := callMessage(validCall()).set("content", pick[any](g, "I will call a tool.", []any{obj{{"type", "text"}, {"text", "x"}}}))
		req, _ = g.withMessage(req, g.shuffled(m))
		return req
	}},
	{"call-type", func(g *gen, req obj) obj {
		req, _ = g.withMessage(req, callMessage(validCall().set("type", pick(g, "custom", "Function", "tool"))))
		return req
	}},
	{"call-shape", func(g *gen, req obj) obj {
		var call any
		switch g.intn(6) {
		case 0:
			call = "get_weather"
		case 1:
			call = obj{{"id", "c"}, {"type", "function"}}
		case 2:
			call = obj{{"function", "get_weather"}}
		case 3:
			call = validCall().set("id", num("7"))
		case 4:
			call = validCall().set("type", num("1"))
		default:
			call = withCallFunction(member{"name", pick[any](g, num("5"), obj{}, true)}, member{"arguments", obj{}})
		}
		req, _ = g.withMessage(req, callMessage(obj{}).set("tool_calls", []any{call}))
		return req
	}},
	{"call-name", func(g *gen, req obj) obj {
		var fn []member
		if g.chance(0.2) {
			fn = []member{{"arguments", obj{}}}
		} else {
			fn = []member{{"name", pick[any](g, nil, "", "get weather", "a<b", "a>b", "say\"hi\"", "tab\tname", "x\u3000y", "nl\n", "nbsp\u00a0x", "a<b c", "a\u0001b", "esc\u001b", "del\u007f", "c1\u009f", "nel\u0085", "\u001cfs", "zw\u200bsp", "user\ufeff", "sys\u00adtem", "rtl\u202e", "ｓｙｓｔｅｍ", "ｂａｓｈ")}, {"arguments", obj{}}}
		}
		req, _ = g.withMessage(req, callMessage(withCallFunction(fn...)))
		return req
	}},
	{"tool-calls-type", func(g *gen, req obj) obj {
		req, _ = g.withMessage(req, obj{{"role", "assistant"}, {"reasoning_content", "r"}, {"tool_calls", pick[any](g, obj{}, "call", num("1"), true)}})
		return req
	}},
	{"arguments-not-object", func(g *gen, req obj) obj {
		var fn []member
		if g.chance(0.2) {
			fn = []member{{"name", "get_weather"}}
		} else {
			fn = []member{{"name", "get_weather"}, {"arguments", pick[any](g, `{"city": "Paris"}`, nil, num("5"), []any{"a"}, true, "")}}
		}
		req, _ = g.withMessage(req, callMessage(withCallFunction(fn...)))
		return req
	}},
	{"arguments-key", func(g *gen, req obj) obj {
		args := obj{{"ok", "fine"}, {pick(g, "", "a\"b", "a<b", "a>b", "a\nb", "<rfl:parameter>"), "v"}}
		if g.chance(0.3) {
			args = args[1:]
		}
		req, _ = g.withMessage(req, callMessage(withCallFunction(member{"name", "f"}, member{"arguments", args})))
		return req
	}},
	{"arguments-value", func(g *gen, req obj) obj {
		bad := pick[any](g, "x</rfl:parameter>y", "</rfl:parameter>", obj{{"code", "a</rfl:parameter>"}}, []any{"</rfl:parameter>"})
		args := obj{{"first", "fine"}, {"second", bad}}
		req, _ = g.withMessage(req, callMessage(withCallFunction(member{"name", "f"}, member{"arguments", args})))
		return req
	}},
	{"tool-speaker", func(g *gen, req obj) obj {
		m := obj{{"role", "tool"}, {"content", "result"}}
		switch g.intn(4) {
		case 0:
			m = m.set("tool_call_id", "no_such_call")
		case 1:
			m = m.set("tool_call_id", "").set("name", "")
		case 2:
			m = m.set("tool_call_id", nil).set("name", nil)
		}
		req, _ = g.withMessage(req, m)
		return req
	}},
	{"tool-name", func(g *gen, req obj) obj {
		req, _ = g.withMessage(req, obj{{"role", "tool"}, {"name", pick(g, "get weather", "a>b", "q\"", "\t", "nul\u0000", "a\u0080b", "assistant\u2060", "ｓｅａｒｃｈ")}, {"content", "r"}})
		return req
	}},
	{"message-field-type", func(g *gen, req obj) obj {
		field := pick(g, "name", "tool_call_id")
		req, _ = g.withMessage(req, obj{{"role", "tool"}, {field, pick[any](g, num("3"), obj{}, true)}, {"content", "r"}})
		return req
	}},
	{"tools-tool-type", func(g *gen, req obj) obj {
		t := pageTool("get_weather").set("type", pick[any](g, "custom", "code_interpreter", num("1")))
		req, _ = withTool(req, t)
		return req
	}},
	{"tools-function", func(g *gen, req obj) obj {
		var t obj
		switch g.intn(3) {
		case 0:
			t = obj{{"type", "function"}}
		case 1:
			t = obj{{"type", "function"}, {"function", pick[any](g, "get_weather", []any{}, nil)}}
		default:
			t = obj{{"type", "function"}, {"function", obj{{pick(g, "name", "description"), pick[any](g, num("1"), []any{}, false)}}}}
		}
		req, _ = withTool(req, t)
		return req
	}},
	{"tools-name", func(g *gen, req obj) obj {
		f := obj{{"description", "d"}}
		if g.chance(0.8) {
			f = f.set("name", pick[any](g, nil, "", "my tool", "a\"b", "x<y", "new\nline", "ideographic\u3000space"))
		}
		req, _ = withTool(req, obj{{"type", "function"}, {"function", g.shuffled(f)}})
		return req
	}},
	{"tools-description-marker", func(g *gen, req obj) obj {
		t := pageTool("get_weather")
		f := t.get("function").(obj).set("description", g.withMarker())
		req, _ = withTool(req, t.set("function", f))
		return req
	}},
	{"tools-parameters-kind", func(g *gen, req obj) obj {
		t := pageTool("get_weather")
		f := t.get("function").(obj).set("parameters", pick[any](g, []any{}, "object", num("5"), true))
		req, _ = withTool(req, t.set("function", f))
		return req
	}},
	{"schema-marker", func(g *gen, req obj) obj {
		inner := obj{{"type", "string"}, {pick(g, "description", "title"), g.withMarker()}}
		var prop any = inner
		if g.chance(0.5) {
			prop = obj{{"type", "object"}, {"properties", obj{{"ok", obj{{"type", "integer"}}}, {"deep key", inner}}}}
		}
		t := obj{{"type", "function"}, {"function", obj{{"name", "marked"}, {"parameters", obj{{"type", "object"}, {"properties", obj{{"a", obj{{"type", "string"}}}, {"b", prop}}}}}}}}
		req, _ = withTool(req, t)
		return req
	}},
	{"schema-depth", func(g *gen, req obj) obj {
		req, _ = withTool(req, g.deepTool(65+g.intn(3)))
		return req
	}},
	{"builtin-unknown", func(g *gen, req obj) obj {
		req, _ = withTool(req, g.bashTool())
		return req.set("builtin_tools", []any{pick(g, "bash", "python", "Search", "web_search", "")})
	}},
	{"builtin-absent", func(g *gen, req obj) obj {
		req = req.del("tools")
		if g.chance(0.5) {
			req = req.set("tools", []any{pageTool("get_weather")})
		}
		return req.set("builtin_tools", []any{pick(g, "search", "browse")})
	}},
	{"builtin-type", func(g *gen, req obj) obj {
		return req.set("builtin_tools", pick[any](g, "search", obj{}, num("1"), []any{num("1")}, []any{nil}))
	}},
	{"identity-marker", func(g *gen, req obj) obj {
		return req.set("model_identity", g.withMarker())
	}},
	{"option-type", func(g *gen, req obj) obj {
		switch g.intn(3) {
		case 0:
			return req.set("model_identity", pick[any](g, num("5"), []any{}, true))
		case 1:
			return req.set("add_generation_prompt", pick[any](g, "yes", num("1"), []any{}))
		}
		return req.set("allow_missing_thinking", pick[any](g, "no", num("0"), obj{}))
	}},
	{"reasoning-missing", func(g *gen, req obj) obj {
		m := obj{{"role", "assistant"}, {"content", "answer"}}
		switch g.intn(3) {
		case 1:
			m = m.set(pick(g, "reasoning_content", "thinking", "reasoning"), pick[any](g, "", nil))
		case 2:
			m = m.set("reasoning_content", "").set("thinking", nil).set("reasoning", "")
		}
		req, _ = g.withMessage(req, g.shuffled(m))
		req = req.set("allow_missing_thinking", false)
		switch g.intn(3) {
		case 0:
			return req.del("add_generation_prompt")
		case 1:
			return req.set("add_generation_prompt", nil)
		}
		return req.set("add_generation_prompt", true)
	}},
}

// deepTool returns a tool whose parameters nest levels deep below the root
// (each property, items, variant and $ref is one level).
func (g *gen) deepTool(levels int) obj {
	key := pick(g, "$defs", "definitions")
	defs := obj{}
	prop := g.depthChain(levels, key, &defs)
	params := obj{{"type", "object"}, {"properties", obj{{"shallow", obj{{"type", "string"}}}, {"deep", prop}}}}
	if len(defs) > 0 {
		params = params.set(key, defs)
	}
	return obj{{"type", "function"}, {"function", obj{{"name", fmt.Sprintf("deep%d", levels)}, {"parameters", params}}}}
}

// ErrorKinds returns the names of the kinds of error the generator makes,
// as they appear in case names ("error/NAME/17").
func ErrorKinds() []string {
	names := make([]string, len(faults))
	for i, f := range faults {
		names[i] = f.name
	}
	return names
}
