package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/beamharmony/harmony/internal/buildinfo"
	"github.com/beamharmony/harmony/internal/split"
	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

// badLine is a row that is rejected.
var badLine = []byte(`{"messages": [{"role": "wizard", "content": "x"}]}`)

// mixedInput writes good rows with every tenth one bad.
func mixedInput(t *testing.T, path string, n int) {
	t.Helper()
	lines := repeatLines(validLine, n)
	for i := 0; i < n; i += 10 {
		lines[i] = badLine
	}
	writeInput(t, path, lines)
}

// failOn returns a wrapFile that fails the file at path after n bytes.
func failOn(path string, n int) func(string, io.Writer) io.Writer {
	return func(p string, w io.Writer) io.Writer {
		if p != path {
			return w
		}
		return &failingWriter{w: w, n: n}
	}
}

// TestCommitIsOneUnit: when writing any of the output, the rejects file,
// the stats file or the manifest fails, none of them is left under its
// name, and the error names the file (issue 17: a full disk while writing
// the rejects left the output in place and the rejects nowhere; an
// unwritable --stats left the output and manifest in place after "no
// output written").
func TestCommitIsOneUnit(t *testing.T) {
	for _, failing := range []string{"out.parquet", "out.rejects.jsonl", "stats.json", "out.manifest.json"} {
		t.Run(failing, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(t.TempDir(), "in.jsonl")
			mixedInput(t, in, 1000)
			c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.parquet"), Stats: filepath.Join(dir, "stats.json"),
				MaxRejects: mustLimit(t, "100%"), wrapFile: failOn(filepath.Join(dir, failing), 10)}
			_, err := Run(context.Background(), c)
			if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), filepath.Join(dir, failing)) {
				t.Fatalf("error %v; want ENOSPC naming %s", err, failing)
			}
			if failing == "stats.json" {
				// The stats file of a failed run records the error; its
				// own failure leaves nothing.
				noOutputs(t, dir)
				return
			}
			data, rerr := os.ReadFile(c.Stats)
			var st Stats
			if rerr != nil || json.Unmarshal(data, &st) != nil || st.Error != err.Error() {
				t.Fatalf("stats of the failed run: %s (%v)", data, rerr)
			}
			os.Remove(c.Stats)
			noOutputs(t, dir)
		})
	}
	t.Run("stats in a missing directory", func(t *testing.T) {
		dir := t.TempDir()
		in := filepath.Join(t.TempDir(), "in.jsonl")
		mixedInput(t, in, 100)
		c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), Stats: filepath.Join(dir, "nope", "stats.json")}
		st, err := Run(context.Background(), c)
		if err == nil || !strings.Contains(err.Error(), "stats file "+c.Stats) || st.RowsRead != 0 {
			t.Fatalf("error %v after %d rows; want the stats file refused before any row", err, st.RowsRead)
		}
		noOutputs(t, dir)
	})
}

func mustLimit(t *testing.T, s string) RejectLimit {
	t.Helper()
	l, err := ParseRejectLimit(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestParseRejectLimit(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{"1%", "1%", false}, {"0.5%", "0.5%", false}, {"100%", "100%", false}, {"0%", "0%", false},
		{"0", "0", false}, {"250", "250", false}, {" 3 ", "3", false},
		{"101%", "", true}, {"-1", "", true}, {"-1%", "", true}, {"x", "", true}, {"1.5", "", true}, {"NaN%", "", true}, {"", "", true},
	} {
		l, err := ParseRejectLimit(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && l.String() != tc.want) {
			t.Errorf("ParseRejectLimit(%q) = %v, %v; want %q (error %v)", tc.in, l, err, tc.want, tc.bad)
		}
	}
	if (RejectLimit{}).String() != "1%" {
		t.Errorf("the zero limit is %s, want the default 1%%", RejectLimit{})
	}
}

// TestMaxRejects: a run that rejects more than --max-rejects (a count or
// a percentage; 1% by default; 100% never on rejects alone), or writes none of the
// rows it read, completes with its files in place and Failed set; the
// stats and the manifest record the limit and the decision, and a rerun
// that finds the part complete decides again with its own limit (issue
// 18, item 2).
func TestMaxRejects(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	mixedInput(t, in, 100) // 10 bad rows of 100
	allBad := filepath.Join(t.TempDir(), "bad.jsonl")
	writeInput(t, allBad, repeatLines(badLine, 5))
	tests := []struct {
		input, limit string
		failed       bool
		outcome      string
	}{
		{in, "", true, "failed: 10 of 100 rows rejected (10%), more than --max-rejects 1%"},
		{in, "10%", false, "ok"},
		{in, "9.9%", true, "failed: 10 of 100 rows rejected (10%), more than --max-rejects 9.9%"},
		{in, "10", false, "ok"},
		{in, "9", true, "failed: 10 of 100 rows rejected (10%), more than --max-rejects 9"},
		{in, "100%", false, "ok"},
		{allBad, "100", true, "failed: none of the 5 rows read was written"},
		{allBad, "100%", true, "failed: none of the 5 rows read was written"}, // whatever the limit
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.input)+" "+tc.limit, func(t *testing.T) {
			dir := t.TempDir()
			c := Config{Inputs: []string{tc.input}, Output: filepath.Join(dir, "out.jsonl"), Stats: filepath.Join(dir, "stats.json")}
			if tc.limit != "" {
				c.MaxRejects = mustLimit(t, tc.limit)
			}
			st, err := Run(context.Background(), c)
			if err != nil || st.Failed != tc.failed || st.Outcome != tc.outcome {
				t.Fatalf("Run: %v, failed %v %q; want %v %q", err, st.Failed, st.Outcome, tc.failed, tc.outcome)
			}
			var man Manifest
			data, _ := os.ReadFile(ManifestPath(c.Output))
			if json.Unmarshal(data, &man) != nil || man.Outcome != tc.outcome || man.MaxRejects != c.MaxRejects.String() {
				t.Errorf("manifest %s; want outcome %q and max_rejects %s", data, tc.outcome, c.MaxRejects)
			}
			var sj Stats
			data, _ = os.ReadFile(c.Stats)
			if json.Unmarshal(data, &sj) != nil || sj.Outcome != tc.outcome || sj.Failed != tc.failed {
				t.Errorf("stats %s; want outcome %q", data, tc.outcome)
			}
			if _, err := os.Stat(c.Output); err != nil {
				t.Errorf("the output of a completed run is missing: %v", err)
			}
		})
	}
	t.Run("rerun decides again", func(t *testing.T) {
		dir := t.TempDir()
		c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl")}
		if st, err := Run(context.Background(), c); err != nil || !st.Failed {
			t.Fatalf("first run: %v, %+v", err, st)
		}
		c.MaxRejects = mustLimit(t, "20%")
		st, err := Run(context.Background(), c)
		if !errors.Is(err, ErrUpToDate) || st.Failed || st.RowsRejected != 10 || st.RowsRead != 100 {
			t.Fatalf("rerun with 20%%: %v, %+v; want skipped and ok", err, st)
		}
		c.MaxRejects = RejectLimit{}
		if st, err = Run(context.Background(), c); !errors.Is(err, ErrUpToDate) || !st.Failed {
			t.Fatalf("rerun with the default: %v, %+v; want skipped and failed", err, st)
		}
	})
}

// TestRejectsCapped: a reject echoes at most RejectRowBytes of its row,
// and the rejects file stops at MaxRejectsBytes, the rest counted (issue
// 17: 6 KB of gzip gave 262 MB of rejects).
func TestRejectsCapped(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	long := []byte(`{"messages": [{"role": "wizard", "content": "` + strings.Repeat("y", 3*RejectRowBytes) + `"}]}`)
	lines := append([][]byte{long}, repeatLines(badLine, 999)...)
	writeInput(t, in, lines)
	c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), MaxRejects: mustLimit(t, "100%"), MaxRejectsBytes: 100 << 10}
	st, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(DefaultRejectsPath(c.Output))
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) > c.MaxRejectsBytes {
		t.Errorf("rejects file of %d bytes, past the cap of %d", len(data), c.MaxRejectsBytes)
	}
	lines = splitLines(data)
	if st.RowsRejected != 1000 || st.RejectsNotWritten != 1000-int64(len(lines)) || st.RejectsNotWritten == 0 {
		t.Errorf("%d rejected, %d lines written, %d counted as not written", st.RowsRejected, len(lines), st.RejectsNotWritten)
	}
	var first struct {
		Row      string `json:"row"`
		RowBytes int    `json:"row_bytes"`
	}
	if err := json.Unmarshal(lines[0], &first); err != nil || len(first.Row) != RejectRowBytes || first.RowBytes != len(long) {
		t.Errorf("the long row's reject: %d bytes of row, row_bytes %d (%v); want %d and %d", len(first.Row), first.RowBytes, err, RejectRowBytes, len(long))
	}
	var man Manifest
	data, _ = os.ReadFile(ManifestPath(c.Output))
	if json.Unmarshal(data, &man) != nil || man.RejectsNotWritten != st.RejectsNotWritten {
		t.Errorf("manifest %s; want rejects_not_written %d", data, st.RejectsNotWritten)
	}
}

func splitLines(data []byte) [][]byte {
	var out [][]byte
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if l != "" {
			out = append(out, []byte(l))
		}
	}
	return out
}

// TestRefusesReadOnlyFiles: an existing output, rejects, stats or
// manifest file that the user could not write is not replaced, nor what
// is not a regular file; the permission bits decide, also for root
// (issue 17: -o replaced another user's read-only file when the directory
// was writable).
func TestRefusesReadOnlyFiles(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.jsonl")
	writeInput(t, in, repeatLines(validLine, 3))
	for _, name := range []string{"out.jsonl", "out.rejects.jsonl", "stats.json", "out.manifest.json"} {
		t.Run(name+" 0444", func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, name)
			os.WriteFile(p, []byte("keep"), 0o444)
			_, err := Run(context.Background(), Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), Stats: filepath.Join(dir, "stats.json")})
			if !errors.Is(err, errNotReplaceable) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "mode 0444") {
				t.Fatalf("error %v; want %s refused", err, name)
			}
			if data, _ := os.ReadFile(p); string(data) != "keep" {
				t.Errorf("%s now holds %q", name, data)
			}
		})
	}
	t.Run("another user's file", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("chown needs root")
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "out.jsonl")
		os.WriteFile(p, []byte("keep"), 0o644)
		if err := os.Chown(p, 54321, 54321); err != nil {
			t.Fatal(err)
		}
		_, err := Run(context.Background(), Config{Inputs: []string{in}, Output: p})
		if !errors.Is(err, errNotReplaceable) || !strings.Contains(err.Error(), "owned by uid 54321") {
			t.Fatalf("error %v; want the other user's file refused", err)
		}
		os.Chmod(p, 0o646) // writable by others: replaced
		if _, err := Run(context.Background(), Config{Inputs: []string{in}, Output: p}); err != nil {
			t.Fatalf("a file others may write: %v", err)
		}
	})
	t.Run("a directory", func(t *testing.T) {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "out.rejects.jsonl"), 0o755)
		_, err := Run(context.Background(), Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl")})
		if !errors.Is(err, errNotReplaceable) || !strings.Contains(err.Error(), "not a regular file (a directory)") {
			t.Fatalf("error %v; want the directory refused", err)
		}
	})
	t.Run("a writable file is replaced", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "out.jsonl")
		os.WriteFile(p, []byte("old"), 0o600)
		if _, err := Run(context.Background(), Config{Inputs: []string{in}, Output: p}); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(p); string(data) == "old" {
			t.Error("the output was not replaced")
		}
	})
}

// runBounded runs Run in a goroutine and fails the test, instead of
// hanging, when it does not return within a generous bound.
func runBounded(t *testing.T, c Config) (*Stats, error) {
	t.Helper()
	type result struct {
		st  *Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := Run(context.Background(), c)
		done <- result{st, err}
	}()
	select {
	case r := <-done:
		return r.st, r.err
	case <-time.After(time.Minute):
		t.Fatal("Run blocked")
		return nil, nil
	}
}

// TestFIFOsRefused: a FIFO where a file is expected (an input, the
// manifest read back for a rerun) is an error, not an open that blocks
// until a writer comes, through which SIGTERM went unheard (issue 17).
func TestFIFOsRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	writeInput(t, in, repeatLines(validLine, 3))
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("manifest", func(t *testing.T) {
		man := fifo("out.manifest.json")
		defer os.Remove(man)
		_, err := runBounded(t, Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl")})
		if err == nil || !strings.Contains(err.Error(), man) || !strings.Contains(err.Error(), "a named pipe") {
			t.Fatalf("error %v; want the FIFO manifest refused", err)
		}
	})
	for _, name := range []string{"fifo.jsonl", "fifo.parquet", "fifo.jsonl.gz"} {
		t.Run("input "+name, func(t *testing.T) {
			p := fifo(name)
			defer os.Remove(p)
			_, err := runBounded(t, Config{Inputs: []string{p}, Output: filepath.Join(dir, "o.jsonl")})
			if err == nil || !strings.Contains(err.Error(), p+": not a regular file (a named pipe)") {
				t.Fatalf("error %v; want the FIFO input refused", err)
			}
		})
	}
}

// TestVersionRecorded: the Parquet output's created_by and the manifest
// name the build (internal/buildinfo).
func TestVersionRecorded(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	writeInput(t, in, repeatLines(validLine, 3))
	out := filepath.Join(dir, "out.parquet")
	if _, err := Run(context.Background(), Config{Inputs: []string{in}, Output: out}); err != nil {
		t.Fatal(err)
	}
	bi := buildinfo.Read()
	if got := parquetFooter(t, out).createdBy; got != bi.CreatedBy() || !strings.Contains(got, bi.Version) {
		t.Errorf("created_by %q, want %q", got, bi.CreatedBy())
	}
	var man Manifest
	data, _ := os.ReadFile(ManifestPath(out))
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	if man.Tool.Version != bi.Version || man.Tool.GoVersion != bi.GoVersion || man.Tool.Module != bi.Module || man.Tool.Commit != bi.Commit {
		t.Errorf("manifest tool %+v, want %s", man.Tool, bi)
	}
	if !strings.Contains(string(data), fmt.Sprintf(`"go_version": %q`, bi.GoVersion)) {
		t.Errorf("manifest %s lacks go_version", data)
	}
}

// TestSlowSplitPatternRejectsRow: with a tokenizer whose split pattern
// backtracks too long on a row's text, the row is rejected with the
// tokenizer's error and the run goes on (issue 17).
func TestSlowSplitPatternRejectsRow(t *testing.T) {
	const slow = `[ab]*[ac]*[ad]*[ae]*[af]*[ag]*z|\s+|[^\sa]+`
	tok, err := tokenizer.New(tokgen.SplitPattern(slow), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { split.MaxMatchTime = d }(split.MaxMatchTime)
	split.MaxMatchTime = 50 * time.Millisecond
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	hostile := `{"messages": [{"role": "user", "content": "z` + strings.Repeat("a", 200) + `c"}]}`
	writeInput(t, in, [][]byte{validLine, []byte(hostile), validLine})
	c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), Render: RenderTokens(tok), Tokens: true, MaxRejects: mustLimit(t, "100%")}
	st, err := runBounded(t, c)
	if err != nil || st.RowsWritten != 2 || st.RowsRejected != 1 {
		t.Fatalf("Run: %v, %+v; want the hostile row rejected", err, st)
	}
	for k := range st.RejectsByError {
		if !strings.Contains(k, "took too long") {
			t.Errorf("reject reason %q, want the split pattern's timeout", k)
		}
	}
}
