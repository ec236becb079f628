package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/dataset"
	"github.com/beamharmony/harmony/internal/syntax"
	"github.com/beamharmony/harmony/tokenizer"
)

func init() {
	extraCommands = append(extraCommands, command{"dataset", "render conversation datasets (JSONL, Parquet) for training", Program.runDataset})
}

const datasetHelp = `
Usage: beamharmony dataset [--tokenizer PATH] -o OUT [--rejects FILE] [flags] INPUT...

Render every row of conversation datasets for training, in order, one
output row per input row. Inputs are .jsonl, .jsonl.gz, .jsonl.zst or
.parquet files whose rows are render requests ({"messages": [...], "tools":
[...], "reasoning_effort": ...}); Parquet as the Hugging Face datasets
library writes it (messages a list of structs; tools a list of structs or a
JSON string). add_generation_prompt is always false. A call's arguments
may be a JSON string holding an object, as OpenAI sends them.

In beamharmony-cloud, this command with object storage (cd cloud && go
install ./cmd/beamharmony-cloud in a clone), any path may be an object in a
bucket: s3://BUCKET/KEY, gs://BUCKET/KEY or azblob://CONTAINER/KEY, with the Go CDK's URL parameters as a query
(?region=..., ?endpoint=...&use_path_style=true for an S3-compatible
store), and the clouds' usual credentials (AWS_* variables or profiles,
Google's application default credentials, AZURE_STORAGE_ACCOUNT with
AZURE_STORAGE_KEY or Azure's default credentials). An object is uploaded
by one upload completed only when the run completes: a failed run leaves
no object under the name. INPUT - reads JSONL from stdin (--input-format
jsonl.gz or jsonl.zst for a compressed stream), and -o - writes JSONL to
stdout as the run goes, with no manifest, and the rejects only to
--rejects FILE (counted either way); the summary goes to stderr.

The output's extension picks its format: .jsonl, .jsonl.gz, .jsonl.zst or
.parquet. Its columns are text and assistant_spans (character offsets, end
exclusive, as "render --spans" gives) or, with --tokenizer, input_ids,
assistant_masks and num_tokens (what apply_chat_template(..., tokenize=True,
return_assistant_tokens_mask=True) gives; TRL reads the first two), after
the --id-column when one is carried (keeping its type: JSONL as it is;
Parquet int64 for integer ids, a string for string ids, and a mix, or an
id of another kind, an error naming the row). --max-tokens N rejects longer rows, or
with --truncate cuts them (ids and masks alike).

An assistant turn without reasoning (an answer or a tool call) would
train the model on an empty analysis message, which Beam never writes: its
row is rejected, the reason naming the message, unless
--allow-missing-thinking renders it as the template does. Either way the
summary, --stats and the manifest count such turns and their rows. The
rows' own allow_missing_thinking does not change this (without a
generation prompt the template ignores it).

A key of a row that render does not read (a misspelt tools, a message's
weight, a tool's misspelt parameters) changes nothing in its output: the
summary, --stats and the manifest count the rows holding each kind
(unknown_keys), named by its path as lint names it (messages[].weight).

A row that does not render goes to the rejects file (by default OUT's name
with .rejects.jsonl in place of its extension), one JSON object per line:
{"source": FILE, "line": N (or "row_index": N for Parquet), "error": ...,
"row": the row}. The run goes on; --strict stops at the first. Rows written
plus rows rejected always equal rows read. A summary goes to stderr at the
end; --stats FILE writes it as JSON.

A reject echoes at most 64 KiB of its row (a longer row is its first
64 KiB as a string, with "row_bytes"); the rejects file holds at most
--max-rejects-bytes (default 64 MiB), and rejects past it are counted in
the summary but not written.

The output, the rejects file, --stats and OUT's .manifest.json are written
to temporary files and put in place together when the run completes, the
manifest last; if the run fails none of them is left under its name (but
--stats, which then records the error). The manifest records the inputs,
options, counts, the output's sha256 and the beamharmony version. Run
again with the same arguments and a complete output is skipped (the exit
status is decided again with the new --max-rejects). --shard K/N takes
every N-th unit of work (a JSONL file or a Parquet row group) starting at
unit K (0-based), for N machines that each write their own part. An
existing output, rejects, stats or manifest file is replaced only when it
is a regular file you could write.

Exit status: 0 when the run succeeds; 1 when it cannot complete
(unreadable input, unwritable output, --strict and a bad row, a signal),
or when it completes but rows were read and none written, or the rejects
pass --max-rejects (a count such as 0 or 250, or a percentage of the rows
read such as 1%, the default; 100% never fails on rejects alone): then the files are in
place, for a look at the rejects, and the summary and the manifest say
why; 2 for bad flags.

Examples:

  beamharmony dataset -o train.jsonl --id-column id data/*.jsonl.zst
  beamharmony dataset --tokenizer DIR --max-tokens 8192 -o train.parquet data/*.parquet
  zstdcat logs.jsonl.zst | beamharmony dataset -o - - | head
  beamharmony-cloud dataset --shard 3/16 -o s3://bucket/out/part-3.parquet s3://bucket/in/a.parquet
`

func (p Program) runDataset(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("dataset", datasetHelp, stdout, stderr)
	var c dataset.Config
	fs.StringVar(&c.Output, "o", "", "the output file: .jsonl, .jsonl.gz, .jsonl.zst or .parquet, an s3://, gs:// or azblob:// object (beamharmony-cloud), or - for JSONL on stdout (required)")
	fs.StringVar(&c.InputFormat, "input-format", "", "the format of every input whatever its name: jsonl, jsonl.gz, jsonl.zst or parquet (- is jsonl unless this says jsonl.gz or jsonl.zst)")
	fs.StringVar(&c.Rejects, "rejects", "", "the rejects file (default: OUT with .rejects.jsonl in place of its extension)")
	fs.StringVar(&c.Stats, "stats", "", "write the run's statistics to `FILE` as JSON")
	fs.StringVar(&c.MessagesColumn, "messages-column", "messages", "the input column that holds the messages")
	fs.StringVar(&c.ToolsColumn, "tools-column", "tools", "the input column that holds the tools")
	fs.StringVar(&c.MessagesFormat, "messages-format", dataset.FormatOpenAI, "the messages' shape: openai ({\"role\", \"content\"}) or sharegpt ({\"from\", \"value\"}, with a row's system column; docs/dataset.md)")
	fs.StringVar(&c.IDColumn, "id-column", "", "an input column to carry into the output, before the rendered columns")
	effort := fs.String("reasoning-effort", "", "the effort for rows that set none: a label (minimal .. max) or an integer")
	fs.IntVar(&c.Workers, "workers", 0, "rendering goroutines (default GOMAXPROCS)")
	shard := fs.String("shard", "", "take every N-th unit of work starting at unit K (`K/N`, 0 <= K < N)")
	fs.BoolVar(&c.Strict, "strict", false, "stop at the first bad row (exit 1) instead of rejecting it")
	fs.BoolVar(&c.ThinkTags, "think-tags", false, "read an assistant message's leading <think>...</think> as its reasoning when it has none (DeepSeek-R1 and Qwen3 style datasets)")
	fs.BoolVar(&c.AllowMissingThinking, "allow-missing-thinking", false, "render assistant turns without reasoning as the template does (an empty analysis message) instead of rejecting their rows")
	fs.IntVar(&c.MaxRowBytes, "max-row-bytes", dataset.DefaultMaxRowBytes, "reject JSONL lines longer than this many bytes")
	fs.BoolVar(&c.Force, "force", false, "run even when the manifest shows the output complete")
	maxRejects := fs.String("max-rejects", dataset.RejectLimit{}.String(), "fail (exit 1) when the rejects pass this `LIMIT`: a count, or a percentage of the rows read (100%: never on rejects alone; a run that read rows and wrote none fails whatever the limit)")
	fs.Int64Var(&c.MaxRejectsBytes, "max-rejects-bytes", dataset.DefaultMaxRejectsBytes, "the rejects file's largest size; rejects past it are counted, not written")
	quiet := quietFlag(fs, "no progress bar and no summary")
	tokPath := fs.String("tokenizer", "", "write input_ids, assistant_masks and num_tokens, tokenized with this tokenizer.json (or a directory holding one)")
	fs.IntVar(&c.MaxTokens, "max-tokens", 0, "reject rows longer than this many tokens (needs --tokenizer)")
	fs.BoolVar(&c.Truncate, "truncate", false, "cut rows longer than --max-tokens instead of rejecting them; the masks are cut alike")
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	c.Inputs = files
	c.Stdin, c.Stdout = stdin, stdout
	if c.Output == "" {
		fmt.Fprintln(stderr, "beamharmony dataset: -o OUT is required; run beamharmony dataset --help")
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "beamharmony dataset: no INPUT files; run beamharmony dataset --help")
		return 2
	}
	if c.MaxTokens < 0 || ((c.MaxTokens > 0 || c.Truncate) && *tokPath == "") || (c.Truncate && c.MaxTokens == 0) {
		fmt.Fprintln(stderr, "beamharmony dataset: --max-tokens N (N > 0) counts tokens: it needs --tokenizer; --truncate needs --max-tokens")
		return 2
	}
	limit, err := dataset.ParseRejectLimit(*maxRejects)
	if err != nil {
		fmt.Fprintf(stderr, "beamharmony dataset: --max-rejects %v\n", err)
		return 2
	}
	c.MaxRejects = limit
	if c.MaxRejectsBytes <= 0 {
		fmt.Fprintln(stderr, "beamharmony dataset: --max-rejects-bytes must be positive")
		return 2
	}
	if *tokPath != "" {
		if w := standInWarning(*tokPath); w != "" && !*quiet {
			fmt.Fprintf(stderr, "beamharmony dataset: warning: %s\n", w)
		}
		tok, err := tokenizer.Load(*tokPath)
		if err != nil {
			return fail(stderr, "dataset", fmt.Errorf("--tokenizer: %w", err))
		}
		// A tokenizer without the format's markers would reject every
		// row alike: refused once, here.
		for _, mk := range syntax.Markers {
			if _, ok := tok.TokenToID(mk); !ok {
				return fail(stderr, "dataset", fmt.Errorf("--tokenizer %s: %w: %s; use the checkpoint's own tokenizer.json", *tokPath, harmony.ErrMarkerNotInVocabulary, mk))
			}
		}
		id, err := tokenizerID(*tokPath)
		if err != nil {
			return fail(stderr, "dataset", fmt.Errorf("--tokenizer: %w", err))
		}
		c.Render, c.Tokens, c.TokenizerID = dataset.RenderTokens(tok), true, id
	}
	if *effort != "" {
		e := harmony.EffortLabel(*effort)
		if n, err := strconv.Atoi(*effort); err == nil {
			e = harmony.Effort(n)
		}
		if _, err := e.Value(); err != nil {
			fmt.Fprintf(stderr, "beamharmony dataset: --reasoning-effort: %v\n", err)
			return 2
		}
		c.DefaultEffort = e
	}
	if *shard != "" {
		k, n, ok := strings.Cut(*shard, "/")
		var err1, err2 error
		c.Shard, err1 = strconv.Atoi(k)
		c.Shards, err2 = strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || c.Shards < 1 || c.Shard < 0 || c.Shard >= c.Shards {
			fmt.Fprintf(stderr, "beamharmony dataset: --shard %q: want K/N with 0 <= K < N, such as 0/4\n", *shard)
			return 2
		}
	}
	if f, ok := stderr.(*os.File); ok && !*quiet && isTerminal(f) {
		c.Progress = &progress{w: stderr}
	}

	c.OpenBucket = p.OpenBucket
	if c.OpenBucket == nil {
		c.OpenBucket = noObjectStorage
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer setDatasetMemoryLimit(c.Workers)()
	st, err := dataset.Run(ctx, c)
	if !*quiet {
		for _, w := range st.Warnings {
			fmt.Fprintf(stderr, "beamharmony dataset: warning: %s\n", w)
		}
	}
	switch {
	case errors.Is(err, dataset.ErrUpToDate):
		if !*quiet {
			fmt.Fprintf(stderr, "beamharmony dataset: %s is complete (%s matches); nothing to do (--force runs again)\n", c.Output, st.Manifest)
		}
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "beamharmony dataset: interrupted; no output written")
		return 1
	case err != nil:
		code := fail(stderr, "dataset", err)
		if !*quiet && st.RowsRead > 0 {
			fmt.Fprintln(stderr, "no output written; before the error:")
			st.WriteSummary(stderr, c.Tokens)
		}
		return code
	case !*quiet:
		st.WriteSummary(stderr, c.Tokens)
	}
	if st.Failed {
		// Said even with --quiet: the exit status needs its reason.
		fmt.Fprintf(stderr, "beamharmony dataset: %s\n", st.Outcome)
		return 1
	}
	return 0
}

// setDatasetMemoryLimit sets a soft memory limit for a run, unless
// GOMEMLIMIT sets one: what the process holds now (the tokenizer, most of
// it, which never becomes garbage) plus a budget for the pipeline (its
// batches in flight and the Parquet row group), at least
// minDatasetMemoryLimit. Without it the collector lets the heap grow to
// twice what is live, tokenizer included: about 230 MB of peak RSS for
// token output to Parquet instead of 180 (docs/benchmark-history.md). It returns the
// function that puts the old limit back.
func setDatasetMemoryLimit(workers int) func() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// The live heap and the runtime's own memory (what the limit counts
	// besides the heap: stacks, the collector's metadata).
	held := ms.HeapAlloc + ms.StackSys + ms.MSpanSys + ms.MCacheSys + ms.BuckHashSys + ms.GCSys + ms.OtherSys
	limit := int64(held) + datasetMemoryBudget + int64(workers)*datasetWorkerBudget
	old := debug.SetMemoryLimit(max(limit, minDatasetMemoryLimit))
	return func() { debug.SetMemoryLimit(old) }
}

// The pipeline's memory budget: batches in flight (a few per worker) and
// the Parquet row group.
const (
	datasetMemoryBudget   = 64 << 20
	datasetWorkerBudget   = 8 << 20
	minDatasetMemoryLimit = 128 << 20
)

// tokenizerID is the sha256 of the tokenizer's files, which the manifest
// records so that a rerun with another tokenizer is not skipped. The files
// are read as tokenizer.Load reads them (regular files, size caps).
func tokenizerID(path string) (string, error) {
	return tokenizer.Fingerprint(path)
}

// progress draws one line on a terminal: a bar of the input bytes done,
// the bytes, the rows and their rate, and the time left at that rate. It
// redraws at most every progressInterval and clears the line at the end.
type progress struct {
	w      io.Writer
	total  int64
	start  time.Time
	drawn  time.Time // when the line was last drawn
	width  int       // the length of the line last drawn, to clear it
	now    func() time.Time
	buffer []byte
}

// progressInterval is how often the line is redrawn at most.
const progressInterval = 200 * time.Millisecond

func (p *progress) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

func (p *progress) Start(total int64) {
	p.total, p.start = total, p.clock()
}

func (p *progress) Advance(done, rows int64) {
	now := p.clock()
	if !p.drawn.IsZero() && now.Sub(p.drawn) < progressInterval {
		return
	}
	p.drawn = now
	line := progressLine(done, p.total, rows, now.Sub(p.start))
	b := append(p.buffer[:0], '\r')
	b = append(b, line...)
	if pad := p.width - len(line); pad > 0 {
		b = append(b, strings.Repeat(" ", pad)...)
	}
	p.width = len(line)
	p.buffer = b
	p.w.Write(b)
}

func (p *progress) Finish() {
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}

// progressLine is the progress line's text: "rendering  42% [=====>     ]
// 1.2 MB / 2.9 MB, 1200 rows, 3000 rows/s, 1s left". An unknown total (0,
// a pipe) leaves out the bar, the percentage and the time left.
func progressLine(done, total, rows int64, elapsed time.Duration) string {
	const barWidth = 30
	var b strings.Builder
	b.WriteString("rendering ")
	if total > 0 {
		frac := min(max(float64(done)/float64(total), 0), 1)
		fill := int(frac * barWidth)
		fmt.Fprintf(&b, "%3.0f%% [", frac*100)
		b.WriteString(strings.Repeat("=", fill))
		if fill < barWidth {
			b.WriteString(">")
			b.WriteString(strings.Repeat(" ", barWidth-fill-1))
		}
		b.WriteString("] ")
		fmt.Fprintf(&b, "%s / %s", byteSize(done), byteSize(total))
	} else {
		b.WriteString(byteSize(done))
	}
	fmt.Fprintf(&b, ", %d rows", rows)
	if secs := elapsed.Seconds(); secs > 0 {
		fmt.Fprintf(&b, ", %.0f rows/s", float64(rows)/secs)
		if total > 0 && done > 0 && done < total {
			left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
			fmt.Fprintf(&b, ", %s left", left.Round(time.Second))
		}
	}
	return b.String()
}

// byteSize writes n bytes in decimal units: 512 B, 1.5 kB, 12 MB, 3.4 GB.
func byteSize(n int64) string {
	const units = "kMGTPE"
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	v, u := float64(n)/1000, 0
	for v >= 1000 && u < len(units)-1 {
		v /= 1000
		u++
	}
	if v < 10 {
		return fmt.Sprintf("%.1f %cB", v, units[u])
	}
	return fmt.Sprintf("%.0f %cB", v, units[u])
}

// errNoObjectStorage is what beamharmony answers to an object path: object
// storage is the cloud module's, so that this command links no cloud SDK
// (docs/modules.md).
var errNoObjectStorage = errors.New("object storage is not in this build; beamharmony-cloud has it (cd cloud && go install ./cmd/beamharmony-cloud in a clone of the repository)")

// noObjectStorage is the bucket opener of a Program without one.
func noObjectStorage(context.Context, string) (dataset.Bucket, error) {
	return nil, errNoObjectStorage
}

// isTerminal reports whether f is a character device, as a terminal is;
// the progress line is drawn only there.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
