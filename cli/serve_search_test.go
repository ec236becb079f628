package cli

import (
	"strings"
	"testing"
)

// TestServeSearchFlags: the hosted web search's flags are in --help with
// their environment variables, and a search backend that is not an http
// URL stops the server at start-up.
func TestServeSearchFlags(t *testing.T) {
	out, _, code := runCLI(t, "", "serve", "--help")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	for _, name := range []string{"search-backend", "search-allow-private", "search-max-rounds", "search-timeout"} {
		if !strings.Contains(out, "-"+name+" ") && !strings.Contains(out, "-"+name+"\n") {
			t.Errorf("--help lacks --%s", name)
		}
		if !strings.Contains(out, "["+envName(name)+"]") {
			t.Errorf("--help does not name %s", envName(name))
		}
	}
	_, errOut, code := runCLI(t, "", "serve", "--backend", "http://127.0.0.1:8000", "--listen", "127.0.0.1:0", "--search-backend", "ftp://search")
	if code != 1 || !strings.Contains(errOut, "search backend: want an http or https URL") {
		t.Errorf("code %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "", "serve", "--backend", "http://127.0.0.1:8000", "--search-max-rounds", "0")
	if code != 2 {
		t.Errorf("--search-max-rounds 0: code %d, stderr %q", code, errOut)
	}
}
