package benchmarks

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/breaker"
	"github.com/killswitch/killswitch/analyze/gateway"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/cputime"
	"github.com/killswitch/killswitch/internal/cputime/cputimetest"
)

var (
	captureOnce sync.Once
	capture     []byte
	captureRecs int
)

// benchCapture is 5,000 chat records, about 60 MB. Set
// KILLSWITCH_BENCH_CAPTURE=FILE to write it out (e.g. to time `wc -w`).
func benchCapture() ([]byte, int) {
	captureOnce.Do(func() {
		captureRecs = 5000
		capture = chatCapture(captureRecs)
		if f := os.Getenv("KILLSWITCH_BENCH_CAPTURE"); f != "" {
			os.WriteFile(f, capture, 0o644)
		}
	})
	return capture, captureRecs
}

func reportRecords(b *testing.B, n int) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkReadJSONL: the JSONL reader alone (bytes → records).
func BenchmarkReadJSONL(b *testing.B) {
	data, n := benchCapture()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := ingest.NewJSONL(bytes.NewReader(data), "bench.jsonl", ingest.JSONLOptions{})
		k := 0
		for r.Scan() {
			k++
		}
		if k != n || r.Err() != nil {
			b.Fatalf("%d records, %v", k, r.Err())
		}
	}
	reportRecords(b, n)
}

// BenchmarkReplayJSONL: a whole replay (read, extract, normalize, SimHash,
// window, score, enforce) at 1 worker and at one per CPU.
func BenchmarkReplayJSONL(b *testing.B) {
	data, n := benchCapture()
	for _, p := range []*analyze.Profile{analyze.ProfileSpec, analyze.ProfileAgentGazer, analyze.ProfileProgress} {
		for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(p.String()+"/workers="+strconv.Itoa(workers), func(b *testing.B) {
				cfg := analyze.NewConfig()
				cfg.Profile = p
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				cpu0, _ := cputime.Used()
				for b.Loop() {
					r := ingest.NewJSONL(bytes.NewReader(data), "bench.jsonl", ingest.JSONLOptions{})
					sum, err := analyze.Replay(r, cfg, workers, analyze.Hooks{})
					if err != nil || sum.Totals.Requests != n {
						b.Fatalf("%v %d", err, sum.Totals.Requests)
					}
				}
				cputimetest.Report(b, cpu0, int64(len(data)))
				reportRecords(b, n)
			})
		}
	}
}

// BenchmarkReplayBreaker: the error-rate circuit breaker over the same
// capture, to compare with the spec loop replay (#10: at least as fast).
func BenchmarkReplayBreaker(b *testing.B) {
	data, n := benchCapture()
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("workers="+strconv.Itoa(workers), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				pol, err := breaker.NewPolicy(breaker.NewConfig())
				replayPolicy(b, data, n, workers, pol, err)
			}
			reportRecords(b, n)
		})
	}
}

// BenchmarkReplayGateway: the gateway (m22 and spec variants) over the same
// capture, decision records kept (as --writes and -f jsonl need them): its
// guardrails parse every request body into Python's repr of it.
func BenchmarkReplayGateway(b *testing.B) {
	data, n := benchCapture()
	for _, v := range []*gateway.Variant{gateway.M22, gateway.Spec} {
		b.Run(v.Name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpu0, _ := cputime.Used()
			for b.Loop() {
				pol, err := gateway.NewPolicy(gateway.DefaultConfig(v))
				replayPolicy(b, data, n, 1, pol, err)
			}
			cputimetest.Report(b, cpu0, int64(len(data)))
			reportRecords(b, n)
		})
	}
}

// replayPolicy replays data (n requests) through pol alone, the policy
// NewPolicy returned with err, on workers workers.
func replayPolicy(b *testing.B, data []byte, n, workers int, pol analyze.Policy, err error) {
	if err != nil {
		b.Fatal(err)
	}
	cfg := analyze.NewConfig()
	cfg.Profile = analyze.ProfileUsage
	cfg.Policies = []analyze.Policy{pol}
	r := ingest.NewJSONL(bytes.NewReader(data), "bench.jsonl", ingest.JSONLOptions{})
	sum, err := analyze.Replay(r, cfg, workers, analyze.Hooks{})
	if err != nil || sum.Totals.Requests != n {
		b.Fatalf("%v %d", err, sum.Totals.Requests)
	}
}
