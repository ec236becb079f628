package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/serve"
)

// docFiles are the documents that may describe the serve command: the
// README and docs/*.md (issue 34 item 1).
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range append(paths, "../README.md") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(p, "../")] = string(data)
	}
	return out
}

// TestRouteNewDefaultAgrees: where a new conversation goes by default is
// said once, by the --route-new flag, and the library's zero value, the
// long help, the flag table, docs/routing.md and the Kubernetes example
// agree with it (issue 34 item 1; gap decision 135). A change of default
// fails here until every one of them is changed.
func TestRouteNewDefaultAgrees(t *testing.T) {
	help, _, code := runCLI(t, "", "serve", "--help")
	if code != 0 {
		t.Fatalf("--help: code %d", code)
	}
	m := regexp.MustCompile(`(?s)\n  -route-new placement\n[^\n]*\(default (\w+)\)`).FindStringSubmatch(help)
	if m == nil {
		t.Fatalf("--help lists no -route-new with a default:\n%s", help)
	}
	def := m[1]
	if lib, err := serve.ParseRouteNew(""); err != nil || lib != def {
		t.Errorf("serve.Routing's zero value places by %q, the flag's default is %q", lib, def)
	}
	if want := "(--route-new " + def + ", the default;"; !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
		t.Errorf("the long help does not say %q", want)
	}

	docs := docFiles(t)
	row := regexp.MustCompile("\\| `--route-new` \\| `BEAMHARMONY_ROUTE_NEW` \\| `(\\w+)` \\|")
	rows := 0
	for name, text := range docs {
		for _, m := range row.FindAllStringSubmatch(text, -1) {
			rows++
			if m[1] != def {
				t.Errorf("%s: the flag table gives --route-new's default as %s, the flag %s", name, m[1], def)
			}
		}
	}
	if rows == 0 {
		t.Error("no flag table lists --route-new")
	}

	routing := strings.Join(strings.Fields(docs["docs/routing.md"]), " ")
	if want := "By default (`--route-new " + def + "`)"; !strings.Contains(routing, want) {
		t.Errorf("docs/routing.md does not say %q", want)
	}
	if want := "With the default `--route-new " + def + "`, a conversation's first turn"; !strings.Contains(routing, want) {
		t.Errorf("docs/routing.md's Several gateways does not say %q", want)
	}

	// The Kubernetes example runs several gateways: it must place new
	// conversations by hash, and say so, whatever the default.
	env := regexp.MustCompile(`\{name: BEAMHARMONY_ROUTE_NEW, value: (\w+)\}`)
	manifests := 0
	for name, text := range docs {
		if !strings.Contains(text, "kind: Deployment") {
			continue
		}
		manifests++
		m := env.FindStringSubmatch(text)
		switch {
		case m == nil:
			t.Errorf("%s: the Kubernetes example does not set BEAMHARMONY_ROUTE_NEW", name)
		case m[1] != serve.RouteNewHash:
			t.Errorf("%s: the Kubernetes example runs several gateways with --route-new %s", name, m[1])
		}
		if m != nil && m[1] == def && !strings.Contains(text, "(with `--route-new "+def+"`, the default,") {
			t.Errorf("%s: the Kubernetes example's paragraph does not say that --route-new %s is the default", name, def)
		}
	}
	if manifests == 0 {
		t.Error("no document holds the Kubernetes example")
	}
}

// TestServeRouteNew: the placement reaches the server, from the flag, its
// former name and the environment, and a wrong one is a usage error.
func TestServeRouteNew(t *testing.T) {
	two := []string{"--backend", "http://127.0.0.1:9", "--backend", "http://127.0.0.1:10", "--listen", "127.0.0.1:0"}
	for _, c := range []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"default", "", nil, "hash"},
		{"flag", "", []string{"--route-new", "fewest"}, "fewest"},
		{"former name on", "", []string{"--route-hash"}, "hash"},
		{"former name off", "", []string{"--route-hash=false"}, "fewest"},
		{"environment", "fewest", nil, "fewest"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv("BEAMHARMONY_ROUTE_NEW", c.env)
			}
			rs := startServe(t, append(append([]string{}, two...), c.args...)...)
			if got := rs.record(t, "listening")["route_new"]; got != c.want {
				t.Errorf("route_new %v, want %s", got, c.want)
			}
		})
	}
	_, stderr, code := runCLI(t, "", "serve", "--backend", "http://127.0.0.1:9", "--route-new", "least")
	if code != 2 || !strings.Contains(stderr, "use hash or fewest") {
		t.Errorf("--route-new least: code %d, stderr %q", code, stderr)
	}
}
