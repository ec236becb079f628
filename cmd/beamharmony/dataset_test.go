package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDatasetCommand(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	good := `{"id": "a", "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello", "reasoning_content": "greet"}]}`
	os.WriteFile(in, []byte(good+"\n{\"id\": \"b\"}\n"), 0o644)
	out := filepath.Join(dir, "train.jsonl")
	stats := filepath.Join(dir, "stats.json")

	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // a part of stderr
	}{
		{"runs, one reject", []string{"dataset", "-o", out, "--id-column", "id", "--stats", stats, in}, 0, "2 rows read: 1 written, 1 rejected"},
		{"rerun is skipped", []string{"dataset", "-o", out, "--id-column", "id", "--stats", stats, in}, 0, "nothing to do"},
		{"strict stops", []string{"dataset", "--strict", "-o", filepath.Join(dir, "s.jsonl"), in}, 1, in + ": line 2: messages: required"},
		{"output is the input", []string{"dataset", "-o", in, in}, 1, "is also an input"},
		{"missing input", []string{"dataset", "-o", filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "nope.jsonl")}, 1, "nope.jsonl"},
		{"no output", []string{"dataset", in}, 2, "-o OUT is required"},
		{"no input", []string{"dataset", "-o", out}, 2, "no INPUT"},
		{"bad shard", []string{"dataset", "-o", out, "--shard", "2/2", in}, 2, "0 <= K < N"},
		{"bad effort", []string{"dataset", "-o", out, "--reasoning-effort", "-3", in}, 2, "--reasoning-effort"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) || stdout != "" {
				t.Fatalf("code %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, tt.code, tt.stderr)
			}
		})
	}

	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var row map[string]any
	if err := json.Unmarshal(data, &row); err != nil || row["id"] != "a" || !strings.HasSuffix(row["text"].(string), "<|return|>") {
		t.Fatalf("output %s (%v)", data, err)
	}
	rej, err := os.ReadFile(filepath.Join(dir, "train.rejects.jsonl"))
	if err != nil || !strings.Contains(string(rej), `"line": 2`) {
		t.Fatalf("rejects %s (%v)", rej, err)
	}
	var st map[string]any
	data, _ = os.ReadFile(stats)
	if err := json.Unmarshal(data, &st); err != nil || st["rows"] != 2.0 || st["rows_rejected"] != 1.0 {
		t.Fatalf("stats %s (%v)", data, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.jsonl")); !os.IsNotExist(err) {
		t.Fatal("a strict run that stopped left its output")
	}
}

func TestDatasetHelp(t *testing.T) {
	stdout, _, code := runCLI(t, "", "dataset", "--help")
	if code != 0 || !strings.Contains(stdout, "Example:") || !strings.Contains(stdout, "beamharmony dataset -o") {
		t.Fatalf("code %d, help %q", code, stdout)
	}
}
