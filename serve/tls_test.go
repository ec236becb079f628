package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCert is a self-signed certificate for 127.0.0.1 and localhost.
type testCert struct {
	cert            *x509.Certificate
	certPEM, keyPEM []byte
}

func newTestCert(t testing.TB, serial int64) *testCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               pkix.Name{CommonName: "beamharmony test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return &testCert{cert: cert,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})}
}

// write writes the certificate and key files in dir, replacing them as a
// certificate manager does (write aside, rename over).
func (c *testCert) write(t testing.TB, dir string) (certFile, keyFile string) {
	t.Helper()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for _, f := range []struct {
		path string
		data []byte
	}{{certFile, c.certPEM}, {keyFile, c.keyPEM}} {
		tmp := f.path + ".new"
		if err := os.WriteFile(tmp, f.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, f.path); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}

func (c *testCert) pool(more ...*testCert) *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(c.cert)
	for _, m := range more {
		p.AddCert(m.cert)
	}
	return p
}

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

// Run serves HTTPS with a CertReloader, which picks up a renewed
// certificate on Reload (SIGHUP) and, when the files change, on a later
// handshake, without a restart; a broken pair keeps the current one.
func TestTLSReload(t *testing.T) {
	dir := t.TempDir()
	one, two, three := newTestCert(t, 1), newTestCert(t, 2), newTestCert(t, 3)
	certFile, keyFile := one.write(t, dir)
	var reloadErrs []error
	cr, err := NewCertReloader(certFile, keyFile, func(err error) { reloadErrs = append(reloadErrs, err) })
	if err != nil {
		t.Fatal(err)
	}
	// No reload but Reload's until the last step, however slow the
	// machine: the handshakes must not look at the files early.
	cr.mu.Lock()
	cr.checkEvery = time.Hour
	cr.mu.Unlock()
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	s, err := New(Config{Backend: fe.srv.URL, Model: "beam"})
	if err != nil {
		t.Fatal(err)
	}
	addr := runTLS(t, s, cr.TLSConfig())
	roots := one.pool(two, three)

	if got := servedSerial(t, addr, roots); got != 1 {
		t.Fatalf("serial %d, want 1", got)
	}
	// A request over HTTPS, HTTP/2 as a Go client negotiates it.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	defer client.CloseIdleConnections()
	resp, err := client.Post("https://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil || resp.ProtoMajor != 2 {
		t.Fatalf("over TLS: %d, TLS %v, %s", resp.StatusCode, resp.TLS != nil, resp.Proto)
	}
	// A plain HTTP request to the TLS port is refused.
	if resp, err := http.Get("http://" + addr + "/health"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("plain HTTP to the TLS port: %d", resp.StatusCode)
		}
	}

	// Renewed, then Reload (what SIGHUP does).
	two.write(t, dir)
	if err := cr.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := servedSerial(t, addr, roots); got != 2 {
		t.Errorf("after Reload: serial %d, want 2", got)
	}

	// A key that does not match the certificate: Reload fails, and the
	// current certificate stays.
	if err := os.WriteFile(keyFile, one.keyPEM, 0o600); err != nil {
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
	three.write(t, dir)
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
	c := newTestCert(t, 1)
	certFile, keyFile := c.write(t, dir)
	for name, files := range map[string][2]string{
		"missing cert":  {filepath.Join(dir, "nope"), keyFile},
		"missing key":   {certFile, filepath.Join(dir, "nope")},
		"key as cert":   {keyFile, keyFile},
		"a directory":   {dir, keyFile},
		"swapped files": {keyFile, certFile},
	} {
		if _, err := NewCertReloader(files[0], files[1], nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := NewCertReloader(certFile, keyFile, nil); err != nil {
		t.Fatal(err)
	}
}
