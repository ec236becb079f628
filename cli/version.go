package cli

import (
	"fmt"
	"io"

	"github.com/beamharmony/harmony/internal/buildinfo"
)

func init() {
	extraCommands = append(extraCommands, command{"version", "print the module version, commit and Go version of this binary", anyProgram(runVersion)})
}

const versionHelp = `
Usage: beamharmony version

Print what this binary was built from, as the go command recorded it: the
module path and version (a release tag, a pseudo-version, or (devel) for a
build inside a checkout), the version control commit (with ", modified"
for a work tree with uncommitted changes) and the Go version.
"beamharmony --version" prints the same line.

Example:

  $ beamharmony version
  github.com/beamharmony/harmony v1.2.0 (commit 0123456789ab) go1.26.0
`

func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("version", versionHelp, stdout, stderr)
	rest, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) > 0 {
		return fail(stderr, "version", usagef("unexpected argument %q", rest[0]))
	}
	fmt.Fprintln(stdout, buildinfo.Read().String())
	return 0
}
