package ingest

import "container/heap"

// Merge interleaves readers in time order. Ties are broken by the reader's
// index (the order files were named) and then by each reader's own order, so
// the result is deterministic. Malformed and skipped items carry no time: they
// are passed on as soon as they are read, in reader order. A reader whose own
// records go back in time is not reordered: its records come out in file
// order, and the replay reports them as out of time order.
func Merge(readers ...Reader) Reader {
	if len(readers) == 1 {
		return readers[0]
	}
	return &merger{readers: readers, refill: -1}
}

type mergeHead struct {
	rec *Record
	src int
}

type merger struct {
	readers []Reader
	started bool
	refill  int // reader whose record was handed out last, to read on the next Scan; -1 none
	h       mergeHeap
	pending []*Record // untimed items (errors, skips) waiting to be passed on
	cur     *Record
	err     error
}

type mergeHeap []mergeHead

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if !a.rec.TS.Equal(b.rec.TS) {
		return a.rec.TS.Before(b.rec.TS)
	}
	return a.src < b.src
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(mergeHead)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// fill reads reader i up to its next timed record, queueing untimed items.
func (m *merger) fill(i int) {
	r := m.readers[i]
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil || rec.Skip != "" {
			m.pending = append(m.pending, rec)
			continue
		}
		heap.Push(&m.h, mergeHead{rec, i})
		return
	}
	if err := r.Err(); err != nil && m.err == nil {
		m.err = err
	}
}

func (m *merger) Scan() bool {
	if !m.started {
		m.started = true
		for i := range m.readers {
			m.fill(i)
		}
	}
	// The record handed out last stays valid until now (see Reader): only
	// now may its reader move on.
	if m.refill >= 0 {
		m.fill(m.refill)
		m.refill = -1
	}
	if len(m.pending) > 0 {
		m.cur = m.pending[0]
		m.pending = m.pending[1:]
		return true
	}
	if m.err != nil || m.h.Len() == 0 {
		return false
	}
	top := heap.Pop(&m.h).(mergeHead)
	m.cur = top.rec
	m.refill = top.src
	return true
}

func (m *merger) Record() *Record { return m.cur }

// Err returns the first I/O error of any reader. The merge stops at it: a
// partial merge of the other files would misplace their records in time.
func (m *merger) Err() error { return m.err }

// InputSize is the sum of the readers' input sizes when every one of them
// knows its own, else 0 (see Sized).
func (m *merger) InputSize() int64 {
	var total int64
	for _, r := range m.readers {
		s, ok := r.(Sized)
		if !ok || s.InputSize() <= 0 {
			return 0
		}
		total += s.InputSize()
	}
	return total
}
