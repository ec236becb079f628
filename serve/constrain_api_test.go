package serve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/grammar"
)

// decodeFor decodes body as the API's request.
func decodeFor(t *testing.T, api, body string) (*request, *apiError) {
	t.Helper()
	s, err := New(Config{Backend: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	switch api {
	case "chat":
		return decodeChatRequest([]byte(body), &s.cfg)
	case "messages":
		m, aerr := decodeMessagesRequest([]byte(body), s, false, "")
		if aerr != nil {
			return nil, aerr
		}
		return m.req, nil
	}
	rr, aerr := decodeResponsesRequest([]byte(body), s, "")
	if aerr != nil {
		return nil, aerr
	}
	return rr.req, nil
}

// requestSpec is the grammar spec of a decoded request.
func requestSpec(r *request) *grammar.Spec {
	var tools []toolSchema
	for _, t := range r.opts.Tools {
		tools = append(tools, toolSchema{t.Function.Name, t.Function.Parameters})
	}
	return r.constraint.spec(tools)
}

// TestConstraintDecoding checks what each API's constraint fields decode
// to: the tool choice, parallel calls, strict tools, the response format,
// which tools are declared, and the request paths errors will name.
func TestConstraintDecoding(t *testing.T) {
	other := `{"type":"object","properties":{"q":{"type":"string"}}}`
	chatTools := func(extra string) string {
		return `{"model":"beam","tools":[{"type":"function","function":{"name":"get_weather","parameters":` + weatherParams + `}},` +
			`{"type":"function","function":{"name":"other","strict":true,"parameters":` + other + `}}],` + extra + `"messages":[{"role":"user","content":"Hi"}]}`
	}
	msgTools := func(extra string) string {
		return `{"model":"beam","max_tokens":9,"tools":[{"name":"get_weather","input_schema":` + weatherParams + `},` +
			`{"name":"other","strict":true,"input_schema":` + other + `}],` + extra + `"messages":[{"role":"user","content":"Hi"}]}`
	}
	respTools := func(extra string) string {
		return `{"model":"beam","tools":[{"type":"function","name":"get_weather","parameters":` + weatherParams + `},` +
			`{"type":"function","name":"other","strict":true,"parameters":` + other + `}],` + extra + `"input":"Hi"}`
	}
	type want struct {
		choice      grammar.Choice
		name        string
		parallel    bool
		format      string // "": none, "object": json_object, else the schema
		strictFmt   bool
		tools       string // declared tools, comma-separated
		strict      string // their strict flags, as 0 and 1
		schemas     string // their schemas' request paths
		constrained bool
		maxCalls    int
	}
	for _, tt := range []struct {
		name, api, body string
		want            want
	}{
		{"chat auto, a strict tool", "chat", chatTools(""), want{grammar.Auto, "", true, "", false, "get_weather,other", "01",
			"tools[0].function.parameters,tools[1].function.parameters", true, 0}},
		{"chat none", "chat", chatTools(`"tool_choice":"none",`), want{grammar.None, "", true, "", false, "", "", "", false, 0}},
		{"chat required, one call", "chat", chatTools(`"tool_choice":"required","parallel_tool_calls":false,`), want{grammar.Required, "", false, "", false,
			"get_weather,other", "01", "tools[0].function.parameters,tools[1].function.parameters", true, 1}},
		{"chat named", "chat", chatTools(`"tool_choice":{"type":"function","function":{"name":"other"}},`), want{grammar.Named, "other", true, "", false,
			"get_weather,other", "01", "tools[0].function.parameters,tools[1].function.parameters", true, 0}},
		{"chat allowed_tools required", "chat", chatTools(`"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"get_weather"}}]}},`),
			want{grammar.Required, "", true, "", false, "get_weather", "0", "tools[0].function.parameters", true, 0}},
		{"chat allowed_tools auto", "chat", chatTools(`"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"get_weather"}}]}},`),
			want{grammar.Auto, "", true, "", false, "get_weather", "0", "tools[0].function.parameters", false, 0}},
		{"chat json_schema, not strict", "chat", chatTools(`"tool_choice":"none","response_format":{"type":"json_schema","json_schema":{"name":"a","schema":` + answerSchema + `}},`),
			want{grammar.None, "", true, answerSchema, false, "", "", "", true, 0}},
		{"chat json_schema without schema", "chat", chatTools(`"tool_choice":"none","response_format":{"type":"json_schema","json_schema":{"name":"a","strict":true}},`),
			want{grammar.None, "", true, "{}", true, "", "", "", true, 0}},
		{"chat text", "chat", chatTools(`"tool_choice":"none","response_format":{"type":"text"},`), want{grammar.None, "", true, "", false, "", "", "", false, 0}},
		{"messages any, one call", "messages", msgTools(`"tool_choice":{"type":"any","disable_parallel_tool_use":true},`), want{grammar.Required, "", false, "", false,
			"get_weather,other", "01", "tools[0].input_schema,tools[1].input_schema", true, 1}},
		{"messages tool", "messages", msgTools(`"tool_choice":{"type":"tool","name":"get_weather"},`), want{grammar.Named, "get_weather", true, "", false,
			"get_weather,other", "01", "tools[0].input_schema,tools[1].input_schema", true, 0}},
		{"messages none", "messages", msgTools(`"tool_choice":{"type":"none"},`), want{grammar.None, "", true, "", false, "", "", "", false, 0}},
		{"messages output_config.format", "messages", msgTools(`"tool_choice":{"type":"none"},"output_config":{"effort":"low","format":{"type":"json_schema","schema":` + answerSchema + `}},`),
			want{grammar.None, "", true, answerSchema, true, "", "", "", true, 0}},
		{"messages output_format", "messages", msgTools(`"output_format":{"type":"json_schema","schema":` + answerSchema + `},`),
			want{grammar.Auto, "", true, answerSchema, true, "get_weather,other", "01", "tools[0].input_schema,tools[1].input_schema", true, 0}},
		{"responses required", "responses", respTools(`"tool_choice":"required",`), want{grammar.Required, "", true, "", false,
			"get_weather,other", "01", "tools[0].parameters,tools[1].parameters", true, 0}},
		{"responses named, one call", "responses", respTools(`"tool_choice":{"type":"function","name":"get_weather"},"parallel_tool_calls":false,`),
			want{grammar.Named, "get_weather", false, "", false, "get_weather,other", "01", "tools[0].parameters,tools[1].parameters", true, 1}},
		{"responses allowed_tools required", "responses", respTools(`"tool_choice":{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"other"}]},`),
			want{grammar.Required, "", true, "", false, "other", "1", "tools[1].parameters", true, 0}},
		{"responses json_object", "responses", respTools(`"tool_choice":"none","text":{"format":{"type":"json_object"}},`),
			want{grammar.None, "", true, "object", false, "", "", "", true, 0}},
		{"responses json_schema", "responses", respTools(`"tool_choice":"none","text":{"format":{"type":"json_schema","name":"a","strict":true,"schema":` + answerSchema + `}},`),
			want{grammar.None, "", true, answerSchema, true, "", "", "", true, 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, aerr := decodeFor(t, tt.api, tt.body)
			if aerr != nil {
				t.Fatal(aerr.msg)
			}
			k, spec := &r.constraint, requestSpec(r)
			var got want
			got.choice, got.name, got.parallel, got.maxCalls = spec.Choice, spec.Name, spec.Parallel, r.maxCalls
			if f := spec.Format; f != nil {
				got.format, got.strictFmt = string(f.Schema), f.Strict
				if f.Schema == nil {
					got.format = "object"
				}
			}
			var names, strict []string
			for _, tl := range spec.Tools {
				names = append(names, tl.Name)
				strict = append(strict, map[bool]string{false: "0", true: "1"}[tl.Strict])
			}
			got.tools, got.strict, got.schemas = strings.Join(names, ","), strings.Join(strict, ""), strings.Join(k.toolSchemas, ",")
			got.constrained = spec.Constrained()
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestConstraintErrors checks the 400s of constraints that can't be
// honoured, each naming its request path on every API, and that the engine
// is not asked.
func TestConstraintErrors(t *testing.T) {
	// Patterns with a lookbehind, which the grammar does not enforce.
	patterned := `{"type":"object","properties":{"city":{"type":"string","pattern":"^[A-Z](?<=[A-Z])"}},"required":["city"]}`
	patternedAnswer := `{"type":"object","properties":{"answer":{"type":"string","pattern":"(?<=x)"}}}`
	fe := newFakeEngineOf(t, EngineLlamaCpp, constrainedGen)
	gw := newGateway(t, fe)
	for _, tt := range []struct {
		name, api, body, param, msg string
	}{
		{"strict tool keyword", "chat", strings.Replace(constrainedBody("chat", patterned, `"tool_choice":"required",`), `"description":"Get the weather.",`, `"strict":true,`, 1),
			"tools[0].function.parameters.properties.city.pattern", "the keyword pattern can't be enforced exactly in constrained generation"},
		{"strict tool keyword under auto", "chat", strings.Replace(constrainedBody("chat", patterned, ``), `"description":"Get the weather.",`, `"strict":true,`, 1),
			"tools[0].function.parameters.properties.city.pattern", "the keyword pattern can't be enforced"},
		{"strict format keyword", "chat", constrainedBody("chat", weatherParams, `"response_format":{"type":"json_schema","json_schema":{"name":"a","strict":true,"schema":`+patternedAnswer+`}},`),
			"response_format.json_schema.schema.properties.answer.pattern", "the keyword pattern can't be enforced"},
		{"format schema not an object", "chat", constrainedBody("chat", weatherParams, `"response_format":{"type":"json_schema","json_schema":{"name":"a","schema":[1]}},`),
			"response_format.json_schema.schema", "must be a JSON Schema object"},
		{"json_schema missing", "chat", constrainedBody("chat", weatherParams, `"response_format":{"type":"json_schema"},`),
			"response_format.json_schema", "required with type json_schema"},
		{"format strict not a boolean", "chat", constrainedBody("chat", weatherParams, `"response_format":{"type":"json_schema","json_schema":{"name":"a","strict":"yes","schema":{}}},`),
			"response_format.json_schema.strict", "must be true or false"},
		{"response_format not an object", "chat", constrainedBody("chat", weatherParams, `"response_format":"json",`), "response_format", "must be an object"},
		{"tool strict not a boolean", "chat", strings.Replace(constrainedBody("chat", weatherParams, ``), `"description":"Get the weather.",`, `"strict":1,`, 1),
			"tools[0].function.strict", "must be true or false"},
		{"parallel_tool_calls not a boolean", "chat", constrainedBody("chat", weatherParams, `"parallel_tool_calls":"no",`), "parallel_tool_calls", "must be true or false"},
		{"named without function", "chat", constrainedBody("chat", weatherParams, `"tool_choice":{"type":"function"},`), "tool_choice.function", "required"},
		{"named with an empty name", "chat", constrainedBody("chat", weatherParams, `"tool_choice":{"type":"function","function":{"name":""}},`), "tool_choice.function.name", "required"},
		{"custom tool choice", "chat", constrainedBody("chat", weatherParams, `"tool_choice":{"type":"custom","custom":{"name":"x"}},`), "tool_choice.type", "custom tools are not supported"},
		{"allowed tool undeclared", "chat", constrainedBody("chat", weatherParams, `"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"nope"}}]}},`),
			"tool_choice.allowed_tools.tools[0]", `names "nope", which is not among the tools`},
		{"allowed_tools mode none", "chat", constrainedBody("chat", weatherParams, `"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"none","tools":[]}},`),
			"tool_choice.allowed_tools.mode", `must be auto or required, got "none"`},
		{"strict tool keyword", "messages", strings.Replace(constrainedBody("messages", patterned, `"tool_choice":{"type":"any"},`), `"description":"Get the weather.",`, `"strict":true,`, 1),
			"", "tools[0].input_schema.properties.city.pattern: the keyword pattern can't be enforced"},
		{"format keyword (always strict)", "messages", constrainedBody("messages", weatherParams, `"output_config":{"format":{"type":"json_schema","schema":`+patternedAnswer+`}},`),
			"", "output_config.format.schema.properties.answer.pattern: the keyword pattern can't be enforced"},
		{"beta format keyword", "messages", constrainedBody("messages", weatherParams, `"output_format":{"type":"json_schema","schema":`+patternedAnswer+`},`),
			"", "output_format.schema.properties.answer.pattern: the keyword pattern can't be enforced"},
		{"both formats", "messages", constrainedBody("messages", weatherParams, `"output_format":{"type":"json_schema","schema":{}},"output_config":{"format":{"type":"json_schema","schema":{}}},`),
			"", "output_format: set output_config.format or output_format, not both"},
		{"format type", "messages", constrainedBody("messages", weatherParams, `"output_format":{"type":"json_object"},`),
			"", `output_format.type: must be json_schema, got "json_object"`},
		{"tool without name", "messages", constrainedBody("messages", weatherParams, `"tool_choice":{"type":"tool"},`), "", "tool_choice.name: required with type tool"},
		{"tool strict not a boolean", "messages", strings.Replace(constrainedBody("messages", weatherParams, ``), `"description":"Get the weather.",`, `"strict":"yes",`, 1),
			"", "tools[0].strict: must be true or false"},
		{"strict filtered tool keyword", "responses", `{"model":"beam","tools":[{"type":"function","name":"a","parameters":{}},{"type":"function","name":"get_weather","strict":true,"parameters":` + patterned +
			`}],"tool_choice":{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"get_weather"}]},"input":"Hi"}`,
			"tools[1].parameters.properties.city.pattern", "the keyword pattern can't be enforced"},
		{"strict format keyword", "responses", constrainedBody("responses", weatherParams, `"text":{"format":{"type":"json_schema","name":"a","strict":true,"schema":`+patternedAnswer+`}},`),
			"text.format.schema.properties.answer.pattern", "the keyword pattern can't be enforced"},
		{"text not an object", "responses", constrainedBody("responses", weatherParams, `"text":"json",`), "text", "must be an object"},
		{"text.format type", "responses", constrainedBody("responses", weatherParams, `"text":{"format":{"type":"xml"}},`), "text.format.type", `"xml" is not supported`},
		{"hosted tool choice", "responses", constrainedBody("responses", weatherParams, `"tool_choice":{"type":"web_search_preview"},`), "tool_choice.type", `"web_search_preview" is a hosted tool, which this gateway cannot run`},
		{"allowed_tools mode", "responses", constrainedBody("responses", weatherParams, `"tool_choice":{"type":"allowed_tools","mode":"none","tools":[]},`), "tool_choice.mode", "must be auto or required"},
		{"tool strict not a boolean", "responses", strings.Replace(constrainedBody("responses", weatherParams, ``), `"description":"Get the weather.",`, `"strict":"yes",`, 1),
			"tools[0].strict", "must be true or false"},
		{"named undeclared", "responses", constrainedBody("responses", weatherParams, `"tool_choice":{"type":"function","name":"nope"},`), "tool_choice", `tool_choice: names "nope", which is not among the tools`},
	} {
		t.Run(tt.api+"/"+tt.name, func(t *testing.T) {
			api := apiCases[map[string]int{"chat": 0, "messages": 1, "responses": 2}[tt.api]]
			before := len(fe.requests())
			o := api.send(t, gw, tt.body, false)
			if o.status != 400 || !strings.Contains(o.errMsg, tt.msg) {
				t.Errorf("%d %s\nwant a 400 with %q", o.status, o.raw, tt.msg)
			}
			if tt.api != "messages" && (o.errParam != tt.param || !strings.HasPrefix(o.errMsg, tt.param+":")) {
				t.Errorf("param %q, message %q; want %q", o.errParam, o.errMsg, tt.param)
			}
			if len(fe.requests()) != before {
				t.Error("the engine was asked")
			}
		})
	}
}

// TestUnenforcedHeader checks that keywords left out of non-strict schemas
// are listed in X-Beam-Unenforced, by request path, and in the log record.
func TestUnenforcedHeader(t *testing.T) {
	// A lookbehind and a format the grammar doesn't know: left out.
	patterned := `{"type":"object","properties":{"city":{"type":"string","pattern":"^[A-Z](?<=[A-Z])","format":"color"}},"required":["city"],"additionalProperties":false}`
	// An object that declares properties and allows others is closed by the
	// grammar, and that is reported too.
	closedWeather := strings.TrimSuffix(weatherParams, "}") + `,"additionalProperties":false}`
	var logs syncBuffer
	fe := newFakeEngineOf(t, EngineVLLM, constrainedGen)
	gw := newGateway(t, fe, withLog(&logs))
	for _, tt := range []struct {
		name, api, body, want string
	}{
		{"chat tool", "chat", constrainedBody("chat", patterned, `"tool_choice":"required",`),
			"tools[0].function.parameters.properties.city.pattern, tools[0].function.parameters.properties.city.format"},
		{"chat format", "chat", constrainedBody("chat", weatherParams, `"response_format":{"type":"json_schema","json_schema":{"name":"a","schema":{"type":"string","format":"color"}}},`),
			"tools[0].function.parameters.additionalProperties, response_format.json_schema.schema.format"},
		{"messages tool", "messages", constrainedBody("messages", patterned, `"tool_choice":{"type":"any"},`),
			"tools[0].input_schema.properties.city.pattern, tools[0].input_schema.properties.city.format"},
		{"responses filtered tool", "responses", `{"model":"beam","tools":[{"type":"function","name":"a","parameters":{}},{"type":"function","name":"get_weather","parameters":` + patterned +
			`}],"tool_choice":{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"get_weather"}]},"input":"Hi"}`,
			"tools[1].parameters.properties.city.pattern, tools[1].parameters.properties.city.format"},
		{"responses format", "responses", constrainedBody("responses", weatherParams, `"text":{"format":{"type":"json_schema","name":"a","schema":{"type":"array","uniqueItems":true}}},`),
			"tools[0].parameters.additionalProperties, text.format.schema.uniqueItems"},
		{"an enforced schema", "chat", constrainedBody("chat", closedWeather, `"tool_choice":"required",`), ""},
	} {
		for _, stream := range []bool{false, true} {
			api := apiCases[map[string]int{"chat": 0, "messages": 1, "responses": 2}[tt.api]]
			o := api.send(t, gw, tt.body, stream)
			if o.status != 200 || o.header.Get(UnenforcedHeader) != tt.want {
				t.Errorf("%s (stream %v): %d, %s: %q\nwant %q", tt.name, stream, o.status, UnenforcedHeader, o.header.Get(UnenforcedHeader), tt.want)
			}
			if tt.want != "" && !strings.Contains(logs.String(), `"unenforced":["`+strings.ReplaceAll(tt.want, ", ", `","`)+`"]`) {
				t.Errorf("%s: the log lacks the unenforced keywords:\n%s", tt.name, logs.String())
			}
		}
	}
}

func TestHeaderList(t *testing.T) {
	got := headerList([]string{"tools[0].function.parameters.properties.a,b\né%.pattern", "x"})
	if want := "tools[0].function.parameters.properties.a%2Cb%0A%C3%A9%25.pattern, x"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	long := make([]string, 1000)
	for i := range long {
		long[i] = "tools[0].function.parameters.properties.p.pattern"
	}
	if got := headerList(long); len(got) > maxHeaderList+5 || !strings.HasSuffix(got, ", ...") {
		t.Errorf("%d bytes, ends %q", len(got), got[len(got)-10:])
	}
}

// TestConstrainedEnds checks how each API reports a constrained
// generation, streamed and not, whichever way the engine ends it: right
// after the arguments or the JSON (vLLM leaves the end token out), with
// <|call|> or <|return|> in the text and stop_reason naming it, with the
// end token's text and no stop_reason (llama.cpp with --special), or with
// the other end token (both end a generation for llama.cpp).
func TestConstrainedEnds(t *testing.T) {
	call := callGen("Think first.", scriptCall{"get_weather", [][2]string{{"city", "Paris"}}})
	args := strings.TrimSuffix(call.text, "<|call|>")
	json := `{"answer": "Sunny", "confidence": 0.5}`
	ans := answer("Think first.", json)
	final := strings.TrimSuffix(ans.text, "<|return|>")
	calls := []struct {
		name string
		gen  gen
	}{
		{"after the arguments", eosEnd(call)},
		{"<|call|> named", call},
		{"<|call|>, no stop_reason", gen{text: args + "<|call|>"}},
		{"<|return|> after a call", gen{text: args + "<|return|>"}},
		{"<|call|> cut, named", withoutEnd(call)},
	}
	answers := []struct {
		name string
		gen  gen
	}{
		{"after the JSON", eosEnd(ans)},
		{"<|return|> named", ans},
		{"<|return|>, no stop_reason", gen{text: final + "<|return|>"}},
		{"<|call|> after the JSON", gen{text: final + "<|call|>"}},
	}
	finish := map[string][2]string{"chat": {"tool_calls", "stop"}, "messages": {"tool_use", "end_turn"}, "responses": {"completed", "completed"}}
	for _, api := range apiCases {
		for _, stream := range []bool{false, true} {
			for _, c := range calls {
				fe := newFakeEngineOf(t, EngineLlamaCpp, fixed(c.gen))
				gw := newGateway(t, fe)
				o := api.send(t, gw, constrainedBody(api.name, weatherParams, constraintCases[0].extra[api.name]), stream)
				if o.status != 200 || o.finish != finish[api.name][0] || len(o.calls) != 1 || o.calls[0].name != "get_weather" ||
					!strings.Contains(o.calls[0].args, `"Paris"`) || o.reasoning != "Think first." || o.content != "" || o.errMsg != "" {
					t.Errorf("%s stream %v, %s: %d %+v", api.name, stream, c.name, o.status, o)
				}
			}
			for _, a := range answers {
				fe := newFakeEngineOf(t, EngineLlamaCpp, fixed(a.gen))
				gw := newGateway(t, fe)
				o := api.send(t, gw, constrainedBody(api.name, weatherParams, constraintCases[2].extra[api.name]), stream)
				if o.status != 200 || o.finish != finish[api.name][1] || len(o.calls) != 0 || o.content != json || o.reasoning != "Think first." || o.errMsg != "" {
					t.Errorf("%s stream %v, %s: %d %+v", api.name, stream, a.name, o.status, o)
				}
			}
		}
	}
}

// TestResponsesEchoesTextFormat checks that the response object carries
// text.format as the request sent it.
func TestResponsesEchoesTextFormat(t *testing.T) {
	fe := newFakeEngineOf(t, EngineSGLang, constrainedGen)
	gw := newGateway(t, fe)
	for body, want := range map[string]string{
		constrainedBody("responses", weatherParams, `"text":{"format":{"type":"json_object"}},`): `{"format":{"type":"json_object"}}`,
		constrainedBody("responses", weatherParams, ``):                                          `{"format":{"type":"text"}}`,
	} {
		for _, stream := range []bool{false, true} {
			o := apiCases[2].send(t, gw, body, stream)
			var r struct {
				Text     json.RawMessage `json:"text"`
				Response struct {
					Text json.RawMessage `json:"text"`
				} `json:"response"`
			}
			_ = json.Unmarshal([]byte(o.raw), &r)
			got := r.Text
			if stream {
				got = r.Response.Text
			}
			if string(got) != want {
				t.Errorf("stream %v: text %s, want %s", stream, got, want)
			}
		}
	}
}
