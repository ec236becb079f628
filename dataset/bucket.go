package dataset

import (
	"context"
	"errors"
	"io"
	"time"
)

// Bucket is an object store as a run uses it: the objects of one bucket
// (s3://BUCKET, gs://BUCKET, azblob://CONTAINER, with the URL's query).
// The module github.com/beamharmony/harmony/cloud implements it with the
// Go CDK and its drivers, which this module does not link
// (docs/modules.md). A missing object is an error for which
// errors.Is(err, fs.ErrNotExist) holds.
type Bucket interface {
	// Attributes returns the size and modification time of the object.
	Attributes(ctx context.Context, key string) (size int64, modTime time.Time, err error)
	// NewRangeReader reads length bytes of the object from off; a negative
	// length reads to its end.
	NewRangeReader(ctx context.Context, key string, off, length int64) (ObjectReader, error)
	// NewWriter starts an upload of the object, which exists only once
	// Commit succeeds.
	NewWriter(ctx context.Context, key, contentType string) (ObjectWriter, error)
	// Delete removes the object.
	Delete(ctx context.Context, key string) error
	// List calls fn with the key of each object under prefix, until fn
	// returns false.
	List(ctx context.Context, prefix string, fn func(key string) bool) error
	Close() error
}

// ObjectReader reads an object, or a range of one.
type ObjectReader interface {
	io.ReadCloser
	// Size is the object's whole size.
	Size() int64
}

// ObjectWriter is an upload.
type ObjectWriter interface {
	io.Writer
	// Commit completes the upload: only then is the object under its key.
	// It stops, dropping the upload, when ctx ends.
	Commit(ctx context.Context) error
	// Abort drops the upload; the key stays as it was. ctx, when ended,
	// shortens what dropping may take.
	Abort(ctx context.Context)
}

// ErrNoObjectStorage is the error of an object path in a run whose
// Config has no OpenBucket.
var ErrNoObjectStorage = errors.New("object storage (s3://, gs://, azblob://) needs Config.OpenBucket; the module github.com/beamharmony/harmony/cloud has one")

// BucketOpener opens the bucket at a URL, scheme://BUCKET?QUERY.
type BucketOpener func(ctx context.Context, url string) (Bucket, error)
