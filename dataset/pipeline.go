package dataset

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Sizes of the batches that flow through the pipeline. A batch is the unit
// of parallel work and of ordering; the number of batches in flight is
// bounded, so memory is bounded by about inFlight * batchBytes plus the
// output's buffers.
const (
	batchBytes   = 512 << 10
	maxBatchRows = 4096
)

// rowRef is one input row inside a batch's buffer.
type rowRef struct {
	start, end int
	// pos is the 1-based line number (JSONL) or the 0-based row index
	// (Parquet) in the source file.
	pos int64
	// size is the line's full length when it was too long to keep (only a
	// prefix is in the buffer); 0 otherwise.
	size int64
	// err is an error found while reading the row (Parquet conversion).
	err error
}

// batch is consecutive rows of one unit, then the results of rendering
// them.
type batch struct {
	u         *unit
	buf       []byte
	rows      []rowRef
	doneBytes int64 // input bytes done once this batch is written
	done      chan struct{}

	// Results, filled by a worker.
	out     []byte   // encoded output rows (JSONL output)
	outRows []Row    // rows for the Parquet output
	idRaw   [][]byte // with an id column: each output row's id, raw JSON
	ids     []idInfo // and its kind and row
	res     batchResult
}

// batchResult is what a worker counts and rejects in one batch.
type batchResult struct {
	written, rejected, truncated int64
	chars, trainedChars          int64
	tokens, trainedTokens        int64
	// Rows with assistant turns without reasoning, and those turns.
	rowsWithoutReasoning, turnsWithoutReasoning int64
	// unknown holds, for each row that decodes, each kind of key it
	// holds that the renderer does not read, once (unknownKind), then ""
	// (a row without any adds nothing).
	unknown []string
	rejects []byte   // encoded reject lines
	kinds   []string // one error kind per reject
	first   string   // the first reject's message, with its place
}

var batchPool = sync.Pool{New: func() any { return new(batch) }}

func newBatch(u *unit) *batch {
	b := batchPool.Get().(*batch)
	if b.buf == nil {
		b.buf = make([]byte, 0, batchBytes+batchBytes/4)
	}
	b.u = u
	b.done = make(chan struct{})
	return b
}

func releaseBatch(b *batch) {
	if cap(b.buf) > 4*batchBytes || cap(b.out) > 8*batchBytes {
		return // an oversized row: let it go
	}
	clear(b.outRows)
	clear(b.idRaw)
	*b = batch{buf: b.buf[:0], rows: b.rows[:0], out: b.out[:0], outRows: b.outRows[:0], idRaw: b.idRaw[:0], ids: b.ids[:0],
		res: batchResult{rejects: b.res.rejects[:0], kinds: b.res.kinds[:0], unknown: b.res.unknown[:0]}}
	batchPool.Put(b)
}

// Run runs the conversion c describes. It returns the run's statistics,
// also when it fails (then they count the rows done before the failure),
// and ErrUpToDate when the output's manifest shows nothing to do (then the
// statistics are the manifest's counts).
//
// The output, the rejects file, the --stats file and the manifest are
// written to temporary files and put in place together when the run
// completes: when Run returns an error, none of them is under its final
// name, except the --stats file, which then records the error. A run
// whose rejects pass c.MaxRejects, or that wrote no row of those it read,
// completes (its files are in place, for a look at the rejects) with
// st.Failed set; the manifest records the decision.
func Run(ctx context.Context, c Config) (_ *Stats, err error) {
	start := time.Now()
	st := &Stats{Output: c.Output, RejectsByError: map[string]int64{}, UnknownKeys: map[string]int64{}, MaxRejects: c.MaxRejects.String(), AllowMissingThinking: c.AllowMissingThinking}
	if c.Render == nil {
		c.Render = RenderText
	}
	env := &runEnv{ctx: ctx, stores: &stores{open: c.OpenBucket}, stdout: c.Stdout, wrap: c.wrapFile}
	if env.stdout == nil {
		env.stdout = os.Stdout
	}
	defer env.stores.close()
	c.env = env
	if c.Inputs, err = expandObjects(ctx, env.stores, c.Inputs); err != nil {
		return st, err
	}
	// Standard output has no manifest and no rejects file beside it.
	stream := c.Output == "-"
	if c.Rejects == "" && !stream {
		c.Rejects = DefaultRejectsPath(c.Output)
	}
	st.Rejects = c.Rejects
	if !stream {
		st.Manifest = ManifestPath(c.Output)
	}
	switch c.MessagesFormat {
	case "", FormatOpenAI, FormatShareGPT:
	default:
		return st, fmt.Errorf("messages format %q: must be %s or %s", c.MessagesFormat, FormatOpenAI, FormatShareGPT)
	}
	outKind, err := checkPaths(&c)
	if err != nil {
		return st, err
	}
	inputs, units, warnings, err := openInputs(ctx, &c)
	if err != nil {
		return st, err
	}
	defer closeInputs(inputs)
	st.Warnings = warnings
	st.Inputs, st.Units = len(inputs), len(units)
	man := newManifest(&c, inputs, units)
	if !c.Force && !stream && !man.readsStream() {
		if old := man.upToDate(env, st.Manifest, c.Output, c.Rejects); old != nil {
			st.Skipped = true
			st.RowsRead, st.RowsWritten, st.RowsRejected = old.Rows, old.Written, old.Rejected
			st.RowsWithoutReasoning, st.TurnsWithoutReasoning = old.RowsWithoutReasoning, old.TurnsWithoutReasoning
			if old.UnknownKeys != nil {
				st.UnknownKeys = old.UnknownKeys
			}
			st.Rows = st.RowsRead
			st.decide(c.MaxRejects)
			return st, ErrUpToDate
		}
	}
	for _, u := range units {
		st.InputBytes += u.bytes
	}
	if l, _ := parseLocation(c.Output); !l.isObject() && !l.stream {
		if err := os.MkdirAll(filepath.Dir(c.Output), 0o777); err != nil {
			return st, err
		}
	}

	// Every file is created first, so that an unwritable path stops the
	// run before it renders anything.
	var files []*atomicFile
	abort := func() {
		for _, f := range files {
			f.abort()
		}
	}
	out, err := newSink(&c, outKind)
	if err != nil {
		return st, err
	}
	files = append(files, out.file())
	var rej *atomicFile
	if c.Rejects == "" {
		// Counted, not written (standard output without --rejects).
		rej = &atomicFile{what: "rejects", dst: streamDest{io.Discard}, h: sha256.New()}
		rej.w = bufio.NewWriter(io.MultiWriter(rej.dst, rej.h))
	} else {
		if rej, err = createAtomic(env, "rejects file", c.Rejects, contentTypes[kindJSONL]); err != nil {
			abort()
			return st, err
		}
		files = append(files, rej)
	}
	var statsFile *atomicFile
	if c.Stats != "" {
		if statsFile, err = createAtomic(env, "stats file", c.Stats, contentTypes["json"]); err != nil {
			abort()
			return st, err
		}
		files = append(files, statsFile)
	}
	var manFile *atomicFile
	if !stream {
		if manFile, err = createAtomic(env, "manifest", st.Manifest, contentTypes["json"]); err != nil {
			abort()
			return st, err
		}
		files = append(files, manFile)
	}

	if c.Progress != nil {
		c.Progress.Start(st.InputBytes)
		defer c.Progress.Finish()
	}
	// failed ends a run that cannot complete: nothing under the final
	// names but the statistics, which say how far it got.
	failed := func(err error) (*Stats, error) {
		abort()
		if c.Stats != "" {
			st.Error = err.Error()
			if f, ferr := createAtomic(env, "stats file", c.Stats, contentTypes["json"]); ferr == nil {
				if ferr = f.writeFile(st.encode()); ferr == nil {
					_ = commitAll(nil, f)
				}
			}
		}
		return st, err
	}
	err = runPipeline(ctx, &c, units, out, rej, st)
	for _, in := range inputs {
		if in.loc.stream {
			st.InputBytes += in.read.Load()
		}
	}
	st.finish(time.Since(start), c.Tokens)
	if err != nil {
		return failed(err)
	}
	st.decide(c.MaxRejects)
	// The digests cover what reached the files.
	for _, f := range []*atomicFile{out.file(), rej} {
		if err := f.finish(); err != nil {
			return failed(err)
		}
	}
	if manFile != nil {
		man.complete(st, inputs, out.digest(), rej.digest())
		if _, err := manFile.Write(man.encode()); err != nil {
			return failed(fmt.Errorf("manifest %s: %w", st.Manifest, err))
		}
	}
	if statsFile != nil {
		if _, err := statsFile.Write(st.encode()); err != nil {
			return failed(fmt.Errorf("stats file %s: %w", c.Stats, err))
		}
	}
	if err := commitAll(files[:len(files)-1], files[len(files)-1]); err != nil {
		return failed(err)
	}
	return st, nil
}

// checkPaths refuses an output, rejects or stats path that is an input or
// each other, and returns the output's kind.
func checkPaths(c *Config) (string, error) {
	if len(c.Inputs) == 0 {
		return "", errors.New("no input files")
	}
	if c.Shards < 0 || (c.Shards > 0 && (c.Shard < 0 || c.Shard >= c.Shards)) {
		return "", fmt.Errorf("shard %d/%d: want K/N with 0 <= K < N", c.Shard, c.Shards)
	}
	kind := kindJSONL
	if c.Output != "-" {
		var err error
		if kind, err = fileKind(c.Output); err != nil {
			return "", fmt.Errorf("output %w", err)
		}
	}
	if err := checkIDColumn(c.IDColumn); err != nil {
		return "", err
	}
	stdin := 0
	for _, in := range c.Inputs {
		if in == "-" {
			if stdin++; stdin > 1 {
				return "", errors.New("-: standard input can be read once; name it once among the inputs")
			}
		}
	}
	type named struct{ name, path string }
	outputs := []named{{"output", c.Output}}
	if c.Rejects != "" {
		outputs = append(outputs, named{"rejects file", c.Rejects})
	}
	if c.Output != "-" {
		outputs = append(outputs, named{"manifest", ManifestPath(c.Output)})
	}
	if c.Stats != "" {
		outputs = append(outputs, named{"stats file", c.Stats})
	}
	for i, o := range outputs {
		l, err := parseLocation(o.path)
		if err != nil {
			return "", fmt.Errorf("%s %w", o.name, err)
		}
		if l.stream {
			if o.name != "output" {
				return "", fmt.Errorf("%s: - (standard output) is for the output only; give a file", o.name)
			}
			continue
		}
		if !l.isObject() {
			if err := checkReplaceable(o.name, o.path); err != nil {
				return "", err
			}
		}
		for _, in := range c.Inputs {
			if samePath(o.path, in) {
				return "", fmt.Errorf("%s %s is also an input; choose another path", o.name, o.path)
			}
		}
		for _, p := range outputs[:i] {
			if samePath(o.path, p.path) {
				return "", fmt.Errorf("%s %s is also the %s; choose another path", o.name, o.path, p.name)
			}
		}
	}
	return kind, nil
}

// runPipeline reads, renders and writes every unit in order.
func runPipeline(parent context.Context, c *Config, units []unit, out sink, rej *atomicFile, st *Stats) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	workers := c.workers()
	work := make(chan *batch, workers)
	ordered := make(chan *batch, 2*workers+2)

	var readErr error
	go func() {
		defer close(work)
		defer close(ordered)
		readErr = readUnits(ctx, c, units, func(b *batch) bool {
			select {
			case ordered <- b:
			case <-ctx.Done():
				releaseBatch(b)
				return false
			}
			work <- b // workers drain work until it is closed
			return true
		})
		if readErr != nil {
			cancel()
		}
	}()

	proc := newProcessor(c)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				if ctx.Err() == nil {
					proc.batch(ctx, b)
				}
				close(b.done)
			}
		}()
	}

	var writeErr error
	stopped := false // by the caller, or by a write error
	for !stopped {
		var b *batch
		select {
		case next, ok := <-ordered:
			if !ok {
				break
			}
			b = next
		case <-ctx.Done():
			// A read error cancels ctx too, but its reader has returned:
			// the batches before it are drained below as usual.
			stopped = parent.Err() != nil || writeErr != nil
			if !stopped {
				b = <-ordered
			}
		}
		if b == nil {
			break
		}
		<-b.done // prompt once stopped: a worker skips a batch then
		if writeErr == nil && ctx.Err() == nil {
			writeErr = writeBatch(c, b, out, rej, st)
			if writeErr != nil {
				cancel()
			} else if c.Progress != nil {
				c.Progress.Advance(b.doneBytes, st.RowsRead)
			}
		}
		releaseBatch(b)
	}
	if stopped {
		// Stopped by a signal, the caller or a write error. The reader
		// may be blocked in a read no context reaches (stdin that stays
		// silent): the run returns without waiting for it, and what is
		// left is released when that read returns.
		go func() {
			for b := range ordered {
				<-b.done
				releaseBatch(b)
			}
			wg.Wait()
		}()
		if writeErr != nil {
			return writeErr
		}
		return ctx.Err()
	}
	wg.Wait()
	switch {
	case writeErr != nil:
		return writeErr
	case readErr != nil:
		return readErr
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if err := out.close(); err != nil {
		return fmt.Errorf("%s: %w", c.Output, err)
	}
	return nil
}

// writeBatch writes one processed batch and adds it to the statistics.
func writeBatch(c *Config, b *batch, out sink, rej *atomicFile, st *Stats) error {
	r := &b.res
	if c.Strict && r.rejected > 0 {
		return &RowError{msg: r.first}
	}
	if err := out.write(b); err != nil {
		return fmt.Errorf("%s: %w", c.Output, err)
	}
	if len(r.rejects) > 0 {
		// Whole lines, while the file stays within --max-rejects-bytes;
		// the rest are counted.
		lines := r.rejects
		if room := c.maxRejectsBytes() - rej.n; int64(len(lines)) > room {
			cut := 0
			for cut < len(lines) {
				nl := bytes.IndexByte(lines[cut:], '\n')
				if int64(cut+nl+1) > room {
					break
				}
				cut += nl + 1
			}
			st.RejectsNotWritten += int64(bytes.Count(lines[cut:], []byte("\n")))
			lines = lines[:cut]
		}
		if _, err := rej.Write(lines); err != nil {
			return fmt.Errorf("rejects file %s: %w", c.Rejects, err)
		}
	}
	st.RowsRead += int64(len(b.rows))
	st.RowsWritten += r.written
	st.RowsRejected += r.rejected
	st.RowsTruncated += r.truncated
	st.Characters += r.chars
	st.TrainedCharacters += r.trainedChars
	st.Tokens += r.tokens
	st.TrainedTokens += r.trainedTokens
	st.RowsWithoutReasoning += r.rowsWithoutReasoning
	st.TurnsWithoutReasoning += r.turnsWithoutReasoning
	for _, k := range r.kinds {
		st.RejectsByError[k]++
	}
	st.countUnknown(r.unknown)
	return nil
}

// RowError is a bad row that stops a strict run.
type RowError struct{ msg string }

func (e *RowError) Error() string { return e.msg }

// readUnits reads every unit into batches and hands each to emit, which
// returns false when the run is stopping.
func readUnits(ctx context.Context, c *Config, units []unit, emit func(*batch) bool) error {
	var base int64
	for i := range units {
		u := &units[i]
		var err error
		if u.in.kind == kindParquet {
			err = readRowGroup(ctx, c, u, base, emit)
		} else {
			err = readLines(ctx, c, u, base, emit)
		}
		if err != nil {
			return err
		}
		base += u.bytes
	}
	return nil
}

func readLines(ctx context.Context, c *Config, u *unit, base int64, emit func(*batch) bool) error {
	src, err := openLines(ctx, c, *u, c.maxRowBytes())
	if err != nil {
		return err
	}
	defer src.close()
	for {
		if ctx.Err() != nil {
			return nil
		}
		b := newBatch(u)
		err := src.fill(b, batchBytes)
		b.doneBytes = base + min(src.counter.n, u.bytes)
		if len(b.rows) > 0 {
			if !emit(b) {
				return nil
			}
		} else {
			releaseBatch(b)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
