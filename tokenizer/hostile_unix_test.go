//go:build unix

package tokenizer_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/beamharmony/harmony/tokenizer"
)

// loadWithin runs Load and fails the test if it has not returned in a
// while (a FIFO blocked it forever before); it returns Load's error.
func loadWithin(t *testing.T, path string, unblock func()) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := tokenizer.Load(path)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		unblock()
		t.Fatalf("Load(%s) still blocked after 20 s", path)
		return nil
	}
}

// openWriter releases a reader blocked on the FIFO at path.
func openWriter(path string) func() {
	return func() {
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
}

// TestLoadRefusesSpecialFiles: tokenizer.json and tokenizer_config.json
// must be regular files. A FIFO blocked Load forever, and a link to
// /dev/zero read until memory ran out (issue 17).
func TestLoadRefusesSpecialFiles(t *testing.T) {
	good := tiny(t, nil)
	t.Run("FIFO as tokenizer.json", func(t *testing.T) {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "tokenizer.json")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
		err := loadWithin(t, dir, openWriter(fifo))
		if err == nil || !strings.Contains(err.Error(), "tokenizer.json: not a regular file (a named pipe)") {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("FIFO as tokenizer_config.json", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), good, 0o600); err != nil {
			t.Fatal(err)
		}
		fifo := filepath.Join(dir, "tokenizer_config.json")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
		err := loadWithin(t, dir, openWriter(fifo))
		if err == nil || !strings.Contains(err.Error(), "tokenizer_config.json: not a regular file (a named pipe)") {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("link to /dev/zero", func(t *testing.T) {
		if _, err := os.Stat("/dev/zero"); err != nil {
			t.Skip("no /dev/zero")
		}
		dir := t.TempDir()
		if err := os.Symlink("/dev/zero", filepath.Join(dir, "tokenizer.json")); err != nil {
			t.Fatal(err)
		}
		err := loadWithin(t, dir, func() {})
		if err == nil || !strings.Contains(err.Error(), "tokenizer.json: not a regular file (a device)") {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("larger than the cap", func(t *testing.T) {
		dir := t.TempDir()
		f, err := os.Create(filepath.Join(dir, "tokenizer.json"))
		if err != nil {
			t.Fatal(err)
		}
		// A sparse file: its size, not its blocks, is what counts.
		if err := f.Truncate(tokenizer.MaxFileBytes + 1); err != nil {
			t.Skip("truncate:", err)
		}
		f.Close()
		err = loadWithin(t, dir, func() {})
		if err == nil || !strings.Contains(err.Error(), "bytes, larger than") {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("a link to a regular file is followed", func(t *testing.T) {
		dir := t.TempDir()
		real := filepath.Join(dir, "real.json")
		if err := os.WriteFile(real, good, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, filepath.Join(dir, "tokenizer.json")); err != nil {
			t.Fatal(err)
		}
		if err := loadWithin(t, dir, func() {}); err != nil {
			t.Error(err)
		}
	})
}

// Fingerprint reads the files as Load does: a FIFO is refused, not waited
// on.
func TestFingerprintRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "tokenizer.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := tokenizer.Fingerprint(dir)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
			t.Errorf("error = %v", err)
		}
	case <-time.After(20 * time.Second):
		openWriter(fifo)()
		t.Fatal("Fingerprint still blocked on a FIFO after 20 s")
	}
}
