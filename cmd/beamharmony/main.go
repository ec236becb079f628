// Command beamharmony renders, lints and parses Beam Harmony text, serves
// Beam behind an OpenAI-compatible API, and checks chat templates against
// the Go renderer.
//
//	beamharmony render [--spans] [--strict] [FILE]
//	beamharmony lint [--strict] [FILE]
//	beamharmony parse [--stream] [--chunk-size N|random:SEED] [--prefix-file F] [--tools-file F] [FILE]
//	beamharmony serve --backend URL [--listen ADDR] [--model NAME] ...
//	beamharmony template
//	beamharmony verify [--template FILE] [REQUEST.json|DIR ...]
//	beamharmony tokenize --tokenizer PATH [--ordinary] [FILE]
//	beamharmony detokenize --tokenizer PATH [--skip-special] [FILE]
//	beamharmony version
//
// Run "beamharmony help COMMAND" (or "beamharmony COMMAND --help") for the
// details of each command, and "beamharmony --version" for the version.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/beamharmony/harmony"
)

// command is one subcommand: its name, a one-line summary, and its entry
// point, which returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// extraCommands are registered by the init functions of the files of
// other commands (parse, serve, template, verify).
var extraCommands []command

// allCommands returns every command, built-in ones first. It is called at
// run time, after every init function has registered its command.
func allCommands() []command {
	return append([]command{
		{"render", "render a chat request into Beam's prompt", runRender},
		{"lint", "warn about requests that render but mislead the model", runLint},
	}, extraCommands...)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stdout)
		return 2
	case args[0] == "-version" || args[0] == "--version":
		return runVersion(args[1:], stdin, stdout, stderr)
	case args[0] == "help" && len(args) > 1:
		// help CMD is CMD --help.
		if c, ok := findCommand(args[1]); ok {
			return c.run([]string{"--help"}, stdin, stdout, stderr)
		}
		fmt.Fprintf(stderr, "beamharmony help: unknown command %q; run beamharmony --help\n", args[1])
		return 2
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		usage(stdout)
		return 0
	}
	if c, ok := findCommand(args[0]); ok {
		return c.run(args[1:], stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "beamharmony: unknown command %q; run beamharmony --help\n", args[0])
	return 2
}

// findCommand returns the command called name.
func findCommand(name string) (command, bool) {
	for _, c := range allCommands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "beamharmony: the Beam Harmony format for Go.\n\nUsage:\n  beamharmony COMMAND [flags] [args]\n\nCommands:")
	for _, c := range allCommands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun beamharmony help COMMAND (or beamharmony COMMAND --help) for a command's flags and an example,\nand beamharmony --version for the version.")
}

// newFlags returns a flag set whose --help prints help (a description with
// an example) and the flags to stdout. A flag error goes to stderr: the
// flag package's one-line error, then the help's first line (the
// synopsis) and where to find the rest.
func newFlags(name, help string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	if onNewFlags != nil {
		onNewFlags(name, help, fs)
	}
	errOut := &flagErrors{w: stderr}
	fs.SetOutput(errOut)
	help = strings.TrimSpace(help)
	fs.Usage = func() {
		if errOut.failed {
			// The flag package has just written the error.
			synopsis, _, _ := strings.Cut(help, "\n")
			fmt.Fprintf(stderr, "%s\nRun beamharmony %s --help for the flags and an example.\n", synopsis, name)
			return
		}
		fs.SetOutput(stdout)
		fmt.Fprintln(stdout, help)
		fmt.Fprintln(stdout, "\nFlags:")
		fs.PrintDefaults()
		fs.SetOutput(errOut)
	}
	return fs
}

// onNewFlags, when set, is told of each command's flag set as it is made:
// the test that writes docs/cli.md from the flag definitions sets it.
var onNewFlags func(cmd, help string, fs *flag.FlagSet)

// flagErrors is a flag set's output while it parses: the flag package
// writes to it only to report an error, before it calls Usage, which
// tells a flag error from --help by it.
type flagErrors struct {
	w      io.Writer
	failed bool
}

func (e *flagErrors) Write(p []byte) (int, error) {
	e.failed = true
	return e.w.Write(p)
}

// parseFlags parses args; it returns the exit code to stop with, or -1 to go on.
// Flags may come before or after the positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, int) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0
			}
			return nil, 2
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, -1
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// readInput reads the single FILE argument, or stdin without one ("-" too).
func readInput(args []string, stdin io.Reader) ([]byte, error) {
	switch {
	case len(args) > 1:
		return nil, usagef("expected at most one FILE, got %d arguments", len(args))
	case len(args) == 0 || args[0] == "-":
		return io.ReadAll(stdin)
	}
	return os.ReadFile(args[0])
}

// fail writes a one-line error and returns the exit code: 2 for a usage
// error (how the command was called), 1 for any other.
func fail(stderr io.Writer, cmd string, err error) int {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintf(stderr, "beamharmony %s: %s\n", cmd, msg)
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// quietFlag defines -q and --quiet, the same flag.
func quietFlag(fs *flag.FlagSet, usage string) *bool {
	q := fs.Bool("quiet", false, usage)
	fs.BoolVar(q, "q", false, "the same as --quiet")
	return q
}

// warn writes each warning on a line of stderr, after "beamharmony CMD:
// warning:".
func warn(stderr io.Writer, cmd string, ws []harmony.Warning) {
	for _, w := range ws {
		fmt.Fprintf(stderr, "beamharmony %s: warning: %s\n", cmd, strings.ReplaceAll(w.String(), "\n", " "))
	}
}

// usageError is a mistake in how a command was called: too many
// arguments, flags that can't be combined, a required flag missing. Every
// command exits with 2 for one, as for a flag the flag package refuses,
// and with 1 when the work itself fails.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef returns a usageError; its text says how to call the command right.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}
