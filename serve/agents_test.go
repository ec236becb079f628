package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// What coding agents send (issue 32): late instructions, namespace and
// hosted tools, Claude Code's billing header, deferred tools, metadata
// and context management.

// metric returns the value of the series whose line starts with name and
// its labels as Prometheus writes them, or -1.
func metric(t *testing.T, gw *httptest.Server, series string) float64 {
	t.Helper()
	resp, err := http.Get(gw.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			var f float64
			if err := json.Unmarshal([]byte(v), &f); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	return -1
}

// claudeCodeFallback is Claude Code 2.1's test of a 400 for a system
// message after the conversation has begun: when one of its patterns
// matches the message, it resends with such messages folded into its
// first user turn (/work/shared/research/agents.md).
func claudeCodeFallback(msg string) bool {
	roleSystem := regexp.MustCompile(`(?i)role .{0,2}system`)
	return strings.Contains(msg, "not supported") && roleSystem.MatchString(msg) ||
		strings.Contains(msg, "Unexpected role") && strings.Contains(msg, "input message role") ||
		regexp.MustCompile(`role .{0,2}system.{0,2} must (precede an|follow a)`).MatchString(msg)
}

// TestLateInstructionsPlaced: on every API, a system or developer message
// after the first message joins the instructions before the first
// assistant turn, and after one is a user message in its place; each is
// counted. Before issue 32 each was a 400.
func TestLateInstructionsPlaced(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) { c.Model = "beam"; c.AllowMissingThinking = true })
	const instr = "<|start|>developer<|message|># Instructions\n\n"
	tests := []struct {
		name, path, body string
		want             string // in the engine's prompt
		placement        string
	}{
		{"chat: late developer joins", "/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"},{"role":"developer","content":"Be brief."}]}`,
			instr + "Be brief.<|end|><|start|>user<|message|>Hi<|end|><|start|>assistant", "instructions"},
		{"chat: late system after leading", "/v1/chat/completions", `{"messages":[{"role":"system","content":"A"},{"role":"user","content":"Hi"},{"role":"system","content":"B"}]}`,
			instr + "A\n\nB<|end|><|start|>user<|message|>Hi<|end|>", "instructions"},
		{"chat: after an assistant turn", "/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello","reasoning_content":"r0"},{"role":"system","content":"Be brief."},{"role":"user","content":"More"}]}`,
			"<|return|><|start|>user<|message|># Instructions\n\nBe brief.<|end|><|start|>user<|message|>More<|end|>", "user_message"},
		{"responses: late developer", "/v1/responses", `{"input":[{"role":"user","content":"Hi"},{"role":"developer","content":"Be brief."}]}`,
			instr + "Be brief.<|end|><|start|>user<|message|>Hi<|end|>", "instructions"},
		{"responses: late system item after instructions", "/v1/responses", `{"instructions":"A","input":[{"type":"message","role":"user","content":"Hi"},{"type":"message","role":"system","content":"B"}]}`,
			instr + "A\n\nB<|end|><|start|>user<|message|>Hi<|end|>", "instructions"},
		{"messages: Claude Code's environment at messages[1]", "/v1/messages", `{"max_tokens":10,"system":"S","messages":[{"role":"user","content":"Hi"},{"role":"system","content":[{"type":"text","text":"# Environment","cache_control":{"type":"ephemeral"}}]}]}`,
			instr + "S\n\n# Environment<|end|><|start|>user<|message|>Hi<|end|>", "instructions"},
		{"messages: after an assistant turn", "/v1/messages", `{"max_tokens":10,"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"},{"role":"system","content":"Be brief."},{"role":"user","content":"More"}]}`,
			"<|return|><|start|>user<|message|># Instructions\n\nBe brief.<|end|><|start|>user<|message|>More<|end|>", "user_message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			series := `beamharmony_late_instructions_total{endpoint="` + tt.path + `",placement="` + tt.placement + `"}`
			before := max(metric(t, gw, series), 0)
			resp, data := do(t, gw, "POST", tt.path, tt.body, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, data)
			}
			if p := fe.lastRequest(t).Prompt; !strings.Contains(p, tt.want) {
				t.Errorf("prompt\n%q\nwant it to hold\n%q", p, tt.want)
			}
			if got := metric(t, gw, series); got != before+1 {
				t.Errorf("%s = %v, want %v", series, got, before+1)
			}
		})
	}
}

// TestLateInstructionsRefused: with --refuse-late-instructions the 400
// uses words Claude Code's fallback matches, on every API, and the
// refusal is counted.
func TestLateInstructionsRefused(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) { c.Model = "beam"; c.RefuseLateInstructions = true })
	tests := []struct {
		name, path, body, param string
	}{
		{"chat", "/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"},{"role":"system","content":"Be brief."}]}`, "messages[1].role"},
		{"responses", "/v1/responses", `{"instructions":"A","input":[{"role":"user","content":"Hi"},{"role":"system","content":"B"}]}`, "input[1].role"},
		{"messages", "/v1/messages", `{"max_tokens":10,"messages":[{"role":"user","content":"Hi"},{"role":"system","content":"Be brief."}]}`, "messages[1].role"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := do(t, gw, "POST", tt.path, tt.body, nil)
			var e struct {
				Error struct {
					Message string  `json:"message"`
					Param   *string `json:"param"`
				} `json:"error"`
			}
			if err := json.Unmarshal(data, &e); err != nil || resp.StatusCode != 400 {
				t.Fatalf("%d %s", resp.StatusCode, data)
			}
			if !claudeCodeFallback(e.Error.Message) {
				t.Errorf("%q: Claude Code would not fall back on it", e.Error.Message)
			}
			if !strings.HasPrefix(e.Error.Message, strings.TrimSuffix(tt.param, ".role")+": ") {
				t.Errorf("%q does not start with the message's path", e.Error.Message)
			}
			if e.Error.Param != nil && *e.Error.Param != tt.param {
				t.Errorf("param %q, want %q", *e.Error.Param, tt.param)
			}
			series := `beamharmony_late_instructions_total{endpoint="` + tt.path + `",placement="refused"}`
			if got := metric(t, gw, series); got != 1 {
				t.Errorf("%s = %v, want 1", series, got)
			}
		})
	}
	// Leading instructions are not refused.
	if resp, data := do(t, gw, "POST", "/v1/chat/completions", `{"messages":[{"role":"system","content":"A"},{"role":"user","content":"Hi"}]}`, nil); resp.StatusCode != 200 {
		t.Errorf("leading system: %d %s", resp.StatusCode, data)
	}
	if n := len(fe.requests()); n != 1 {
		t.Errorf("the engine got %d requests, want 1", n)
	}
}

// TestHostedTools: a hosted tool the gateway cannot run is left out of the
// prompt and reported (header, log, metric); --refuse-hosted-tools keeps
// the 400, which says what the tool is.
func TestHostedTools(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	var logs syncBuffer
	gw := newGateway(t, fe, withLog(&logs), func(c *Config) { c.Model = "beam" })
	refusing := newGateway(t, fe, func(c *Config) { c.Model = "beam"; c.RefuseHostedTools = true })
	f := `{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}}}`
	tests := []struct {
		name, path, body, header, refusal string
	}{
		{"responses web_search", "/v1/responses", `{"input":"Hi","tools":[` + f + `,{"type":"web_search","external_web_access":true}]}`,
			"tools[1]", `tools[1].type: "web_search" is a hosted tool (OpenAI runs it)`},
		{"responses code_interpreter and mcp", "/v1/responses", `{"input":"Hi","tools":[{"type":"code_interpreter","container":{"type":"auto"}},` + f + `,{"type":"mcp","server_label":"x"}]}`,
			"tools[0], tools[2]", `tools[0].type: "code_interpreter" is a hosted tool`},
		{"messages web_search server tool", "/v1/messages", `{"max_tokens":10,"messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5},{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}]}`,
			"tools[0]", `tools[0].type: "web_search_20250305" is a server tool (Anthropic runs it)`},
		{"messages code_execution and web_fetch", "/v1/messages", `{"max_tokens":10,"messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"code_execution_20250825","name":"code_execution"},{"type":"web_fetch_20250910","name":"web_fetch"}]}`,
			"tools[0], tools[1]", `tools[0].type: "code_execution_20250825" is a server tool`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := do(t, gw, "POST", tt.path, tt.body, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, data)
			}
			if h := resp.Header.Get(UnenforcedHeader); h != tt.header {
				t.Errorf("%s: %q, want %q", UnenforcedHeader, h, tt.header)
			}
			p := fe.lastRequest(t).Prompt
			for _, hosted := range []string{"web_search", "code_interpreter", "mcp", "code_execution", "web_fetch"} {
				if strings.Contains(p, "type "+hosted+" ") {
					t.Errorf("the prompt declares %s:\n%s", hosted, p)
				}
			}
			resp, data = do(t, refusing, "POST", tt.path, tt.body, nil)
			if resp.StatusCode != 400 || !strings.Contains(strings.ReplaceAll(string(data), `\"`, `"`), tt.refusal) {
				t.Errorf("refusing: %d %s\nwant %q", resp.StatusCode, data, tt.refusal)
			}
		})
	}
	if !strings.Contains(logs.String(), `"not_honoured":["tools[1]: the hosted tool \"web_search\" is left out of the prompt`) {
		t.Errorf("the log does not say what was left out:\n%s", logs.String())
	}
	if got := metric(t, gw, `beamharmony_unhonoured_total{endpoint="/v1/messages",kind="hosted_tool"}`); got != 3 {
		t.Errorf("unhonoured hosted tools on /v1/messages: %v, want 3", got)
	}
}

// multiAgent is Codex's namespace tool (trimmed).
const multiAgent = `{"type":"namespace","name":"multi_agent_v1","description":"Spawn and manage sub-agents.","tools":[` +
	`{"type":"function","name":"spawn_agent","description":"Start a sub-agent.","strict":false,"parameters":{"type":"object","properties":{"task":{"type":"string"}},"required":["task"]}},` +
	`{"type":"function","name":"wait_agent","parameters":{"type":"object","properties":{"id":{"type":"string"}}}}]}`

// TestNamespaceTools: a namespace's function tools are declared to Beam
// by their bare names, a call to one goes out as a function_call item with
// the namespace (streamed and not), and such calls and their outputs are
// read back from input.
func TestNamespaceTools(t *testing.T) {
	fe := newFakeEngine(t, fixed(callGen("spawn one", scriptCall{"spawn_agent", [][2]string{{"task", "list files"}}})))
	gw := newGateway(t, fe, func(c *Config) { c.Model = "beam" })
	body := `{"input":"Hi","tools":[` + multiAgent + `]}`
	resp, data := postResponses(t, gw, body)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, data)
	}
	p := fe.lastRequest(t).Prompt
	for _, want := range []string{"// Namespace multi_agent_v1: Spawn and manage sub-agents.\n//\n// Start a sub-agent.\ntype spawn_agent = (_: {", "type wait_agent = (_: {"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	var r struct {
		Output []map[string]any `json:"output"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	call := r.Output[len(r.Output)-1]
	if call["type"] != "function_call" || call["name"] != "spawn_agent" || call["namespace"] != "multi_agent_v1" || call["arguments"] != `{"task": "list files"}` {
		t.Errorf("call item %v, want spawn_agent in namespace multi_agent_v1", call)
	}
	st := postResponsesStream(t, gw, strings.Replace(body, `{"input"`, `{"stream":true,"input"`, 1))
	if !strings.Contains(st, `"name":"spawn_agent","namespace":"multi_agent_v1","arguments":`) {
		t.Errorf("the stream's call item has no namespace:\n%s", st)
	}
	// The call and its output come back.
	var reasoning json.RawMessage
	for _, it := range r.Output {
		if it["type"] == "reasoning" {
			reasoning, _ = json.Marshal(it)
		}
	}
	callJSON, _ := json.Marshal(call)
	next := `{"input":[{"role":"user","content":"Hi"},` + string(reasoning) + `,` + string(callJSON) +
		`,{"type":"function_call_output","call_id":"` + call["call_id"].(string) + `","output":"agent a1 started"}],"tools":[` + multiAgent + `]}`
	resp, data = postResponses(t, gw, next)
	if resp.StatusCode != 200 {
		t.Fatalf("sending the namespaced call back: %d %s", resp.StatusCode, data)
	}
	if p2 := fe.lastRequest(t).Prompt; !strings.HasPrefix(p2, p) || !strings.Contains(p2, "<|start|>spawn_agent to=assistant<|channel|>analysis<|message|>agent a1 started<|end|>") {
		t.Errorf("second prompt does not continue the first with the output:\n%s", p2)
	}
}

// postResponsesStream returns a streamed Responses reply's body.
func postResponsesStream(t *testing.T, gw *httptest.Server, body string) string {
	t.Helper()
	resp, data := postResponses(t, gw, body)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, data)
	}
	return string(data)
}

// TestClaudeCodeFields: the billing-header block is left out and reported;
// metadata.user_id routes; context_management edits are honoured or
// reported; thinking.display is reported; cache_control is accepted.
func TestClaudeCodeFields(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) { c.Model = "beam" })
	tests := []struct {
		name, extra string
		header      string
		notInPrompt string
	}{
		{"billing header", `"system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=2.1.332; cc_entrypoint=sdk-cli;"},{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}]`,
			"system[0]", "x-anthropic-billing-header"},
		{"billing header alone", `"system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=1;"}]`, "system[0]", "billing"},
		{"keep all thinking is honoured", `"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}`, "", ""},
		{"other edits are reported", `"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":{"type":"thinking_turns","value":1}},{"type":"clear_tool_uses_20250919"}]}`,
			"context_management.edits[0], context_management.edits[1]", ""},
		{"metadata.user_id routes", `"metadata":{"user_id":"{\"device_id\":\"d\",\"session_id\":\"s\"}"}`, "", ""},
		{"thinking display", `"thinking":{"type":"adaptive","display":"updates"},"output_config":{"effort":"high"}`, "thinking.display", ""},
		// @anthropic-ai/sdk 1.17's thinking between tool calls only:
		// Beam reasons before every turn (decision 279).
		{"thinking between tools", `"thinking":{"type":"between_tools"}`, "thinking.type", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"Hi","cache_control":{"type":"ephemeral"}}]}],` + tt.extra + `}`
			resp, data := do(t, gw, "POST", "/v1/messages?beta=true", body, map[string]string{"anthropic-beta": "claude-code-20250219,context-management-2025-06-27"})
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, data)
			}
			if h := resp.Header.Get(UnenforcedHeader); h != tt.header {
				t.Errorf("%s: %q, want %q", UnenforcedHeader, h, tt.header)
			}
			if p := fe.lastRequest(t).Prompt; tt.notInPrompt != "" && strings.Contains(p, tt.notInPrompt) {
				t.Errorf("prompt holds %q:\n%s", tt.notInPrompt, p)
			}
		})
	}
	for _, bad := range []struct{ extra, want string }{
		{`"metadata":"x"`, "metadata: must be an object"},
		{`"metadata":{"user_id":5}`, "metadata.user_id: must be a string"},
		{`"context_management":{"edits":{}}`, "context_management.edits: must be a list"},
		{`"context_management":{"edits":[1]}`, "context_management.edits[0]: must be an edit object"},
	} {
		body := `{"max_tokens":10,"messages":[{"role":"user","content":"Hi"}],` + bad.extra + `}`
		if resp, data := do(t, gw, "POST", "/v1/messages", body, nil); resp.StatusCode != 400 || !strings.Contains(string(data), bad.want) {
			t.Errorf("%s: %d %s, want %q", bad.extra, resp.StatusCode, data, bad.want)
		}
	}
}

// TestDeferredTools: a defer_loading tool is not declared until a
// tool_reference block in a tool result loads it; then its declaration
// stands at the end of that tool result, so that the earlier prompt stays
// a prefix. Under a constraint it is declared with the others, reported.
func TestDeferredTools(t *testing.T) {
	fe := newFakeEngine(t, fixed(callGen("search", scriptCall{"ToolSearch", [][2]string{{"query", "notebook"}}})))
	gw := newGateway(t, fe, func(c *Config) { c.Model = "beam"; c.AllowMissingThinking = true })
	tools := `"tools":[{"name":"ToolSearch","input_schema":{"type":"object","properties":{"query":{"type":"string"}}}},` +
		`{"name":"NotebookEdit","description":"Edit a notebook cell.","defer_loading":true,"input_schema":{"type":"object","properties":{"cell":{"type":"integer"}}}}]`
	resp, data := do(t, gw, "POST", "/v1/messages", `{"max_tokens":10,"messages":[{"role":"user","content":"Edit it"}],`+tools+`}`, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, data)
	}
	first := fe.lastRequest(t).Prompt
	if strings.Contains(first, "NotebookEdit") || !strings.Contains(first, "type ToolSearch") {
		t.Fatalf("first prompt: the deferred tool is declared, or the other is not:\n%s", first)
	}
	turn2 := `{"max_tokens":10,"messages":[{"role":"user","content":"Edit it"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"search","signature":"x"},{"type":"tool_use","id":"t1","name":"ToolSearch","input":{"query":"notebook"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"tool_reference","tool_name":"NotebookEdit"}]}]}],` + tools + `}`
	resp, data = do(t, gw, "POST", "/v1/messages", turn2, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, data)
	}
	second := fe.lastRequest(t).Prompt
	want := "<|start|>ToolSearch to=assistant<|channel|>analysis<|message|># Tools\n\n// Edit a notebook cell.\ntype NotebookEdit = (_: {\ncell?: number,\n}) => any;<|end|><|start|>assistant"
	if !strings.HasPrefix(second, first[:len(first)-len("<|start|>assistant")]) || !strings.HasSuffix(second, want) {
		t.Errorf("second prompt:\n%q\nwant the first's prefix and the ending\n%q", second, want)
	}
	// A reference to no tool, and a constraint that needs every tool.
	bad := strings.Replace(turn2, `"tool_name":"NotebookEdit"`, `"tool_name":"Nope"`, 1)
	if resp, data := do(t, gw, "POST", "/v1/messages", bad, nil); resp.StatusCode != 400 || !strings.Contains(string(data), `messages[2].content[0].content[0].tool_name: \"Nope\" names no tool in tools`) {
		t.Errorf("unknown reference: %d %s", resp.StatusCode, data)
	}
	fe.script = fixed(callGen("x", scriptCall{"NotebookEdit", [][2]string{{"cell", "1"}}}))
	constrained := newGateway(t, fe, func(c *Config) { c.Model = "beam"; c.Engine = EngineVLLM })
	resp, data = do(t, constrained, "POST", "/v1/messages", `{"max_tokens":10,"messages":[{"role":"user","content":"Edit it"}],"tool_choice":{"type":"any"},`+tools+`}`, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("constrained: %d %s", resp.StatusCode, data)
	}
	if h := resp.Header.Get(UnenforcedHeader); h != "tools[0].input_schema.additionalProperties, tools[1].input_schema.additionalProperties, tools[1].defer_loading" || !strings.Contains(fe.lastRequest(t).Prompt, "type NotebookEdit") {
		t.Errorf("constrained: header %q, prompt\n%s", h, fe.lastRequest(t).Prompt)
	}
}

// TestClientConversationKey: metadata.user_id and prompt_cache_key key the
// conversation for the router.
func TestClientConversationKey(t *testing.T) {
	tests := []struct {
		name, body string
		decode     func([]byte) (*request, *apiError)
		want       uint64
	}{
		{"messages", `{"model":"m","max_tokens":5,"metadata":{"user_id":"u1"},"messages":[{"role":"user","content":"Hi"}]}`, nil, clientConversationKey("u1")},
		{"responses", `{"model":"m","prompt_cache_key":"k1","input":"Hi"}`, nil, clientConversationKey("k1")},
		{"responses without", `{"model":"m","input":"Hi"}`, nil, 0},
	}
	s, err := New(Config{Backend: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		var r *request
		if strings.HasPrefix(tt.name, "messages") {
			m, aerr := decodeMessagesRequest([]byte(tt.body), s, false, "")
			if aerr != nil {
				t.Fatal(aerr)
			}
			r = m.req
		} else {
			rr, aerr := decodeResponsesRequest([]byte(tt.body), s, "")
			if aerr != nil {
				t.Fatal(aerr)
			}
			r = rr.req
		}
		if r.convKey != tt.want {
			t.Errorf("%s: key %d, want %d", tt.name, r.convKey, tt.want)
		}
	}
}

// TestAgentToolMarkers: a marker in a deferred tool's schema is refused
// like one in any declared tool's (the declaration reaches the prompt in a
// tool result), and one in a namespace's tool names the tool's request
// path.
func TestAgentToolMarkers(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	gw := newGateway(t, fe, func(c *Config) { c.Model = "beam" })
	resp, data := do(t, gw, "POST", "/v1/messages", `{"max_tokens":10,"messages":[{"role":"user","content":"Hi"}],"tools":[`+
		`{"name":"f","input_schema":{"type":"object"}},{"name":"g","defer_loading":true,"input_schema":{"type":"object","properties":{"a":{"enum":["x","<|end|>"]}}}}]}`, nil)
	if resp.StatusCode != 400 || !strings.Contains(string(data), "tools[1].function.parameters.properties.a.enum[1]: contains the Harmony marker <|end|>") {
		t.Errorf("deferred tool: %d %s", resp.StatusCode, data)
	}
	resp, data = postResponses(t, gw, `{"input":"Hi","tools":[{"type":"function","name":"f"},`+
		`{"type":"namespace","name":"ns","tools":[{"type":"function","name":"g"},{"type":"function","name":"h","parameters":{"type":"object","properties":{"a":{"enum":["<|call|>"]}}}}]}]}`)
	e := decodeError(t, data)
	if resp.StatusCode != 400 || e.Error.Param == nil || *e.Error.Param != "tools[1].tools[1].parameters.properties.a.enum[0]" ||
		!strings.HasPrefix(e.Error.Message, "tools[1].tools[1].parameters.properties.a.enum[0]: contains the Harmony marker <|call|>") {
		t.Errorf("namespaced tool: %d %s", resp.StatusCode, data)
	}
	if n := len(fe.requests()); n != 0 {
		t.Errorf("the engine got %d requests", n)
	}
}

// TestClientKeyRoutes: sessions that open with the same question but name
// different conversations (Claude Code's metadata.user_id) are placed by
// their own keys, so they spread over the replicas; keyed by the prompt,
// they would all land on one.
func TestClientKeyRoutes(t *testing.T) {
	var fes []*fakeEngine
	for range 3 {
		fes = append(fes, newFakeEngine(t, fixed(answer("r", "ok"))))
	}
	_, gw := newPool(t, fes, func(c *Config) { c.Model = "beam"; c.Routing.NewConversations = RouteNewHash })
	// The replicas' ports are random, so which replica a key hashes to is
	// too: 8 sessions all land on one replica with a chance of 3 * 3^-8,
	// about once in 2,200 runs (seen once in 4,000). 32 make it 3^-31.
	const sessions = 32
	for i := range sessions {
		body := `{"max_tokens":10,"metadata":{"user_id":"session-` + strconv.Itoa(i) + `"},"messages":[{"role":"user","content":"Hi"}]}`
		if resp, data := do(t, gw, "POST", "/v1/messages", body, nil); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, data)
		}
	}
	used := 0
	for _, n := range whoGot(fes) {
		if n > 0 {
			used++
		}
	}
	if used < 2 {
		t.Errorf("%d sessions with their own keys went to %d replicas (requests per replica %v), want more than one", sessions, used, whoGot(fes))
	}
}

// TestResponsesReasoningEcho: GitHub Copilot's CLI (1.0.102, Responses
// API) shows a reasoning item's text as the turn's message, and sends back
// the reasoning item, an assistant message holding the same text, then the
// turn's function calls. The message says nothing the reasoning does not
// and Beam wrote no message before its calls: it is left out and reported,
// and the prompt is the one without it (decision 241). A message that
// differs from the reasoning is still a 400, and a message equal to the
// reasoning in a turn without calls is the turn's answer, kept. A resumed
// session has the message alone: under --allow-missing-thinking it is the
// turn's reasoning.
func TestResponsesReasoningEcho(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	gw := newGateway(t, fe, func(c *Config) { c.Model = "beam"; c.SigningKey = "k" })
	sg := newSigner("k")
	const reasoning = "I will run echo one."
	thought := func(text string) string {
		return `{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":` + quoteJSON(text) +
			`}],"encrypted_content":` + quoteJSON(sg.seal(text)) + `}`
	}
	item := func(typ string) string {
		switch typ {
		case "reasoning":
			return thought(reasoning)
		case "call":
			return `{"type":"function_call","call_id":"c1","name":"bash","arguments":"{\"command\":\"echo one\"}"},` +
				`{"type":"function_call_output","call_id":"c1","output":"one"}`
		}
		return `{"type":"message","role":"assistant","content":[{"type":"output_text","text":` + quoteJSON(typ) + `}]}`
	}
	body := func(items ...string) string {
		return `{"model":"beam","store":false,"input":[{"role":"user","content":"Run echo one"},` + strings.Join(items, ",") +
			`],"tools":[{"type":"function","name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}]}`
	}
	post := func(b string) (*http.Response, string, string) {
		resp, data := do(t, gw, "POST", "/v1/responses", b, nil)
		prompt := ""
		if resp.StatusCode == 200 {
			prompt = fe.lastRequest(t).Prompt
		}
		return resp, string(data), prompt
	}
	resp, data, want := post(body(item("reasoning"), item("call")))
	if resp.StatusCode != 200 || resp.Header.Get(UnenforcedHeader) != "" {
		t.Fatalf("without the message: %d %s %q", resp.StatusCode, data, resp.Header.Get(UnenforcedHeader))
	}
	// As Copilot sends it, and twice over: two reasoning items, each
	// repeated by a message (a turn's reasoning items are joined as its
	// messages are).
	resp, data, want2 := post(body(thought("I will run"), thought("echo one."), item("call")))
	if resp.StatusCode != 200 {
		t.Fatalf("two reasoning items: %d %s", resp.StatusCode, data)
	}
	for _, items := range [][]string{
		{item("reasoning"), item(reasoning), item("call")},
		{thought("I will run"), thought("echo one."), item("I will run"), item("echo one."), item("call")},
	} {
		resp, data, prompt := post(body(items...))
		if resp.StatusCode != 200 {
			t.Fatalf("echo: %d %s", resp.StatusCode, data)
		}
		wantPaths, wantPrompt := "input[2]", want
		if len(items) == 5 {
			wantPaths, wantPrompt = "input[3], input[4]", want2
		}
		if prompt != wantPrompt {
			t.Errorf("echo: prompt\n%q\nwant\n%q", prompt, wantPrompt)
		}
		if got := resp.Header.Get(UnenforcedHeader); got != wantPaths {
			t.Errorf("echo: %s %q, want %q", UnenforcedHeader, got, wantPaths)
		}
	}
	if got := metric(t, gw, `beamharmony_unhonoured_total{endpoint="/v1/responses",kind="reasoning_echo"}`); got != 3 {
		t.Errorf("reasoning_echo counted %v times, want 3", got)
	}
	resp, data, _ = post(body(item("reasoning"), item("Something else."), item("call")))
	if resp.StatusCode != 400 || !strings.Contains(data, "an assistant message and function calls in one turn") {
		t.Errorf("a message that is not the reasoning: %d %s", resp.StatusCode, data)
	}
	// A message that repeats only part of it is not an echo.
	resp, data, _ = post(body(item("reasoning"), item("I will run"), item("call")))
	if resp.StatusCode != 400 {
		t.Errorf("a message with part of the reasoning: %d %s", resp.StatusCode, data)
	}
	// A session Copilot resumes has the message without the reasoning:
	// a missing reasoning, and with --allow-missing-thinking the message
	// read as the turn's reasoning, which gives the prompt of the live
	// session.
	resp, data, _ = post(body(item(reasoning), item("call")))
	if resp.StatusCode != 400 || !strings.Contains(data, `"missing_reasoning"`) {
		t.Errorf("the message alone: %d %s", resp.StatusCode, data)
	}
	allowing := newGateway(t, fe, func(c *Config) { c.Model = "beam"; c.SigningKey = "k"; c.AllowMissingThinking = true })
	resp, got := do(t, allowing, "POST", "/v1/responses", body(item(reasoning), item("call")), nil)
	if resp.StatusCode != 200 || resp.Header.Get(UnenforcedHeader) != "input[1]" || fe.lastRequest(t).Prompt != want {
		t.Errorf("the message alone, allowing missing thinking: %d %s %q\n%q\nwant\n%q", resp.StatusCode, got,
			resp.Header.Get(UnenforcedHeader), fe.lastRequest(t).Prompt, want)
	}
	resp, data, prompt := post(body(item("reasoning"), item(reasoning), `{"role":"user","content":"Again"}`))
	if resp.StatusCode != 200 || resp.Header.Get(UnenforcedHeader) != "" || !strings.Contains(prompt, "<|channel|>final<|message|>"+reasoning) {
		t.Errorf("an answer equal to its reasoning: %d %s %q\n%s", resp.StatusCode, data, resp.Header.Get(UnenforcedHeader), prompt)
	}
}
