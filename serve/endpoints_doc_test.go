package serve

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docEndpoints returns the "METHOD /path" rows of docs/serve.md's table
// of endpoints.
func docEndpoints(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../docs/serve.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| `((?:GET|POST) /[^`]*)` \\|").FindAllStringSubmatch(string(data), -1) {
		rows = append(rows, m[1])
	}
	return rows
}

// The endpoints docs/serve.md lists are the routes the server has (each
// under /v1, plus /health and /metrics, and the console's page), with
// their methods, and the 404's list names the same: none can be added,
// removed or renamed without the docs (issue 34: an endpoint list written
// by hand drifts).
func TestEndpointDocsMatchRoutes(t *testing.T) {
	var want []string
	for path, r := range routes {
		if !strings.HasPrefix(path, "/v1/") && path != "/health" && path != "/metrics" {
			continue // the same route without its /v1 prefix
		}
		method := "GET"
		if slices.Equal(r.methods, postOnly) {
			method = "POST"
		}
		want = append(want, method+" "+path)
	}
	want = append(want, "GET /console/")
	got := docEndpoints(t)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("docs/serve.md lists\n%q\nthe server routes\n%q", got, want)
	}
	for _, e := range want {
		path := strings.Fields(e)[1]
		if path != "/console/" && !strings.Contains(endpointList, path) {
			t.Errorf("the 404's list of endpoints lacks %s", path)
		}
	}
}
