package main

import (
	"runtime"
	"runtime/debug"
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
// command run in a test leaves the process as it found it), and says
// whether GOGC was lowered.
//
// The live heap is read from the collector's goal: at GOGC=100 (what runs
// here: GOGC unset) the next collection is due when the heap reaches twice
// what the last one left live, plus the goroutines' stacks and the
// globals, which are small beside BigHeap. runtime.ReadMemStats stops the
// world for microseconds every gcTunerPollPeriod; runtime/metrics, which
// reads the live heap directly, costs ~0.8 ms of package initialization
// at every start of the binary (#30: start-up).
func tuneGC(e *env) (stop func() (lowered bool)) {
	if e.getenv("GOGC") != "" || e.getenv("GOMEMLIMIT") != "" {
		return func() bool { return false }
	}
	done, finished := make(chan struct{}), make(chan struct{})
	lowered := false
	go func() {
		defer close(finished)
		t := time.NewTicker(gcTunerPollPeriod)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				if ms.NextGC/2 > BigHeap {
					debug.SetGCPercent(BigHeapGCPercent)
					lowered = true
					return
				}
			}
		}
	}()
	return func() bool {
		close(done)
		<-finished
		if lowered {
			debug.SetGCPercent(100)
		}
		return lowered
	}
}
