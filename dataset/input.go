package dataset

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// input is one input file.
type input struct {
	path    string
	kind    string
	loc     location
	size    int64 // -1 for standard input
	modTime int64 // Unix nanoseconds
	bucket  Bucket
	// read counts the bytes read from standard input.
	read atomic.Int64
	// Parquet only: the file read by ranges, its checked footer and the
	// first row of each row group.
	ra       io.ReaderAt
	closer   io.Closer
	meta     *pqMeta
	rgOffset []int64
}

// unit is one unit of work: a JSONL file, or one row group of a Parquet
// file. Sharding deals units out.
type unit struct {
	in       *input
	rowGroup int   // -1 for a JSONL file
	bytes    int64 // the unit's bytes on disk
	index    int   // the unit's index among all units of the run
}

// openInputs stats and opens every input, so that an unreadable one stops
// the run before anything is written. It returns the selected units and
// the warnings (empty files).
func openInputs(ctx context.Context, c *Config) ([]*input, []unit, []string, error) {
	var (
		inputs   []*input
		units    []unit
		warnings []string
		all      int
	)
	for _, path := range c.Inputs {
		kind, err := inputKind(path, c.InputFormat)
		if err != nil {
			closeInputs(inputs)
			return nil, nil, nil, err
		}
		in, err := openInput(ctx, c, path, kind, newParquetLimits(c.maxRowBytes()))
		if err != nil {
			closeInputs(inputs)
			return nil, nil, nil, err
		}
		inputs = append(inputs, in)
		if in.size == 0 {
			warnings = append(warnings, path+": empty file, no rows")
		}
		add := func(rg int, bytes int64) {
			if c.Shards == 0 || all%c.Shards == c.Shard {
				units = append(units, unit{in: in, rowGroup: rg, bytes: bytes, index: all})
			}
			all++
		}
		if kind != kindParquet {
			add(-1, max(in.size, 0))
			continue
		}
		if in.meta == nil {
			continue
		}
		if w := unreadColumnsWarning(path, unreadColumns(c, in.meta)); w != "" {
			warnings = append(warnings, w)
		}
		for i, cols := range in.meta.rowGroups {
			var n int64
			for _, cc := range cols {
				n += cc.totalSize
			}
			add(i, n)
		}
	}
	return inputs, units, warnings, nil
}

func openInput(ctx context.Context, c *Config, path, kind string, lim parquetLimits) (*input, error) {
	l, err := parseLocation(path)
	if err != nil {
		return nil, err
	}
	in := &input{path: path, kind: kind, loc: l}
	switch {
	case l.stream:
		in.size = -1
		return in, nil
	case l.isObject():
		b, err := c.env.stores.bucket(ctx, l)
		if err != nil {
			return nil, err
		}
		size, modTime, err := b.Attributes(ctx, l.key)
		if err != nil {
			return nil, objectError(l, err)
		}
		in.bucket, in.size, in.modTime = b, size, modTime.UnixNano()
		if kind != kindParquet || in.size == 0 {
			return in, nil
		}
		return in, in.openParquet(&blobReaderAt{ctx: ctx, b: b, l: l, size: in.size}, nil, lim)
	}
	// Regular files only: a FIFO would block the open (and SIGTERM with
	// it), and could not be read twice.
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	in.size, in.modTime = fi.Size(), fi.ModTime().UnixNano()
	if kind != kindParquet || in.size == 0 {
		// Readable: reading starts later, from a fresh open.
		var b [1]byte
		if _, err := f.Read(b[:]); err != nil && !errors.Is(err, io.EOF) {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		f.Close()
		return in, nil
	}
	if err := in.openParquet(f, f, lim); err != nil {
		f.Close()
		return nil, err
	}
	return in, nil
}

// openParquet reads the footer of a Parquet input through ra.
func (in *input) openParquet(ra io.ReaderAt, closer io.Closer, lim parquetLimits) error {
	meta, err := checkFooter(ra, in.size, lim)
	if err != nil {
		return fmt.Errorf("%s: not a readable Parquet file: %w", in.path, err)
	}
	in.ra, in.closer, in.meta = ra, closer, meta
	var off int64
	for _, n := range meta.rowGroupRows {
		in.rgOffset = append(in.rgOffset, off)
		off += n
	}
	return nil
}

func closeInputs(inputs []*input) {
	for _, in := range inputs {
		if in.closer != nil {
			in.closer.Close()
		}
	}
}

// samePath reports whether a and b name the same file: the same object,
// or local paths naming the same file (sameFile). Standard streams are
// never the same as anything.
func samePath(a, b string) bool {
	la, err1 := parseLocation(a)
	lb, err2 := parseLocation(b)
	switch {
	case err1 != nil || err2 != nil || la.stream || lb.stream:
		return false
	case la.isObject() || lb.isObject():
		return la.isObject() && lb.isObject() && la.bucket == lb.bucket && la.key == lb.key
	}
	return sameFile(a, b)
}

// sameFile reports whether a and b name the same file (both existing) or
// the same path.
func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// countingReader counts the bytes read from the file, for progress.
type countingReader struct {
	ctx context.Context // nil: never stops
	r   io.Reader
	n   int64
}

// Read reads from c.r unless the run has stopped: a line that never
// ends, skipped read after read, stops with the run (issue 34 item 10).
func (c *countingReader) Read(p []byte) (int, error) {
	if c.ctx != nil && c.ctx.Err() != nil {
		return 0, c.ctx.Err()
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// lineSource reads the lines of a JSONL unit into batches.
type lineSource struct {
	u       unit
	src     io.Closer
	counter *countingReader
	zr      io.Closer
	br      *bufio.Reader
	line    int64
	max     int
}

func openLines(ctx context.Context, c *Config, u unit, max int) (*lineSource, error) {
	in := u.in
	var src io.ReadCloser
	switch {
	case in.loc.stream:
		stdin := c.Stdin
		if stdin == nil {
			stdin = os.Stdin
		}
		src = io.NopCloser(stdin)
	case in.loc.isObject():
		rd, err := in.bucket.NewRangeReader(ctx, in.loc.key, 0, -1)
		if err != nil {
			return nil, objectError(in.loc, err)
		}
		src = rd
	default:
		f, err := openRegular(in.path)
		if err != nil {
			return nil, err
		}
		src = f
	}
	s := &lineSource{u: u, src: src, counter: &countingReader{ctx: ctx, r: src}, max: max}
	var r io.Reader = s.counter
	if in.kind == kindGzip || in.kind == kindZstd {
		// An empty input holds no stream, not a broken one.
		buffered := bufio.NewReaderSize(s.counter, 256<<10)
		r = buffered
		_, err := buffered.Peek(1)
		if err != nil && !errors.Is(err, io.EOF) {
			src.Close()
			return nil, fmt.Errorf("%s: %w", in.path, err)
		}
		if err == nil {
			switch in.kind {
			case kindGzip:
				zr, err := gzip.NewReader(buffered)
				if err != nil {
					src.Close()
					return nil, fmt.Errorf("%s: gzip: %w", in.path, err)
				}
				r, s.zr = zr, zr
			case kindZstd:
				zr, err := zstd.NewReader(buffered, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
				if err != nil {
					src.Close()
					return nil, fmt.Errorf("%s: zstd: %w", in.path, err)
				}
				r, s.zr = zr, closerFunc(zr.Close)
			}
		}
	}
	s.br = bufio.NewReaderSize(r, lineBufferSize)
	return s, nil
}

type closerFunc func()

func (f closerFunc) Close() error { f(); return nil }

func (s *lineSource) close() {
	if s.zr != nil {
		s.zr.Close()
	}
	s.src.Close()
	if s.u.in.loc.stream {
		s.u.in.read.Add(s.counter.n)
	}
}

// fill appends rows to b until it holds about target bytes or the unit
// ends. It returns io.EOF at the end of the unit, and a read error naming
// the file and line otherwise. A line longer than the limit keeps only a
// prefix in the batch: its row is rejected.
func (s *lineSource) fill(b *batch, target int) error {
	for len(b.buf) < target && len(b.rows) < maxBatchRows {
		start := len(b.buf)
		var (
			size     int64
			overflow bool
			err      error
		)
		for {
			var frag []byte
			frag, err = s.br.ReadSlice('\n')
			size += int64(len(frag))
			if !overflow {
				b.buf = append(b.buf, frag...)
				if size > int64(s.max)+2 { // +2: room for "\r\n"
					b.buf = b.buf[:min(len(b.buf), start+oversizePrefix)]
					overflow = true
				}
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			b.buf = b.buf[:start]
			return fmt.Errorf("%s: line %d: %w", s.u.in.path, s.line+1, readError(s.u.in.kind, err))
		}
		if size == 0 {
			return io.EOF
		}
		s.line++
		end := len(b.buf)
		if !overflow {
			end = start + len(bytes.TrimRight(b.buf[start:], "\r\n"))
			if s.line == 1 {
				start += bomLen(b.buf[start:end])
			}
			if end-start > s.max {
				// Too long, blank or not: as a line that overflowed while
				// it was read, whatever it holds.
				overflow, size = true, int64(end-start)
				end = min(end, start+oversizePrefix)
				b.buf = b.buf[:end]
			} else if len(bytes.TrimSpace(b.buf[start:end])) == 0 {
				b.buf = b.buf[:start]
				if err != nil {
					return io.EOF
				}
				continue
			}
		}
		r := rowRef{start: start, end: end, pos: s.line}
		if overflow {
			r.size = size
		}
		b.rows = append(b.rows, r)
		if err != nil {
			return io.EOF
		}
	}
	return nil
}

// lineBufferSize is the read buffer of a JSONL file; longer lines are
// read in pieces. Tests lower it.
var lineBufferSize = 256 << 10

// oversizePrefix is how much of a too-long line the rejects file keeps.
const oversizePrefix = 1024

func bomLen(b []byte) int {
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		return 3
	}
	return 0
}

// readError words a decompression error.
func readError(kind string, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		switch kind {
		case kindGzip:
			return fmt.Errorf("gzip stream is truncated: %w", err)
		case kindZstd:
			return fmt.Errorf("zstd stream is truncated: %w", err)
		}
	}
	switch kind {
	case kindGzip:
		return fmt.Errorf("gzip: %w", err)
	case kindZstd:
		return fmt.Errorf("zstd: %w", err)
	}
	return err
}
