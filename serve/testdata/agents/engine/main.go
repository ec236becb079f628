// Command engine is a scripted Beam engine for trying coding agents
// through the gateway without a model (serve/testdata/agents/run.sh; it
// lives under testdata so that go build ./... leaves it out). It answers
// POST /v1/completions in vLLM's wire format, streamed or not, with
// Beam Harmony chosen from the prompt: a request without tools gets a
// short answer (a title, a summary); an agent turn runs the shell tool it
// finds declared twice (echo one, echo two), then answers; a get_weather
// tool (docs/agents.md's Agents SDK example) is called once for London. With -record
// DIR it is also a recording proxy in front of the gateway: every request
// an agent sends to -listen-proxy is forwarded to -gateway and written to
// DIR as NNN.json ({"method", "path", "headers", "body", "generation"}),
// the generation being what this engine answered for it.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

var (
	listen      = flag.String("listen", "127.0.0.1:18001", "address of the engine")
	proxyListen = flag.String("listen-proxy", "", "address of the recording proxy (with -record)")
	gateway     = flag.String("gateway", "http://127.0.0.1:18080", "the gateway the proxy forwards to")
	record      = flag.String("record", "", "directory to record the agent's requests in")
)

// gens are the generations the engine wrote, in order, and starts where
// each client request's begin among them (by arrival): the proxy records
// a request's generations beside it, those written from its arrival to its
// end or to the next request's arrival, whichever comes first.
var (
	mu     sync.Mutex
	gens   []string
	starts []int
)

func main() {
	flag.Parse()
	go func() {
		log.Fatal(http.ListenAndServe(*listen, http.HandlerFunc(engine)))
	}()
	if *record == "" {
		select {}
	}
	if err := os.MkdirAll(*record, 0o755); err != nil {
		log.Fatal(err)
	}
	target, err := url.Parse(*gateway)
	if err != nil {
		log.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	n := 0
	log.Fatal(http.ListenAndServe(*proxyListen, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		// Numbered as they arrive: a client may still be reading one
		// reply when it sends the next request (GitHub Copilot's CLI).
		mu.Lock()
		starts = append(starts, len(gens))
		n++
		i := n
		mu.Unlock()
		rec := &recorder{ResponseWriter: w}
		relay(rp, rec, r)
		mu.Lock()
		end := len(gens)
		if i < len(starts) {
			end = min(end, starts[i])
		}
		mine := slices.Clone(gens[starts[i-1]:end])
		mu.Unlock()
		headers := map[string]string{}
		for _, h := range []string{"anthropic-version", "anthropic-beta", "user-agent", "originator", "x-app", "openai-beta"} {
			if v := r.Header.Get(h); v != "" {
				headers[h] = v
			}
		}
		entry := map[string]any{"method": r.Method, "path": r.URL.RequestURI(), "headers": headers, "status": rec.status,
			"body": json.RawMessage(orNull(body)), "generations": mine}
		data, _ := json.MarshalIndent(entry, "", "  ")
		_ = os.WriteFile(filepath.Join(*record, fmt.Sprintf("%03d.json", i)), data, 0o644)
	})))
}

// relay forwards r through rp. A client that hangs up before the whole
// reply is relayed (Codex can, once it has read response.completed) makes
// the reverse proxy abort the handler with http.ErrAbortHandler; relay
// stops that there, so the exchange is still recorded.
func relay(rp *httputil.ReverseProxy, w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v == http.ErrAbortHandler {
			log.Printf("%s %s: the client hung up before the whole reply was relayed", r.Method, r.URL.Path)
		} else if v != nil {
			panic(v)
		}
	}()
	rp.ServeHTTP(w, r)
}

func orNull(b []byte) []byte {
	if json.Valid(b) && len(bytes.TrimSpace(b)) > 0 {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}

type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(s int) { r.status = s; r.ResponseWriter.WriteHeader(s) }
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// engine answers the gateway.
func engine(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/completions":
	case "/health":
		return
	case "/version":
		io.WriteString(w, `{"version": "0.0.0-scripted"}`)
		return
	case "/v1/models":
		io.WriteString(w, `{"object":"list","data":[{"id":"beam","object":"model"}]}`)
		return
	default:
		http.NotFound(w, r)
		return
	}
	var req struct {
		Prompt string `json:"prompt"`
		Stream bool   `json:"stream"`
		Model  string `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	gen, stop := Script(req.Prompt)
	mu.Lock()
	gens = append(gens, gen)
	mu.Unlock()
	usage := fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, len(req.Prompt)/4, len(gen)/4, len(req.Prompt)/4+len(gen)/4)
	text, _ := json.Marshal(gen)
	stopJSON, _ := json.Marshal(stop)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"cmpl-s","object":"text_completion","created":1,"model":%q,"choices":[{"index":0,"text":%s,"finish_reason":"stop","stop_reason":%s}],"usage":%s}`, req.Model, text, stopJSON, usage)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	for _, piece := range pieces(gen) {
		p, _ := json.Marshal(piece)
		fmt.Fprintf(w, "data: {\"id\":\"cmpl-s\",\"object\":\"text_completion\",\"created\":1,\"model\":%q,\"choices\":[{\"index\":0,\"text\":%s,\"finish_reason\":null}]}\n\n", req.Model, p)
	}
	fmt.Fprintf(w, "data: {\"id\":\"cmpl-s\",\"object\":\"text_completion\",\"created\":1,\"model\":%q,\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"stop\",\"stop_reason\":%s}],\"usage\":%s}\n\ndata: [DONE]\n\n", req.Model, stopJSON, usage)
	if fl != nil {
		fl.Flush()
	}
}

// pieces cuts text into chunks of at most 8 bytes, markers whole.
func pieces(text string) []string {
	var out []string
	for len(text) > 0 {
		if strings.HasPrefix(text, "<|") {
			if i := strings.Index(text, "|>"); i > 0 {
				out = append(out, text[:i+2])
				text = text[i+2:]
				continue
			}
		}
		n := min(8, len(text))
		if i := strings.Index(text[1:n], "<|"); i >= 0 {
			n = i + 1
		}
		for n < len(text) && !utf8Start(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

var declared = regexp.MustCompile(`(?m)^type ([A-Za-z0-9_.-]+) = `)

// Script chooses the generation for a prompt, and its stop marker.
func Script(prompt string) (gen, stop string) {
	// The tool results so far: each session asks one question.
	results := strings.Count(prompt, " to=assistant<|channel|>")
	shell, param := "", ""
	for _, m := range declared.FindAllStringSubmatch(prompt, -1) {
		switch m[1] {
		case "Bash", "bash", "run_shell_command", "Execute": // run_shell_command: Qwen Code; Execute: Factory's droid
			shell, param = m[1], "command"
		case "exec_command", "shell":
			if shell == "" {
				shell, param = m[1], "cmd"
			}
		case "run_commands": // Cline: a list of commands
			if shell == "" {
				shell, param = m[1], "commands"
			}
		}
	}
	if shell == "" && strings.Contains(prompt, "\ntype get_weather = ") {
		// The Agents SDK example of docs/agents.md: one call, then the answer.
		if results == 0 {
			return "<|channel|>analysis<|message|>I will check the weather.<|end|>" +
				"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
				"<rfl:parameter name=\"city\">\nLondon\n</rfl:parameter><|call|>", "<|call|>"
		}
		return answer("The tool answered.", "It is 14 C and cloudy in London."), "<|return|>"
	}
	if shell == "" {
		return answer("No tools here; a short answer.", "Listing files"), "<|return|>"
	}
	if results >= 2 {
		return answer("Both commands ran; time to answer.", "Both commands ran: one, then two."), "<|return|>"
	}
	cmd := "echo one"
	if results == 1 {
		cmd = "echo two"
	}
	value := cmd
	if shell == "run_commands" {
		value = `["` + cmd + `"]`
	}
	if shell == "exec_command" && !strings.Contains(prompt, "cmd: string") && strings.Contains(prompt, "command: string[]") {
		param, value = "command", `["bash", "-lc", "`+cmd+`"]`
	}
	call := "<|channel|>analysis<|message|>I will run " + cmd + ".<|end|>" +
		"<|start|>assistant to=" + shell + "<|channel|>analysis <|constrain|>xml<|message|>" +
		"<rfl:parameter name=\"" + param + "\">\n" + value + "\n</rfl:parameter>"
	if shell == "Bash" || shell == "bash" {
		call += "\n<rfl:parameter name=\"description\">\nRun " + cmd + "\n</rfl:parameter>"
	}
	if shell == "Execute" { // droid asks for a risk level
		call += "\n<rfl:parameter name=\"riskLevelReason\">\nIt only prints a word.\n</rfl:parameter>" +
			"\n<rfl:parameter name=\"riskLevel\">\nlow\n</rfl:parameter>"
	}
	return call + "<|call|>", "<|call|>"
}

func answer(reasoning, content string) string {
	return "<|channel|>analysis<|message|>" + reasoning + "<|end|><|start|>assistant<|channel|>final<|message|>" + content + "<|return|>"
}
