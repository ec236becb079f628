// Package browsertest starts headless Chromium for the console's browser
// tests (package console and package serve), through chromedp.
//
// Without a Chromium binary a test is skipped, saying why; with CI set in
// the environment it fails instead, so that a CI run that lost its browser
// can't count the tests as passed. .ci/run installs Debian's chromium.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// binaries are the names a Chromium binary goes by, tried in order after
// $CHROMIUM.
var binaries = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// Path returns the Chromium binary to run, or "" when none is found.
func Path() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, b := range binaries {
		if p, err := exec.LookPath(b); err == nil {
			return p
		}
	}
	return ""
}

// Guard bounds a whole browser test, so that a page that never answers
// ends the test with an error instead of hanging it. It is a guard against
// a hang, not a measure of speed: no test asserts how long anything takes.
const Guard = 3 * time.Minute

// New starts headless Chromium at a width by height window and returns a
// context for chromedp's actions in its first tab. The browser stops when
// the test ends.
func New(t testing.TB, width, height int) context.Context {
	t.Helper()
	path := Path()
	if path == "" {
		msg := "no Chromium binary (chromium, chromium-browser, google-chrome, or $CHROMIUM): the browser tests need it; apt-get install chromium"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (CI is set: a missing browser fails the run)")
		}
		t.Skip(msg)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(width, height),
		// As root (containers, CI) Chromium refuses to start with its
		// sandbox; the pages it opens are the tests' own.
		chromedp.NoSandbox,
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	ctx, cancelGuard := context.WithTimeout(context.Background(), Guard)
	t.Cleanup(cancelGuard)
	// On a loaded machine Chromium now and then crashes while it starts
	// (seen as "chrome failed to start" with crashpad's dump), before any
	// page is opened: a start is tried again, at most startAttempts
	// times, each in a fresh profile; what a test then checks is never
	// retried.
	var err error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, append(opts,
			chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")))...)
		bctx, cancelBrowser := chromedp.NewContext(allocCtx)
		if err = chromedp.Do(bctx); err == nil {
			t.Cleanup(func() {
				cancelBrowser()
				cancelAlloc()
			})
			return bctx
		}
		cancelBrowser()
		cancelAlloc()
		t.Logf("starting %s (attempt %d of %d): %v", path, attempt, startAttempts, err)
	}
	t.Fatalf("starting %s: %v", path, err)
	return nil
}

// startAttempts is how many times New starts Chromium before it fails.
const startAttempts = 3

// Eval evaluates a JavaScript expression in the page, awaiting it when it
// is a promise, and decodes its value (JSON) into a T. A failure ends the
// test.
func Eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %.200s: %v", expr, err)
	}
	return v
}

// Screenshot writes a full-page PNG of the page to path.
func Screenshot(t testing.TB, ctx context.Context, path string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}
