package inspect

import (
	"fmt"
	"time"

	"github.com/agentskit/snapctl/inspect/model"
	"github.com/agentskit/snapctl/replay"
)

// DeliveryStall is how long a response of a record capture may go quiet
// between two of its lines before delivery-gap reports it.
const DeliveryStall = 2 * time.Second

// delivery follows the receipt times of a record capture's responses
// (replay.Origin.ReceivedAt), exchange by exchange.
type delivery struct {
	// last is, by exchange, its last line's receipt and emit times; at
	// most maxOpenExchanges are held (past it the map starts afresh, and
	// a gap across that point goes unseen).
	last map[int]deliveredLine
	gaps tally
	// worst is the longest gap: after which line, and how far apart the
	// two lines' emittedAt are (emitted false when either has none).
	worst struct {
		gap, apart time.Duration
		emitted    bool
		req        int
		session    string
	}
}

// deliveredLine is what delivery keeps of an exchange's last line.
type deliveredLine struct {
	at, emitted time.Time
	hasEmitted  bool
}

// observeDelivery looks at the gap between a response line's receipt
// and the one before it in its exchange.
func (in *Inspector) observeDelivery(res *replay.Result) {
	o := res.Origin
	if o == nil || o.Request == 0 || o.Sent || o.ReceivedAt == "" {
		return
	}
	at, err := time.Parse(time.RFC3339Nano, o.ReceivedAt)
	if err != nil {
		return
	}
	line := deliveredLine{at: at}
	if ev := res.Event; ev != nil && !ev.Emitted.IsZero() {
		line.emitted, line.hasEmitted = ev.Emitted, true
	}
	d := &in.delivery
	prev, ok := d.last[o.Request]
	if !ok && len(d.last) >= maxOpenExchanges {
		clear(d.last)
	}
	if d.last == nil {
		d.last = map[int]deliveredLine{}
	}
	d.last[o.Request] = line
	gap := at.Sub(prev.at)
	if !ok || gap < DeliveryStall {
		return
	}
	d.gaps.hit("")
	d.gaps.at(in.limit, in.pos(model.PositionOf(res)))
	if gap > d.worst.gap {
		w := &d.worst
		w.gap, w.req, w.emitted, w.session = gap, o.Request, prev.hasEmitted && line.hasEmitted, o.RequestSession
		w.apart = line.emitted.Sub(prev.emitted)
		if res.Event != nil {
			w.session = res.Event.SessionID
		}
	}
}

// deliveryFindings is the delivery-gap finding, when a gap was seen.
func (in *Inspector) deliveryFindings(out []Finding) []Finding {
	d := &in.delivery
	if d.gaps.n == 0 {
		return out
	}
	w := d.worst
	why := "the lines carry no emittedAt to tell a paused server from a held stream"
	switch {
	case w.emitted && w.apart < w.gap/2:
		why = fmt.Sprintf("emitted %s apart: they were held on the way, not late from the server", w.apart.Round(time.Millisecond))
	case w.emitted:
		why = fmt.Sprintf("emitted %s apart: the server paused", w.apart.Round(time.Millisecond))
	}
	of := ""
	if replay.IsSafeIdentifier(w.session) {
		of = " (session " + w.session + ")"
	}
	msg := fmt.Sprintf("%s of a response arrived %s or more after the line before it; the longest, %s in request %d%s, %s",
		count(d.gaps.n, "line", "lines"), DeliveryStall, w.gap.Round(time.Millisecond), w.req, of, why)
	// Gaps are counted over every exchange, whatever its session: the
	// finding names none, as request-refused does.
	return append(out, in.finding(DeliveryGap, "", &d.gaps, msg))
}
