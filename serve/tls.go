package serve

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"os"
	"sync"
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

	mu      sync.Mutex
	cert    *tls.Certificate
	stamp   fileStamp
	checked time.Time
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
func (c *CertReloader) Reload() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loadLocked()
}

func (c *CertReloader) loadLocked() error {
	st, err := c.statLocked()
	if err != nil {
		return err
	}
	certPEM, err := readSmallFile(c.certFile)
	if err != nil {
		return err
	}
	keyPEM, err := readSmallFile(c.keyFile)
	if err != nil {
		return err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("tls certificate %s and key %s: %w", c.certFile, c.keyFile, err)
	}
	c.cert, c.stamp, c.checked = &cert, st, time.Now()
	return nil
}

func (c *CertReloader) statLocked() (fileStamp, error) {
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

// readSmallFile reads a regular file of at most maxPEMFile bytes.
func readSmallFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	} else if st.Size() > maxPEMFile {
		return nil, fmt.Errorf("%s: larger than 1 MiB", path)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(f); err != nil {
		return nil, err
	}
	if b.Len() > maxPEMFile {
		return nil, fmt.Errorf("%s: larger than 1 MiB", path)
	}
	return b.Bytes(), nil
}

// GetCertificate is tls.Config's GetCertificate: the current certificate,
// reloaded first when the files changed.
func (c *CertReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := time.Now(); now.Sub(c.checked) >= c.checkEvery {
		c.checked = now
		if st, err := c.statLocked(); err == nil && st != c.stamp {
			if err := c.loadLocked(); err != nil && c.onError != nil {
				c.onError(err)
			}
		}
	}
	return c.cert, nil
}

// TLSConfig returns a server TLS configuration (TLS 1.2 at least) that
// takes its certificate from c.
func (c *CertReloader) TLSConfig() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: c.GetCertificate}
}
