// Package cli is the beamharmony command: render, lint, parse, serve,
// dataset, console, tokenize and the rest. It is a package, not only a
// main, so that another build of the command can add to it:
// cmd/beamharmony runs [Main]; the cloud module's beamharmony-cloud runs
// [Program.Run] with object storage for the dataset command.
//
// # API
//
//   - [Main] runs the command as cmd/beamharmony ships it.
//   - A [Program] is a build of the command: [Program.Run] with
//     Program.OpenBucket set adds object storage to the dataset command.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/dataset"
)

// A Program is one build of the beamharmony command. The zero value is
// the command cmd/beamharmony ships: every command, with the dataset
// command on local files and pipes.
type Program struct {
	// OpenBucket opens the bucket of an s3://, gs:// or azblob:// path for
	// the dataset command. Nil: such a path is refused in one line that
	// names the build which has object storage (beamharmony-cloud, in the
	// module github.com/beamharmony/harmony/cloud).
	OpenBucket dataset.BucketOpener
}

// Main runs the command as cmd/beamharmony ships it: [Program.Run] of the
// zero Program.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Program{}.Run(args, stdin, stdout, stderr)
}

// command is one subcommand: its name, a one-line summary, and its entry
// point, which returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(p Program, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// runFunc is the entry point of a command that does not depend on the
// Program it runs in.
type runFunc = func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// anyProgram makes run the entry point of a command.
func anyProgram(run runFunc) func(Program, []string, io.Reader, io.Writer, io.Writer) int {
	return func(_ Program, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return run(args, stdin, stdout, stderr)
	}
}

// extraCommands are registered by the init functions of the files of
// other commands (parse, serve, template, verify).
var extraCommands []command

// allCommands returns every command, built-in ones first. It is called at
// run time, after every init function has registered its command.
func allCommands() []command {
	return append([]command{
		{"render", "render a chat request into Beam's prompt", anyProgram(runRender)},
		{"lint", "warn about requests that render but mislead the model", anyProgram(runLint)},
	}, extraCommands...)
}

// Run runs the command line args (without the program's name) with the
// given standard streams and returns the process's exit code: 0 done, 1
// failed, 2 a usage error.
func (p Program) Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stdout)
		return 2
	case args[0] == "-version" || args[0] == "--version":
		return runVersion(args[1:], stdin, stdout, stderr)
	case args[0] == "help" && len(args) > 1:
		// help CMD is CMD --help.
		if c, ok := findCommand(args[1]); ok {
			return c.run(p, []string{"--help"}, stdin, stdout, stderr)
		}
		fmt.Fprintf(stderr, "beamharmony help: unknown command %q; run beamharmony --help\n", args[1])
		return 2
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		usage(stdout)
		return 0
	}
	if c, ok := findCommand(args[0]); ok {
		return c.run(p, args[1:], stdin, stdout, stderr)
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
