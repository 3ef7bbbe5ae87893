package prefetch

import (
	"testing"
	"unsafe"
)

// Prefetching changes nothing, and a nil address does not fault.
func TestBytesHasNoEffect(t *testing.T) {
	b := make([]byte, 1000)
	for i := range b {
		b[i] = byte(i)
	}
	for off := 0; off < 200; off++ {
		for _, n := range []uintptr{0, 1, 63, 64, 65, 300, 1000 - uintptr(off)} {
			Bytes(unsafe.Pointer(&b[off]), n)
		}
	}
	Bytes(nil, 8)
	for i := range b {
		if b[i] != byte(i) {
			t.Fatalf("byte %d changed", i)
		}
	}
}
