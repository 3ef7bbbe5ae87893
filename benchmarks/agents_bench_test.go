package benchmarks

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
)

// BenchmarkAgents: what an agent costs the engine, with the loop kill
// switch at its defaults. One iteration replays 1M agents, each seen once,
// then every third one again (a second request with the same prompt), from
// records whose features are already extracted (no bodies: this measures
// the per-agent state, not extraction). It reports
//
//   - bytes/agent: the live heap (HeapInuse after a GC) the engine holds
//     per agent once every record is replayed, the agent's id included
//     (the reader gives every record a fresh id string, as here);
//   - ns/new-agent: the time to replay an agent's first request;
//   - summary-bytes/agent: the live heap per agent after Finish, when only
//     the Summary is left.
//
// Set KILLSWITCH_BENCH_AGENTS to change the number of agents.
func BenchmarkAgents(b *testing.B) {
	n := envCount("KILLSWITCH_BENCH_AGENTS", 1_000_000)
	t0 := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	feats := func(i int) analyze.Features {
		return analyze.Features{Entry: analyze.Entry{Prompt: uint64(i) * 0x9e3779b97f4a7c15, HasPrompt: true,
			Response: uint64(i) * 0xc2b2ae3d27d4eb4f, HasResp: true}}
	}
	name := func(buf []byte, i int) string {
		buf = append(buf[:0], "agent-"...)
		return string(strconv.AppendInt(buf, int64(i), 10))
	}
	var perAgent, perNew, perSummary float64
	for b.Loop() {
		cfg := analyze.NewConfig()
		eng, err := analyze.NewEngine(cfg)
		if err != nil {
			b.Fatal(err)
		}
		before := heapInuse()
		var buf []byte
		rec := ingest.Record{Pos: ingest.Pos{File: "agents.jsonl"}, Status: 200}
		step := func(i int) {
			rec.Pos.N++
			rec.TS = t0.Add(time.Duration(rec.Pos.N) * time.Millisecond)
			rec.Agent = name(buf, i)
			f := feats(i)
			if _, ok, _ := eng.Step(&rec, &f); !ok {
				b.Fatal("no decision")
			}
		}
		start := time.Now()
		for i := range n {
			step(i)
		}
		perNew = float64(time.Since(start).Nanoseconds()) / float64(n)
		for i := 0; i < n; i += 3 {
			step(i)
		}
		perAgent = float64(heapInuse()-before) / float64(n)
		sum := eng.Finish()
		eng = nil // only the summary is left
		perSummary = float64(heapInuse()-before) / float64(n)
		if sum.Totals.Agents != n {
			b.Fatalf("%d agents, want %d", sum.Totals.Agents, n)
		}
		runtime.KeepAlive(sum)
	}
	b.ReportMetric(perAgent, "bytes/agent")
	b.ReportMetric(perNew, "ns/new-agent")
	b.ReportMetric(perSummary, "summary-bytes/agent")
}

// envCount is the positive number in environment variable name, else def.
func envCount(name string, def int) int {
	if s, err := strconv.Atoi(os.Getenv(name)); err == nil && s > 0 {
		return s
	}
	return def
}

// heapInuse is the live heap after a collection.
func heapInuse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}
