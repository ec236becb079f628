//go:build !beamharmony_nos3

package cloud

// The s3:// driver; build with -tags beamharmony_nos3 to leave it out.

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob"
)

func init() { abortUpload = abortMultipartUpload }

// abortMultipartUpload aborts the multipart upload a failed S3 upload
// reports, with a fresh context: the upload's own was cancelled, and the
// parts would stay (billed, invisible) until a lifecycle rule drops them.
func abortMultipartUpload(ctx context.Context, b *blob.Bucket, url, key string, err error) {
	var failed transfermanager.MultipartUploadError
	var client *s3.Client
	if !errors.As(err, &failed) || !b.As(&client) {
		return
	}
	timeout := abortTimeout
	if ctx.Err() != nil {
		timeout = stoppedAbortTimeout
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	bucket, _, _ := strings.Cut(strings.TrimPrefix(url, "s3://"), "?")
	id := failed.UploadID()
	_, _ = client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: &id})
}
