package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"github.com/beamharmony/harmony/internal/testcert"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/beamharmony/harmony/serve"
)

// runTLS serves h with serve.Run over TLS and returns its address; the
// server stops at the end of the test.
func runTLS(t testing.TB, h http.Handler, cfg *tls.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve.Run(ctx, ln, h, serve.RunOptions{TLSConfig: cfg, ShutdownTimeout: 5 * time.Second})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return ln.Addr().String()
}

// servedSerial connects and returns the serial number of the certificate
// the server presents.
func servedSerial(t testing.TB, addr string, roots *x509.CertPool) int64 {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// A certReloader picks up a renewed certificate on Reload (SIGHUP) and,
// when the files change, on a later handshake, without a restart; a
// broken pair keeps the current one.
func TestTLSReload(t *testing.T) {
	dir := t.TempDir()
	one, two, three := testcert.New(t, 1), testcert.New(t, 2), testcert.New(t, 3)
	certFile, keyFile := one.Write(t, dir)
	var reloadErrs []error
	cr, err := newCertReloader(certFile, keyFile, func(err error) { reloadErrs = append(reloadErrs, err) })
	if err != nil {
		t.Fatal(err)
	}
	// No reload but Reload's until the last step, however slow the
	// machine: the handshakes must not look at the files early.
	cr.mu.Lock()
	cr.checkEvery = time.Hour
	cr.mu.Unlock()
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	addr := runTLS(t, ok, cr.TLSConfig())
	roots := one.Pool(two, three)

	if got := servedSerial(t, addr, roots); got != 1 {
		t.Fatalf("serial %d, want 1", got)
	}

	// Renewed, then Reload (what SIGHUP does).
	two.Write(t, dir)
	if err := cr.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := servedSerial(t, addr, roots); got != 2 {
		t.Errorf("after Reload: serial %d, want 2", got)
	}

	// A key that does not match the certificate: Reload fails, and the
	// current certificate stays.
	if err := os.WriteFile(keyFile, one.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cr.Reload(); err == nil {
		t.Error("Reload accepted a key of another certificate")
	}
	if got := servedSerial(t, addr, roots); got != 2 {
		t.Errorf("after a failed reload: serial %d, want 2", got)
	}

	// Renewed, with no Reload: the handshake sees the files changed.
	cr.mu.Lock()
	cr.checkEvery = 0
	cr.mu.Unlock()
	three.Write(t, dir)
	if got := servedSerial(t, addr, roots); got != 3 {
		t.Errorf("after the files changed: serial %d, want 3", got)
	}
	cr.mu.Lock() // onError runs under it
	defer cr.mu.Unlock()
	if len(reloadErrs) != 0 {
		t.Errorf("reload errors: %v", reloadErrs)
	}
}

func TestCertReloaderErrors(t *testing.T) {
	dir := t.TempDir()
	c := testcert.New(t, 1)
	certFile, keyFile := c.Write(t, dir)
	for name, files := range map[string][2]string{
		"missing cert":  {filepath.Join(dir, "nope"), keyFile},
		"missing key":   {certFile, filepath.Join(dir, "nope")},
		"key as cert":   {keyFile, keyFile},
		"a directory":   {dir, keyFile},
		"swapped files": {keyFile, certFile},
	} {
		if _, err := newCertReloader(files[0], files[1], nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := newCertReloader(certFile, keyFile, nil); err != nil {
		t.Fatal(err)
	}
}
