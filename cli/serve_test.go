package cli

import (
	"strings"
	"testing"
)

func TestServeHelpNamesEnvironment(t *testing.T) {
	out, _, code := runCLI(t, "", "serve", "--help")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	for _, name := range []string{"BEAMHARMONY_BACKEND", "BEAMHARMONY_LISTEN", "BEAMHARMONY_MODEL", "BEAMHARMONY_MAX_TOKENS",
		"BEAMHARMONY_TIMEOUT", "BEAMHARMONY_ALLOW_MISSING_THINKING", "BEAMHARMONY_ALLOW_MARKERS", "BEAMHARMONY_MAX_BODY_BYTES",
		"BEAMHARMONY_BODY_TIMEOUT", "BEAMHARMONY_READ_HEADER_TIMEOUT", "BEAMHARMONY_IDLE_TIMEOUT", "BEAMHARMONY_MAX_CONNS", "BEAMHARMONY_PING_INTERVAL"} {
		if !strings.Contains(out, "["+name+"]") {
			t.Errorf("--help does not name %s", name)
		}
	}
}

func TestServeFlagsAndEnvironment(t *testing.T) {
	t.Run("environment sets a flag", func(t *testing.T) {
		t.Setenv("BEAMHARMONY_BACKEND", "ftp://from-env")
		_, errOut, code := runCLI(t, "", "serve")
		if code != 1 || !strings.Contains(errOut, "from-env") {
			t.Errorf("code %d, stderr %q", code, errOut)
		}
	})
	t.Run("command line wins", func(t *testing.T) {
		t.Setenv("BEAMHARMONY_BACKEND", "ftp://from-env")
		_, errOut, code := runCLI(t, "", "serve", "--backend", "ftp://from-flag")
		if code != 1 || !strings.Contains(errOut, "from-flag") {
			t.Errorf("code %d, stderr %q", code, errOut)
		}
	})
	t.Run("bad environment value", func(t *testing.T) {
		t.Setenv("BEAMHARMONY_MAX_TOKENS", "many")
		_, errOut, code := runCLI(t, "", "serve", "--backend", "http://localhost:8000")
		if code != 2 || !strings.Contains(errOut, "BEAMHARMONY_MAX_TOKENS") {
			t.Errorf("code %d, stderr %q", code, errOut)
		}
	})
	t.Run("backend required", func(t *testing.T) {
		t.Setenv("BEAMHARMONY_BACKEND", "")
		_, errOut, code := runCLI(t, "", "serve")
		if code != 1 || !strings.Contains(errOut, "backend: required") {
			t.Errorf("code %d, stderr %q", code, errOut)
		}
	})
	t.Run("bad reasoning field", func(t *testing.T) {
		// A flag error since the hardening issue: exit code 2, as for any
		// flag value out of range.
		_, errOut, code := runCLI(t, "", "serve", "--backend", "http://localhost:8000", "--reasoning-field", "thoughts")
		if code != 2 || !strings.Contains(errOut, "reasoning field") {
			t.Errorf("code %d, stderr %q", code, errOut)
		}
	})
}
