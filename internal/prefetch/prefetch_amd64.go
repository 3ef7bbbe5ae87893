//go:build amd64 && !purego

package prefetch

import "unsafe"

// lines issues PREFETCHT0 for the n lines (1 to 4) from the one holding p
// (prefetch_amd64.s).
//
//go:noescape
func lines(p unsafe.Pointer, n uintptr)
