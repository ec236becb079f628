// Package dataset renders whole conversation datasets for training: JSONL
// (plain, gzip or zstd) and Parquet files in, one output row per input row
// out, in the same order, with bad rows written to a rejects file instead
// of being dropped.
//
// A run streams: one goroutine reads rows in batches, a pool of workers
// renders them, and one goroutine writes the results in input order. Memory
// is bounded by the number of batches in flight, never by the input's size.
// Outputs are written to temporary files and renamed into place when the
// run completes, so an interrupted run leaves complete files or none. A
// manifest written last records the inputs, the counts and the output's
// sha256; a rerun whose manifest still matches is skipped.
//
// The per-row work is a RenderFunc: the text renderer (the prompt and its
// assistant spans in characters) or a token renderer supplied by the caller.
//
// # API
//
//   - [Run] runs a [Config] and returns its [Stats]; [ErrUpToDate] when a
//     rerun finds the output complete. Each row is a [Row] made by a
//     [RenderFunc]: [RenderText] or [RenderTokens] (with a tokenizer); a
//     [RowError] is a row rejected. [Progress] receives the run's progress.
//     Config.MessagesFormat reads rows in the OpenAI shape ([FormatOpenAI])
//     or ShareGPT's ([FormatShareGPT]).
//   - Limits and paths: [RejectLimit] ([ParseRejectLimit]; the zero
//     value is 1%), [DefaultMaxRowBytes], [DefaultMaxRejectsBytes],
//     [RejectRowBytes]; [DefaultRejectsPath] and [ManifestPath] name the
//     files beside an output.
//   - The manifest: [Manifest], [ManifestInput], [ManifestOptions],
//     [ManifestTool], [FileDigest].
//   - Object storage: a [Bucket] (with its [ObjectReader] and
//     [ObjectWriter]) opened by Config.OpenBucket, a [BucketOpener]; none
//     in this module ([ErrNoObjectStorage]): the cloud module has one.
//   - Parquet: [ParquetRows] reads a Parquet input's rows as the run does
//     (the console's preview uses it).
package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
)

// Row is the rendering of one request. A text RenderFunc sets Text and
// Spans; a token RenderFunc sets InputIDs and AssistantMasks.
type Row struct {
	// Text is the rendered prompt.
	Text string
	// Spans are the assistant spans of Text, in characters, end exclusive.
	Spans []harmony.Span
	// Characters is the length of Text in characters; 0 means count them.
	Characters int
	// InputIDs are the prompt's token ids.
	InputIDs []int32
	// AssistantMasks has one entry per id: 1 where the id is trained on.
	AssistantMasks []int32
}

// A RenderFunc renders one decoded request into row. It is called from
// several goroutines at once, with the run's context, which ends when the
// run stops. The request's options are already set for training (no
// generation prompt, the default effort applied).
type RenderFunc func(ctx context.Context, req *harmony.Request, row *Row) error

// RenderText renders the prompt and its assistant spans in characters, as
// `beamharmony render --spans` does.
func RenderText(_ context.Context, req *harmony.Request, row *Row) error {
	p, err := req.RenderPrompt()
	if err != nil {
		return err
	}
	row.Text = p.Text
	row.Spans = p.CharSpans()
	// CharSpans counted up to the last span's end; count only the rest.
	if n := len(p.AssistantSpans); n > 0 {
		row.Characters = row.Spans[n-1].End + utf8.RuneCountInString(p.Text[p.AssistantSpans[n-1].End:])
	}
	return nil
}

// RenderTokens returns the token RenderFunc of a tokenizer: the
// request's harmony.RenderTokens, whose ids and masks are what
// Hugging Face's apply_chat_template(..., tokenize=True,
// return_assistant_tokens_mask=True) gives. A tokenizer whose split
// pattern takes too long on a row rejects the row.
func RenderTokens(enc harmony.TokenEncoder) RenderFunc {
	return func(ctx context.Context, req *harmony.Request, row *Row) error {
		t, err := req.RenderTokens(ctx, enc)
		if err != nil {
			return err
		}
		row.InputIDs = make([]int32, len(t.InputIDs))
		row.AssistantMasks = make([]int32, len(t.AssistantMasks))
		for i, id := range t.InputIDs {
			if id < 0 || id > math.MaxInt32 {
				return fmt.Errorf("token id %d does not fit the int32 input_ids column", id)
			}
			row.InputIDs[i] = int32(id)
		}
		for i, m := range t.AssistantMasks {
			row.AssistantMasks[i] = int32(m)
		}
		return nil
	}
}

// Config is one run.
//
// Every path is a local file, "-" (standard input or output), or an object
// in a bucket: s3://BUCKET/KEY, gs://BUCKET/KEY or azblob://CONTAINER/KEY,
// with the Go CDK's URL parameters (region, endpoint, ...) as a query.
type Config struct {
	// Inputs are the input files, in order: .jsonl, .jsonl.gz, .jsonl.zst
	// or .parquet, or "-" for JSONL on standard input (compressed as
	// InputFormat says).
	Inputs []string
	// InputFormat, when set, is the format of every input whatever its
	// name: jsonl, jsonl.gz, jsonl.zst or parquet (not for "-").
	InputFormat string
	// Output is the output file: .jsonl, .jsonl.gz, .jsonl.zst or .parquet,
	// or "-" for JSONL on standard output (then there is no manifest, and
	// rejects are written only to a Rejects path).
	Output string
	// Rejects is the rejects file; empty means DefaultRejectsPath(Output),
	// or with Output "-" no rejects file (they are still counted).
	Rejects string
	// Stats, when set, receives the run's Stats as JSON.
	Stats string
	// Stdin and Stdout are the streams "-" names; nil means os.Stdin and
	// os.Stdout.
	Stdin  io.Reader
	Stdout io.Writer
	// OpenBucket opens the buckets of s3://, gs:// and azblob:// paths.
	// This module has no implementation of it, so that a program on local
	// files links no cloud SDK: the module github.com/beamharmony/harmony/cloud
	// has one (cloud.OpenBucket, the Go CDK with its S3, GCS and Azure
	// drivers). Nil refuses object paths with ErrNoObjectStorage.
	OpenBucket BucketOpener

	// Render is the per-row work; nil means RenderText.
	Render RenderFunc
	// Tokens says that Render fills InputIDs and AssistantMasks, and that
	// the output has the token columns.
	Tokens bool
	// TokenizerID identifies the tokenizer (its file's sha256, say) in the
	// manifest, so that a rerun with another tokenizer is not skipped.
	TokenizerID string
	// MaxTokens, when positive, rejects rows with more tokens, or cuts them
	// when Truncate is set.
	MaxTokens int
	// Truncate cuts rows longer than MaxTokens instead of rejecting them.
	Truncate bool

	// MessagesColumn names the column that holds the messages ("messages"
	// when empty); ToolsColumn the tools ("tools" when empty).
	MessagesColumn, ToolsColumn string
	// MessagesFormat is the messages' shape: FormatOpenAI ({"role",
	// "content"}; also when empty) or FormatShareGPT ({"from", "value"},
	// with a row's "system" column; sharegpt.go).
	MessagesFormat string
	// ThinkTags reads an assistant message's leading <think>...</think>
	// as its reasoning when it has none (thinktags.go).
	ThinkTags bool
	// IDColumn, when set, is carried from each input row to its output row.
	IDColumn string
	// DefaultEffort applies to rows that set no reasoning_effort.
	DefaultEffort harmony.ReasoningEffort
	// AllowMissingThinking renders assistant turns without reasoning as
	// the template does, as empty analysis messages; by default a row with
	// one is rejected. Either way such turns are counted (Stats).
	AllowMissingThinking bool

	// Workers is the number of rendering goroutines; 0 means GOMAXPROCS.
	Workers int
	// Shard and Shards select every Shards-th unit of work (a JSONL file or
	// a Parquet row group), starting at unit Shard (0-based). Shards 0
	// means no sharding.
	Shard, Shards int
	// Strict stops the run at the first bad row.
	Strict bool
	// MaxRejects is how many rejects the run may have and succeed; the
	// zero value is the default, 1%.
	MaxRejects RejectLimit
	// MaxRejectsBytes bounds the rejects file; rejects past it are counted
	// but not written. 0 means DefaultMaxRejectsBytes.
	MaxRejectsBytes int64
	// MaxRowBytes bounds one JSONL line; longer lines are rejected without
	// being held in memory. 0 means DefaultMaxRowBytes.
	MaxRowBytes int
	// Force ignores a matching manifest and runs again.
	Force bool

	// Progress, when not nil, is told how the run advances.
	Progress Progress

	// wrapFile, when set, wraps the writer of each file the run writes,
	// by its final path (tests use it to simulate a full disk).
	wrapFile func(path string, w io.Writer) io.Writer
	// env is the run's context, buckets and streams (set by Run).
	env *runEnv
}

// Progress receives the run's advance from the writing goroutine.
type Progress interface {
	// Start is called once with the total input bytes of the run.
	Start(totalBytes int64)
	// Advance reports the input bytes and rows done so far.
	Advance(doneBytes int64, rows int64)
	// Finish is called once at the end of the run.
	Finish()
}

// DefaultMaxRowBytes is the longest JSONL line read by default (32 MiB).
const DefaultMaxRowBytes = 32 << 20

// DefaultMaxRejectsBytes bounds the rejects file by default (64 MiB).
const DefaultMaxRejectsBytes = 64 << 20

// RejectRowBytes is how much of a bad row a reject echoes: a longer row is
// its first RejectRowBytes bytes, as a string, with its size.
const RejectRowBytes = 64 << 10

// Errors of a run's setup.
var (
	// ErrUpToDate is returned by Run when the output's manifest shows the
	// same inputs and options and the output is unchanged.
	ErrUpToDate = errors.New("output is complete and up to date")
)

// Kinds of files, by extension.
const (
	kindJSONL   = "jsonl"
	kindGzip    = "jsonl.gz"
	kindZstd    = "jsonl.zst"
	kindParquet = "parquet"
)

// kinds are the formats a path's extension names, longest first.
var kinds = []string{kindGzip, kindZstd, kindJSONL, kindParquet}

// contentTypes are the MIME types of objects written, by kind.
var contentTypes = map[string]string{
	kindJSONL: "application/x-ndjson", kindGzip: "application/gzip", kindZstd: "application/zstd",
	kindParquet: "application/vnd.apache.parquet", "json": "application/json",
}

// fileKind returns the kind of a path by its extension (an object's key's),
// or an error.
func fileKind(path string) (string, error) {
	l, err := parseLocation(path)
	if err != nil {
		return "", err
	}
	lower := strings.ToLower(l.name())
	for _, k := range kinds {
		if strings.HasSuffix(lower, "."+k) {
			return k, nil
		}
	}
	return "", fmt.Errorf("%s: unknown file type; use .jsonl, .jsonl.gz, .jsonl.zst or .parquet", path)
}

// inputKind returns the kind of an input: format when set, JSONL for "-",
// else by its extension.
func inputKind(path, format string) (string, error) {
	switch {
	case format != "":
		if !slices.Contains(kinds, format) {
			return "", fmt.Errorf("input format %q: use jsonl, jsonl.gz, jsonl.zst or parquet", format)
		}
		if path == "-" && format == kindParquet {
			return "", errors.New("-: Parquet can't be read from standard input (it is read by ranges); give a file or an object")
		}
		return format, nil
	case path == "-":
		return kindJSONL, nil
	}
	return fileKind(path)
}

// stem returns path without its dataset extension (train.jsonl.zst gives
// train); a path of unknown kind loses its last extension. For an object
// the key loses it, and the bucket and query stay.
func stem(path string) string {
	l, err := parseLocation(path)
	if err != nil || l.stream {
		return path
	}
	name := l.name()
	lower := strings.ToLower(name)
	cut := strings.TrimSuffix(name, filepath.Ext(name))
	for _, k := range kinds {
		if strings.HasSuffix(lower, "."+k) {
			cut = name[:len(name)-len(k)-1]
			break
		}
	}
	return l.withKey(cut)
}

// besideName returns the path beside path whose name is path's stem with
// suffix.
func besideName(path, suffix string) string {
	l, err := parseLocation(path)
	if err != nil || !l.isObject() {
		return stem(path) + suffix
	}
	s, _ := parseLocation(stem(path))
	return l.withKey(s.key + suffix)
}

// DefaultRejectsPath is the rejects file of an output: its name with
// .rejects.jsonl in place of its extension (train.parquet gives
// train.rejects.jsonl; s3://b/train.parquet gives s3://b/train.rejects.jsonl).
func DefaultRejectsPath(output string) string { return besideName(output, ".rejects.jsonl") }

// ManifestPath is the manifest of an output: its name with .manifest.json
// in place of its extension.
func ManifestPath(output string) string { return besideName(output, ".manifest.json") }

func (c *Config) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (c *Config) maxRowBytes() int {
	if c.MaxRowBytes > 0 {
		return c.MaxRowBytes
	}
	return DefaultMaxRowBytes
}

func (c *Config) maxRejectsBytes() int64 {
	if c.MaxRejectsBytes > 0 {
		return c.MaxRejectsBytes
	}
	return DefaultMaxRejectsBytes
}

// messagesFormat is MessagesFormat for the manifest: "" for the OpenAI
// shape, so that manifests written before the option match.
func (c *Config) messagesFormat() string {
	if c.MessagesFormat == FormatOpenAI {
		return ""
	}
	return c.MessagesFormat
}

func (c *Config) column(name, def string) string {
	if name == "" {
		return def
	}
	return name
}
