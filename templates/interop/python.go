package interop

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os/exec"
)

// renderJinjaPy is the Python helper that renders requests with a chat
// template the way Hugging Face's apply_chat_template does (same Jinja
// environment, same {% generation %} span tracking). It needs only Python 3
// and Jinja2; RenderTemplate writes it to a temporary file unless
// Python.Helper names a copy.
//
//go:embed render_jinja.py
var renderJinjaPy string

// Errors from Python, distinguished so that a test can skip when the
// interpreter or Jinja2 is missing on a developer's machine.
var (
	// ErrNoPython means the Python interpreter was not found.
	ErrNoPython = errors.New("no Python interpreter found; install Python 3 and Jinja2 (Debian: python3-jinja2)")
	// ErrNoJinja means Python runs but cannot import jinja2.
	ErrNoJinja = errors.New("python3 cannot import jinja2; install Jinja2 3.1+ (Debian: python3-jinja2)")
)

// exitNoJinja is render_jinja.py's exit status when jinja2 cannot be imported.
const exitNoJinja = 3

// Python runs a chat template with Jinja2 in Hugging Face's environment, in
// render_jinja.py.
type Python struct {
	// Exe is the interpreter; empty means python3 on PATH.
	Exe string
	// Helper is the path of render_jinja.py; empty means a temporary copy
	// of the one embedded in the binary.
	Helper string
}

// Name returns "Jinja2".
func (py *Python) Name() string { return "Jinja2" }

// RenderTemplate renders every request with the chat template at
// templatePath in one Python process and returns the results in order.
func (py *Python) RenderTemplate(ctx context.Context, templatePath string, requests [][]byte) ([]Result, error) {
	exe := py.Exe
	if exe == "" {
		exe = "python3"
	}
	path, err := exec.LookPath(exe)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNoPython, err)
	}
	helper := py.Helper
	if helper == "" {
		var cleanup func()
		helper, cleanup, err = writeHelper("render_jinja.py", renderJinjaPy)
		if err != nil {
			return nil, err
		}
		defer cleanup()
	}
	cmd := exec.CommandContext(ctx, path, "-X", "utf8", helper, "--template", templatePath, "--batch")
	results, err := runBatch(cmd, "render_jinja.py", requests)
	if exitCode(err) == exitNoJinja {
		var he *helperError
		errors.As(err, &he)
		return nil, fmt.Errorf("%w: %s", ErrNoJinja, he.stderr)
	}
	return results, err
}
