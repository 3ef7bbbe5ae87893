package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// What replay and sweep hold is long-lived (one book per agent; every
// request, packed, for a sweep) while what they allocate besides is
// short-lived. Go's default collector (GOGC=100) lets the heap grow to
// twice what is live before it collects: with a large live heap that
// headroom is mostly garbage. Once the live heap passes BigHeap, the
// commands run the collector at GOGC=BigHeapGCPercent: the heap grows by
// half what is live, for a few percent more CPU; below it, when memory
// does not matter, nothing changes. GOGC or GOMEMLIMIT set by the user
// turn this off.
const (
	BigHeap           = 64 << 20
	BigHeapGCPercent  = 50
	gcTunerPollPeriod = 50 * time.Millisecond
)

// tuneGC watches the live heap until it passes BigHeap, then lowers GOGC;
// the returned function stops watching (and restores GOGC, so that a
// command run in a test leaves the process as it found it).
func tuneGC(e *env) (stop func()) {
	if e.getenv("GOGC") != "" || e.getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	lowered := false
	go func() {
		defer close(finished)
		t := time.NewTicker(gcTunerPollPeriod)
		defer t.Stop()
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-t.C:
				metrics.Read(live)
				if live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() > BigHeap {
					debug.SetGCPercent(BigHeapGCPercent)
					lowered = true
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		if lowered {
			debug.SetGCPercent(100)
		}
	}
}
