// Package interop compares the Go renderer with a Jinja chat template.
//
// It renders requests with harmony.ParseRequest and RenderPrompt on one side
// and, on the other, with render_jinja.py (embedded), which runs a
// chat_template.jinja the way Hugging Face's apply_chat_template does. The
// two agree on a request when they give the same prompt and the same
// assistant spans in characters, or the same error message.
package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	_ "embed"

	"github.com/beamharmony/harmony"
)

// renderJinjaPy is the Python helper that renders requests with a chat
// template the way Hugging Face's apply_chat_template does (same Jinja
// environment, same {% generation %} span tracking). It needs only Python 3
// and Jinja2; RenderTemplate writes it to a temporary file unless
// Python.Helper names a copy.
//
//go:embed render_jinja.py
var renderJinjaPy string

// Result is one rendering: a prompt with its assistant spans, or an error.
type Result struct {
	// Prompt is the rendered prompt.
	Prompt string `json:"prompt"`
	// Spans are the assistant spans, [start, end) in characters.
	Spans [][2]int `json:"assistant_spans"`
	// Error is the renderer's error message: the Go error text, or the
	// message the template passed to raise_exception.
	Error string `json:"error,omitempty"`
	// Exception is any other failure of the Python side: a Jinja error, a
	// RecursionError, a bad request line. Go results never have one.
	Exception string `json:"exception,omitempty"`
}

// RenderGo renders one request with the Go renderer.
func RenderGo(request []byte) Result {
	req, err := harmony.ParseRequest(request)
	if err != nil {
		return Result{Error: err.Error()}
	}
	p, err := req.RenderPrompt()
	if err != nil {
		return Result{Error: err.Error()}
	}
	spans := p.CharSpans()
	out := Result{Prompt: p.Text, Spans: make([][2]int, len(spans))}
	for i, s := range spans {
		out.Spans[i] = [2]int{s.Start, s.End}
	}
	return out
}

// Errors from Python, distinguished so that a test can skip when the
// interpreter or Jinja2 is missing on a developer's machine.
var (
	// ErrNoPython means the Python interpreter was not found.
	ErrNoPython = errors.New("no Python interpreter found; install Python 3 and Jinja2 (Debian: python3-jinja2)")
	// ErrNoJinja means Python runs but cannot import jinja2.
	ErrNoJinja = errors.New("python3 cannot import jinja2; install Jinja2 3.1+ (Debian: python3-jinja2)")
)

// exitNoJinja is render_jinja.py's exit status when jinja2 cannot be imported.
const exitNoJinja = 3

// Python runs render_jinja.py.
type Python struct {
	// Exe is the interpreter; empty means python3 on PATH.
	Exe string
	// Helper is the path of render_jinja.py; empty means a temporary copy
	// of the one embedded in the binary.
	Helper string
}

// RenderTemplate renders every request with the chat template at
// templatePath in one Python process and returns the results in order.
func (py *Python) RenderTemplate(ctx context.Context, templatePath string, requests [][]byte) ([]Result, error) {
	exe := py.Exe
	if exe == "" {
		exe = "python3"
	}
	path, err := exec.LookPath(exe)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNoPython, err)
	}
	helper := py.Helper
	if helper == "" {
		dir, err := os.MkdirTemp("", "beamharmony-jinja-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		helper = filepath.Join(dir, "render_jinja.py")
		if err := os.WriteFile(helper, []byte(renderJinjaPy), 0o644); err != nil {
			return nil, err
		}
	}
	var in bytes.Buffer
	for i, r := range requests {
		if bytes.ContainsAny(r, "\r\n") {
			// One request per line: drop the layout's line breaks.
			var c bytes.Buffer
			if err := json.Compact(&c, r); err != nil {
				return nil, fmt.Errorf("request %d: %w", i, err)
			}
			r = c.Bytes()
		}
		in.Write(r)
		in.WriteByte('\n')
	}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "-X", "utf8", helper, "--template", templatePath, "--batch")
	cmd.Stdin = &in
	cmd.Stdout = &out
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == exitNoJinja {
			return nil, fmt.Errorf("%w: %s", ErrNoJinja, strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("render_jinja.py: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	results := make([]Result, 0, len(requests))
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r Result
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("render_jinja.py output, result %d: %w", len(results), err)
		}
		results = append(results, r)
	}
	if len(results) != len(requests) {
		return nil, fmt.Errorf("render_jinja.py returned %d results for %d requests: %s", len(results), len(requests), strings.TrimSpace(stderr.String()))
	}
	return results, nil
}

// Diff returns "" when the Go result and the template's agree, else a short
// description of the first difference: the two error messages, or the
// prompts around the first differing character, or the two span lists.
func Diff(goRes, tmpl Result) string {
	switch {
	case tmpl.Exception != "":
		if goRes.Error != "" {
			return "go error:       " + goRes.Error + "\ntemplate fails: " + tmpl.Exception
		}
		return "go renders, template fails: " + tmpl.Exception
	case goRes.Error != "" || tmpl.Error != "":
		if goRes.Error == tmpl.Error {
			return ""
		}
		switch {
		case tmpl.Error == "":
			return "go error:        " + goRes.Error + "\ntemplate renders: " + excerpt(tmpl.Prompt, 0, 80)
		case goRes.Error == "":
			return "go renders:     " + excerpt(goRes.Prompt, 0, 80) + "\ntemplate error: " + tmpl.Error
		}
		return "go error:       " + goRes.Error + "\ntemplate error: " + tmpl.Error
	case goRes.Prompt != tmpl.Prompt:
		return promptDiff(goRes.Prompt, tmpl.Prompt)
	case !equalSpans(goRes.Spans, tmpl.Spans):
		return "assistant spans differ\ngo:       " + formatSpans(goRes.Spans) + "\ntemplate: " + formatSpans(tmpl.Spans)
	}
	return ""
}

// promptDiff shows where two prompts part: the character offset, and each
// side from a little before it.
func promptDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	for i > 0 && !utf8.RuneStart(a[i]) { // back to a character boundary
		i--
	}
	at := utf8.RuneCountInString(a[:i])
	start := i
	for n := 0; n < 30 && start > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(a[:start])
		start -= size
	}
	return fmt.Sprintf("prompts differ at character %d (go %d, template %d characters)\ngo:       %s\ntemplate: %s",
		at, utf8.RuneCountInString(a), utf8.RuneCountInString(b), excerpt(a, start, 100), excerpt(b, start, 100))
}

// excerpt quotes up to n characters of s from byte offset start.
func excerpt(s string, start, n int) string {
	end := start
	for k := 0; k < n && end < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	q := strconv.Quote(s[start:end])
	if start > 0 {
		q = "…" + q
	}
	if end < len(s) {
		q += "…"
	}
	return q
}

func equalSpans(a, b [][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func formatSpans(s [][2]int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%d, %d]", x[0], x[1])
	}
	b.WriteByte(']')
	return b.String()
}
