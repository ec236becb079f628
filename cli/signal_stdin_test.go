//go:build unix

package cli

import (
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDatasetSIGTERMOnEndlessLine: SIGTERM ends a run that is skipping an
// over-long line of stdin that never ends (issue 34 item 10: the line
// reader read on without looking at the run's context, and the pipeline
// waited for it), and a run whose stdin stays silent. The test bounds
// the wait generously (waitCLI); it asserts the exit, not its speed.
func TestDatasetSIGTERMOnEndlessLine(t *testing.T) {
	for _, tt := range []struct {
		name  string
		write func(w io.Writer) // the stdin writer's work, until the pipe breaks
	}{
		{"endless over-long line", func(w io.Writer) {
			chunk := []byte(strings.Repeat("x", 64<<10))
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}},
		{"silent stdin", func(w io.Writer) {
			io.WriteString(w, `{"messages": [{"role": "user", "content": "Hi"}]}`+"\n")
			select {} // the pipe stays open and silent until the test ends
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.jsonl")
			list := `["dataset", "--quiet", "--max-row-bytes", "1024", "-o", "` + out + `", "-"]`
			cmd := cliCommand(list)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go tt.write(stdin)
			defer stdin.Close()
			// Once the run is under way (its temporary output exists), stop it.
			for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(10 * time.Millisecond) {
				if m, _ := filepath.Glob(filepath.Join(dir, ".out.jsonl.tmp-*")); len(m) > 0 {
					break
				}
			}
			cmd.Process.Signal(syscall.SIGTERM)
			if code := waitCLI(t, cmd); code != 1 || !strings.Contains(stderr.String(), "interrupted; no output written") {
				t.Fatalf("exit %d, stderr %q; want 1 and interrupted", code, stderr.String())
			}
		})
	}
}
