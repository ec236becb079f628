package cli

import (
	"flag"
	"strings"
	"testing"
)

// An environment variable that names the key file or a TLS file, set but
// empty, is refused at start-up instead of serving without keys or TLS.
func TestServeEmptyFileEnv(t *testing.T) {
	for _, name := range []string{"BEAMHARMONY_API_KEY_FILE", "BEAMHARMONY_TLS_CERT", "BEAMHARMONY_TLS_KEY"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, "")
			_, stderr, code := runCLI(t, "", "serve", "--backend", "http://127.0.0.1:9", "--listen", "256.0.0.1:1") // a listen address that fails fast, were the variable read as unset
			if code != 2 || !strings.Contains(stderr, name+" is set but empty") {
				t.Errorf("exit %d, stderr %q", code, stderr)
			}
		})
	}
}

// A variable named with serve's prefix that is no flag's: close to one (a
// misspelling that would leave the setting, keys included, at its default)
// it is a usage error naming the flag's variable; otherwise a warning, and
// the gateway starts.
func TestServeUnknownEnv(t *testing.T) {
	t.Run("misspelt", func(t *testing.T) {
		t.Setenv("BEAMHARMONY_APIKEY", "k")
		_, stderr, code := runCLI(t, "", "serve", "--backend", "http://127.0.0.1:9", "--listen", "256.0.0.1:1")
		if code != 2 || !strings.HasPrefix(stderr, "BEAMHARMONY_APIKEY is not a setting of beamharmony serve; did you mean BEAMHARMONY_API_KEY?\n") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("unrelated", func(t *testing.T) {
		t.Setenv("BEAMHARMONY_LLAMA_URL", "http://x")
		_, stderr, code := runCLI(t, "", "serve", "--backend", "http://127.0.0.1:9", "--listen", "256.0.0.1:1") // fails later, at the listen address
		if code != 1 || !strings.HasPrefix(stderr, "beamharmony serve: warning: BEAMHARMONY_LLAMA_URL is not a setting of beamharmony serve; it is ignored\n") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	for name, want := range map[string]string{
		"BEAMHARMONY_TLS_CRT":        "BEAMHARMONY_TLS_CERT",
		"BEAMHARMONY_API_KEYFILE":    "BEAMHARMONY_API_KEY_FILE",
		"BEAMHARMONY_BACKENDS":       "BEAMHARMONY_BACKEND",
		"BEAMHARMONY_MAX_TOKEN":      "BEAMHARMONY_MAX_TOKENS",
		"BEAMHARMONY_SOMETHING_ELSE": "",
		"BEAMHARMONY_":               "",
	} {
		if got := closestEnv(name, serveEnvNames()); got != want {
			t.Errorf("closestEnv(%s) = %q, want %q", name, got, want)
		}
	}
}

// serveEnvNames are the variables of serve's flags.
func serveEnvNames() []string {
	fs := newFlags("serve", "", nil, nil)
	newServeFlags(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, envName(f.Name)) })
	return names
}
