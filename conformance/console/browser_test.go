package console_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/conformance/internal/browsertest"
	"github.com/beamharmony/harmony/console"
	"github.com/beamharmony/harmony/dataset"
	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

var update = flag.Bool("update", false, "write docs/console.png from the playground's screenshot")

// beamTokenizer is Beam's tokenizer (the o200k vocabulary with Beam's
// markers), as the tests of package tokenizer generate it.
func beamTokenizer(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	dir, err := tokgen.BeamDir()
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// pageState is what the playground shows, read from the page.
type pageState struct {
	Prompt     string       `json:"prompt"`
	Error      string       `json:"error"`
	Spans      []markedSpan `json:"spans"`
	Tokens     [][4]int     `json:"tokens"` // id, start, end, mask
	TokenError string       `json:"tokenError"`
	Rendered   int          `json:"rendered"`
}

type markedSpan struct {
	Start, End int
	Text       string
}

func (m *markedSpan) UnmarshalJSON(b []byte) error {
	var v [3]any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	m.Start, m.End, m.Text = int(v[0].(float64)), int(v[1].(float64)), v[2].(string)
	return nil
}

const readState = `(() => {
  const $ = (id) => document.getElementById(id);
  const shown = (id) => $(id).hidden ? "" : $(id).textContent;
  return {
    prompt: $("prompt").textContent,
    error: shown("render-error"),
    tokenError: shown("tokens-error"),
    spans: Array.from(document.querySelectorAll("#prompt mark.trained")).map((m) => [Number(m.dataset.start), Number(m.dataset.end), m.textContent]),
    tokens: Array.from(document.querySelectorAll("#tokens .tok")).map((s) => [Number(s.dataset.id), Number(s.dataset.start), Number(s.dataset.end), Number(s.dataset.mask)]),
    rendered: Number(document.body.dataset.rendered || 0),
  };
})()`

// openPlayground opens the console's page and waits for its first render.
func openPlayground(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
	)
	if err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
}

// waitRendered waits until the page has finished a render after the one
// numbered after.
func waitRendered(t *testing.T, ctx context.Context, after int) pageState {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`Number(document.body.dataset.rendered || 0) > %d`, after),
		chromedp.WithPollingTimeout(browsertest.Guard)))
	if err != nil {
		t.Fatalf("waiting for the page to render: %v", err)
	}
	return browsertest.Eval[pageState](t, ctx, readState)
}

// pick chooses an example in the page's list, as a user does, and returns
// what the page then shows.
func pick(t *testing.T, ctx context.Context, name string) pageState {
	t.Helper()
	before := browsertest.Eval[pageState](t, ctx, readState).Rendered
	q, _ := json.Marshal(name)
	browsertest.Eval[bool](t, ctx, `(() => { const s = document.getElementById("example"); s.value = `+string(q)+
		`; s.dispatchEvent(new Event("change")); return s.value === `+string(q)+` })()`)
	return waitRendered(t, ctx, before)
}

// The playground renders each of the page's examples (examples/*.json) to
// exactly the bytes render writes, its highlighted spans are render
// --spans', its token view is tokenize's ids and offsets with render
// --tokenizer's mask, and an example that does not render shows render's
// error text.
func TestBrowserPlaygroundExamples(t *testing.T) {
	tk := beamTokenizer(t)
	srv := httptest.NewServer(console.New(console.Config{Tokenizer: tk, TokenizerName: "Beam (test tokenizer)"}))
	defer srv.Close()
	ctx := browsertest.New(t, 1280, 1000)
	openPlayground(t, ctx, srv.URL+"/")
	examples := console.Examples()
	if len(examples) < 10 {
		t.Fatalf("%d examples embedded, want every examples/*.json", len(examples))
	}
	for _, ex := range examples {
		t.Run(ex.Name, func(t *testing.T) {
			got := pick(t, ctx, ex.Name)
			req, err := harmony.ParseRequest([]byte(ex.Request))
			if err != nil {
				t.Fatal(err)
			}
			req.PlaceLateInstructions = true
			p, err := req.RenderPrompt()
			if err != nil {
				want := console.OneLine(console.RenderHint(err))
				if got.Error != want {
					t.Errorf("error shown %q, want render's %q", got.Error, want)
				}
				return
			}
			if got.Error != "" {
				t.Fatalf("error shown for a request that renders: %q", got.Error)
			}
			if got.Prompt != p.Text {
				t.Errorf("prompt shown differs from render's output:\n got %q\nwant %q", got.Prompt, p.Text)
			}
			chars := []rune(p.Text)
			want := p.CharSpans()
			if len(got.Spans) != len(want) {
				t.Fatalf("%d spans highlighted, render --spans gives %d", len(got.Spans), len(want))
			}
			for i, s := range want {
				g := got.Spans[i]
				if g.Start != s.Start || g.End != s.End || g.Text != string(chars[s.Start:s.End]) {
					t.Errorf("span %d: highlighted [%d, %d) %q, render --spans gives [%d, %d) %q", i, g.Start, g.End, g.Text, s.Start, s.End, string(chars[s.Start:s.End]))
				}
			}
			enc, err := tk.EncodeContext(context.Background(), p.Text) // what tokenize writes
			if err != nil {
				t.Fatal(err)
			}
			toks, err := req.RenderTokens(context.Background(), tk) // what render --tokenizer writes
			if err != nil {
				t.Fatal(err)
			}
			if got.TokenError != "" || len(got.Tokens) != len(enc.IDs) {
				t.Fatalf("token view: %d tokens (error %q), tokenize gives %d", len(got.Tokens), got.TokenError, len(enc.IDs))
			}
			for i, g := range got.Tokens {
				w := [4]int{enc.IDs[i], enc.Offsets[i][0], enc.Offsets[i][1], toks.AssistantMasks[i]}
				if g != w {
					t.Fatalf("token %d: shown (id, start, end, mask) %v, tokenize and render --tokenizer give %v", i, g, w)
				}
			}
		})
	}
}

// Editing the request updates the prompt; a malformed request shows
// render's error where the prompt's errors go and the page keeps working;
// a malformed generation shows the parser's error at its position; the
// token view is keyboard-usable; a constraint shows its grammar; and the
// page fits a phone-width window. Screenshots are written to the test's
// artifact directory, and with -update the wide one (a constrained
// example, the grammar panel filled) to docs/console.png.
func TestBrowserPlaygroundEditAndErrors(t *testing.T) {
	tk := beamTokenizer(t)
	srv := httptest.NewServer(console.New(console.Config{Tokenizer: tk, TokenizerName: "Beam (test tokenizer)"}))
	defer srv.Close()
	ctx := browsertest.New(t, 1280, 1000)
	openPlayground(t, ctx, srv.URL+"/")

	// Typing a request: the prompt follows.
	before := browsertest.Eval[pageState](t, ctx, readState).Rendered
	typed := `{"messages": [{"role": "user", "content": "Typed by hand"}]}`
	if err := chromedp.Do(ctx, clear("#request"), chromedp.SendKeys(chromedp.CSS("#request"), typed)); err != nil {
		t.Fatal(err)
	}
	got := waitUntil(t, ctx, before, func(s pageState) bool { return strings.Contains(s.Prompt, "Typed by hand") })
	want, err := harmony.Render([]harmony.Message{{Role: "user", Content: "Typed by hand"}}, &harmony.Options{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Prompt != want || got.Error != "" {
		t.Errorf("typed request: prompt %q error %q, want %q", got.Prompt, got.Error, want)
	}

	// A malformed request: render's error, the last prompt kept.
	before = got.Rendered
	if err := chromedp.Do(ctx, clear("#request"), chromedp.SendKeys(chromedp.CSS("#request"), `{"messages": [`)); err != nil {
		t.Fatal(err)
	}
	// Each keystroke renders what is typed so far (a slow machine shows
	// the errors of the shorter texts first): wait for the whole text's.
	_, rerr := harmony.ParseRequest([]byte(`{"messages": [`))
	got = waitUntil(t, ctx, before, func(s pageState) bool { return strings.HasPrefix(s.Error, console.OneLine(rerr)) })
	if got.Error != console.OneLine(rerr)+"\n(at request)" {
		t.Errorf("malformed request: error %q, want render's %q and where", got.Error, console.OneLine(rerr))
	}

	// A malformed generation: the parser's error, its position marked.
	gen := "<|channel|>analysis<|message|>Thinking.<|end|><|start|>assistant<|oops|>final<|message|>Hi<|return|>"
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#generation"), gen)); err != nil {
		t.Fatal(err)
	}
	// As for the request, wait for the whole text's error.
	_, perr := harmony.Parse(gen, nil)
	if perr == nil {
		t.Fatal("the malformed generation parses")
	}
	q, _ := json.Marshal(perr.Error())
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.getElementById("parse-error").hidden && document.getElementById("parse-error").textContent.startsWith(`+string(q)+`) && document.querySelector("#parse-source .errpos") !== null`,
		chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatalf("the parse error is not shown: %v", err)
	}
	parseShown := browsertest.Eval[string](t, ctx, `document.getElementById("parse-error").textContent`)
	if !strings.HasPrefix(parseShown, perr.Error()) {
		t.Errorf("parse error shown %q, want the parser's %v", parseShown, perr)
	}
	pe := perr.(*harmony.ParseError)
	at := browsertest.Eval[string](t, ctx, `document.querySelector("#parse-source .errpos").textContent`)
	if r, _ := utf8.DecodeRuneInString(gen[pe.Offset:]); at != string(r) {
		t.Errorf("error position marks %q, want %q (byte %d)", at, string(r), pe.Offset)
	}

	// The page still works: an example renders and clears the error.
	got = pick(t, ctx, "weather_tool_loop")
	if got.Error != "" || !strings.Contains(got.Prompt, "get_weather") {
		t.Fatalf("after the errors, an example renders: error %q, prompt %.80q", got.Error, got.Prompt)
	}

	// A good generation parses into its message.
	good := "<|channel|>analysis<|message|>Cloudy, so say so.<|end|><|start|>assistant<|channel|>final<|message|>It is cloudy in London.<|return|>"
	if err := chromedp.Do(ctx, clear("#generation"), chromedp.SendKeys(chromedp.CSS("#generation"), good)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("parse-error").hidden && document.getElementById("parse-message").textContent.includes("It is cloudy in London.")`,
		chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatalf("the parsed message is not shown: %v", err)
	}

	// The token view by keyboard: focus it, move with the arrow keys.
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#tokens")), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight)); err != nil {
		t.Fatal(err)
	}
	info := browsertest.Eval[string](t, ctx, `document.getElementById("token-info").textContent`)
	if !strings.HasPrefix(info, "token 2 of ") || !strings.Contains(info, " id ") {
		t.Errorf("after two right arrows the token info says %q, want token 2", info)
	}

	// A constraint: the grammar panel shows what the gateway would send.
	if err := chromedp.Do(ctx, clear("#constraints"), chromedp.SendKeys(chromedp.CSS("#constraints"), `{"tool_choice": "required"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("grammar-error").hidden && document.getElementById("grammar").textContent.includes("get_weather")`,
		chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatalf("the grammar of tool_choice required is not shown: %v (error %q)", err, browsertest.Eval[string](t, ctx, `document.getElementById("grammar-error").textContent`))
	}

	dir := t.ArtifactDir()
	browsertest.Screenshot(t, ctx, filepath.Join(dir, "playground-1280.png"))
	if *update {
		browsertest.Screenshot(t, ctx, filepath.Join("..", "..", "docs", "console.png"))
	}

	// Phone width: nothing wider than the window.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	overflow := browsertest.Eval[int](t, ctx, `document.documentElement.scrollWidth - window.innerWidth`)
	if overflow > 0 {
		t.Errorf("at 390 px the page is %d px wider than the window", overflow)
	}
	browsertest.Screenshot(t, ctx, filepath.Join(dir, "playground-390.png"))
}

// waitUntil waits for a render after the one numbered after whose state
// satisfies ok.
func waitUntil(t *testing.T, ctx context.Context, after int, ok func(pageState) bool) pageState {
	t.Helper()
	for {
		s := waitRendered(t, ctx, after)
		if ok(s) {
			return s
		}
		after = s.Rendered
	}
}

// The dataset preview: a rejects file shows each reason beside its row, a
// dataset's rows show their trained part and the plots are drawn, and a
// Parquet input reads as the dataset command reads it.
func TestBrowserDatasetPreview(t *testing.T) {
	dir := t.TempDir()
	input, output := parquetFiles(t)
	srv := httptest.NewServer(console.New(console.Config{ReadParquet: dataset.ParquetRows, LocalFiles: []string{output}}))
	defer srv.Close()
	rejects := filepath.Join(dir, "train.rejects.jsonl")
	writeFile(t, rejects, `{"source": "data.jsonl", "line": 3, "error": "messages[1]: an assistant turn without reasoning", "row": {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]}}
{"source": "data.jsonl", "line": 7, "error": "request: invalid JSON at byte 2: unexpected end of input", "row": "{\""}
`)
	rows := filepath.Join(dir, "train.jsonl")
	writeFile(t, rows, `{"text": "<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello<|return|>", "assistant_spans": [[51, 93]]}
{"text": "abcdef", "assistant_spans": [[2, 4]]}
`)
	ctx := browsertest.New(t, 1280, 1000)
	openPlayground(t, ctx, srv.URL+"/#dataset")
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#dataset-file"), []string{rejects})); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#dataset-rows .reason").length === 2`, chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatalf("the rejects are not shown: %v", err)
	}
	reasons := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#dataset-rows .reason")).map((e) => e.textContent)`)
	if reasons[0] != "messages[1]: an assistant turn without reasoning" || !strings.HasPrefix(reasons[1], "request: invalid JSON") {
		t.Errorf("reasons shown: %q", reasons)
	}
	browsertest.Screenshot(t, ctx, filepath.Join(t.ArtifactDir(), "rejects.png"))

	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#dataset-file"), []string{rows})); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#dataset-rows mark.trained").length === 2 && !document.getElementById("dataset-plots").hidden`, chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatalf("the rows are not shown: %v", err)
	}
	marked := browsertest.Eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#dataset-rows mark.trained")).map((e) => e.textContent)`)
	if marked[1] != "cd" || !strings.HasPrefix(marked[0], "<|channel|>final") {
		t.Errorf("trained parts shown: %q", marked)
	}
	bars := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#length-plot rect.bar").length + document.querySelectorAll("#share-plot rect.bar").length`)
	if bars != 40 {
		t.Errorf("%d histogram bars drawn, want 20 in each plot", bars)
	}
	browsertest.Screenshot(t, ctx, filepath.Join(t.ArtifactDir(), "dataset.png"))

	// A Parquet input of the dataset command: its rows rendered, the one
	// it rejects shown with its reason, numbered as rows.
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#dataset-file"), []string{input})); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("dataset-summary").textContent.includes("Parquet")`, chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatalf("the Parquet file is not shown: %v", err)
	}
	pq := browsertest.Eval[struct {
		Summary string
		Marked  []string
		Reasons []string
		Metas   []string
	}](t, ctx, `({summary: document.getElementById("dataset-summary").textContent,
		marked: Array.from(document.querySelectorAll("#dataset-rows mark.trained")).map((e) => e.textContent),
		reasons: Array.from(document.querySelectorAll("#dataset-rows .reason")).map((e) => e.textContent),
		metas: Array.from(document.querySelectorAll("#dataset-rows .meta")).map((e) => e.textContent)})`)
	if !strings.Contains(pq.Summary, "requests Parquet file, 3 rows read, 1 rejected") || len(pq.Marked) != 2 || !strings.Contains(pq.Marked[1], "Hello again!") ||
		len(pq.Reasons) != 1 || !strings.Contains(pq.Reasons[0], "wizard") || len(pq.Metas) != 3 || !strings.HasPrefix(pq.Metas[1], "row 2") {
		t.Errorf("Parquet preview: %+v", pq)
	}
	browsertest.Screenshot(t, ctx, filepath.Join(t.ArtifactDir(), "dataset-parquet.png"))

	// A local file named at start (--dataset), opened by keyboard: the
	// dataset command's Parquet output with its spans.
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#local-open")), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("dataset-summary").textContent.startsWith("out.parquet: text Parquet file, 2 rows read, 0 rejected")`, chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatalf("the local file is not shown: %v (summary %q)", err, browsertest.Eval[string](t, ctx, `document.getElementById("dataset-summary").textContent`))
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("#dataset-rows mark.trained").length`); n != 2 {
		t.Errorf("local file: %d trained parts marked, want 2", n)
	}

	// Phone width: the rows, plots and rejects fit the window.
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#dataset-file"), []string{rejects})); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#dataset-rows .reason").length === 2`, chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatalf("the rejects are not shown again: %v", err)
	}
	phoneFits(t, ctx, "dataset rejects")
	browsertest.Screenshot(t, ctx, filepath.Join(t.ArtifactDir(), "rejects-390.png"))
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#dataset-file"), []string{rows})); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("dataset-summary").textContent.startsWith("train.jsonl")`, chromedp.WithPollingTimeout(browsertest.Guard))); err != nil {
		t.Fatalf("the rows are not shown again: %v", err)
	}
	phoneFits(t, ctx, "dataset rows and plots")
	browsertest.Screenshot(t, ctx, filepath.Join(t.ArtifactDir(), "dataset-390.png"))
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// clear empties a text field, as selecting its text and deleting it does.
func clear(sel string) chromedp.Action[chromedp.Void] {
	q, _ := json.Marshal(sel)
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(() => { const e = document.querySelector(`+string(q)+`); e.value = ""; return true })()`)(ctx, t)
		return err
	})
}
