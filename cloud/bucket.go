// Package cloud is object storage for the dataset command and package:
// [OpenBucket] opens s3://, gs:// and azblob:// buckets through the Go CDK
// (gocloud.dev/blob) with its S3, GCS and Azure drivers, as a
// [dataset.BucketOpener]. It is a module of its own so that the library,
// the gateway and the beamharmony command link no cloud SDK; its command
// beamharmony-cloud is beamharmony with object storage
// (cd cloud && go install ./cmd/beamharmony-cloud in a clone).
package cloud

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/beamharmony/harmony/dataset"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// OpenBucket opens a bucket through the Go CDK (gocloud.dev/blob) with
// the drivers linked in (driver_*.go; each can be left out with a build
// tag, gap decision 90). The URL's query holds the driver's options
// (region, endpoint, use_path_style, ...). It is a dataset.BucketOpener.
func OpenBucket(ctx context.Context, url string) (dataset.Bucket, error) {
	b, err := blob.OpenBucket(ctx, url)
	if err != nil {
		return nil, goCloudError(err)
	}
	return goCloudBucket{b, url}, nil
}

// goCloudBucket is a Bucket of the Go CDK, and its URL.
type goCloudBucket struct {
	b   *blob.Bucket
	url string
}

// goCloudError makes the Go CDK's not-found error an fs.ErrNotExist, and
// an SDK's chain of attempts to find credentials one line saying what to
// set (credentialsHints).
func goCloudError(err error) error {
	if err != nil && gcerrors.Code(err) == gcerrors.NotFound {
		return &notExist{err}
	}
	if err != nil {
		if hint := credentialsHint(err); hint != "" {
			return &credentialsError{hint: hint, err: err}
		}
	}
	return err
}

// credentialsHints are, for each cloud SDK, the words its error holds
// when it found no credentials, and what to set instead: one short line
// in place of the SDK's chain of attempts.
var credentialsHints = []struct{ marker, hint string }{
	{"get identity: get credentials", "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or run where an instance role provides them"},
	{"azureblob: Options.AccountName is required", "no Azure storage account: set AZURE_STORAGE_ACCOUNT, with AZURE_STORAGE_KEY or a login DefaultAzureCredential finds (az login, a managed identity)"},
	{"could not find default credentials", "no Google Cloud credentials found: set GOOGLE_APPLICATION_CREDENTIALS to a key file, or run gcloud auth application-default login"},
}

func credentialsHint(err error) string {
	text := err.Error()
	for _, h := range credentialsHints {
		if strings.Contains(text, h.marker) {
			return h.hint
		}
	}
	return ""
}

// credentialsError is a bucket that could not be reached for want of
// credentials: its message is the hint, the SDK's error stays wrapped.
type credentialsError struct {
	hint string
	err  error
}

func (e *credentialsError) Error() string { return e.hint }
func (e *credentialsError) Unwrap() error { return e.err }

type notExist struct{ err error }

func (e *notExist) Error() string        { return e.err.Error() }
func (e *notExist) Unwrap() error        { return e.err }
func (e *notExist) Is(target error) bool { return target == fs.ErrNotExist }

func (g goCloudBucket) Attributes(ctx context.Context, key string) (int64, time.Time, error) {
	a, err := g.b.Attributes(ctx, key)
	if err != nil {
		return 0, time.Time{}, goCloudError(err)
	}
	return a.Size, a.ModTime, nil
}

func (g goCloudBucket) NewRangeReader(ctx context.Context, key string, off, length int64) (dataset.ObjectReader, error) {
	r, err := g.b.NewRangeReader(ctx, key, off, length, nil)
	if err != nil {
		return nil, goCloudError(err)
	}
	return r, nil
}

func (g goCloudBucket) Delete(ctx context.Context, key string) error {
	return goCloudError(g.b.Delete(ctx, key))
}

func (g goCloudBucket) List(ctx context.Context, prefix string, fn func(string) bool) error {
	it := g.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return goCloudError(err)
		}
		if !obj.IsDir && !fn(obj.Key) {
			return nil
		}
	}
}

func (g goCloudBucket) Close() error { return g.b.Close() }

// Upload sizes: parts of objectPartSize, at most objectConcurrency in
// flight, which bounds an upload's memory.
const (
	objectPartSize    = 8 << 20
	objectConcurrency = 2
)

// NewWriter starts one upload that is completed only at Commit: the Go
// CDK writer's Close completes it (S3's multipart upload is completed,
// GCS's resumable upload finalized, Azure's block list committed), and
// until then no object is under the key. The upload lives apart from
// ctx, so that nothing cuts a commit short by accident; Abort cancels its
// context, which drops it (S3 aborts its multipart upload; the others
// never commit).
func (g goCloudBucket) NewWriter(ctx context.Context, key, contentType string) (dataset.ObjectWriter, error) {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w, err := g.b.NewWriter(wctx, key, &blob.WriterOptions{
		ContentType: contentType, BufferSize: objectPartSize, MaxConcurrency: objectConcurrency,
	})
	if err != nil {
		cancel()
		return nil, goCloudError(err)
	}
	return &goCloudWriter{b: g.b, url: g.url, key: key, w: w, cancel: cancel}, nil
}

type goCloudWriter struct {
	b      *blob.Bucket
	url    string // the bucket's
	key    string
	w      *blob.Writer
	cancel context.CancelFunc
}

func (w *goCloudWriter) Write(p []byte) (int, error) { return w.w.Write(p) }

// Commit closes the writer, which completes the upload. A stopped run
// (SIGTERM) cancels it: an endpoint whose answer never ends would hold
// the process (issue 34 item 10); an upload cut short creates no object.
func (w *goCloudWriter) Commit(ctx context.Context) error {
	stop := context.AfterFunc(ctx, w.cancel)
	err := w.w.Close()
	stop()
	w.cancel()
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return goCloudError(err)
}

func (w *goCloudWriter) Abort(ctx context.Context) {
	w.cancel()
	err := w.w.Close() // reaps the upload, which the cancel failed
	if abortUpload != nil {
		abortUpload(ctx, w.b, w.url, w.key, err)
	}
}

// abortUpload, when set (driver_s3.go), drops what a failed upload left
// in the bucket: S3's transfer manager aborts a failed multipart upload
// with the upload's own context, which Abort cancelled.
var abortUpload func(ctx context.Context, b *blob.Bucket, url, key string, err error)

// abortTimeout bounds the abort of an upload; stoppedAbortTimeout when
// the run was stopped (SIGTERM), which must end it within a second. An
// abort that does not finish leaves the parts to the bucket's lifecycle
// rules.
const (
	abortTimeout        = 30 * time.Second
	stoppedAbortTimeout = 500 * time.Millisecond
)
