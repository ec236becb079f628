package dataset

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/beamharmony/harmony/internal/buildinfo"
	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// atomicFile is an output put in place by commitAll with the run's other
// outputs, so that their paths hold a complete run's files or nothing. A
// local file is written to a temporary file beside its path and renamed;
// an object is uploaded by an upload completed only at the commit; the
// standard output is written as the run goes (a stream can't be taken
// back). It hashes what it writes.
type atomicFile struct {
	what string // "output", "rejects file", ...: for errors
	path string
	dst  fileDest
	w    *bufio.Writer
	h    hash.Hash
	n    int64
	// done: finished or aborted; placed: committed.
	done, placed bool
}

// fileDest is where an atomicFile's bytes go.
type fileDest interface {
	io.Writer
	// finish makes what was written durable, short of the commit.
	finish() error
	// removeOld removes the file at the path before the commit (the
	// manifest, which must not vouch for a mix of old and new files).
	removeOld() error
	// commit puts the file under its path.
	commit() error
	// abort drops an uncommitted file: nothing is left under the path.
	abort()
	// undo removes a committed file.
	undo()
	// replaceable checks again that the path may be replaced.
	replaceable(what string) error
}

// runEnv is what a run's files need besides their paths.
type runEnv struct {
	ctx    context.Context
	stores *stores
	stdout io.Writer
	wrap   func(path string, w io.Writer) io.Writer
}

// createAtomic opens the file at path for a run; contentType is an
// object's MIME type.
func createAtomic(env *runEnv, what, path, contentType string) (*atomicFile, error) {
	l, err := parseLocation(path)
	if err != nil {
		return nil, fmt.Errorf("%s %w", what, err)
	}
	var dst fileDest
	switch {
	case l.stream:
		dst = streamDest{env.stdout}
	case l.isObject():
		b, err := env.stores.bucket(env.ctx, l)
		if err != nil {
			return nil, fmt.Errorf("%s %w", what, err)
		}
		od, err := newObjectDest(env.ctx, b, l, contentType)
		if err != nil {
			return nil, fmt.Errorf("%s %w", what, err)
		}
		dst = od
	default:
		f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, path, err)
		}
		dst = &localDest{f: f, path: path}
	}
	a := &atomicFile{what: what, path: path, dst: dst, h: sha256.New()}
	var w io.Writer = dst
	if env.wrap != nil {
		w = env.wrap(path, w)
	}
	a.w = bufio.NewWriterSize(io.MultiWriter(w, a.h), 1<<20)
	return a, nil
}

func (a *atomicFile) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	a.n += int64(n)
	return n, err
}

// file returns a itself (sinks embed it).
func (a *atomicFile) file() *atomicFile { return a }

// finish flushes the file and makes it durable; it is not yet in place.
func (a *atomicFile) finish() error {
	if a.done {
		return nil
	}
	err := a.w.Flush()
	if err == nil {
		err = a.dst.finish()
	}
	a.done = true
	if err != nil {
		a.dst.abort()
		return fmt.Errorf("%s %s: %w", a.what, a.path, err)
	}
	return nil
}

// abort drops the file, or removes it when it was put in place.
func (a *atomicFile) abort() {
	if a.placed {
		a.dst.undo()
		a.placed = false
		return
	}
	a.done = true
	a.dst.abort()
}

// writeFile writes data to a and finishes it.
func (a *atomicFile) writeFile(data []byte) error {
	if _, err := a.Write(data); err != nil {
		a.abort()
		return fmt.Errorf("%s %s: %w", a.what, a.path, err)
	}
	return a.finish()
}

// commitAll puts finished files in place as one unit, last the one whose
// presence says the unit is complete (the manifest): the old last file
// goes first, so that no crash leaves it vouching for a mix of files; on
// a failure, every file already put in place is removed with the rest, so
// that nothing stays under the final names. Each local path is checked
// again just before, as it was when the run began (checkReplaceable).
func commitAll(files []*atomicFile, last *atomicFile) error {
	all := append(append([]*atomicFile(nil), files...), last)
	fail := func(err error) error {
		for _, a := range all {
			a.abort()
		}
		return err
	}
	for _, a := range all {
		if err := a.finish(); err != nil {
			return fail(err)
		}
	}
	for _, a := range all {
		if err := a.dst.replaceable(a.what); err != nil {
			return fail(err)
		}
	}
	if err := last.dst.removeOld(); err != nil {
		return fail(fmt.Errorf("%s %s: %w", last.what, last.path, err))
	}
	for _, a := range all {
		if err := a.dst.commit(); err != nil {
			return fail(fmt.Errorf("%s %s: %w", a.what, a.path, err))
		}
		a.placed = true
	}
	return nil
}

func (a *atomicFile) digest() FileDigest {
	return FileDigest{Path: a.path, Bytes: a.n, SHA256: hex.EncodeToString(a.h.Sum(nil))}
}

// localDest is a local file written to a temporary file beside its path.
type localDest struct {
	f      *os.File
	path   string
	closed bool
}

func (d *localDest) Write(p []byte) (int, error) { return d.f.Write(p) }

func (d *localDest) finish() error {
	err := d.f.Sync()
	if err == nil {
		err = d.f.Chmod(0o644)
	}
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	d.closed = true
	return err
}

func (d *localDest) removeOld() error {
	if err := os.Remove(d.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (d *localDest) commit() error { return os.Rename(d.f.Name(), d.path) }

func (d *localDest) abort() {
	if !d.closed {
		d.f.Close()
		d.closed = true
	}
	os.Remove(d.f.Name())
}

func (d *localDest) undo() { os.Remove(d.path) }

func (d *localDest) replaceable(what string) error { return checkReplaceable(what, d.path) }

// streamDest is the standard output: written as the run goes, nothing to
// put in place or take back.
type streamDest struct{ w io.Writer }

func (d streamDest) Write(p []byte) (int, error) { return d.w.Write(p) }
func (streamDest) finish() error                 { return nil }
func (streamDest) removeOld() error              { return nil }
func (streamDest) commit() error                 { return nil }
func (streamDest) abort()                        {}
func (streamDest) undo()                         {}
func (streamDest) replaceable(string) error      { return nil }

// FileDigest names a file, its size and its sha256.
type FileDigest struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// sink is the output, fed batches in order.
type sink interface {
	write(b *batch) error
	// close ends the format (a compressed stream's end, Parquet's footer).
	close() error
	file() *atomicFile
	abort()
	digest() FileDigest
}

func newSink(c *Config, kind string) (sink, error) {
	f, err := createAtomic(c.env, "output", c.Output, contentTypes[kind])
	if err != nil {
		return nil, err
	}
	if kind == kindParquet {
		return newParquetSink(c, f), nil
	}
	s := &jsonlSink{atomicFile: f, w: f}
	switch kind {
	case kindGzip:
		zw, _ := gzip.NewWriterLevel(f, gzip.DefaultCompression)
		s.w, s.enc = zw, zw
	case kindZstd:
		zw, err := zstd.NewWriter(f, zstd.WithEncoderConcurrency(1))
		if err != nil {
			f.abort()
			return nil, err
		}
		s.w, s.enc = zw, zw
	}
	return s, nil
}

// jsonlSink writes JSONL, compressed or not.
type jsonlSink struct {
	*atomicFile
	w   io.Writer
	enc io.Closer
}

func (s *jsonlSink) write(b *batch) error {
	_, err := s.w.Write(b.out)
	return err
}

func (s *jsonlSink) close() error {
	if s.enc != nil {
		return s.enc.Close()
	}
	return nil
}

// rowGroupBytes is about how much row data a Parquet row group holds
// before it is flushed: it bounds the writer's memory. Tests lower it.
var rowGroupBytes int64 = 32 << 20

// parquetSink writes Parquet, one row group per rowGroupBytes of data.
// Rows come as the workers rendered them (ids and masks as int32 slices,
// text as a string) and are shredded straight into the writer's column
// buffers (parquet_write.go).
//
// An id column takes the type of its ids (gap decision 89): int64 when
// they are JSON integers, a string when they are strings. The writer, whose
// schema holds that type, is made when the first row with an id comes;
// rows before it wait in pending, up to a row group's worth, after which
// the column is a string column, as it is when no row has an id.
type parquetSink struct {
	*atomicFile
	c *Config
	w rowWriter

	idKind       idKind // the column's kind once known (idString or idInteger)
	idFirst      string // what decided it, for errors
	pending      []pendingRow
	pendingBytes int64
}

// pendingRow is a row waiting for the id column's type.
type pendingRow struct {
	row Row
	id  idValue
}

// idValue is a row's id, decoded: a string, an integer or none.
type idValue struct {
	s *string
	n *int64
}

// rowWriter writes rows of one schema.
type rowWriter interface {
	// add buffers a row; rows are written by write.
	add(row *Row, id idValue) error
	// flush reports the writer's error: rows are written by add, which
	// ends the row group when it holds rowGroupBytes.
	flush() error
	close() error
}

func newParquetSink(c *Config, f *atomicFile) *parquetSink {
	s := &parquetSink{atomicFile: f, c: c}
	if c.IDColumn == "" {
		s.open(idString)
	}
	return s
}

// open makes the writer, with the id column of kind k.
func (s *parquetSink) open(k idKind) {
	s.idKind = k
	s.w = newPQWriter(s.atomicFile, buildinfo.Read().CreatedBy(), s.c.Tokens, s.c.IDColumn, k == idInteger)
}

func (s *parquetSink) write(b *batch) error {
	for i := range b.outRows {
		var id idValue
		if s.c.IDColumn != "" {
			var err error
			if id, err = s.checkID(b, i); err != nil {
				return err
			}
		}
		row := &b.outRows[i]
		if s.w == nil {
			s.pending = append(s.pending, pendingRow{*row, id})
			s.pendingBytes += rowBytes(row)
			if s.pendingBytes >= rowGroupBytes {
				s.idFirst = fmt.Sprintf("the first %d rows had no id", len(s.pending))
				s.open(idString)
				if err := s.flushPending(); err != nil {
					return err
				}
			}
			continue
		}
		if err := s.w.add(row, id); err != nil {
			return err
		}
	}
	if s.w == nil {
		return nil
	}
	return s.w.flush()
}

// flushPending writes the rows that waited for the id column's type.
func (s *parquetSink) flushPending() error {
	for i := range s.pending {
		if err := s.w.add(&s.pending[i].row, s.pending[i].id); err != nil {
			return err
		}
	}
	s.pending, s.pendingBytes = nil, 0
	return s.w.flush()
}

// checkID checks that the id of b's output row i is of the column's kind,
// fixing the kind at the first id (then the writer is made and the rows
// that waited are written), and decodes it.
func (s *parquetSink) checkID(b *batch, i int) (idValue, error) {
	info := b.ids[i]
	where := func() string { return place(b.u.in, info.pos) }
	switch info.kind {
	case idNull:
		return idValue{}, nil
	case idOther:
		return idValue{}, fmt.Errorf("id column %q: %s: the id is %s; a Parquet output carries ids that are all integers or all strings (JSONL keeps any JSON value)",
			s.c.IDColumn, where(), info.what)
	}
	if s.idKind == idUnknown {
		s.idFirst = "from " + where() + " on"
		s.open(info.kind)
		if err := s.flushPending(); err != nil {
			return idValue{}, err
		}
	}
	if info.kind != s.idKind {
		return idValue{}, fmt.Errorf("id column %q: %s: the id is %s, but the column holds %s (%s); a Parquet column has one type: make the ids all integers or all strings",
			s.c.IDColumn, where(), info.kind.plural(), s.idKind.plural(), s.idFirst)
	}
	raw := b.idRaw[i]
	if info.kind == idInteger {
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return idValue{}, fmt.Errorf("id column %q: %s: the id %s does not fit a 64-bit integer", s.c.IDColumn, where(), raw)
		}
		return idValue{n: &n}, nil
	}
	var str string
	if err := json.Unmarshal(raw, &str); err != nil {
		return idValue{}, fmt.Errorf("id column %q: %s: %w", s.c.IDColumn, where(), err)
	}
	return idValue{s: &str}, nil
}

// place names a row of an input for errors: "in.jsonl: line 3" or
// "in.parquet: row index 7".
func place(in *input, pos int64) string {
	if in.kind == kindParquet {
		return fmt.Sprintf("%s: row index %d", in.path, pos)
	}
	return fmt.Sprintf("%s: line %d", in.path, pos)
}

func (s *parquetSink) close() error {
	if s.w == nil {
		// No row had an id: a string column, as for no rows.
		s.open(idString)
		if err := s.flushPending(); err != nil {
			return err
		}
	}
	return s.w.close()
}

// rowBytes is about how much of a row group a row takes.
func rowBytes(r *Row) int64 {
	return 16 + int64(len(r.Text)) + 16*int64(len(r.Spans)) + 4*int64(len(r.InputIDs)+len(r.AssistantMasks))
}

// idKind is the kind of an id value, for the Parquet id column.
type idKind uint8

const (
	idUnknown idKind = iota
	idNull           // absent or null
	idString
	idInteger
	idOther // a float, a boolean, an object or a list
)

// idInfo is one written row's id kind and its position in its input.
type idInfo struct {
	kind idKind
	what string // for idOther: what the id is ("a boolean")
	pos  int64
}

func (k idKind) plural() string {
	if k == idInteger {
		return "an integer"
	}
	return "a string"
}

// idInfoOf classifies a raw JSON id.
func idInfoOf(id []byte, pos int64) idInfo {
	info := idInfo{pos: pos}
	switch {
	case id == nil || string(id) == "null":
		info.kind = idNull
	case id[0] == '"':
		info.kind = idString
	case pyjson.IsIntegerLiteral(string(id)):
		info.kind = idInteger
	default:
		info.kind = idOther
		switch id[0] {
		case '{':
			info.what = "an object"
		case '[':
			info.what = "a list"
		case 't', 'f':
			info.what = "a boolean"
		default:
			info.what = "a number that is not an integer (" + string(id) + ")"
		}
	}
	return info
}

// checkIDColumn refuses an id column name that the output cannot carry.
func checkIDColumn(name string) error {
	switch {
	case name == "":
		return nil
	case strings.ContainsAny(name, ",\"`"):
		return fmt.Errorf("id column %q: a name with a comma or a quote cannot be carried", name)
	case name == "text" || name == "assistant_spans" || name == "input_ids" || name == "assistant_masks" || name == "num_tokens":
		return fmt.Errorf("id column %q: the output has a column of that name already", name)
	}
	return nil
}
