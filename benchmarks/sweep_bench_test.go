package benchmarks

import (
	"bytes"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
)

// BenchmarkSweepGrid: a sweep of 3 windows × 25 thresholds (75 settings)
// against one replay of the same capture, both on one worker so that the
// comparison is of work done, not of scheduling. Each iteration runs one
// replay and one sweep; the benchmark reports the sweep's time as a
// multiple of the replay's (x-replay) and fails above 2. Block mode is the
// costlier case: every agent a setting blocks is replayed again at that
// setting from its collected fingerprints.
func BenchmarkSweepGrid(b *testing.B) {
	data, n := benchCapture()
	var thresholds []float64
	for t := 4.0; t <= 16; t += 0.5 {
		thresholds = append(thresholds, t)
	}
	for _, mode := range []analyze.Mode{analyze.ModeDeactivate, analyze.ModeBlock} {
		b.Run("spec/"+mode.String(), func(b *testing.B) {
			cfg := sweep.Config{Mode: mode, Windows: []int{10, 20, 40}, Thresholds: thresholds,
				LateAfter: sweep.DefaultLateAfter, RetryAfter: time.Minute}
			rcfg := cfg.SettingConfig(20, 10)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var replayT, sweepT time.Duration
			for b.Loop() {
				t0 := time.Now()
				sum, err := analyze.Replay(ingest.NewJSONL(bytes.NewReader(data), "bench.jsonl", ingest.JSONLOptions{}), rcfg, 1, analyze.Hooks{})
				if err != nil || sum.Totals.Requests != n {
					b.Fatal(err)
				}
				t1 := time.Now()
				res, err := sweep.Run(ingest.NewJSONL(bytes.NewReader(data), "bench.jsonl", ingest.JSONLOptions{}), cfg, 1, nil)
				if err != nil || len(res.Settings) != 75 || res.Input.Requests != n {
					b.Fatal(err)
				}
				replayT += t1.Sub(t0)
				sweepT += time.Since(t1)
			}
			ratio := float64(sweepT) / float64(replayT)
			b.ReportMetric(ratio, "x-replay")
			b.ReportMetric(float64(n)*float64(b.N)/sweepT.Seconds(), "sweep-records/s")
			if ratio > 2 {
				b.Errorf("a 3×25 sweep costs %.2f× one replay, more than 2×", ratio)
			}
		})
	}
}
