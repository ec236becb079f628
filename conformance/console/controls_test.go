package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/conformance/internal/browsertest"
	"github.com/beamharmony/harmony/console"
)

// The playground's controls for reasoning_effort, the built-in tools and
// add_generation_prompt edit the request's JSON in place (the rest of the
// text kept byte for byte, so that undoing them gives the text back) and
// the prompt is the render of the edited text; a request that does not
// render has its error selected in the request by a keyboard-usable
// button: the character at a syntax error's byte, or the value at a
// render error's path.
func TestBrowserPlaygroundControls(t *testing.T) {
	srv := httptest.NewServer(console.New(console.Config{}))
	defer srv.Close()
	ctx := browsertest.New(t, 1280, 1000)
	openPlayground(t, ctx, srv.URL+"/")
	original := browsertest.Eval[string](t, ctx, `document.getElementById("request").value`)
	if strings.Contains(original, "reasoning_effort") || strings.Contains(original, "builtin_tools") || strings.Contains(original, "add_generation_prompt") {
		t.Fatalf("the first example sets a key the test sets: %s", original)
	}

	// rendersAs waits for a render and checks it is the render of the
	// request's text, which must contain want.
	rendersAs := func(step func() error, want string) {
		t.Helper()
		before := browsertest.Eval[pageState](t, ctx, readState).Rendered
		if err := step(); err != nil {
			t.Fatal(err)
		}
		got := waitRendered(t, ctx, before)
		text := browsertest.Eval[string](t, ctx, `document.getElementById("request").value`)
		if !strings.Contains(text, want) {
			t.Fatalf("the request does not hold %s:\n%s", want, text)
		}
		req, err := harmony.ParseRequest([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		req.PlaceLateInstructions = true
		p, err := req.RenderPrompt()
		if err != nil {
			t.Fatal(err)
		}
		if got.Prompt != p.Text || got.Error != "" {
			t.Errorf("after %s: prompt %q error %q, want render's %q", want, got.Prompt, got.Error, p.Text)
		}
	}
	choose := func(value string) func() error {
		q, _ := json.Marshal(value)
		return func() error {
			return chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#effort")), chromedp.Func(func(ctx2 context.Context, tg *chromedp.Target) error {
				_, err := chromedp.Evaluate[bool](`(() => { const s = document.getElementById("effort"); s.value = `+string(q)+`; s.dispatchEvent(new Event("change")); return true })()`)(ctx2, tg)
				return err
			}))
		}
	}
	press := func(sel string) func() error {
		return func() error { return chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(sel)), chromedp.KeyEvent(" ")) }
	}
	rendersAs(choose("low"), `"reasoning_effort": "low"`)
	rendersAs(choose("high"), `"reasoning_effort": "high"`)
	rendersAs(press("#builtin-search"), `"builtin_tools": ["search"]`)
	rendersAs(press("#builtin-browse"), `"builtin_tools": ["search", "browse"]`)
	rendersAs(press("#gen-prompt"), `"add_generation_prompt": false`)
	if p := browsertest.Eval[string](t, ctx, `document.getElementById("prompt").textContent`); strings.HasSuffix(p, "<|start|>assistant") {
		t.Errorf("add_generation_prompt false, yet the prompt ends with the generation prompt")
	}
	// Undone, the request is the text it was.
	rendersAs(press("#gen-prompt"), "")
	rendersAs(press("#builtin-search"), `"builtin_tools": ["browse"]`)
	rendersAs(press("#builtin-browse"), "")
	rendersAs(choose(""), "")
	if got := browsertest.Eval[string](t, ctx, `document.getElementById("request").value`); got != original {
		t.Errorf("after undoing every control the request differs:\n got %s\nwant %s", got, original)
	}
	browsertest.Screenshot(t, ctx, filepath.Join(t.ArtifactDir(), "controls.png"))

	// Errors, selected in the request from the keyboard.
	for _, tt := range []struct {
		name, request, selected string
	}{
		{"syntax error after a two-byte character", `{"messages": [{"role": "user", "content": "é"}, }]}`, "}"},
		{"render error at a path", `{"messages": [{"role": "wizard", "content": "x"}]}`, `"wizard"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := harmony.ParseRequest([]byte(tt.request))
			if err == nil {
				_, err = req.RenderPrompt()
			}
			if err == nil {
				t.Fatal("the request renders")
			}
			q, _ := json.Marshal(tt.request)
			before := browsertest.Eval[pageState](t, ctx, readState).Rendered
			browsertest.Eval[bool](t, ctx, `(() => { const r = document.getElementById("request"); r.value = `+string(q)+`; r.dispatchEvent(new Event("input")); return true })()`)
			got := waitUntil(t, ctx, before, func(s pageState) bool { return strings.HasPrefix(s.Error, console.OneLine(err)) })
			if got.Error == "" {
				t.Fatal("no error shown")
			}
			if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#request-goto")), chromedp.KeyEvent(kb.Enter)); err != nil {
				t.Fatal(err)
			}
			sel := browsertest.Eval[struct {
				Active     string
				Start, End int
				Text       string
				Disabled   bool
			}](t, ctx, `(() => { const r = document.getElementById("request"); return {active: document.activeElement.id, start: r.selectionStart, end: r.selectionEnd,
				text: r.value.slice(r.selectionStart, r.selectionEnd), disabled: document.getElementById("request-controls").disabled} })()`)
			if sel.Active != "request" || sel.Text != tt.selected {
				t.Errorf("the button selects %q (focus on %q), want %q", sel.Text, sel.Active, tt.selected)
			}
			if se := (*harmony.SyntaxError)(nil); errors.As(err, &se) {
				if want := len(utf16.Encode([]rune(tt.request[:se.Offset]))); sel.Start != want {
					t.Errorf("selection starts at %d, want %d (byte %d)", sel.Start, want, se.Offset)
				}
				if !sel.Disabled {
					t.Errorf("the controls are enabled for a request that is not JSON")
				}
			}
		})
	}
}
