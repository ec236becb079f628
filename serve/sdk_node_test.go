package serve

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// nodeLoopScript serves the tool loops of testdata/sdk/loop.mjs: two
// calls for London and Paris, one for London, and the answer once the
// results are in the prompt.
func nodeLoopScript(r *engineReq) gen {
	if strings.Contains(r.Prompt, "London and Paris") {
		return parallelScript(r)
	}
	return toolLoopScript(r)
}

// TestNodeSDKs runs the official TypeScript clients (@anthropic-ai/sdk and
// openai, pinned in testdata/sdk) through the Messages and Responses tool
// loops: both SDK families must parse our replies and streams. Under CI
// a missing node or npm install is a failure, elsewhere a skip.
func TestNodeSDKs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node")
	}
	dir := filepath.Join("testdata", "sdk")
	missing := func(why string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (CI needs node and `npm ci` in %s)", why, dir)
		}
		t.Skip(why + "; run npm ci in serve/testdata/sdk")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not found")
	}
	for _, pkg := range []string{"@anthropic-ai/sdk", "openai"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			missing(pkg + " is not installed")
		}
	}
	fe := newFakeEngine(t, nodeLoopScript)
	gw := newGateway(t, fe)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "loop.mjs", gw.URL)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("node loop.mjs:\n%s", out.String())
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	m := regexp.MustCompile(`(?m)^(\d+) passed, 0 failed$`).FindStringSubmatch(out.String())
	if m == nil || m[1] != "12" {
		t.Fatalf("want 12 checks passed")
	}
}
