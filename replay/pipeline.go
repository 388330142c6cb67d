package replay

import (
	"errors"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/agentskit/snapctl/internal/poison"
	"github.com/agentskit/snapctl/replay/internal/wire"
)

// Run reads every line of rd, decodes the lines on several goroutines and
// applies them to the cursors strictly in input order, calling fn with
// each result. It stops at the first error from fn. Damaged input does
// not stop it: the lines before the damage are all applied, the summary
// counts the damage (Summary.Input.Damaged) and rd.Err() returns it, once
// Run has returned. Memory is
// bounded by the batches in flight, not by the length of the capture.
// When fn fails, Run returns without waiting for the reading goroutine,
// which may be blocked on a quiet live input: it ends at that input's
// next read. The Result passed to fn is reused for the next line, as its
// Event is: a Result a line would cost a million lines a million
// allocations.
func Run(rd *Reader, opts Options, fn func(*Result) error) (sum Summary, err error) {
	r, err := NewRunner(opts)
	if err != nil {
		return Summary{}, err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Regular files are mapped (mapped.go), but not while tests poison
	// the lines delivered: a mapping cannot be written.
	rd.mapOK = !noMap && !poison.Released
	// fn may read a mapped line whose bytes are gone.
	var p *pipeline
	var res Result
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if e := recover(); e != nil {
			if !rd.maps.explains(e, res.File) {
				panic(e)
			}
			if p != nil {
				p.abortRelease(rd)
			} else {
				rd.maps.release()
			}
			sum = r.Summary(Stats{})
			err = &DamageError{Name: res.File, Offset: -1, Err: errVanished}
		}
	}()
	if workers == 1 || opts.KeepRaw {
		sum, err = runSequential(r, rd, fn, &res)
		rd.maps.release()
		return sum, err
	}
	p = newPipeline(rd, opts, workers)
	// A line whose bytes were gone when decoded damages its capture: it
	// and the lines after it in the same capture are not applied.
	var lost []Line
	skip := false
	for {
		b, ok := p.next(opts.Idle)
		if !ok {
			break
		}
		for i := range b.lines {
			l := &b.lines[i]
			if skip {
				if prev := lost[len(lost)-1]; l.File == prev.File && l.Num > prev.Num {
					continue
				}
				skip = false
			}
			if b.errs[i] == lineLost {
				lost, skip = append(lost, Line{File: l.File, Num: l.Num, Off: l.Off}), true
				continue
			}
			if !r.keep(l, &b.events[i], b.errs[i]) {
				continue
			}
			res = lineResult(l)
			if opts.wantsRaw(l, b.errs[i]) {
				res.Raw = l.Data // the batch holds it until release
			}
			r.apply(&res, &b.events[i], b.errs[i])
			res.Cut = cutShort(l, b.errs[i])
			if err := fn(&res); err != nil {
				// The reader may be blocked on a quiet live stream: tell
				// it to stop, but do not wait for it.
				p.abortRelease(rd)
				return r.Summary(Stats{}), err
			}
		}
		p.release(b)
	}
	p.wg.Wait()
	stats := p.stats
	if len(lost) > 0 {
		for i := range lost {
			rd.lostLine(&lost[i])
		}
		stats = rd.Stats()
	}
	rd.maps.release()
	return r.Summary(stats), p.err
}

func runSequential(r *Runner, rd *Reader, fn func(*Result) error, res *Result) (Summary, error) {
	if r.opts.Idle != nil {
		rd.onFill = r.opts.Idle
	}
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return r.Summary(rd.Stats()), nil
		}
		if err != nil {
			return r.Summary(rd.Stats()), err
		}
		var ok bool
		if ok = r.stepGuarded(rd, l, res); !ok {
			continue
		}
		if err := fn(res); err != nil {
			return r.Summary(rd.Stats()), err
		}
	}
}

// stepGuarded is step, for a line that may be mapped: when its bytes are
// gone, its capture is damaged and left, and it reports false.
func (r *Runner) stepGuarded(rd *Reader, l Line, res *Result) (ok bool) {
	if !rd.mapOK {
		*res, ok = r.step(l)
		return ok
	}
	defer func() {
		if e := recover(); e != nil {
			if !rd.maps.explains(e, l.File) {
				panic(e)
			}
			rd.vanished(l.Off) // the line was consumed: the damage is at its start
			ok = false
		}
	}()
	*res, ok = r.step(l)
	return ok
}

// batchBytes and batchLines bound a batch before it is handed to a
// decoder: its line data, and its lines, each of which costs a Line, an
// Event and maybe a DecodeError (some 500 bytes) however short it is.
// Bounded by bytes alone, a batch of 1-byte lines held a million of them.
// batchesInFlight bounds how many batches exist at once.
const (
	batchBytes      = 1 << 20
	batchLines      = 1024
	batchesInFlight = 8
)

// mappedBatchBytes bounds a batch of lines in a mapping: a read sends
// its batch at each read of readSize, before it waits (onFill), which a
// mapping never does, and batches four times as large held four times
// the decoded messages in flight.
//
// A run that decodes no messages sends batches twice as large, half as
// many at once (briefBatches): the same bytes in flight, handed over half
// as often, each hand-over a goroutine that may wake (replay 5% faster
// on two cores). Only for as many decoders as those batches keep busy
// (briefWorkers: one batch is filled and one consumed as the others are
// decoded); more decoders keep the batches of reads. A run that decodes
// whole messages keeps them too: its consumer reads the lines' bytes
// again, which are then still in the cache (diff was 10% slower with the
// larger ones). Brief messages (Options.BriefMessages: inspect, lineage)
// are a few fields the consumer reads, and take the larger batches (their
// wall 1-2% less, medians of 10 interleaved runs).
const (
	mappedBatchBytes = readSize
	briefBatches     = batchesInFlight / 2
	briefWorkers     = briefBatches - 2
)

// spareBytes bounds the arrays of messages a released batch keeps for
// reuse (wire.Decoder.Borrow): over every batch, 4 MiB at most, where a
// capture of small snapshots takes some 300 KiB a batch.
const spareBytes = 512 << 10

// messageSize is the bytes of a Message.
const messageSize = int(unsafe.Sizeof(Message{}))

// maxPooled is the largest reader buffer the pipeline keeps for reuse:
// the buffer a line of up to batchBytes grows, doubling. The buffers in
// the pool and those the batches own are then at most what the batches
// held when they copied their lines, and lines of some hundreds of KiB
// cost no allocation each.
const maxPooled = 2 * batchBytes

// batch is a run of consecutive lines with their decode results. A line
// read from the reader's buffer points into it, and the buffer, handed
// over when the reader would reuse it (Reader.swap), is owned by the
// batch being filled then: batches are released in input order, so the
// earlier batches with lines in it are gone when it is recycled. Lines
// made elsewhere (joined records, HAR bodies) are copied into buf.
type batch struct {
	buf    []byte
	starts []int // offset of each line's data in buf; -1 for a line in the reader's buffer or without data
	ends   []int
	lines  []Line
	events []Event
	errs   []*DecodeError
	owned  [][]byte // reader buffers this batch recycles when released
	retire [][]byte // mappings this batch unmaps when released
	size   int      // bytes of line data
	done   chan struct{}
	// held, when set, is closed on release: the reader waits for it
	// before reusing the buffer a long line's Raw points into.
	held chan struct{}
	// slot tells that the batch holds one of the pipeline's slots.
	slot bool
}

type pipeline struct {
	ordered chan *batch // batches in input order, for the consumer
	work    chan *batch // the same batches, for the decoders
	free    chan *batch
	quit    chan struct{}
	wg      sync.WaitGroup
	err     error // read error, valid once ordered is closed
	stats   Stats // reader stats, valid once ordered is closed
	once    sync.Once
	opts    Options
	// long decodes lines too long to copy into a batch, on the reader's
	// goroutine.
	long Decoder
	// bufs holds reader buffers of at most maxPooled bytes for the reader
	// to go on in once a batch hands its own back. pending are buffers
	// swapped out of the reader, owned by the next batch sent; used tells
	// whether a line in a batch points into the reader's buffer.
	bufs    chan []byte
	pending [][]byte
	used    bool
	// maps, when the reader may map its captures, are its mappings: the
	// decoders guard against their bytes being gone. retiring are the
	// mappings the reader left, owned by the next batch sent.
	maps     *mappings
	retiring [][]byte
	// mappedBytes bounds a batch of lines in a mapping; slots, when not
	// nil, bounds the batches begun in one (see briefBatches).
	mappedBytes int
	slots       chan struct{}
}

func newPipeline(rd *Reader, opts Options, workers int) *pipeline {
	p := &pipeline{
		ordered: make(chan *batch, batchesInFlight),
		work:    make(chan *batch, batchesInFlight),
		free:    make(chan *batch, batchesInFlight),
		quit:    make(chan struct{}),
		opts:    opts,
		long:    opts.decoder(),
		bufs:    make(chan []byte, batchesInFlight+2),
	}
	if rd.mapOK {
		p.maps = &rd.maps
		// A capture's mapping is let go of once the batch being filled
		// when the reader left it is released: the lines of it are all
		// in that batch or in earlier ones, which are released before.
		rd.onRetire = func(m []byte) { p.retiring = append(p.retiring, m) }
		p.mappedBytes = mappedBatchBytes
		if (!opts.Messages || opts.BriefMessages) && workers <= briefWorkers {
			p.mappedBytes = batchesInFlight / briefBatches * mappedBatchBytes
			p.slots = make(chan struct{}, briefBatches)
			for range briefBatches {
				p.slots <- struct{}{}
			}
		}
	}
	// A long line is decoded from the reader's buffer, which the reader
	// reuses before fn sees the line: its messages cannot be borrowed.
	p.long.Borrow = false
	for i := 0; i < batchesInFlight; i++ {
		p.free <- &batch{}
	}
	for i := 0; i < workers; i++ {
		p.wg.Add(1)
		go p.decode(opts)
	}
	go p.read(rd)
	return p
}

// read splits the input into batches. A batch is sent when it is full,
// and also whenever the reader is about to wait for input, so that lines
// of a live stream are never held back.
func (p *pipeline) read(rd *Reader) {
	debug.SetPanicOnFault(true) // see decodeGuarded
	defer close(p.work)
	defer close(p.ordered)
	defer func() { p.stats = rd.Stats(); rd.swap, rd.onRetire = nil, nil }()
	var b *batch
	send := func() bool {
		if b == nil || len(b.lines) == 0 {
			return true
		}
		b.owned, p.pending = append(b.owned, p.pending...), p.pending[:0]
		b.retire, p.retiring = append(b.retire, p.retiring...), p.retiring[:0]
		b.done = make(chan struct{})
		select {
		case p.ordered <- b:
		case <-p.quit:
			return false
		}
		p.work <- b
		b = nil
		return true
	}
	next := func() bool {
		select {
		case b = <-p.free:
		case <-p.quit:
			return false
		}
		b.buf, b.lines, b.starts, b.ends, b.size = b.buf[:0], b.lines[:0], b.starts[:0], b.ends[:0], 0
		if rd.inMap && p.slots != nil {
			select {
			case <-p.slots:
				b.slot = true
			case <-p.quit:
				return false
			}
		}
		return true
	}
	rd.swap = func(old []byte, need int) []byte {
		if !p.used {
			return old // no line points into it: the reader moves its rest in place
		}
		p.used = false
		p.pending = append(p.pending, old)
		// The same size again, so that lines as long go on without the
		// buffer growing anew; a buffer grown for a line over a batch,
		// which is decoded on its own, is not kept up.
		size := max(need, len(old))
		if len(old) > maxPooled {
			size = max(need, readSize)
		}
		select {
		case nb := <-p.bufs:
			if len(nb) >= size {
				return nb
			}
		default:
		}
		return make([]byte, size)
	}
	stopped := false
	rd.onFill = func() {
		if !stopped && !send() {
			stopped = true
		}
	}
	for !stopped {
		l, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				p.err = err
			}
			break
		}
		if len(l.Data) > batchBytes {
			// A long line is decoded here, straight from the reader's
			// buffer, and travels alone: copied into a batch it would be
			// held once more for every batch in flight.
			if !send() || !next() || !p.sendLong(b, l) {
				return
			}
			b = nil
			continue
		}
		if b == nil && !next() {
			return
		}
		b.size += len(l.Data)
		switch {
		case rd.inBuffer(l.Data):
			// The line stays where the reader read it (see batch).
			b.starts, b.ends = append(b.starts, -1), append(b.ends, 0)
			p.used = true
		case l.Data == nil:
			// No text was held (a message over the limit): none is
			// copied, and Raw stays nil, as on the reader's goroutine.
			b.starts, b.ends = append(b.starts, -1), append(b.ends, 0)
		default:
			// Copied into the batch; Data is set by the decoder, since
			// buf may move while it grows.
			b.starts = append(b.starts, len(b.buf))
			b.buf = append(b.buf, l.Data...)
			b.ends = append(b.ends, len(b.buf))
			l.Data = nil
		}
		b.lines = append(b.lines, l)
		if b.size >= batchBytes || len(b.lines) >= batchLines || (rd.inMap && b.size >= p.mappedBytes) {
			if !send() {
				break
			}
		}
	}
	if !stopped {
		send()
	}
}

// sendLong decodes l into the empty batch b and sends it, already done.
// A line whose text fn is to see (RawMalformed, RawFramed) stays in the
// reader's buffer, and the reader waits until fn is done with it: copied,
// it would be held once more for every batch in flight.
func (p *pipeline) sendLong(b *batch, l Line) bool {
	b.lines = append(b.lines, l)
	b.starts, b.ends = append(b.starts, 0), append(b.ends, 0)
	b.events, b.errs = append(b.events[:0], Event{}), append(b.errs[:0], nil)
	b.errs[0] = decodeGuarded(p.maps, &p.long, l, &b.events[0], p.opts.MaxLine)
	var held chan struct{}
	if p.opts.wantsRaw(&l, b.errs[0]) {
		held = make(chan struct{})
		b.held = held
	} else {
		b.lines[0].Data = nil // the reader's buffer, about to be reused
	}
	b.done = make(chan struct{})
	close(b.done)
	select {
	case p.ordered <- b:
	case <-p.quit:
		return false
	}
	if held != nil {
		select {
		case <-held:
		case <-p.quit:
			return false
		}
	}
	return true
}

func (p *pipeline) decode(opts Options) {
	defer p.wg.Done()
	debug.SetPanicOnFault(true) // see decodeGuarded
	d := opts.decoder()
	for b := range p.work {
		n := len(b.lines)
		if cap(b.events) < n {
			b.events = make([]Event, n)
			b.errs = make([]*DecodeError, n)
		}
		b.events, b.errs = b.events[:n], b.errs[:n]
		for i := range b.lines {
			l := &b.lines[i]
			if s := b.starts[i]; s >= 0 {
				l.Data = b.buf[s:b.ends[i]]
				if l.Data == nil {
					// Empty text, of a batch whose buf is still nil: it
					// is there, and Raw says so as on one core.
					l.Data = []byte{}
				}
			}
			b.errs[i] = decodeGuarded(p.maps, &d, *l, &b.events[i], opts.MaxLine)
		}
		close(b.done)
	}
}

// next returns the next batch in input order once it is decoded. idle is
// called before waiting.
func (p *pipeline) next(idle func()) (*batch, bool) {
	var b *batch
	var ok bool
	select {
	case b, ok = <-p.ordered:
	default:
		if idle != nil {
			idle()
		}
		b, ok = <-p.ordered
	}
	if !ok {
		return nil, false
	}
	select {
	case <-b.done:
	default:
		if idle != nil {
			idle()
		}
		<-b.done
	}
	return b, true
}

func (p *pipeline) release(b *batch) {
	if poison.Released {
		poison.Fill(b.buf)
	}
	for i, buf := range b.owned {
		if poison.Released {
			poison.Fill(buf)
		}
		if len(buf) <= maxPooled {
			select {
			case p.bufs <- buf:
			default:
			}
		}
		b.owned[i] = nil
	}
	b.owned = b.owned[:0]
	// Drop every reference to line data (the lines, and the messages
	// borrowed from them) before any mapping goes: a pooled batch must
	// hold no pointer into memory that is unmapped, whose addresses the
	// heap may take later (a pointer into a free span is a fatal error
	// of the collector). A borrowing run keeps the messages' arrays,
	// cleared, for the batch's next lines, up to spareBytes of them.
	spare, kept := p.opts.Messages && p.opts.BorrowMessages, 0
	for i := range b.events {
		var ms []Message
		if spare {
			if m := wire.Spare(b.events[i].Snapshot.Messages); kept+cap(m) <= spareBytes/messageSize {
				ms, kept = m, kept+cap(m)
			}
		}
		b.events[i] = Event{Snapshot: Snapshot{Messages: ms}}
	}
	clear(b.lines)
	clear(b.errs)
	for i, m := range b.retire {
		p.maps.unmap(m)
		b.retire[i] = nil
	}
	b.retire = b.retire[:0]
	if b.held != nil {
		close(b.held) // the reader may reuse its buffer
		b.held = nil
	}
	if b.slot {
		b.slot = false
		p.slots <- struct{}{}
	}
	p.free <- b
}

// abort tells the reader to stop sending batches.
func (p *pipeline) abort() {
	p.once.Do(func() { close(p.quit) })
}

// abortRelease is abort for Run returning early: rd's mappings are let
// go of once its goroutines, which may still read them, are gone (the
// decoders end after the reader, which closes their work).
func (p *pipeline) abortRelease(rd *Reader) {
	p.abort()
	go func() {
		p.wg.Wait()
		rd.maps.release()
	}()
}
