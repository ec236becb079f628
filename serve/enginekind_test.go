package serve

import (
	"net/http"
	"testing"
)

// The engine client drops idle connections before the engines' servers
// do: against llama-server, a request sent on a connection the server was
// closing failed with "write: broken pipe" (seen in TestConstrainedLlamaCpp).
func TestEngineClientIdleTimeout(t *testing.T) {
	tr := newClient().Transport.(*http.Transport)
	if tr.IdleConnTimeout <= 0 || tr.IdleConnTimeout >= engineKeepAlive {
		t.Errorf("idle connections kept %v, not less than the engines' %v", tr.IdleConnTimeout, engineKeepAlive)
	}
}
