package dataset

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// memBucket is a Bucket in memory: what a run needs of object storage,
// without the Go CDK (docs/modules.md: object storage moves to a module
// of its own behind this interface).
type memBucket struct {
	mu      sync.Mutex
	objects map[string][]byte
	aborts  int
}

func (m *memBucket) Attributes(_ context.Context, key string) (int64, time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	data, ok := m.objects[key]
	if !ok {
		return 0, time.Time{}, fmt.Errorf("%s: %w", key, fs.ErrNotExist)
	}
	return int64(len(data)), time.Unix(1700000000, 0), nil
}

type memReader struct {
	*bytes.Reader
	size int64
}

func (r memReader) Close() error { return nil }
func (r memReader) Size() int64  { return r.size }

func (m *memBucket) NewRangeReader(_ context.Context, key string, off, length int64) (ObjectReader, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	data, ok := m.objects[key]
	if !ok {
		return nil, fmt.Errorf("%s: %w", key, fs.ErrNotExist)
	}
	end := int64(len(data))
	if length >= 0 {
		end = min(end, off+length)
	}
	return memReader{bytes.NewReader(data[off:end]), int64(len(data))}, nil
}

type memWriter struct {
	m   *memBucket
	key string
	buf bytes.Buffer
}

func (w *memWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }
func (w *memWriter) Commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	w.m.objects[w.key] = bytes.Clone(w.buf.Bytes())
	return nil
}
func (w *memWriter) Abort(context.Context) { w.m.mu.Lock(); w.m.aborts++; w.m.mu.Unlock() }

func (m *memBucket) NewWriter(_ context.Context, key, _ string) (ObjectWriter, error) {
	return &memWriter{m: m, key: key}, nil
}

func (m *memBucket) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[key]; !ok {
		return fmt.Errorf("%s: %w", key, fs.ErrNotExist)
	}
	delete(m.objects, key)
	return nil
}

func (m *memBucket) List(_ context.Context, prefix string, fn func(string) bool) error {
	m.mu.Lock()
	var keys []string
	for k := range m.objects {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	m.mu.Unlock()
	sort.Strings(keys)
	for _, k := range keys {
		if !fn(k) {
			break
		}
	}
	return nil
}

func (m *memBucket) Close() error { return nil }

// A run reads and writes objects through Config.OpenBucket alone: inputs
// by a pattern, the output, its rejects and manifest, and a second run
// finds the output complete; the same rows as from local files.
func TestRunThroughBucket(t *testing.T) {
	rows := func(from, n int) []byte {
		var b bytes.Buffer
		for i := range n {
			fmt.Fprintf(&b, `{"messages": [{"role": "user", "content": "q%d"}, {"role": "assistant", "reasoning_content": "r", "content": "a%d"}]}`+"\n", from+i, from+i)
		}
		return b.Bytes()
	}
	m := &memBucket{objects: map[string][]byte{"in/a.jsonl": rows(0, 3), "in/b.jsonl": append(rows(3, 2), "not json\n"...), "other.txt": []byte("x")}}
	var opened []string
	open := func(_ context.Context, url string) (Bucket, error) {
		opened = append(opened, url)
		return m, nil
	}
	c := Config{Inputs: []string{"s3://data/in/*.jsonl"}, Output: "s3://data/out/train.jsonl", OpenBucket: open}
	st, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if st.RowsRead != 6 || st.RowsWritten != 5 || st.RowsRejected != 1 {
		t.Errorf("read %d, wrote %d, rejected %d; want 6, 5, 1", st.RowsRead, st.RowsWritten, st.RowsRejected)
	}
	got := m.objects["out/train.jsonl"]
	// The same rows from local files.
	dir := t.TempDir()
	local := filepath.Join(dir, "in.jsonl")
	writeLocal(t, local, append(append(rows(0, 3), rows(3, 2)...), "not json\n"...))
	if _, err := Run(context.Background(), Config{Inputs: []string{local}, Output: filepath.Join(dir, "train.jsonl")}); err != nil {
		t.Fatal(err)
	}
	if want := readLocal(t, filepath.Join(dir, "train.jsonl")); !bytes.Equal(got, want) {
		t.Errorf("the object differs from the local output:\n%s\n%s", got, want)
	}
	for _, key := range []string{"out/train.rejects.jsonl", "out/train.manifest.json"} {
		if _, ok := m.objects[key]; !ok {
			t.Errorf("no %s in the bucket", key)
		}
	}
	for _, u := range opened {
		if u != "s3://data" {
			t.Errorf("opened %q, want s3://data", u)
		}
	}
	st, err = Run(context.Background(), c)
	if err != nil && !strings.Contains(err.Error(), "complete") {
		t.Fatal(err)
	}
	if !st.Skipped {
		t.Errorf("the second run was not skipped: %+v", st)
	}
}

func writeLocal(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readLocal(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
