//go:build !beamharmony_nos3

package cloud

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/dataset"
	"github.com/beamharmony/harmony/internal/corpus"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/parquet-go/parquet-go"
	"gocloud.dev/blob"
)

// fakeS3 is an in-process S3 server (gofakes3) with one bucket, "data",
// that can be told to refuse an upload part, and counts requests.
type fakeS3 struct {
	t   *testing.T
	srv *httptest.Server
	// failPart, when positive, is the part number whose uploads are
	// refused (400, which the SDK does not retry).
	failPart atomic.Int32
	mu       sync.Mutex
	requests []string // "METHOD ?query-keys", one per request
}

func newFakeS3(t *testing.T) *fakeS3 {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("data"); err != nil {
		t.Fatal(err)
	}
	f := &fakeS3{t: t}
	s3h := gofakes3.New(backend).Server()
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f.mu.Lock()
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range q {
				if !yield(k) {
					return
				}
			}
		})
		f.requests = append(f.requests, r.Method+" "+strings.Join(keys, ","))
		f.mu.Unlock()
		if n := f.failPart.Load(); n > 0 && r.Method == http.MethodPut && q.Get("partNumber") == fmt.Sprint(n) {
			io.Copy(io.Discard, r.Body) // the client reads no answer before it has sent the part
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidRequest</Code><Message>part refused by the test</Message></Error>`)
			return
		}
		s3h.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	fakeAWSEnv(t)
	return f
}

// fakeAWSEnv gives the test the credentials of a fake endpoint, and
// nothing from the machine's AWS setup.
func fakeAWSEnv(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// url is the s3:// path of key in the fake's bucket.
func (f *fakeS3) url(key string) string {
	return "s3://data/" + key + "?endpoint=" + url.QueryEscape(f.srv.URL) + "&use_path_style=true&region=us-east-1&response_checksum_validation=when_required"
}

func (f *fakeS3) bucket() *blob.Bucket {
	b, err := blob.OpenBucket(context.Background(), "s3://data?endpoint="+url.QueryEscape(f.srv.URL)+"&use_path_style=true&region=us-east-1&response_checksum_validation=when_required")
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { b.Close() })
	return b
}

func (f *fakeS3) put(key string, data []byte) {
	if err := f.bucket().WriteAll(context.Background(), key, data, nil); err != nil {
		f.t.Fatal(err)
	}
}

// get downloads key into a local file named like it, and returns its path.
func (f *fakeS3) get(key string) string {
	data, err := f.bucket().ReadAll(context.Background(), key)
	if err != nil {
		f.t.Fatalf("%s: %v", key, err)
	}
	p := filepath.Join(f.t.TempDir(), filepath.Base(key))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// keys lists the bucket's objects.
func (f *fakeS3) keys() []string {
	var keys []string
	it := f.bucket().List(nil)
	for {
		obj, err := it.Next(context.Background())
		if err != nil {
			break
		}
		keys = append(keys, obj.Key)
	}
	return keys
}

// openUploads lists the multipart uploads neither completed nor aborted.
func (f *fakeS3) openUploads() int {
	var client *s3.Client
	b := f.bucket()
	if !b.As(&client) {
		f.t.Fatal("no S3 client")
	}
	name := "data"
	out, err := client.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: &name})
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode() == "NoSuchUpload" {
		return 0 // gofakes3's answer for a bucket without open uploads
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return len(out.Uploads)
}

func (f *fakeS3) count(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

// run is dataset.Run with this package's opener.
func run(ctx context.Context, c dataset.Config) (*dataset.Stats, error) {
	c.OpenBucket = OpenBucket
	return dataset.Run(ctx, c)
}

// parquetRow is a row of a Parquet input: an id and the messages.
type parquetRow struct {
	ID       int64            `parquet:"id"`
	Messages []parquetMessage `parquet:"messages,list"`
}

type parquetMessage struct {
	Role             string `parquet:"role"`
	Content          string `parquet:"content"`
	ReasoningContent string `parquet:"reasoning_content,optional"`
}

// TestObjectStorage: inputs and outputs in a bucket (an in-process S3
// server): a JSONL input read as a stream into a zstd JSONL output, and a
// Parquet input read by ranges, in two shards; each part's output is the
// same bytes as the same run on local copies of its inputs, its rejects
// and manifest are in the bucket beside it, and a rerun finds each part
// complete from the objects (issue 18, item 4).
func TestObjectStorage(t *testing.T) {
	f := newFakeS3(t)
	dir := t.TempDir()
	var jsonl bytes.Buffer
	for _, c := range append(corpus.Page(), corpus.Generate(21, 300)...) {
		jsonl.Write(c.JSON)
		jsonl.WriteByte('\n')
	}
	jsonl.WriteString(`{"messages": "not a list"}` + "\n") // one reject at least
	localA := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(localA, jsonl.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f.put("in/a.jsonl", jsonl.Bytes())
	var rows []parquetRow
	for i := range 9 {
		rows = append(rows, parquetRow{ID: int64(i), Messages: []parquetMessage{
			{Role: "user", Content: fmt.Sprintf("Question %d?", i)},
			{Role: "assistant", ReasoningContent: "Think.", Content: fmt.Sprintf("Answer %d.", i)},
		}})
	}
	localB := filepath.Join(dir, "b.parquet")
	pf, err := os.Create(localB)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[parquetRow](pf, parquet.MaxRowsPerRowGroup(2))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pf.Close()
	data, _ := os.ReadFile(localB)
	f.put("in/b.parquet", data)
	limit, err := dataset.ParseRejectLimit("100%")
	if err != nil {
		t.Fatal(err)
	}

	parts := []struct {
		c     dataset.Config
		local string // the local input the same run reads
		out   string // the output's key
	}{
		{dataset.Config{Inputs: []string{f.url("in/a.jsonl")}}, localA, "out/a.jsonl.zst"},
		{dataset.Config{Inputs: []string{f.url("in/b.parquet")}, IDColumn: "id", Shard: 0, Shards: 2}, localB, "out/b-0.parquet"},
		{dataset.Config{Inputs: []string{f.url("in/b.parquet")}, IDColumn: "id", Shard: 1, Shards: 2}, localB, "out/b-1.parquet"},
	}
	for _, p := range parts {
		c := p.c
		c.Output, c.MaxRejects = f.url(p.out), limit
		st, err := run(context.Background(), c)
		if err != nil {
			t.Fatalf("%s: %v", p.out, err)
		}
		local := c
		local.Inputs = []string{p.local}
		local.Output = filepath.Join(t.TempDir(), filepath.Base(p.out))
		lst, err := run(context.Background(), local)
		if err != nil {
			t.Fatalf("%s, local: %v", p.out, err)
		}
		got, _ := os.ReadFile(f.get(p.out))
		want, _ := os.ReadFile(local.Output)
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes, the same run on local files %d; want the same bytes", p.out, len(got), len(want))
		}
		if st.RowsRead != lst.RowsRead || st.RowsWritten != lst.RowsWritten || st.RowsRejected != lst.RowsRejected || st.RowsWritten == 0 {
			t.Fatalf("%s: %d read, %d written, %d rejected; on local files %d, %d, %d", p.out, st.RowsRead, st.RowsWritten, st.RowsRejected, lst.RowsRead, lst.RowsWritten, lst.RowsRejected)
		}
		base := strings.TrimSuffix(strings.TrimSuffix(p.out, ".parquet"), ".jsonl.zst")
		rejects, _ := os.ReadFile(f.get(base + ".rejects.jsonl"))
		if n := int64(bytes.Count(rejects, []byte("\n"))); n != st.RowsRejected {
			t.Fatalf("%s: %d rejects in the bucket, %d counted", p.out, n, st.RowsRejected)
		}
		if st.Manifest != f.url(base+".manifest.json") || st.Rejects != f.url(base+".rejects.jsonl") {
			t.Fatalf("manifest %s, rejects %s; want them beside the output", st.Manifest, st.Rejects)
		}
		var man dataset.Manifest
		data, _ := os.ReadFile(f.get(base + ".manifest.json"))
		if json.Unmarshal(data, &man) != nil || man.Inputs[0].Path != c.Inputs[0] || man.Output.Path != c.Output || man.Rejects.Path != st.Rejects || man.Inputs[0].Bytes == 0 {
			t.Fatalf("manifest %s", data)
		}
		gets := f.count("GET ")
		if _, err := run(context.Background(), c); !errors.Is(err, dataset.ErrUpToDate) {
			t.Fatalf("%s: the rerun was not skipped: %v", p.out, err)
		}
		if f.count("GET ") == gets {
			t.Fatal("the rerun read nothing back")
		}
	}
	if n := f.openUploads(); n != 0 {
		t.Fatalf("%d uploads left open", n)
	}
}

// bigInput writes a JSONL input of n rows that renders to about n*size
// bytes of text.
func bigInput(n, size int) []byte {
	var buf bytes.Buffer
	long := strings.Repeat("x", size)
	for i := range n {
		fmt.Fprintf(&buf, `{"messages": [{"role": "user", "content": "%d %s"}, {"role": "assistant", "reasoning_content": "r", "content": "ok"}]}`+"\n", i, long)
	}
	return buf.Bytes()
}

// TestObjectUploadFailure: an upload that fails mid-way, while the run
// writes (a part refused) or when it completes (the last part refused), or
// a run that stops after parts were uploaded, leaves nothing under the
// output's name nor beside it, no open upload, and an earlier complete
// output as it was (issue 18, item 4).
func TestObjectUploadFailure(t *testing.T) {
	f := newFakeS3(t)
	// About 20 MiB of output: parts of 8 MiB, the last one at the commit.
	f.put("in/big.jsonl", bigInput(400, 50<<10))
	old := []byte(`{"text": "an earlier run's output"}` + "\n")
	// A row that stops a strict run once the server has a part of the
	// output: the run then fails mid-upload for sure.
	stopRow := `{"messages": [{"role": "user", "content": "STOP"}]}` + "\n"
	stopAfterAPart := func(ctx context.Context, req *harmony.Request, row *dataset.Row) error {
		if req.Messages[0].Content != "STOP" {
			return dataset.RenderText(ctx, req, row)
		}
		for range 1000 {
			if f.count("PUT partNumber") > 0 {
				return errors.New("stopped by the test")
			}
			time.Sleep(10 * time.Millisecond)
		}
		return errors.New("no part came in 10 s")
	}
	tests := []struct {
		name     string
		failPart int32
		strict   bool
		want     string
	}{
		{"a part refused while writing", 1, false, "part refused by the test"},
		{"the last part refused at the commit", 3, false, "part refused by the test"},
		{"the run stops after a part was uploaded", 0, true, "line 401: stopped by the test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "in/big.jsonl"
			if tt.strict {
				in = "in/big-stop.jsonl"
				f.put(in, append(bigInput(400, 50<<10), stopRow...))
			}
			f.put("out/train.jsonl", old)
			f.failPart.Store(tt.failPart)
			defer f.failPart.Store(0)
			f.mu.Lock()
			f.requests = nil
			f.mu.Unlock()
			c := dataset.Config{Inputs: []string{f.url(in)}, Output: f.url("out/train.jsonl"), Strict: tt.strict, Workers: 2}
			if tt.strict {
				c.Render = stopAfterAPart
			}
			_, err := run(context.Background(), c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run: %v; want an error with %q", err, tt.want)
			}
			if f.count("PUT partNumber") == 0 {
				t.Fatal("no part was uploaded: the test did not fail mid-upload")
			}
			data, rerr := f.bucket().ReadAll(context.Background(), "out/train.jsonl")
			if rerr != nil || !bytes.Equal(data, old) {
				t.Fatalf("out/train.jsonl holds %d bytes (%v); want the earlier output", len(data), rerr)
			}
			for _, k := range f.keys() {
				if strings.HasPrefix(k, "out/") && k != "out/train.jsonl" {
					t.Errorf("%s left in the bucket", k)
				}
			}
			if n := f.openUploads(); n != 0 {
				t.Errorf("%d uploads left open: %q", n, f.requests)
			}
		})
	}
}

// TestObjectPatterns: an object input whose key holds * or [...] stands
// for the objects that match, in key order, * not crossing a /; one that
// matches nothing is an error.
func TestObjectPatterns(t *testing.T) {
	f := newFakeS3(t)
	row := []byte(`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "reasoning_content": "r", "content": "Hello"}]}` + "\n")
	for _, k := range []string{"in/b.jsonl", "in/a.jsonl", "in/c.jsonl.gz", "in/sub/d.jsonl", "other/e.jsonl"} {
		data := row
		if strings.HasSuffix(k, ".gz") {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(row)
			zw.Close()
			data = buf.Bytes()
		}
		f.put(k, data)
	}
	local := filepath.Join(t.TempDir(), "local.jsonl")
	if err := os.WriteFile(local, row, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		pattern string
		want    []string
		err     string
	}{
		{"in/*.jsonl", []string{"in/a.jsonl", "in/b.jsonl"}, ""},
		{"in/[bc].*", []string{"in/b.jsonl", "in/c.jsonl.gz"}, ""},
		{"in/sub/d.jsonl", []string{"in/sub/d.jsonl"}, ""},
		{"in/*.zst", nil, "no object matches"},
		{"in/[.jsonl", nil, "syntax error in pattern"},
	} {
		out := filepath.Join(t.TempDir(), "out.jsonl")
		st, err := run(context.Background(), dataset.Config{Inputs: []string{local, f.url(tt.pattern)}, Output: out})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v; want %q", tt.pattern, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.pattern, err)
			continue
		}
		var man dataset.Manifest
		data, _ := os.ReadFile(st.Manifest)
		if err := json.Unmarshal(data, &man); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, in := range man.Inputs {
			got = append(got, in.Path)
		}
		want := []string{local}
		for _, k := range tt.want {
			want = append(want, f.url(k))
		}
		if !slices.Equal(got, want) || st.RowsWritten != int64(len(want)) {
			t.Errorf("%s: inputs %v, %d rows; want %v", tt.pattern, got, st.RowsWritten, want)
		}
	}
}
