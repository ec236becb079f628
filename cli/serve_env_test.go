package cli

import (
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
