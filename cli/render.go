package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/tokenizer"
)

const renderHelp = `
Usage: beamharmony render [--spans] [--strict | --drop-late-instructions] [--tokenizer PATH] [FILE]

Render one chat request (JSON, from FILE or stdin) into Beam's prompt and
write the prompt to stdout with nothing added. The request is

  {"messages": [...], "tools": [...], "add_generation_prompt": true,
   "reasoning_effort": "high" | 128 | null, "model_identity": "...",
   "builtin_tools": ["search", "browse"], "allow_missing_thinking": true}

Every key but messages is optional; add_generation_prompt and
allow_missing_thinking default to true, reasoning_effort to 512. A call's
function.arguments may be a JSON string holding an object (OpenAI's wire
form), and tools a JSON string holding the list: both are decoded first.

System and developer messages after a message of another role (late
instructions) are placed as the gateway places them: before the first
assistant turn they join the instructions, after one each becomes a user
message headed "# Instructions" in its place (docs/gap-decisions.md 110).
--strict makes them an error, and a key render does not read (such as
reasoning_efort for reasoning_effort) too; --drop-late-instructions leaves
them out, as the checkpoint's template does.

What "beamharmony lint" would warn about is written to stderr as warnings
(an unknown key, an assistant turn without reasoning, which serve and
dataset refuse by default, ...); they leave the exit code 0, and -q
silences them.

With --tokenizer PATH (a tokenizer.json, or a directory holding one) the
output is the prompt as token ids with the assistant mask, as
apply_chat_template(..., tokenize=True, return_dict=True,
return_assistant_tokens_mask=True) gives them:

  {"input_ids": [...], "assistant_masks": [...]}

The markers the template writes are marker tokens; every other character,
message content included, is encoded as ordinary text.

On an error the command prints one line to stderr and exits with 1 (2 for
a usage error, such as two FILEs).

Example:

  echo '{"messages": [{"role": "user", "content": "Hello!"}]}' | beamharmony render
`

func runRender(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("render", renderHelp, stdout, stderr)
	spans := fs.Bool("spans", false, `write {"prompt": ..., "assistant_spans": [[start, end], ...]} with offsets in characters, end exclusive`)
	strict := fs.Bool("strict", false, "make a system or developer message after another role, and a key render does not read, an error")
	drop := fs.Bool("drop-late-instructions", false, "leave out a system or developer message after another role, as the template does, instead of placing it")
	tokenizerPath := fs.String("tokenizer", "", `write {"input_ids": [...], "assistant_masks": [...]}, encoded with this tokenizer.json (or directory holding one)`)
	quiet := quietFlag(fs, "no warnings on stderr")
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
	if err := lateInstructionsFlags(req, *strict, *drop); err != nil {
		return fail(stderr, "render", err)
	}
	code = renderRequest(req, *spans, *tokenizerPath, stdout, stderr)
	if code == 0 && !*quiet {
		warn(stderr, "render", req.Lint())
		if w := standInWarning(*tokenizerPath); *tokenizerPath != "" && w != "" {
			fmt.Fprintf(stderr, "beamharmony render: warning: %s\n", w)
		}
	}
	return code
}

// renderRequest writes req as the prompt, the prompt with its spans, or
// token ids with their mask.
func renderRequest(req *harmony.Request, spans bool, tokenizerPath string, stdout, stderr io.Writer) int {
	if tokenizerPath != "" {
		if spans {
			return fail(stderr, "render", usagef("--spans and --tokenizer can't be combined"))
		}
		return renderTokens(req, tokenizerPath, stdout, stderr)
	}
	if !spans {
		text, err := req.Render()
		if err != nil {
			return fail(stderr, "render", renderHint(err))
		}
		_, err = io.WriteString(stdout, text)
		if err != nil {
			return fail(stderr, "render", err)
		}
		return 0
	}
	p, err := req.RenderPrompt()
	if err != nil {
		return fail(stderr, "render", renderHint(err))
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

// renderTokens writes the request as token ids with the assistant mask.
func renderTokens(req *harmony.Request, path string, stdout, stderr io.Writer) int {
	tk, err := tokenizer.Load(path)
	if err != nil {
		return fail(stderr, "render", err)
	}
	toks, err := req.RenderTokens(context.Background(), tk)
	if err != nil {
		return fail(stderr, "render", renderHint(err))
	}
	out := make([]byte, 0, 8*len(toks.InputIDs)+64)
	out = append(out, `{"input_ids": `...)
	out = appendInts(out, toks.InputIDs)
	out = append(out, `, "assistant_masks": `...)
	out = appendInts(out, toks.AssistantMasks)
	out = append(out, "}\n"...)
	if _, err := stdout.Write(out); err != nil {
		return fail(stderr, "render", err)
	}
	return 0
}

// renderHint adds to the page's missing-reasoning error where its setting
// lives in the request render reads.
func renderHint(err error) error {
	if errors.Is(err, harmony.ErrMissingReasoning) {
		return fmt.Errorf(`%w (in the request: "allow_missing_thinking": true, at the top level)`, err)
	}
	return err
}

// appendInts appends a JSON array of ints, Python style (", " between).
func appendInts(out []byte, xs []int) []byte {
	out = append(out, '[')
	for i, x := range xs {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = strconv.AppendInt(out, int64(x), 10)
	}
	return append(out, ']')
}

// lateInstructionsFlags sets how req renders late instructions: placed by
// the rule the gateway follows (the default), refused (--strict) or left
// out as the template does (--drop-late-instructions).
func lateInstructionsFlags(req *harmony.Request, strict, drop bool) error {
	if strict && drop {
		return usagef("--strict and --drop-late-instructions can't be combined")
	}
	req.Strict = strict
	req.PlaceLateInstructions = !strict && !drop
	return nil
}
