package benchmarks

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/cputime"
	"github.com/killswitch/killswitch/internal/cputime/cputimetest"
)

// BenchmarkSmallCaptures: what `killswitch check DIR` and CI jobs pay per
// capture when captures are small: fixtures/scenarios (8 files of 5–80
// records) opened from disk through ingest.Open and replayed, one after
// the other, at the default parallelism. Per capture, the fixed costs
// dominate: the reader's buffer and the first batch's arena (#30: sized
// to the file, grown as it fills), which a fresh process also faults in.
func BenchmarkSmallCaptures(b *testing.B) {
	paths, _ := filepath.Glob("../fixtures/scenarios/*.jsonl")
	if len(paths) == 0 {
		b.Skip("no fixtures/scenarios")
	}
	var size int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	cpu0, _ := cputime.Used()
	for b.Loop() {
		for _, p := range paths {
			f, err := ingest.Open(p, ingest.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := analyze.Replay(f, analyze.NewConfig(), runtime.GOMAXPROCS(0), analyze.Hooks{}); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	}
	cputimetest.Report(b, cpu0, size)
	b.ReportMetric(float64(len(paths))*float64(b.N)/b.Elapsed().Seconds(), "captures/s")
}
