package dataset

import (
	"context"
	"fmt"
	"io"
)

// ParquetRows reads a Parquet file of size bytes through ra as the dataset
// command reads a Parquet input: the footer and each page are checked
// against limits derived from maxRowBytes as they are read, and a row
// longer than maxRowBytes as JSON is an error of that row.
// It calls each with every row, in order, as a JSON object: for a file
// with a messages column, the request the dataset command would render
// (its messages, tools and request keys); for any other (the dataset
// command's Parquet output), every top-level column. each returns false to
// stop. A row's JSON is valid only during the call.
//
// It is what the console's dataset preview reads Parquet with.
func ParquetRows(ctx context.Context, ra io.ReaderAt, size int64, maxRowBytes int, each func(row []byte, err error) bool) (err error) {
	if maxRowBytes <= 0 {
		maxRowBytes = DefaultMaxRowBytes
	}
	lim := newParquetLimits(maxRowBytes)
	meta, err := checkFooter(ra, size, lim)
	if err != nil {
		return fmt.Errorf("not a readable Parquet file: %w", err)
	}
	// Damaged pages are errors of the reader; should one make it panic,
	// the caller gets an error.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged Parquet data: %v", r)
		}
	}()
	conv, err := previewConverter(meta)
	if err != nil {
		return err
	}
	var out []byte
	for g := range meta.rowGroups {
		rr := newRowGroupReader(ra, meta, g, lim)
		for ctx.Err() == nil {
			ok, err := rr.next(&conv.row)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			var cerr error
			if conv.columns != nil {
				out, cerr = conv.appendRow(out[:0])
			} else {
				conv.start()
				out = conv.value(out[:0], conv.root)
				cerr = conv.err
			}
			if cerr == nil && len(out) > maxRowBytes {
				cerr = fmt.Errorf("row is %d bytes as JSON, longer than the limit of %d bytes", len(out), maxRowBytes)
			}
			if !each(out, cerr) {
				return nil
			}
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	return nil
}

// previewConverter reads a file with a messages column as the dataset
// command does (converter.columns set), any other whole (columns nil: the
// root is read as one object).
func previewConverter(m *pqMeta) (*pqConverter, error) {
	root := schemaTree(m)
	for _, f := range root.fields {
		if f.name == "messages" {
			return newConverter(&Config{}, m)
		}
	}
	return &pqConverter{root: root, row: pqRow{cols: make([][]pqValue, root.leaves)}, cur: make([]int, root.leaves)}, nil
}
