package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/templates"
)

// needPython skips a test that runs Jinja when python3 with jinja2 is
// missing, except under CI, where it fails.
func needPython(t *testing.T) {
	t.Helper()
	err := exec.Command("python3", "-c", "import jinja2").Run()
	if err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI must run the verify tests: python3 with jinja2: %v", err)
	}
	t.Skipf("python3 with jinja2 not available: %v", err)
}

func TestTemplatePrintsTheTemplate(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "template")
	if code != 0 || stderr != "" || stdout != templates.ChatTemplate {
		t.Errorf("template: code %d, stderr %q, %d bytes (want %d)", code, stderr, len(stdout), len(templates.ChatTemplate))
	}
}

func TestVerifyOurTemplateAgrees(t *testing.T) {
	needPython(t)
	path := filepath.Join(t.TempDir(), "chat_template.jinja")
	if err := os.WriteFile(path, []byte(templates.ChatTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "", "verify", "--template", path, "--n", "400", "../examples")
	if code != 0 || stderr != "" || strings.Contains(stdout, "DIFF") || !strings.Contains(stdout, ", 0 differ") {
		t.Errorf("verify: code %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// An altered copy of the template must be caught, with the case and a short
// diff: in the prompt, in the spans, and in an error message.
func TestVerifyReportsAlteredTemplate(t *testing.T) {
	needPython(t)
	alterations := []struct {
		name, old, new, want string
	}{
		{"prompt", "'\\n\\nReasoning effort: '", "'\\n\\nReasoning: '", "prompts differ at character"},
		{"spans", "{{- '<|start|>assistant' -}}\n{%- generation -%}", "{%- generation -%}\n{{- '<|start|>assistant' -}}", "assistant spans differ"},
		{"error", "' is not in tools; builtin_tools names tools from tools'", "' is missing from tools'", "template error:"},
		{"schema", "'integer': 'number'", "'integer': 'integer'", "prompts differ at character"},
	}
	for _, a := range alterations {
		t.Run(a.name, func(t *testing.T) {
			if strings.Count(templates.ChatTemplate, a.old) != 1 {
				t.Fatalf("the template has %d copies of %q", strings.Count(templates.ChatTemplate, a.old), a.old)
			}
			path := filepath.Join(t.TempDir(), "altered.jinja")
			altered := strings.Replace(templates.ChatTemplate, a.old, a.new, 1)
			if err := os.WriteFile(path, []byte(altered), 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runCLI(t, "", "verify", "--template", path, "--n", "400")
			if code != 1 || stderr != "" || !strings.Contains(stdout, "DIFF ") || !strings.Contains(stdout, a.want) {
				t.Errorf("verify: code %d, stderr %q, stdout:\n%.3000s", code, stderr, stdout)
			}
		})
	}
}

// needNodeJinja skips a test that runs @huggingface/jinja when node or the
// package (installed in templates/hfjs by npm ci) is missing, except under
// CI, where it fails.
func needNodeJinja(t *testing.T) string {
	t.Helper()
	modules := filepath.Join("..", "templates", "hfjs")
	_, err := os.Stat(filepath.Join(modules, "node_modules", "@huggingface", "jinja", "package.json"))
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err == nil {
		return modules
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI must run the verify tests: node and @huggingface/jinja (npm ci in templates/hfjs): %v", err)
	}
	t.Skipf("node or @huggingface/jinja not available: %v", err)
	return ""
}

func TestVerifyHFJS(t *testing.T) {
	modules := needNodeJinja(t)
	stdout, stderr, code := runCLI(t, "", "verify", "--engine", "hf-js", "--hfjs-modules", modules, "--n", "300", "../examples")
	if code != 0 || stderr != "" || strings.Contains(stdout, "DIFF") || !strings.Contains(stdout, ", 0 differ: the built-in template in @huggingface/jinja") {
		t.Errorf("verify: code %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	altered := filepath.Join(t.TempDir(), "altered.jinja")
	if err := os.WriteFile(altered, []byte(strings.Replace(templates.ChatTemplate, "'\\n\\nReasoning effort: '", "'\\n\\nReasoning: '", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = runCLI(t, "", "verify", "--engine", "hf-js", "--hfjs-modules", modules, "--template", altered, "--n", "20")
	if code != 1 || stderr != "" || !strings.Contains(stdout, "prompts differ at character") {
		t.Errorf("verify of an altered template: code %d, stderr %q, stdout:\n%.3000s", code, stderr, stdout)
	}
}

func TestVerifyEngineFlag(t *testing.T) {
	_, stderr, code := runCLI(t, "", "verify", "--engine", "minja", "--n", "1")
	if code != 2 || !strings.Contains(stderr, `--engine "minja": use jinja2 or hf-js`) {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
	_, stderr, code = runCLI(t, "", "verify", "--engine", "hf-js", "--node", "no-such-node-here", "--n", "1")
	if code != 2 || !strings.Contains(stderr, "no node found") {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
	_, stderr, code = runCLI(t, "", "verify", "--engine", "hf-js", "--hfjs-modules", t.TempDir(), "--n", "1")
	if _, err := exec.LookPath("node"); err == nil && (code != 2 || !strings.Contains(stderr, "cannot load @huggingface/jinja")) {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}

func TestVerifyWithoutPython(t *testing.T) {
	_, stderr, code := runCLI(t, "", "verify", "--python", "no-such-python-here", "--n", "1")
	if code != 2 || !strings.Contains(stderr, "no Python interpreter found") {
		t.Errorf("code %d, stderr %q", code, stderr)
	}
}
