package dataset

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
)

// Where dataset files live. A path is a local file, "-" (standard input
// for an input, standard output for the output), or an object in a bucket:
// s3://BUCKET/KEY, gs://BUCKET/KEY or azblob://CONTAINER/KEY, optionally
// with the query parameters of Go CDK's URL openers (region, endpoint,
// use_path_style, ...), which belong to the bucket. Objects go through a
// Bucket (bucket.go): the Go CDK's by default (gocloud.go), with only the
// three drivers linked in (driver_*.go; each can be left out with a build
// tag), gap decision 90.

// location is a parsed path.
type location struct {
	raw    string // the path as given
	stream bool   // "-"
	bucket string // for an object: the bucket's URL, scheme://bucket?query
	key    string // for an object: its key
	query  string // for an object: the URL's query, without "?"
}

// objectSchemes are the URL schemes of objects.
var objectSchemes = []string{"s3", "gs", "azblob"}

// parseLocation reads a path.
func parseLocation(p string) (location, error) {
	if p == "-" {
		return location{raw: p, stream: true}, nil
	}
	scheme, _, ok := strings.Cut(p, "://")
	if !ok || strings.ContainsAny(scheme, `/\`) {
		return location{raw: p}, nil
	}
	known := false
	for _, s := range objectSchemes {
		known = known || s == scheme
	}
	if !known {
		return location{}, fmt.Errorf("%s: unknown scheme %q; use a local path, -, s3://, gs:// or azblob://", p, scheme)
	}
	u, err := url.Parse(p)
	if err != nil {
		return location{}, fmt.Errorf("%s: %w", p, err)
	}
	key := strings.TrimPrefix(u.Path, "/")
	if u.Host == "" || key == "" || strings.HasSuffix(key, "/") {
		return location{}, fmt.Errorf("%s: want %s://BUCKET/KEY, the key naming an object", p, scheme)
	}
	l := location{raw: p, key: key, query: u.RawQuery}
	l.bucket = scheme + "://" + u.Host
	if u.RawQuery != "" {
		l.bucket += "?" + u.RawQuery
	}
	return l, nil
}

// isObject reports whether l is an object in a bucket.
func (l location) isObject() bool { return l.bucket != "" }

// withKey returns the object beside l whose key is key, or for a local
// path, key itself.
func (l location) withKey(key string) string {
	if !l.isObject() {
		return key
	}
	scheme, _, _ := strings.Cut(l.bucket, "://")
	host := strings.TrimPrefix(l.bucket, scheme+"://")
	host, _, _ = strings.Cut(host, "?")
	u := url.URL{Scheme: scheme, Host: host, Path: "/" + key, RawQuery: l.query}
	return u.String()
}

// name is the path's file name part, for extensions: the key of an
// object, the path of a file.
func (l location) name() string {
	if l.isObject() {
		return l.key
	}
	return l.raw
}

// stores opens the buckets of a run, once each, with its opener, and
// closes them at its end.
type stores struct {
	open    BucketOpener
	mu      sync.Mutex
	buckets map[string]Bucket
}

func (s *stores) bucket(ctx context.Context, l location) (Bucket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.buckets[l.bucket]; b != nil {
		return b, nil
	}
	if s.open == nil {
		return nil, fmt.Errorf("%s: %w", l.raw, ErrNoObjectStorage)
	}
	b, err := s.open(ctx, l.bucket)
	if err != nil {
		return nil, objectError(l, err)
	}
	if s.buckets == nil {
		s.buckets = map[string]Bucket{}
	}
	s.buckets[l.bucket] = b
	return b, nil
}

func (s *stores) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.buckets {
		b.Close()
	}
	s.buckets = nil
}

// objectError words a bucket error for the object at l.
func objectError(l location, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such object", l.raw)
	}
	return fmt.Errorf("%s: %w", l.raw, err)
}

// blobReaderAt reads an object by ranges, through a small cache of
// blocks: the Parquet checks and reader read each row group's pages in
// many small reads, one request each without it.
type blobReaderAt struct {
	ctx  context.Context
	b    Bucket
	l    location
	size int64

	mu     sync.Mutex
	blocks []cachedBlock // most recently used last
}

type cachedBlock struct {
	off  int64
	data []byte
}

// Block cache sizes: at most blobCacheBlocks blocks of blobBlockSize.
const (
	blobBlockSize   = 4 << 20
	blobCacheBlocks = 8
)

func (r *blobReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset", r.l.raw)
	}
	n := 0
	for n < len(p) {
		at := off + int64(n)
		if at >= r.size {
			return n, io.EOF
		}
		blk, err := r.block(at / blobBlockSize * blobBlockSize)
		if err != nil {
			return n, err
		}
		n += copy(p[n:], blk.data[at-blk.off:])
	}
	return n, nil
}

// block returns the block at off, from the cache or the bucket.
func (r *blobReaderAt) block(off int64) (cachedBlock, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, blk := range r.blocks {
		if blk.off == off {
			r.blocks = append(append(r.blocks[:i:i], r.blocks[i+1:]...), blk)
			return blk, nil
		}
	}
	length := min(int64(blobBlockSize), r.size-off)
	rd, err := r.b.NewRangeReader(r.ctx, r.l.key, off, length)
	if err != nil {
		return cachedBlock{}, objectError(r.l, err)
	}
	defer rd.Close()
	data := make([]byte, length)
	if _, err := io.ReadFull(rd, data); err != nil {
		return cachedBlock{}, fmt.Errorf("%s: reading bytes %d to %d: %w", r.l.raw, off, off+length, err)
	}
	blk := cachedBlock{off: off, data: data}
	if len(r.blocks) == blobCacheBlocks {
		r.blocks = r.blocks[1:]
	}
	r.blocks = append(r.blocks, blk)
	return blk, nil
}

// readObject reads an object of at most limit bytes.
func readObject(ctx context.Context, b Bucket, l location, limit int64) ([]byte, error) {
	rd, err := b.NewRangeReader(ctx, l.key, 0, -1)
	if err != nil {
		return nil, objectError(l, err)
	}
	defer rd.Close()
	if rd.Size() > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", l.raw, limit)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(rd, limit+1)); err != nil {
		return nil, objectError(l, err)
	}
	if int64(buf.Len()) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", l.raw, limit)
	}
	return buf.Bytes(), nil
}

// objectMatches reports whether the object at l has size bytes and the
// sha256 digest.
func objectMatches(ctx context.Context, b Bucket, l location, size int64, digest string) bool {
	rd, err := b.NewRangeReader(ctx, l.key, 0, -1)
	if err != nil {
		return false
	}
	defer rd.Close()
	if rd.Size() != size {
		return false
	}
	h := sha256.New()
	if _, err := io.Copy(h, rd); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == digest
}

// deleteObject removes the object at l; a missing one is fine.
func deleteObject(ctx context.Context, b Bucket, l location) error {
	if err := b.Delete(ctx, l.key); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return objectError(l, err)
	}
	return nil
}

// objectDest writes an object by one upload (Bucket.NewWriter) that is
// completed only at commit; until then no object is under the key, and
// an abort leaves the key as it was.
type objectDest struct {
	ctx    context.Context
	b      Bucket
	l      location
	w      ObjectWriter
	closed bool // committed or aborted
}

func newObjectDest(ctx context.Context, b Bucket, l location, contentType string) (*objectDest, error) {
	w, err := b.NewWriter(ctx, l.key, contentType)
	if err != nil {
		return nil, objectError(l, err)
	}
	return &objectDest{ctx: ctx, b: b, l: l, w: w}, nil
}

func (d *objectDest) Write(p []byte) (int, error) { return d.w.Write(p) }

func (d *objectDest) finish() error { return nil }

func (d *objectDest) commit() error {
	if d.closed {
		return fmt.Errorf("%s: the upload was dropped", d.l.raw)
	}
	d.closed = true
	if err := d.w.Commit(d.ctx); err != nil {
		if d.ctx.Err() != nil {
			return d.ctx.Err()
		}
		return objectError(d.l, err)
	}
	return nil
}

func (d *objectDest) abort() {
	if d.closed {
		return
	}
	d.closed = true
	d.w.Abort(d.ctx)
}

func (d *objectDest) undo() { _ = deleteObject(d.ctx, d.b, d.l) }

func (d *objectDest) removeOld() error { return deleteObject(d.ctx, d.b, d.l) }

func (d *objectDest) replaceable(string) error { return nil }

// expandObjects replaces each object input whose key holds a pattern (*
// or [...], as path.Match reads them; ? starts the URL's query) by the
// objects that match, in key order: the shell expands local patterns, not
// a bucket's. A pattern that matches nothing is an error.
func expandObjects(ctx context.Context, st *stores, inputs []string) ([]string, error) {
	var out []string
	for _, p := range inputs {
		l, err := parseLocation(p)
		if err != nil {
			return nil, err
		}
		meta := strings.IndexAny(l.key, "*[")
		if !l.isObject() || meta < 0 {
			out = append(out, p)
			continue
		}
		if _, err := path.Match(l.key, ""); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		b, err := st.bucket(ctx, l)
		if err != nil {
			return nil, err
		}
		var keys []string
		err = b.List(ctx, l.key[:meta], func(key string) bool {
			if ok, _ := path.Match(l.key, key); ok {
				keys = append(keys, key)
			}
			return true
		})
		if err != nil {
			return nil, objectError(l, err)
		}
		if len(keys) == 0 {
			return nil, fmt.Errorf("%s: no object matches", p)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, l.withKey(k))
		}
	}
	return out, nil
}
