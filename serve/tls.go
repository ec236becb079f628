package serve

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

// CertReloader serves a TLS certificate and key from two PEM files and
// picks up new ones without a restart: on Reload (the command line calls
// it on SIGHUP), and on a handshake at least a second after the files
// were last looked at, when their size or modification time changed.
// A pair that fails to load (a certificate renewed before its key, say)
// leaves the current one in use: Reload reports the error, a handshake
// logs it and retries a second later.
type CertReloader struct {
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

// NewCertReloader loads the certificate and key and returns the reloader;
// onError (nil: ignored) receives the error of a reload a handshake
// triggered, for the log.
func NewCertReloader(certFile, keyFile string, onError func(error)) (*CertReloader, error) {
	c := &CertReloader{certFile: certFile, keyFile: keyFile, checkEvery: time.Second, onError: onError}
	if err := c.Reload(); err != nil {
		return nil, err
	}
	return c, nil
}

// Reload reads the files again. On an error the certificate in use stays.
// The files are read without holding the lock handshakes take, so a file
// that is slow to read never stalls a handshake.
func (c *CertReloader) Reload() error {
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
func (c *CertReloader) load() (*tls.Certificate, fileStamp, error) {
	st, err := c.stat()
	if err != nil {
		return nil, st, err
	}
	certPEM, err := readSmallFile(c.certFile, maxPEMFile)
	if err != nil {
		return nil, st, err
	}
	keyPEM, err := readSmallFile(c.keyFile, maxPEMFile)
	if err != nil {
		return nil, st, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, st, fmt.Errorf("tls certificate %s and key %s: %w", c.certFile, c.keyFile, err)
	}
	return &cert, st, nil
}

func (c *CertReloader) stat() (fileStamp, error) {
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

// maxPEMFile bounds a certificate or key file.
const maxPEMFile = 1 << 20

// readSmallFile reads a regular file of at most max bytes. It looks at the
// file's type before opening it, and opens it without blocking, so that a
// FIFO or a device put in its place is refused at once instead of waiting
// for a writer for good; the type is checked again on what was opened.
func readSmallFile(path string, max int64) ([]byte, error) {
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
	} else if st.Size() > max {
		return nil, fmt.Errorf("%s: larger than %s", path, byteSize(max))
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, err
	}
	if int64(b.Len()) > max {
		return nil, fmt.Errorf("%s: larger than %s", path, byteSize(max))
	}
	return b.Bytes(), nil
}

// GetCertificate is tls.Config's GetCertificate: the current certificate,
// reloaded first when the files changed. Only one handshake at a time
// reloads, outside the lock: the others go on with the certificate in use.
func (c *CertReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
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
func (c *CertReloader) TLSConfig() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: c.GetCertificate}
}
