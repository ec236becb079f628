package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/netutil"
)

// Run belongs to the server, not to the command line that calls it: a
// request still open at the shutdown deadline is cancelled with the cause
// the Server's handlers read (errShutdown) to answer it with a 503
// server_shutdown, or end its stream with that error event, and to log
// it; Run then waits for them. The console serves its pages with it too.

// RunOptions are the connection limits and timeouts of Run. A field left
// zero takes its default, as in Config; a negative duration turns off what
// it allows (ShutdownTimeout: no time to finish).
type RunOptions struct {
	// ShutdownTimeout is how long open requests (streams included) may
	// run on once ctx ends (DefaultShutdownTimeout); negative cancels
	// them at once.
	ShutdownTimeout time.Duration
	// ReadHeaderTimeout bounds reading a request's headers
	// (DefaultReadHeaderTimeout). The body has its own bound,
	// Config.BodyTimeout, which the Server applies.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes a kept-alive connection without a new request
	// (DefaultIdleTimeout).
	IdleTimeout time.Duration
	// MaxConns caps the connections open at once (DefaultMaxConns).
	MaxConns int
	// TLSConfig, when set, makes Run serve HTTPS (HTTP/2 and HTTP/1.1)
	// with it (the command line's reloads its certificate on SIGHUP and
	// when the files change).
	TLSConfig *tls.Config
	// Logger receives the server's own records; nil discards them.
	Logger *slog.Logger
}

// Run serves h on ln until ctx ends, then shuts down gracefully: it stops
// accepting connections and waits up to opts.ShutdownTimeout for open
// requests (streams included) to finish. Requests still open then are
// cancelled, which cancels their engine requests: a Server answers them
// with a 503 (code server_shutdown), or ends their stream with that error
// event, and logs them. Run returns once every request has been logged, or
// shutdownGrace after the deadline at most. It returns nil after a clean
// shutdown, and an error wrapping context.DeadlineExceeded when it had to
// cancel requests.
func Run(ctx context.Context, ln net.Listener, h http.Handler, opts RunOptions) error {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	maxConns := opts.MaxConns
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	base, cancelBase := context.WithCancelCause(context.Background())
	defer cancelBase(nil)
	var open handlers
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			open.add(1)
			defer open.add(-1)
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: orDefault(opts.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		IdleTimeout:       orDefault(opts.IdleTimeout, DefaultIdleTimeout),
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	if opts.TLSConfig != nil {
		srv.TLSConfig = opts.TLSConfig.Clone()
		go func() { errc <- srv.ServeTLS(netutil.LimitListener(ln, maxConns), "", "") }()
	} else {
		go func() { errc <- srv.Serve(netutil.LimitListener(ln, maxConns)) }()
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	grace := orDefault(opts.ShutdownTimeout, DefaultShutdownTimeout)
	if opts.ShutdownTimeout < 0 {
		grace = 0
	}
	log.Info("shutting down", slog.Float64("deadline", grace.Seconds()))
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		log.Warn("shutdown deadline passed; cancelling open requests", slog.Int64("open", open.n.Load()))
		// The handlers see errShutdown as their context's cause: they
		// tell their clients and log. Give them shutdownGrace to finish
		// (their connections then close on their own), then close what
		// is left.
		cancelBase(errShutdown)
		gctx, gcancel := context.WithTimeout(context.Background(), shutdownGrace)
		_ = srv.Shutdown(gctx)
		gcancel()
		_ = srv.Close()
		open.wait(shutdownGrace)
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

// shutdownGrace is how long Run waits, after the shutdown deadline, for
// the cancelled requests to answer and log.
const shutdownGrace = 2 * time.Second

// handlers counts the requests in progress.
type handlers struct {
	mu   sync.Mutex
	n    atomic.Int64
	idle chan struct{} // closed when n falls to 0, while someone waits
}

func (o *handlers) add(d int64) {
	if o.n.Add(d) == 0 {
		o.mu.Lock()
		if o.idle != nil {
			close(o.idle)
			o.idle = nil
		}
		o.mu.Unlock()
	}
}

// wait returns when no request is in progress, or after d.
func (o *handlers) wait(d time.Duration) {
	o.mu.Lock()
	if o.n.Load() == 0 {
		o.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	o.idle = ch
	o.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
