package cli

import (
	"io"

	"github.com/beamharmony/harmony/templates"
)

func init() {
	extraCommands = append(extraCommands, command{"template", "print the chat_template.jinja that renders as this renderer does", anyProgram(runTemplate)})
}

const templateHelp = `
Usage: beamharmony template

Print Beam's chat_template.jinja, the Jinja twin of this renderer, for
Transformers, vLLM, SGLang and TRL. It renders every request byte for byte as
"beamharmony render" does, raises the same errors, and marks the assistant's
output with {% generation %} blocks for training masks.
"beamharmony verify" checks it (or any other template) against the renderer.

Example:

  beamharmony template > chat_template.jinja
`

func runTemplate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("template", templateHelp, stdout, stderr)
	rest, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) > 0 {
		return fail(stderr, "template", usagef("unexpected argument %q; it takes none (beamharmony template --help)", rest[0]))
	}
	if _, err := io.WriteString(stdout, templates.ChatTemplate); err != nil {
		return fail(stderr, "template", err)
	}
	return 0
}
