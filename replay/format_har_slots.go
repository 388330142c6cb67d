package replay

import (
	"bufio"
	"encoding/binary"
	"io"
	"os"
	"sort"
)

// maxMemSlots is how many slots the index pass keeps in memory (3.5 MB)
// while the entries are in time order: past that it writes them to a
// temporary file, read back in the same order, so that a HAR of
// millions of entries in order costs no memory per entry. Out of order,
// every slot is in memory to be sorted: 64 bytes per entry with events.
const maxMemSlots = 1 << 16

// slotSize is the bytes of a slot written to the file.
const slotSize = 7*8 + 1

// harSlots is the slots of a document in the order they are due.
type harSlots struct {
	mem      []harSlot
	last     harSlot // the slot added before, to see whether they are in order
	unsorted bool
	f        *os.File // the slots before mem, when they were too many
	w        *bufio.Writer
	r        *bufio.Reader
	inFile   int // slots in f, and of them read
	readFile int
	pos      int     // of mem, read
	cur      harSlot // the last read from f
	err      error   // the file could not be made: the slots stay in memory
}

// add adds the slot of the next entry with events.
func (s *harSlots) add(slot harSlot) {
	if s.inFile+len(s.mem) > 0 && slot.before(&s.last) {
		s.unsorted = true
	}
	s.last = slot
	s.mem = append(s.mem, slot)
	if len(s.mem) >= maxMemSlots && !s.unsorted && s.err == nil {
		s.spill()
	}
}

// spill writes the slots in memory to the file.
func (s *harSlots) spill() {
	if s.f == nil {
		f, err := os.CreateTemp("", "snapctl-har-slots-*")
		if err != nil {
			s.err = err // they stay in memory
			return
		}
		os.Remove(f.Name())
		s.f, s.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	var b [slotSize]byte
	for i := range s.mem {
		sl := &s.mem[i]
		for k, v := range [...]int64{sl.sec, sl.url, sl.text, sl.ws, sl.end, int64(sl.entry)<<32 | int64(uint32(sl.nsec)), sl.post} {
			binary.LittleEndian.PutUint64(b[8*k:], uint64(v))
		}
		b[56] = sl.flags
		s.w.Write(b[:])
	}
	s.inFile += len(s.mem)
	s.mem = s.mem[:0]
}

// done ends the index pass: the slots are then due in time order.
func (s *harSlots) done() error {
	if s.f != nil {
		if err := s.w.Flush(); err != nil {
			return err
		}
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		s.r = bufio.NewReaderSize(s.f, 64<<10)
	}
	if !s.unsorted {
		return nil
	}
	if s.inFile > 0 {
		// An entry came out of order after slots were spilled: all are
		// sorted in memory.
		all := make([]harSlot, 0, s.inFile+len(s.mem))
		for s.readFile < s.inFile {
			sl, _, err := s.next()
			if err != nil {
				return err
			}
			all = append(all, *sl)
		}
		s.mem, s.inFile, s.readFile = append(all, s.mem...), 0, 0
		s.close()
	}
	sort.SliceStable(s.mem, func(a, b int) bool { return s.mem[a].before(&s.mem[b]) })
	return nil
}

// next returns the next slot due, or false after the last.
func (s *harSlots) next() (*harSlot, bool, error) {
	if s.readFile < s.inFile {
		var b [slotSize]byte
		if _, err := io.ReadFull(s.r, b[:]); err != nil {
			s.readFile, s.pos = s.inFile, len(s.mem) // the slots end here
			return nil, false, err
		}
		s.readFile++
		v := func(k int) int64 { return int64(binary.LittleEndian.Uint64(b[8*k:])) }
		s.cur = harSlot{sec: v(0), url: v(1), text: v(2), ws: v(3), end: v(4), entry: int32(v(5) >> 32), nsec: int32(uint32(v(5))), post: v(6), flags: b[56]}
		return &s.cur, true, nil
	}
	if s.pos < len(s.mem) {
		s.pos++
		return &s.mem[s.pos-1], true, nil
	}
	return nil, false, nil
}

// close removes the file.
func (s *harSlots) close() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
		s.f = nil
	}
}
