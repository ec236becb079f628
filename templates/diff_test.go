package templates_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/beamharmony/harmony/internal/corpus"
	"github.com/beamharmony/harmony/templates"
	"github.com/beamharmony/harmony/templates/interop"
)

var (
	seed  = flag.Uint64("interop.seed", 1, "seed of the generated requests")
	count = flag.Int("interop.n", 2500, "number of generated requests")
)

// The engines the template is compared in: Python Jinja2 as Hugging Face
// runs it, and @huggingface/jinja under node (its package is installed in
// hfjs/ by `npm ci`, which CI runs).
func jinja2() interop.Engine { return &interop.Python{Helper: "../templates/interop/render_jinja.py"} }

func hfjs() *interop.HFJS { return &interop.HFJS{Modules: "hfjs"} }

// needEngine skips the test when err says the engine is missing, except
// under CI (the CI variable set), where it fails; any other error fails.
func needEngine(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	missing := errors.Is(err, interop.ErrNoPython) || errors.Is(err, interop.ErrNoJinja) ||
		errors.Is(err, interop.ErrNoNode) || errors.Is(err, interop.ErrNoHFJS)
	if missing && os.Getenv("CI") == "" {
		t.Skipf("skipping the interop test: %v", err)
	}
	if missing {
		t.Fatalf("CI must run the interop test: %v", err)
	}
	t.Fatal(err)
}

// compare renders cases with the Go renderer and with the template the
// package embeds (so that go test's cache knows the template) in engine e.
func compare(t *testing.T, e interop.Engine, cases []corpus.Case) []interop.Mismatch {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chat_template.jinja")
	if err := os.WriteFile(path, []byte(templates.ChatTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	mismatches, err := interop.Compare(ctx, e, path, cases)
	needEngine(t, err)
	return mismatches
}

// fullCorpus is the format page's examples, every request under testdata/
// and examples/, and the generated requests (a quarter of them with one
// error each).
func fullCorpus(t *testing.T) (cases []corpus.Case, summary string) {
	t.Helper()
	golden, err := interop.RequestFiles("../testdata", "../examples")
	if err != nil {
		t.Fatal(err)
	}
	generated := corpus.Generate(*seed, *count)
	cases = append(append(corpus.Page(), golden...), generated...)
	return cases, fmt.Sprintf("%d requests (%d page examples, %d golden files, %d generated with seed %d)",
		len(cases), len(corpus.Page()), len(golden), len(generated), *seed)
}

// TestTemplateMatchesGoRenderer renders the corpus with the Go renderer and
// with chat_template.jinja run as Hugging Face runs it, and requires the
// same prompt and assistant spans, or the same error message, for every
// request.
func TestTemplateMatchesGoRenderer(t *testing.T) {
	cases, summary := fullCorpus(t)
	mismatches := compare(t, jinja2(), cases)
	for i, m := range mismatches {
		if i == 20 {
			t.Errorf("... and %d more differences", len(mismatches)-20)
			break
		}
		t.Errorf("%s:\n%s", m.Name, m.Diff)
	}
	t.Logf("Jinja2: compared %s: %d differ", summary, len(mismatches))
}

// TestTemplateMatchesGoRendererHFJS runs the same comparison in
// @huggingface/jinja, prompts and error messages (the engine knows no
// assistant spans: see TestKnownDifferences). A request with number
// literals a JavaScript number cannot keep (2.0, 1e-05, 9007199254740993)
// must agree with the Go renderer given the numbers JavaScript holds; every
// other request must agree as it is.
func TestTemplateMatchesGoRendererHFJS(t *testing.T) {
	cases, summary := fullCorpus(t)
	mismatches := compare(t, hfjs(), cases)
	explained, unrepresentable, shown := 0, 0, 0
	for _, m := range mismatches {
		switch {
		case strings.Contains(m.Explained, "cannot hold"):
			unrepresentable++
		case m.Explained != "":
			explained++
		default:
			if shown++; shown <= 20 {
				t.Errorf("%s:\n%s", m.Name, m.Diff)
			}
		}
	}
	if shown > 20 {
		t.Errorf("... and %d more differences", shown-20)
	}
	if exact := len(cases) - len(mismatches); exact < 2000 {
		t.Errorf("only %d requests agree byte for byte; the comparison has lost its reach", exact)
	}
	t.Logf("@huggingface/jinja: compared %s: %d agree as they are, %d agree given the numbers JavaScript holds, %d hold integers JavaScript writes with an exponent, %d differ",
		summary, len(cases)-len(mismatches), explained, unrepresentable, shown)
}

// knownDifferences are inputs on which an engine cannot agree with the Go
// renderer, each for a reason outside the template (DECISIONS.md and
// docs/gap-decisions.md name them). The generator leaves the Jinja2 ones
// out; TestKnownDifferences checks that each still differs, with the
// difference described (want is part of it), so that an entry goes when
// its reason does.
var knownDifferences = []struct {
	name, engine, rule, request, want string
}{
	{"number-literal", "Jinja2",
		"DECISIONS.md: Go keeps number literals; Python reads 1E5 as a float and writes 100000.0",
		`{"messages": [{"role": "assistant", "reasoning_content": "r", "tool_calls": [{"function": {"name": "f", "arguments": {"n": 1E5}}}]}]}`,
		"prompts differ"},
	{"repeated-argument-key", "Jinja2",
		"gap 12: a repeated key is an error in Go; Python's json.loads keeps the last value silently",
		`{"messages": [{"role": "assistant", "reasoning_content": "r", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1, "a": 2}}}]}]}`,
		"template renders"},
	{"lone-surrogate", "Jinja2",
		"gap 16: Go decodes a lone surrogate escape to U+FFFD; Python keeps the surrogate, which no UTF-8 writer accepts",
		`{"messages": [{"role": "user", "content": "\ud800"}]}`,
		"lone surrogate"},
	{"tool-not-object", "Jinja2",
		"apply_chat_template rejects a tool that is not a dict, with its own message, before the template runs",
		`{"messages": [], "tools": ["get_weather"]}`,
		"apply_chat_template takes JSON schema dicts"},
	{"float-literal", "@huggingface/jinja",
		"a JavaScript number holds 2.0 as 2, and tojson writes it so; the Go renderer keeps the literal",
		`{"messages": [{"role": "assistant", "reasoning_content": "r", "tool_calls": [{"function": {"name": "f", "arguments": {"n": 2.0}}}]}]}`,
		"prompts differ"},
	{"exponent-literal", "@huggingface/jinja",
		"JavaScript writes 1e-05 as 0.00001 (Python and the Go renderer keep 1e-05)",
		`{"messages": [{"role": "assistant", "reasoning_content": "r", "tool_calls": [{"function": {"name": "f", "arguments": {"x": [1e-05]}}}]}]}`,
		"prompts differ"},
	{"huge-integer", "@huggingface/jinja",
		"a JavaScript number cannot hold 2^53+1; it becomes 9007199254740992",
		`{"messages": [{"role": "user", "content": "x"}], "reasoning_effort": 9007199254740993}`,
		"prompts differ"},
}

func TestKnownDifferences(t *testing.T) {
	for _, e := range []interop.Engine{jinja2(), hfjs()} {
		t.Run(e.Name(), func(t *testing.T) {
			var cases []corpus.Case
			for _, k := range knownDifferences {
				if k.engine == e.Name() {
					cases = append(cases, corpus.Case{Name: k.name, JSON: []byte(k.request)})
				}
			}
			differ := map[string]string{}
			for _, m := range compare(t, e, cases) {
				differ[m.Name] = m.Diff
			}
			for _, k := range knownDifferences {
				if k.engine != e.Name() {
					continue
				}
				d, ok := differ[k.name]
				switch {
				case !ok:
					t.Errorf("%s (%s) now agrees: remove it from knownDifferences (and let the generator make it)", k.name, k.rule)
				case !strings.Contains(d, k.want):
					t.Errorf("%s (%s) differs otherwise than listed (want %q):\n%s", k.name, k.rule, k.want, d)
				default:
					t.Logf("%s (%s):\n%s", k.name, k.rule, d)
				}
			}
		})
	}
}

// TestHFJSDropsGenerationTags checks the reason the @huggingface/jinja
// comparison leaves assistant spans out: the engine removes {% generation %}
// tags before parsing, so a template run there cannot mark the assistant's
// output. When the engine starts keeping them, this fails: compare spans.
func TestHFJSDropsGenerationTags(t *testing.T) {
	drops, err := hfjs().DropsGenerationTags(context.Background())
	needEngine(t, err)
	if !drops {
		t.Error("@huggingface/jinja keeps {% generation %} tags now: make the comparison check assistant spans too")
	}
}

// TestToolNameCharacters renders, in every engine, a tool name, a call's
// function name and a tool message's name holding each character the
// format treats as whitespace, each control character, each of < > ", and
// look-alikes that are allowed (zero-width space, Mongolian vowel
// separator, byte order mark, non-ASCII letters), and the role names: the
// template finds characters without iterating over a string (which only
// Jinja2 can), so each must give the Go renderer's error or prompt.
func TestToolNameCharacters(t *testing.T) {
	var chars []rune
	for c := rune(0); c <= 0x3000; c++ {
		if unicode.IsSpace(c) || unicode.IsControl(c) {
			chars = append(chars, c)
		}
	}
	chars = append(chars, '<', '>', '"', '\\', '\u180e', 'é', '工', '😀')
	// Every format character (Unicode Cf: zero-width characters, the byte
	// order mark, bidi controls), refused in a name.
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if unicode.Is(unicode.Cf, c) {
			chars = append(chars, c)
		}
	}
	var cases []corpus.Case
	add := func(name string, request any) {
		data, err := json.Marshal(request)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, corpus.Case{Name: name, JSON: data})
	}
	for _, c := range chars {
		for _, name := range []string{"a" + string(c) + "b", string(c), "x" + string(c)} {
			label := fmt.Sprintf("%U in %q", c, name)
			add("tool "+label, map[string]any{
				"messages": []any{map[string]any{"role": "user", "content": "hi"}},
				"tools":    []any{map[string]any{"type": "function", "function": map[string]any{"name": name}}},
			})
			add("call "+label, map[string]any{"messages": []any{map[string]any{
				"role": "assistant", "reasoning_content": "r",
				"tool_calls": []any{map[string]any{"function": map[string]any{"name": name, "arguments": map[string]any{}}}},
			}}})
			add("result "+label, map[string]any{"messages": []any{map[string]any{"role": "tool", "name": name, "content": "42"}}})
		}
	}
	// Roles, and names that read as a role or a built-in tool under NFKC
	// (fullwidth letters, a ligature, mathematical letters, superscripts),
	// or nearly so.
	lookAlikes := []string{"system", "developer", "user", "assistant", "tool", "System", "users",
		"ｓｙｓｔｅｍ", "sy\ufb06em", "\U0001d41b\U0001d41a\U0001d42c\U0001d421", "ᵘser", "developeｒ", "ａssistant",
		"ｓｅａｒｃｈ", "ｂｒｏｗｓｅ", "search", "browse", "bash", "ＳＹＳＴＥＭ", "ｓｙｓｔｅｍｓ", "ｕsé"}
	for _, name := range lookAlikes {
		add("tool named "+name, map[string]any{
			"messages": []any{map[string]any{"role": "user", "content": "hi"}},
			"tools":    []any{map[string]any{"type": "function", "function": map[string]any{"name": name}}},
		})
		add("call named "+name, map[string]any{"messages": []any{map[string]any{
			"role": "assistant", "reasoning_content": "r",
			"tool_calls": []any{map[string]any{"function": map[string]any{"name": name, "arguments": map[string]any{}}}},
		}}})
		add("result named "+name, map[string]any{"messages": []any{map[string]any{"role": "tool", "name": name, "content": "42"}}})
	}
	for _, e := range []interop.Engine{jinja2(), hfjs()} {
		t.Run(e.Name(), func(t *testing.T) {
			for _, m := range compare(t, e, cases) {
				t.Errorf("%s:\n%s", m.Name, m.Diff)
			}
		})
	}
}

// TestCorpusIsWhatItSays checks the generator against the Go renderer
// alone: generated requests render, error cases fail, every error kind
// occurs, and at least 2,000 requests are generated. A generated request
// that errors where it should not would hide a rule from the comparison.
func TestCorpusIsWhatItSays(t *testing.T) {
	generated := corpus.Generate(*seed, *count)
	if len(generated) < 2000 {
		t.Errorf("generated %d requests, want at least 2000", len(generated))
	}
	kinds := map[string]int{}
	for _, c := range generated {
		res := interop.RenderGo(c.JSON)
		switch {
		case strings.HasPrefix(c.Name, "error/"):
			kinds[strings.Split(c.Name, "/")[1]]++
			if res.Error == "" {
				t.Errorf("%s renders without error:\n%.2000s", c.Name, c.JSON)
			}
		case res.Error != "":
			t.Errorf("%s: %s\n%.2000s", c.Name, res.Error, c.JSON)
		}
	}
	for _, k := range corpus.ErrorKinds() {
		if kinds[k] == 0 {
			t.Errorf("no generated request has an error of kind %s", k)
		}
	}
}
