package cputime

import (
	"testing"
	"time"
)

// Report adds the throughput per CPU second of a benchmark loop to b's
// metrics: "cpu-ns/op" and, when bytes > 0, "cpu-MB/s" (bytes per
// operation). start is Used() before the loop. With more than one goroutine
// busy, CPU time adds up the time of all of them.
func Report(b *testing.B, start time.Duration, bytes int64) {
	end, ok := Used()
	if !ok || b.N == 0 {
		return
	}
	perOp := float64(end-start) / float64(b.N)
	b.ReportMetric(perOp, "cpu-ns/op")
	if bytes > 0 {
		b.ReportMetric(float64(bytes)/perOp*1e3, "cpu-MB/s")
	}
}
