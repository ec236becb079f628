package gateway_test

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/beamharmony/harmony/conformance/internal/browsertest"
	"github.com/beamharmony/harmony/internal/enginetest"
	"github.com/beamharmony/harmony/serve"
)

// A request made through the gateway appears in the console's inspector,
// in a real browser: the page asks for the key, lists the request, and its
// detail view shows the prompt the engine got, its trained span marked as
// the playground marks it, and the raw generation.
func TestBrowserInspector(t *testing.T) {
	e := enginetest.New(t, enginetest.Fixed(enginetest.Answer("Add them.", "6")))
	s, err := serve.New(serve.Config{Backend: e.Server.URL, APIKeys: []string{"sk-test"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Inspect(10, 0, false)
	gw := httptest.NewServer(s)
	defer gw.Close()
	resp := post(t, gw.URL+"/v1/chat/completions", "sk-test", `{"model": "beam", "messages": [
  {"role": "user", "content": "What is 2 + 2?"},
  {"role": "assistant", "reasoning_content": "Simple arithmetic.", "content": "4"},
  {"role": "user", "content": "And 3 + 3?"}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("chat: %d", resp.StatusCode)
	}
	ctx := browsertest.New(t, 1280, 1000)
	err = chromedp.Do(ctx,
		chromedp.Navigate(gw.URL+"/console/#inspector"),
		chromedp.WaitVisible(chromedp.CSS("#key-panel")),
		chromedp.SendKeys(chromedp.CSS("#api-key"), "sk-test"),
		chromedp.Click(chromedp.CSS(`#key-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.Click(chromedp.CSS("#tab-inspector")),
		chromedp.WaitVisible(chromedp.CSS(`#inspector-list button[data-seq="1"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	// Clicked from the page, not by the node found above: the list is
	// loaded once for #inspector and again for the tab's click, and the
	// second load replaces the rows, which made a click by node id fail
	// now and then ("Could not find node with given id").
	if !browsertest.Eval[bool](t, ctx, `(() => { document.querySelector('#inspector-list button[data-seq="1"]').click(); return true })()`) {
		t.Fatal("no click")
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#inspector-detail"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("detail-prompt").textContent.length > 0`, chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatal(err)
	}
	shown := browsertest.Eval[string](t, ctx, `document.getElementById("detail-prompt").textContent`)
	if shown != e.LastRequest(t).Prompt {
		t.Errorf("the detail view shows the prompt %q\nthe engine got %q", shown, e.LastRequest(t).Prompt)
	}
	marked := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#detail-prompt mark.trained")).map((m) => m.textContent)`)
	if len(marked) != 1 || !strings.HasPrefix(marked[0], "<|channel|>analysis<|message|>Simple arithmetic.") {
		t.Errorf("trained spans shown: %q", marked)
	}
	if g := browsertest.Eval[string](t, ctx, `document.getElementById("detail-generation").textContent`); g != enginetest.AnswerText("Add them.", "6") {
		t.Errorf("raw generation shown: %q", g)
	}
	browsertest.Screenshot(t, ctx, filepath.Join(t.ArtifactDir(), "inspector.png"))
}
