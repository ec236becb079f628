//go:build unix

package cli

import (
	"github.com/beamharmony/harmony/internal/testcert"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// mkfifo replaces path with a FIFO.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
}

// within runs f and fails the test if it has not returned after a minute:
// the calls below must not wait on a FIFO for a writer that never comes.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s still blocked after a minute", what)
	}
}

// TestFIFOFiles: a certificate, key or key file that is a FIFO is refused
// at once, at start-up and at a reload, and never blocks a handshake; the
// certificate in use stays.
func TestFIFOFiles(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := testcert.New(t, 1).Write(t, dir)
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	within(t, "a key file that is a FIFO", func() {
		if _, err := readKeyFile(fifo); err == nil {
			t.Error("a FIFO was read as a key file")
		}
	})
	within(t, "a certificate that is a FIFO at start-up", func() {
		if _, err := newCertReloader(fifo, keyFile, nil); err == nil {
			t.Error("a FIFO was loaded as a certificate")
		}
	})
	r, err := newCertReloader(certFile, keyFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.checkEvery = 0
	before, _ := r.GetCertificate(nil)
	for _, f := range []string{keyFile, certFile} {
		mkfifo(t, f)
		within(t, "a reload of "+filepath.Base(f)+" turned FIFO", func() {
			if err := r.Reload(); err == nil {
				t.Error("a reload took a FIFO")
			}
		})
		within(t, "a handshake after "+filepath.Base(f)+" turned FIFO", func() {
			if got, _ := r.GetCertificate(nil); got != before {
				t.Error("the certificate in use changed")
			}
		})
	}
}
