package benchmarks

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
	"github.com/killswitch/killswitch/internal/cputime"
	"github.com/killswitch/killswitch/internal/cputime/cputimetest"
)

// fixtureRecords reads fixtures/progress/*.jsonl: growing tool-using
// conversations (OpenAI and Anthropic), the traffic the progress profile
// reads past the last assistant turn of.
func fixtureRecords(b *testing.B) ([]ingest.Record, int64) {
	paths, _ := filepath.Glob("../fixtures/progress/*.jsonl")
	if len(paths) == 0 {
		b.Skip("no fixtures/progress")
	}
	var recs []ingest.Record
	var size int64
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		size += int64(len(data))
		recs = append(recs, readRecords(data, p)...)
	}
	return recs, size
}

// trajectoryRecords reads the real agent runs of
// ../shared/trajectories/real-runs.jsonl.gz (SWE-agent command blocks,
// ReAct text actions, Claude Code tool use): the text actions the progress
// profile parses out of assistant turns. Skipped without ../shared.
func trajectoryRecords(b *testing.B) ([]ingest.Record, int64) {
	raw, err := os.ReadFile("../../shared/trajectories/real-runs.jsonl.gz")
	if err != nil {
		b.Skip("no ../shared/trajectories")
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	return readRecords(data, "real-runs.jsonl"), int64(len(data))
}

// readRecords reads a JSONL capture into records that own their bodies.
func readRecords(data []byte, name string) []ingest.Record {
	var recs []ingest.Record
	r := ingest.NewJSONL(bytes.NewReader(data), name, ingest.JSONLOptions{})
	for r.Scan() {
		rec := *r.Record()
		rec.Request, rec.Response = bytes.Clone(rec.Request), bytes.Clone(rec.Response)
		recs = append(recs, rec)
	}
	return recs
}

func chatRecords(b *testing.B) ([]ingest.Record, int64) {
	data, _ := benchCapture()
	return readRecords(data, "bench.jsonl"), int64(len(data))
}

// BenchmarkExtract: one profile's feature extraction (the per-record cost
// that runs in parallel) on the same records, spec against progress.
func BenchmarkExtract(b *testing.B) {
	for _, in := range []struct {
		name string
		load func(*testing.B) ([]ingest.Record, int64)
	}{{"chat", chatRecords}, {"fixtures", fixtureRecords}, {"trajectories", trajectoryRecords}} {
		recs, size := in.load(b)
		for _, p := range []*analyze.Profile{analyze.ProfileSpec, analyze.ProfileProgress} {
			b.Run(in.name+"/"+p.String(), func(b *testing.B) {
				x := analyze.NewExtractor(p)
				b.SetBytes(size)
				b.ReportAllocs()
				cpu0, _ := cputime.Used()
				for b.Loop() {
					for i := range recs {
						if f := x.Extract(&recs[i]); f.Err != nil {
							b.Fatal(f.Err)
						}
					}
				}
				cputimetest.Report(b, cpu0, size)
				reportRecords(b, len(recs))
			})
		}
	}
}
