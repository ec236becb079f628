//go:build !unix

package dataset

import (
	"io/fs"
	"os"
)

func openNonblocking(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrInvalid}
	}
	return os.Open(path)
}

func writableByUser(st fs.FileInfo) bool { return st.Mode().Perm()&0o200 != 0 }

func ownerNote(fs.FileInfo) string { return "" }
