// Package prefetch asks the processor to bring memory into its caches
// ahead of use, without waiting for it: a hint with no effect on what a
// program computes. The replay's engine uses it to fetch the state of the
// next records' agents (their books, names and windows: thousands of
// agents' state does not fit the core's cache) while it steps the current
// ones, so that the misses overlap instead of stalling one after another.
//
// On amd64 it is the PREFETCHT0 instruction (prefetch_amd64.s); elsewhere,
// and under the purego build tag, it does nothing.
package prefetch

import "unsafe"

// Line is the cache line size the functions assume.
const Line = 64

// Bytes asks for the n bytes at p (at most 4 lines are fetched: the
// start of a longer value). p may be nil or dangling: a prefetch never
// faults.
func Bytes(p unsafe.Pointer, n uintptr) {
	if n == 0 {
		return
	}
	lines(p, min((uintptr(p)%Line+n+Line-1)/Line, 4))
}
