package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tokenizer marked as a stand-in (cmd/standin-tokenizer) is named as one
// on stderr by every command that loads it; -q silences render's warning;
// the same files without the mark get none.
func TestStandInWarning(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(beamDir(t), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	standIn, plain := t.TempDir(), t.TempDir()
	for dir, cfg := range map[string]string{standIn: `{"beamharmony_stand_in": "test"}`, plain: `{}`} {
		os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644)
		os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(cfg), 0o644)
	}
	const req = `{"messages": [{"role": "user", "content": "Hello!"}]}`
	for _, args := range [][]string{{"render", "--tokenizer"}, {"tokenize", "--tokenizer"}} {
		_, stderr, code := runCLI(t, req, append(args, standIn)...)
		if code != 0 || !strings.Contains(stderr, "is a stand-in tokenizer") {
			t.Errorf("%s on a stand-in: code %d, stderr %q", args[0], code, stderr)
		}
		_, stderr, _ = runCLI(t, req, append(args, plain)...)
		if stderr != "" {
			t.Errorf("%s on a tokenizer without the mark: stderr %q", args[0], stderr)
		}
	}
	if _, stderr, _ := runCLI(t, req, "render", "-q", "--tokenizer", standIn); stderr != "" {
		t.Errorf("render -q: stderr %q", stderr)
	}
}
