package replay

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDropSpans moves a stream's window through a mapping as the reader
// does and checks how its pages are given back: never more than
// keepMapped+dropSpan held behind the window's start, and dropSpan or
// more at each give-back, so that the decoders do not lose their
// translations at every move of the window.
func TestDropSpans(t *testing.T) {
	name := filepath.Join(t.TempDir(), "capture")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	size := 16*dropSpan + keepMapped
	if err := f.Truncate(int64(size)); err != nil {
		t.Fatal(err)
	}
	m := mapFile(f, int64(size))
	if m == nil {
		t.Skip("cannot map")
	}
	defer unmap(m)
	s := &stream{m: m}
	drops := 0
	for start := 0; start <= size; start += mapWindow {
		before := s.dropped
		s.drop(start)
		if s.dropped != before {
			drops++
			if got := s.dropped - before; got < dropSpan {
				t.Fatalf("window at %d: %d bytes given back at once, want at least %d", start, got, dropSpan)
			}
		}
		if held := start - s.dropped; held >= keepMapped+dropSpan {
			t.Fatalf("window at %d: %d bytes held behind it, want under %d", start, held, keepMapped+dropSpan)
		}
	}
	if drops < 15 || drops > 16 {
		t.Fatalf("%d give-backs of %d bytes, want 15 or 16", drops, size)
	}
}
