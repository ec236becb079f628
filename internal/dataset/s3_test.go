//go:build !beamharmony_nos3

package dataset

import (
	"bytes"
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

// TestObjectStorage: inputs and outputs in a bucket (an in-process S3
// server): a JSONL input read as a stream into a zstd JSONL output, and a
// Parquet input read by ranges, in two shards, each part's output,
// rejects and manifest in the bucket beside it; every row equal to the
// library's; a rerun finds each part complete from the objects (issue 18,
// item 4).
func TestObjectStorage(t *testing.T) {
	f := newFakeS3(t)
	dir := t.TempDir()
	lines := corpusLines(t, 21, 300)
	var jsonl bytes.Buffer
	for _, l := range lines {
		jsonl.Write(l)
		jsonl.WriteByte('\n')
	}
	f.put("in/a.jsonl", jsonl.Bytes())
	rows, reqs := hfRows()
	pq := filepath.Join(dir, "b.parquet")
	writeParquet(t, pq, rows, parquet.MaxRowsPerRowGroup(2))
	data, _ := os.ReadFile(pq)
	f.put("in/b.parquet", data)

	var wantA []expected
	for _, l := range lines {
		wantA = append(wantA, expect(l, harmony.ReasoningEffort{}))
	}
	// Shard k of b.parquet takes row groups k, k+2, ... of two rows each.
	wantB := func(k int) []expected {
		var want []expected
		for g := k; g*2 < len(reqs); g += 2 {
			for i := g * 2; i < min(len(reqs), g*2+2); i++ {
				want = append(want, expect([]byte(reqs[i]), harmony.ReasoningEffort{}))
			}
		}
		return want
	}
	parts := []struct {
		c    Config
		out  string // the output's key
		want []expected
	}{
		{Config{Inputs: []string{f.url("in/a.jsonl")}}, "out/a.jsonl.zst", wantA},
		{Config{Inputs: []string{f.url("in/b.parquet")}, MessagesColumn: "conversations", Shard: 0, Shards: 2}, "out/b-0.parquet", wantB(0)},
		{Config{Inputs: []string{f.url("in/b.parquet")}, MessagesColumn: "conversations", Shard: 1, Shards: 2}, "out/b-1.parquet", wantB(1)},
	}
	for _, p := range parts {
		c := p.c
		c.Output, c.MaxRejects = f.url(p.out), mustLimit(t, "100%")
		st, err := Run(context.Background(), c)
		if err != nil {
			t.Fatalf("%s: %v", p.out, err)
		}
		base := strings.TrimSuffix(strings.TrimSuffix(p.out, ".parquet"), ".jsonl.zst")
		got := readOutput(t, f.get(p.out))
		rej := readRejects(t, f.get(base+".rejects.jsonl"))
		gi, ri := 0, 0
		for i, w := range p.want {
			if w.err != "" {
				if ri >= len(rej) || rej[ri].Error != w.err || rej[ri].Source != c.Inputs[0] {
					t.Fatalf("%s: row %d should be rejected with %q", p.out, i, w.err)
				}
				ri++
				continue
			}
			if gi >= len(got) || got[gi].Text != w.text || !slices.Equal(got[gi].AssistantSpans, w.spans) {
				t.Fatalf("%s: row %d differs from the library's", p.out, i)
			}
			gi++
		}
		if gi != len(got) || ri != len(rej) || st.RowsRead != int64(len(p.want)) || gi == 0 {
			t.Fatalf("%s: %d rows, %d rejects, %d read; want %d in all", p.out, len(got), len(rej), st.RowsRead, len(p.want))
		}
		if st.Manifest != f.url(base+".manifest.json") || st.Rejects != f.url(base+".rejects.jsonl") {
			t.Fatalf("manifest %s, rejects %s; want them beside the output", st.Manifest, st.Rejects)
		}
		var man Manifest
		data, _ := os.ReadFile(f.get(base + ".manifest.json"))
		if json.Unmarshal(data, &man) != nil || man.Inputs[0].Path != c.Inputs[0] || man.Output.Path != c.Output || man.Rejects.Path != st.Rejects || man.Inputs[0].Bytes == 0 {
			t.Fatalf("manifest %s", data)
		}
		gets := f.count("GET ")
		if _, err := Run(context.Background(), c); !errors.Is(err, ErrUpToDate) {
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
	stopAfterAPart := func(ctx context.Context, req *harmony.Request, row *Row) error {
		if req.Messages[0].Content != "STOP" {
			return RenderText(ctx, req, row)
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
			c := Config{Inputs: []string{f.url(in)}, Output: f.url("out/train.jsonl"), Strict: tt.strict, Workers: 2}
			if tt.strict {
				c.Render = stopAfterAPart
			}
			_, err := Run(context.Background(), c)
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
	for _, k := range []string{"in/b.jsonl", "in/a.jsonl", "in/c.parquet", "in/sub/d.jsonl", "other/e.jsonl"} {
		f.put(k, []byte("{}\n"))
	}
	st := new(stores)
	defer st.close()
	for _, tt := range []struct {
		pattern string
		want    []string
		err     string
	}{
		{"in/*.jsonl", []string{"in/a.jsonl", "in/b.jsonl"}, ""},
		{"in/[bc].*", []string{"in/b.jsonl", "in/c.parquet"}, ""},
		{"in/sub/d.jsonl", []string{"in/sub/d.jsonl"}, ""},
		{"in/*.zst", nil, "no object matches"},
		{"in/[.jsonl", nil, "syntax error in pattern"},
	} {
		got, err := expandObjects(context.Background(), st, []string{"local.jsonl", f.url(tt.pattern)})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v; want %q", tt.pattern, err, tt.err)
			}
			continue
		}
		want := []string{"local.jsonl"}
		for _, k := range tt.want {
			want = append(want, f.url(k))
		}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %v, %v; want %v", tt.pattern, got, err, want)
		}
	}
}
