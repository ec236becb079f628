package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/beamharmony/harmony/internal/corpus"
	"github.com/beamharmony/harmony/templates"
	"github.com/beamharmony/harmony/templates/interop"
)

func init() {
	extraCommands = append(extraCommands, command{"verify", "compare a chat_template.jinja with this renderer, case by case", anyProgram(runVerify)})
}

const verifyHelp = `
Usage: beamharmony verify [--template FILE] [--engine jinja2|hf-js] [--seed N] [--n N] [REQUEST.json | DIR ...]

Render a corpus of chat requests with this renderer and with a
chat_template.jinja (the one inside a Beam checkpoint, say) in a Jinja
engine, and report every request on which they differ: the two error
messages, the prompts from a little before the first differing character,
or the two lists of assistant spans.

Engines:
  jinja2  Python Jinja2 run the way Hugging Face's apply_chat_template runs
          it (Transformers, vLLM, SGLang). Needs python3 with Jinja2 3.1 or
          later (Debian: python3-jinja2).
  hf-js   @huggingface/jinja under node (transformers.js, the Hub's template
          preview). Needs node and the package: npm install @huggingface/jinja
          in the --hfjs-modules directory. It knows no assistant spans, and a
          JavaScript number cannot keep every number literal (2.0, 1e-05,
          9007199254740993): such a request is compared with the numbers
          JavaScript holds, and counted apart when it agrees only so.

The corpus is the format page's examples, N requests generated from SEED
(a quarter of them with one error each, to compare error messages), and the
request files given, or the .json requests under the directories given.

Without --template it checks the template "beamharmony template" prints.

Exit status: 0 when every request agrees, 1 when any differs, 2 when the
check could not run.

Examples:

  beamharmony verify --template ~/models/beam/chat_template.jinja
  beamharmony verify --template chat_template.jinja --engine hf-js --hfjs-modules ~/hfjs
`

func runVerify(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("verify", verifyHelp, stdout, stderr)
	tmpl := fs.String("template", "", "the chat_template.jinja to check (default: the built-in one)")
	seed := fs.Uint64("seed", 1, "seed of the generated requests")
	n := fs.Int("n", 2500, "number of generated requests")
	engineName := fs.String("engine", "jinja2", "the Jinja engine: jinja2 (Python, as Hugging Face runs it) or hf-js (@huggingface/jinja under node)")
	python := fs.String("python", "python3", "jinja2: the Python interpreter, with Jinja2")
	node := fs.String("node", "node", "hf-js: the node executable")
	modules := fs.String("hfjs-modules", ".", "hf-js: a directory whose node_modules holds @huggingface/jinja")
	show := fs.Int("show", 50, "report at most this many differing requests in full (0: all)")
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	var engine interop.Engine
	switch *engineName {
	case "jinja2":
		engine = &interop.Python{Exe: *python}
	case "hf-js":
		engine = &interop.HFJS{Node: *node, Modules: *modules}
	default:
		fmt.Fprintf(stderr, "beamharmony verify: --engine %q: use jinja2 or hf-js\n", *engineName)
		return 2
	}
	cases := append(corpus.Page(), corpus.Generate(*seed, *n)...)
	for _, f := range files {
		extra, err := requestsAt(f)
		if err != nil {
			fmt.Fprintf(stderr, "beamharmony verify: %v\n", err)
			return 2
		}
		cases = append(cases, extra...)
	}
	path := *tmpl
	if path == "" {
		dir, err := os.MkdirTemp("", "beamharmony-verify-")
		if err != nil {
			fmt.Fprintf(stderr, "beamharmony verify: %v\n", err)
			return 2
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "chat_template.jinja")
		if err := os.WriteFile(path, []byte(templates.ChatTemplate), 0o644); err != nil {
			fmt.Fprintf(stderr, "beamharmony verify: %v\n", err)
			return 2
		}
	} else if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "beamharmony verify: %v\n", err)
		return 2
	}
	mismatches, err := interop.Compare(context.Background(), engine, path, cases)
	if err != nil {
		fmt.Fprintf(stderr, "beamharmony verify: %v\n", err)
		return 2
	}
	differ, explained := 0, 0
	for _, m := range mismatches {
		if m.Explained != "" {
			explained++
			continue
		}
		if differ++; *show > 0 && differ > *show {
			continue
		}
		fmt.Fprintf(stdout, "DIFF %s\n    %s\n\n", m.Name, strings.ReplaceAll(m.Diff, "\n", "\n    "))
	}
	if *show > 0 && differ > *show {
		fmt.Fprintf(stdout, "... and %d more (--show 0 lists all)\n\n", differ-*show)
	}
	name := *tmpl
	if name == "" {
		name = "the built-in template"
	}
	fmt.Fprintf(stdout, "%d requests, %d differ: %s in %s against the Go renderer\n", len(cases), differ, name, engine.Name())
	if explained > 0 {
		fmt.Fprintf(stdout, "%d more differ only where %s cannot keep a number literal (2.0, 1e-05, 9007199254740993)\n", explained, engine.Name())
	}
	if differ > 0 {
		return 1
	}
	return 0
}

// requestsAt returns the request in a file, or the requests under a
// directory.
func requestsAt(path string) ([]corpus.Case, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		cases, err := interop.RequestFiles(path)
		if err == nil && len(cases) == 0 {
			err = errors.New(path + ": no .json requests found")
		}
		return cases, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return []corpus.Case{{Name: path, JSON: data}}, nil
}
