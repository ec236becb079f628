package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func postResponses(t *testing.T, gw *httptest.Server, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(gw.URL+"/v1/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, data
}

func TestResponsesBadRequests(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	gw := newGateway(t, fe)
	for _, tt := range []struct {
		name, body, param, want string
	}{
		{"store", `{"model":"beam","input":"Hi","store":true}`, "store", "store: true asks the server to keep the response, and this gateway is stateless"},
		{"previous_response_id", `{"model":"beam","input":"Hi","previous_response_id":"resp_1"}`, "previous_response_id", "previous_response_id: this gateway is stateless"},
		{"unknown tool type", `{"model":"beam","input":"Hi","tools":[{"type":"frobnicate"}]}`, "tools[0].type", `tools[0].type: "frobnicate" is an unknown tool type`},
		{"custom tool", `{"model":"beam","input":"Hi","tools":[{"type":"custom","name":"apply_patch"}]}`, "tools[0].type", `tools[0].type: "custom" is a custom (free-form) tool`},
		{"namespace without tools", `{"model":"beam","input":"Hi","tools":[{"type":"namespace","name":"ns","tools":[]}]}`, "tools[0].tools", `tools[0].tools: must be a non-empty list`},
		{"hosted tool in a namespace", `{"model":"beam","input":"Hi","tools":[{"type":"namespace","name":"ns","tools":[{"type":"web_search"}]}]}`, "tools[0].tools[0].type", `tools[0].tools[0].type: "web_search" tools are not supported in a namespace`},
		{"namespaced name taken", `{"model":"beam","input":"Hi","tools":[{"type":"function","name":"f"},{"type":"namespace","name":"ns","tools":[{"type":"function","name":"f"}]}]}`, "tools[1].tools[0].name", `tools[1].tools[0].name: "f" is also the name of tools[0]`},
		{"tool_choice naming a hosted tool", `{"model":"beam","input":"Hi","tools":[{"type":"web_search"}],"tool_choice":{"type":"web_search"}}`, "tool_choice.type", `tool_choice.type: "web_search" is a hosted tool, which this gateway cannot run`},
		{"tool_choice required without tools", `{"model":"beam","input":"Hi","tool_choice":"required"}`, "tool_choice", `tool_choice: asks for a tool call, but the request declares no tools`},
		{"forced function undeclared", `{"model":"beam","input":"Hi","tool_choice":{"type":"function","name":"f"}}`, "tool_choice", `tool_choice: names "f", which is not among the tools`},
		{"image part", `{"model":"beam","input":[{"role":"user","content":[{"type":"input_image","image_url":"x"}]}]}`, "input[0].content[0].type", `input[0].content[0].type: "input_image" parts are not supported`},
		{"unknown item", `{"model":"beam","input":[{"type":"file_search_call","id":"x"}]}`, "input[0].type", `input[0].type: "file_search_call" items are not supported`},
		{"effort none", `{"model":"beam","input":"Hi","reasoning":{"effort":"none"}}`, "reasoning.effort", "reasoning_effort"},
		{"bad arguments", `{"model":"beam","input":[{"role":"user","content":"Hi"},{"type":"function_call","call_id":"c","name":"f","arguments":"{nope"}]}`, "input[1].arguments", "input[1].arguments: not valid JSON"},
		{"marker", `{"model":"beam","input":"a<|call|>b"}`, "input", "input: contains the Harmony marker <|call|>"},
		{"item_reference", `{"model":"beam","input":[{"role":"user","content":"Hi"},{"type":"item_reference","id":"rs_1"}]}`, "input[1]", "input[1]: item_reference needs stored items, and this gateway is stateless (set store: false in the client"},
		{"stored prompt", `{"model":"beam","input":"Hi","prompt":{"id":"pmpt_1","variables":{"x":"y"}}}`, "prompt", "prompt: a stored prompt template is kept on OpenAI's platform"},
		{"item_reference without id", `{"model":"beam","input":[{"type":"item_reference"}]}`, "input[0].id", "input[0].id: required"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := postResponses(t, gw, tt.body)
			e := decodeError(t, data)
			if resp.StatusCode != 400 || e.Error.Param == nil || *e.Error.Param != tt.param || !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("%d %s\nwant param %q, message with %q", resp.StatusCode, data, tt.param, tt.want)
			}
		})
	}
	if n := len(fe.requests()); n != 0 {
		t.Errorf("the engine got %d requests", n)
	}
}

// TestResponsesRequestMapping checks what reaches the engine.
func TestResponsesRequestMapping(t *testing.T) {
	fe := newFakeEngine(t, fixed(answer("r", "c")))
	gw := newGateway(t, fe)
	for _, tt := range []struct {
		name, body string
		check      func(t *testing.T, r *engineReq)
	}{
		{"instructions, effort and sampling", `{"model":"beam","input":"Hi","instructions":"Be brief.","reasoning":{"effort":"low","summary":"auto"},"max_output_tokens":50,"temperature":0.2,"top_p":0.8,"store":false,"include":["reasoning.encrypted_content"]}`,
			func(t *testing.T, r *engineReq) {
				if !strings.Contains(r.Prompt, "Reasoning effort: 32\n") || !strings.Contains(r.Prompt, "# Instructions\n\nBe brief.") {
					t.Errorf("prompt %q", r.Prompt)
				}
				for k, v := range map[string]string{"temperature": "0.2", "top_p": "0.8", "max_tokens": "50"} {
					if string(r.raw[k]) != v {
						t.Errorf("%s = %s", k, r.raw[k])
					}
				}
			}},
		{"tool_choice none", `{"model":"beam","input":"Hi","tools":[{"type":"function","name":"f","parameters":{"type":"object"}}],"tool_choice":"none"}`,
			func(t *testing.T, r *engineReq) {
				if strings.Contains(r.Prompt, "# Tools") {
					t.Errorf("tools declared: %q", r.Prompt)
				}
			}},
		{"allowed_tools", `{"model":"beam","input":"Hi","tools":[{"type":"function","name":"f","parameters":{"type":"object"}},{"type":"function","name":"g","parameters":{"type":"object"}}],"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"g"}]}}`,
			func(t *testing.T, r *engineReq) {
				if strings.Contains(r.Prompt, "type f =") || !strings.Contains(r.Prompt, "type g =") {
					t.Errorf("prompt %q", r.Prompt)
				}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := postResponses(t, gw, tt.body)
			if resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, data)
			}
			tt.check(t, fe.lastRequest(t))
		})
	}
}

// TestResponsesEventSequence checks the exact events of a streamed
// reply, and the incomplete end of one cut by max_output_tokens.
func TestResponsesEventSequence(t *testing.T) {
	weather := `{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}`
	for _, tt := range []struct {
		name string
		gen  gen
		body string
		want []string
	}{
		{"answer", answer("Greeting.", "Hi!"), `{"model":"beam","stream":true,"input":"Hello!"}`,
			[]string{"response.created", "response.in_progress",
				"response.output_item.added", "response.content_part.added", "response.reasoning_text.delta", "response.reasoning_text.done", "response.content_part.done", "response.output_item.done",
				"response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done",
				"response.completed"}},
		{"tool call", callGen("Check.", scriptCall{"get_weather", [][2]string{{"city", "Oslo"}}}),
			`{"model":"beam","stream":true,"tools":[` + weather + `],"input":"Oslo?"}`,
			[]string{"response.created", "response.in_progress",
				"response.output_item.added", "response.content_part.added", "response.reasoning_text.delta", "response.reasoning_text.done", "response.content_part.done", "response.output_item.done",
				"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done",
				"response.completed"}},
		{"cut by max_output_tokens", gen{text: "<|channel|>analysis<|message|>Thinking on", finish: "length"},
			`{"model":"beam","stream":true,"max_output_tokens":3,"input":"Hello!"}`,
			[]string{"response.created", "response.in_progress",
				"response.output_item.added", "response.content_part.added", "response.reasoning_text.delta", "response.reasoning_text.done", "response.content_part.done", "response.output_item.done",
				"response.incomplete"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.gen
			g.tokens = []string{g.text}
			fe := newFakeEngine(t, fixed(g))
			gw := newGateway(t, fe)
			resp, err := http.Post(gw.URL+"/v1/responses", "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			events := readSSE(t, resp.Body)
			var got []string
			for i, e := range events {
				if e.data["type"] != e.name || e.data["sequence_number"] != float64(i) {
					t.Errorf("event %d: %s", i, e.raw)
				}
				got = append(got, e.name)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("events\n%v\nwant\n%v", got, tt.want)
			}
			last := events[len(events)-1].data["response"].(map[string]any)
			if tt.name == "cut by max_output_tokens" {
				if last["status"] != "incomplete" || last["incomplete_details"].(map[string]any)["reason"] != "max_output_tokens" {
					b, _ := json.Marshal(last)
					t.Errorf("final response %s", b)
				}
			}
		})
	}
}
