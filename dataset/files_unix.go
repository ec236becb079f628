//go:build unix

package dataset

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// openNonblocking opens path for reading without waiting for a FIFO's
// writer; O_NONBLOCK changes nothing for a regular file's reads.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// writableByUser reads st's permission bits for the process's user: the
// owner's when it owns the file, the group's when it is in the file's
// group, the others' otherwise.
func writableByUser(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	perm := st.Mode().Perm()
	if !ok {
		return perm&0o200 != 0
	}
	switch {
	case int(sys.Uid) == os.Geteuid():
		return perm&0o200 != 0
	case inGroup(int(sys.Gid)):
		return perm&0o020 != 0
	}
	return perm&0o002 != 0
}

func inGroup(gid int) bool {
	if gid == os.Getegid() {
		return true
	}
	groups, err := os.Getgroups()
	return err == nil && slices.Contains(groups, gid)
}

// ownerNote names the file's owner when it is another user.
func ownerNote(st fs.FileInfo) string {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return fmt.Sprintf(", owned by uid %d", sys.Uid)
	}
	return ""
}
