package serve

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// TestEngineRequest checks what the engine is asked: the rendered prompt,
// max_tokens, the stop strings with the two end markers, the flags that
// keep markers visible, and the model.
func TestEngineRequest(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("The user is greeting me.", "Hi!")))
	tests := []struct {
		name      string
		body      string
		cfg       func(*Config)
		model     string
		maxTokens int64
		stop      []string
		effort    string
	}{
		{"defaults", hello, nil, "beam", DefaultMaxTokens, []string{"<|call|>", "<|return|>"}, "512"},
		{"server model wins", hello, func(c *Config) { c.Model = "served" }, "served", DefaultMaxTokens, []string{"<|call|>", "<|return|>"}, "512"},
		{"server max tokens", hello, func(c *Config) { c.MaxTokens = 100 }, "beam", 100, []string{"<|call|>", "<|return|>"}, "512"},
		{"max_tokens", `{"model":"beam","max_tokens":77,"messages":[{"role":"user","content":"Hello!"}]}`, nil, "beam", 77, nil, ""},
		{"max_completion_tokens first", `{"model":"beam","max_tokens":77,"max_completion_tokens":55,"messages":[{"role":"user","content":"Hello!"}]}`, nil, "beam", 55, nil, ""},
		{"request stop strings kept, markers added once", `{"model":"beam","stop":["END","<|call|>"],"messages":[{"role":"user","content":"Hello!"}]}`, nil, "beam", DefaultMaxTokens, []string{"END", "<|call|>", "<|return|>"}, ""},
		{"stop as a string", `{"model":"beam","stop":"END","messages":[{"role":"user","content":"Hello!"}]}`, nil, "beam", DefaultMaxTokens, []string{"END", "<|call|>", "<|return|>"}, ""},
		{"effort label", `{"model":"beam","reasoning_effort":"low","messages":[{"role":"user","content":"Hello!"}]}`, nil, "beam", DefaultMaxTokens, nil, "32"},
		{"effort integer", `{"model":"beam","reasoning_effort":100,"messages":[{"role":"user","content":"Hello!"}]}`, nil, "beam", DefaultMaxTokens, nil, "100"},
		{"kwargs effort wins", `{"model":"beam","reasoning_effort":"low","chat_template_kwargs":{"reasoning_effort":"high","unknown":1},"messages":[{"role":"user","content":"Hello!"}]}`, nil, "beam", DefaultMaxTokens, nil, "128"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mods []func(*Config)
			if tt.cfg != nil {
				mods = append(mods, tt.cfg)
			}
			gw := newGateway(t, fe, mods...)
			resp, data := post(t, gw, tt.body)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, data)
			}
			er := fe.lastRequest(t)
			if er.Model != tt.model {
				t.Errorf("model %q, want %q", er.Model, tt.model)
			}
			if er.MaxTokens != tt.maxTokens {
				t.Errorf("max_tokens %d, want %d", er.MaxTokens, tt.maxTokens)
			}
			if tt.stop != nil && strings.Join(er.Stop, "|") != strings.Join(tt.stop, "|") {
				t.Errorf("stop %q, want %q", er.Stop, tt.stop)
			}
			for k, want := range map[string]string{
				"skip_special_tokens": "false", "spaces_between_special_tokens": "false",
				"add_special_tokens": "false", "include_stop_str_in_output": "true", "stream": "false",
			} {
				if got := string(er.raw[k]); got != want {
					t.Errorf("%s: %s, want %s", k, got, want)
				}
			}
			if tt.effort != "" && !strings.Contains(er.Prompt, "\n\nReasoning effort: "+tt.effort+"\n\n") {
				t.Errorf("prompt lacks effort %s: %q", tt.effort, er.Prompt)
			}
		})
	}
	t.Run("prompt is the renderer's", func(t *testing.T) {
		gw := newGateway(t, fe)
		body := `{"model":"beam","tools":[` + weatherTool + `],"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Weather in London?"},` +
			`{"role":"assistant","content":null,"reasoning_content":"I should check.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"London\", \"days\": 3}"}}]},` +
			`{"role":"tool","tool_call_id":"call_1","content":"14 C, cloudy"}],"temperature":0.5,"top_p":0.9,"seed":7,` +
			`"presence_penalty":0.1,"frequency_penalty":0.2,"top_k":20,"min_p":0.05,"repetition_penalty":1.1}`
		resp, data := post(t, gw, body)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, data)
		}
		var tool harmony.Tool
		if err := json.Unmarshal([]byte(weatherTool), &tool); err != nil {
			t.Fatal(err)
		}
		want, err := harmony.Render([]harmony.Message{
			{Role: "system", Content: "Be brief."},
			{Role: "user", Content: "Weather in London?"},
			{Role: "assistant", Reasoning: "I should check.", ToolCalls: []harmony.ToolCall{{ID: "call_1", Type: "function",
				Function: harmony.FunctionCall{Name: "get_weather", Arguments: json.RawMessage(`{"city": "London", "days": 3}`)}}}},
			{Role: "tool", ToolCallID: "call_1", Content: "14 C, cloudy"},
		}, &harmony.Options{Tools: []harmony.Tool{tool}, AddGenerationPrompt: true, RequireReasoning: true})
		if err != nil {
			t.Fatal(err)
		}
		er := fe.lastRequest(t)
		if er.Prompt != want {
			t.Errorf("prompt\n%q\nwant\n%q", er.Prompt, want)
		}
		if !strings.Contains(er.Prompt, "<rfl:parameter name=\"days\">\n3\n</rfl:parameter>") {
			t.Errorf("arguments not rendered from the JSON string: %q", er.Prompt)
		}
		for k, want := range map[string]string{"temperature": "0.5", "top_p": "0.9", "seed": "7", "presence_penalty": "0.1",
			"frequency_penalty": "0.2", "top_k": "20", "min_p": "0.05", "repetition_penalty": "1.1"} {
			if got := string(er.raw[k]); got != want {
				t.Errorf("%s: %s, want %s", k, got, want)
			}
		}
	})
	t.Run("tool_choice none declares no tools", func(t *testing.T) {
		gw := newGateway(t, fe)
		resp, data := post(t, gw, `{"model":"beam","tool_choice":"none","tools":[`+weatherTool+`],"messages":[{"role":"user","content":"Hi"}]}`)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, data)
		}
		if p := fe.lastRequest(t).Prompt; strings.Contains(p, "get_weather") {
			t.Errorf("tool declared despite tool_choice none: %q", p)
		}
		resp, data = post(t, gw, `{"model":"beam","tool_choice":"auto","tools":[`+weatherTool+`],"messages":[{"role":"user","content":"Hi"}]}`)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, data)
		}
		if p := fe.lastRequest(t).Prompt; !strings.Contains(p, "type get_weather = ") {
			t.Errorf("tool not declared with tool_choice auto: %q", p)
		}
	})
	t.Run("stream asks for usage", func(t *testing.T) {
		gw := newGateway(t, fe)
		res := postStream(t, gw, withStream(hello, false))
		if !res.done {
			t.Fatal("no [DONE]")
		}
		er := fe.lastRequest(t)
		if string(er.raw["stream"]) != "true" || string(er.raw["stream_options"]) != `{"include_usage":true}` {
			t.Errorf("stream %s, stream_options %s", er.raw["stream"], er.raw["stream_options"])
		}
		if res.usage != nil {
			t.Error("usage chunk sent though the client did not ask")
		}
	})
}

// TestBadRequests checks that requests the gateway cannot serve get a 400
// (or 413) naming what is wrong, before the engine is asked.
func TestBadRequests(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	user := `{"role":"user","content":"Hi"}`
	withMsgs := func(extra string, msgs ...string) string {
		return `{"model":"beam",` + extra + `"messages":[` + strings.Join(msgs, ",") + `]}`
	}
	asst := func(fields string) string { return `{"role":"assistant",` + fields + `}` }
	pageMissing := "The assistant turn at messages[1] is missing its reasoning. Dropping reasoning from earlier turns degrades this model's output. " +
		"Send it back in 'reasoning_content', or set allow_missing_thinking=true to skip this check."
	tests := []struct {
		name   string
		body   string
		cfg    func(*Config)
		status int
		want   string // in the message
		param  string
	}{
		{"not JSON", `{"model":`, nil, 400, "request body", ""},
		{"not UTF-8", "{\"model\":\"beam\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\"}]}", nil, 400, "UTF-8", ""},
		{"no messages", `{"model":"beam","messages":[]}`, nil, 400, "messages: required", "messages"},
		{"no model", `{"messages":[` + user + `]}`, nil, 400, "model: required", "model"},
		{"n above 1", withMsgs(`"n":2,`, user), nil, 400, "n: only 1 is supported", "n"},
		{"n of 1 is fine", withMsgs(`"n":1,`, user), nil, 200, "", ""},
		// The deprecated forms of tools and tool_choice (decision 282).
		{"functions", withMsgs(`"functions":[{"name":"f","parameters":{"type":"object"}}],`, user), nil, 400, "functions: the deprecated form of tools", "functions"},
		{"function_call", withMsgs(`"function_call":"auto",`, user), nil, 400, "function_call: the deprecated form of tool_choice", "function_call"},
		{"tool_choice required without tools", withMsgs(`"tool_choice":"required",`, user), nil, 400, `tool_choice: asks for a tool call, but the request declares no tools`, "tool_choice"},
		{"tool_choice names an undeclared function", withMsgs(`"tool_choice":{"type":"function","function":{"name":"get_weather"}},`, user), nil, 400, `tool_choice: names "get_weather", which is not among the tools`, "tool_choice"},
		{"tool_choice unknown mode", withMsgs(`"tool_choice":"any",`, user), nil, 400, `tool_choice: must be auto, none or required, got "any"`, "tool_choice"},
		{"arguments not JSON", withMsgs("", user, asst(`"reasoning_content":"r","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\": "}}]`)), nil,
			400, "messages[1].tool_calls[0].function.arguments: not valid JSON", "messages[1].tool_calls[0].function.arguments"},
		{"arguments not an object", withMsgs("", user, asst(`"reasoning_content":"r","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"[1, 2]"}}]`)), nil,
			400, "messages[1].tool_calls[0].function.arguments: must be a JSON object, got a list", "messages[1].tool_calls[0].function.arguments"},
		{"arguments as an object are accepted", withMsgs("", user, asst(`"reasoning_content":"r","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{"a":1}}}]`), `{"role":"tool","tool_call_id":"c1","content":"ok"}`), nil, 200, "", ""},
		{"missing reasoning: the page's error", withMsgs("", user, asst(`"content":"Hello!"`), user), nil, 400, pageMissing, ""},
		{"missing reasoning allowed by kwargs", withMsgs(`"chat_template_kwargs":{"allow_missing_thinking":true},`, user, asst(`"content":"Hello!"`), user), nil, 200, "", ""},
		{"missing reasoning allowed by the server", withMsgs("", user, asst(`"content":"Hello!"`), user), func(c *Config) { c.AllowMissingThinking = true }, 200, "", ""},
		{"kwargs can require it again", withMsgs(`"chat_template_kwargs":{"allow_missing_thinking":false},`, user, asst(`"content":"Hello!"`), user), func(c *Config) { c.AllowMissingThinking = true }, 400, pageMissing, ""},
		{"reasoning in reasoning", withMsgs("", user, asst(`"content":"Hello!","reasoning":"r"`), user), nil, 200, "", ""},
		{"reasoning in thinking", withMsgs("", user, asst(`"content":"Hello!","thinking":"r"`), user), nil, 200, "", ""},
		{"effort none: the page's error", withMsgs(`"reasoning_effort":"none",`, user), nil, 400, "reasoning_effort must be an int or one of: minimal, low, medium, high, xhigh, max", "reasoning_effort"},
		{"effort in kwargs none", withMsgs(`"chat_template_kwargs":{"reasoning_effort":"none"},`, user), nil, 400, "reasoning_effort must be an int", "reasoning_effort"},
		{"marker in user content", withMsgs("", `{"role":"user","content":"hi<|end|><|start|>system"}`), nil, 400, "messages[0].content: contains the Harmony marker <|end|>", "messages[0].content"},
		{"marker in a content part", withMsgs("", `{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"<|call|>"}]}`), nil, 400, "messages[0].content", "messages[0].content"},
		{"marker in a system message", withMsgs("", `{"role":"system","content":"<|return|>"}`, user), nil, 400, "messages[0].content", "messages[0].content"},
		{"marker in a tool result", withMsgs("", user, asst(`"reasoning_content":"r","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]`), `{"role":"tool","tool_call_id":"c1","content":"x<|message|>"}`), nil, 400, "messages[2].content", "messages[2].content"},
		{"marker in assistant content", withMsgs("", user, asst(`"reasoning_content":"r","content":"<|channel|>"`), user), nil, 400, "messages[1].content", "messages[1].content"},
		{"marker in a name", withMsgs("", `{"role":"user","name":"a<|start|>","content":"Hi"}`), nil, 400, "messages[0].name", "messages[0].name"},
		{"markers allowed by the server", withMsgs("", `{"role":"user","content":"hi<|end|>"}`), func(c *Config) { c.AllowMarkers = true }, 200, "", ""},
		{"template error: content with calls", withMsgs("", user, asst(`"reasoning_content":"r","content":"text","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]`), `{"role":"tool","tool_call_id":"c1","content":"ok"}`), nil, 400, "messages[1].content: must be empty", "messages[1].content"},
		{"template error: unknown role", withMsgs("", `{"role":"robot","content":"x"}`), nil, 400, "messages[0].role", "messages[0].role"},
		{"bad message shape", withMsgs("", `{"role":"user","content":5}`), nil, 400, "messages[0].content", "messages[0]"},
		{"bad max_tokens", withMsgs(`"max_tokens":"many",`, user), nil, 400, "max_tokens: must be an integer", "max_tokens"},
		{"zero max_completion_tokens", withMsgs(`"max_completion_tokens":0,`, user), nil, 400, "max_completion_tokens: must be at least 1", "max_completion_tokens"},
		{"bad temperature", withMsgs(`"temperature":"hot",`, user), nil, 400, "temperature: must be a number", "temperature"},
		{"bad stop", withMsgs(`"stop":[1],`, user), nil, 400, "stop: must be a string or a list of strings", "stop"},
		{"bad tools", withMsgs(`"tools":{},`, user), nil, 400, "tools: must be a list", "tools"},
		{"bad kwargs", withMsgs(`"chat_template_kwargs":[],`, user), nil, 400, "chat_template_kwargs: must be an object", "chat_template_kwargs"},
		{"bad builtin_tools", withMsgs(`"chat_template_kwargs":{"builtin_tools":"search"},`, user), nil, 400, "builtin_tools", "chat_template_kwargs.builtin_tools"},
		{"builtin tool not in tools", withMsgs(`"chat_template_kwargs":{"builtin_tools":["search"]},`, user), nil, 400, "builtin_tools", ""},
		{"logprobs", withMsgs(`"logprobs":true,`, user), nil, 400, "logprobs", "logprobs"},
		{"response_format unknown type", withMsgs(`"response_format":{"type":"xml"},`, user), nil, 400, `response_format.type: "xml" is not supported`, "response_format.type"},
		{"too large", withMsgs("", `{"role":"user","content":"`+strings.Repeat("x", 2000)+`"}`), func(c *Config) { c.MaxBodyBytes = 1000 }, 413, "larger than the server's limit of 1000 bytes", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mods []func(*Config)
			if tt.cfg != nil {
				mods = append(mods, tt.cfg)
			}
			gw := newGateway(t, fe, mods...)
			before := len(fe.requests())
			resp, data := post(t, gw, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, data)
			}
			if tt.status == 200 {
				return
			}
			if n := len(fe.requests()); n != before {
				t.Errorf("the engine was asked (%d requests) for a refused request", n-before)
			}
			e := decodeError(t, data)
			if !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("message %q lacks %q", e.Error.Message, tt.want)
			}
			if e.Error.Type != "invalid_request_error" {
				t.Errorf("type %q", e.Error.Type)
			}
			if tt.param != "" && (e.Error.Param == nil || *e.Error.Param != tt.param) {
				t.Errorf("param %v, want %q", e.Error.Param, tt.param)
			}
		})
	}
}

// engineVariants are the ways an engine can end a generation: with the
// stop string in the text (vLLM with include_stop_str_in_output), without
// it but named by stop_reason (vLLM) or matched_stop (SGLang), or stopped
// by end-of-sequence with neither (llama.cpp); and with finish_reason in
// the last token's event or in an event of its own.
var engineVariants = []struct {
	name string
	f    func(gen) gen
}{
	{"markers in text", func(g gen) gen { return g }},
	{"stop_reason only", withoutEnd},
	{"matched_stop only (SGLang)", sglangEnd},
	{"end of sequence", eosEnd},
	{"finish in its own event", func(g gen) gen { g.splitEnd = true; return g }},
}

// TestAnswers replays generations through every engine variant, streamed
// and not, and checks that both modes give the same message.
func TestAnswers(t *testing.T) {
	longArg := strings.Repeat("def f(x):\n    return \"<|end|>\" + x  # ünïcode ✓\n", 300)
	tests := []struct {
		name      string
		gen       gen
		body      string
		reasoning string
		content   string
		calls     []streamCall // id not compared
		finish    string
	}{
		{"answer", answer("The user is greeting me.", "Hi! How can I help?"), hello,
			"The user is greeting me.", "Hi! How can I help?", nil, "stop"},
		{"unicode and newlines", answer("Größe 🤔\nzwei", "Ça va ?\n\n```go\nx := \"y\"\n```"), hello,
			"Größe 🤔\nzwei", "Ça va ?\n\n```go\nx := \"y\"\n```", nil, "stop"},
		{"one call, cast with tools", callGen("I'll call the weather tool.", scriptCall{"get_weather", [][2]string{{"city", "Paris"}, {"days", "3"}}}),
			`{"model":"beam","tools":[` + weatherTool + `],"messages":[{"role":"user","content":"3-day forecast for Paris?"}]}`,
			"I'll call the weather tool.", "", []streamCall{{name: "get_weather", args: `{"city": "Paris", "days": 3}`}}, "tool_calls"},
		{"parallel calls", callGen("I need both cities.", scriptCall{"get_weather", [][2]string{{"city", "London"}}}, scriptCall{"get_weather", [][2]string{{"city", "Paris"}}}),
			`{"model":"beam","tools":[` + weatherTool + `],"messages":[{"role":"user","content":"London and Paris?"}]}`,
			"I need both cities.", "", []streamCall{{name: "get_weather", args: `{"city": "London"}`}, {name: "get_weather", args: `{"city": "Paris"}`}}, "tool_calls"},
		{"two reasoning messages, two answers", gen{text: "<|channel|>analysis<|message|>First thought.<|end|><|start|>assistant<|channel|>analysis<|message|>Second thought.<|end|>" +
			"<|start|>assistant<|channel|>final<|message|>Part one.<|end|><|start|>assistant<|channel|>final<|message|>Part two.<|return|>", stopReason: "<|return|>"}, hello,
			"First thought.\n\nSecond thought.", "Part one.\n\nPart two.", nil, "stop"},
		{"long arguments", callGen("Write the file.", scriptCall{"write_file", [][2]string{{"path", "a.py"}, {"text", longArg}}}),
			`{"model":"beam","messages":[{"role":"user","content":"write it"}]}`,
			"Write the file.", "", []streamCall{{name: "write_file", args: `{"path": "a.py", "text": ` + pyQuote(longArg) + `}`}}, "tool_calls"},
	}
	for _, tt := range tests {
		for _, v := range engineVariants {
			t.Run(tt.name+"/"+v.name, func(t *testing.T) {
				fe := newFakeEngine(t, fixed(v.f(tt.gen)))
				gw := newGateway(t, fe)
				resp, data := post(t, gw, tt.body)
				if resp.StatusCode != 200 {
					t.Fatalf("status %d: %s", resp.StatusCode, data)
				}
				var c completionJSON
				if err := json.Unmarshal(data, &c); err != nil {
					t.Fatal(err)
				}
				m := c.Choices[0].Message
				if got := deref(m.ReasoningContent); got != tt.reasoning || deref(m.Reasoning) != tt.reasoning {
					t.Errorf("reasoning_content %q, reasoning %q, want %q", got, deref(m.Reasoning), tt.reasoning)
				}
				if deref(m.Content) != tt.content {
					t.Errorf("content %q, want %q", deref(m.Content), tt.content)
				}
				if len(tt.calls) > 0 && m.Content != nil {
					t.Errorf("content %q beside tool calls, want null", *m.Content)
				}
				if len(m.ToolCalls) != len(tt.calls) {
					t.Fatalf("%d calls, want %d: %s", len(m.ToolCalls), len(tt.calls), data)
				}
				ids := map[string]bool{}
				for i, tc := range m.ToolCalls {
					if tc.Function.Name != tt.calls[i].name || tc.Function.Arguments != tt.calls[i].args || tc.Type != "function" {
						t.Errorf("call %d: %s %q, want %s %q", i, tc.Function.Name, trunc(tc.Function.Arguments), tt.calls[i].name, trunc(tt.calls[i].args))
					}
					if !strings.HasPrefix(tc.ID, "call_") || len(tc.ID) < 20 || ids[tc.ID] {
						t.Errorf("call id %q", tc.ID)
					}
					ids[tc.ID] = true
				}
				if c.Choices[0].FinishReason != tt.finish {
					t.Errorf("finish_reason %q, want %q", c.Choices[0].FinishReason, tt.finish)
				}
				if c.Usage == nil || c.Usage.CompletionTokens == 0 || c.Usage.TotalTokens != c.Usage.PromptTokens+c.Usage.CompletionTokens {
					t.Errorf("usage %+v", c.Usage)
				}
				if c.Object != "chat.completion" || !strings.HasPrefix(c.ID, "chatcmpl-") || c.Model != "beam" {
					t.Errorf("object %q id %q model %q", c.Object, c.ID, c.Model)
				}

				res := postStream(t, gw, withStream(tt.body, true))
				if !res.done || res.errEvent != nil {
					t.Fatalf("stream done %v, error %+v", res.done, res.errEvent)
				}
				if res.reasoning != tt.reasoning || res.reasonAlt != tt.reasoning {
					t.Errorf("streamed reasoning_content %q, reasoning %q, want %q", res.reasoning, res.reasonAlt, tt.reasoning)
				}
				if res.content != tt.content {
					t.Errorf("streamed content %q, want %q", res.content, tt.content)
				}
				if len(res.calls) != len(tt.calls) {
					t.Fatalf("streamed %d calls, want %d", len(res.calls), len(tt.calls))
				}
				for i, sc := range res.calls {
					if sc.name != tt.calls[i].name || sc.args != tt.calls[i].args {
						t.Errorf("streamed call %d: %s %q, want %s %q", i, sc.name, trunc(sc.args), tt.calls[i].name, trunc(tt.calls[i].args))
					}
				}
				if res.finish != tt.finish {
					t.Errorf("streamed finish_reason %q, want %q", res.finish, tt.finish)
				}
				if res.usage == nil || res.usage.CompletionTokens == 0 {
					t.Errorf("no usage chunk: %+v", res.usage)
				}
				last := res.chunks[len(res.chunks)-1]
				if len(last.Choices) != 0 || last.Usage == nil {
					t.Errorf("last chunk is not the usage chunk")
				}
			})
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func trunc(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// pyQuote is s as a JSON string in the parser's style.
func pyQuote(s string) string {
	b, _ := json.Marshal(s)
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
}

// TestStopStrings checks that a client's stop string, which the engine
// includes in its text, is left out, streamed or not.
func TestStopStrings(t *testing.T) {
	for _, v := range []struct {
		name   string
		text   string
		reason any
	}{
		{"named by stop_reason", "<|channel|>analysis<|message|>Count.<|end|><|start|>assistant<|channel|>final<|message|>1 2 3 STOP", "STOP"},
		{"engine without stop_reason", "<|channel|>analysis<|message|>Count.<|end|><|start|>assistant<|channel|>final<|message|>1 2 3 STOP", nil},
		{"left out by the engine", "<|channel|>analysis<|message|>Count.<|end|><|start|>assistant<|channel|>final<|message|>1 2 3 ", "STOP"},
	} {
		t.Run(v.name, func(t *testing.T) {
			fe := newFakeEngine(t, fixed(gen{text: v.text, stopReason: v.reason}))
			gw := newGateway(t, fe)
			body := `{"model":"beam","stop":["STOP"],"messages":[{"role":"user","content":"count"}]}`
			resp, data := post(t, gw, body)
			var c completionJSON
			if err := json.Unmarshal(data, &c); err != nil || resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, data)
			}
			if got := deref(c.Choices[0].Message.Content); got != "1 2 3 " {
				t.Errorf("content %q", got)
			}
			res := postStream(t, gw, withStream(body, false))
			if res.content != "1 2 3 " || !res.done {
				t.Errorf("streamed content %q, done %v", res.content, res.done)
			}
		})
	}
	t.Run("an end marker among the stop strings still ends the turn", func(t *testing.T) {
		fe := newFakeEngine(t, fixed(callGen("Call it.", scriptCall{"get_weather", [][2]string{{"city", "Oslo"}}})))
		gw := newGateway(t, fe)
		body := `{"model":"beam","stop":["<|call|>","END"],"tools":[` + weatherTool + `],"messages":[{"role":"user","content":"Oslo?"}]}`
		resp, data := post(t, gw, body)
		var c completionJSON
		if err := json.Unmarshal(data, &c); err != nil || resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, data)
		}
		if c.Choices[0].FinishReason != "tool_calls" || len(c.Choices[0].Message.ToolCalls) != 1 {
			t.Errorf("finish %q, calls %+v", c.Choices[0].FinishReason, c.Choices[0].Message.ToolCalls)
		}
		if got := strings.Join(fe.lastRequest(t).Stop, "|"); got != "END|<|call|>|<|return|>" {
			t.Errorf("engine stop %q", got)
		}
	})
	t.Run("a prefix of a stop string is released", func(t *testing.T) {
		text := "<|channel|>analysis<|message|>r<|end|><|start|>assistant<|channel|>final<|message|>ST and STO"
		fe := newFakeEngine(t, fixed(gen{text: text}))
		gw := newGateway(t, fe)
		res := postStream(t, gw, withStream(`{"model":"beam","stop":["STOP"],"messages":[{"role":"user","content":"x"}]}`, false))
		if res.content != "ST and STO" {
			t.Errorf("streamed content %q", res.content)
		}
	})
}

// TestLength checks finish_reason length: what was parsed goes out, an
// unfinished call is left out of a non-streamed reply.
func TestLength(t *testing.T) {
	t.Run("cut in the answer", func(t *testing.T) {
		text := "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Half an ans"
		fe := newFakeEngine(t, fixed(gen{text: text, finish: "length"}))
		gw := newGateway(t, fe)
		resp, data := post(t, gw, hello)
		var c completionJSON
		if err := json.Unmarshal(data, &c); err != nil || resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, data)
		}
		if c.Choices[0].FinishReason != "length" || deref(c.Choices[0].Message.Content) != "Half an ans" {
			t.Errorf("finish %q content %q", c.Choices[0].FinishReason, deref(c.Choices[0].Message.Content))
		}
		res := postStream(t, gw, withStream(hello, false))
		if res.finish != "length" || res.content != "Half an ans" || !res.done {
			t.Errorf("stream: finish %q content %q done %v", res.finish, res.content, res.done)
		}
	})
	t.Run("cut in a call", func(t *testing.T) {
		text := callsText("Two calls.", scriptCall{"get_weather", [][2]string{{"city", "London"}}}) // ends <|call|>
		text = strings.TrimSuffix(text, "<|call|>") + "<|end|><|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"city\">\nPar"
		fe := newFakeEngine(t, fixed(gen{text: text, finish: "length"}))
		gw := newGateway(t, fe)
		body := `{"model":"beam","tools":[` + weatherTool + `],"messages":[{"role":"user","content":"London and Paris?"}]}`
		resp, data := post(t, gw, body)
		var c completionJSON
		if err := json.Unmarshal(data, &c); err != nil || resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, data)
		}
		m := c.Choices[0].Message
		if c.Choices[0].FinishReason != "length" || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != `{"city": "London"}` {
			t.Errorf("finish %q calls %+v", c.Choices[0].FinishReason, m.ToolCalls)
		}
		res := postStream(t, gw, withStream(body, false))
		if res.finish != "length" || !res.done || len(res.calls) < 1 || res.calls[0].args != `{"city": "London"}` {
			t.Errorf("stream: finish %q calls %+v done %v", res.finish, res.calls, res.done)
		}
	})
}

// TestMalformedOutput checks that a generation that is not Beam Harmony is
// a 502 before the reply starts and an error event after.
func TestMalformedOutput(t *testing.T) {
	bad := "<|channel|>analysis<|message|>Thinking a while about it<|end|><|channel|>final<|message|>oops<|return|>"
	fe := newFakeEngine(t, fixed(gen{text: bad, stopReason: "<|return|>"}))
	gw := newGateway(t, fe)
	resp, data := post(t, gw, hello)
	if resp.StatusCode != 502 {
		t.Fatalf("status %d: %s", resp.StatusCode, data)
	}
	if e := decodeError(t, data); deref(e.Error.Code) != "invalid_model_output" || e.Error.Type != "server_error" {
		t.Errorf("error %+v", e.Error)
	}
	res := postStream(t, gw, withStream(hello, false))
	if res.status != 200 || res.errEvent == nil || res.done {
		t.Fatalf("status %d, error event %+v, done %v", res.status, res.errEvent, res.done)
	}
	if res.reasoning != "Thinking a while about it" {
		t.Errorf("reasoning before the error: %q", res.reasoning)
	}
	if deref(res.errEvent.Error.Code) != "invalid_model_output" {
		t.Errorf("error event %+v", res.errEvent.Error)
	}
}

// TestEngineFailures checks the status of each way the engine can fail
// before the reply starts, and the error event after.
func TestEngineFailures(t *testing.T) {
	tests := []struct {
		name   string
		gen    gen
		status int
		code   string
		msg    string
	}{
		{"4xx passes through", gen{status: 400, body: `{"object":"error","message":"This model's maximum context length is 8 tokens.","type":"BadRequestError","code":400}`},
			400, "engine_400", "maximum context length is 8 tokens"},
		{"4xx in the error shape", gen{status: 404, body: `{"error":{"message":"The model ` + "`nope`" + ` does not exist.","type":"NotFoundError","code":404}}`},
			404, "engine_404", "does not exist"},
		{"5xx is a 502", gen{status: 500, body: `{"error":{"message":"CUDA out of memory","type":"InternalServerError"}}`},
			502, "engine_500", "the engine answered HTTP 500"}, // the body goes to the log only (issue 12)
		{"nonsense is a 502", gen{body: `<html>hello</html>`}, 502, "engine_bad_reply", "not a completion"},
		{"no choices is a 502", gen{body: `{"choices":[]}`}, 502, "engine_bad_reply", "without choices"},
		{"odd finish reason is a 502", gen{text: answerText("r", "c"), finish: "abort"}, 502, "engine_finish", "abort"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe := newFakeEngine(t, fixed(tt.gen))
			gw := newGateway(t, fe)
			for _, body := range []string{hello, withStream(hello, false)} {
				resp, data := post(t, gw, body)
				if strings.Contains(body, "stream") && tt.gen.body != "" && tt.gen.status == 0 {
					// A JSON body to a streamed request is nonsense too.
					if resp.StatusCode != 502 {
						t.Errorf("stream: status %d: %s", resp.StatusCode, data)
					}
					continue
				}
				if strings.Contains(body, "stream") && tt.gen.finish == "abort" {
					res := readStreamBytes(t, resp.StatusCode, data)
					if res.errEvent == nil || deref(res.errEvent.Error.Code) != tt.code || res.done {
						t.Errorf("stream: error event %+v, done %v", res.errEvent, res.done)
					}
					continue
				}
				if resp.StatusCode != tt.status {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, data)
				}
				e := decodeError(t, data)
				if deref(e.Error.Code) != tt.code || !strings.Contains(e.Error.Message, tt.msg) {
					t.Errorf("error %+v, want code %q with %q", e.Error, tt.code, tt.msg)
				}
			}
		})
	}
	t.Run("engine down is a 502", func(t *testing.T) {
		fe := newFakeEngine(t, fixed(answer("r", "c")))
		gw := newGateway(t, fe)
		fe.srv.Close()
		for _, body := range []string{hello, withStream(hello, false)} {
			resp, data := post(t, gw, body)
			if resp.StatusCode != 502 {
				t.Fatalf("status %d: %s", resp.StatusCode, data)
			}
			if e := decodeError(t, data); deref(e.Error.Code) != "engine_unreachable" {
				t.Errorf("error %+v", e.Error)
			}
		}
	})
	t.Run("slow engine is a 504", func(t *testing.T) {
		fe := newFakeEngine(t, fixed(gen{hang: true}))
		gw := newGateway(t, fe, func(c *Config) { c.Timeout = 100 * time.Millisecond })
		for i, body := range []string{hello, withStream(hello, false)} {
			resp, data := post(t, gw, body)
			if resp.StatusCode != 504 {
				t.Fatalf("status %d: %s", resp.StatusCode, data)
			}
			if e := decodeError(t, data); deref(e.Error.Code) != "timeout" {
				t.Errorf("error %+v", e.Error)
			}
			waitCancelled(t, fe, int64(i+1))
		}
	})
	t.Run("timeout mid-stream is an error event", func(t *testing.T) {
		g := answer(strings.Repeat("A long think. ", 40), "Answer.")
		g.delay = 20 * time.Millisecond
		fe := newFakeEngine(t, fixed(g))
		gw := newGateway(t, fe, func(c *Config) { c.Timeout = 300 * time.Millisecond })
		res := postStream(t, gw, withStream(hello, false))
		if res.status != 200 || res.errEvent == nil || deref(res.errEvent.Error.Code) != "timeout" || res.done {
			t.Fatalf("status %d, error %+v, done %v", res.status, res.errEvent, res.done)
		}
		waitCancelled(t, fe, 1)
	})
	t.Run("stream cut mid-way is an error event", func(t *testing.T) {
		g := answer("The user is greeting me.", "Hi!")
		g.cutAfter = 6
		fe := newFakeEngine(t, fixed(g))
		gw := newGateway(t, fe)
		res := postStream(t, gw, withStream(hello, false))
		if res.status != 200 || res.errEvent == nil || res.done {
			t.Fatalf("status %d, error %+v, done %v", res.status, res.errEvent, res.done)
		}
		if code := deref(res.errEvent.Error.Code); code != "engine_stream" && code != "engine_cut" {
			t.Errorf("code %q", code)
		}
		if res.errEvent.Error.Type != "server_error" {
			t.Errorf("type %q", res.errEvent.Error.Type)
		}
	})
	t.Run("engine error event", func(t *testing.T) {
		engineErr := `{"error":{"message":"engine overloaded","type":"ServiceUnavailableError","code":503}}`
		for _, tt := range []struct {
			name   string
			after  int
			status int
		}{
			{"before the first token is an HTTP error", 0, 502},
			{"after tokens is an error event", 5, 200},
		} {
			t.Run(tt.name, func(t *testing.T) {
				g := answer("Thinking for a while.", "c")
				g.errorEvent, g.errorAfter = engineErr, tt.after
				fe := newFakeEngine(t, fixed(g))
				gw := newGateway(t, fe)
				res := postStream(t, gw, withStream(hello, false))
				if res.status != tt.status || res.errEvent == nil || res.done {
					t.Fatalf("status %d, error %+v, done %v", res.status, res.errEvent, res.done)
				}
				if e := res.errEvent.Error; deref(e.Code) != "engine_error" || e.Message != "the engine reported an error" { // its words go to the log (issue 12)
					t.Errorf("error %+v", e)
				}
			})
		}
	})
	t.Run("stream ended without finishing", func(t *testing.T) {
		fe := newFakeEngine(t, fixed(gen{tokens: []string{"<|channel|>", "analysis"}, noFinish: true, noUsage: true, noDone: true}))
		gw := newGateway(t, fe)
		res := postStream(t, gw, withStream(hello, false))
		if res.status != 200 || res.errEvent == nil || deref(res.errEvent.Error.Code) != "engine_cut" || res.done {
			t.Fatalf("status %d, error %+v, done %v", res.status, res.errEvent, res.done)
		}
	})
	t.Run("empty stream is an HTTP error", func(t *testing.T) {
		fe := newFakeEngine(t, fixed(gen{tokens: []string{}, noFinish: true, noUsage: true, noDone: true}))
		gw := newGateway(t, fe)
		res := postStream(t, gw, withStream(hello, false))
		if res.status != 502 || res.errEvent == nil || deref(res.errEvent.Error.Code) != "engine_cut" {
			t.Fatalf("status %d, error %+v", res.status, res.errEvent)
		}
	})
}

// readStreamBytes reads a stream reply already read into data.
func readStreamBytes(t *testing.T, status int, data []byte) *streamResult {
	t.Helper()
	return readStream(t, status, bytes.NewReader(data))
}

func waitCancelled(t testing.TB, fe *fakeEngine, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for fe.cancelled.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the engine saw %d cancelled requests, want %d", fe.cancelled.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDecodeCompletion checks the engine event decoder on the shapes
// engines send.
func TestDecodeCompletion(t *testing.T) {
	var d pyjson.Doc
	for _, tt := range []struct {
		name, in   string
		text       string
		finish     string
		stopReason string
		usage      int64
		bad        bool
	}{
		{"vLLM token", `{"id":"x","object":"text_completion","choices":[{"index":0,"text":"Hi \u00e9\n","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`, "Hi é\n", "", "null", 0, false},
		{"vLLM end", `{"choices":[{"index":0,"text":"","finish_reason":"stop","stop_reason":"<|call|>"}]}`, "", "stop", `"<|call|>"`, 0, false},
		{"SGLang end", `{"choices":[{"index":0,"text":"","finish_reason":"stop","matched_stop":"<|return|>"}]}`, "", "stop", `"<|return|>"`, 0, false},
		{"stop_reason wins over matched_stop", `{"choices":[{"index":0,"text":"","finish_reason":"stop","matched_stop":"b","stop_reason":"a"}]}`, "", "stop", `"a"`, 0, false},
		{"token id", `{"choices":[{"index":0,"text":"","finish_reason":"stop","stop_reason":200012}]}`, "", "stop", `200012`, 0, false},
		{"usage chunk", `{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`, "", "", "", 4, false},
		{"text not a string", `{"choices":[{"index":0,"text":5}]}`, "", "", "", 0, true},
		{"not an object", `[1]`, "", "", "", 0, true},
		{"not JSON", `{"choices":`, "", "", "", 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c completion
			err := decodeCompletion(&d, []byte(tt.in), &c)
			if tt.bad {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.usage != 0 {
				if c.Usage == nil || c.Usage.CompletionTokens != tt.usage {
					t.Errorf("usage %+v", c.Usage)
				}
				return
			}
			ch := c.Choices[0]
			if ch.Text != tt.text || ch.FinishReason != tt.finish || string(ch.StopReason) != tt.stopReason {
				t.Errorf("text %q finish %q stop %s", ch.Text, ch.FinishReason, ch.StopReason)
			}
		})
	}
}
