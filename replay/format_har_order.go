package replay

import (
	"bufio"
	"encoding/json"
	"sort"
	"time"
)

// readAt reads the entry at offset of a capture stored plain: after
// the comma and white space that separate it from the one before.
func (h *harReader) readAt(offset int64) (*harEntry, error) {
	in, done, err := h.open.open(offset)
	if err != nil {
		return nil, err
	}
	defer done()
	br := bufio.NewReader(in)
	for {
		c, err := br.ReadByte()
		if err != nil {
			return nil, err
		}
		if c != ',' && !isSpace(c) {
			br.UnreadByte()
			break
		}
	}
	var e harEntry
	if err := json.NewDecoder(br).Decode(&e); err != nil {
		return nil, err
	}
	return &e, nil
}

// reread starts a new pass over the document.
func (h *harReader) reread() error {
	if h.closePass != nil {
		h.closePass()
		h.closePass = nil
	}
	in, done, err := h.open.open(0)
	if err != nil {
		return err
	}
	h.dec, h.closePass, h.passIdx = json.NewDecoder(in), done, 0
	return h.enterEntries()
}

// sortEntries prepares to read the entries in startedDateTime order when
// the document has them in another order. It reads the document once
// through, keeping only each entry's time; an entry whose time does not
// parse keeps its place after the one before it. On any error the
// entries are read in document order, where the error is reported.
func (h *harReader) sortEntries(open opener) {
	in, done, err := open.open(0)
	if err != nil {
		return
	}
	defer done()
	pre := &harReader{dec: json.NewDecoder(in)}
	if pre.enterEntries() != nil {
		return
	}
	var times []time.Time
	var offsets []int64
	sorted := true
	for pre.dec.More() {
		offsets = append(offsets, pre.dec.InputOffset())
		var e struct {
			StartedDateTime string `json:"startedDateTime"`
		}
		if pre.dec.Decode(&e) != nil {
			return
		}
		t, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		if err != nil && len(times) > 0 {
			t = times[len(times)-1]
		}
		if len(times) > 0 && t.Before(times[len(times)-1]) {
			sorted = false
		}
		times = append(times, t)
	}
	if sorted {
		return
	}
	h.order = make([]int, len(times))
	for i := range h.order {
		h.order[i] = i
	}
	sort.SliceStable(h.order, func(a, b int) bool { return times[h.order[a]].Before(times[h.order[b]]) })
	h.open = open
	if open.seekable {
		h.offsets = offsets
	}
}
