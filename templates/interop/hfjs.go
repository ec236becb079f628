package interop

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// renderHFJS is the node helper that renders requests with a chat template
// in @huggingface/jinja, the Jinja engine of transformers.js.
//
//go:embed render_hfjs.mjs
var renderHFJS string

// Errors from node, distinguished so that a test can skip when node or the
// package is missing on a developer's machine.
var (
	// ErrNoNode means the node executable was not found.
	ErrNoNode = errors.New("no node found; install Node.js 18 or later")
	// ErrNoHFJS means node runs but cannot load @huggingface/jinja.
	ErrNoHFJS = errors.New("node cannot load @huggingface/jinja; run `npm install @huggingface/jinja` in the directory given as the modules directory")
)

// exitNoPackage is render_hfjs.mjs's exit status when the package cannot be
// loaded.
const exitNoPackage = 3

// HFJS runs a chat template in @huggingface/jinja under node.
// @huggingface/jinja knows no {% generation %} blocks, so its results have
// no assistant spans (Result.SpansUnknown).
type HFJS struct {
	// Node is the node executable; empty means node on PATH.
	Node string
	// Modules is a directory whose node_modules holds @huggingface/jinja
	// (in this repository: templates/hfjs after npm ci there).
	Modules string
}

// Name returns "@huggingface/jinja".
func (h *HFJS) Name() string { return "@huggingface/jinja" }

// DropsGenerationTags reports whether the engine removes {% generation %}
// tags before parsing a template, as @huggingface/jinja 0.5 does: then it
// cannot tell assistant spans.
func (h *HFJS) DropsGenerationTags(ctx context.Context) (bool, error) {
	path, modules, err := h.locate()
	if err != nil {
		return false, err
	}
	helper, cleanup, err := writeHelper("render_hfjs.mjs", renderHFJS)
	if err != nil {
		return false, err
	}
	defer cleanup()
	out, err := exec.CommandContext(ctx, path, helper, "--probe-generation", "--modules", modules).Output()
	if exitCode(err) == exitNoPackage {
		return false, fmt.Errorf("%w (%s)", ErrNoHFJS, modules)
	}
	if err != nil {
		return false, fmt.Errorf("render_hfjs.mjs --probe-generation: %w", err)
	}
	return strings.TrimSpace(string(out)) == "true", nil
}

// locate returns the node executable and the modules directory.
func (h *HFJS) locate() (node, modules string, err error) {
	exe := h.Node
	if exe == "" {
		exe = "node"
	}
	node, err = exec.LookPath(exe)
	if err != nil {
		return "", "", fmt.Errorf("%w (%v)", ErrNoNode, err)
	}
	modules = h.Modules
	if modules == "" {
		modules = "."
	}
	return node, modules, nil
}

// RenderTemplate renders every request with the chat template at
// templatePath in one node process and returns the results in order.
func (h *HFJS) RenderTemplate(ctx context.Context, templatePath string, requests [][]byte) ([]Result, error) {
	path, modules, err := h.locate()
	if err != nil {
		return nil, err
	}
	helper, cleanup, err := writeHelper("render_hfjs.mjs", renderHFJS)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	cmd := exec.CommandContext(ctx, path, helper, "--template", templatePath, "--modules", modules)
	results, err := runBatch(cmd, "render_hfjs.mjs", requests)
	if exitCode(err) == exitNoPackage {
		var he *helperError
		errors.As(err, &he)
		return nil, fmt.Errorf("%w (%s): %s", ErrNoHFJS, modules, he.stderr)
	}
	return results, err
}
