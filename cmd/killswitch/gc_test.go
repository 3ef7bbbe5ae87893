package main

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// gogc is the collector's GOGC now, read without changing it.
func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestTuneGC: once the live heap passes BigHeap the tuner lowers GOGC to
// BigHeapGCPercent, and stopping it restores 100; below BigHeap, or with
// GOGC or GOMEMLIMIT set by the user, it leaves GOGC alone.
func TestTuneGC(t *testing.T) {
	if gogc() != 100 {
		t.Skipf("GOGC is %d here", gogc())
	}
	noEnv := &env{getenv: func(string) string { return "" }}
	wait := func(stop func() bool) bool {
		deadline := time.Now().Add(5 * time.Second)
		for gogc() != BigHeapGCPercent && time.Now().Before(deadline) {
			runtime.GC()
			time.Sleep(2 * gcTunerPollPeriod)
		}
		return stop()
	}

	// Below BigHeap: left alone.
	stop := tuneGC(noEnv)
	runtime.GC()
	time.Sleep(4 * gcTunerPollPeriod)
	if stop() || gogc() != 100 {
		t.Fatalf("lowered with a small heap (GOGC %d)", gogc())
	}

	live := make([][]byte, BigHeap>>20+16)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	runtime.GC()
	for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
		stop := tuneGC(&env{getenv: func(k string) string {
			if k == v {
				return "200"
			}
			return ""
		}})
		time.Sleep(4 * gcTunerPollPeriod)
		if stop() || gogc() != 100 {
			t.Errorf("with %s set: lowered (GOGC %d)", v, gogc())
		}
	}

	stop = tuneGC(noEnv)
	if got := gogc(); !wait(stop) {
		t.Errorf("live heap of %d MiB: GOGC not lowered (was %d)", len(live), got)
	}
	if gogc() != 100 {
		t.Errorf("GOGC %d after stop, want 100", gogc())
	}
	runtime.KeepAlive(live)
}
