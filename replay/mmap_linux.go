package replay

import (
	"math"
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only, or returns nil when
// it cannot: the capture is then read as any other. Nothing is ever
// written through the mapping.
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 || size > math.MaxInt32*int64(1<<16) || math.MaxInt == math.MaxInt32 {
		// An empty file cannot be mapped, and no address space takes one
		// past 128 TiB; on 32 bits, a capture would fill it.
		return nil
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return m
}

// unmap ends a mapping made by mapFile.
func unmap(m []byte) { syscall.Munmap(m) }

// dropPages lets the kernel take back the pages of b, a page-aligned part
// of a mapping: they are read again from the file if touched, so it only
// keeps what the process holds of a long capture small.
func dropPages(b []byte) { syscall.Madvise(b, syscall.MADV_DONTNEED) }
