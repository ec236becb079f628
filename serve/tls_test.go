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

// tlsConfig is a server configuration serving the certificate.
func (c *testCert) tlsConfig(t testing.TB) *tls.Config {
	t.Helper()
	pair, err := tls.X509KeyPair(c.certPEM, c.keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}}
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

// Run serves HTTPS with RunOptions.TLSConfig: HTTP/2 as a Go client
// negotiates it, and a plain HTTP request to the port is refused. (The
// command line's certificate reloading is tested in package cli.)
func TestRunTLS(t *testing.T) {
	cert := newTestCert(t, 1)
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	s, err := New(Config{Backend: fe.srv.URL, Model: "beam"})
	if err != nil {
		t.Fatal(err)
	}
	addr := runTLS(t, s, cert.tlsConfig(t))
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: cert.pool()}, ForceAttemptHTTP2: true}}
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
