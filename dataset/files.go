package dataset

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Files are opened for reading only when they are regular files: opening
// a FIFO blocks until a writer comes (and a signal does not interrupt the
// wait), and a device or a directory is never a dataset. The file is
// opened without blocking and its type checked on the open file, so that
// a FIFO put in place between a check and the open cannot block either.

// openRegular opens path for reading; what is not a regular file is an
// error naming what it is.
func openRegular(path string) (*os.File, error) {
	f, err := openNonblocking(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, modeKind(st.Mode()))
	}
	return f, nil
}

// readRegular reads a regular file of at most limit bytes.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}

// modeKind names a file mode's type for errors.
func modeKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}

// errNotReplaceable marks an existing file that an output would replace
// but the user could not write.
var errNotReplaceable = errors.New("refusing to replace it")

// checkReplaceable refuses an existing file at path that is not a regular
// file, or that the user could not write: renaming over it needs only a
// writable directory, so without this check -o would replace a read-only
// file, or another user's. The permission bits are read as the kernel
// would for the owner, group and others, also for root (as mv asks before
// it overrides a read-only mode). A missing file, or a symbolic link
// (renaming replaces the link, not its target), is fine.
func checkReplaceable(what, path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	m := st.Mode()
	if m&fs.ModeSymlink != 0 {
		return nil
	}
	if !m.IsRegular() {
		return fmt.Errorf("%s %s exists and is not a regular file (%s); %w", what, path, modeKind(m), errNotReplaceable)
	}
	if !writableByUser(st) {
		return fmt.Errorf("%s %s exists and is read-only for you (mode %#o%s); %w: remove it or make it writable first",
			what, path, m.Perm(), ownerNote(st), errNotReplaceable)
	}
	return nil
}
