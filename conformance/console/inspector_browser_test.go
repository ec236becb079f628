package console_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/beamharmony/harmony/conformance/internal/browsertest"
	"github.com/beamharmony/harmony/console"
)

// The inspector's list is keyboard-usable: one tab stop, the arrow keys
// (and Home, End) move between requests, Enter opens one, whose detail
// shows its prompt; at a phone's width (390 px) the list and the detail
// fit the window.
func TestBrowserInspectorKeyboard(t *testing.T) {
	in := console.NewInspector(10, 1<<20, false)
	for i := 1; i <= 3; i++ {
		in.Add(&console.Record{ID: fmt.Sprintf("req-%d", i), Time: time.Unix(0, 0), API: "chat.completions", Status: 200,
			Body:   `{"messages": [{"role": "user", "content": "question ` + fmt.Sprint(i) + `"}]}`,
			Prompt: "<|start|>user<|message|>question " + fmt.Sprint(i) + "<|end|><|start|>assistant", Generation: "<|channel|>final<|message|>answer " + fmt.Sprint(i) + "<|return|>",
			Replica: "http://127.0.0.1:8080/a-replica-with-a-long-name-that-could-overflow-a-phone", Error: strings.Repeat("long-error-text-without-spaces", 4)})
	}
	srv := httptest.NewServer(console.New(console.Config{Inspector: in}))
	defer srv.Close()
	ctx := browsertest.New(t, 1280, 1000)
	openPlayground(t, ctx, srv.URL+"/#inspector")
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#inspector-list tbody button").length === 3`, chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatalf("the list is not shown: %v", err)
	}
	stops := browsertest.Eval[int](t, ctx, `Array.from(document.querySelectorAll("#inspector-list tbody button")).filter((b) => b.tabIndex === 0).length`)
	if stops != 1 {
		t.Errorf("%d of the list's buttons are in the tab order, want 1", stops)
	}
	// The newest first: 3, 2, 1. Down twice, Up once: request 2.
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`#inspector-list tbody button[tabindex="0"]`)),
		chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowUp)); err != nil {
		t.Fatal(err)
	}
	if f := browsertest.Eval[string](t, ctx, `document.activeElement.dataset.seq || ""`); f != "2" {
		t.Fatalf("after Down, Down, Up the focus is on request %q, want 2", f)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.End)); err != nil {
		t.Fatal(err)
	}
	if f := browsertest.Eval[string](t, ctx, `document.activeElement.dataset.seq || ""`); f != "1" {
		t.Fatalf("after End the focus is on request %q, want 1", f)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Home), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.getElementById("inspector-detail").hidden && document.getElementById("detail-title").textContent.includes("req-2")`, chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatalf("Enter did not open request 2: %v", err)
	}
	if p := browsertest.Eval[string](t, ctx, `document.getElementById("detail-prompt").textContent`); p != "<|start|>user<|message|>question 2<|end|><|start|>assistant" {
		t.Errorf("detail prompt %q", p)
	}
	browsertest.Screenshot(t, ctx, filepath.Join(t.ArtifactDir(), "inspector-1280.png"))
	phoneFits(t, ctx, "inspector")
	browsertest.Screenshot(t, ctx, filepath.Join(t.ArtifactDir(), "inspector-390.png"))
}

// phoneFits narrows the window to a phone's 390 px and checks that nothing
// on the page is wider than the window.
func phoneFits(t *testing.T, ctx context.Context, view string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	overflow := browsertest.Eval[int](t, ctx, `document.documentElement.scrollWidth - window.innerWidth`)
	if overflow > 0 {
		wide := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("body *")).filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map((e) => e.tagName + "#" + e.id + "." + e.className)`)
		t.Errorf("%s at 390 px: the page is %d px wider than the window (%v)", view, overflow, wide)
	}
}
