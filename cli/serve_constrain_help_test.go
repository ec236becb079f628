package cli

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// TestServeHelpConstrainedStatus: what --help says a constrained request
// gets while the engine's kind is unknown is what it gets: a 503
// engine_unavailable while the engine does not answer, a 400
// engine_cannot_constrain when it answers as no engine the gateway knows
// (issue 34 item 2: the help said 400 for both).
func TestServeHelpConstrainedStatus(t *testing.T) {
	help, _, code := runCLI(t, "", "serve", "--help")
	if code != 0 {
		t.Fatalf("--help: code %d", code)
	}
	said := map[string]string{}
	for _, m := range regexp.MustCompile(`(\d{3}) \((engine_\w+)\)`).FindAllStringSubmatch(strings.Join(strings.Fields(help), " "), -1) {
		said[m[2]] = m[1]
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()
	nobody := httptest.NewServer(http.NotFoundHandler()) // answers, as no engine it knows
	defer nobody.Close()
	for _, c := range []struct {
		name, backend, code string
	}{
		{"engine down", "http://" + down, "engine_unavailable"},
		{"engine of no known kind", nobody.URL, "engine_cannot_constrain"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs := startServe(t, "--backend", c.backend, "--listen", "127.0.0.1:0")
			resp, err := http.Post("http://"+rs.addr(t)+"/v1/chat/completions", "application/json", strings.NewReader(
				`{"model":"beam","tool_choice":"required","tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"user","content":"Hi"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct {
				Error struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			if json.Unmarshal(data, &e) != nil || e.Error.Code != c.code {
				t.Fatalf("%d %s, want the code %s", resp.StatusCode, data, c.code)
			}
			if got := resp.Status[:3]; said[c.code] != got {
				t.Errorf("the help says %s is a %q, the server answers %s", c.code, said[c.code], got)
			}
		})
	}
}
