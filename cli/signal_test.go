//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// TestMain lets a test run the command line in a child process, where a
// signal reaches it as it reaches beamharmony: with BH_CLI_ARGS set (a JSON
// array), the test binary is beamharmony.
func TestMain(m *testing.M) {
	if args := os.Getenv("BH_CLI_ARGS"); args != "" {
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(Main(list, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// cliCommand is beamharmony with the JSON array of arguments list, in a
// child process not yet started.
func cliCommand(list string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "BH_CLI_ARGS="+list)
	return cmd
}

// startCLI starts beamharmony with args in a child process.
func startCLI(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	list, _ := json.Marshal(args)
	cmd := cliCommand(string(list))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

// waitCLI waits for the child, failing the test (and killing the child)
// when it has not ended within a generous bound.
func waitCLI(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatal("beamharmony dataset did not end")
		return -1
	}
}

// TestDatasetSignals: SIGTERM ends a run promptly, with exit status 1, a
// clear message and no output; a FIFO where the manifest goes cannot hold
// the run (issue 17: dataset ignored SIGTERM while blocked on a FIFO
// manifest).
func TestDatasetSignals(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl.gz")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	bw := bufio.NewWriter(zw)
	for i := range 400_000 {
		fmt.Fprintf(bw, `{"messages": [{"role": "user", "content": "row %d"}, {"role": "assistant", "content": "Hello", "reasoning_content": "greet"}]}`+"\n", i)
	}
	bw.Flush()
	zw.Close()
	f.Close()

	t.Run("FIFO manifest", func(t *testing.T) {
		out := filepath.Join(dir, "fifo", "out.jsonl")
		os.MkdirAll(filepath.Dir(out), 0o755)
		man := filepath.Join(dir, "fifo", "out.manifest.json")
		if err := syscall.Mkfifo(man, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd, stderr := startCLI(t, "dataset", "--quiet", "-o", out, in)
		// The run refuses the FIFO at once; SIGTERM, should it hang, ends
		// it. The signal waits for the command to be under way: one that
		// comes while the process starts (its package initialisation
		// takes a while under -race on a loaded machine) kills it before
		// it can handle signals.
		stop := time.AfterFunc(2*time.Second, func() { cmd.Process.Signal(syscall.SIGTERM) })
		defer stop.Stop()
		if code := waitCLI(t, cmd); code != 1 || !strings.Contains(stderr.String(), man) {
			t.Fatalf("exit %d, stderr %q; want 1 and the FIFO named", code, stderr)
		}
	})
	t.Run("SIGTERM during a run", func(t *testing.T) {
		out := filepath.Join(dir, "run", "out.jsonl")
		os.MkdirAll(filepath.Dir(out), 0o755)
		cmd, stderr := startCLI(t, "dataset", "--quiet", "-o", out, in)
		// Once the run has begun (its temporary output exists), stop it.
		for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(10 * time.Millisecond) {
			if m, _ := filepath.Glob(filepath.Join(dir, "run", ".out.jsonl.tmp-*")); len(m) > 0 {
				break
			}
		}
		cmd.Process.Signal(syscall.SIGTERM)
		if code := waitCLI(t, cmd); code != 1 || !strings.Contains(stderr.String(), "interrupted; no output written") {
			t.Fatalf("exit %d, stderr %q; want 1 and interrupted", code, stderr)
		}
		if left, _ := os.ReadDir(filepath.Join(dir, "run")); len(left) != 0 {
			t.Errorf("an interrupted run left %v", left)
		}
	})
}
