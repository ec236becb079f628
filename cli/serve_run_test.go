package cli

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/beamharmony/harmony/internal/buildinfo"
)

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runningServe is "beamharmony serve" running in-process, with signals the
// test sends.
type runningServe struct {
	stderr *lockedBuffer
	stop   context.CancelFunc
	reload chan os.Signal
	code   chan int
}

// startServe runs serve with args and returns once it logs "listening".
// The server stops at the end of the test.
func startServe(t *testing.T, args ...string) *runningServe {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rs := &runningServe{stderr: &lockedBuffer{}, stop: cancel, reload: make(chan os.Signal, 1), code: make(chan int, 1)}
	old := newServeSignals
	newServeSignals = func() serveSignals { return serveSignals{ctx: ctx, reload: rs.reload, stop: func() {}} }
	t.Cleanup(func() { newServeSignals = old })
	base := []string{"serve", "--model", "beam"}
	if !slices.Contains(args, "--backend") {
		// A second --backend adds a replica: only tests without one get
		// this engine-less default.
		base = append(base, "--backend", "http://127.0.0.1:9")
	}
	go func() {
		rs.code <- Main(append(base, args...), strings.NewReader(""), io.Discard, rs.stderr)
	}()
	t.Cleanup(func() {
		cancel()
		<-rs.code
	})
	rs.waitLog(t, `"msg":"listening"`)
	return rs
}

// waitLog waits, up to a minute, for the log to hold text.
func (rs *runningServe) waitLog(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(rs.stderr.String(), text) {
		select {
		case code := <-rs.code:
			t.Fatalf("serve exited with %d:\n%s", code, rs.stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log never held %s:\n%s", text, rs.stderr.String())
		}
	}
}

// record returns the first log record with the given message.
func (rs *runningServe) record(t *testing.T, msg string) map[string]any {
	t.Helper()
	for _, line := range strings.Split(rs.stderr.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == msg {
			return m
		}
	}
	t.Fatalf("no %q record in\n%s", msg, rs.stderr.String())
	return nil
}

func (rs *runningServe) addr(t *testing.T) string {
	return rs.record(t, "listening")["addr"].(string)
}

func get(t *testing.T, client *http.Client, url string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

func bearerHeader(k string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + k}
}

// The startup record names the version, the commit and the Go version.
func TestServeStartupRecord(t *testing.T) {
	rs := startServe(t, "--listen", "127.0.0.1:0")
	r := rs.record(t, "listening")
	bi := buildinfo.Read()
	if r["version"] != bi.Version || r["go_version"] != runtime.Version() || r["commit"] != bi.Commit {
		t.Errorf("listening record %v, want version %q, commit %q, go_version %q", r, bi.Version, bi.Commit, runtime.Version())
	}
	if strings.Contains(rs.stderr.String(), "no API key") {
		t.Errorf("a warning on a loopback address:\n%s", rs.stderr.String())
	}
}

// Keys from --api-key, BEAMHARMONY_API_KEY and --api-key-file; SIGHUP
// reloads the file, and a file that no longer loads keeps the keys.
func TestServeAPIKeys(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "keys")
	if err := os.WriteFile(keyFile, []byte("# keys\nfile-key-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BEAMHARMONY_API_KEY", "env-key")
	rs := startServe(t, "--listen", "127.0.0.1:0", "--api-key", "flag-key", "--api-key", "flag-key-2", "--api-key-file", keyFile)
	base := "http://" + rs.addr(t)
	c := http.DefaultClient
	status := func(key string) int {
		st, _ := get(t, c, base+"/v1/models", bearerHeader(key))
		return st
	}
	for key, want := range map[string]int{"flag-key": 200, "flag-key-2": 200, "file-key-1": 200, "env-key": 401, "nope": 401} {
		if got := status(key); got != want {
			t.Errorf("key %s: %d, want %d (the command line's --api-key replaces BEAMHARMONY_API_KEY)", key, got, want)
		}
	}
	if st, body := get(t, c, base+"/health", nil); st != 200 && st != 503 || strings.Contains(body, "127.0.0.1:9") {
		t.Errorf("/health without a key: %d %s", st, body)
	}
	if strings.Contains(rs.stderr.String(), "flag-key") || strings.Contains(rs.stderr.String(), "file-key-1") {
		t.Errorf("a key in the log:\n%s", rs.stderr.String())
	}

	// The file changes; SIGHUP.
	if err := os.WriteFile(keyFile, []byte("file-key-2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rs.reload <- syscall.SIGHUP
	rs.waitLog(t, `"msg":"api keys reloaded"`)
	if status("file-key-1") != 401 || status("file-key-2") != 200 || status("flag-key") != 200 {
		t.Error("after the reload: the old file key must be refused, the new one and the flag's accepted")
	}
	// An empty file: the reload fails and the keys stay.
	if err := os.WriteFile(keyFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rs.reload <- syscall.SIGHUP
	rs.waitLog(t, `"msg":"api key reload failed; the previous keys stay"`)
	if status("file-key-2") != 200 {
		t.Error("a failed reload dropped the keys")
	}
}

// The environment's key alone, with no flag.
func TestServeAPIKeyFromEnvironment(t *testing.T) {
	t.Setenv("BEAMHARMONY_API_KEY", "env-key")
	rs := startServe(t, "--listen", "127.0.0.1:0")
	base := "http://" + rs.addr(t)
	if st, _ := get(t, http.DefaultClient, base+"/v1/models", bearerHeader("env-key")); st != 200 {
		t.Errorf("env key: %d", st)
	}
	if st, _ := get(t, http.DefaultClient, base+"/v1/models", nil); st != 401 {
		t.Errorf("no key: %d", st)
	}
}

// Listening on every interface without a key logs a warning.
func TestServeWarnsWithoutKey(t *testing.T) {
	rs := startServe(t, "--listen", ":0")
	r := rs.record(t, "no API key: anyone who can reach this address can use the engine; set --api-key-file (or --api-key), or listen on a loopback address")
	if r["level"] != "WARN" {
		t.Errorf("record %v", r)
	}
	for addr, want := range map[string]bool{"127.0.0.1:80": true, "[::1]:80": true, "0.0.0.0:80": false, "[::]:80": false, "192.0.2.1:80": false} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := isLoopback(a); got != want {
			t.Errorf("isLoopback(%s) = %v", addr, got)
		}
	}
}

// --metrics-listen serves /metrics on its own address without a key, and
// the API's port no longer does.
func TestServeMetricsListen(t *testing.T) {
	rs := startServe(t, "--listen", "127.0.0.1:0", "--api-key", "k", "--metrics-listen", "127.0.0.1:0")
	base := "http://" + rs.addr(t)
	metrics := "http://" + rs.record(t, "listening")["metrics_addr"].(string)
	if st, body := get(t, http.DefaultClient, metrics+"/metrics", nil); st != 200 || !strings.Contains(body, "beamharmony_requests_total") {
		t.Errorf("metrics listener: %d", st)
	}
	if st, _ := get(t, http.DefaultClient, base+"/metrics", bearerHeader("k")); st != 404 {
		t.Errorf("/metrics on the API's port: %d", st)
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T, dir string, serial int64) (certFile, keyFile string, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ = x509.ParseCertificate(der)
	keyDER, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, cert
}

// --tls-cert and --tls-key serve HTTPS; SIGHUP reloads the certificate.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, one := selfSigned(t, dir, 1)
	rs := startServe(t, "--listen", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	addr := rs.addr(t)
	if rs.record(t, "listening")["tls"] != true {
		t.Error("the listening record does not say tls")
	}
	roots := x509.NewCertPool()
	roots.AddCert(one)
	serial := func() int64 {
		conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	if serial() != 1 {
		t.Fatal("not the first certificate")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	if st, _ := get(t, client, "https://"+addr+"/v1/models", nil); st != 200 {
		t.Errorf("GET over TLS: %d", st)
	}
	_, _, two := selfSigned(t, dir, 2)
	roots.AddCert(two)
	rs.reload <- syscall.SIGHUP
	rs.waitLog(t, `"msg":"tls certificate reloaded"`)
	if got := serial(); got != 2 {
		t.Errorf("after SIGHUP: serial %d, want 2", got)
	}
}

func TestServeNewFlags(t *testing.T) {
	out, _, code := runCLI(t, "", "serve", "--help")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	for _, s := range []string{"POST /v1/chat/completions", "POST /v1/responses", "POST /v1/messages ", "POST /v1/messages/count_tokens",
		"GET  /v1/models", "GET  /health", "GET  /metrics",
		"[BEAMHARMONY_API_KEY]", "[BEAMHARMONY_API_KEY_FILE]", "[BEAMHARMONY_TLS_CERT]", "[BEAMHARMONY_TLS_KEY]", "[BEAMHARMONY_CORS_ORIGINS]",
		"[BEAMHARMONY_METRICS_LISTEN]", "[BEAMHARMONY_DEFAULT_MAX_TOKENS]", "[BEAMHARMONY_MAX_TOKENS]", "[BEAMHARMONY_MAX_PROMPT_BYTES]",
		"[BEAMHARMONY_PREPARE_CONCURRENCY]"} {
		if !strings.Contains(out, s) {
			t.Errorf("serve --help lacks %q", s)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert", "x"}, "--tls-cert and --tls-key go together"},
		{[]string{"--cors-origins", "example.com"}, "cors origin"},
		{[]string{"--default-max-tokens", "0"}, "must be positive"},
		{[]string{"--max-tokens", "0"}, "must be positive"},
		{[]string{"--api-key", "has space"}, "api key 1 of 1"},
		{[]string{"--api-key-file", "/nonexistent/keys"}, "/nonexistent/keys"},
	} {
		_, errOut, code := runCLI(t, "", append([]string{"serve", "--backend", "http://localhost:8000"}, tt.args...)...)
		if code == 0 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: code %d, stderr %q, want %q", tt.args, code, errOut, tt.want)
		}
		if strings.Contains(errOut, "has space") {
			t.Errorf("%v: the error shows the key: %q", tt.args, errOut)
		}
	}
}
