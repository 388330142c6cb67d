package replay

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"
	"unsafe"
)

// Reading a capture mapped in memory.
//
// A regular file of plain lines read by Run is mapped read-only
// (mapFile) instead of read: the reader's buffer is then a window of the
// mapping, lines point into it, and no byte is copied from the kernel,
// which was a sixth of the work of replaying a large capture. The window
// moves on as the lines are consumed; the pages behind it are given back
// (dropPages), so that what the process holds stays bounded as when it
// reads. A file that grew since it was mapped is read on from the end
// of the mapping.
//
// A mapped file truncated while it is read faults where its bytes were,
// past the page its new end is in; the rest of that page reads as zeros,
// so a line found whole before the cut and decoded after it is malformed
// there, as a line cut by a read would be (a NUL is valid nowhere in
// JSON), and the close reports the file shrank (ShrinkError).
// Every goroutine that touches the bytes of a mapped line turns that
// fault into a panic (debug.SetPanicOnFault) and recovers it. In the
// reader (Next) and the decoders (per line), the capture is then damaged
// at that line, as by a failed read, and the run goes on with the next
// capture; around fn, Run returns the damage as its error. A capture's
// mapping is let go of once no line of it is in flight (retire), and
// what is left when Run returns.

// mapWindow is how far the window reaches past the bytes delivered at
// each move, and keepMapped how much of the mapping behind the window's
// start stays in the process: about what the batches in flight hold (a
// batch may pass mappedBatchBytes by a line; pages given back too early
// are only read again from the file). Variables only so that the tests
// can make them small.
var (
	mapWindow  = 1 << 20
	keepMapped = batchesInFlight * mappedBatchBytes
	// dropSpan is the least given back at once: each give-back (a
	// madvise) flushes the translations of every core the process runs
	// on, which the decoders then miss, and giving back every 1 MiB
	// made replay of a 347 MB capture some 1.5% slower (medians of 15
	// interleaved runs) for 2 MiB less held.
	dropSpan = 4 << 20
	// mapMin is the smallest capture mapped: reading a smaller one costs
	// little, and the batches in flight then hold lines of a few mapped
	// captures at most, whatever the number of captures in the run.
	mapMin = 1 << 20
)

// errVanished is the cause of the damage to a mapped capture whose bytes
// were gone when read.
var errVanished = errors.New("its bytes are gone: the file was truncated or written over while being read")

// lineLost is the decode result of a line whose bytes were gone.
var lineLost = &DecodeError{Code: CodeInvalidPayload, Offset: -1}

// mappings are the captures a reader mapped and has not let go of.
type mappings struct {
	mu   sync.Mutex
	maps []mapping
}

// mapping is one capture mapped, with what its file was when mapped.
type mapping struct {
	m    []byte
	name string
	mod  time.Time
}

func (ms *mappings) add(m []byte, name string, fi os.FileInfo) {
	ms.mu.Lock()
	ms.maps = append(ms.maps, mapping{m: m, name: name, mod: fi.ModTime()})
	ms.mu.Unlock()
}

// explains tells whether e, recovered from a panic while a line of the
// capture file was read, comes from the capture changing under its
// mapping, the file being no longer as it was when mapped: a fault at an
// address of a mapping (the file was truncated), or a runtime error of
// code that read bytes changed since they were checked (the file was
// written over). Anything else is a bug, to panic again.
func (ms *mappings) explains(e any, file string) bool {
	if _, ok := e.(runtime.Error); !ok {
		return false
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	f, fault := e.(interface{ Addr() uintptr })
	for _, m := range ms.maps {
		if fault {
			start := uintptr(unsafe.Pointer(unsafe.SliceData(m.m)))
			if a := f.Addr(); a < start || a >= start+uintptr(len(m.m)) {
				continue
			}
		} else if m.name != file {
			continue
		}
		fi, err := os.Stat(m.name)
		return err != nil || fi.Size() != int64(len(m.m)) || !fi.ModTime().Equal(m.mod)
	}
	return false
}

// unmap lets go of m once nothing reads it.
func (ms *mappings) unmap(m []byte) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for i := range ms.maps {
		if unsafe.SliceData(ms.maps[i].m) == unsafe.SliceData(m) {
			unmap(m)
			ms.maps = slices.Delete(ms.maps, i, i+1)
			return
		}
	}
}

// release unmaps every mapping. Nothing may read them after.
func (ms *mappings) release() {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for _, m := range ms.maps {
		unmap(m.m)
	}
	ms.maps = nil
}

// noMap, set by tests, makes Run read every capture.
var noMap bool

// mapIn maps the stream's file when it is a regular file, recording the
// mapping in ms. What the format's sniffing read through raw is already
// counted and hashed.
func (s *stream) mapIn(ms *mappings) {
	fi, err := s.file.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < s.raw.n || fi.Size() < int64(mapMin) {
		return
	}
	m := mapFile(s.file, fi.Size())
	if m == nil {
		return
	}
	ms.add(m, s.src.name, fi)
	s.m, s.hp = m, int(s.raw.n)
}

// advance delivers the mapping up to e: it counts and hashes the bytes
// not yet counted, as raw does the bytes it reads.
func (s *stream) advance(e int) {
	s.mo, s.out = e, int64(e)
	if e <= s.hp {
		return
	}
	if s.raw.sum != nil {
		s.raw.sum.Write(s.m[s.hp:e])
	}
	s.raw.n += int64(e - s.hp)
	s.raw.total.Add(int64(e - s.hp))
	s.hp = e
}

// mapEnd is called once the whole mapping is delivered. It reports
// whether the file grew since it was mapped: the stream then reads it on
// from the mapping's end, as any other.
func (s *stream) mapEnd() bool {
	fi, err := s.file.Stat()
	if err == nil && fi.Size() > int64(len(s.m)) {
		s.readOn()
		return true
	}
	s.raw.eof = true
	return false
}

// readOn stops reading the mapping: the stream reads the file on from
// the first byte not yet delivered.
func (s *stream) readOn() {
	// raw read on from where it counted and hashed to, which may be past
	// the bytes delivered: the format's sniffing read ahead through it.
	off := int64(s.hp)
	s.raw.r = io.NewSectionReader(s.file, off, math.MaxInt64-off)
	s.br.Reset(s.raw)
	// Whatever s.in held is of the mapping, already delivered: the bytes
	// a rewind kept (a plain capture whose first bytes looked compressed)
	// among them.
	s.in = io.NopCloser(s.br)
	if s.mo < s.hp {
		ahead := bytes.Clone(s.m[s.mo:s.hp])
		s.in = io.NopCloser(io.MultiReader(bytes.NewReader(ahead), s.br))
	}
	s.leave()
}

// unmapFramed goes back to reading a capture whose format is not plain
// lines once it is known: its framer may write over the lines it reads
// (a docker log is unescaped in place), which a mapping cannot take.
func (r *Reader) unmapFramed() {
	if r.src.m == nil || (r.frame == nil && r.har == nil) {
		return
	}
	r.src.readOn()
	r.leaveMap()
	r.retire(r.src)
}

// leave stops reading the mapping, and gives back its pages; the
// mapping itself lasts until the reader retires it.
func (s *stream) leave() {
	if s.m == nil {
		return
	}
	if end := len(s.m) &^ (os.Getpagesize() - 1); end > s.dropped {
		dropPages(s.m[s.dropped:end])
	}
	s.left, s.m = s.m, nil
}

// retire hands the mapping the stream left (leave) to be let go of once
// no line of it is read any more: at once on the reader's goroutine,
// where the line before is done with when Next is called, or once the
// batch being filled is released (onRetire, set by Run's pipeline). The
// reader's buffer is no longer in it.
func (r *Reader) retire(s *stream) {
	if s == nil || s.left == nil {
		return
	}
	m := s.left
	s.left = nil
	if r.onRetire != nil {
		r.onRetire(m)
		return
	}
	r.maps.unmap(m)
}

// drop gives back the pages of the mapping more than keepMapped behind
// start, once they are dropSpan or more.
func (s *stream) drop(start int) {
	if start-s.dropped < keepMapped+dropSpan {
		return
	}
	end := (start - keepMapped) &^ (os.Getpagesize() - 1)
	dropPages(s.m[s.dropped:end])
	s.dropped = end
}

// readMapped is Read for a mapped stream (a HAR capture's decoder reads
// through it).
func (s *stream) readMapped(p []byte) (int, error) {
	if s.mo == len(s.m) {
		if !s.mapEnd() {
			return 0, io.EOF
		}
		return s.Read(p)
	}
	n := copy(p, s.m[s.mo:])
	s.advance(s.mo + n)
	return n, nil
}

// fillMapped moves the reader's window on: it starts at the first byte
// not consumed and reaches mapWindow past the bytes delivered so far.
// At the mapping's end it sets eof, or goes back to reading into the
// reader's own buffer when the file grew.
func (r *Reader) fillMapped() {
	s := r.src
	start := s.mo - (r.w - r.r)
	if !r.inMap {
		// The lines delivered from the reader's buffer are its owner's.
		r.heap = r.buf
		if r.swap != nil && r.w > 0 {
			r.heap = r.swap(r.buf, 0)
		}
		r.inMap = true
	}
	if r.isClosed() {
		// As a read of the closed file fails: the capture is not read
		// to its end, so it is not hashed on.
		r.eof, s.raw.err = true, os.ErrClosed
		return
	}
	if s.mo == len(s.m) {
		if s.mapEnd() {
			r.leaveMap()
			r.retire(s)
			r.fill()
		} else {
			r.eof = true
		}
		return
	}
	end := min(len(s.m), s.mo+mapWindow)
	r.stats.Bytes += int64(end - s.mo)
	s.advance(end)
	r.buf, r.r, r.w = s.m[start:end:end], 0, end-start
	s.drop(start)
}

// outOfMap makes the reader's own buffer its buffer again.
func (r *Reader) outOfMap() { r.buf, r.heap, r.inMap = r.heap, nil, false }

// leaveMap goes back to the reader's own buffer, with the bytes of the
// window not yet consumed.
func (r *Reader) leaveMap() {
	if !r.inMap {
		return
	}
	rest := r.buf[r.r:r.w]
	r.outOfMap()
	if len(r.buf) < len(rest)+firstReadSize {
		r.buf = make([]byte, max(len(rest)+firstReadSize, readSize))
	}
	r.w, r.r = copy(r.buf, rest), 0
}

// nextGuarded is Next for a reader that may map its captures: a fault in
// a mapping damages the capture being read, which is then left, and
// reports false.
func (r *Reader) nextGuarded() (l Line, err error, ok bool) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if e := recover(); e != nil {
			if !r.maps.explains(e, r.name) {
				panic(e)
			}
			r.vanished(r.off)
			l, err, ok = Line{}, nil, false
		}
	}()
	l, err = r.next()
	return l, err, true
}

// vanished damages the capture being read, whose mapped bytes were gone
// from off on, and leaves it.
func (r *Reader) vanished(off int64) {
	if r.src == nil {
		return
	}
	d := &DamageError{Name: r.name, Offset: off, Decoded: off, Err: errVanished}
	// Nothing more is read of it, not even to hash it; endSource retires it.
	if r.src.m != nil {
		r.src.left, r.src.m = r.src.m, nil
	}
	r.src.stopped = true
	if r.inMap {
		r.outOfMap()
	}
	r.r, r.w, r.eof = 0, 0, true
	r.endSource()
	r.damaged(d)
	r.lost = append(r.lost, d.Name)
}

// lostLine damages the capture of l, whose mapped bytes were gone when a
// decoder or fn read them, unless the reader found it so first. Run calls
// it once the reader is done.
func (r *Reader) lostLine(l *Line) {
	for _, n := range r.lost {
		if n == l.File {
			return
		}
	}
	r.damaged(&DamageError{Name: l.File, Offset: l.Off, Decoded: l.Off, Err: errVanished})
	r.lost = append(r.lost, l.File)
}

// decodeGuarded is decodeLine, on a goroutine set to panic on a fault:
// a line whose mapped bytes are gone decodes to lineLost. ms is nil when
// nothing is mapped.
func decodeGuarded(ms *mappings, d *Decoder, l Line, ev *Event, maxLine int) (derr *DecodeError) {
	if ms == nil {
		return decodeLine(d, l, ev, maxLine)
	}
	defer func() {
		if e := recover(); e != nil {
			if !ms.explains(e, l.File) {
				panic(e)
			}
			*ev = Event{}
			derr = lineLost
		}
	}()
	return decodeLine(d, l, ev, maxLine)
}
