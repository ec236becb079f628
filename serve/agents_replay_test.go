package serve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/beamharmony/harmony"
)

// Sessions of real coding agents, recorded through the gateway in front
// of the scripted engine of serve/testdata/agents/engine (run.sh beside
// it) and replayed here against the fake engine: each request as the
// client sent it (long strings trimmed alike in every request), and the
// generations the engine answered it with. The gateway must answer every
// request as it did (nothing refused), each turn's prompt must begin with
// the previous turn's prompt and generation (the engine's prefix cache),
// and the session must reach its final answer after its tool calls.

// recordedExchange is one recorded request (serve/testdata/agents/sessions/CLIENT/NNN.json).
type recordedExchange struct {
	Method      string            `json:"method"`
	Path        string            `json:"path"`
	Headers     map[string]string `json:"headers"`
	Body        json.RawMessage   `json:"body"`
	Generations []string          `json:"generations"`
	// Status is the gateway's answer when it refused the request (a
	// session recorded under a flag); 0 means 200.
	Status int `json:"status"`
}

func TestAgentSessions(t *testing.T) {
	tests := []struct {
		dir string
		// unhonoured is what the agent's turns send that the gateway
		// reports in X-Beam-Unenforced.
		unhonoured string
		// calls counts a tool call in a streamed reply.
		call string
		// refuse is --refuse-late-instructions, under which the session
		// was recorded.
		refuse bool
		// dropsReasoning is a client that leaves reasoning out of the
		// history (recorded with --allow-missing-thinking): its turns'
		// prompts begin with the previous prompt, but the reply in them
		// is not the generation as written.
		dropsReasoning bool
		// each, when set, is unhonoured request by request (the agent's
		// turns, in order), for what grows with the history.
		each []string
	}{
		{"claude-code-2.1.197", "system[0]", `"type":"tool_use"`, false, false, nil},
		// Newer: asks for thinking.display "omitted", and gets its
		// thinking blocks empty, the text sealed in their signatures,
		// which it sends back for the next turn to open.
		{"claude-code-2.1.332", "system[0]", `"type":"tool_use"`, false, false, nil},
		{"codex-0.171.0", "reasoning.summary, tools[8], client_metadata", `"type":"function_call"`, false, false, nil},
		{"opencode-1.18.33", "", `"tool_calls"`, false, false, nil},
		// Kilo Code's CLI, a fork of opencode.
		{"kilo-7.7.7", "", `"tool_calls"`, false, false, nil},
		// Factory's droid with a custom model, on the three APIs. On Chat
		// Completions it leaves reasoning out of the history.
		{"droid-0.225.2-allow-missing-thinking", "", `"tool_calls"`, false, true, nil},
		{"droid-0.225.2-anthropic", "", `"type":"tool_use"`, false, false, nil},
		{"droid-0.225.2-responses", "", `"type":"function_call"`, false, false, nil},
		// Sends reasoning_content back on its assistant turns.
		{"qwen-code-0.24.4", "", `"tool_calls"`, false, false, nil},
		// Refused, Claude Code resends with its environment folded into
		// its first user message, and finishes.
		{"claude-code-2.1.197-refuse-late-instructions", "system[0]", `"type":"tool_use"`, true, false, nil},
		{"cline-3.0.65", "", `"tool_calls"`, false, false, nil},
		{"continue-cli-1.5.47-allow-missing-thinking", "", `"tool_calls"`, false, true, nil},
		// The two that drop their reasoning, recorded with
		// --reasoning-memory-bytes (a directory named so): the gateway
		// restores it, and the prompts are the ones Beam wrote
		// (decision 242).
		{"continue-cli-1.5.47-reasoning-memory", "", `"tool_calls"`, false, false, nil},
		{"droid-0.225.2-reasoning-memory", "", `"tool_calls"`, false, false, nil},
		// Grok CLI drops the reasoning too, and sends xAI's
		// search_parameters, which the gateway does not read (decision
		// 243).
		{"grok-cli-0.0.34-reasoning-memory", "search_parameters", `"tool_calls"`, false, false, nil},
		// One client over the gateway's three APIs (its models.json's
		// "api"), each with reasoning on. It asks for summarized
		// thinking or reasoning summaries, and gets the whole reasoning
		// (decision 222), reported.
		{"pi-coding-agent-0.73.1", "", `"tool_calls"`, false, false, nil},
		{"pi-coding-agent-0.73.1-anthropic", "thinking.display", `"type":"tool_use"`, false, false, nil},
		{"pi-coding-agent-0.73.1-responses", "reasoning.summary", `"type":"function_call"`, false, false, nil},
		// GitHub Copilot's CLI with a custom provider (BYOK), on the three
		// APIs. On Responses it sends back an assistant message repeating
		// each turn's reasoning before the turn's calls: left out, and
		// reported (decision 241).
		{"copilot-1.0.102", "", `"tool_calls"`, false, false, nil},
		{"copilot-1.0.102-anthropic", "", `"type":"tool_use"`, false, false, nil},
		{"copilot-1.0.102-responses", "", `"type":"function_call"`, false, false,
			[]string{"reasoning.summary", "reasoning.summary, input[2]", "reasoning.summary, input[2], input[6]"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join("testdata", "agents", "sessions", tt.dir, "*.json"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no recorded session: %v", err)
			}
			var exchanges []recordedExchange
			var queue []string
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var e recordedExchange
				if err := json.Unmarshal(data, &e); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				exchanges = append(exchanges, e)
				queue = append(queue, e.Generations...)
			}
			var mu sync.Mutex
			fe := newFakeEngine(t, func(*engineReq) gen {
				mu.Lock()
				defer mu.Unlock()
				if len(queue) == 0 {
					return gen{status: 500, body: `{"error": {"message": "the recording has no more generations"}}`}
				}
				g := queue[0]
				queue = queue[1:]
				stop := harmony.MarkerReturn
				if strings.HasSuffix(g, harmony.MarkerCall) {
					stop = harmony.MarkerCall
				}
				return gen{text: g, stopReason: stop}
			})
			// A session recorded with the reasoning memory: its requests
			// name the calls by the ids the recording's gateway handed
			// out, which are replaced by those this one hands out.
			memory := strings.HasSuffix(tt.dir, "-reasoning-memory")
			ids := replayIDs{}
			// The recording's gateway signed reasoning with this key.
			gw := newGateway(t, fe, func(c *Config) {
				c.Model, c.SigningKey, c.Engine, c.RefuseLateInstructions = "beam", "agents-replay", EngineVLLM, tt.refuse
				c.AllowMissingThinking = tt.dropsReasoning
				if memory {
					c.ReasoningMemoryBytes = 16 << 20
				}
			})
			// Each chain of requests that share their tools is one
			// conversation (a title request has none).
			type chain struct{ prompt, gen string }
			last := map[bool]*chain{}
			calls, final, turns := 0, "", 0
			for i, e := range exchanges {
				seen := len(fe.requests())
				sent := string(e.Body)
				if memory {
					sent = ids.mapped(sent)
				}
				resp, data := do(t, gw, e.Method, e.Path, sent, e.Headers)
				if memory {
					ids.handedOut(string(data))
				}
				want := e.Status
				if want == 0 {
					want = 200
				}
				if resp.StatusCode != want {
					t.Fatalf("request %d (%s): %d %s, want %d", i+1, e.Path, resp.StatusCode, data, want)
				}
				reqs := fe.requests()
				if len(reqs) != seen+len(e.Generations) {
					t.Fatalf("request %d: the engine got %d requests, the recording %d", i+1, len(reqs)-seen, len(e.Generations))
				}
				if len(e.Generations) == 0 {
					continue
				}
				var body struct {
					Tools json.RawMessage `json:"tools"`
				}
				_ = json.Unmarshal(e.Body, &body)
				agent := len(body.Tools) > 2
				prompt := reqs[len(reqs)-1].Prompt
				prev := last[agent]
				if prev != nil && tt.dropsReasoning {
					prev = &chain{prompt: strings.TrimSuffix(prev.prompt, "<|start|>assistant")}
				}
				if prev != nil && !strings.HasPrefix(prompt, prev.prompt+prev.gen) {
					t.Errorf("request %d: the prompt does not begin with the previous turn's prompt and generation:\nprevious ends %q\nthis one is %q",
						i+1, tail(prev.prompt+prev.gen, 300), tail(prompt, 600))
				}
				last[agent] = &chain{prompt, e.Generations[len(e.Generations)-1]}
				if !agent {
					continue
				}
				unhonoured := tt.unhonoured
				if tt.each != nil {
					unhonoured = tt.each[min(turns, len(tt.each)-1)]
				}
				if memory && turns > 0 && resp.Header.Get(RestoredHeader) == "" {
					t.Errorf("request %d: no turn's reasoning restored", i+1)
				}
				turns++
				if h := resp.Header.Get(UnenforcedHeader); h != unhonoured {
					t.Errorf("request %d: %s %q, want %q", i+1, UnenforcedHeader, h, unhonoured)
				}
				if strings.Contains(string(data), tt.call) {
					calls++
				}
				if final = streamedText(string(data)); final == "" {
					final = replyText(data) // a client that does not stream
				}
			}
			if calls < 2 {
				t.Errorf("%d turns ended in tool calls, want 2", calls)
			}
			if final != "Both commands ran: one, then two." {
				t.Errorf("the session did not reach its final answer; its last reply's text: %q", final)
			}
		})
	}
}

// replayIDs maps the call ids of a recorded session to those the
// replaying gateway handed out: the ids a request names that are not yet
// mapped, in the order they first appear, are the ones the gateway's
// previous replies handed out, in order.
type replayIDs struct {
	to      map[string]string
	pending []string
}

var callIDPattern = regexp.MustCompile(`\b(?:call|toolu)_[0-9a-f]{24}\b`)

// handedOut notes the ids a reply of the replaying gateway carries.
func (m *replayIDs) handedOut(reply string) {
	seen := map[string]bool{}
	for _, id := range callIDPattern.FindAllString(reply, -1) {
		if !seen[id] {
			seen[id] = true
			m.pending = append(m.pending, id)
		}
	}
}

// mapped is body with the recorded ids replaced.
func (m *replayIDs) mapped(body string) string {
	if m.to == nil {
		m.to = map[string]string{}
	}
	for _, id := range callIDPattern.FindAllString(body, -1) {
		if _, ok := m.to[id]; !ok && len(m.pending) > 0 {
			m.to[id], m.pending = m.pending[0], m.pending[1:]
		}
	}
	return callIDPattern.ReplaceAllStringFunc(body, func(id string) string {
		if to, ok := m.to[id]; ok {
			return to
		}
		return id
	})
}

// streamedText joins the answer text a streamed reply carries, in any of
// the three APIs: Messages text_delta events, Responses output_text
// deltas, Chat Completions content deltas.
func streamedText(stream string) string {
	var b strings.Builder
	for _, line := range strings.Split(stream, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type  string          `json:"type"`
			Delta json.RawMessage `json:"delta"`
			// Chat Completions.
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(data), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "content_block_delta":
			var d struct{ Type, Text string }
			if json.Unmarshal(ev.Delta, &d) == nil && d.Type == "text_delta" {
				b.WriteString(d.Text)
			}
		case "response.output_text.delta":
			var d string
			if json.Unmarshal(ev.Delta, &d) == nil {
				b.WriteString(d)
			}
		case "":
			for _, c := range ev.Choices {
				b.WriteString(c.Delta.Content)
			}
		}
	}
	return b.String()
}

// replyText is the answer text of a reply that was not streamed, in any
// of the three APIs: a chat.completion's message content, a Messages
// reply's text blocks, a Responses reply's output_text parts.
func replyText(data []byte) string {
	var r struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Content []struct{ Type, Text string } `json:"content"`
		Output  []struct {
			Content []struct{ Type, Text string } `json:"content"`
		} `json:"output"`
	}
	if json.Unmarshal(data, &r) != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Choices {
		if c.Message.Content != nil {
			b.WriteString(*c.Message.Content)
		}
	}
	for _, c := range r.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	for _, o := range r.Output {
		for _, c := range o.Content {
			if c.Type == "output_text" {
				b.WriteString(c.Text)
			}
		}
	}
	return b.String()
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
