package serve

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestRouteDecisionLabels: each kind of routing decision has its own label
// of beamharmony_route_decisions_total, registered at zero, explained in
// the metric's help and in docs/routing.md; a new conversation is counted
// under the placement that chose it, hash by default and fewest with
// RouteNewFewest (issue 34 item 1: hash used to count both).
func TestRouteDecisionLabels(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range routeDecisions {
		if seen[d] {
			t.Errorf("label %q counts two kinds of decision", d)
		}
		seen[d] = true
	}
	doc, err := os.ReadFile("../docs/routing.md")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Backends: []Backend{{URL: "http://127.0.0.1:9"}, {URL: "http://127.0.0.1:10"}}})
	if err != nil {
		t.Fatal(err)
	}
	var exposition bytes.Buffer
	if _, err := s.metrics.reg.WriteTo(&exposition); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(exposition.String(), "\n# TYPE beamharmony_route_decisions_total counter\n") {
		t.Errorf("beamharmony_route_decisions_total is not a counter:\n%s", exposition.String())
	}
	if n := len(regexp.MustCompile(`(?m)^beamharmony_route_decisions_total\{decision="\w+"\} 0$`).FindAllString(exposition.String(), -1)); n != len(routeDecisions) {
		t.Errorf("%d decision series registered at 0, want %d", n, len(routeDecisions))
	}
	help := regexp.MustCompile(`(?m)^# HELP beamharmony_route_decisions_total .*$`).FindString(exposition.String())
	for _, d := range routeDecisions {
		if !strings.Contains(help, d+" (") {
			t.Errorf("the metric's help does not explain %q: %s", d, help)
		}
		if !strings.Contains(string(doc), `decision="`+d+`"`) {
			t.Errorf("docs/routing.md does not name decision=%q", d)
		}
	}

	// Every decision the router makes is one of the registered labels.
	made := map[string]bool{}
	for _, c := range []struct {
		placement, want string
	}{{"", routeHash}, {RouteNewHash, routeHash}, {RouteNewFewest, routeFewest}} {
		rt := newRouter(Routing{NewConversations: c.placement})
		rt.add("http://a:8000", 1)
		rt.add("http://b:8000", 1)
		i, d := rt.pick(nil, 42, 0, nil)
		if d != c.want {
			t.Errorf("placement %q: a new conversation is counted as %s, want %s", c.placement, d, c.want)
		}
		made[d] = true
		rt.convs.place(42, i)
		_, d = rt.pick(nil, 42, 0, nil)
		made[d] = true
		rt.table.record([]uint64{1, 2}, i)
		_, d = rt.pick([]uint64{1, 2}, 42, 0, nil)
		made[d] = true
		_, d = rt.pick([]uint64{1, 2}, 42, 0, []int{i})
		made[d] = true
		rt.replicas[i].open.Store(DefaultRouteLoadMargin + 1)
		_, d = rt.pick([]uint64{1, 2}, 42, 0, nil)
		made[d] = true
		rt.replicas[0].healthy.Store(false)
		rt.replicas[1].healthy.Store(false)
		_, d = rt.pick(nil, 42, 0, nil)
		made[d] = true
	}
	if len(made) != len(routeDecisions) {
		t.Errorf("the router made the decisions %v, the labels are %v", made, routeDecisions)
	}
	for d := range made {
		if !seen[d] {
			t.Errorf("decision %q has no label of its own", d)
		}
	}
	if _, err := New(Config{Backend: "http://127.0.0.1:9", Routing: Routing{NewConversations: "least"}}); err == nil {
		t.Error("an unknown placement was accepted")
	}
}
