package cli

import (
	"fmt"
	"io"

	"github.com/beamharmony/harmony"
)

const lintHelp = `
Usage: beamharmony lint [--strict | --drop-late-instructions] [FILE]

Read one chat request (the render command's JSON, from FILE or stdin) and
print one warning per line for what renders but misleads the model:

  - a key of the request, a message, a text part, a tool call or a tool
    that render does not read (it changes nothing, so a misspelt
    reasoning_effort, tools or parameters goes unseen), with the known key
    it was probably meant to be
  - a system or developer message after another role, and where it is
    placed (render's rule: joined to the instructions before the first
    assistant turn, a user message in its place after one; with
    --drop-late-instructions, left out as the template does)
  - an assistant turn without reasoning (it renders as an empty analysis
    message, which Beam never writes)
  - a reasoning effort below 8 (Beam was not trained below 8)
  - built-in search or browse whose definition differs from the trained one
  - tool results missing, extra or out of order against the calls
  - Harmony markers in any text the prompt carries as is: message content,
    argument values, and the enums, defaults, examples and property names
    of tool schemas
  - a $ref in a tool schema that names nothing in it (a pointer to nothing,
    another document): the prompt declares that value any
  - a key of a tool schema that looks like a misspelt keyword (emum,
    minLenght, "type:") or description: JSON Schema ignores it, so the
    prompt's declaration leaves it out

--strict checks rendering in strict mode too: a late system or developer
message, or an unknown key, is then an error.

Exit status: 0 without warnings, 3 with warnings, 1 when the request does
not render (the error is printed on stderr), 2 for a usage error.

Example:

  beamharmony lint examples/parallel_calls.json && echo clean
`

func runLint(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("lint", lintHelp, stdout, stderr)
	strict := fs.Bool("strict", false, "check rendering in strict mode too: a system or developer message after another role is an error")
	drop := fs.Bool("drop-late-instructions", false, "lint as the template renders: a system or developer message after another role is left out")
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	data, err := readInput(files, stdin)
	if err != nil {
		return fail(stderr, "lint", err)
	}
	req, err := harmony.ParseRequest(data)
	if err != nil {
		return fail(stderr, "lint", err)
	}
	if err := lateInstructionsFlags(req, *strict, *drop); err != nil {
		return fail(stderr, "lint", err)
	}
	if _, err := req.Render(); err != nil {
		return fail(stderr, "lint", err)
	}
	warnings := req.Lint()
	for _, w := range warnings {
		fmt.Fprintln(stdout, w)
	}
	if len(warnings) > 0 {
		return 3
	}
	return 0
}
