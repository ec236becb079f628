package main

import (
	"fmt"
	"io"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

const renderHelp = `
Usage: beamharmony render [--spans] [--strict] [FILE]

Render one chat request (JSON, from FILE or stdin) into Beam's prompt and
write the prompt to stdout with nothing added. The request is

  {"messages": [...], "tools": [...], "add_generation_prompt": true,
   "reasoning_effort": "high" | 128 | null, "model_identity": "...",
   "builtin_tools": ["search", "browse"], "allow_missing_thinking": true}

Every key but messages is optional; add_generation_prompt and
allow_missing_thinking default to true, reasoning_effort to 512.

On an error the command prints one line to stderr and exits with 1.

Example:

  echo '{"messages": [{"role": "user", "content": "Hello!"}]}' | beamharmony render
`

func runRender(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("render", renderHelp, stdout, stderr)
	spans := fs.Bool("spans", false, `write {"prompt": ..., "assistant_spans": [[start, end], ...]} with offsets in characters, end exclusive`)
	strict := fs.Bool("strict", false, "make a system or developer message after another role an error instead of dropping it")
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	data, err := readInput(files, stdin)
	if err != nil {
		return fail(stderr, "render", err)
	}
	req, err := harmony.ParseRequest(data)
	if err != nil {
		return fail(stderr, "render", err)
	}
	req.Strict = *strict
	if !*spans {
		text, err := req.Render()
		if err != nil {
			return fail(stderr, "render", err)
		}
		_, err = io.WriteString(stdout, text)
		if err != nil {
			return fail(stderr, "render", err)
		}
		return 0
	}
	p, err := req.RenderPrompt()
	if err != nil {
		return fail(stderr, "render", err)
	}
	out := []byte(`{"prompt": `)
	out = pyjson.AppendQuoted(out, p.Text)
	out = append(out, `, "assistant_spans": [`...)
	for i, s := range p.CharSpans() {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = fmt.Appendf(out, "[%d, %d]", s.Start, s.End)
	}
	out = append(out, "]}\n"...)
	if _, err := stdout.Write(out); err != nil {
		return fail(stderr, "render", err)
	}
	return 0
}
