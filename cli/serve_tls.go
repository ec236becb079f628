package cli

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// certReloader serves a TLS certificate and key from two PEM files and
// picks up new ones without a restart: on Reload (serve calls it on
// SIGHUP), and on a handshake at least a second after the files
// were last looked at, when their size or modification time changed.
// A pair that fails to load (a certificate renewed before its key, say)
// leaves the current one in use: Reload reports the error, a handshake
// logs it and retries a second later.
type certReloader struct {
	certFile, keyFile string
	// checkEvery is how often a handshake looks at the files; 0 looks on
	// every handshake.
	checkEvery time.Duration
	// onError, when set, receives the error of a reload a handshake
	// triggered.
	onError func(error)

	mu        sync.Mutex
	reloading bool // a handshake is reloading the files
	cert      *tls.Certificate
	stamp     fileStamp
	checked   time.Time
}

// fileStamp identifies the versions of the two files.
type fileStamp struct {
	certSize, keySize int64
	certMod, keyMod   time.Time
}

// newCertReloader loads the certificate and key and returns the reloader;
// onError (nil: ignored) receives the error of a reload a handshake
// triggered, for the log.
func newCertReloader(certFile, keyFile string, onError func(error)) (*certReloader, error) {
	c := &certReloader{certFile: certFile, keyFile: keyFile, checkEvery: time.Second, onError: onError}
	if err := c.Reload(); err != nil {
		return nil, err
	}
	return c, nil
}

// Reload reads the files again. On an error the certificate in use stays.
// The files are read without holding the lock handshakes take, so a file
// that is slow to read never stalls a handshake.
func (c *certReloader) Reload() error {
	cert, st, err := c.load()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checked = time.Now()
	if err != nil {
		return err
	}
	c.cert, c.stamp = cert, st
	return nil
}

// load reads and parses the two files and the stamp they had.
func (c *certReloader) load() (*tls.Certificate, fileStamp, error) {
	st, err := c.stat()
	if err != nil {
		return nil, st, err
	}
	certPEM, err := readSmallFile(c.certFile)
	if err != nil {
		return nil, st, err
	}
	keyPEM, err := readSmallFile(c.keyFile)
	if err != nil {
		return nil, st, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, st, fmt.Errorf("tls certificate %s and key %s: %w", c.certFile, c.keyFile, err)
	}
	return &cert, st, nil
}

func (c *certReloader) stat() (fileStamp, error) {
	var st fileStamp
	ci, err := os.Stat(c.certFile)
	if err != nil {
		return st, err
	}
	ki, err := os.Stat(c.keyFile)
	if err != nil {
		return st, err
	}
	return fileStamp{certSize: ci.Size(), keySize: ki.Size(), certMod: ci.ModTime(), keyMod: ki.ModTime()}, nil
}

// maxSmallFile bounds a certificate, key or API key file.
const maxSmallFile = 1 << 20

// readSmallFile reads a regular file of at most maxSmallFile bytes. It looks at the
// file's type before opening it, and opens it without blocking, so that a
// FIFO or a device put in its place is refused at once instead of waiting
// for a writer for good; the type is checked again on what was opened.
func readSmallFile(path string) ([]byte, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	} else if st.Size() > maxSmallFile {
		return nil, fmt.Errorf("%s: larger than 1 MiB", path)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, maxSmallFile+1)); err != nil {
		return nil, err
	}
	if b.Len() > maxSmallFile {
		return nil, fmt.Errorf("%s: larger than 1 MiB", path)
	}
	return b.Bytes(), nil
}

// GetCertificate is tls.Config's GetCertificate: the current certificate,
// reloaded first when the files changed. Only one handshake at a time
// reloads, outside the lock: the others go on with the certificate in use.
func (c *certReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	cert := c.cert
	due := !c.reloading && time.Since(c.checked) >= c.checkEvery
	if due {
		c.checked, c.reloading = time.Now(), true
	}
	stamp := c.stamp
	c.mu.Unlock()
	if !due {
		return cert, nil
	}
	defer func() {
		c.mu.Lock()
		c.reloading = false
		c.mu.Unlock()
	}()
	if st, err := c.stat(); err != nil || st == stamp {
		return cert, nil
	}
	next, st, err := c.load()
	if err != nil {
		if c.onError != nil {
			c.onError(err)
		}
		return cert, nil
	}
	c.mu.Lock()
	c.cert, c.stamp = next, st
	c.mu.Unlock()
	return next, nil
}

// TLSConfig returns a server TLS configuration (TLS 1.2 at least) that
// takes its certificate from c.
func (c *certReloader) TLSConfig() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: c.GetCertificate}
}
