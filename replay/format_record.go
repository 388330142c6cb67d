package replay

import (
	"bytes"
	"encoding/json"

	"github.com/agentskit/snapctl/replay/internal/wire"
)

// recordKey opens every context record of a capture `snapctl record`
// wrote ({"snapctl":"request",…}): no event of the protocol has the key,
// so the reference reads such a line as one malformed line and snapctl
// as the capture's framing. The format is described in internal/record.
var recordKey = []byte(`{"snapctl":`)

// maxRecordExchanges bounds the exchanges a record capture's reader keeps
// open at once (those whose end record has not come), whatever a hostile
// capture holds: past it, a new exchange's lines carry only its number.
const maxRecordExchanges = 1 << 14

// contextRecord is what the reader reads of a context record.
type contextRecord struct {
	Kind    string `json:"snapctl"`
	Req     int    `json:"req"`
	At      string `json:"at"`
	Lines   int    `json:"lines"`
	Status  int    `json:"status"`
	URL     string `json:"url"`
	Session string `json:"sessionId"`
	Turn    string `json:"turnId"`
	Bytes   int64  `json:"bytes"`
}

// exchange is what the reader keeps of one open HTTP exchange.
type exchange struct {
	url, session, turn string
	status             int
}

// recordFramer reads a capture `snapctl record` wrote: NDJSON lines as
// they crossed the proxy, each run of them announced by a context record
// that says whose they are, when they arrived and how many physical
// lines follow. Those lines are events whatever they hold, so a body
// line shaped like a context record is never taken for one.
type recordFramer struct {
	mix   *mixer
	stats *Stats
	open  map[int]*exchange
	left  int     // body lines still to come of the last sent/received record
	cur   *Origin // their origin
	rec   contextRecord
}

func (f *recordFramer) line(l Line) (Line, bool) {
	if f.left > 0 {
		f.left--
		l.Origin = f.cur
		return l, true
	}
	if l.TooLong || !bytes.HasPrefix(l.Data, recordKey) {
		return l, true // a line no record announced: an NDJSON event
	}
	f.rec = contextRecord{}
	if json.Unmarshal(l.Data, &f.rec) != nil || f.rec.Kind == "" {
		return l, true // not a context record after all: malformed as in NDJSON
	}
	f.context(&f.rec)
	if f.rec.Kind == "cut" {
		// A line the proxy did not hold: one event too long to decode,
		// as a line over --max-line is, with its real length, and a
		// detail that names the proxy's limit rather than the reader's.
		l.Data, l.TooLong, l.Len, l.Origin = nil, true, max(f.rec.Bytes, 0), f.origin(&f.rec, "received")
		l.bad = wire.LineCut(l.Len)
		return l, true
	}
	f.stats.Context++
	return Line{}, false
}

// origin is the origin of the lines a record of kind announces.
func (f *recordFramer) origin(c *contextRecord, kind string) *Origin {
	o := &Origin{ReceivedAt: c.At, Request: c.Req, Sent: kind == "sent"}
	if x := f.open[c.Req]; x != nil {
		o.URL, o.RequestSession, o.RequestTurn = x.url, x.session, x.turn
		if !o.Sent {
			o.Status = x.status
		}
	}
	return o
}

// context applies one context record.
func (f *recordFramer) context(c *contextRecord) {
	if f.open == nil {
		f.open = map[int]*exchange{}
	}
	x := f.open[c.Req]
	switch c.Kind {
	case "request":
		if len(f.open) < maxRecordExchanges {
			f.open[c.Req] = &exchange{url: c.URL, session: c.Session, turn: c.Turn}
		}
	case "response":
		if x != nil {
			x.status = c.Status
		}
	case "sent", "received":
		f.cur, f.left = f.origin(c, c.Kind), max(c.Lines, 0)
	case "end":
		delete(f.open, c.Req)
	}
}

func (f *recordFramer) pending() (Line, bool) { return Line{}, false }

func (f *recordFramer) flush() (Line, bool) { return Line{}, false }
