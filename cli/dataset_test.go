package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/dataset/benchdata"
	"github.com/beamharmony/harmony/tokenizer"
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
		{"runs, one reject", []string{"dataset", "-o", out, "--id-column", "id", "--stats", stats, "--max-rejects", "50%", in}, 0, "2 rows read: 1 written, 1 rejected"},
		{"rerun is skipped", []string{"dataset", "-o", out, "--id-column", "id", "--stats", stats, "--max-rejects", "1", in}, 0, "nothing to do"},
		{"rerun past the default limit", []string{"dataset", "-o", out, "--id-column", "id", "--stats", stats, in}, 1,
			"nothing to do (--force runs again)\nbeamharmony dataset: failed: 1 of 2 rows rejected (50%), more than --max-rejects 1%\n"},
		{"bad limit", []string{"dataset", "-o", out, "--max-rejects", "101%", in}, 2, "--max-rejects"},
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
	if code != 0 || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "beamharmony dataset -o") {
		t.Fatalf("code %d, help %q", code, stdout)
	}
}

// TestDatasetTokenizer: --tokenizer DIR writes TRL's columns, equal to
// RenderTokens; --max-tokens and --truncate limit them; a tokenizer change
// is not skipped as up to date.
func TestDatasetTokenizer(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../tokenizer/testdata/gpt2/tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	data, err = benchdata.WithMarkers(data)
	if err != nil {
		t.Fatal(err)
	}
	tokDir := filepath.Join(dir, "tok")
	os.Mkdir(tokDir, 0o755)
	os.WriteFile(filepath.Join(tokDir, "tokenizer.json"), data, 0o644)
	tok, err := tokenizer.Load(tokDir)
	if err != nil {
		t.Fatal(err)
	}
	good := `{"messages": [{"role": "user", "content": "Hi there"}, {"role": "assistant", "content": "Hello!", "reasoning_content": "greet"}]}`
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(good+"\n"), 0o644)
	req, _ := harmony.ParseRequest([]byte(good))
	req.AddGenerationPrompt = false
	want, err := req.RenderTokens(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) (ids, masks []int, n int) {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var row struct {
			InputIDs       []int `json:"input_ids"`
			AssistantMasks []int `json:"assistant_masks"`
			NumTokens      int   `json:"num_tokens"`
		}
		if err := json.Unmarshal(data, &row); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		return row.InputIDs, row.AssistantMasks, row.NumTokens
	}
	out := filepath.Join(dir, "train.jsonl")
	if _, stderr, code := runCLI(t, "", "dataset", "--tokenizer", tokDir, "-o", out, in); code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	ids, masks, n := read(out)
	if !slices.Equal(ids, want.InputIDs) || !slices.Equal(masks, want.AssistantMasks) || n != len(want.InputIDs) {
		t.Fatalf("tokens differ from RenderTokens")
	}
	limit := strconv.Itoa(len(want.InputIDs) - 3)
	cut := filepath.Join(dir, "cut.jsonl")
	if _, stderr, code := runCLI(t, "", "dataset", "--tokenizer", tokDir, "--max-tokens", limit, "--truncate", "-o", cut, in); code != 0 || !strings.Contains(stderr, "1 truncated") {
		t.Fatalf("code %d: %s", code, stderr)
	}
	ids, masks, n = read(cut)
	if !slices.Equal(ids, want.InputIDs[:len(ids)]) || !slices.Equal(masks, want.AssistantMasks[:len(ids)]) || n != len(want.InputIDs)-3 || len(ids) != n {
		t.Fatalf("truncated tokens: %d ids, num_tokens %d", len(ids), n)
	}
	if _, stderr, code := runCLI(t, "", "dataset", "--tokenizer", tokDir, "--max-tokens", limit, "-o", filepath.Join(dir, "rej.jsonl"), in); code != 1 ||
		!strings.Contains(stderr, "0 written, 1 rejected") || !strings.Contains(stderr, "failed: none of the 1 rows read was written") {
		t.Fatalf("code %d: %s", code, stderr)
	}
	// Another tokenizer file: the output is made again.
	os.WriteFile(filepath.Join(tokDir, "tokenizer_config.json"), []byte(`{}`), 0o644)
	if _, stderr, code := runCLI(t, "", "dataset", "--tokenizer", tokDir, "-o", out, in); code != 0 || strings.Contains(stderr, "nothing to do") {
		t.Fatalf("a changed tokenizer should run again: code %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"dataset", "--max-tokens", "5", "-o", out, in},
		{"dataset", "--tokenizer", tokDir, "--truncate", "-o", out, in},
	} {
		if _, _, code := runCLI(t, "", args...); code != 2 {
			t.Fatalf("%v: code %d, want 2", args, code)
		}
	}
	if _, stderr, code := runCLI(t, "", "dataset", "--tokenizer", filepath.Join(dir, "none"), "-o", out, in); code != 1 || !strings.Contains(stderr, "--tokenizer") {
		t.Fatalf("a missing tokenizer: code %d: %s", code, stderr)
	}
}

// TestDatasetMissingReasoning: rows with assistant turns without reasoning
// are rejected by default (here every row, so the run fails: exit 1, none
// written), rendered with --allow-missing-thinking; the summary counts the
// turns either way, and lint warns on them (issue 18, items 2 and 3).
func TestDatasetMissingReasoning(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	row := `{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]}`
	os.WriteFile(in, []byte(strings.Repeat(row+"\n", 20)), 0o644)
	_, stderr, code := runCLI(t, "", "dataset", "-o", filepath.Join(dir, "a.jsonl"), in)
	for _, want := range []string{"20 rows read: 0 written, 20 rejected\n",
		"20 assistant turns without reasoning in 20 rows: rows rejected",
		"beamharmony dataset: failed: none of the 20 rows read was written\n"} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Fatalf("default: code %d, stderr %q; want 1 and %q", code, stderr, want)
		}
	}
	_, stderr, code = runCLI(t, "", "dataset", "--allow-missing-thinking", "-o", filepath.Join(dir, "b.jsonl"), in)
	if code != 0 || !strings.Contains(stderr, "20 assistant turns without reasoning in 20 rows: rendered as empty analysis messages (--allow-missing-thinking)") {
		t.Fatalf("allowed: code %d, stderr %q", code, stderr)
	}
	out, _, code := runCLI(t, row, "lint")
	if code != 3 || !strings.HasPrefix(out, "messages[1]: this assistant turn has no reasoning") || strings.Count(out, "\n") != 1 {
		t.Fatalf("lint: code %d, output %q; want one warning and 3", code, out)
	}
}

// TestRenderDecodesStringArguments: render and lint read a call's
// arguments sent as a JSON string holding an object, and refuse one that
// holds something else, saying what (issue 18, item 1).
func TestRenderDecodesStringArguments(t *testing.T) {
	req := `{"messages": [{"role": "user", "content": "Weather?"}, {"role": "assistant", "reasoning_content": "R", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "w", "arguments": "{\"city\": \"Paris\"}"}}]}, {"role": "tool", "tool_call_id": "c", "content": "sun"}], "tools": "[{\"type\": \"function\", \"function\": {\"name\": \"w\"}}]"}`
	out, stderr, code := runCLI(t, req, "render")
	if code != 0 || !strings.Contains(out, "\nParis\n") || !strings.Contains(out, "type w = () => any;") {
		t.Fatalf("render: code %d, stderr %q, output %q", code, stderr, out)
	}
	if out, stderr, code := runCLI(t, req, "lint"); code != 0 || out != "" {
		t.Fatalf("lint: code %d, stdout %q, stderr %q", code, out, stderr)
	}
	bad := strings.Replace(req, `"{\"city\": \"Paris\"}"`, `"Paris"`, 1)
	_, stderr, code = runCLI(t, bad, "render")
	if code != 1 || !strings.Contains(stderr, "messages[1].tool_calls[0].function.arguments: not valid JSON (at byte 0 of the string") {
		t.Fatalf("render of a string that holds no JSON: code %d, stderr %q", code, stderr)
	}
}

// TestDatasetStreams: INPUT - reads JSONL from stdin (gzip or zstd by
// --input-format), and -o - writes JSONL to stdout as the library renders
// it, the summary on stderr; rejects go only to --rejects (issue 18, item
// 4).
func TestDatasetStreams(t *testing.T) {
	dir := t.TempDir()
	good := `{"id": 7, "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello", "reasoning_content": "greet"}]}`
	input := good + "\n{\"id\": 8}\n" + good + "\n"
	req, err := harmony.ParseRequest([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	req.AddGenerationPrompt = false
	p, err := req.RenderPrompt()
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	enc := json.NewEncoder(&text)
	enc.SetEscapeHTML(false)
	enc.Encode(p.Text)
	row := `{"id": 7, "text": ` + strings.TrimSpace(text.String()) + `, "assistant_spans": [[` + strconv.Itoa(p.CharSpans()[0].Start) + `, ` + strconv.Itoa(p.CharSpans()[0].End) + `]]}` + "\n"

	stdout, stderr, code := runCLI(t, input, "dataset", "--id-column", "id", "--max-rejects", "50%", "-o", "-", "-")
	if code != 0 || stdout != row+row || !strings.Contains(stderr, "3 rows read: 2 written, 1 rejected") ||
		!strings.Contains(stderr, "rejects: not written (the output is stdout; --rejects FILE writes them)") {
		t.Fatalf("code %d\nstdout %q\nwant %q\nstderr %q", code, stdout, row+row, stderr)
	}
	rej := filepath.Join(dir, "rej.jsonl")
	if _, stderr, code := runCLI(t, input, "dataset", "--max-rejects", "50%", "--rejects", rej, "-o", "-", "-"); code != 0 || !strings.Contains(stderr, "rejects: "+rej) {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	if data, err := os.ReadFile(rej); err != nil || !strings.Contains(string(data), `"source": "-", "line": 2`) {
		t.Fatalf("rejects %s (%v)", data, err)
	}

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(input))
	zw.Close()
	out := filepath.Join(dir, "out.jsonl")
	if _, stderr, code := runCLI(t, gz.String(), "dataset", "--input-format", "jsonl.gz", "--id-column", "id", "--max-rejects", "50%", "-o", out, "-"); code != 0 {
		t.Fatalf("gzip stdin: code %d, stderr %q", code, stderr)
	}
	if data, _ := os.ReadFile(out); string(data) != row+row {
		t.Fatalf("output %q", data)
	}
	// A rerun from stdin is never skipped: its input can't be compared.
	if _, stderr, code := runCLI(t, gz.String(), "dataset", "--input-format", "jsonl.gz", "--id-column", "id", "--max-rejects", "50%", "-o", out, "-"); code != 0 || strings.Contains(stderr, "nothing to do") {
		t.Fatalf("gzip stdin rerun: code %d, stderr %q", code, stderr)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"dataset", "-o", "-", "-", "-"}, "standard input can be read once"},
		{[]string{"dataset", "--input-format", "parquet", "-o", "-", "-"}, "Parquet can't be read from standard input"},
		{[]string{"dataset", "--input-format", "csv", "-o", "-", "-"}, `input format "csv"`},
		{[]string{"dataset", "--rejects", "-", "-o", out, "-"}, "rejects file: - (standard output) is for the output only"},
		{[]string{"dataset", "-o", "ftp://host/x.jsonl", "-"}, `unknown scheme "ftp"`},
		{[]string{"dataset", "-o", "s3://bucket/", "-"}, "want s3://BUCKET/KEY"},
	} {
		if _, stderr, code := runCLI(t, input, tt.args...); code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: code %d, stderr %q; want 1 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestDatasetMemoryLimit: a run's soft memory limit is what the process
// holds plus the pipeline's budget (at least minDatasetMemoryLimit), put
// back after the run; GOMEMLIMIT, when set, is left alone (issue 18, item
// 5).
func TestDatasetMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Setenv("GOMEMLIMIT", "")
	restore := setDatasetMemoryLimit(2)
	got := debug.SetMemoryLimit(-1)
	restore()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if got < minDatasetMemoryLimit || got > int64(ms.HeapAlloc)+datasetMemoryBudget+2*datasetWorkerBudget+256<<20 {
		t.Fatalf("limit %d MB with %d MB of heap; want at least %d MB and about the heap plus %d MB", got>>20, ms.HeapAlloc>>20,
			minDatasetMemoryLimit>>20, (datasetMemoryBudget+2*datasetWorkerBudget)>>20)
	}
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Fatalf("the limit after the run is %d, was %d", after, before)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = setDatasetMemoryLimit(2)
	got = debug.SetMemoryLimit(-1)
	restore()
	if got != before {
		t.Fatalf("with GOMEMLIMIT set the limit became %d", got)
	}
}

// A tokenizer without the format's markers is refused once, at start, not
// row by row.
func TestDatasetTokenizerWithoutMarkers(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	row := `{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!", "reasoning_content": "greet"}]}` + "\n"
	os.WriteFile(in, []byte(strings.Repeat(row, 5)), 0o644)
	_, stderr, code := runCLI(t, "", "dataset", "--tokenizer", "../tokenizer/testdata/gpt2", "-o", filepath.Join(dir, "out.jsonl"), in)
	if code != 1 || !strings.Contains(stderr, "the tokenizer has no token for a marker of the format: <|start|>") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.jsonl")); err == nil {
		t.Error("an output was written")
	}
}

// Object paths are beamharmony-cloud's: this build refuses them in one
// line that says how to get it, before reading or writing anything.
func TestDatasetObjectPathNeedsCloud(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(`{"messages": [{"role": "user", "content": "Hi"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"dataset", "-o", "s3://bucket/out.jsonl", in},
		{"dataset", "-o", filepath.Join(dir, "out.jsonl"), "gs://bucket/in.jsonl"},
		{"dataset", "-o", filepath.Join(dir, "out.jsonl"), "azblob://container/in-*.jsonl"},
	} {
		_, stderr, code := runCLI(t, "", args...)
		if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "cd cloud && go install ./cmd/beamharmony-cloud") {
			t.Errorf("%q: exit %d, stderr %q; want 1 and one line naming beamharmony-cloud", args, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.jsonl")); err == nil {
		t.Error("an output was written")
	}
}
