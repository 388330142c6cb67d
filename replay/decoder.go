package replay

import "github.com/agentskit/snapctl/replay/internal/wire"

// Decoder decodes event lines. It reuses its buffers from line to line, so
// one Decoder must not be used by two goroutines at once.
type Decoder struct {
	// Messages asks for each snapshot's message records (Snapshot.Messages).
	Messages bool
	// AllProblems asks for every problem of a malformed line rather than
	// the first one.
	AllProblems bool
	// EventPath, when set, is the gjson path of the event inside each line
	// of a wrapped capture.
	EventPath string
	// Hash asks for Snapshot.Hash.
	Hash bool
	// Borrow makes the message strings point into the line given to
	// Decode (see Options.BorrowMessages).
	Borrow bool
	// Brief keeps of each message only its id, role, status and content
	// (see Options.BriefMessages).
	Brief bool

	w wire.Decoder
}

// Decode decodes one line (without its line ending). It returns the event,
// or a DecodeError whose code is the one the reference would give. A line
// over MaxLineLimit is refused with CodeLineTooLong, without being read.
func (d *Decoder) Decode(line []byte, ev *Event) *DecodeError {
	d.w.Messages, d.w.AllProblems, d.w.EventPath, d.w.Hash, d.w.Borrow, d.w.Brief = d.Messages, d.AllProblems, d.EventPath, d.Hash, d.Borrow, d.Brief
	return d.w.Decode(line, ev)
}
