package cli

import (
	"fmt"
	"strings"
	"testing"
)

// --backend is repeatable and takes comma-separated lists, each URL with an
// optional weight; a second --backend adds a replica, never replaces the
// first.
func TestParseBackends(t *testing.T) {
	for _, c := range []struct {
		vals []string
		want string // fmt of the backends, or the error
	}{
		{[]string{"http://a:8000"}, "[{http://a:8000 0}]"},
		{[]string{"http://a:8000", "http://b:8000"}, "[{http://a:8000 0} {http://b:8000 0}]"},
		{[]string{"http://a:8000, http://b:8000;weight=2", "http://c:8000;weight=0.5"}, "[{http://a:8000 0} {http://b:8000 2} {http://c:8000 0.5}]"},
		{[]string{"http://a:8000;weight=0"}, `--backend "http://a:8000;weight=0": after the URL, only ;weight=N with a positive number`},
		{[]string{"http://a:8000;w=2"}, `--backend "http://a:8000;w=2": after the URL, only ;weight=N with a positive number`},
		{nil, "[]"},
	} {
		got, err := parseBackends(c.vals)
		s := fmt.Sprint(got)
		if err != nil {
			s = err.Error()
		}
		if s != c.want && !(len(got) == 0 && err == nil && c.want == "[]") {
			t.Errorf("%q: %s, want %s", c.vals, s, c.want)
		}
	}
}

func TestServeTwoBackendsLogged(t *testing.T) {
	rs := startServe(t, "--backend", "http://127.0.0.1:9", "--backend", "http://127.0.0.1:10", "--listen", "127.0.0.1:0")
	if !strings.Contains(rs.stderr.String(), `"backend":["http://127.0.0.1:9","http://127.0.0.1:10"]`) {
		t.Errorf("log %s", rs.stderr.String())
	}
}
