package serve

import (
	"net"

	"golang.org/x/net/netutil"
)

// LimitListener returns a listener that accepts at most n simultaneous
// connections from ln.
//
// Deprecated: use golang.org/x/net/netutil.LimitListener, which this calls
// and Run uses.
func LimitListener(ln net.Listener, n int) net.Listener {
	return netutil.LimitListener(ln, n)
}
