package analyze

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/cputime"
)

// Hooks receive a replay's output as it happens. Any may be nil. An error
// returned by a hook stops the replay and is returned by Replay. The
// Decision, Transition and Record a hook is given are valid only during
// the call (the engine and the reader reuse their memory; a hook that
// keeps one copies it).
type Hooks struct {
	Decision   func(*Decision) error
	Transition func(*Transition) error
	// Problem sees every malformed or skipped input item (warn == ""),
	// and every warning (a record out of time order, an unreadable
	// response, an invalid config record) with its record, in replay order.
	Problem func(rec *ingest.Record, warn string) error
}

// Replay runs every record of src through an Engine configured by cfg.
// Feature extraction runs on workers goroutines (≤ 0: the default, see
// autoRecords) ahead of the engine, in batches whose results land in
// pre-sized slots, so the output is identical at any parallelism. The
// returned error is src's I/O error or a hook's.
func Replay(src ingest.Reader, cfg Config, workers int, h Hooks) (*Summary, error) {
	eng, err := NewEngine(cfg)
	if err != nil {
		return nil, err
	}
	step := func(rec *ingest.Record, f *Features) error {
		if (rec.Err != nil || rec.Skip != "") && h.Problem != nil {
			if err := h.Problem(rec, ""); err != nil {
				return err
			}
		}
		d, trans := eng.step(rec, f)
		// The warnings, the extractor's and the engine's, are reported
		// when they happen, in replay order (the first KeptWarnings of
		// each kind; the rest are counted in the summary).
		if h.Problem != nil {
			for _, w := range eng.Reported() {
				if err := h.Problem(rec, w.Msg); err != nil {
					return err
				}
			}
		}
		for i := range trans {
			if h.Transition != nil {
				if err := h.Transition(&trans[i]); err != nil {
					return err
				}
			}
		}
		if d != nil && h.Decision != nil {
			return h.Decision(d)
		}
		return nil
	}
	if err := drive(src, cfg.Profile, workers, step, eng.ahead); err != nil {
		return nil, err
	}
	return eng.Finish(), nil
}

// Drive extracts the features of every record of src, on workers
// goroutines (≤ 0: the default, see autoRecords) ahead of step, and
// hands step each record with its features in input order: the one
// driver of Replay and Collect. step may use the record and its features
// only during the call (a Holder's records are reused once stepped). The
// returned error is src's I/O error or step's.
func Drive(src ingest.Reader, p *Profile, workers int, step func(*ingest.Record, *Features) error) error {
	return drive(src, p, workers, step, nil)
}

// aheadRecords is how many records drive hands ahead at a time (step
// then steps them): enough for the misses on their agents' state to
// overlap, few enough that what a group read stays in the cache. With one
// worker a group also ends when the reader has fewer than groupSlack
// bytes left of what it read (ingest.Holder's Buffered), so that its next
// read, once the group is released, reuses its buffer from the start
// rather than touching fresh memory after the held records, and once its
// records' bodies fill batchBytes, as a batch of several workers closes:
// long records (hundreds of kilobytes of context a call) gain nothing from
// being stepped together, and sixteen of them held at once would keep the
// reader taking fresh buffers.
const (
	aheadRecords = 16
	groupSlack   = 16 << 10
)

// drive is Drive that, when ahead is not nil, also hands ahead the next
// records, up to aheadRecords, just before they are stepped: Replay's
// engine asks the processor for their agents' state then. With the
// default parallelism (workers ≤ 0) it starts on one worker, tries
// GOMAXPROCS workers once parallelPays, and keeps them if they run in
// parallel (see autoRecords).
func drive(src ingest.Reader, p *Profile, workers int, step func(*ingest.Record, *Features) error, ahead func([]*ingest.Record)) error {
	if workers <= 0 {
		if n := runtime.GOMAXPROCS(0); n > 1 {
			var size int64
			if s, ok := src.(ingest.Sized); ok {
				size = s.InputSize()
			}
			c := newAutoChoice(size, time.Now, cputime.Used)
			return driveAuto(src, p, n, step, ahead, c.pays, c.back)
		}
		workers = 1
	}
	if workers > 1 {
		_, err := driveParallel(src, p, workers, step, ahead, nil)
		return err
	}
	_, err := driveOne(src, p, step, ahead, nil)
	return err
}

// driveAuto steps src on one worker until pays, asked after each group
// with the records and body bytes read so far, says yes; then on
// workers, until back, asked after each batch stepped with the records
// and body bytes stepped on workers so far, says yes (nil: never); then
// the rest on one worker. Each switch happens between records, so the
// records and features stepped are those of any other parallelism.
func driveAuto(src ingest.Reader, p *Profile, workers int, step func(*ingest.Record, *Features) error, ahead func([]*ingest.Record), pays, back func(records int, bytes int64) bool) error {
	switched, err := driveOne(src, p, step, ahead, pays)
	if err != nil || !switched {
		return err
	}
	switched, err = driveParallel(src, p, workers, step, ahead, back)
	if err != nil || !switched {
		return err
	}
	_, err = driveOne(src, p, step, ahead, nil)
	return err
}

// driveOne steps src's records on this goroutine, extracting each group's
// features before stepping it. When until is not nil it is asked after
// each group, with the records and body bytes read so far, whether to
// stop there and leave the rest of src to another driver (switched).
func driveOne(src ingest.Reader, p *Profile, step func(*ingest.Record, *Features) error, ahead func([]*ingest.Record), until func(records int, bytes int64) bool) (switched bool, err error) {
	x := NewExtractor(p)
	// A Holder's records are stepped in groups (the next read while the
	// previous ones are still valid) and handed back after each group, so
	// that its next ones reuse their memory (step keeps nothing of rec);
	// any other reader's records are valid only until the next Scan, and
	// stepped one at a time.
	holder, _ := src.(ingest.Holder)
	var held ingest.Held
	group := 1
	if holder != nil {
		holder.Hold(&held)
		group = aheadRecords
	}
	var recs [aheadRecords]*ingest.Record
	var feats [aheadRecords]Features // step may keep a pointer only during the call
	records, total := 0, int64(0)
	for more := true; more; {
		n, size := 0, 0
		for ; n < group; n++ {
			if n > 0 && holder != nil && (holder.Buffered() < groupSlack || size >= batchBytes) {
				break
			}
			if more = src.Scan(); !more {
				break
			}
			recs[n], feats[n] = src.Record(), Features{}
			size += len(recs[n].Request) + len(recs[n].Response)
			if needsFeatures(recs[n]) {
				feats[n] = x.Extract(recs[n])
			}
		}
		if err := stepGroup(recs[:n], feats[:n], step, ahead); err != nil {
			return false, err
		}
		clear(recs[:n])
		if holder != nil {
			holder.Hold(&held)
			held.Release()
		}
		records, total = records+n, total+int64(size)
		if more && until != nil && until(records, total) {
			return true, nil
		}
	}
	return false, src.Err()
}

// stepGroup hands recs to ahead, in groups of at most aheadRecords, and
// steps each with its features.
func stepGroup(recs []*ingest.Record, feats []Features, step func(*ingest.Record, *Features) error, ahead func([]*ingest.Record)) error {
	for len(recs) > 0 {
		n := min(len(recs), aheadRecords)
		if ahead != nil {
			ahead(recs[:n])
		}
		for i, rec := range recs[:n] {
			if err := step(rec, &feats[i]); err != nil {
				return err
			}
		}
		recs, feats = recs[n:], feats[n:]
	}
	return nil
}

func needsFeatures(rec *ingest.Record) bool {
	return rec.Err == nil && rec.Skip == "" && rec.Control == nil
}

// A batch closes at batchRecords records or once its records' bodies fill
// batchBytes, whichever comes first: short records are handed over in
// hundreds, long ones (tool agents sending 10–30 KB of history a call) in
// tens, so that a batch's bodies stay in the cache between the read and
// the extraction, and the engine starts after a quarter of a megabyte
// rather than after megabytes. A reader that can hold its buffers
// (ingest.Holder: the JSONL reader) lends them to the batch until the
// engine is done with it; any other reader's records are copied into the
// batch's arena, grown to arenaCap as the first batches fill, then reused.
const (
	batchRecords = 256
	batchBytes   = 256 << 10
	arenaCap     = 2 * batchBytes // a record up to batchBytes always fits; a larger one gets a buffer of its own
)

type batch struct {
	recs  []*ingest.Record
	feats []Features
	held  ingest.Held // the reader's buffers its records point into (a Holder's)
	arena []byte      // else the batch's copies of its records' bodies
	done  chan struct{}
}

func newBatch() *batch {
	return &batch{recs: make([]*ingest.Record, 0, batchRecords)}
}

// fill reads records from src into b (emptied first), until b closes or
// src ends, holding src's buffers when src is a Holder, else copying the
// records' bodies into b's arena; more is false when src has ended.
func (b *batch) fill(src ingest.Reader) (more bool) {
	b.recs, b.arena = b.recs[:0], b.arena[:0]
	holder, _ := src.(ingest.Holder)
	more = true
	for size := 0; len(b.recs) < batchRecords && size < batchBytes; {
		if more = src.Scan(); !more {
			break
		}
		rec := src.Record()
		need := len(rec.Request) + len(rec.Response)
		if holder == nil {
			if cap(b.arena)-len(b.arena) < need && cap(b.arena) < arenaCap {
				// The arena grows as the first batches fill (then it is
				// reused), so that a small input does not clear and
				// fault in half a megabyte; the records copied so far
				// keep the smaller one.
				b.arena = make([]byte, 0, min(arenaCap, max(2*cap(b.arena), need, 16<<10)))
			}
			b.arena = rec.CopyInto(b.arena)
		}
		size += need
		b.recs = append(b.recs, rec)
	}
	if holder != nil {
		holder.Hold(&b.held)
	}
	if cap(b.feats) >= len(b.recs) {
		b.feats = b.feats[:len(b.recs)]
	} else {
		b.feats = make([]Features, len(b.recs), batchRecords)
	}
	return more
}

// driveParallel extracts src's features on workers goroutines, in
// batches, and steps them here in input order. When back is not nil it is
// asked after each batch stepped, with the records and body bytes stepped
// so far, whether to stop reading; the batches already read are stepped,
// and halted says src is left at the record after them for another
// driver (false when src ended first).
func driveParallel(src ingest.Reader, p *Profile, workers int, step func(*ingest.Record, *Features) error, ahead func([]*ingest.Record), back func(records int, bytes int64) bool) (halted bool, err error) {
	// An input that fits one batch (a check's small capture, a one-line
	// replay) is extracted here: no goroutine would earn its start.
	first := newBatch()
	if h, ok := src.(ingest.Holder); ok {
		h.Hold(&first.held) // holding on: from here every record stays valid until its batch is released
	}
	if !first.fill(src) {
		x := NewExtractor(p)
		for i, rec := range first.recs {
			if needsFeatures(rec) {
				first.feats[i] = x.Extract(rec)
			}
		}
		if err := stepGroup(first.recs, first.feats, step, ahead); err != nil {
			return false, err
		}
		return false, src.Err()
	}
	// At most workers+2 batches are out at a time (the queued, one the
	// reader fills or waits to queue, one being stepped): about a
	// megabyte whatever the input, every page of which a fresh process
	// touches for the first time (a queue of 2×workers kept ~0.5 MB more
	// in flight for no gain in time).
	work := make(chan *batch, workers)
	ordered := make(chan *batch, workers)
	stop := make(chan struct{})
	var readErr error
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := NewExtractor(p)
			for b := range work {
				for i, rec := range b.recs {
					if needsFeatures(rec) {
						b.feats[i] = x.Extract(rec)
					}
				}
				close(b.done)
			}
		}()
	}
	// Batches are recycled once the engine is done with them, and the
	// reader's buffers they held released for the reader to reuse (or,
	// for a reader that holds nothing, their arenas reused: a memmove
	// where a fresh allocation would also cost zeroing it).
	free := make(chan *batch, workers*8)
	// halt, set by the stepping loop when back says so, stops the reader
	// before its next batch: the batches read are stepped, and src is
	// left at the record after them (halted, read once ordered is closed).
	var halt atomic.Bool
	go func() {
		defer close(ordered)
		defer close(work)
		b, more := first, true
		for {
			b.done = make(chan struct{})
			select {
			case work <- b:
			case <-stop:
				return
			}
			select {
			case ordered <- b:
			case <-stop:
				return
			}
			if !more {
				readErr = src.Err()
				return
			}
			if halt.Load() {
				halted = true
				return
			}
			select {
			case b = <-free:
			default:
				b = newBatch()
			}
			if more = b.fill(src); !more && len(b.recs) == 0 {
				readErr = src.Err()
				return
			}
		}
	}()
	var stepErr error
	records, total := 0, int64(0)
	for b := range ordered {
		<-b.done
		if stepErr != nil {
			continue
		}
		if err := stepGroup(b.recs, b.feats, step, ahead); err != nil {
			stepErr = err
			close(stop)
		}
		if back != nil && stepErr == nil && !halt.Load() {
			records += len(b.recs)
			for _, rec := range b.recs {
				total += int64(len(rec.Request) + len(rec.Response))
			}
			if back(records, total) {
				halt.Store(true)
			}
		}
		b.held.Release()
		clear(b.recs)
		clear(b.feats)
		select {
		case free <- b:
		default:
		}
	}
	wg.Wait()
	if stepErr != nil {
		return false, stepErr
	}
	return halted && readErr == nil, readErr
}
