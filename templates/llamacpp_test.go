package templates_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/beamharmony/harmony/templates/interop"
)

var llamaURL = flag.String("llama.url", os.Getenv("BEAMHARMONY_LLAMA_URL"),
	"base URL of a llama-server started with this chat template (templates/llamacpp/compare.sh starts one); empty skips the llama.cpp comparison")

// floatRefusal is the template's error where llama.cpp would write a float
// otherwise than Python (chat_template.jinja, no_floats).
const floatRefusal = "cannot be written as Python writes it in this Jinja engine"

// TestTemplateMatchesGoRendererLlamaCpp compares the template run by
// llama.cpp's Jinja engine (a llama-server's /apply-template) with the Go
// renderer over the corpus. It needs a running server, so CI does not run
// it; templates/llamacpp/compare.sh builds a tiny model, starts the server
// and runs this test, and docs/llama-cpp.md records the results.
//
// Requests that llama.cpp reshapes before the template runs
// (interop.LlamaReshapes) are counted by reason and not compared. Every
// other request must give the Go renderer's prompt (with the last
// <|return|> made <|end|> when there is no generation prompt, as llama.cpp
// does after the template: interop.LlamaPrompt), or fail where the Go
// renderer fails (llama.cpp wraps the template's message in its own), or
// be refused loudly for holding a float, which llama.cpp would write with
// six significant digits.
func TestTemplateMatchesGoRendererLlamaCpp(t *testing.T) {
	if *llamaURL == "" {
		t.Skip("no llama-server given: run templates/llamacpp/compare.sh LLAMA_SERVER GGUF_PY_DIR (see docs/llama-cpp.md)")
	}
	cases, summary := fullCorpus(t)
	requests := make([][]byte, len(cases))
	for i, c := range cases {
		requests[i] = c.JSON
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	results, err := (&interop.LlamaServer{URL: *llamaURL}).RenderTemplate(ctx, "", requests)
	if err != nil {
		t.Fatal(err)
	}
	index := regexp.MustCompile(`\[[0-9]+\]`)
	reshaped := map[string]int{}
	var agree, bothFail, floats, differ int
	for i, c := range cases {
		res := results[i]
		if reason := interop.LlamaReshapes(c.JSON); reason != "" {
			reshaped[index.ReplaceAllString(reason, "[i]")]++
			continue
		}
		goRes := interop.RenderGo(c.JSON)
		if goRes.Error == "" {
			goRes.Prompt = interop.LlamaPrompt(c.JSON, goRes.Prompt)
		}
		var problem string
		switch {
		case res.Error != "" && strings.Contains(res.Error, floatRefusal):
			floats++
		case goRes.Error != "" && res.Error == "":
			problem = "go error:          " + goRes.Error + "\nllama.cpp renders: " + fmt.Sprintf("%.200q", res.Prompt)
		case goRes.Error != "" && !strings.Contains(res.Error, goRes.Error):
			problem = "go error:        " + goRes.Error + "\nllama.cpp error: " + res.Error
		case goRes.Error != "":
			bothFail++
		case res.Error != "":
			problem = "go renders, llama.cpp fails: " + res.Error
		case res.Prompt != goRes.Prompt:
			problem = interop.Diff(goRes, res)
		default:
			agree++
		}
		if problem != "" {
			if differ++; differ <= 20 {
				t.Errorf("%s:\n%s", c.Name, problem)
			}
		}
	}
	if differ > 20 {
		t.Errorf("... and %d more differences", differ-20)
	}
	reasons := make([]string, 0, len(reshaped))
	for r, n := range reshaped {
		reasons = append(reasons, fmt.Sprintf("%5d  %s", n, r))
	}
	sort.Strings(reasons)
	t.Logf("llama.cpp: %s: %d passed through unchanged: %d same prompt, %d fail in both with the same message, %d refused for floats, %d differ; %d reshaped by llama.cpp:\n%s",
		summary, agree+bothFail+floats+differ, agree, bothFail, floats, differ, len(cases)-agree-bothFail-floats-differ, strings.Join(reasons, "\n"))
}
