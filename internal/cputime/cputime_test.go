package cputime

import (
	"runtime"
	"testing"
)

// TestUsedAdvances: CPU time never goes back, and busy work makes it grow
// (the loop stops as soon as it does; no duration is asserted).
func TestUsedAdvances(t *testing.T) {
	start, ok := Used()
	if !ok {
		if runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" && runtime.GOOS != "wasip1" {
			t.Fatalf("Used not measured on %s", runtime.GOOS)
		}
		t.Skip("CPU time not measured on this platform")
	}
	x := uint64(1)
	for i := int64(0); i < 1<<32; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		if i&0xfffff == 0 {
			now, _ := Used()
			if now < start {
				t.Fatalf("CPU time went back: %v then %v", start, now)
			}
			if now > start {
				return
			}
		}
	}
	t.Fatalf("CPU time did not advance after 2^32 iterations (%d)", x)
}
