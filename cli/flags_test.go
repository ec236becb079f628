package cli

import (
	"strings"
	"testing"
)

// A flag error (an unknown flag, a malformed or an out-of-range value) is
// reported on stderr, the error on its first line followed by the
// command's synopsis, with nothing on stdout and exit code 2, whether the
// value comes from the command line or the environment. Help goes to
// stdout with exit code 0.
func TestFlagErrorsGoToStderr(t *testing.T) {
	const backend = "http://localhost:8000"
	tests := []struct {
		name string
		env  [2]string
		args []string
		want string // in the first line of stderr
	}{
		{"unknown flag", [2]string{}, []string{"render", "--bogus"}, "flag provided but not defined: -bogus"},
		{"unknown serve flag", [2]string{}, []string{"serve", "--backend", backend, "--bogus"}, "-bogus"},
		{"negative timeout", [2]string{}, []string{"serve", "--backend", backend, "--timeout", "-1s"}, "-timeout"},
		{"zero timeout", [2]string{}, []string{"serve", "--backend", backend, "--timeout", "0"}, "-timeout"},
		{"negative shutdown timeout", [2]string{}, []string{"serve", "--backend", backend, "--shutdown-timeout", "-1s"}, "-shutdown-timeout"},
		{"negative body limit", [2]string{}, []string{"serve", "--backend", backend, "--max-body-bytes", "-5"}, "-max-body-bytes"},
		{"zero body limit", [2]string{}, []string{"serve", "--backend", backend, "--max-body-bytes", "0"}, "-max-body-bytes"},
		{"negative max tokens", [2]string{}, []string{"serve", "--backend", backend, "--max-tokens", "-1"}, "-max-tokens"},
		{"zero max tokens", [2]string{}, []string{"serve", "--backend", backend, "--max-tokens", "0"}, "-max-tokens"},
		{"negative body timeout", [2]string{}, []string{"serve", "--backend", backend, "--body-timeout", "-1s"}, "-body-timeout"},
		{"zero header timeout", [2]string{}, []string{"serve", "--backend", backend, "--read-header-timeout", "0s"}, "-read-header-timeout"},
		{"negative idle timeout", [2]string{}, []string{"serve", "--backend", backend, "--idle-timeout", "-5m"}, "-idle-timeout"},
		{"negative ping interval", [2]string{}, []string{"serve", "--backend", backend, "--ping-interval", "-1s"}, "-ping-interval"},
		{"zero connection limit", [2]string{}, []string{"serve", "--backend", backend, "--max-conns", "0"}, "-max-conns"},
		{"connection limit too large", [2]string{}, []string{"serve", "--backend", backend, "--max-conns", "99999999999999999999"}, "-max-conns"},
		{"malformed duration", [2]string{}, []string{"serve", "--backend", backend, "--timeout", "soon"}, "-timeout"},
		{"bad reasoning field", [2]string{}, []string{"serve", "--backend", backend, "--reasoning-field", "thoughts"}, "-reasoning-field"},
		{"bad log format", [2]string{}, []string{"serve", "--backend", backend, "--log-format", "xml"}, "-log-format"},
		{"bad log level", [2]string{}, []string{"serve", "--backend", backend, "--log-level", "loud"}, "-log-level"},
		{"negative timeout from the environment", [2]string{"BEAMHARMONY_TIMEOUT", "-1s"}, []string{"serve", "--backend", backend}, "BEAMHARMONY_TIMEOUT"},
		{"negative body limit from the environment", [2]string{"BEAMHARMONY_MAX_BODY_BYTES", "-5"}, []string{"serve", "--backend", backend}, "BEAMHARMONY_MAX_BODY_BYTES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env[0] != "" {
				t.Setenv(tt.env[0], tt.env[1])
			}
			stdout, stderr, code := runCLI(t, "", tt.args...)
			if code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			first, rest, _ := strings.Cut(stderr, "\n")
			if !strings.Contains(first, tt.want) {
				t.Errorf("first line of stderr %q does not name %q", first, tt.want)
			}
			if !strings.Contains(rest, "Usage: beamharmony "+tt.args[0]) || !strings.Contains(rest, "--help") {
				t.Errorf("stderr lacks the synopsis: %q", stderr)
			}
		})
	}
	for _, cmd := range []string{"render", "lint", "parse", "serve", "template", "verify"} {
		stdout, stderr, code := runCLI(t, "", cmd, "--help")
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "Usage: beamharmony "+cmd) || !strings.Contains(stdout, "Flags:") {
			t.Errorf("%s --help: code %d, stderr %q, stdout starts %q", cmd, code, stderr, stdout[:min(len(stdout), 40)])
		}
	}
}
