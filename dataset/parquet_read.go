package dataset

import (
	"fmt"
	"io"
)

// pqRow is one row as read: the values of each leaf column, and the
// bytes of its byte values, copied out of the pages (so that a row that
// spans pages holds none of them).
type pqRow struct {
	cols [][]pqValue
	data []byte
}

// pqValue is one value of a leaf column, with its levels: a number in u
// (a BOOLEAN as 0 or 1, an INT32 or FLOAT as its 32 bits), or bytes
// (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY, INT96) at row.data[off:off+n]. It is
// null when its definition level is below the column's maximum.
type pqValue struct {
	u        uint64
	off, n   uint32
	rep, def uint8
	kind     int8 // the physical type
	null     bool
}

func (r *pqRow) bytes(v pqValue) []byte { return r.data[v.off : v.off+v.n] }

// rowGroupReader assembles the rows of one row group from its column
// chunks, read side by side: a row is, in each column, a value whose
// repetition level is 0 and the values after it whose level is not.
type rowGroupReader struct {
	group int
	cols  []*columnReader
	rows  int64 // the row group's rows, as its metadata says
	read  int64
	lim   parquetLimits
	// held is what the column readers hold, together (columnReader.hold).
	held int64
}

func newRowGroupReader(r io.ReaderAt, m *pqMeta, g int, lim parquetLimits) *rowGroupReader {
	rr := &rowGroupReader{group: g, rows: m.rowGroupRows[g], lim: lim}
	for c, ch := range m.rowGroups[g] {
		rr.cols = append(rr.cols, newColumnReader(r, m.leaves[c], ch, lim, &rr.held))
	}
	return rr
}

func (rr *rowGroupReader) fail(c int, format string, args ...any) error {
	return fmt.Errorf("%w: row group %d, column %q, "+format, append([]any{errDamaged, rr.group, rr.cols[c].leaf.path}, args...)...)
}

// next reads the next row into row, whose cols has one slice per leaf
// column. It returns false at the row group's end, and an error for a
// damaged or hostile row group.
func (rr *rowGroupReader) next(row *pqRow) (bool, error) {
	if rr.read >= rr.rows {
		for c, col := range rr.cols {
			more, err := col.more()
			if err != nil {
				return false, rr.fail(c, "%v", err)
			}
			if more {
				return false, rr.fail(c, "more values than the row group's %d rows", rr.rows)
			}
		}
		return false, nil
	}
	var values int64
	row.data = row.data[:0]
	dst := row.cols
	for c, col := range rr.cols {
		dst[c] = dst[c][:0]
		for first := true; ; first = false {
			more, err := col.more()
			if err != nil {
				return false, rr.fail(c, "%v", err)
			}
			if !more {
				if first {
					return false, rr.fail(c, "%d rows, fewer than the row group's %d", rr.read, rr.rows)
				}
				break
			}
			rep := col.nextRep()
			if !first && rep == 0 {
				break
			}
			if first && rep != 0 {
				return false, rr.fail(c, "row %d starts with repetition level %d", rr.read, rep)
			}
			dst[c] = append(dst[c], col.next(row))
			values++
			switch {
			case values > rr.lim.rowValues:
				return false, fmt.Errorf("%w: row group %d: a row holds more than %d values (see --max-row-bytes)", errDamaged, rr.group, rr.lim.rowValues)
			case int64(len(row.data)) > rr.lim.rowGroupBytes:
				return false, fmt.Errorf("%w: row group %d: row %d holds more than %d bytes (see --max-row-bytes)", errDamaged, rr.group, rr.read, rr.lim.rowGroupBytes)
			}
		}
	}
	rr.read++
	return true, nil
}

// drain reads every row of the row group and drops them: the checks alone.
func (rr *rowGroupReader) drain() error {
	row := &pqRow{cols: make([][]pqValue, len(rr.cols))}
	for {
		ok, err := rr.next(row)
		if !ok {
			return err
		}
	}
}
