//go:build !amd64 || purego

package prefetch

import "unsafe"

// lines does nothing where there is no assembly version.
func lines(p unsafe.Pointer, n uintptr) {}
