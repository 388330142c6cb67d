package replay

import (
	"io"
	"time"
)

// Budget bounds the work a Reader does, for a caller that must answer
// in time whatever the captures hold (shell completion): once Bytes have
// been read of the captures as stored, or Bytes of their text after
// decompression, or once Deadline has passed, every capture reads as if
// it ended there. Bytes counts every pass over a document (a HAR read
// out of order is read more than once). Zero fields do not bound.
type Budget struct {
	Bytes    int64
	Deadline time.Time
}

// budgetChunk is the most a budgeted read asks for at once, so that the
// deadline is looked at between every few hundred KiB a decoder scans.
const budgetChunk = 256 << 10

// budget is a Budget being spent by one Reader's streams, all read on
// the reader's goroutine.
type budget struct {
	Budget
	raw, out int64
	spent    bool
}

// SetBudget bounds what the reader reads; Stats.Stopped then tells
// whether the bound was reached. It must be called before the first Next.
func (r *Reader) SetBudget(b Budget) {
	r.budget = &budget{Budget: b}
}

// allow returns how much of want may be read now, and false once the
// budget is spent: n counts the bytes already read on one side.
func (b *budget) allow(n int64, want int) (int, bool) {
	if b == nil {
		return want, true
	}
	want = min(want, budgetChunk)
	if b.spent || (!b.Deadline.IsZero() && !time.Now().Before(b.Deadline)) {
		b.spent = true
		return 0, false
	}
	if b.Bytes > 0 {
		left := b.Bytes - n
		if left <= 0 {
			b.spent = true
			return 0, false
		}
		if int64(want) > left {
			want = int(left)
		}
	}
	return want, true
}

// budgetReader reads r within b, counting into raw or out.
type budgetReader struct {
	r   io.Reader
	b   *budget
	raw bool
}

func (br budgetReader) Read(p []byte) (int, error) {
	n := &br.b.out
	if br.raw {
		n = &br.b.raw
	}
	want, ok := br.b.allow(*n, len(p))
	if !ok {
		return 0, io.EOF
	}
	k, err := br.r.Read(p[:want])
	*n += int64(k)
	return k, err
}

// within wraps r in the budget b, if any.
func within(r io.Reader, b *budget, raw bool) io.Reader {
	if b == nil {
		return r
	}
	return budgetReader{r: r, b: b, raw: raw}
}
