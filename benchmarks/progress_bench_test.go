package benchmarks

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/killswitch/killswitch/analyze"
	"github.com/killswitch/killswitch/ingest"
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
		r := ingest.NewJSONL(bytes.NewReader(data), p, ingest.JSONLOptions{})
		for r.Scan() {
			rec := *r.Record()
			rec.Request, rec.Response = bytes.Clone(rec.Request), bytes.Clone(rec.Response)
			recs = append(recs, rec)
		}
	}
	return recs, size
}

func chatRecords(b *testing.B) ([]ingest.Record, int64) {
	data, _ := benchCapture()
	return recordsOf(data, "bench.jsonl"), int64(len(data))
}

// recordsOf reads the JSONL records of data, each with its own copy of
// its bodies.
func recordsOf(data []byte, name string) []ingest.Record {
	var recs []ingest.Record
	r := ingest.NewJSONL(bytes.NewReader(data), name, ingest.JSONLOptions{})
	for r.Scan() {
		rec := *r.Record()
		rec.Request, rec.Response = bytes.Clone(rec.Request), bytes.Clone(rec.Response)
		recs = append(recs, rec)
	}
	return recs
}

// BenchmarkExtract: one profile's feature extraction (the per-record cost
// that runs in parallel) on the same records, spec against progress.
func BenchmarkExtract(b *testing.B) {
	for _, in := range []struct {
		name string
		load func(*testing.B) ([]ingest.Record, int64)
	}{{"chat", chatRecords}, {"fixtures", fixtureRecords}} {
		recs, size := in.load(b)
		for _, p := range []*analyze.Profile{analyze.ProfileSpec, analyze.ProfileProgress} {
			b.Run(in.name+"/"+p.String(), func(b *testing.B) {
				x := analyze.NewExtractor(p)
				b.SetBytes(size)
				b.ReportAllocs()
				for b.Loop() {
					for i := range recs {
						if f := x.Extract(&recs[i]); f.Err != nil {
							b.Fatal(f.Err)
						}
					}
				}
				reportRecords(b, len(recs))
			})
		}
	}
}
