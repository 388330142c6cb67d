//go:build unix

package replay

import (
	"os"
	"syscall"
)

// fileID is what os.SameFile compares on this platform, a file's device
// and inode, as a map key: one lookup a named file, however many are
// named.
func fileID(fi os.FileInfo) (any, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
