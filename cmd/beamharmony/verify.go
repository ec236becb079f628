package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/beamharmony/harmony/internal/corpus"
	"github.com/beamharmony/harmony/internal/interop"
	"github.com/beamharmony/harmony/templates"
)

func init() {
	extraCommands = append(extraCommands, command{"verify", "compare a chat_template.jinja with this renderer, case by case", runVerify})
}

const verifyHelp = `
Usage: beamharmony verify [--template FILE] [--seed N] [--n N] [REQUEST.json | DIR ...]

Render a corpus of chat requests with this renderer and with a
chat_template.jinja (the one inside a Beam checkpoint, say), run the way
Hugging Face's apply_chat_template runs it, and report every request on which
they differ: the two error messages, the prompts from a little before the
first differing character, or the two lists of assistant spans.

The corpus is the format page's examples, N requests generated from SEED
(a quarter of them with one error each, to compare error messages), and the
request files given, or the .json requests under the directories given.

Without --template it checks the template "beamharmony template" prints.
It needs python3 with Jinja2 3.1 or later (Debian: python3-jinja2).

Exit status: 0 when every request agrees, 1 when any differs, 2 when the
check could not run.

Example:

  beamharmony verify --template ~/models/beam/chat_template.jinja
`

func runVerify(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("verify", verifyHelp, stdout, stderr)
	tmpl := fs.String("template", "", "the chat_template.jinja to check (default: the built-in one)")
	seed := fs.Uint64("seed", 1, "seed of the generated requests")
	n := fs.Int("n", 2500, "number of generated requests")
	python := fs.String("python", "python3", "the Python interpreter, with Jinja2")
	show := fs.Int("show", 50, "report at most this many differing requests in full (0: all)")
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
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
	py := &interop.Python{Exe: *python}
	mismatches, err := py.Compare(context.Background(), path, cases)
	if err != nil {
		fmt.Fprintf(stderr, "beamharmony verify: %v\n", err)
		return 2
	}
	for i, m := range mismatches {
		if *show > 0 && i == *show {
			fmt.Fprintf(stdout, "... and %d more (--show 0 lists all)\n\n", len(mismatches)-i)
			break
		}
		fmt.Fprintf(stdout, "DIFF %s\n    %s\n\n", m.Name, strings.ReplaceAll(m.Diff, "\n", "\n    "))
	}
	name := *tmpl
	if name == "" {
		name = "the built-in template"
	}
	fmt.Fprintf(stdout, "%d requests, %d differ: %s against the Go renderer\n", len(cases), len(mismatches), name)
	if len(mismatches) > 0 {
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
