// Package cputimetest reports a benchmark's throughput per CPU second;
// it is apart from cputime so that the binary, which reads the CPU time
// to choose its parallelism, does not link the testing package.
package cputimetest

import (
	"testing"
	"time"

	"github.com/killswitch/killswitch/internal/cputime"
)

// Report adds the throughput per CPU second of a benchmark loop to b's
// metrics: "cpu-ns/op" and, when bytes > 0, "cpu-MB/s" (bytes per
// operation). start is cputime.Used() before the loop. With more than one goroutine
// busy, CPU time adds up the time of all of them.
func Report(b *testing.B, start time.Duration, bytes int64) {
	end, ok := cputime.Used()
	if !ok || b.N == 0 {
		return
	}
	perOp := float64(end-start) / float64(b.N)
	b.ReportMetric(perOp, "cpu-ns/op")
	if bytes > 0 {
		b.ReportMetric(float64(bytes)/perOp*1e3, "cpu-MB/s")
	}
}
