package benchmarks

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/analyze/sweep"
	"github.com/killswitch/killswitch/ingest"
)

// BenchmarkSweepMemory: what a sweep holds per request. One iteration
// collects 1M requests of 10,000 agents (100 each, interleaved; every
// twentieth agent loops, repeating one prompt and answer; every tenth
// request calls a tool) from records whose features are already extracted,
// then sweeps the default grid (windows 10,20,40 × thresholds 4:16:0.5). It
// reports the live heap (HeapInuse after a GC) per request
//
//   - collect-bytes/request: while collecting, the engine's per-agent
//     state included, just before Finish;
//   - bytes/request: the collected Traffic the sweep evaluates;
//   - swept-bytes/request: the Traffic and the sweep's Result.
//
// spill=off keeps every packed request in memory; spill=4MiB spills past
// a 4 MiB budget to a temporary file (as killswitch sweep does past
// --spill-budget), so that the heap stays flat and the sweep reads every
// agent back from many segments: records/s compares the two.
//
// Set KILLSWITCH_BENCH_REQUESTS to change the number of requests.
func BenchmarkSweepMemory(b *testing.B) {
	for _, budget := range []int64{0, 4 << 20} {
		name := "spill=off"
		if budget > 0 {
			name = "spill=4MiB"
		}
		b.Run(name, func(b *testing.B) { benchSweepMemory(b, budget) })
	}
}

// benchSpill is a sweep.SpillStore in a temporary file.
type benchSpill struct {
	f   *os.File
	w   *bufio.Writer
	off int64
}

func (s *benchSpill) Append(p []byte) (int64, error) {
	off := s.off
	n, err := s.w.Write(p)
	s.off += int64(n)
	return off, err
}

func (s *benchSpill) ReadAt(p []byte, off int64) (int, error) {
	if err := s.w.Flush(); err != nil {
		return 0, err
	}
	return s.f.ReadAt(p, off)
}

func benchSweepMemory(b *testing.B, budget int64) {
	n := envCount("KILLSWITCH_BENCH_REQUESTS", 1_000_000)
	agents := envCount("KILLSWITCH_BENCH_SWEEP_AGENTS", 10_000)
	var thresholds []float64
	for t := 4.0; t <= 16; t += 0.5 {
		thresholds = append(thresholds, t)
	}
	cfg := sweep.Config{Mode: analyze.ModeDeactivate, Windows: []int{10, 20, 40}, Thresholds: thresholds,
		LateAfter: sweep.DefaultLateAfter, RetryAfter: time.Minute}
	names := make([]string, agents)
	for i := range names {
		names[i] = "agent-" + strconv.Itoa(i)
	}
	t0 := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	var collectB, trafficB, sweptB float64
	for b.Loop() {
		before := heapInuse()
		c, err := sweep.NewCollector(nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if budget > 0 {
			f, err := os.CreateTemp(b.TempDir(), "spill")
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			c.SpillTo(sweep.Spill{Store: &benchSpill{f: f, w: bufio.NewWriterSize(f, 1<<20)}, Budget: budget})
		}
		rec := ingest.Record{Pos: ingest.Pos{File: "sweep.jsonl"}, Status: 200, HasTokens: true}
		for i := range n {
			a := i % agents
			rec.Pos.N++
			rec.TS = t0.Add(time.Duration(i) * 50 * time.Millisecond)
			rec.Agent = string(append([]byte(nil), names[a]...)) // a fresh id per record, as a reader gives
			rec.TokensIn, rec.TokensOut = int64(1000+i%700), int64(100+i%300)
			h := uint64(i) * 0x9e3779b97f4a7c15
			if a%20 == 0 {
				h = uint64(a) * 0x9e3779b97f4a7c15
			}
			f := analyze.Features{Entry: analyze.Entry{Prompt: h, HasPrompt: true, Response: h ^ 0xc2b2ae3d27d4eb4f, HasResp: true,
				TS: rec.TS.UnixNano()}}
			if i%10 == 0 {
				f.Entry.ToolSig = "search(query)"
			}
			if err := c.Step(&rec, &f); err != nil {
				b.Fatal(err)
			}
		}
		collectB = float64(heapInuse()-before) / float64(n)
		t := c.Finish()
		c = nil
		trafficB = float64(heapInuse()-before) / float64(n)
		res, err := t.Sweep(cfg)
		if err != nil || res.Input.Requests != n || len(res.Settings) != 75 {
			b.Fatal(err)
		}
		sweptB = float64(heapInuse()-before) / float64(n)
		runtime.KeepAlive(t)
		runtime.KeepAlive(res)
	}
	b.ReportMetric(collectB, "collect-bytes/request")
	b.ReportMetric(trafficB, "bytes/request")
	b.ReportMetric(sweptB, "swept-bytes/request")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
