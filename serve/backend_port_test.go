package serve

import (
	"strings"
	"testing"
)

// A backend's port must be one a connection can use: refused at start-up,
// not at the first request.
func TestBackendPort(t *testing.T) {
	for backend, wantErr := range map[string]string{
		"http://127.0.0.1:99999": "port 99999 is not one from 1 to 65535",
		"http://127.0.0.1:0":     "port 0 is not one from 1 to 65535",
		"http://127.0.0.1:8000":  "",
		"https://engine.local":   "",
	} {
		_, err := backendBase(backend)
		if (err == nil) != (wantErr == "") || err != nil && !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: %v, want %q", backend, err, wantErr)
		}
	}
}
