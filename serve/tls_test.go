package serve

import (
	"context"
	"crypto/tls"
	"github.com/beamharmony/harmony/internal/testcert"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// runTLS runs the gateway with Run over TLS and returns its address; the
// server stops at the end of the test.
func runTLS(t testing.TB, h http.Handler, cfg *tls.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, ln, h, RunOptions{TLSConfig: cfg, ShutdownTimeout: 5 * time.Second}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return ln.Addr().String()
}

// Run serves HTTPS with RunOptions.TLSConfig: HTTP/2 as a Go client
// negotiates it, and a plain HTTP request to the port is refused. (The
// command line's certificate reloading is tested in package cli.)
func TestRunTLS(t *testing.T) {
	cert := testcert.New(t, 1)
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	s, err := New(Config{Backend: fe.srv.URL, Model: "beam"})
	if err != nil {
		t.Fatal(err)
	}
	addr := runTLS(t, s, cert.TLSConfig(t))
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: cert.Pool()}, ForceAttemptHTTP2: true}}
	defer client.CloseIdleConnections()
	resp, err := client.Post("https://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil || resp.ProtoMajor != 2 {
		t.Fatalf("over TLS: %d, TLS %v, %s", resp.StatusCode, resp.TLS != nil, resp.Proto)
	}
	if resp, err := http.Get("http://" + addr + "/health"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("plain HTTP to the TLS port: %d", resp.StatusCode)
		}
	}
}
