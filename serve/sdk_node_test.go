package serve

import (
	"bytes"
	"context"
	"crypto/tls"
	"github.com/beamharmony/harmony/internal/testcert"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// nodeLoopScript serves the tool loops of testdata/sdk/loop.mjs: two
// calls for London and Paris, one for London, and the answer once the
// results are in the prompt.
func nodeLoopScript(r *engineReq) gen {
	if strings.Contains(r.Prompt, "London and Paris") {
		return parallelScript(r)
	}
	return toolLoopScript(r)
}

// TestNodeSDKs runs the official TypeScript clients (@anthropic-ai/sdk and
// openai, pinned in testdata/sdk) through the Messages and Responses tool
// loops: both SDK families must parse our replies and streams. Under CI
// a missing node or npm install is a failure, elsewhere a skip.
func TestNodeSDKs(t *testing.T) {
	fe := newFakeEngine(t, nodeLoopScript)
	gw := newGateway(t, fe)
	runNode(t, nil, 12, "loop.mjs", gw.URL)
}

// runNode runs a script of testdata/sdk with node and checks that it
// reports want checks passed and none failed. Under CI a missing node or
// npm install is a failure, elsewhere a skip.
func runNode(t *testing.T, env []string, want int, args ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts node")
	}
	dir := filepath.Join("testdata", "sdk")
	missing := func(why string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (CI needs node and `npm ci` in %s)", why, dir)
		}
		t.Skip(why + "; run npm ci in serve/testdata/sdk")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not found")
	}
	for _, pkg := range []string{"@anthropic-ai/sdk", "openai"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			missing(pkg + " is not installed")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("node %s:\n%s", strings.Join(args, " "), out.String())
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	m := regexp.MustCompile(`(?m)^(\d+) passed, 0 failed$`).FindStringSubmatch(out.String())
	if m == nil || m[1] != strconv.Itoa(want) {
		t.Fatalf("want %d checks passed", want)
	}
}

// TestNodeSDKsKeyTLS runs testdata/sdk/auth.mjs: the TypeScript clients
// against a gateway with a key, over TLS under a self-signed certificate
// they trust through NODE_EXTRA_CA_CERTS. The key goes through as each SDK
// sends it (the Anthropic SDK's API key and auth token, both bearer tokens
// in its current release, and x-api-key as Claude Code sends it; the OpenAI
// SDK's bearer token), and a wrong key is each SDK's AuthenticationError. A
// preflight for the headers they sent is answered.
func TestNodeSDKsKeyTLS(t *testing.T) {
	const key, origin = "sk-node-test-key", "https://app.example.com"
	base, httpClient, rec, cert := securedGateway(t, key, origin)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, cert.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	runNode(t, []string{"NODE_EXTRA_CA_CERTS=" + caFile}, 12, "auth.mjs", base, key)

	rec.mu.Lock()
	var sawXKey, sawBearer bool
	paths := map[string]string{}
	for _, h := range rec.headers {
		sawXKey = sawXKey || h.Get("X-Api-Key") == key
		sawBearer = sawBearer || h.Get("Authorization") == "Bearer "+key
		if h.Get("Anthropic-Version") != "" {
			paths["/v1/messages"] = sdkHeaders(h)
		} else {
			paths["/v1/chat/completions"] = sdkHeaders(h)
		}
	}
	rec.mu.Unlock()
	if !sawXKey || !sawBearer {
		t.Errorf("the key arrived in x-api-key: %v, as a bearer token: %v; want both", sawXKey, sawBearer)
	}
	for path, headers := range paths {
		req, _ := http.NewRequest(http.MethodOptions, base+path, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", headers)
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 204 {
			t.Errorf("preflight for %s with the node SDK's headers %s: %d", path, headers, resp.StatusCode)
		}
	}
	if len(paths) != 2 {
		t.Errorf("recorded the headers of %d SDKs, want 2", len(paths))
	}
}

// TestNodeSDKRunners runs testdata/sdk/runners.mjs: the official
// clients' own tool loops, Anthropic's tool runner and message threads,
// OpenAI's runTools and a previous_response_id loop, through a gateway
// with the reasoning memory (which holds threads and responses and
// restores the reasoning runTools drops; gap decisions 277 and 280) and
// through one without, which refuses threads, on which Anthropic's SDK
// sends the whole conversation, and refuses previous_response_id and
// runTools' second turn.
func TestNodeSDKRunners(t *testing.T) {
	fe := newFakeEngine(t, toolLoopScript)
	held := newGateway(t, fe, func(c *Config) { c.ReasoningMemoryBytes = 1 << 20 })
	runNode(t, nil, 7, "runners.mjs", held.URL, "memory")
	stateless := newGateway(t, fe)
	runNode(t, nil, 6, "runners.mjs", stateless.URL, "stateless")
}

// toolLoopScript calls get_weather on the first turn and answers once the
// prompt carries the tool's result.
func toolLoopScript(r *engineReq) gen {
	if strings.Contains(r.Prompt, "14 C, cloudy") {
		return answer("The tool says 14 C and cloudy.", "It is 14 C and cloudy in London.")
	}
	return callGen("I should check the weather tool.", scriptCall{"get_weather", [][2]string{{"city", "London"}}})
}

// headerRecorder passes requests to the gateway and keeps their headers.
type headerRecorder struct {
	h       http.Handler
	mu      sync.Mutex
	headers []http.Header
}

func (hr *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hr.mu.Lock()
	hr.headers = append(hr.headers, r.Header.Clone())
	hr.mu.Unlock()
	hr.h.ServeHTTP(w, r)
}

// securedGateway runs a gateway with an API key, CORS for one origin and
// TLS under a self-signed certificate, and returns its base URL, an HTTP
// client that trusts the certificate, and the recorder of request headers.
func securedGateway(t *testing.T, key, origin string) (base string, client *http.Client, rec *headerRecorder, cert *testcert.Cert) {
	t.Helper()
	cert = testcert.New(t, 7)
	fe := newFakeEngine(t, nodeLoopScript)
	s, err := New(Config{Backend: fe.srv.URL, APIKeys: []string{key}, CORSOrigins: []string{origin}})
	if err != nil {
		t.Fatal(err)
	}
	rec = &headerRecorder{h: s}
	base = "https://" + runTLS(t, rec, cert.TLSConfig(t))
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: cert.Pool()}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return base, &http.Client{Transport: tr}, rec, cert
}

// sdkHeaders are the request headers a browser page using the SDK would
// have to clear in a preflight: all but those the browser sets itself and
// the CORS-safelisted ones.
func sdkHeaders(h http.Header) string {
	var names []string
	for name := range h {
		switch n := strings.ToLower(name); {
		case n == "accept", n == "accept-encoding", n == "accept-language", n == "user-agent", n == "content-length", n == "connection", n == "host",
			strings.HasPrefix(n, "sec-"):
		default:
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}
