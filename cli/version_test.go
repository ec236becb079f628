package cli

import (
	"runtime"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/buildinfo"
)

func TestVersion(t *testing.T) {
	want := buildinfo.Read().String() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		out, errOut, code := runCLI(t, "", args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%v: code %d, stderr %q", args, code, errOut)
		}
		if out != want {
			t.Errorf("%v printed %q, want %q", args, out, want)
		}
		if !strings.HasPrefix(out, buildinfo.ModulePath+" ") || !strings.HasSuffix(out, " "+runtime.Version()+"\n") {
			t.Errorf("%v printed %q: want the module path first and the Go version last", args, out)
		}
	}
	if _, errOut, code := runCLI(t, "", "version", "extra"); code != 2 || !strings.Contains(errOut, "extra") {
		t.Errorf("version extra: code %d, stderr %q", code, errOut)
	}
}

// help CMD prints what CMD --help prints, for every command; before, it
// printed the top-level help.
func TestHelpCommand(t *testing.T) {
	for _, c := range allCommands() {
		t.Run(c.name, func(t *testing.T) {
			want, _, code := runCLI(t, "", c.name, "--help")
			if code != 0 {
				t.Fatalf("%s --help: code %d", c.name, code)
			}
			got, errOut, code := runCLI(t, "", "help", c.name)
			if code != 0 || errOut != "" {
				t.Fatalf("help %s: code %d, stderr %q", c.name, code, errOut)
			}
			if got != want {
				t.Errorf("help %s printed:\n%s\nwant %s --help's:\n%s", c.name, got, c.name, want)
			}
			if !strings.Contains(got, "Usage: beamharmony "+c.name) {
				t.Errorf("help %s lacks its synopsis:\n%s", c.name, got)
			}
		})
	}
	if _, errOut, code := runCLI(t, "", "help", "nosuch"); code != 2 || !strings.Contains(errOut, `"nosuch"`) {
		t.Errorf("help nosuch: code %d, stderr %q", code, errOut)
	}
	top, _, code := runCLI(t, "", "help")
	if code != 0 || !strings.Contains(top, "Commands:") || !strings.Contains(top, "version") {
		t.Errorf("help: code %d, output %q", code, top)
	}
}
