package analyze

import (
	"runtime"
	"sync"

	"github.com/killswitch/killswitch/ingest"
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
// parallelPays) ahead of the engine, in batches whose results land in
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
// goroutines (≤ 0: the default, see parallelPays) ahead of step, and
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
// default parallelism (workers ≤ 0) it starts on one worker and takes
// GOMAXPROCS workers once parallelPays (see there).
func drive(src ingest.Reader, p *Profile, workers int, step func(*ingest.Record, *Features) error, ahead func([]*ingest.Record)) error {
	if workers <= 0 {
		if n := runtime.GOMAXPROCS(0); n > 1 {
			var size int64
			if s, ok := src.(ingest.Sized); ok {
				size = s.InputSize()
			}
			return driveAuto(src, p, n, step, ahead, func(records int, bytes int64) bool {
				return parallelPays(size, records, bytes)
			})
		}
		workers = 1
	}
	if workers > 1 {
		return driveParallel(src, p, workers, step, ahead)
	}
	_, err := driveOne(src, p, step, ahead, nil)
	return err
}

// driveAuto steps src on one worker until pays, asked after each group
// with the records and body bytes read so far, says yes; then the rest
// on workers.
func driveAuto(src ingest.Reader, p *Profile, workers int, step func(*ingest.Record, *Features) error, ahead func([]*ingest.Record), pays func(records int, bytes int64) bool) error {
	switched, err := driveOne(src, p, step, ahead, pays)
	if err != nil || !switched {
		return err
	}
	return driveParallel(src, p, workers, step, ahead)
}

// The default parallelism starts on one worker and moves to several once
// it expects at least autoRecords more records, averaging at most
// autoRecordBytes of bodies: the records left, estimated from the input's
// size and the bodies read so far, or, when the size is unknown (a pipe,
// a compressed file, several files merged, a trace format), once
// autoRecords have been read. Several workers cost a fixed price (the
// reader's buffers and the batches in flight touched for the first time,
// goroutines handing batches over, a second thread) that a short input
// does not win back, and each worker reads its bodies again on another
// core, which records of hundreds of kilobytes, where extraction is only
// a scan for the last user message, pay more for than they gain. Measured
// on this project's 2-core machine (#30, docs/performance.md
// "Parallelism"): two workers lost to one or tied below about 4,000
// records (2,454 tool-agent calls of 12 KB, 29 MB; 2,083 calls of 48 KB;
// 4,100 short chat calls), and won 6–35 % from about 5,000 records up, at
// any size to 48 KB a record; on 250 calls of 600–900 KB they took 1.7×
// one worker's time.
// Output is the same at any parallelism, so the choice is about time
// only; an explicit --workers is always obeyed.
const (
	autoRecords     = 4096
	autoRecordBytes = 128 << 10
	autoProbe       = 64 // records read before an input of known size is judged
)

// parallelPays reports whether a replay of an input of size bytes (0:
// unknown) that has read records records, with bytes of bodies, should
// take several workers for the rest (see autoRecords).
func parallelPays(size int64, records int, bytes int64) bool {
	if records == 0 || bytes > int64(records)*autoRecordBytes {
		return false
	}
	if size <= 0 {
		return records >= autoRecords
	}
	if records < autoProbe {
		return false
	}
	left := (size - bytes) * int64(records) / max(bytes, 1)
	return left >= autoRecords
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

func driveParallel(src ingest.Reader, p *Profile, workers int, step func(*ingest.Record, *Features) error, ahead func([]*ingest.Record)) error {
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
			return err
		}
		return src.Err()
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
	for b := range ordered {
		<-b.done
		if stepErr != nil {
			continue
		}
		if err := stepGroup(b.recs, b.feats, step, ahead); err != nil {
			stepErr = err
			close(stop)
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
		return stepErr
	}
	return readErr
}
