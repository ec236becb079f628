package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadKeyFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keys, err := readKeyFile(write("keys", "# comment\n\n  first  \nsecond\r\n#third\n"))
	if err != nil || len(keys) != 2 || keys[0] != "first" || keys[1] != "second" {
		t.Errorf("readKeyFile = %q, %v", keys, err)
	}
	for name, text := range map[string]string{"empty": "", "comments": "# only\n", "bad": "good\nba d\n", "bad last line": "good\n\nba d"} {
		if _, err := readKeyFile(write(name, text)); err == nil {
			t.Errorf("%s: no error", name)
		} else if name == "bad" && !strings.Contains(err.Error(), ":2:") || name == "bad last line" && !strings.Contains(err.Error(), ":3:") {
			t.Errorf("%s: %v, want the line named", name, err)
		}
	}
	if _, err := readKeyFile(dir); err == nil || !strings.Contains(err.Error(), "regular") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := readKeyFile(write("big", strings.Repeat("k", 1<<20+1))); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("a file over 1 MiB: %v", err)
	}
}

func TestParseCORSOrigins(t *testing.T) {
	got, err := parseCORSOrigins(" https://a.example , http://localhost:3000,,*")
	if err != nil || !slices.Equal(got, []string{"https://a.example", "http://localhost:3000", "*"}) {
		t.Errorf("parseCORSOrigins = %q, %v", got, err)
	}
	for _, bad := range []string{"a.example", "https://a.example/path", "https://a.example?x=1", "https://user@a.example", "mailto:x@y"} {
		if _, err := parseCORSOrigins(bad); err == nil {
			t.Errorf("parseCORSOrigins(%q) accepted", bad)
		}
	}
	if got, err := parseCORSOrigins(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %q %v", got, err)
	}
}
