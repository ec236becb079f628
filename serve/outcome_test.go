package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// outcome is a reply of any of the three APIs, streamed or not, read as a
// client reads it: the reasoning, the text, the calls, and how it ended
// (Chat's finish_reason, Messages' stop_reason, Responses' status).
type outcome struct {
	status    int
	header    http.Header
	reasoning string
	content   string
	calls     []streamCall // id not kept
	finish    string
	raw       string // the body (not streamed) or the last event
	errMsg    string // an error reply's or error event's message
	errParam  string
	errCode   string
}

// apiCase is one API's endpoint and how to read its replies.
type apiCase struct {
	name string
	path string
	read func(t testing.TB, resp *http.Response, stream bool) outcome
}

var apiCases = []apiCase{
	{"chat", "/v1/chat/completions", readChat},
	{"messages", "/v1/messages", readMessages},
	{"responses", "/v1/responses", readResponses},
}

// send posts body to the API (with "stream": true added when stream) and
// reads the reply.
func (a apiCase) send(t testing.TB, gw *httptest.Server, body string, stream bool) outcome {
	t.Helper()
	if stream {
		body = `{"stream":true,` + strings.TrimPrefix(body, "{")
	}
	resp, err := http.Post(gw.URL+a.path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		o := outcome{status: resp.StatusCode, header: resp.Header, raw: string(data)}
		var e struct {
			Error struct {
				Message string  `json:"message"`
				Param   *string `json:"param"`
				Code    *string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil {
			o.errMsg = e.Error.Message
			if e.Error.Param != nil {
				o.errParam = *e.Error.Param
			}
			if e.Error.Code != nil {
				o.errCode = *e.Error.Code
			}
		}
		return o
	}
	o := a.read(t, resp, stream)
	o.status, o.header = resp.StatusCode, resp.Header
	return o
}

func readChat(t testing.TB, resp *http.Response, stream bool) outcome {
	if stream {
		res := readStream(t, resp.StatusCode, resp.Body)
		o := outcome{reasoning: res.reasoning, content: res.content, finish: res.finish}
		for _, c := range res.calls {
			o.calls = append(o.calls, streamCall{name: c.name, args: c.args})
		}
		if res.errEvent != nil {
			o.errMsg = res.errEvent.Error.Message
		}
		return o
	}
	data, _ := io.ReadAll(resp.Body)
	var c completionJSON
	if err := json.Unmarshal(data, &c); err != nil || len(c.Choices) == 0 {
		t.Fatalf("not a chat completion: %s", data)
	}
	m := c.Choices[0].Message
	o := outcome{reasoning: deref(m.ReasoningContent), content: deref(m.Content), finish: c.Choices[0].FinishReason, raw: string(data)}
	for _, tc := range m.ToolCalls {
		o.calls = append(o.calls, streamCall{name: tc.Function.Name, args: tc.Function.Arguments})
	}
	return o
}

// anthropicBlock is a Messages content block.
type anthropicBlock struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking string          `json:"thinking"`
	Name     string          `json:"name"`
	Input    json.RawMessage `json:"input"`
}

func readMessages(t testing.TB, resp *http.Response, stream bool) outcome {
	if !stream {
		data, _ := io.ReadAll(resp.Body)
		var m struct {
			Content    []anthropicBlock `json:"content"`
			StopReason string           `json:"stop_reason"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("not a message: %s", data)
		}
		o := outcome{finish: m.StopReason, raw: string(data)}
		for _, b := range m.Content {
			o.addBlock(b)
		}
		return o
	}
	var o outcome
	var cur *anthropicBlock
	var input strings.Builder
	for _, e := range readSSE(t.(*testing.T), resp.Body) {
		o.raw = e.raw
		switch e.name {
		case "content_block_start":
			var ev struct {
				Block anthropicBlock `json:"content_block"`
			}
			_ = json.Unmarshal([]byte(e.raw), &ev)
			cur = &ev.Block
			input.Reset()
		case "content_block_delta":
			var ev struct {
				Delta struct {
					Type        string `json:"type"`
					Text        string `json:"text"`
					Thinking    string `json:"thinking"`
					PartialJSON string `json:"partial_json"`
				} `json:"delta"`
			}
			_ = json.Unmarshal([]byte(e.raw), &ev)
			switch ev.Delta.Type {
			case "text_delta":
				cur.Text += ev.Delta.Text
			case "thinking_delta":
				cur.Thinking += ev.Delta.Thinking
			case "input_json_delta":
				input.WriteString(ev.Delta.PartialJSON)
			}
		case "content_block_stop":
			if cur.Type == "tool_use" {
				cur.Input = json.RawMessage(input.String())
			}
			o.addBlock(*cur)
		case "message_delta":
			var ev struct {
				Delta struct {
					StopReason string `json:"stop_reason"`
				} `json:"delta"`
			}
			_ = json.Unmarshal([]byte(e.raw), &ev)
			o.finish = ev.Delta.StopReason
		case "error":
			var ev struct {
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			_ = json.Unmarshal([]byte(e.raw), &ev)
			o.errMsg = ev.Error.Message
		}
	}
	return o
}

func (o *outcome) addBlock(b anthropicBlock) {
	switch b.Type {
	case "thinking":
		o.reasoning += b.Thinking
	case "text":
		o.content += b.Text
	case "tool_use":
		o.calls = append(o.calls, streamCall{name: b.Name, args: string(b.Input)})
	}
}

// responseObject is a Responses response object as a client reads it.
type responseObject struct {
	Status string `json:"status"`
	Output []struct {
		Type    string `json:"type"`
		Name    string `json:"name"`
		Args    string `json:"arguments"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"output"`
	Text json.RawMessage `json:"text"`
}

func (r *responseObject) outcome(raw string) outcome {
	o := outcome{finish: r.Status, raw: raw}
	for _, it := range r.Output {
		switch it.Type {
		case "reasoning":
			for _, c := range it.Content {
				o.reasoning += c.Text
			}
		case "message":
			for _, c := range it.Content {
				o.content += c.Text
			}
		case "function_call":
			o.calls = append(o.calls, streamCall{name: it.Name, args: it.Args})
		}
	}
	return o
}

func readResponses(t testing.TB, resp *http.Response, stream bool) outcome {
	if !stream {
		data, _ := io.ReadAll(resp.Body)
		var r responseObject
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("not a response: %s", data)
		}
		return r.outcome(string(data))
	}
	events := readSSE(t.(*testing.T), resp.Body)
	if len(events) == 0 {
		t.Fatal("no events")
	}
	last := events[len(events)-1]
	var ev struct {
		Response responseObject `json:"response"`
	}
	if err := json.Unmarshal([]byte(last.raw), &ev); err != nil {
		t.Fatalf("last event: %s", last.raw)
	}
	o := ev.Response.outcome(last.raw)
	if last.name == "response.failed" {
		o.errMsg = last.raw
	}
	return o
}
