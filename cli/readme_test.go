package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlock returns the first fenced block of the README after the
// heading, without its fences.
func readmeBlock(t *testing.T, readme, heading string, skip int) string {
	t.Helper()
	i := strings.Index(readme, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("the README has no heading %q", heading)
	}
	rest := readme[i:]
	for ; ; skip-- {
		start := strings.Index(rest, "\n```")
		if start < 0 {
			t.Fatalf("no block %d after %q", skip, heading)
		}
		rest = rest[start+4:]
		rest = rest[strings.Index(rest, "\n")+1:]
		end := strings.Index(rest, "```\n")
		block := rest[:end]
		rest = rest[end+4:]
		if skip == 0 {
			return block
		}
	}
}

// The README's quick start works as written: its five lines build the
// command, render a request to the prompt the README shows, and serve in
// front of a llama-server (here a stand-in on loopback answering as
// llama-server does) that the curl line then calls (issue 34 item 10).
func TestReadmeQuickStart(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	lines := strings.Split(strings.TrimSpace(readmeBlock(t, readme, "## Quick start", 0)), "\n")
	if len(lines) != 5 {
		t.Fatalf("the quick start has %d lines, want 5:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	strip := func(l string) string { l, _, _ = strings.Cut(l, "  #"); return strings.TrimSpace(l) }

	if strip(lines[0]) != "go build -o beamharmony ./cmd/beamharmony" {
		t.Errorf("line 1 %q does not build ./cmd/beamharmony", lines[0])
	}
	if _, err := os.Stat("main.go"); err != nil {
		t.Errorf("./cmd/beamharmony: %v", err)
	}

	m := regexp.MustCompile(`^echo '([^']*)' \| \./beamharmony render$`).FindStringSubmatch(strip(lines[1]))
	if m == nil {
		t.Fatalf("line 2 %q is not echo '...' | ./beamharmony render", lines[1])
	}
	prompt, stderr, code := runCLI(t, m[1], "render")
	if code != 0 || stderr != "" {
		t.Fatalf("render: code %d, stderr %q", code, stderr)
	}
	if shown := readmeBlock(t, readme, "## Quick start", 1); shown != prompt+"\n" {
		t.Errorf("the README shows the prompt\n%q\nrender writes\n%q", shown, prompt)
	}

	if !strings.HasPrefix(strip(lines[2]), "llama-server ") || !strings.Contains(lines[2], "--port 8000") || !strings.Contains(lines[2], "--special") {
		t.Errorf("line 3 %q does not start llama-server on port 8000 with --special", lines[2])
	}
	serveArgs := strings.Fields(strings.TrimSuffix(strip(lines[3]), "&"))
	if len(serveArgs) < 2 || serveArgs[0] != "./beamharmony" || serveArgs[1] != "serve" {
		t.Fatalf("line 4 %q does not run ./beamharmony serve", lines[3])
	}
	// The engine: llama-server's answers to the probe and to a completion.
	engine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/props":
			io.WriteString(w, `{"default_generation_settings": {"n_ctx": 4096}, "build_info": "b1"}`)
		case "/health":
			io.WriteString(w, `{"status": "ok"}`)
		case "/v1/completions":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"choices": [{"index": 0, "text": "<|channel|>analysis<|message|>A greeting.<|end|><|start|>assistant<|channel|>final<|message|>Hello! How can I help?<|return|>", "finish_reason": "stop"}], "usage": {"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer engine.Close()
	args := serveArgs[2:]
	for i := range args {
		if args[i] == "http://localhost:8000" {
			args[i] = engine.URL
		}
	}
	if !strings.Contains(strings.Join(args, " "), engine.URL) {
		t.Fatalf("line 4 %q does not name the engine of line 3", lines[3])
	}
	rs := startServe(t, append(args, "--listen", "127.0.0.1:0")...)

	c := regexp.MustCompile(`^curl -s localhost:8080(/\S+) -d '([^']*)'$`).FindStringSubmatch(strip(lines[4]))
	if c == nil {
		t.Fatalf("line 5 %q is not curl -s localhost:8080/PATH -d '...'", lines[4])
	}
	// curl -d sends application/x-www-form-urlencoded: the gateway must
	// take it as the JSON it is.
	resp, err := http.Post("http://"+rs.addr(t)+c[1], "application/x-www-form-urlencoded", strings.NewReader(c[2]))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var reply struct {
		Choices []struct {
			Message struct {
				Content          string `json:"content"`
				ReasoningContent string `json:"reasoning_content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, &reply) != nil || len(reply.Choices) != 1 ||
		reply.Choices[0].Message.Content != "Hello! How can I help?" || reply.Choices[0].Message.ReasoningContent != "A greeting." {
		t.Errorf("curl: status %d, body %s", resp.StatusCode, body)
	}
}

// Installing works as the docs say: the module is not published, so no
// document may tell anyone to go install it @latest, and the Dockerfile
// builds the command from the source tree it is in (issue 34 item 3).
func TestInstallFromSource(t *testing.T) {
	files := []string{"../README.md", "../Dockerfile", "../SECURITY.md"}
	docs, _ := filepath.Glob("../docs/*.md")
	for _, f := range append(files, docs...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "github.com/beamharmony/harmony/cmd/beamharmony@") {
			t.Errorf("%s installs the unpublished module by version", f)
		}
	}
	dockerfile, _ := os.ReadFile("../Dockerfile")
	for _, want := range []string{"COPY . .", "go build", "./cmd/beamharmony", `ENTRYPOINT ["/beamharmony", "serve"]`} {
		if !strings.Contains(string(dockerfile), want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
}

// TestGoCommandsInDocs: every go build, install, run or list command the
// docs show names directories of the module it runs in. A nested module's
// package (cloud, conformance) needs a cd into the module first: from the
// root, go install refuses it ("main module does not contain package").
// Each command's directory is the root, or the one its cd names.
func TestGoCommandsInDocs(t *testing.T) {
	command := regexp.MustCompile("(?:cd ([\\w./-]+) && )?(?:\\w+=\\S+ )*(?:/usr/bin/time )?go (?:build|install|run|list|test)\\b[^\\n`]*")
	pkgArg := regexp.MustCompile(`(?:^|\s)(\./[\w./-]*)`)
	files := []string{"../README.md", "../BENCHMARKS.md", "../SECURITY.md"}
	docs, _ := filepath.Glob("../docs/*.md")
	checked := 0
	for _, f := range append(files, docs...) {
		if filepath.Base(f) == "benchmark-history.md" {
			continue // a diary: each command as it was run then
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range command.FindAllStringSubmatch(string(data), -1) {
			base := filepath.Join("..", m[1])
			for _, a := range pkgArg.FindAllStringSubmatch(m[0], -1) {
				dir := filepath.Join(base, strings.TrimSuffix(strings.TrimSuffix(a[1], "..."), "/"))
				if info, err := os.Stat(dir); err != nil || !info.IsDir() {
					if _, err := os.Stat(dir + ".go"); err != nil {
						t.Errorf("%s: %q: %s is not a directory of the repository", f, m[0], a[1])
					}
					continue
				}
				if got, want := moduleRoot(dir), moduleRoot(base); got != want {
					t.Errorf("%s: %q: %s is in the module at %s, not %s's: cd there first", f, m[0], a[1], got, want)
				}
				checked++
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d package paths found in the docs' go commands", checked)
	}
}

// moduleRoot is the nearest directory at or above dir holding a go.mod.
func moduleRoot(dir string) string {
	dir, _ = filepath.Abs(dir)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
