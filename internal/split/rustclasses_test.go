package split_test

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/split"
	"github.com/beamharmony/harmony/internal/tokgen"
)

var rustModules = flag.String("rust-modules", "", "compare the classes with Hugging Face's Rust library: the node_modules `DIR` holding npm package tokenizers")

// rustClassPatterns are the one-character patterns TestRustClasses checks:
// every class the scanners read, the translation's escapes, categories,
// scripts and negations.
var rustClassPatterns = []string{
	`\p{L}`, `\p{Lu}`, `\p{Ll}`, `\p{Lt}`, `\p{Lm}`, `\p{Lo}`, `\p{M}`, `\p{Mc}`, `\p{N}`, `\p{Nd}`, `\p{No}`,
	`\p{P}`, `\p{Pd}`, `\p{S}`, `\p{Sm}`, `\p{Zs}`, `\p{Cc}`, `\p{Cf}`, `\p{Co}`, `\p{Letter}`, `\p{^L}`, `\P{N}`,
	`\s`, `\S`, `\d`, `\D`, `\w`, `\W`, `\h`, `\H`, `.`,
	`\p{Greek}`, `\p{Han}`, `\p{Latin}`, `\p{Common}`, `\p{Inherited}`, `\p{Arabic}`, `\p{Cyrillic}`,
	`\p{Hiragana}`, `\p{Katakana}`, `\p{Hangul}`, `\p{Thai}`, `\p{Devanagari}`,
	`[\p{L}\p{N}]`, `[^\p{L}]`, `[^\s\p{L}\p{N}]`, `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`, `[\p{P}\p{S}]`,
}

// TestRustClasses compares, for every code point, the set each of
// rustClassPatterns matches under this package (the translation run by
// regexp2, which TestClassTable proves the scanners' classes equal) with
// the set Hugging Face's Rust library matches (testdata/rustclasses/
// classes.js; gap decisions 51 and 253). It runs only with -rust-modules
// DIR (not in CI: the library is a native npm package); about a minute.
func TestRustClasses(t *testing.T) {
	if *rustModules == "" {
		t.Skip("compares with Hugging Face's Rust library only with -rust-modules DIR")
	}
	beam, err := tokgen.BeamDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	patterns, err := json.Marshal(rustClassPatterns)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "patterns.json"), patterns, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "rustclasses", "classes.js"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	cmd := exec.Command("node", script, filepath.Join(beam, "tokenizer.json"), filepath.Join(dir, "patterns.json"), out)
	cmd.Env = append(os.Environ(), "NODE_PATH="+*rustModules)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node classes.js: %v\n%s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]json.RawMessage
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var starts []int
	for c := rune(0); c <= utf8.MaxRune; c++ {
		if c >= 0xD800 && c <= 0xDFFF {
			continue
		}
		starts = append(starts, b.Len())
		b.WriteRune(c)
	}
	all := b.String()
	for _, pattern := range rustClassPatterns {
		var ranges [][2]rune
		if err := json.Unmarshal(want[pattern], &ranges); err != nil {
			t.Errorf("%s: the library gave %s", pattern, want[pattern])
			continue
		}
		in := map[rune]bool{}
		for _, r := range ranges {
			for c := r[0]; c <= r[1]; c++ {
				in[c] = true
			}
		}
		m, err := split.Backtrack(pattern)
		if err != nil {
			t.Errorf("%s: %v", pattern, err)
			continue
		}
		got := make(map[int]bool)
		for start := range split.All(m, all) {
			got[start] = true
		}
		bad := 0
		for _, i := range starts {
			c, _ := utf8.DecodeRuneInString(all[i:])
			if got[i] != in[c] {
				if bad++; bad <= 3 {
					t.Errorf("%s %U: here %v, Hugging Face %v", pattern, c, got[i], in[c])
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d code points differ", pattern, bad)
		}
	}
}
