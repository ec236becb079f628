package cloud

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beamharmony/harmony/dataset"
)

// TestObjectEndlessBodyStops: a run reading an object whose endpoint
// sends a body that never ends (as data: one endless line; or as an error
// the SDK reads to the end) stops when its context is cancelled, with
// context.Canceled (issue 34 item 10: SIGTERM did not stop the run while
// the body drained). The wait is bounded generously; the test asserts
// that the run ends, not how fast.
func TestObjectEndlessBodyStops(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusServiceUnavailable} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			var sent atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodHead {
					w.Header().Set("Content-Length", "1099511627776")
					w.Header().Set("Last-Modified", "Mon, 30 Nov 2026 00:00:00 GMT")
					w.Header().Set("ETag", `"endless"`)
					return
				}
				endlessBody(w, status, &sent)
			}))
			defer srv.Close()
			fakeAWSEnv(t)
			in := "s3://data/in.jsonl?endpoint=" + url.QueryEscape(srv.URL) + "&use_path_style=true&region=us-east-1&response_checksum_validation=when_required"

			err := stopWhenSent(t, dataset.Config{Inputs: []string{in}, Output: filepath.Join(t.TempDir(), "out.jsonl"), MaxRowBytes: 1024, Workers: 1}, &sent)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err %v, want context.Canceled", err)
			}
		})
	}
}

// TestObjectCommitStops: a run whose output's upload gets an answer that
// never ends (an error body the SDK reads to the end) stops when its
// context is cancelled (issue 34 item 10): the upload lives apart from the
// run's context so that a commit is not cut short by accident, but a
// stopped run cancels it.
func TestObjectCommitStops(t *testing.T) {
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut && r.Method != http.MethodPost {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>none</Message></Error>`))
			return
		}
		endlessBody(w, http.StatusInternalServerError, &sent)
	}))
	defer srv.Close()
	fakeAWSEnv(t)
	out := "s3://data/out.jsonl?endpoint=" + url.QueryEscape(srv.URL) + "&use_path_style=true&region=us-east-1&response_checksum_validation=when_required"
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "reasoning_content": "r", "content": "Hello"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	if err := stopWhenSent(t, dataset.Config{Inputs: []string{in}, Output: out, Workers: 1}, &sent); err == nil {
		t.Errorf("a stopped run succeeded")
	}
}

// endlessBody answers with status and a body that never ends, counting
// what it sent, until the client goes.
func endlessBody(w http.ResponseWriter, status int, sent *atomic.Int64) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	chunk := []byte(strings.Repeat("x", 32<<10))
	for {
		if _, err := w.Write(chunk); err != nil {
			return
		}
		sent.Add(int64(len(chunk)))
	}
}

// stopWhenSent runs c until the endpoint has sent 4 MiB, then cancels the
// run and returns its error; the run must end before and after the
// cancel as a stopped run does. The waits are bounded generously: what is
// asserted is that the run ends, not how fast.
func stopWhenSent(t *testing.T, c dataset.Config, sent *atomic.Int64) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := run(ctx, c)
		done <- err
	}()
	for start := time.Now(); sent.Load() < 4<<20; time.Sleep(5 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("the run ended before it was stopped: %v", err)
		default:
		}
		if time.Since(start) > time.Minute {
			t.Fatal("the endpoint was never read")
		}
	}
	cancel()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("the run did not stop")
		return nil
	}
}
