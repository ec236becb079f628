package templates_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The repository's shell scripts, most of which CI never runs (they need a
// llama.cpp build, an xgrammar checkout, the agents): each must parse
// (bash -n); a usage printed from the script's own header must be the
// whole comment block at its top (the block's end is written by hand in
// its sed range, and grows when the comment does); and each that takes
// required arguments must, called without them, exit 2 with that usage,
// which names the script by its path.
func TestScripts(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	root, scripts := repoFiles(t, func(rel string) bool {
		return strings.HasSuffix(rel, ".sh") || rel == filepath.Join(".ci", "run") || rel == filepath.Join("bench", "run")
	})
	if len(scripts) < 10 {
		t.Fatalf("found only %d scripts: %v", len(scripts), scripts)
	}
	needsArgs := regexp.MustCompile(`(?m)^if \[ \$# -(lt|ne) [1-9][0-9]* \]`)
	usageRange := regexp.MustCompile(`sed -n '2,([0-9]+)p' "\$0" >&2`)
	for _, rel := range scripts {
		t.Run(rel, func(t *testing.T) {
			if out, err := exec.Command("bash", "-n", filepath.Join(root, rel)).CombinedOutput(); err != nil {
				t.Fatalf("bash -n: %v\n%s", err, out)
			}
			src, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Fatal(err)
			}
			requires := needsArgs.Match(src)
			m := usageRange.FindSubmatch(src)
			if m == nil {
				if requires {
					t.Fatal("takes required arguments but prints no usage (sed -n '2,Np' \"$0\" >&2)")
				}
				return
			}
			last, _ := strconv.Atoi(string(m[1]))
			lines := strings.Split(string(src), "\n")
			if last >= len(lines) {
				t.Fatalf("usage range ends at line %d of %d", last, len(lines))
			}
			for i := 1; i < last; i++ {
				if !strings.HasPrefix(lines[i], "#") {
					t.Errorf("usage range 2,%d holds line %d, which is not a comment: %q", last, i+1, lines[i])
				}
			}
			if strings.HasPrefix(lines[last], "#") {
				t.Errorf("usage range 2,%d stops inside the header comment: line %d is %q", last, last+1, lines[last])
			}
			if !requires {
				return // (bench/run, say, runs everything without arguments)
			}
			cmd := exec.Command("bash", filepath.Join(root, rel))
			cmd.Dir = root
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err = cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Errorf("without arguments: %v, want exit status 2", err)
			}
			if want := "Usage: " + filepath.ToSlash(rel); !strings.Contains(stderr.String(), want) {
				t.Errorf("usage does not name the script (%q):\n%s", want, stderr.String())
			}
		})
	}
}

// The repository's Python scripts, most of which CI does not run (the GGUF
// writers need llama.cpp's gguf-py, the timings a llama.cpp checkout):
// each must compile.
func TestPythonScripts(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	root, scripts := repoFiles(t, func(rel string) bool { return strings.HasSuffix(rel, ".py") })
	for i, rel := range scripts {
		scripts[i] = filepath.Join(root, rel)
	}
	if len(scripts) < 5 {
		t.Fatalf("found only %d Python scripts: %v", len(scripts), scripts)
	}
	// compile() alone: py_compile would write __pycache__ into the tree.
	check := "import sys\nfor p in sys.argv[1:]:\n    compile(open(p, encoding='utf-8').read(), p, 'exec')\n"
	if out, err := exec.Command(python, append([]string{"-c", check}, scripts...)...).CombinedOutput(); err != nil {
		t.Errorf("%v\n%s", err, out)
	}
}

// repoFiles returns the repository's root and the paths, relative to it,
// of its files that keep accepts, leaving out node_modules, .git and
// bench/run's output.
func repoFiles(t *testing.T, keep func(rel string) bool) (root string, files []string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "node_modules" || name == ".git" || name == "out" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel, _ := filepath.Rel(root, path); keep(rel) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return root, files
}
