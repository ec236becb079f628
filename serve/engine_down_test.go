package serve

import (
	"net"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEngineDownKeepsItsAddress: a constrained request while the engine
// does not answer is a 503 that says so without the engine's address or
// the dial errors (SECURITY.md: those stay in the log), which the log has.
func TestEngineDownKeepsItsAddress(t *testing.T) {
	old := detectRetry
	detectRetry = 0
	t.Cleanup(func() { detectRetry = old })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	var logs syncBuffer
	s, err := New(Config{Backend: "http://" + addr, Logger: newJSONLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	gw := httptest.NewServer(s)
	defer gw.Close()
	for _, api := range apiCases {
		for _, stream := range []bool{false, true} {
			o := api.send(t, gw, constrainedBody(api.name, weatherParams, constraintCases[0].extra[api.name]), stream)
			if o.status != 503 || !strings.Contains(o.errMsg, "GET /props: no answer") {
				t.Errorf("%s: %d %s", api.name, o.status, o.raw)
			}
			host, port, _ := net.SplitHostPort(addr)
			for _, leak := range []string{addr, host, ":" + port, "dial", "refused"} {
				if strings.Contains(string(o.raw), leak) {
					t.Errorf("%s: the reply holds %q: %s", api.name, leak, o.raw)
				}
			}
		}
	}
	if !strings.Contains(logs.String(), "connection refused") {
		t.Errorf("the log lacks the dial error:\n%s", logs.String())
	}
}
