//go:build linux && !race

package dataset

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// childDataLimit caps the data of the child process that runs a hostile
// file: the pipeline needs a few MiB for these files; a reader that
// trusted their sizes would ask for gigabytes and die.
const childDataLimit = 512 << 20

// TestHostileParquetRun runs the whole pipeline on each hostile file in a
// child process whose data is capped (RLIMIT_DATA), so that without the
// checks the test fails with the child's out-of-memory death instead of
// taking the machine down. The race detector's shadow memory cannot run
// under such a cap, hence the build constraint; TestHostileParquetRefused
// and TestParquetChecksWired run everywhere.
func TestHostileParquetRun(t *testing.T) {
	if path := os.Getenv("BH_HOSTILE_PARQUET"); path != "" {
		hostileChild(t, path)
		return
	}
	dir := t.TempDir()
	for _, tc := range hostileCases {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.build(t, dir)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHostileParquetRun$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "BH_HOSTILE_PARQUET="+path, "GOTRACEBACK=single")
			out, err := cmd.CombinedOutput()
			text := string(out)
			if err != nil || !strings.Contains(text, "REFUSED: ") || !strings.Contains(text, tc.refusal) {
				if len(text) > 3000 {
					text = text[:3000] + "..."
				}
				t.Fatalf("child on %s: %v\n%s", filepath.Base(path), err, text)
			}
		})
	}
}

func hostileChild(t *testing.T, path string) {
	lim := syscall.Rlimit{Cur: childDataLimit, Max: childDataLimit}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		t.Fatalf("setrlimit: %v", err)
	}
	out := filepath.Join(filepath.Dir(path), "out-"+filepath.Base(path)+".jsonl")
	st, err := Run(context.Background(), Config{Inputs: []string{path}, Output: out, Force: true})
	if err == nil {
		t.Fatalf("accepted: %+v", st)
	}
	fmt.Printf("REFUSED: %v\n", err)
}
