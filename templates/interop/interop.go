// Package interop compares the Go renderer with a Jinja chat template run by
// another Jinja engine.
//
// It renders requests with harmony.ParseRequest and RenderPrompt on one side
// and, on the other, with an Engine: Python runs Jinja2 the way Hugging
// Face's apply_chat_template does (render_jinja.py, embedded), HFJS runs
// @huggingface/jinja under node (render_hfjs.mjs, embedded). The two agree
// on a request when they give the same prompt and the same assistant spans
// in characters (where the engine knows spans), or the same error message.
//
// # API
//
//   - [Compare] renders cases with an [Engine] and the Go renderer
//     ([RenderGo], a [Result] each) and returns the [Mismatch]es, each
//     described by [Diff]; [RequestFiles] reads requests from files and
//     directories.
//   - Engines: [Python] (Jinja2, [ErrNoPython]), [HFJS]
//     (@huggingface/jinja under node, [ErrNoNode]) and [LlamaServer] (a
//     running llama-server), with [LlamaPrompt] and [LlamaReshapes] for
//     what llama.cpp's template engine changes in a request.
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

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// Engine renders requests with a chat template file, one Result per
// request, in order.
type Engine interface {
	// Name says which engine this is, for messages ("Jinja2", ...).
	Name() string
	// RenderTemplate renders every request with the template at
	// templatePath.
	RenderTemplate(ctx context.Context, templatePath string, requests [][]byte) ([]Result, error)
}

// Result is one rendering: a prompt with its assistant spans, or an error.
type Result struct {
	// Prompt is the rendered prompt.
	Prompt string `json:"prompt"`
	// Spans are the assistant spans, [start, end) in characters.
	Spans [][2]int `json:"assistant_spans"`
	// Error is the renderer's error message: the Go error text, or the
	// message the template passed to raise_exception.
	Error string `json:"error,omitempty"`
	// Exception is any other failure of the engine: a Jinja error, a
	// RecursionError, a bad request line. Go results never have one.
	Exception string `json:"exception,omitempty"`
	// SpansUnknown is set by an engine that cannot tell assistant spans
	// (@huggingface/jinja drops {% generation %} tags); Diff then compares
	// prompts and errors only.
	SpansUnknown bool `json:"spans_unknown,omitempty"`
	// LossyNumbers are the request's number literals that the engine
	// cannot hold or write back as given (a JavaScript number: 2.0, 1e-05,
	// 9007199254740993).
	LossyNumbers []string `json:"lossy_numbers,omitempty"`
	// JSRequest is the request with each of LossyNumbers spelled as the
	// engine holds it (2, 0.00001, 9007199254740992): the Go renderer given
	// it must agree with this result.
	JSRequest string `json:"js_request,omitempty"`
	// Unrepresentable is set when an integer literal became a number the
	// engine writes with an exponent (1e+30): no request tells what the
	// engine holds, and a difference is explained by that alone.
	Unrepresentable bool `json:"unrepresentable,omitempty"`
}

// RenderGo renders one request with the Go renderer, given the request as
// the template is given it. ParseRequest decodes a call's arguments sent
// as a JSON string (DECISIONS.md, Training data), which the template,
// given the request as it is, does not: there the arguments stay the
// string, and the renderer's own rule, the template's (a string is an
// error: "parse JSON strings before rendering"), is what is compared.
func RenderGo(request []byte) Result {
	req, err := parseUndecoded(request)
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

// parseUndecoded is ParseRequest, except that the arguments of calls given
// as JSON strings are left as those strings: each is replaced by {} for
// ParseRequest and put back into the decoded call.
func parseUndecoded(request []byte) (*harmony.Request, error) {
	d, err := pyjson.ParseBytes(request)
	if err != nil || d.Kind(0) != pyjson.Object {
		return harmony.ParseRequest(request)
	}
	type stringArgs struct {
		msg, call  int
		start, end int32
	}
	var found []stringArgs
	if msgs := d.Lookup(0, "messages"); msgs >= 0 && d.Kind(msgs) == pyjson.Array {
		d.Elements(msgs, func(m, i int) bool {
			calls := -1
			if d.Kind(m) == pyjson.Object {
				calls = d.Lookup(m, "tool_calls")
			}
			if calls < 0 || d.Kind(calls) != pyjson.Array {
				return true
			}
			d.Elements(calls, func(c, j int) bool {
				f := -1
				if d.Kind(c) == pyjson.Object {
					f = d.Lookup(c, "function")
				}
				if f < 0 || d.Kind(f) != pyjson.Object {
					return true
				}
				if a := d.Lookup(f, "arguments"); a >= 0 && d.Kind(a) == pyjson.String {
					found = append(found, stringArgs{i, j, d.Nodes[a].Start, d.Nodes[a].End})
				}
				return true
			})
			return true
		})
	}
	if len(found) == 0 {
		return harmony.ParseRequest(request)
	}
	var edited []byte
	at := int32(0)
	for _, s := range found {
		edited = append(edited, request[at:s.start]...)
		edited = append(edited, "{}"...)
		at = s.end
	}
	edited = append(edited, request[at:]...)
	req, err := harmony.ParseRequest(edited)
	if err != nil {
		return nil, err
	}
	for _, s := range found {
		req.Messages[s.msg].ToolCalls[s.call].Function.Arguments = json.RawMessage(request[s.start:s.end])
	}
	return req, nil
}

// runBatch writes requests to the helper command one per line and reads
// one JSON result per request from its output.
func runBatch(cmd *exec.Cmd, helper string, requests [][]byte) ([]Result, error) {
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
	cmd.Stdin = &in
	cmd.Stdout = &out
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, &helperError{helper, err, strings.TrimSpace(stderr.String())}
	}
	results := make([]Result, 0, len(requests))
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r Result
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s output, result %d: %w", helper, len(results), err)
		}
		results = append(results, r)
	}
	if len(results) != len(requests) {
		return nil, fmt.Errorf("%s returned %d results for %d requests: %s", helper, len(results), len(requests), strings.TrimSpace(stderr.String()))
	}
	return results, nil
}

// helperError is a helper command that failed.
type helperError struct {
	helper string
	err    error
	stderr string
}

func (e *helperError) Error() string { return e.helper + ": " + e.err.Error() + ": " + e.stderr }

func (e *helperError) Unwrap() error { return e.err }

// exitCode returns the exit status of a helper that ran and failed, or -1.
func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	return -1
}

// writeHelper writes an embedded helper script into a new temporary
// directory and returns its path and a function that removes it.
func writeHelper(name, source string) (string, func(), error) {
	dir, err := os.MkdirTemp("", "beamharmony-interop-")
	if err != nil {
		return "", nil, err
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(source), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return path, func() { os.RemoveAll(dir) }, nil
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
	case !tmpl.SpansUnknown && !equalSpans(goRes.Spans, tmpl.Spans):
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
