//go:build linux

package wire

import (
	"runtime/debug"
	"syscall"
	"testing"
)

// TestPlainPrefixReadsNoFurther ends buffers of every length up to 300
// bytes where the address space stops (a page that may not be read
// follows): a scan that read past its end would fault, as one would past
// the end of a mapped capture.
func TestPlainPrefixReadsNoFurther(t *testing.T) {
	page := syscall.Getpagesize()
	m, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Munmap(m)
	if err := syscall.Mprotect(m[page:], syscall.PROT_NONE); err != nil {
		t.Skip(err)
	}
	for i := range page {
		m[i] = 'z'
	}
	withPortable(t, func(t *testing.T) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if e := recover(); e != nil {
				t.Fatalf("read past the end of its buffer: %v", e)
			}
		}()
		for n := 0; n <= 300; n++ {
			b := m[page-n : page : page]
			checkPlain(t, b)
			if n > 0 {
				b[n-1] = '"'
				checkPlain(t, b)
				b[n-1] = 'z'
			}
		}
	})
}
