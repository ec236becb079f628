package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// ParquetRows reads a Parquet file of size bytes through ra as the dataset
// command reads a Parquet input: the footer and each row group's pages are
// checked against limits derived from maxRowBytes before the library reads
// them, and a row longer than maxRowBytes as JSON is an error of that row.
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
	pq, err := parquet.OpenFile(ra, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("not a readable Parquet file: %w", err)
	}
	conv, err := previewConverter(pq.Schema())
	if err != nil {
		return err
	}
	var out []byte
	var index int64
	stopped := false
	for g, rg := range pq.RowGroups() {
		check, err := checkRowGroup(ra, meta, g, lim)
		if err != nil {
			return err
		}
		rows := rg.Rows()
		buf := make([]parquet.Row, rowsPerRead(check, lim))
		for !stopped && ctx.Err() == nil {
			n, err := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				var cerr error
				if conv.columns != nil {
					out, cerr = conv.appendRow(out[:0], row)
				} else {
					conv.load(row)
					out = conv.value(out[:0], conv.root)
					cerr = conv.err
				}
				if cerr == nil && len(out) > maxRowBytes {
					cerr = fmt.Errorf("row is %d bytes as JSON, longer than the limit of %d bytes", len(out), maxRowBytes)
				}
				index++
				if !each(out, cerr) {
					stopped = true
					break
				}
			}
			if errors.Is(err, io.EOF) || err == nil && n == 0 {
				break
			}
			if err != nil {
				rows.Close()
				return fmt.Errorf("row group %d, row %d: %w", g, index, err)
			}
		}
		rows.Close()
		if stopped || ctx.Err() != nil {
			return nil
		}
	}
	return nil
}

// previewConverter reads a file with a messages column as the dataset
// command does (converter.columns set), any other whole (columns nil: the
// root is read as one object).
func previewConverter(schema *parquet.Schema) (*pqConverter, error) {
	for _, f := range schema.Fields() {
		if f.Name() == "messages" {
			return newConverter(&Config{}, schema)
		}
	}
	col := 0
	root := buildNode("", schema, 0, 0, &col)
	return &pqConverter{root: root, cols: make([][]parquet.Value, root.leaves), cur: make([]int, root.leaves)}, nil
}
