package main

import "runtime/debug"

// SweepGCPercent is the collector's GOGC in sweep when neither GOGC nor
// GOMEMLIMIT is set. A sweep's live heap is large and long-lived (every
// request, packed) while what it allocates besides is short-lived, so
// Go's default (the heap may grow to twice what is live) mostly holds
// garbage: at 50 it holds a third less for a few percent more CPU.
const SweepGCPercent = 50

// lowerGC sets GOGC to percent unless the user tuned the collector.
func lowerGC(e *env, percent int) {
	if e.getenv("GOGC") == "" && e.getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(percent)
	}
}
